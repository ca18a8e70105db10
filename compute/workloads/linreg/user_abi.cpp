#include "compute/workloads/linreg/user_abi.h"

namespace ks::linreg {

namespace {

constexpr const char* kHeader
    = R"(// KernelScope user-kernel ABI for linreg: ordinary least squares y = slope * x + intercept over n points.
// Every entry point is  extern "C" __global__ void NAME(ks_linreg_args a)  and runs in the order the file's
// "// kernelscope:" lines declare, on one stream. The inputs are the dataset's doubles.
struct ks_linreg_args {
    const double* x;                  // n values
    const double* y;                  // n values
    unsigned long long n;             // points (may be 0)
    double* fit;                      // out: fit[0] = slope, fit[1] = intercept; NaN before the run
    void* scratch;                    // the declared scratch= bytes, zeroed before every repetition; null when none
    unsigned long long scratch_bytes;
};
)";

constexpr const char* kTemplate
    = R"(// A linreg kernel for KernelScope: every block sums its points in shared memory and adds the block's four sums
// (Σx, Σy, Σx², Σxy) into the scratch buffer with atomics; a one-thread kernel turns them into the fit.
// Compile it with  kernelscope-cli compile --workload linreg --kernel this.cu
//
// Launches, in order (formulas over n and sm_count: integers, + - * /, ceil, floor, min, max):
// kernelscope: scratch=4*8
// kernelscope: kernel=block_sums block=256 grid=min(ceil(n/256), 4*sm_count)
// kernelscope: kernel=fit_from_sums block=1 grid=1

#define BLOCK 256 // the block= above: the shared tree below halves it

extern "C" __global__ void block_sums(ks_linreg_args a)
{
    __shared__ double s[4][BLOCK];
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
        const double xi = a.x[i];
        const double yi = a.y[i];
        sx += xi;
        sy += yi;
        sxx += xi * xi;
        sxy += xi * yi;
    }
    const unsigned t = threadIdx.x;
    s[0][t] = sx;
    s[1][t] = sy;
    s[2][t] = sxx;
    s[3][t] = sxy;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            for (int q = 0; q < 4; ++q)
                s[q][t] += s[q][t + half];
        __syncthreads();
    }
    if (t < 4)
        atomicAdd((double*)a.scratch + t, s[t][0]);
}

extern "C" __global__ void fit_from_sums(ks_linreg_args a)
{
    const double* sums = (const double*)a.scratch;
    const double n = (double)a.n;
    const double slope = (n * sums[3] - sums[0] * sums[1]) / (n * sums[2] - sums[0] * sums[0]);
    a.fit[0] = slope;
    a.fit[1] = (sums[1] - slope * sums[0]) / n;
}
)";

} // namespace

const UserKernelAbi& userKernelAbi()
{
    static const UserKernelAbi abi {"linreg", "ks_linreg_args", kHeader, kTemplate, {"n"}, sizeof(UserKernelArgs)};
    return abi;
}

} // namespace ks::linreg
