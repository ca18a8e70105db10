// Hand-written CUDA variants of sdh: the seed's five (global atomics; the shared-memory LR block; with one local
// histogram copy; with several copies chosen by the seed's table; the same on structure-of-arrays coordinates) and,
// beyond the seed, a load-balanced register-tiled kernel with per-warp histograms, in float32 (approximate: a pair
// within float rounding of a bucket edge may be counted in the neighbouring bucket) and in float64 (exact: every
// pair in the reference's bucket).
#include "compute/core/make_run.h"
#include "compute/core/triangle.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/device_info.h"
#include "compute/device/launch.cuh"
#include "compute/device/multi_device.cuh"
#include "compute/workloads/sdh/device_run.cuh"
#include "compute/workloads/sdh/screen.h"
#include "compute/workloads/sdh/sdh.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

namespace ks::sdh::gpu {

namespace {

/// A point as the seed stores it: a struct of three doubles.
struct Atom {
    double x, y, z;
};

/// The reference's distance and bucket, operation by operation (no contraction into fused multiply-adds).
__device__ __forceinline__ unsigned long long exactBucket(
    double dx, double dy, double dz, double width, unsigned long long last)
{
    const double d2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
    const unsigned long long b = __double2ull_rz(__ddiv_rn(__dsqrt_rn(d2), width));
    return b < last ? b : last;
}

std::vector<Atom> atomsOf(const data::PointCloud& c)
{
    std::vector<Atom> atoms(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
        atoms[i] = {c.x[i], c.y[i], c.z[i]};
    return atoms;
}

// ---------------------------------------------------------------------------------------------------------------
// baseline (the seed's 1): a thread per point i, every j > i, each count a global atomicAdd.

struct BaselinePolicy {
    static constexpr int kThreads = 256;
};

__global__ void __launch_bounds__(BaselinePolicy::kThreads) baselineKernel(
    int n, const Atom* __restrict__ atoms, double width, unsigned long long last, unsigned long long* histogram)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Atom a = atoms[i];
    for (int j = i + 1; j < n; ++j) {
        const Atom b = atoms[j];
        atomicAdd(histogram + exactBucket(a.x - b.x, a.y - b.y, a.z - b.z, width, last), 1ULL);
    }
}

class BaselineRun final : public SdhDeviceRun {
public:
    BaselineRun(const data::PointCloud& cloud, Buckets buckets)
        : SdhDeviceRun(cloud, buckets, cloud.size() * sizeof(Atom))
        , m_atoms(cloud.size())
    {
        const auto atoms = atomsOf(cloud);
        timedUpload([&] { m_atoms.uploadAsync(atoms, stream()); });
    }

private:
    void launch() override
    {
        baselineKernel<<<device::blocksFor(n(), BaselinePolicy::kThreads), BaselinePolicy::kThreads, 0, stream()>>>(
            n(), m_atoms.data(), width(), last(), histogram());
        KS_CUDA_CHECK_LAUNCH("baselineKernel");
    }
    device::DeviceBuffer<Atom> m_atoms;
};

// ---------------------------------------------------------------------------------------------------------------
// The seed's 2–5, one kernel: block b holds its points L in registers (a thread each) and walks the blocks R after
// it through shared memory, then its own block for the pairs inside it. Counts go to the global histogram (2), to
// one shared copy (3), or to several copies chosen by the seed's table (4; 5 also reads structure-of-arrays
// coordinates); copies are summed and added to the global histogram once per block.

struct LrPolicy {
    static constexpr int kThreads = 256;
    /// The shared memory a block may use for its staged points and histogram copies (Hopper and Ampere allow more
    /// than the 48 KB default once the kernel opts in).
    static constexpr std::size_t kSharedBudget = 96 * 1024;
};

enum class LrMode { Global, Copies, CopiesSoa };

/// The seed's table: copies of the histogram by bucket count (from the paper it follows).
int seedCopies(int buckets)
{
    if (buckets < 10)
        return 32;
    if (buckets < 30)
        return 16;
    if (buckets < 90)
        return 8;
    if (buckets < 150)
        return 4;
    if (buckets < 300)
        return 2;
    return 1;
}

template <LrMode Mode>
__global__ void __launch_bounds__(LrPolicy::kThreads) sharedLrKernel(int n, const Atom* __restrict__ atoms,
    const double* __restrict__ xs, const double* __restrict__ ys, const double* __restrict__ zs, double width,
    unsigned long long last, int buckets, int copies, unsigned long long* histogram)
{
    extern __shared__ double shared[];
    double* rx = shared; // the R block, structure-of-arrays in shared memory
    double* ry = rx + LrPolicy::kThreads;
    double* rz = ry + LrPolicy::kThreads;
    unsigned* local = reinterpret_cast<unsigned*>(rz + LrPolicy::kThreads); // copies × buckets
    if constexpr (Mode != LrMode::Global) {
        for (int k = threadIdx.x; k < copies * buckets; k += blockDim.x)
            local[k] = 0;
    }
    unsigned* mine = local + (threadIdx.x % max(copies, 1)) * buckets;
    auto load = [&](int j, double& x, double& y, double& z) {
        if constexpr (Mode == LrMode::CopiesSoa) {
            x = xs[j];
            y = ys[j];
            z = zs[j];
        } else {
            const Atom a = atoms[j];
            x = a.x;
            y = a.y;
            z = a.z;
        }
    };
    auto count = [&](double dx, double dy, double dz) {
        const unsigned long long b = exactBucket(dx, dy, dz, width, last);
        if constexpr (Mode == LrMode::Global)
            atomicAdd(histogram + b, 1ULL);
        else
            atomicAdd(mine + b, 1u);
    };
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double x = 0, y = 0, z = 0;
    if (i < n)
        load(i, x, y, z);
    for (int rb = blockIdx.x; rb < static_cast<int>(gridDim.x); ++rb) {
        const int j0 = rb * blockDim.x;
        __syncthreads();
        if (j0 + static_cast<int>(threadIdx.x) < n)
            load(j0 + threadIdx.x, rx[threadIdx.x], ry[threadIdx.x], rz[threadIdx.x]);
        __syncthreads();
        if (i >= n)
            continue;
        const int count_ = min(static_cast<int>(blockDim.x), n - j0);
        // Inter-block: every point of R; intra-block (rb is this block): only the points after this thread's.
        for (int k = rb == static_cast<int>(blockIdx.x) ? threadIdx.x + 1 : 0; k < count_; ++k)
            count(x - rx[k], y - ry[k], z - rz[k]);
    }
    if constexpr (Mode != LrMode::Global) {
        __syncthreads();
        for (int b = threadIdx.x; b < buckets; b += blockDim.x) {
            unsigned long long total = 0;
            for (int c = 0; c < copies; ++c)
                total += local[c * buckets + b];
            if (total)
                atomicAdd(histogram + b, total);
        }
    }
}

class SharedLrRun final : public SdhDeviceRun {
public:
    /// copies: 0 for global atomics (the seed's 2), 1 (its 3), or the seed's table (4 and 5).
    SharedLrRun(const data::PointCloud& cloud, Buckets buckets, int copies, bool soa)
        : SdhDeviceRun(cloud, buckets, cloud.size() * sizeof(Atom))
        , m_copies(copies)
        , m_soa(soa)
    {
        const std::size_t stage = 3 * LrPolicy::kThreads * sizeof(double);
        if (copies > 0 && stage + buckets.count * sizeof(unsigned) > LrPolicy::kSharedBudget)
            throw SkipRun("a shared-memory copy of " + std::to_string(buckets.count)
                + " buckets does not fit in a block's shared memory (" + std::to_string(LrPolicy::kSharedBudget / 1024)
                + " KB); use a larger bucket_width");
        // The seed's table, as many copies as fit.
        while (m_copies > 1 && stage + m_copies * buckets.count * sizeof(unsigned) > LrPolicy::kSharedBudget)
            m_copies /= 2;
        m_sharedBytes = stage + static_cast<std::size_t>(m_copies) * buckets.count * sizeof(unsigned);
        if (soa) {
            m_x = device::DeviceBuffer<double>(cloud.size());
            m_y = device::DeviceBuffer<double>(cloud.size());
            m_z = device::DeviceBuffer<double>(cloud.size());
            timedUpload([&] {
                m_x.uploadAsync(cloud.x, stream());
                m_y.uploadAsync(cloud.y, stream());
                m_z.uploadAsync(cloud.z, stream());
            });
        } else {
            const auto atoms = atomsOf(cloud);
            m_atoms = device::DeviceBuffer<Atom>(atoms.size());
            timedUpload([&] { m_atoms.uploadAsync(atoms, stream()); });
        }
        KS_CUDA_CHECK(cudaFuncSetAttribute(sharedLrKernel<LrMode::Global>, cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(LrPolicy::kSharedBudget)));
        KS_CUDA_CHECK(cudaFuncSetAttribute(sharedLrKernel<LrMode::Copies>, cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(LrPolicy::kSharedBudget)));
        KS_CUDA_CHECK(cudaFuncSetAttribute(sharedLrKernel<LrMode::CopiesSoa>,
            cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(LrPolicy::kSharedBudget)));
    }
    std::string note() const override
    {
        return m_copies == 0 ? std::string()
                             : std::to_string(m_copies) + " shared histogram cop" + (m_copies == 1 ? "y" : "ies");
    }

private:
    void launch() override
    {
        const unsigned blocks = device::blocksFor(n(), LrPolicy::kThreads);
        if (m_copies == 0)
            sharedLrKernel<LrMode::Global><<<blocks, LrPolicy::kThreads, m_sharedBytes, stream()>>>(
                n(), m_atoms.data(), nullptr, nullptr, nullptr, width(), last(), bucketCount(), 0, histogram());
        else if (!m_soa)
            sharedLrKernel<LrMode::Copies><<<blocks, LrPolicy::kThreads, m_sharedBytes, stream()>>>(
                n(), m_atoms.data(), nullptr, nullptr, nullptr, width(), last(), bucketCount(), m_copies, histogram());
        else
            sharedLrKernel<LrMode::CopiesSoa><<<blocks, LrPolicy::kThreads, m_sharedBytes, stream()>>>(n(), nullptr,
                m_x.data(), m_y.data(), m_z.data(), width(), last(), bucketCount(), m_copies, histogram());
        KS_CUDA_CHECK_LAUNCH("sharedLrKernel");
    }

