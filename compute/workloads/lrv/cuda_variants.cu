// Hand-written CUDA variants of lrv: the seed's block per pair, a thread per pair, and the centred-logs
// register-tiled triangle; plus the chunked, streamed output every GPU variant shares.
#include "compute/workloads/lrv/lrv_device.cuh"

#include <algorithm>
#include <cstdio>

namespace ks::lrv::gpu {

// ---------------------------------------------------------------------------------------------------------------
// Output chunks and streaming.

ChunkPlan planChunks(std::uint64_t p, std::uint64_t capPairs, std::uint64_t rowAlign)
{
    ChunkPlan plan;
    if (pairCount(p) <= capPairs || p <= rowAlign) {
        plan.rows.push_back({0, p});
        plan.maxPairs = pairCount(p);
        return plan;
    }
    std::uint64_t begin = 0;
    while (begin < p) {
        std::uint64_t end = std::min(p, begin + rowAlign);
        while (end < p) {
            const std::uint64_t next = std::min(p, end + rowAlign);
            if (rowStart(next) - rowStart(begin) > capPairs)
                break;
            end = next;
        }
        plan.rows.push_back({begin, end});
        plan.maxPairs = std::max(plan.maxPairs, rowStart(end) - rowStart(begin));
        begin = end;
    }
    return plan;
}

LrvDeviceRun::LrvDeviceRun(
    const data::ExpressionTable& table, const ParamSet& params, std::uint64_t extraDeviceBytes, std::uint64_t rowAlign)
    : m_table(table)
    , m_n(table.samples)
    , m_p(table.features)
    , m_pairs(pairCount(table.features))
{
    if (m_n < 2 || m_p < 2)
        throw SkipRun("lrv needs at least two samples and two features");
    const std::uint64_t inputBytes = m_n * m_p * sizeof(double);
    std::uint64_t capBytes = deviceOutputCapBytes(params);
    if (capBytes == 0) {
        std::size_t freeBytes = 0, totalBytes = 0;
        KS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
        const std::uint64_t reserve = inputBytes + extraDeviceBytes + (std::uint64_t(512) << 20);
        capBytes = freeBytes > reserve ? (freeBytes - reserve) / 2 : (std::uint64_t(64) << 20);
        if (m_pairs * sizeof(double) <= 2 * capBytes)
            capBytes = m_pairs * sizeof(double); // it all fits in one buffer
    }
    m_plan = planChunks(m_p, std::max<std::uint64_t>(capBytes / sizeof(double), 1), rowAlign);
    const int buffers = m_plan.streamed() ? 2 : 1;
    device::requireDeviceMemory(inputBytes + extraDeviceBytes + buffers * m_plan.maxPairs * sizeof(double),
        "lrv on " + std::to_string(m_n) + " samples × " + std::to_string(m_p) + " features");
    m_y = device::DeviceBuffer<double>(m_n * m_p);
    timedUpload([&] { m_y.uploadAsync(table.values, stream()); });
    for (int b = 0; b < buffers; ++b) {
        m_out[b] = device::DeviceBuffer<double>(m_plan.maxPairs);
        m_out[b].fillBytesAsync(0xff, stream()); // NaN: an unwritten pair shows
    }
    if (m_plan.streamed()) {
        m_host.assign(m_pairs, std::nan(""));
        // Page-locked, the result vector takes the chunks at full link speed while the next chunk computes.
        m_hostRegistered
            = cudaHostRegister(m_host.data(), m_host.size() * sizeof(double), cudaHostRegisterDefault) == cudaSuccess;
        if (!m_hostRegistered)
            cudaGetLastError();
    }
}

LrvDeviceRun::~LrvDeviceRun()
{
    if (m_hostRegistered)
        cudaHostUnregister(m_host.data());
}

void LrvDeviceRun::run()
{
    beforeChunks();
    if (!m_plan.streamed()) {
        computeChunk(0, m_p, m_out[0].data());
        return;
    }
    for (std::size_t c = 0; c < m_plan.rows.size(); ++c) {
        const auto [begin, end] = m_plan.rows[c];
        const std::size_t b = c % 2;
        if (c >= 2)
            KS_CUDA_CHECK(cudaStreamWaitEvent(stream(), m_copied[b].get(), 0)); // its buffer is free again
        computeChunk(begin, end, m_out[b].data());
        m_computed[b].record(stream());
        KS_CUDA_CHECK(cudaStreamWaitEvent(m_copyStream.get(), m_computed[b].get(), 0));
        KS_CUDA_CHECK(cudaMemcpyAsync(m_host.data() + rowStart(begin), m_out[b].data(),
            (rowStart(end) - rowStart(begin)) * sizeof(double), cudaMemcpyDeviceToHost, m_copyStream.get()));
        m_copied[b].record(m_copyStream.get());
    }
    // The repetition ends when the last chunk has landed on the host.
    for (std::size_t b = 0; b < std::min<std::size_t>(2, m_plan.rows.size()); ++b)
        KS_CUDA_CHECK(cudaStreamWaitEvent(stream(), m_copied[b].get(), 0));
}

Result LrvDeviceRun::fetch()
{
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (m_plan.streamed())
        return makeResult(m_host, m_table);
    std::vector<double> values(m_pairs);
    KS_CUDA_CHECK(cudaMemcpy(values.data(), m_out[0].data(), m_pairs * sizeof(double), cudaMemcpyDeviceToHost));
    return makeResult(std::move(values), m_table);
}

std::string LrvDeviceRun::note() const
{
    if (!m_plan.streamed())
        return {};
    char text[160];
    std::snprintf(text, sizeof text,
        "output streamed to the host in %zu chunks of at most %.0f MiB (timed; copies overlap the next chunk)%s",
        m_plan.rows.size(), static_cast<double>(m_plan.maxPairs * sizeof(double)) / 1048576.0,
        m_hostRegistered ? "" : "; host memory could not be page-locked");
    return text;
}

// ---------------------------------------------------------------------------------------------------------------
// Centred logs (shared with the library variants).

namespace {
struct CentredLogsPolicy {
    static constexpr int kThreads = 256;
};

/// One thread per feature: logs into C, their mean, then centre and sum squares (two passes, accurate).
__device__ void centreFeature(const double* __restrict__ y, std::uint64_t n, std::uint64_t p, std::uint64_t i,
    double* __restrict__ centred, double* __restrict__ sumSquares, double* __restrict__ transposed)
{
    double sum = 0.0;
    for (std::uint64_t k = 0; k < n; ++k) {
        const double l = log(y[k * p + i]);
        centred[k * p + i] = l;
        sum += l;
    }
    const double mean = sum / static_cast<double>(n);
    double squares = 0.0;
    for (std::uint64_t k = 0; k < n; ++k) {
        const double c = centred[k * p + i] - mean;
        centred[k * p + i] = c;
        squares = fma(c, c, squares);
        if (transposed)
            transposed[i * n + k] = c;
    }
    sumSquares[i] = squares;
}

__global__ void __launch_bounds__(CentredLogsPolicy::kThreads) centredLogsKernel(const double* __restrict__ y,
    std::uint64_t n, std::uint64_t p, double* centred, double* sumSquares, double* transposed)
{
    const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < p)
        centreFeature(y, n, p, i, centred, sumSquares, transposed);
}
} // namespace

