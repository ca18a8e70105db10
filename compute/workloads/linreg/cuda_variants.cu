// Hand-written CUDA variants of linreg: the seed's kernels (global atomics, shared-memory tree with the final
// sum on the CPU), its "future" warp shuffles, a fused single-pass grid reduction and a numerically stable
// shifted-sums variant merged with Chan's formula.
#include "compute/device/multi_device.cuh"
#include "compute/workloads/linreg/linreg_device.cuh"

namespace ks::linreg::gpu {

// ---------------------------------------------------------------------------------------------------------------
// Shared by several variants.

namespace {
__global__ void fitFromSumsKernel(const Sums4* sums, double n, double* out)
{
    const Fit fit = fitFromSums(n, sums->x, sums->y, sums->xx, sums->xy);
    out[0] = fit.slope;
    out[1] = fit.intercept;
}
} // namespace

void launchFitFromSums(const Sums4* sums, std::size_t n, double* out, cudaStream_t stream)
{
    fitFromSumsKernel<<<1, 1, 0, stream>>>(sums, static_cast<double>(n), out);
    KS_CUDA_CHECK_LAUNCH("fitFromSumsKernel");
}

namespace {

// -----------------------------------------------------------------------------------------------------------
// atomic_global: the seed's "previous approach" — every element added atomically into four global counters.

struct AtomicPolicy {
    static constexpr int kThreads = 256;
    static constexpr int kBlocksPerSm = 8;
};

template <class T>
__device__ void atomicAccumulate(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, Sums4* sums)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double xi = x[i];
        const double yi = y[i];
        atomicAdd(&sums->x, xi);
        atomicAdd(&sums->y, yi);
        atomicAdd(&sums->xx, xi * xi);
        atomicAdd(&sums->xy, xi * yi);
    }
}

template <class T>
__global__ void __launch_bounds__(AtomicPolicy::kThreads)
    atomicGlobalKernel(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, Sums4* sums)
{
    atomicAccumulate(x, y, n, sums);
}

template <class T> class AtomicGlobalRun final : public DeviceSeriesRun<T> {
public:
    explicit AtomicGlobalRun(const data::Series2D& series)
        : DeviceSeriesRun<T>(series, sizeof(Sums4))
        , m_sums(1)
        , m_blocks(device::gridFor(this->m_n, AtomicPolicy::kThreads, AtomicPolicy::kBlocksPerSm))
    {
    }
    void run() override
    {
        m_sums.fillBytesAsync(0, this->stream());
        atomicGlobalKernel<T><<<m_blocks, AtomicPolicy::kThreads, 0, this->stream()>>>(
            this->m_x.data(), this->m_y.data(), this->m_n, m_sums.data());
        KS_CUDA_CHECK_LAUNCH("atomicGlobalKernel");
        launchFitFromSums(m_sums.data(), this->m_n, this->m_out.data(), this->stream());
    }

private:
    device::DeviceBuffer<Sums4> m_sums;
    unsigned m_blocks;
};

// -----------------------------------------------------------------------------------------------------------
// shared_tree: the seed's implementation — grid-stride private sums, a shared-memory tree per block, block
// partials copied back and summed on the CPU.

struct SharedTreePolicy {
    static constexpr int kThreads = 256; // a power of two: the tree halves it
    static constexpr int kBlocksPerSm = 4;
};

template <class T> __device__ Sums4 gridStrideSums(const T* __restrict__ x, const T* __restrict__ y, std::size_t n)
{
    Sums4 s {0, 0, 0, 0};
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        accumulate(s, x[i], y[i]);
    return s;
}

/// The seed's tree: four shared arrays halved until element 0 holds the block's sums.
__device__ Sums4 sharedTreeReduce(Sums4 s)
{
    __shared__ double sx[SharedTreePolicy::kThreads];
    __shared__ double sy[SharedTreePolicy::kThreads];
    __shared__ double sxx[SharedTreePolicy::kThreads];
    __shared__ double sxy[SharedTreePolicy::kThreads];
    const unsigned tid = threadIdx.x;
    sx[tid] = s.x;
    sy[tid] = s.y;
    sxx[tid] = s.xx;
    sxy[tid] = s.xy;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (tid < half) {
            sx[tid] += sx[tid + half];
            sy[tid] += sy[tid + half];
            sxx[tid] += sxx[tid + half];
            sxy[tid] += sxy[tid + half];
        }
        __syncthreads();
    }
    return {sx[0], sy[0], sxx[0], sxy[0]};
}