    int m_copies;
    bool m_soa;
    std::size_t m_sharedBytes = 0;
    device::DeviceBuffer<Atom> m_atoms;
    device::DeviceBuffer<double> m_x, m_y, m_z;
};

// ---------------------------------------------------------------------------------------------------------------
// tiled_f32 / tiled_f64_exact: tiles of kTile points; the tile pairs (a ≤ b) of the triangle are dealt out in
// equal shares to a grid that fills the GPU, so every block does the same work (the seed's LR blocks do less and
// less as b grows). A thread keeps kPerThread points of tile a in registers and walks tile b in shared memory: one
// shared read of a point serves kPerThread pairs. Counts go to a shared histogram per warp when they fit (no
// contention between warps), else one per block, else straight to global memory; 32-bit in shared memory, added to
// the 64-bit global histogram when the block ends (the grid is sized so no block's counts can overflow 32 bits).

/// Part `part` of `parts` equal ranges of the triangle's tile pairs.
struct TileShare {
    int part = 0;
    int parts = 1;
};

template <class T> struct TiledPolicy {
    static constexpr int kThreads = 256;
    /// Points of tile a held in registers by each thread: eight in float (one shared read serves eight pairs;
    /// 1M points 264 → 242 ms against four), four in double (eight measured slower, 1.21 → 1.31 s).
    static constexpr int kPerThread = sizeof(T) == 4 ? 8 : 4;
    static constexpr int kTile = kThreads * kPerThread;
    /// The shared memory a block may use for tile b and its histograms (opted in beyond the 48 KB default).
    static constexpr std::size_t kSharedBudget = 96 * 1024;
    /// Shared memory up to which a block keeps a histogram per lane (measured: 80 buckets in lane copies, 92 KB a
    /// block, ran slower than one shared histogram per block).
    static constexpr std::size_t kLaneBudget = 48 * 1024;
};

/// What a tiled block needs to turn a pair into its bucket. The screened exact path also reads the coordinates in
/// double, for the pairs its float screen cannot place.
struct BucketParams {
    float inverseWidth = 0.0f;
    double width = 0.0;
    unsigned last = 0;
    float relMargin = 0.0f; ///< ExactScreened: the screen's error bound, relative to q
    float absMargin = 0.0f; ///< ExactScreened: and absolute, from the coordinates' rounding to float
    float halfLessAbs = 0.0f; ///< ExactScreened: ½ − absMargin, rounded down
    const double* xd = nullptr;
    const double* yd = nullptr;
    const double* zd = nullptr;
    unsigned long long* deferred = nullptr; ///< ExactScreened: pairs placed in double, each warp's tally at its end
};

/// The square root the tiled kernels take: one MUFU instruction, inputs below float's smallest normal flushed to zero;
/// its relative error is within kScreenSqrtError (screen.h), which measureScreenSqrtError checks on the device.
__device__ __forceinline__ float approxSqrt(float x)
{
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/// How a tiled block turns a pair (i, j) and its coordinate differences into its bucket: Coord is the type the
/// coordinates are tiled in.
/// Approx (tiled_f32): float arithmetic with fused multiply-adds, an approximate square root (one MUFU instruction)
/// and a multiplication by 1/W. A pair within float rounding of a bucket edge may land in the neighbouring bucket.
struct Approx {
    using Coord = float;
    static constexpr bool kDefers = false;
    static __device__ __forceinline__ unsigned bucket(float dx, float dy, float dz, const BucketParams& p)
    {
        const float d = approxSqrt(fmaf(dx, dx, fmaf(dy, dy, dz * dz)));
        // ⌊q⌋ without a float-to-integer conversion (a quarter-rate instruction, like the square root): adding 2^23
        // rounding down leaves ⌊q⌋ in the mantissa for 0 ≤ q < 2^23 (bucket counts are far below).
        const unsigned b = __float_as_uint(__fadd_rd(d * p.inverseWidth, 8388608.0f)) - 0x4B000000u;
        return b < p.last ? b : p.last;
    }
};

/// ExactDouble (tiled_f64_exact where the float screen is unsafe): coordinates in double, d² rounded exactly as the
/// reference rounds it, then q ≈ √d² / W in float (relative error below 3·10⁻⁷); whenever q is farther than
/// 10⁻⁶·q from an integer the reference's ⌊fl(fl(√d²) / W)⌋ truncates alike, and only the few pairs closer to a
/// bucket edge take the rounded double square root and division.
struct ExactDouble {
    using Coord = double;
    static constexpr bool kDefers = false;
    static __device__ __forceinline__ unsigned bucket(double dx, double dy, double dz, const BucketParams& p)
    {
        const double d2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
        const float d = approxSqrt(__double2float_rn(d2));
        const float q = d * p.inverseWidth;
        const float f = __fadd_rd(q, 8388608.0f) - 8388608.0f; // ⌊q⌋ for 0 ≤ q < 2^23
        const float margin = 1e-6f * fmaxf(q, 1.0f);
        unsigned long long b;
        if (q - f > margin && f + 1.0f - q > margin)
            b = static_cast<unsigned long long>(f);
        else
            b = __double2ull_rz(__ddiv_rn(__dsqrt_rn(d2), p.width));
        return static_cast<unsigned>(b < p.last ? b : p.last);
    }
};

/// Returned by a bucket() that leaves the pair to its warp's deferred queue (TiledQueue).
constexpr unsigned kDeferred = 0xffffffffu;

/// ExactScreened (tiled_f64_exact): the pair placed from float coordinates, as fast as tiled_f32, whenever the float
/// estimate q̂ of q = d / W is provably in the reference's bucket — farther from every integer than its error bound
/// relMargin·q̂ + absMargin (screenMargins). The few pairs near a bucket edge are deferred: queued per warp
/// and placed by the whole warp together with the reference's arithmetic on the double coordinates (read from global
/// memory, where they sit in L2). At 1M points on an H200: 471 ms (80 buckets, ExactScreenedRare), 458 ms (3,984) and
/// 489 ms (7,968), against 741 and 793 ms for ExactDouble (H100, 80 and 3,984) and 239 ms for tiled_f32. The double
/// path handled inline instead cost the common path its registers: 651 ms (a call) and 923 ms (inlined) at 80
/// buckets (H200).
struct ExactScreened {
    using Coord = float;
    static constexpr bool kDefers = true;
    /// Where a deferred pair is queued: at once, inside the step's unrolled loop (false), or after the step, by a
    /// warp only when a vote finds one (ExactScreenedRare).
    static constexpr bool kQueueAfterStep = false;
    static __device__ __forceinline__ unsigned inDouble(int i, int j, const BucketParams& p)
    {
        const unsigned long long b = exactBucket(
            __dsub_rn(p.xd[i], p.xd[j]), __dsub_rn(p.yd[i], p.yd[j]), __dsub_rn(p.zd[i], p.zd[j]), p.width, p.last);
        return static_cast<unsigned>(b);
    }
    static __device__ __forceinline__ unsigned bucket(float dx, float dy, float dz, const BucketParams& p)
    {
        const float d = approxSqrt(fmaf(dx, dx, fmaf(dy, dy, dz * dz)));
        const float q = d * p.inverseWidth;
        // ⌊q⌋ in the mantissa, as tiled_f32 takes it (t − 2^23 is ⌊q⌋ exactly below 2^23), and q's offset from the
        // middle of its bucket, q − (⌊q⌋ + ½): ⌊q⌋ + ½ is exact below 2^23, and so is the difference from ⌊q⌋ ≥ 1 on
        // (Sterbenz); below 1 it is rounded down, away from zero, so it only grows. Closer to the middle than
        // ½ − margin (rounded down), q is farther than the margin from both edges, ⌊q − margin⌋ = ⌊q + margin⌋ = ⌊q⌋:
        // the reference's bucket, clamped to the last as the reference clamps. Past 2^23 (q > last, screenMargins
        // requires it) ⌊q⌋ only grows and the clamp decides, whatever the test says; a pair it defers is placed in
        // double, still exactly.
        const float t = __fadd_rd(q, 8388608.0f);
        const float offset = __fsub_rd(q, t - 8388607.5f);
        if (!(fabsf(offset) < __fmaf_rd(-p.relMargin, q, p.halfLessAbs)))
            return kDeferred;
        const unsigned b = __float_as_uint(t) - 0x4B000000u;
        return b < p.last ? b : p.last;
    }
};

/// ExactScreened for margins under which few steps defer anything: a step costs a vote instead of a check of the
/// queue. At 1M points on an H200: 80 buckets (0.004 % deferred) 476.6 → 473.4 ms, but 400 buckets (0.02 %) 477.9 →
/// 479.5 ms and 3,984 (0.2 %, 40 % of a warp's steps queue some) 459.6 → 491.8 ms; prepare picks by ScreenPolicy.
struct ExactScreenedRare : ExactScreened {
    static constexpr bool kQueueAfterStep = true;
};

/// When tiled_f64_exact queues after the step: when at most kRareDeferrals of the pairs are expected to be deferred
/// (expectedDeferrals) — between the 0.004 % where that shape won and the 0.02 % where it lost (ExactScreenedRare).
struct ScreenPolicy {
    static constexpr double kRareDeferrals = 1.0 / 8192;
    static constexpr int kSamplePairs = 4096; ///< pairs expectedDeferrals measures q on
};

/// Tile pair p of the triangle (a ≤ b), enumerated b-major: row b, column a of triangleAt.
__device__ __forceinline__ void tilePair(unsigned long long p, int& a, int& b)
{
    std::uint64_t row = 0, column = 0;
    triangleAt(p, row, column);
    b = static_cast<int>(row);
    a = static_cast<int>(column);
}

/// Where a tiled block counts: a private histogram per lane (no atomics, no conflicts: lane l's copy of bucket b is
/// in bank l), per warp, per block (shared atomics), or the global histogram when none fits.
enum class Privacy { Lane, Warp, Block, Global };

/// One pair counted in bucket b.
template <Privacy Where>
__device__ __forceinline__ void countOne(unsigned b, int lane, unsigned* mine, unsigned long long* histogram)
{
    if constexpr (Where == Privacy::Lane)
        ++mine[b * 32 + lane];
    else if constexpr (Where == Privacy::Global)
        atomicAdd(histogram + b, 1ULL);
    else
        atomicAdd(mine + b, 1u);
}

/// A warp's deferred pairs (ExactScreened) within the tile pair being counted, in shared memory: point ia of tile a
/// and point k of tile b packed in 32 bits (tiles hold 2,048 points). Four bytes an entry rather than the global
/// indices' eight keep a block with a histogram of 3,984 buckets within a quarter of a multiprocessor's shared memory:
/// four blocks resident instead of three.
struct TiledQueue {
    /// Entries per warp. A step of a tile pair defers at most 32 lanes × kPerThread pairs, and the warp drains the
    /// queue whenever it holds more than kCapacity − that after a step, so it never overflows.
    static constexpr unsigned kCapacity = 384;
    unsigned* count; ///< this warp's entry count
    unsigned* tally; ///< the pairs this warp has drained (below 2^31: a block counts fewer pairs)
    unsigned* entries; ///< this warp's kCapacity entries

    static_assert(TiledPolicy<float>::kTile <= 0x10000, "a point's place in its tile fits 16 bits");
    static __device__ __forceinline__ unsigned entry(int ia, int k)
    {
        return static_cast<unsigned>(ia) << 16 | static_cast<unsigned>(k);
    }

    /// Shared memory for the queues of `warps` warps.
    static constexpr std::size_t bytes(std::size_t warps) { return warps * (2 + kCapacity) * sizeof(unsigned); }
    /// This warp's queue in the space at `base` (bytes(warps) long, 4-byte aligned), its count and tally set to zero.
    static __device__ __forceinline__ TiledQueue at(unsigned* base, int warps)
    {
        const int warp = static_cast<int>(threadIdx.x / 32);
        if (threadIdx.x % 32 == 0)
            base[warp] = base[warps + warp] = 0;
        return {base + warp, base + warps + warp, base + 2 * warps + static_cast<std::size_t>(warp) * kCapacity};
    }

    /// Every lane of the warp together: places the queued pairs of tile pair (a0, b0), a lane each, in double, and
    /// empties the queue.
    template <Privacy Where>
    __device__ __forceinline__ void drain(
        const BucketParams& p, int a0, int b0, int lane, unsigned* mine, unsigned long long* histogram)
    {
        __syncwarp();
        const unsigned queued = *count;
        for (unsigned e = lane; e < queued; e += 32) {
            const unsigned pair = entries[e];
            const int i = a0 + static_cast<int>(pair >> 16);
            const int j = b0 + static_cast<int>(pair & 0xffffu);
            countOne<Where>(ExactScreened::inDouble(i, j, p), lane, mine, histogram);
        }
        __syncwarp();
        if (lane == 0) {
            *tally += queued;
            *count = 0;
        }
        __syncwarp();
    }
    /// Adds this warp's tally to the run's count of pairs placed in double (an atomic a warp, not one a drain: that
    /// cost 0.5 % at 80 buckets).
    __device__ __forceinline__ void report(int lane, unsigned long long* deferred) const
    {
        if (lane == 0 && *tally != 0)
            atomicAdd(deferred, static_cast<unsigned long long>(*tally));
    }
};

template <class Arith, Privacy Where, bool Checked, class T = typename Arith::Coord>
__device__ __forceinline__ void countTilePair(const T (&ax)[TiledPolicy<T>::kPerThread],
    const T (&ay)[TiledPolicy<T>::kPerThread], const T (&az)[TiledPolicy<T>::kPerThread], const T* bx, const T* by,
    const T* bz, int a0, int b0, int bCount, int aValid, bool diagonal, const BucketParams& params, unsigned* mine,
    unsigned long long* histogram, TiledQueue queue)
{
    const int lane = threadIdx.x % 32;
    for (int k = 0; k < bCount; ++k) {
        const T x = bx[k], y = by[k], z = bz[k]; // the same address for every lane: a broadcast
        [[maybe_unused]] unsigned deferred = 0; ///< kQueueAfterStep: bit r, pair (r, k) left to the queue
#pragma unroll
        for (int r = 0; r < TiledPolicy<T>::kPerThread; ++r) {
            const int ia = threadIdx.x + r * TiledPolicy<T>::kThreads; // index within tile a
            // Pairs i < j only: off the diagonal every (a, b) pair counts; on it, ia < k.
            if (Checked && !(ia < aValid && (!diagonal || ia < k)))
                continue;
            const unsigned b = Arith::bucket(ax[r] - x, ay[r] - y, az[r] - z, params);
            if constexpr (Arith::kDefers) {
                if (b == kDeferred) {
                    if constexpr (Arith::kQueueAfterStep) {
                        deferred |= 1u << r;
                    } else {
                        queue.entries[atomicAdd(queue.count, 1u)] = TiledQueue::entry(ia, k);
                    }
                    continue;
                }
            }
            countOne<Where>(b, lane, mine, histogram);
        }
        if constexpr (Arith::kDefers) {
            if constexpr (Arith::kQueueAfterStep) {
                if (!__any_sync(device::kFullWarpMask, deferred != 0))
                    continue; // the common step: nothing deferred in the whole warp
                for (unsigned left = deferred; left != 0; left &= left - 1) {
                    const int ia = static_cast<int>(threadIdx.x) + (__ffs(left) - 1) * TiledPolicy<T>::kThreads;
                    queue.entries[atomicAdd(queue.count, 1u)] = TiledQueue::entry(ia, k);
                }
            }
            __syncwarp();
            if (*queue.count > TiledQueue::kCapacity - 32 * TiledPolicy<T>::kPerThread) // the same for every lane
                queue.template drain<Where>(params, a0, b0, lane, mine, histogram);
        }
    }
}

template <class Arith, Privacy Where, class T = typename Arith::Coord>
__global__ void __launch_bounds__(TiledPolicy<T>::kThreads) tiledKernel(int n, const T* __restrict__ xs,
    const T* __restrict__ ys, const T* __restrict__ zs, unsigned long long firstPair, unsigned long long tilePairs,
    BucketParams params, int buckets, int copies, unsigned long long* histogram)
{
    extern __shared__ unsigned char raw[];
    T* bx = reinterpret_cast<T*>(raw);
    T* by = bx + TiledPolicy<T>::kTile;
    T* bz = by + TiledPolicy<T>::kTile;
    unsigned* local = reinterpret_cast<unsigned*>(bz + TiledPolicy<T>::kTile);
    // copies: histograms of `buckets` counts each; a lane copy interleaves 32 lanes per bucket.
    const int words = Where == Privacy::Lane ? copies * buckets * 32 : copies * buckets;
    for (int k = threadIdx.x; k < words; k += blockDim.x)
        local[k] = 0;
    unsigned* mine = nullptr;
    if constexpr (Where == Privacy::Lane || Where == Privacy::Warp)
        mine = local + (threadIdx.x / 32) * buckets * (Where == Privacy::Lane ? 32 : 1);
    else if constexpr (Where == Privacy::Block)
        mine = local;
    TiledQueue queue {};
    if constexpr (Arith::kDefers)
        queue = TiledQueue::at(local + words, TiledPolicy<T>::kThreads / 32);
    const unsigned long long first = firstPair + tilePairs * blockIdx.x / gridDim.x;
    const unsigned long long end = firstPair + tilePairs * (blockIdx.x + 1) / gridDim.x;
    for (unsigned long long p = first; p < end; ++p) {
        int ta = 0, tb = 0;
        tilePair(p, ta, tb);
        // This thread's points of tile a: a0 + threadIdx.x + k·kThreads.
        const int a0 = ta * TiledPolicy<T>::kTile;
        const int b0 = tb * TiledPolicy<T>::kTile;
        T ax[TiledPolicy<T>::kPerThread], ay[TiledPolicy<T>::kPerThread], az[TiledPolicy<T>::kPerThread];
#pragma unroll
        for (int k = 0; k < TiledPolicy<T>::kPerThread; ++k) {
            const int i = a0 + threadIdx.x + k * TiledPolicy<T>::kThreads;
            ax[k] = i < n ? xs[i] : T(0);
            ay[k] = i < n ? ys[i] : T(0);
            az[k] = i < n ? zs[i] : T(0);
        }
        __syncthreads(); // the previous tile b is no longer read
        for (int k = threadIdx.x; k < TiledPolicy<T>::kTile; k += blockDim.x) {
            const int j = b0 + k;
            bx[k] = j < n ? xs[j] : T(0);
            by[k] = j < n ? ys[j] : T(0);
            bz[k] = j < n ? zs[j] : T(0);
        }
        __syncthreads();
        const int bCount = min(TiledPolicy<T>::kTile, n - b0);
        const int aValid = min(TiledPolicy<T>::kTile, n - a0);
        const bool diagonal = ta == tb;
        // Whole tiles off the diagonal (almost all of them) count every pair without a test.
        if (!diagonal && bCount == TiledPolicy<T>::kTile && aValid == TiledPolicy<T>::kTile)
            countTilePair<Arith, Where, false>(
                ax, ay, az, bx, by, bz, a0, b0, bCount, aValid, diagonal, params, mine, histogram, queue);
        else
            countTilePair<Arith, Where, true>(
                ax, ay, az, bx, by, bz, a0, b0, bCount, aValid, diagonal, params, mine, histogram, queue);
        if constexpr (Arith::kDefers) // the queue's entries name points of this tile pair
            queue.template drain<Where>(params, a0, b0, static_cast<int>(threadIdx.x % 32), mine, histogram);
    }
    if constexpr (Arith::kDefers)
        queue.report(static_cast<int>(threadIdx.x % 32), params.deferred);
    if constexpr (Where != Privacy::Global) {
        __syncthreads();
        const int perBucket = Where == Privacy::Lane ? copies * 32 : copies; // counts of one bucket in shared memory
        for (int b = threadIdx.x; b < buckets; b += blockDim.x) {
            unsigned long long total = 0;
            for (int c = 0; c < perBucket; ++c)
                total += Where == Privacy::Lane ? local[(c / 32 * buckets + b) * 32 + c % 32] : local[c * buckets + b];
            if (total)
                atomicAdd(histogram + b, total);
        }
    }
}

/// The centre of the cloud's bounding box. ExactScreened keeps its float coordinates relative to it: a cloud in a box
/// away from the origin (a PDB file's, the generator's [0, box)) then has half the largest |coordinate|, and the
/// screen half its absolute margin (at 10-wide buckets in a 23,000 box, 0.9 % of the pairs fell within it).
std::array<double, 3> boxCentre(const data::PointCloud& cloud)
{
    std::array<double, 3> centre {};
    int a = 0;
    for (const auto* axis : {&cloud.x, &cloud.y, &cloud.z}) {
        if (!axis->empty()) {
            const auto [low, high] = std::minmax_element(axis->begin(), axis->end());
            centre[static_cast<std::size_t>(a)] = 0.5 * *low + 0.5 * *high;
        }
        ++a;
    }
    return centre;
}

/// The largest |coordinate − centre| of the cloud (NaN if any is NaN).
double largestCoordinate(const data::PointCloud& cloud, const std::array<double, 3>& centre)
{
    double largest = 0.0;
    int a = 0;
    for (const auto* axis : {&cloud.x, &cloud.y, &cloud.z}) {
        for (double v : *axis) {
            const double d = std::fabs(v - centre[static_cast<std::size_t>(a)]);
            largest = std::isnan(d) ? d : std::isnan(largest) ? largest : std::max(largest, d);
        }
        ++a;
    }
    return largest;
}

/// ExactScreened's error bound on q̂ = d̂ / W, or nothing where the float screen cannot be trusted. With u = 2^-24
/// (float's unit roundoff):
/// - Relative part, the float arithmetic on the float coordinates: each difference rounds once (u; 2u in its square),
///   d² = fma(dx, dx, fma(dy, dy, dz·dz)) rounds three times on non-negative terms (3u), so d̂² is within 5u of the
///   float coordinates' d² and its square root within 2.5u; the approximate square root adds kScreenSqrtError (2u),
///   1/W and the product u each: 6.5u in all, taken as 8u. The slack, 1.5u·q, covers the second-order terms and the
///   reference's own three double roundings (below 10⁻¹⁵·q).
/// - Absolute part, rounding the coordinates (taken relative to boxCentre in double first) to float: each moves by at
///   most u·S (S the largest |coordinate − centre|), each difference by 2u·S, the distance by 2√3·u·S, q by
///   3.46u·S/W, taken as 4u·S/W; the slack covers the centring's double rounding and squares below float's smallest
///   normal, which the square root flushes to zero (d moves by at most 1.9·10⁻¹⁹, under 0.54u·S while S ≥ 10⁻¹⁰).
/// The test itself rounds toward deferring (ExactScreened::bucket). Outside 10⁻¹⁰ ≤ S ≤ 10¹⁵ squares may underflow or
/// overflow float, beyond S/W = 10⁵ the absolute part alone is 0.024 of a bucket (most pairs would take the double
/// path), and beyond 2^23 buckets the screen's ⌊·⌋ fails: ExactDouble serves there. Until 2026-11 the parts were
/// 1.5·10⁻⁶ (25u) and 6·10⁻⁷·S/W (10u): at 3,984 buckets that deferred 0.6 % of the pairs, now 0.2 %.
struct Screen {
    float relMargin = 0.0f;
    float absMargin = 0.0f;
    std::array<double, 3> centre {}; ///< boxCentre: the float coordinates are taken relative to it
    double expectedDeferrals = 0.0; ///< the share of the pairs expected in double (expectedDeferrals)
};

/// The bound above in units of u, and the range of S where it holds.
struct ScreenBound {
    static constexpr double kUnit = 0x1p-24;
    static_assert(4.5 * kUnit + kScreenSqrtError + 1.5 * kUnit <= 8 * kUnit, "the relative part's budget");
    static constexpr double kRelative = 8 * kUnit;
    static constexpr double kAbsolute = 4 * kUnit; ///< times S/W
    static constexpr double kSmallestS = 1e-10;
    static constexpr double kLargestS = 1e15;
    static constexpr double kLargestSOverW = 1e5;
};

/// The share of the pairs the screen is expected to defer: those with q within relMargin·q + absMargin of a bucket
/// edge, about 2·(relMargin·q + absMargin) of the pairs at q, averaged over kSamplePairs pseudo-random pairs (q of a
/// cloud in a box is far from its largest value, buckets, on most pairs: a third of it on uniform points).
double expectedDeferrals(const data::PointCloud& cloud, const Buckets& buckets, const Screen& screen)
{
    const std::uint64_t n = cloud.size();
    if (n < 2)
        return 0.0;
    std::mt19937_64 random(1); // a fixed stream: the same pairs every run
    double sum = 0.0;
    int counted = 0;
    for (int s = 0; s < ScreenPolicy::kSamplePairs; ++s) {
        const std::uint64_t i = random() % n, j = random() % n;
        if (i == j)
            continue;
        const double dx = cloud.x[i] - cloud.x[j], dy = cloud.y[i] - cloud.y[j], dz = cloud.z[i] - cloud.z[j];
        sum += std::min(std::sqrt(dx * dx + dy * dy + dz * dz) / buckets.width, static_cast<double>(buckets.count));
        ++counted;
    }
    const double meanQ = counted ? sum / counted : 0.0;
    return std::min(1.0, 2.0 * (static_cast<double>(screen.relMargin) * meanQ + static_cast<double>(screen.absMargin)));
}

std::optional<Screen> screenMargins(const data::PointCloud& cloud, const Buckets& buckets)
{
    const std::array<double, 3> centre = boxCentre(cloud);
    const double largest = largestCoordinate(cloud, centre);
    const double width = buckets.width;
    if (!(largest >= ScreenBound::kSmallestS && largest <= ScreenBound::kLargestS && width > 0.0
            && largest / width <= ScreenBound::kLargestSOverW && buckets.count <= (1u << 23)))
        return std::nullopt;
    Screen screen {static_cast<float>(ScreenBound::kRelative),
        static_cast<float>(ScreenBound::kAbsolute * largest / width), centre};
    screen.expectedDeferrals = expectedDeferrals(cloud, buckets, screen);
    return screen;
}

template <class Arith> class TiledRun final : public SdhDeviceRun {
public:
    using T = typename Arith::Coord;
    static constexpr bool kScreened = Arith::kDefers;

    /// `screen`: ExactScreened's screenMargins, found valid for this cloud by prepare; unused by the others (their
    /// centre stays at the origin). `share`: the tile pairs this run counts, a multi-device run's part; all of them by
    /// default.
    TiledRun(const data::PointCloud& cloud, Buckets buckets, Screen screen = {}, TileShare share = {})
        : SdhDeviceRun(cloud, buckets, 3 * cloud.size() * (sizeof(T) + (kScreened ? sizeof(double) : 0)))
        , m_x(cloud.size())
        , m_y(cloud.size())
        , m_z(cloud.size())
    {
        // ExactScreened's coordinates relative to the box's centre, as screenMargins measured them (its deferred
        // pairs read the originals); the others' centre is the origin, and v − 0 is v.
        std::vector<T> x(cloud.size()), y(cloud.size()), z(cloud.size());
        for (std::size_t i = 0; i < cloud.size(); ++i) {
            x[i] = static_cast<T>(cloud.x[i] - screen.centre[0]);
            y[i] = static_cast<T>(cloud.y[i] - screen.centre[1]);
            z[i] = static_cast<T>(cloud.z[i] - screen.centre[2]);
        }
        if constexpr (kScreened) {
            m_params.relMargin = screen.relMargin;
            m_params.absMargin = screen.absMargin;
            m_params.halfLessAbs = std::nextafter(static_cast<float>(0.5 - screen.absMargin), 0.0f);
            m_xd = device::DeviceBuffer<double>(cloud.size());
            m_yd = device::DeviceBuffer<double>(cloud.size());
            m_zd = device::DeviceBuffer<double>(cloud.size());
            m_deferred = device::DeviceBuffer<unsigned long long>(1);
            m_expectedDeferrals = screen.expectedDeferrals;
        }
        timedUpload([&] {
            m_x.uploadAsync(x, stream());
            m_y.uploadAsync(y, stream());
            m_z.uploadAsync(z, stream());
            if constexpr (kScreened) {
                m_xd.uploadAsync(cloud.x, stream());
                m_yd.uploadAsync(cloud.y, stream());
                m_zd.uploadAsync(cloud.z, stream());
            }
        });
        m_params.inverseWidth = static_cast<float>(1.0 / buckets.width);
        m_params.width = buckets.width;
        m_params.last = static_cast<unsigned>(buckets.count - 1);
        m_params.xd = m_xd.data();
        m_params.yd = m_yd.data();
        m_params.zd = m_zd.data();
        m_params.deferred = m_deferred.data();
        // Tile b, and the deferred pairs' queues (ExactScreened).
        const std::size_t stage = 3 * TiledPolicy<T>::kTile * sizeof(T)
            + (kScreened ? TiledQueue::bytes(TiledPolicy<T>::kThreads / 32) : 0);
        const std::size_t copy = buckets.count * sizeof(unsigned);
        const std::size_t warps = TiledPolicy<T>::kThreads / 32;
        for (auto kernel : {tiledKernel<Arith, Privacy::Lane>, tiledKernel<Arith, Privacy::Warp>,
                 tiledKernel<Arith, Privacy::Block>, tiledKernel<Arith, Privacy::Global>})
            KS_CUDA_CHECK(cudaFuncSetAttribute(
                kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(TiledPolicy<T>::kSharedBudget)));
        // The most private histograms that keep the most blocks resident: lane copies only while a block stays
        // small (kLaneBudget), and a copy per warp only where it costs no blocks — 1,328 buckets in warp copies left
        // two blocks a multiprocessor where one per block leaves four (H200, 1M points: tiled_f64_exact 609.6 →
        // 447.2 ms, tiled_f32 256.3 → 234.0 ms).
        // Global atomics only when no shared histogram fits.
        const struct {
            Privacy where;
            int copies;
            std::size_t bytes;
            std::size_t budget;
        } choices[] = {{Privacy::Lane, static_cast<int>(warps), stage + warps * 32 * copy, TiledPolicy<T>::kLaneBudget},
            {Privacy::Warp, static_cast<int>(warps), stage + warps * copy, TiledPolicy<T>::kSharedBudget},
            {Privacy::Block, 1, stage + copy, TiledPolicy<T>::kSharedBudget}};
        m_where = Privacy::Global;
        m_copies = 0;
        m_sharedBytes = stage;
        int best = 0;
        for (const auto& c : choices) {
            if (c.bytes > c.budget)
                continue;
            int resident = 0;
            KS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &resident, kernelFor(c.where), TiledPolicy<T>::kThreads, c.bytes));
            if (resident > best) {
                best = resident;
                m_where = c.where;
                m_copies = c.copies;
                m_sharedBytes = c.bytes;
            }
        }
        const auto tiles
            = static_cast<unsigned long long>((cloud.size() + TiledPolicy<T>::kTile - 1) / TiledPolicy<T>::kTile);
        const unsigned long long allPairs = tiles * (tiles + 1) / 2;
        // Equal counts of tile pairs are equal work: every tile pair but the few on the diagonal and the last tile
        // holds kTile² point pairs.
        m_firstPair = allPairs * static_cast<unsigned>(share.part) / static_cast<unsigned>(share.parts);
        m_tilePairs
            = allPairs * static_cast<unsigned>(share.part + 1) / static_cast<unsigned>(share.parts) - m_firstPair;
        const int sms = device::multiprocessorCount();
        // Enough blocks to fill the GPU, and enough that no block counts 2^31 pairs into its 32-bit copies.
        const unsigned long long pairsPerTilePair
            = static_cast<unsigned long long>(TiledPolicy<T>::kTile) * TiledPolicy<T>::kTile;
        const unsigned long long minimum = (m_tilePairs * pairsPerTilePair + (1ULL << 31) - 1) >> 31;
        // Whole waves: every block does the same work, so a grid that is not a multiple of the blocks resident at
        // once leaves the last wave part-empty (528 blocks on 396 places ran a third of the GPU for a third of the
        // time).
        int resident = 0;
        KS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &resident, kernelFor(m_where), TiledPolicy<T>::kThreads, m_sharedBytes));
        m_wave = static_cast<unsigned long long>(sms) * static_cast<unsigned long long>(std::max(resident, 1));
        const unsigned long long waves = (std::max(minimum, m_wave) + m_wave - 1) / m_wave;
        m_blocks = static_cast<unsigned>(std::min<unsigned long long>(m_tilePairs, waves * m_wave));
    }
    std::string note() const override
    {
        const char* where = m_where == Privacy::Lane ? "a shared histogram per lane"
            : m_where == Privacy::Warp               ? "a shared histogram per warp"
            : m_where == Privacy::Block              ? "one shared histogram per block"
                                                     : "global atomics (too many buckets for shared memory)";
        char text[320];
        std::snprintf(text, sizeof text, "%s; %llu tile pairs of %d points over %u blocks (%llu at once)", where,
            m_tilePairs, TiledPolicy<T>::kTile, m_blocks, m_wave);
        std::string note = text;
        if constexpr (kScreened) {
            std::snprintf(text, sizeof text,
                "; placed in float where provably in the reference's bucket (margin %.2g·q + %.2g), the rest in "
                "double (queued %s)",
                m_params.relMargin, m_params.absMargin,
                Arith::kQueueAfterStep ? "after a warp's step, when a vote finds any" : "as they come");
            note += text;
        } else if constexpr (std::is_same_v<Arith, ExactDouble>) {
            note += "; all in double (the coordinates' range is unsafe for the float screen)";
        }
        return note;
    }