void launchCentredLogs(const double* y, std::uint64_t n, std::uint64_t p, double* centred, double* sumSquares,
    double* transposed, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>((p + CentredLogsPolicy::kThreads - 1) / CentredLogsPolicy::kThreads);
    centredLogsKernel<<<blocks, CentredLogsPolicy::kThreads, 0, stream>>>(y, n, p, centred, sumSquares, transposed);
    KS_CUDA_CHECK_LAUNCH("centredLogsKernel");
}

// ---------------------------------------------------------------------------------------------------------------
// The register-tiled triangle: 64×64 tiles of pairs, each thread 4×4 of them in registers, samples through shared
// memory 16 at a time; Σ(c_i − c_j)² on centred logs never subtracts two large sums.

namespace {
struct TilePolicy {
    static constexpr int kTile = 64;
    static constexpr int kThreadsX = 16;
    static constexpr int kThreadsY = 16;
    static constexpr int kMicro = 4; // kTile / kThreads{X,Y}
    static constexpr int kDepth = 16; // samples per shared-memory stage
    static constexpr int kThreads = kThreadsX * kThreadsY;
};

/// Tiles (r, c) with c ≤ r, numbered row by row: tile t is in row r where r(r+1)/2 ≤ t < (r+1)(r+2)/2.
__device__ void tileAt(std::uint64_t t, std::uint64_t& r, std::uint64_t& c)
{
    r = static_cast<std::uint64_t>((sqrt(8.0 * static_cast<double>(t) + 1.0) - 1.0) * 0.5);
    while (r * (r + 1) / 2 > t)
        --r;
    while ((r + 1) * (r + 2) / 2 <= t)
        ++r;
    c = t - r * (r + 1) / 2;
}

/// Accumulates Σ_k (C[k][i] − C[k][j])² for this thread's 4×4 pairs of tile (row tile r, column tile c).
__device__ void accumulateTile(const double* __restrict__ centred, std::uint64_t n, std::uint64_t p, std::uint64_t i0,
    std::uint64_t j0, double (&acc)[TilePolicy::kMicro][TilePolicy::kMicro])
{
    __shared__ double rowsI[TilePolicy::kDepth][TilePolicy::kTile];
    __shared__ double rowsJ[TilePolicy::kDepth][TilePolicy::kTile];
    const int tx = threadIdx.x % TilePolicy::kThreadsX;
    const int ty = threadIdx.x / TilePolicy::kThreadsX;
    for (std::uint64_t k0 = 0; k0 < n; k0 += TilePolicy::kDepth) {
        for (int e = threadIdx.x; e < TilePolicy::kDepth * TilePolicy::kTile; e += TilePolicy::kThreads) {
            const int kk = e / TilePolicy::kTile;
            const int t = e % TilePolicy::kTile;
            const std::uint64_t k = k0 + kk;
            // Past the last sample both sides load zero, and (0 − 0)² adds nothing.
            rowsI[kk][t] = k < n && i0 + t < p ? centred[k * p + i0 + t] : 0.0;
            rowsJ[kk][t] = k < n && j0 + t < p ? centred[k * p + j0 + t] : 0.0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TilePolicy::kDepth; ++kk) {
            double a[TilePolicy::kMicro], b[TilePolicy::kMicro];
#pragma unroll
            for (int u = 0; u < TilePolicy::kMicro; ++u) {
                a[u] = rowsI[kk][ty + TilePolicy::kThreadsY * u];
                b[u] = rowsJ[kk][tx + TilePolicy::kThreadsX * u];
            }
#pragma unroll
            for (int u = 0; u < TilePolicy::kMicro; ++u)
#pragma unroll
                for (int v = 0; v < TilePolicy::kMicro; ++v) {
                    const double d = a[u] - b[v];
                    acc[u][v] = fma(d, d, acc[u][v]);
                }
        }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(TilePolicy::kThreads)
    tiledPairsKernel(const double* __restrict__ centred, std::uint64_t n, std::uint64_t p, std::uint64_t firstTile,
        std::uint64_t rowBegin, std::uint64_t rowEnd, double* __restrict__ out, const unsigned int* onlyIf)
{
    if (onlyIf && *onlyIf == 0)
        return;
    std::uint64_t r = 0, c = 0;
    tileAt(firstTile + blockIdx.x, r, c);
    const std::uint64_t i0 = r * TilePolicy::kTile;
    const std::uint64_t j0 = c * TilePolicy::kTile;
    double acc[TilePolicy::kMicro][TilePolicy::kMicro] = {};
    accumulateTile(centred, n, p, i0, j0, acc);
    const double scale = 1.0 / static_cast<double>(n - 1);
    const std::uint64_t base = rowStart(rowBegin);
    const int tx = threadIdx.x % TilePolicy::kThreadsX;
    const int ty = threadIdx.x / TilePolicy::kThreadsX;
#pragma unroll
    for (int u = 0; u < TilePolicy::kMicro; ++u) {
        const std::uint64_t i = i0 + ty + TilePolicy::kThreadsY * u;
        if (i >= p || i < rowBegin || i >= rowEnd)
            continue;
#pragma unroll
        for (int v = 0; v < TilePolicy::kMicro; ++v) {
            const std::uint64_t j = j0 + tx + TilePolicy::kThreadsX * v;
            if (j < i)
                out[pairIndex(i, j) - base] = acc[u][v] * scale; // consecutive threads, consecutive j
        }
    }
}
} // namespace

void launchTiledPairs(const double* centred, std::uint64_t n, std::uint64_t p, std::uint64_t rowBegin,
    std::uint64_t rowEnd, double* out, const unsigned int* onlyIf, cudaStream_t stream)
{
    const std::uint64_t tile = TilePolicy::kTile;
    const std::uint64_t firstRowTile = rowBegin / tile;
    const std::uint64_t endRowTile = (rowEnd + tile - 1) / tile;
    const std::uint64_t firstTile = firstRowTile * (firstRowTile + 1) / 2;
    const std::uint64_t tiles = endRowTile * (endRowTile + 1) / 2 - firstTile;
    if (tiles == 0)
        return;
    if (tiles > 0x7fffffffULL)
        throw ComputeError("lrv: too many tiles in one chunk; lower device_output_mb");
    tiledPairsKernel<<<static_cast<unsigned>(tiles), TilePolicy::kThreads, 0, stream>>>(
        centred, n, p, firstTile, rowBegin, rowEnd, out, onlyIf);
    KS_CUDA_CHECK_LAUNCH("tiledPairsKernel");
}

namespace {

// -----------------------------------------------------------------------------------------------------------
// block_per_pair: the seed's plan — a block per pair, log-ratios per sample, a shared-memory tree for the mean
// and another for the sum of squared deviations.

struct BlockPerPairPolicy {
    static constexpr int kThreads = 128; // a power of two: the tree halves it
};

/// The seed's tree reduction; every thread gets the block's total.
__device__ double blockTreeSum(double value, double* shared)
{
    shared[threadIdx.x] = value;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    const double total = shared[0];
    __syncthreads(); // shared is reused by the next reduction
    return total;
}

__device__ double pairVarianceByBlock(
    const double* __restrict__ y, std::uint64_t n, std::uint64_t p, std::uint64_t i, std::uint64_t j, double* shared)
{
    double sum = 0.0;
    for (std::uint64_t k = threadIdx.x; k < n; k += blockDim.x)
        sum += log(y[k * p + i] / y[k * p + j]);
    const double mean = blockTreeSum(sum, shared) / static_cast<double>(n);
    double squares = 0.0;
    for (std::uint64_t k = threadIdx.x; k < n; k += blockDim.x) {
        const double d = log(y[k * p + i] / y[k * p + j]) - mean;
        squares = fma(d, d, squares);
    }
    return blockTreeSum(squares, shared) / static_cast<double>(n - 1);
}

__global__ void __launch_bounds__(BlockPerPairPolicy::kThreads) blockPerPairKernel(const double* __restrict__ y,
    std::uint64_t n, std::uint64_t p, std::uint64_t pairBegin, std::uint64_t pairEnd, double* __restrict__ out)
{
    __shared__ double shared[BlockPerPairPolicy::kThreads];
    for (std::uint64_t k = pairBegin + blockIdx.x; k < pairEnd; k += gridDim.x) {
        std::uint64_t i = 0, j = 0;
        pairAt(k, i, j);
        const double v = pairVarianceByBlock(y, n, p, i, j, shared);
        if (threadIdx.x == 0)
            out[k - pairBegin] = v;
    }
}

class BlockPerPairRun final : public LrvDeviceRun {
public:
    BlockPerPairRun(const data::ExpressionTable& table, const ParamSet& params)
        : LrvDeviceRun(table, params, 0, 1)
    {
    }
    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        const std::uint64_t begin = rowStart(rowBegin);
        const std::uint64_t count = rowStart(rowEnd) - begin;
        if (count == 0)
            return;
        // One block per pair, as the seed launches it (a grid-stride loop only past CUDA's grid limit).
        const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(count, 0x7fffffffULL));
        blockPerPairKernel<<<blocks, BlockPerPairPolicy::kThreads, 0, stream()>>>(
            m_y.data(), m_n, m_p, begin, begin + count, out);
        KS_CUDA_CHECK_LAUNCH("blockPerPairKernel");
    }
};

// -----------------------------------------------------------------------------------------------------------
// thread_per_pair: a thread per pair, two passes over the samples; consecutive threads take consecutive j of
// the same row, so Y[k][j] loads coalesce and Y[k][i] is a broadcast.

struct ThreadPerPairPolicy {
    static constexpr int kThreads = 256;
    static constexpr int kBlocksPerSm = 8;
};

__device__ double pairVarianceByThread(
    const double* __restrict__ y, std::uint64_t n, std::uint64_t p, std::uint64_t i, std::uint64_t j)
{
    double sum = 0.0;
    for (std::uint64_t k = 0; k < n; ++k)
        sum += log(y[k * p + i] / y[k * p + j]);
    const double mean = sum / static_cast<double>(n);
    double squares = 0.0;
    for (std::uint64_t k = 0; k < n; ++k) {
        const double d = log(y[k * p + i] / y[k * p + j]) - mean;
        squares = fma(d, d, squares);
    }
    return squares / static_cast<double>(n - 1);
}

__global__ void __launch_bounds__(ThreadPerPairPolicy::kThreads) threadPerPairKernel(const double* __restrict__ y,
    std::uint64_t n, std::uint64_t p, std::uint64_t pairBegin, std::uint64_t pairEnd, double* __restrict__ out)
{
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t k = pairBegin + static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < pairEnd;
         k += stride) {
        std::uint64_t i = 0, j = 0;
        pairAt(k, i, j);
        out[k - pairBegin] = pairVarianceByThread(y, n, p, i, j);
    }
}