template <class T>
__global__ void __launch_bounds__(SharedTreePolicy::kThreads)
    sharedTreeKernel(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, Sums4* partials)
{
    const Sums4 block = sharedTreeReduce(gridStrideSums(x, y, n));
    if (threadIdx.x == 0)
        partials[blockIdx.x] = block;
}

template <class T> class SharedTreeRun final : public DeviceSeriesRun<T> {
public:
    explicit SharedTreeRun(const data::Series2D& series)
        : DeviceSeriesRun<T>(series, 0)
        , m_blocks(device::gridFor(this->m_n, SharedTreePolicy::kThreads, SharedTreePolicy::kBlocksPerSm))
        , m_partials(static_cast<std::size_t>(m_blocks))
        , m_partialsHost(static_cast<std::size_t>(m_blocks))
    {
        m_partials.fillBytesAsync(0xff, this->stream());
    }
    /// Timed as a whole: the stop event is recorded after the host has summed the partials.
    void run() override
    {
        sharedTreeKernel<T><<<m_blocks, SharedTreePolicy::kThreads, 0, this->stream()>>>(
            this->m_x.data(), this->m_y.data(), this->m_n, m_partials.data());
        KS_CUDA_CHECK_LAUNCH("sharedTreeKernel");
        KS_CUDA_CHECK(cudaMemcpyAsync(
            m_partialsHost.data(), m_partials.data(), m_partials.bytes(), cudaMemcpyDeviceToHost, this->stream()));
        KS_CUDA_CHECK(cudaStreamSynchronize(this->stream()));
        Sums4 total {0, 0, 0, 0};
        for (unsigned b = 0; b < m_blocks; ++b)
            total = total + m_partialsHost[static_cast<std::size_t>(b)];
        m_fit = fitFromSums(static_cast<double>(this->m_n), total.x, total.y, total.xx, total.xy);
    }
    Result fetch() override { return makeResult(m_fit); }

private:
    unsigned m_blocks;
    device::DeviceBuffer<Sums4> m_partials;
    device::PinnedBuffer<Sums4> m_partialsHost;
    Fit m_fit {std::nan(""), std::nan("")};
};

// -----------------------------------------------------------------------------------------------------------
// warp_shuffle: the seed's "future" — 16-byte loads, warp shuffles instead of the shared tree, block partials
// reduced on the device by a second, single-block kernel.

struct WarpShufflePolicy {
    static constexpr int kThreads = 256;
    static constexpr int kBlocksPerSm = 4;
    static constexpr int kUnroll = 4;
    static constexpr int kFinalThreads = 1024;
};

template <class T> __device__ Sums4 vectorisedSums(const T* __restrict__ x, const T* __restrict__ y, std::size_t n)
{
    Sums4 s {0, 0, 0, 0};
    forEachPoint<T, WarpShufflePolicy::kUnroll>(x, y, n, [&](double xi, double yi) { accumulate(s, xi, yi); });
    return s;
}

template <class T>
__global__ void __launch_bounds__(WarpShufflePolicy::kThreads)
    warpShuffleKernel(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, Sums4* partials)
{
    __shared__ Sums4 scratch[32];
    const Sums4 block = blockReduce(vectorisedSums(x, y, n), scratch);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = block;
}

/// Sums the block partials; writes the fit to out, or, when `total` is not null, the sums to *total instead.
__global__ void __launch_bounds__(WarpShufflePolicy::kFinalThreads)
    finishPartialsKernel(const Sums4* partials, int count, double n, double* out, Sums4* total)
{
    __shared__ Sums4 scratch[32];
    Sums4 s {0, 0, 0, 0};
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        s = s + partials[i];
    s = blockReduce(s, scratch);
    if (threadIdx.x == 0) {
        if (total) {
            *total = s;
            return;
        }
        const Fit fit = fitFromSums(n, s.x, s.y, s.xx, s.xy);
        out[0] = fit.slope;
        out[1] = fit.intercept;
    }
}

/// The devices' sums added in rank order (the same order every repetition), then the fit.
__global__ void fitFromGatheredKernel(const Sums4* gathered, int ranks, double n, double* out)
{
    Sums4 s = gathered[0];
    for (int r = 1; r < ranks; ++r)
        s = s + gathered[r];
    const Fit fit = fitFromSums(n, s.x, s.y, s.xx, s.xy);
    out[0] = fit.slope;
    out[1] = fit.intercept;
}