private:
    static auto kernelFor(Privacy where)
    {
        switch (where) {
        case Privacy::Lane:
            return tiledKernel<Arith, Privacy::Lane>;
        case Privacy::Warp:
            return tiledKernel<Arith, Privacy::Warp>;
        case Privacy::Block:
            return tiledKernel<Arith, Privacy::Block>;
        case Privacy::Global:
            break;
        }
        return tiledKernel<Arith, Privacy::Global>;
    }
    /// ExactScreened: how many pairs the last repetition placed in double, against what prepare expected.
    Facts facts() override
    {
        if constexpr (kScreened) {
            std::vector<unsigned long long> deferred(1);
            m_deferred.downloadAsync(deferred, stream());
            KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
            const double pairs = static_cast<double>(pairCount(static_cast<std::uint64_t>(n())));
            return {{"pairs placed in double", static_cast<double>(deferred[0])},
                {"share placed in double", pairs > 0 ? static_cast<double>(deferred[0]) / pairs : 0.0},
                {"share expected in double", m_expectedDeferrals}};
        }
        return {};
    }

    void launch() override
    {
        if constexpr (kScreened)
            m_deferred.fillBytesAsync(0, stream());
        if (m_blocks == 0)
            return;
        switch (m_where) {
        case Privacy::Lane:
            launchAs<Privacy::Lane>();
            break;
        case Privacy::Warp:
            launchAs<Privacy::Warp>();
            break;
        case Privacy::Block:
            launchAs<Privacy::Block>();
            break;
        case Privacy::Global:
            launchAs<Privacy::Global>();
            break;
        }
    }
    template <Privacy Where> void launchAs()
    {
        tiledKernel<Arith, Where><<<m_blocks, TiledPolicy<T>::kThreads, m_sharedBytes, stream()>>>(n(), m_x.data(),
            m_y.data(), m_z.data(), m_firstPair, m_tilePairs, m_params, bucketCount(), m_copies, histogram());
        KS_CUDA_CHECK_LAUNCH("tiledKernel");
    }

    device::DeviceBuffer<T> m_x, m_y, m_z;
    device::DeviceBuffer<double> m_xd, m_yd, m_zd; ///< ExactScreened: the coordinates in double
    device::DeviceBuffer<unsigned long long> m_deferred; ///< ExactScreened: the pairs placed in double
    double m_expectedDeferrals = 0.0; ///< ExactScreened: Screen::expectedDeferrals
    BucketParams m_params;
    Privacy m_where = Privacy::Global;
    int m_copies = 0;
    std::size_t m_sharedBytes = 0;
    unsigned long long m_firstPair = 0;
    unsigned long long m_tilePairs = 0;
    unsigned long long m_wave = 0; ///< blocks resident on the GPU at once
    unsigned m_blocks = 0;
};

