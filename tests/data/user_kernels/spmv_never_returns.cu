// An spmv kernel that never returns: the watchdog must kill its worker process (tests/cli/test_cli_worker.cpp).
// kernelscope: kernel=spin_forever block=256 grid=ceil(rows/256)

extern "C" __global__ void spin_forever(ks_spmv_args a)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= a.rows)
        return;
    // clock64() is never negative, but the compiler cannot know it, so the loop is kept.
    while (clock64() >= 0) { }
    a.y[row] = 0.0;
}