class ThreadPerPairRun final : public LrvDeviceRun {
public:
    ThreadPerPairRun(const data::ExpressionTable& table, const ParamSet& params)
        : LrvDeviceRun(table, params, 0, 1)
    {
        int device = 0;
        KS_CUDA_CHECK(cudaGetDevice(&device));
        KS_CUDA_CHECK(cudaDeviceGetAttribute(&m_sms, cudaDevAttrMultiProcessorCount, device));
    }
    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        const std::uint64_t begin = rowStart(rowBegin);
        const std::uint64_t count = rowStart(rowEnd) - begin;
        if (count == 0)
            return;
        const std::uint64_t needed = (count + ThreadPerPairPolicy::kThreads - 1) / ThreadPerPairPolicy::kThreads;
        const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(
            needed, static_cast<std::uint64_t>(m_sms) * ThreadPerPairPolicy::kBlocksPerSm * 64));
        threadPerPairKernel<<<blocks, ThreadPerPairPolicy::kThreads, 0, stream()>>>(
            m_y.data(), m_n, m_p, begin, begin + count, out);
        KS_CUDA_CHECK_LAUNCH("threadPerPairKernel");
    }

private:
    int m_sms = 1;
};

// -----------------------------------------------------------------------------------------------------------
// logs_tiled: N·p logs once, centred per feature, then the register-tiled triangle.

class LogsTiledRun final : public LrvDeviceRun {
public:
    LogsTiledRun(const data::ExpressionTable& table, const ParamSet& params)
        : LrvDeviceRun(table, params, (table.samples + 1) * table.features * sizeof(double), TilePolicy::kTile)
        , m_centred(m_n * m_p)
        , m_sumSquares(m_p)
    {
    }
    void beforeChunks() override
    {
        launchCentredLogs(m_y.data(), m_n, m_p, m_centred.data(), m_sumSquares.data(), nullptr, stream());
    }
    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        launchTiledPairs(m_centred.data(), m_n, m_p, rowBegin, rowEnd, out, nullptr, stream());
    }

private:
    device::DeviceBuffer<double> m_centred;
    device::DeviceBuffer<double> m_sumSquares;
};

} // namespace
} // namespace ks::lrv::gpu

namespace ks::lrv {

std::unique_ptr<PreparedRun> prepareBlockPerPair(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return gpu::makeRun<gpu::BlockPerPairRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareThreadPerPair(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return gpu::makeRun<gpu::ThreadPerPairRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareLogsTiled(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return gpu::makeRun<gpu::LogsTiledRun>(d, p);
}

} // namespace ks::lrv