// ---------------------------------------------------------------------------------------------------------------
// tiled_f32_multi: tiled_f32 over every device of the run. The triangle's tile pairs are dealt out in equal ranges,
// one per device; each device counts its range into its own 64-bit histogram, and one ncclAllReduce sums them. A
// pair is counted by the same arithmetic on whichever device holds it, so the counts equal tiled_f32's.

class TiledMultiRun final : public device::MultiDeviceRun {
public:
    TiledMultiRun(const data::PointCloud& cloud, Buckets buckets, const RunContext& context)
        : MultiDeviceRun(context, "tiled_f32")
        , m_cloud(cloud)
        , m_buckets(buckets)
    {
        makeParts([&](int rank) {
            return std::make_unique<TiledRun<Approx>>(cloud, buckets, Screen {}, TileShare {rank, ranks()});
        });
    }
    Result fetch() override
    {
        Result result;
        team().run([&](int) { result = part(0).fetch(); }, 1);
        return result;
    }

private:
    void combine(int rank) override
    {
        unsigned long long* counts = partAs<TiledRun<Approx>>(rank).histogramData();
        KS_NCCL_CHECK(device::nccl().allReduce(counts, counts, m_buckets.count, device::kNcclUint64, device::kNcclSum,
            comm(rank), part(rank).workStream()));
    }
    std::unique_ptr<PreparedRun> solo() override { return std::make_unique<TiledRun<Approx>>(m_cloud, m_buckets); }

