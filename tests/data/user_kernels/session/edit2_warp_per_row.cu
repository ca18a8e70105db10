// An spmv kernel for KernelScope: one warp per row (edit 2 of the scripted GUI session): the lanes stride over the
// row's entries together (coalesced loads) and a shuffle reduction from offset 16 gives lane 0 the row's sum.
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
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0)
        a.y[row] = sum;
}