template <class T> class WarpShuffleRun final : public DeviceSeriesRun<T> {
public:
    /// `total`: a multi-device run's part leaves its slice's sums there instead of fitting.
    explicit WarpShuffleRun(const data::Series2D& series, SeriesSlice slice = {}, Sums4* total = nullptr)
        : DeviceSeriesRun<T>(series, 0, slice)
        , m_total(total)
        , m_blocks(device::gridFor(this->m_n, WarpShufflePolicy::kThreads * Vec<T>::kWidth * WarpShufflePolicy::kUnroll,
              WarpShufflePolicy::kBlocksPerSm))
        , m_partials(static_cast<std::size_t>(m_blocks))
    {
        m_partials.fillBytesAsync(0xff, this->stream());
    }
    void run() override
    {
        warpShuffleKernel<T><<<m_blocks, WarpShufflePolicy::kThreads, 0, this->stream()>>>(
            this->m_x.data(), this->m_y.data(), this->m_n, m_partials.data());
        KS_CUDA_CHECK_LAUNCH("warpShuffleKernel");
        finishPartialsKernel<<<1, WarpShufflePolicy::kFinalThreads, 0, this->stream()>>>(
            m_partials.data(), static_cast<int>(m_blocks), static_cast<double>(this->m_n), this->m_out.data(), m_total);
        KS_CUDA_CHECK_LAUNCH("finishPartialsKernel");
    }

private:
    Sums4* m_total;
    unsigned m_blocks;
    device::DeviceBuffer<Sums4> m_partials;
};

// -----------------------------------------------------------------------------------------------------------
// warp_shuffle_multi: warp_shuffle over every device of the run. The series is split by count, one slice per device;
// each device reduces its slice to four sums as warp_shuffle does, one ncclAllGather hands every device all of them,
// and each adds them in rank order and fits: the merge is in the same order every time (on one device the result is
// warp_shuffle's, bit for bit).

template <class T> class WarpShuffleMultiRun final : public device::MultiDeviceRun {
public:
    WarpShuffleMultiRun(const data::Series2D& series, const RunContext& context)
        : MultiDeviceRun(context, "warp_shuffle")
        , m_series(series)
        , m_n(series.x.size())
        , m_ranks(static_cast<std::size_t>(ranks()))
    {
        const std::vector<std::uint64_t> bounds
            = equalWorkBounds(m_n, ranks(), 64, [](std::uint64_t points) { return static_cast<double>(points); });
        makeParts([&](int rank) {
            RankState& state = m_ranks[static_cast<std::size_t>(rank)];
            state.total = device::DeviceBuffer<Sums4>(1);
            state.gathered = device::DeviceBuffer<Sums4>(static_cast<std::size_t>(ranks()));
            state.fit = device::DeviceBuffer<double>(2);
            const std::size_t begin = bounds[static_cast<std::size_t>(rank)];
            auto run = std::make_unique<WarpShuffleRun<T>>(
                series, SeriesSlice {begin, bounds[static_cast<std::size_t>(rank) + 1] - begin}, state.total.data());
            state.fit.fillBytesAsync(0xff, run->workStream()); // NaN until a repetition fits
            return run;
        });
    }
    ~WarpShuffleMultiRun() override
    {
        try {
            team().run([&](int rank) { m_ranks[static_cast<std::size_t>(rank)] = {}; });
        } catch (...) {
        }
    }
    Result fetch() override
    {
        double fit[2] = {0.0, 0.0};
        team().run(
            [&](int) {
                KS_CUDA_CHECK(cudaStreamSynchronize(part(0).workStream()));
                KS_CUDA_CHECK(cudaMemcpy(fit, m_ranks[0].fit.data(), sizeof fit, cudaMemcpyDeviceToHost));
            },
            1);
        return makeResult(Fit {fit[0], fit[1]});
    }

private:
    struct RankState {
        device::DeviceBuffer<Sums4> total; ///< this device's slice
        device::DeviceBuffer<Sums4> gathered; ///< every device's, in rank order
        device::DeviceBuffer<double> fit;
    };
    void combine(int rank) override
    {
        RankState& state = m_ranks[static_cast<std::size_t>(rank)];
        const cudaStream_t stream = part(rank).workStream();
        KS_NCCL_CHECK(device::nccl().allGather(
            state.total.data(), state.gathered.data(), 4, device::kNcclFloat64, comm(rank), stream));
        fitFromGatheredKernel<<<1, 1, 0, stream>>>(
            state.gathered.data(), ranks(), static_cast<double>(m_n), state.fit.data());
        KS_CUDA_CHECK_LAUNCH("fitFromGatheredKernel");
    }
    std::unique_ptr<PreparedRun> solo() override { return std::make_unique<WarpShuffleRun<T>>(m_series); }

    const data::Series2D& m_series;
    std::size_t m_n;
    std::vector<RankState> m_ranks;
};