    const data::PointCloud& m_cloud;
    Buckets m_buckets;
};

} // namespace

namespace {
struct SqrtErrorPolicy {
    static constexpr int kThreads = 256;
    static constexpr unsigned kFirst = 0x00800000u; ///< the smallest positive normal float
    static constexpr unsigned kEnd = 0x7f800000u; ///< infinity, the first pattern past the largest finite float
};

/// The largest relative error of approxSqrt over the float patterns [first, end), grid-stride; the worst of each
/// thread goes to `worst` as a double's bits (non-negative doubles order as their bit patterns do).
__global__ void __launch_bounds__(SqrtErrorPolicy::kThreads) sqrtErrorKernel(unsigned long long* worst)
{
    double mine = 0.0;
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned bits = SqrtErrorPolicy::kFirst + blockIdx.x * blockDim.x + threadIdx.x; bits < SqrtErrorPolicy::kEnd;
         bits += stride) {
        const float x = __uint_as_float(bits);
        const double exact = __dsqrt_rn(static_cast<double>(x));
        mine = fmax(mine, fabs(static_cast<double>(approxSqrt(x)) - exact) / exact);
    }
    atomicMax(worst, static_cast<unsigned long long>(__double_as_longlong(mine)));
}
} // namespace

double measureScreenSqrtError()
{
    device::DeviceBuffer<unsigned long long> worst(1);
    KS_CUDA_CHECK(cudaMemset(worst.data(), 0, sizeof(unsigned long long)));
    sqrtErrorKernel<<<device::gridFor(SqrtErrorPolicy::kEnd - SqrtErrorPolicy::kFirst, SqrtErrorPolicy::kThreads, 8),
        SqrtErrorPolicy::kThreads>>>(worst.data());
    KS_CUDA_CHECK_LAUNCH("sqrtErrorKernel");
    unsigned long long bits = 0;
    KS_CUDA_CHECK(cudaMemcpy(&bits, worst.data(), sizeof bits, cudaMemcpyDeviceToHost));
    return std::bit_cast<double>(bits);
}

} // namespace ks::sdh::gpu

