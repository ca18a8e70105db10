#include "compute/workloads/sdh/user_abi.h"

namespace ks::sdh {

namespace {

constexpr const char* kHeader
    = R"(// KernelScope user-kernel ABI for sdh: the histogram of all n(n-1)/2 pair distances of a point cloud.
// Every entry point is  extern "C" __global__ void NAME(ks_sdh_args a)  and runs in the order the file's
// "// kernelscope:" lines declare, on one stream.
struct ks_sdh_args {
    const double* x;                  // n coordinates each (structure of arrays)
    const double* y;
    const double* z;
    int n;                            // points (may be 0 or 1: no pairs)
    int buckets;                      // histogram length: floor(bounding-box diagonal / width) + 1
    double width;                     // bucket width: a pair at distance d counts in floor(d / width)
    unsigned long long* histogram;    // out: buckets counts, zeroed before every repetition
    void* scratch;                    // the declared scratch= bytes, zeroed before every repetition; null when none
    unsigned long long scratch_bytes;
};

// The reference's bucket of a pair, rounding for rounding: dx = x[i] - x[j] (likewise dy, dz),
// d = sqrt((dx*dx + dy*dy) + dz*dz) without fused multiply-adds, floor(d / width), the last bucket for anything beyond.
// An exact variant must count every pair in this bucket.
__device__ __forceinline__ unsigned ks_sdh_bucket(double dx, double dy, double dz, double width, int buckets)
{
    const double d2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
    const unsigned long long b = __double2ull_rz(__ddiv_rn(__dsqrt_rn(d2), width));
    const unsigned long long last = (unsigned long long)(buckets - 1);
    return (unsigned)(b < last ? b : last);
}
)";

constexpr const char* kTemplate
    = R"(// An sdh kernel for KernelScope: one thread per point i counts its pairs with every j > i into the global
// histogram with atomics (the seed's baseline).
// Compile it with  kernelscope-cli compile --workload sdh --kernel this.cu
//
// Launches, in order (formulas over n, buckets and sm_count: integers, + - * /, ceil, floor, min, max):
// kernelscope: kernel=pairs_of_point block=256 grid=ceil(n/256)

extern "C" __global__ void pairs_of_point(ks_sdh_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n)
        return;
    const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
    for (int j = i + 1; j < a.n; ++j) {
        const unsigned b = ks_sdh_bucket(xi - a.x[j], yi - a.y[j], zi - a.z[j], a.width, a.buckets);
        atomicAdd(a.histogram + b, 1ULL);
    }
}
)";

} // namespace

const UserKernelAbi& userKernelAbi()
{
    static const UserKernelAbi abi {"sdh", "ks_sdh_args", kHeader, kTemplate, {"n", "buckets"}, sizeof(UserKernelArgs)};
    return abi;
}

} // namespace ks::sdh