// -----------------------------------------------------------------------------------------------------------
// fused_grid: one launch. Each block reduces its share with warp shuffles and writes a partial; the last
// block to finish (a fenced atomic ticket, as in the CUDA threadFenceReduction sample) sums the partials in
// index order — deterministic — fits, and re-arms the ticket for the next launch.

struct FusedGridPolicy {
    static constexpr int kThreads = 512;
    static constexpr int kBlocksPerSm = 2;
    static constexpr int kUnroll = 4;
};

/// True in every thread of the block that finished last; its partial is already stored.
__device__ bool arriveLast(unsigned int* ticket)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __threadfence(); // publish this block's partial before taking a ticket
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    return last;
}

template <class T>
__global__ void __launch_bounds__(FusedGridPolicy::kThreads) fusedGridKernel(
    const T* __restrict__ x, const T* __restrict__ y, std::size_t n, Sums4* partials, unsigned int* ticket, double* out)
{
    __shared__ Sums4 scratch[32];
    Sums4 s {0, 0, 0, 0};
    forEachPoint<T, FusedGridPolicy::kUnroll>(x, y, n, [&](double xi, double yi) { accumulate(s, xi, yi); });
    s = blockReduce(s, scratch);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = s;
    if (!arriveLast(ticket))
        return;
    Sums4 total {0, 0, 0, 0};
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x)
        total = total + loadCoherent(&partials[i]);
    total = blockReduce(total, scratch);
    if (threadIdx.x == 0) {
        const Fit fit = fitFromSums(static_cast<double>(n), total.x, total.y, total.xx, total.xy);
        out[0] = fit.slope;
        out[1] = fit.intercept;
        *ticket = 0;
    }
}

template <class T> class FusedGridRun final : public DeviceSeriesRun<T> {
public:
    explicit FusedGridRun(const data::Series2D& series)
        : DeviceSeriesRun<T>(series, 0)
        , m_blocks(device::gridFor(this->m_n, FusedGridPolicy::kThreads * Vec<T>::kWidth * FusedGridPolicy::kUnroll,
              FusedGridPolicy::kBlocksPerSm))
        , m_partials(static_cast<std::size_t>(m_blocks))
        , m_ticket(1)
    {
        m_partials.fillBytesAsync(0xff, this->stream());
        m_ticket.fillBytesAsync(0, this->stream());
    }
    void run() override
    {
        fusedGridKernel<T><<<m_blocks, FusedGridPolicy::kThreads, 0, this->stream()>>>(
            this->m_x.data(), this->m_y.data(), this->m_n, m_partials.data(), m_ticket.data(), this->m_out.data());
        KS_CUDA_CHECK_LAUNCH("fusedGridKernel");
    }

private:
    unsigned m_blocks;
    device::DeviceBuffer<Sums4> m_partials;
    device::DeviceBuffer<unsigned int> m_ticket;
};

// -----------------------------------------------------------------------------------------------------------
// chan_stable: each thread sums (x − Kx, y − Ky) around its own first point K, turns the sums into centered
// moments, and moments are merged pairwise (Chan, Golub & LeVeque 1979) through warps, blocks and the grid.
// Large common offsets never enter a square, so the slope keeps its digits where the four-sums formula
// cancels them away.

struct ChanPolicy {
    static constexpr int kThreads = 256;
    static constexpr int kBlocksPerSm = 4;
    static constexpr int kUnroll = 4;
};

/// Count, means and centered second moments of a set of points.
struct Moments {
    double n, meanX, meanY, m2x, cxy;
};

__device__ inline Moments merge(const Moments& a, const Moments& b)
{
    if (b.n == 0.0)
        return a;
    if (a.n == 0.0)
        return b;
    const double n = a.n + b.n;
    const double dx = b.meanX - a.meanX;
    const double dy = b.meanY - a.meanY;
    const double weight = a.n * b.n / n;
    return {n, a.meanX + dx * (b.n / n), a.meanY + dy * (b.n / n), a.m2x + b.m2x + dx * dx * weight,
        a.cxy + b.cxy + dx * dy * weight};
}

__device__ inline Moments shuffleDown(const Moments& m, int offset)
{
    return {__shfl_down_sync(device::kFullWarpMask, m.n, offset),
        __shfl_down_sync(device::kFullWarpMask, m.meanX, offset),
        __shfl_down_sync(device::kFullWarpMask, m.meanY, offset),
        __shfl_down_sync(device::kFullWarpMask, m.m2x, offset), __shfl_down_sync(device::kFullWarpMask, m.cxy, offset)};
}