namespace ks::sdh {

namespace {
/// The histogram's shape for the dataset's cloud and the `bucket_width` parameter.
Buckets bucketsOf(const data::Dataset& d, const ParamSet& p)
{
    return bucketsFor(d.as<data::PointCloud>(), bucketWidth(p));
}
} // namespace

std::unique_ptr<PreparedRun> prepareBaseline(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::BaselineRun>(d, bucketsOf(d, p));
}

std::unique_ptr<PreparedRun> prepareSharedLr(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::SharedLrRun>(d, bucketsOf(d, p), 0, false);
}

std::unique_ptr<PreparedRun> prepareSharedLrLocal(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::SharedLrRun>(d, bucketsOf(d, p), 1, false);
}

std::unique_ptr<PreparedRun> prepareSharedLrCopies(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    const Buckets buckets = bucketsOf(d, p);
    return makeRun<gpu::SharedLrRun>(d, buckets, gpu::seedCopies(static_cast<int>(buckets.count)), false);
}

std::unique_ptr<PreparedRun> prepareSharedLrSoa(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    const Buckets buckets = bucketsOf(d, p);
    return makeRun<gpu::SharedLrRun>(d, buckets, gpu::seedCopies(static_cast<int>(buckets.count)), true);
}

std::unique_ptr<PreparedRun> prepareTiledF32(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::TiledRun<gpu::Approx>>(d, bucketsOf(d, p));
}

std::unique_ptr<PreparedRun> prepareTiledF32Multi(const data::Dataset& d, const ParamSet& p, const RunContext& c)
{
    return std::make_unique<gpu::TiledMultiRun>(d.as<data::PointCloud>(), bucketsOf(d, p), c);
}

std::unique_ptr<PreparedRun> prepareTiledF64Exact(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    const Buckets buckets = bucketsOf(d, p);
    if (const auto screen = gpu::screenMargins(d.as<data::PointCloud>(), buckets)) {
        if (screen->expectedDeferrals <= gpu::ScreenPolicy::kRareDeferrals)
            return makeRun<gpu::TiledRun<gpu::ExactScreenedRare>>(d, buckets, *screen);
        return makeRun<gpu::TiledRun<gpu::ExactScreened>>(d, buckets, *screen);
    }
    return makeRun<gpu::TiledRun<gpu::ExactDouble>>(d, buckets);
}

} // namespace ks::sdh
