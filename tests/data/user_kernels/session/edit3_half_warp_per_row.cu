// An spmv kernel for KernelScope: 16 lanes per row, two rows per warp (edit 3 of the scripted GUI session). Rows of
// a few dozen entries keep every lane busy for more iterations, and the reduction is one step shorter.
//
// kernelscope: kernel=half_warp_per_row block=256 grid=ceil(rows*16/256)

extern "C" __global__ void half_warp_per_row(ks_spmv_args a)
{
    const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int row = (int)(thread / 16);
    const int lane = threadIdx.x % 16;
    // Every lane of the warp takes part in the shuffles, also those past the last row.
    const bool active = row < a.rows;
    double sum = 0.0;
    if (active)
        for (int k = a.row_ptr[row] + lane; k < a.row_ptr[row + 1]; k += 16)
            sum += __ldg(&a.values[k]) * __ldg(&a.x[__ldg(&a.col_idx[k])]);
    for (int offset = 8; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, 16);
    if (active && lane == 0)
        a.y[row] = sum;
}