__device__ Moments warpMerge(Moments m)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        m = merge(m, shuffleDown(m, offset));
    return m;
}

/// Valid in thread 0.
__device__ Moments blockMerge(Moments m, Moments* scratch)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    m = warpMerge(m);
    __syncthreads();
    if (lane == 0)
        scratch[warp] = m;
    __syncthreads();
    const int warps = (blockDim.x + 31) >> 5;
    if (warp == 0) {
        m = lane < warps ? scratch[lane] : Moments {0, 0, 0, 0, 0};
        m = warpMerge(m);
    }
    return m;
}

/// This thread's moments from sums shifted by its first point.
template <class T> __device__ Moments threadMoments(const T* __restrict__ x, const T* __restrict__ y, std::size_t n)
{
    constexpr int kWidth = Vec<T>::kWidth;
    const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t first = tid * kWidth < (n / kWidth) * kWidth ? tid * kWidth : (n / kWidth) * kWidth + tid;
    if (first >= n)
        return {0, 0, 0, 0, 0};
    const double kx = x[first];
    const double ky = y[first];
    double count = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    forEachPoint<T, ChanPolicy::kUnroll>(x, y, n, [&](double xi, double yi) {
        const double dx = xi - kx;
        const double dy = yi - ky;
        count += 1.0;
        sx += dx;
        sy += dy;
        sxx = fma(dx, dx, sxx);
        sxy = fma(dx, dy, sxy);
    });
    return {count, kx + sx / count, ky + sy / count, sxx - sx * (sx / count), sxy - sx * (sy / count)};
}

__device__ inline Moments loadCoherent(const Moments* p)
{
    return {__ldcg(&p->n), __ldcg(&p->meanX), __ldcg(&p->meanY), __ldcg(&p->m2x), __ldcg(&p->cxy)};
}

template <class T>
__global__ void __launch_bounds__(ChanPolicy::kThreads) chanStableKernel(const T* __restrict__ x,
    const T* __restrict__ y, std::size_t n, Moments* partials, unsigned int* ticket, double* out)
{
    __shared__ Moments scratch[32];
    Moments m = blockMerge(threadMoments(x, y, n), scratch);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = m;
    if (!arriveLast(ticket))
        return;
    Moments total {0, 0, 0, 0, 0};
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x)
        total = merge(total, loadCoherent(&partials[i]));
    total = blockMerge(total, scratch);
    if (threadIdx.x == 0) {
        const Fit fit = fitFromMoments(total.meanX, total.meanY, total.m2x, total.cxy);
        out[0] = fit.slope;
        out[1] = fit.intercept;
        *ticket = 0;
    }
}

template <class T> class ChanStableRun final : public DeviceSeriesRun<T> {
public:
    explicit ChanStableRun(const data::Series2D& series)
        : DeviceSeriesRun<T>(series, 0)
        , m_blocks(device::gridFor(
              this->m_n, ChanPolicy::kThreads * Vec<T>::kWidth * ChanPolicy::kUnroll, ChanPolicy::kBlocksPerSm))
        , m_partials(static_cast<std::size_t>(m_blocks))
        , m_ticket(1)
    {
        m_partials.fillBytesAsync(0xff, this->stream());
        m_ticket.fillBytesAsync(0, this->stream());
    }
    void run() override
    {
        chanStableKernel<T><<<m_blocks, ChanPolicy::kThreads, 0, this->stream()>>>(
            this->m_x.data(), this->m_y.data(), this->m_n, m_partials.data(), m_ticket.data(), this->m_out.data());
        KS_CUDA_CHECK_LAUNCH("chanStableKernel");
    }

private:
    unsigned m_blocks;
    device::DeviceBuffer<Moments> m_partials;
    device::DeviceBuffer<unsigned int> m_ticket;
};

} // namespace
} // namespace ks::linreg::gpu

namespace ks::linreg {

std::unique_ptr<PreparedRun> prepareAtomicGlobal(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::AtomicGlobalRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareSharedTree(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::SharedTreeRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareWarpShuffle(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::WarpShuffleRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareWarpShuffleMulti(const data::Dataset& d, const ParamSet& p, const RunContext& c)
{
    const auto& series = d.as<data::Series2D>();
    if (precisionOf(p) == Precision::F32)
        return std::make_unique<gpu::WarpShuffleMultiRun<float>>(series, c);
    return std::make_unique<gpu::WarpShuffleMultiRun<double>>(series, c);
}

std::unique_ptr<PreparedRun> prepareFusedGrid(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::FusedGridRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareChanStable(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::ChanStableRun>(d, p);
}

} // namespace ks::linreg
