// An spmv kernel for KernelScope: one warp per row (edit 1 of the scripted GUI session). The shuffle reduction
// starts at offset 8 instead of 16, so lanes 16-31's partial sums never reach lane 0: the result is wrong, and
// KernelScope says so.
//
// kernelscope: kernel=warp_per_row block=256 grid=ceil(rows*32/256)

extern "C" __global__ void warp_per_row(ks_spmv_args a)
{
    const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int row = (int)(thread / 32);
    const int lane = threadIdx.x % 32;
    if (row >= a.rows)
        return;
    double sum = 0.0;
    for (int k = a.row_ptr[row] + lane; k < a.row_ptr[row + 1]; k += 32)
        sum += a.values[k] * a.x[a.col_idx[k]];
    for (int offset = 8; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0)
        a.y[row] = sum;
}
