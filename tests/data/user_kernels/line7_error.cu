// An spmv kernel with a syntax error on line 7 (a test input: compile must say line7_error.cu:7 and exit 2).
// kernelscope: kernel=row_per_thread block=256 grid=ceil(rows/256)
extern "C" __global__ void row_per_thread(ks_spmv_args a)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < a.rows)
        a.y[row] = 0.0 + ;
}
