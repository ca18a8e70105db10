// An spmv kernel that writes far past y: the run must fail with an illegal address, in its worker process only, while
// the built-in variants after it still run (tests/cli/test_cli_worker.cpp).
// kernelscope: kernel=write_out_of_bounds block=256 grid=ceil(rows/256)

extern "C" __global__ void write_out_of_bounds(ks_spmv_args a)
{
    const long long row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= a.rows)
        return;
    // Far beyond any allocation: 2^40 doubles past y.
    a.y[row + (1LL << 40)] = 1.0;
}
