#include "compute/workloads/lrv/user_abi.h"

namespace ks::lrv {

namespace {

constexpr const char* kHeader
    = R"(// KernelScope user-kernel ABI for lrv: the log-ratio variance var_k(log y[k][i] - log y[k][j]) (denominator
// n - 1) of every pair of features i > j of an n x p expression table.
// Every entry point is  extern "C" __global__ void NAME(ks_lrv_args a)  and runs in the order the file's
// "// kernelscope:" lines declare, on one stream.
struct ks_lrv_args {
    const double* y;                  // n x p, row-major: sample k's feature i is y[k * p + i]; every value > 0
    unsigned long long n;             // samples (at least 2)
    unsigned long long p;             // features
    unsigned long long pairs;         // p (p - 1) / 2
    double* out;                      // out: pairs values, pair (i, j) with i > j at ks_lrv_pair_index(i, j); NaN before
                                      // the run
    void* scratch;                    // the declared scratch= bytes, zeroed before every repetition; null when none
    unsigned long long scratch_bytes;
};

// Where pair (i, j), i > j, goes in out: row i of the lower triangle starts at i (i - 1) / 2.
__device__ __forceinline__ unsigned long long ks_lrv_pair_index(unsigned long long i, unsigned long long j)
{
    return i * (i - 1) / 2 + j;
}

// The pair (i, j) at index k of out: the inverse of ks_lrv_pair_index.
__device__ __forceinline__ void ks_lrv_pair_at(unsigned long long k, unsigned long long* i, unsigned long long* j)
{
    unsigned long long r = (unsigned long long)((1.0 + sqrt(1.0 + 8.0 * (double)k)) / 2.0);
    while (r * (r - 1) / 2 > k)
        --r;
    while ((r + 1) * r / 2 <= k)
        ++r;
    *i = r;
    *j = k - r * (r - 1) / 2;
}
)";

constexpr const char* kTemplate
    = R"(// An lrv kernel for KernelScope in two passes: centre every feature's logs over the samples into the scratch
// buffer, then one thread per pair sums the squared differences of the two centred columns.
// Compile it with  kernelscope-cli compile --workload lrv --kernel this.cu
//
// Launches, in order (formulas over n, p, pairs and sm_count: integers, + - * /, ceil, floor, min, max):
// kernelscope: scratch=8*n*p
// kernelscope: kernel=centre_logs block=256 grid=ceil(p/256)
// kernelscope: kernel=pair_variances block=256 grid=min(ceil(pairs/256), 64*sm_count)

// C[k][i] = log y[k][i] - mean over k of log y[k][i], stored like y (n x p, row-major) in scratch.
extern "C" __global__ void centre_logs(ks_lrv_args a)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.p)
        return;
    double* c = (double*)a.scratch;
    double sum = 0.0;
    for (unsigned long long k = 0; k < a.n; ++k)
        sum += log(a.y[k * a.p + i]);
    const double mean = sum / (double)a.n;
    for (unsigned long long k = 0; k < a.n; ++k)
        c[k * a.p + i] = log(a.y[k * a.p + i]) - mean;
}

// The columns are centred, so the log ratio's mean is zero and its variance is the mean square (n - 1 denominator).
extern "C" __global__ void pair_variances(ks_lrv_args a)
{
    const double* c = (const double*)a.scratch;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < a.pairs; k += stride) {
        unsigned long long i = 0, j = 0;
        ks_lrv_pair_at(k, &i, &j);
        double squares = 0.0;
        for (unsigned long long s = 0; s < a.n; ++s) {
            const double d = c[s * a.p + i] - c[s * a.p + j];
            squares += d * d;
        }
        a.out[k] = squares / (double)(a.n - 1);
    }
}
)";

} // namespace

const UserKernelAbi& userKernelAbi()
{
    static const UserKernelAbi abi {
        "lrv", "ks_lrv_args", kHeader, kTemplate, {"n", "p", "pairs"}, sizeof(UserKernelArgs)};
    return abi;
}

} // namespace ks::lrv
