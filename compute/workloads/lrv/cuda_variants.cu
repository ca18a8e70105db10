// Hand-written CUDA variants of lrv: the seed's block per pair, a thread per pair, and the centred-logs
// register-tiled triangle; plus the chunked, streamed output every GPU variant shares.
#include "compute/core/triangle.h"
#include "compute/device/device_info.h"
#include "compute/device/launch.cuh"
#include "compute/device/multi_device.cuh"
#include "compute/workloads/lrv/lrv_device.cuh"
#include "compute/workloads/lrv/table_log.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <type_traits>

namespace ks::lrv::gpu {

// ---------------------------------------------------------------------------------------------------------------
// Output chunks and streaming.

namespace {
/// The automatic output buffer (device_output_mb = 0): half of the device memory left free after this reserve
/// beside the input and the variant's own buffers, or kFallbackBytes when there is not even that.
struct OutputPolicy {
    static constexpr std::uint64_t kReserveBytes = std::uint64_t(512) << 20;
    static constexpr std::uint64_t kFallbackBytes = std::uint64_t(64) << 20;
    /// A streamed run times this many copies of one chunk buffer to the host at prepare; the fastest is its ceiling.
    static constexpr int kCeilingCopies = 3;
};
} // namespace

ChunkPlan planChunks(std::uint64_t rowBegin, std::uint64_t p, std::uint64_t capPairs, std::uint64_t rowAlign)
{
    ChunkPlan plan;
    if (rowStart(p) - rowStart(rowBegin) <= capPairs || p - rowBegin <= rowAlign) {
        plan.rows.push_back({rowBegin, p});
        plan.maxPairs = rowStart(p) - rowStart(rowBegin);
        return plan;
    }
    std::uint64_t begin = rowBegin;
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

LrvDeviceRun::LrvDeviceRun(const data::ExpressionTable& table, const ParamSet& params, std::uint64_t extraDeviceBytes,
    std::uint64_t rowAlign, ModeSupport support, OutputShare share)
    : m_table(table)
    , m_mode(modeOf(table, params))
    , m_n(table.samples)
    , m_p(table.features)
    , m_pairs(pairCount(table.features))
    , m_rowBegin(share.rowBegin)
    , m_rowEnd(share.rowEnd ? share.rowEnd : table.features)
{
    if (m_n < 2 || m_p < 2)
        throw SkipRun("lrv needs at least two samples and two features");
    const bool weightedAlpha = m_mode.weighted && m_mode.transformed();
    if (weightedAlpha && support != ModeSupport::All)
        skipMode(m_mode, "reference, cpu_openmp and thread_per_pair");
    if (m_mode.weighted && support < ModeSupport::Weighted)
        skipMode(m_mode, "reference, cpu_openmp, thread_per_pair, logs_tiled and dmma_refined (and _multi)");
    if (m_mode.transformed() && support == ModeSupport::LogOnly)
        skipMode(m_mode,
            "reference, cpu_openmp, thread_per_pair, logs_tiled, dmma_refined (and _multi) and the cuBLAS variants");
    const bool uploadFull = m_mode.transformed() && !table.reference.empty();
    if (m_mode.transformed())
        extraDeviceBytes += m_p * sizeof(double) + (uploadFull ? table.reference.size() * sizeof(double) : 0);
    if (m_mode.weighted)
        extraDeviceBytes += m_n * m_p * sizeof(double);
    const std::uint64_t inputBytes = m_n * m_p * sizeof(double);
    std::uint64_t capBytes = deviceOutputCapBytes(params);
    if (capBytes == 0) {
        std::size_t freeBytes = 0, totalBytes = 0;
        KS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
        const std::uint64_t reserve = inputBytes + extraDeviceBytes + OutputPolicy::kReserveBytes;
        capBytes = freeBytes > reserve ? (freeBytes - reserve) / 2 : OutputPolicy::kFallbackBytes;
        const std::uint64_t sharePairs = rowStart(m_rowEnd) - rowStart(m_rowBegin);
        if (sharePairs * sizeof(double) <= 2 * capBytes)
            capBytes = sharePairs * sizeof(double); // it all fits in one buffer
    }
    m_plan = planChunks(m_rowBegin, m_rowEnd, std::max<std::uint64_t>(capBytes / sizeof(double), 1), rowAlign);
    const int buffers = m_plan.streamed() ? 2 : 1;
    device::requireDeviceMemory(inputBytes + extraDeviceBytes + buffers * m_plan.maxPairs * sizeof(double),
        "lrv on " + std::to_string(m_n) + " samples × " + std::to_string(m_p) + " features");
    m_y = device::DeviceBuffer<double>(m_n * m_p);
    if (m_mode.weighted)
        m_w = device::DeviceBuffer<double>(m_n * m_p);
    if (uploadFull)
        m_full = device::DeviceBuffer<double>(table.reference.size());
    if (m_mode.transformed())
        m_scale = device::DeviceBuffer<double>(m_p);
    timedUpload([&] {
        m_y.uploadAsync(table.values, stream());
        if (m_mode.weighted)
            m_w.uploadAsync(table.weights, stream());
        if (uploadFull)
            m_full.uploadAsync(table.reference, stream());
    });
    for (int b = 0; b < buffers; ++b) {
        m_out[b] = device::DeviceBuffer<double>(m_plan.maxPairs);
        m_out[b].fillBytesAsync(0xff, stream()); // NaN: an unwritten pair shows
    }
    if (m_plan.streamed() && share.host) {
        m_hostBase = share.host; // its owner page-locks it
    } else if (m_plan.streamed()) {
        m_host.assign(m_pairs, std::nan(""));
        m_hostBase = m_host.data();
        // Page-locked, the result vector takes the chunks at full link speed while the next chunk computes.
        m_hostRegistered
            = cudaHostRegister(m_host.data(), m_host.size() * sizeof(double), cudaHostRegisterDefault) == cudaSuccess;
        if (!m_hostRegistered)
            cudaGetLastError();
    }
    if (m_plan.streamed())
        m_copyCeilingGBs = measureCopyCeiling();
}

double LrvDeviceRun::measureCopyCeiling()
{
    // The copies take the poisoned buffer's NaNs to this run's own pairs of the host result, which every
    // repetition overwrites: nothing there is lost.
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    const std::uint64_t bytes = m_plan.maxPairs * sizeof(double);
    device::Event begin;
    device::Event end;
    double best = 0.0;
    for (int r = 0; r < OutputPolicy::kCeilingCopies; ++r) {
        begin.record(m_copyStream.get());
        KS_CUDA_CHECK(cudaMemcpyAsync(
            m_hostBase + rowStart(m_rowBegin), m_out[0].data(), bytes, cudaMemcpyDeviceToHost, m_copyStream.get()));
        end.record(m_copyStream.get());
        end.synchronize();
        const double ms = end.elapsedSince(begin);
        best = r == 0 ? ms : std::min(best, ms);
    }
    return best > 0.0 ? static_cast<double>(bytes) / (best * 1e6) : 0.0;
}

void LrvDeviceRun::launchCentred(double* centred, double* sumSquares, double* transposed,
    std::uint64_t transposedStride, double* fragments, double* columns, unsigned int* flags, FragmentScales scales)
{
    if (!m_mode.transformed()) {
        launchCentredLogs(m_y.data(), m_n, m_p, centred, sumSquares, transposed, transposedStride, stream(), fragments,
            columns, flags, scales);
        return;
    }
    launchFeatureScales(fullValues(), m_table.fullSamples(), m_p, m_mode.alpha, m_scale.data(), stream());
    launchCentredPowers(m_y.data(), m_n, m_p, m_mode.alpha, m_scale.data(), centred, sumSquares, transposed,
        transposedStride, stream(), fragments, columns, flags, scales);
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
        computeChunk(m_rowBegin, m_rowEnd, m_out[0].data());
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
        KS_CUDA_CHECK(cudaMemcpyAsync(m_hostBase + rowStart(begin), m_out[b].data(),
            (rowStart(end) - rowStart(begin)) * sizeof(double), cudaMemcpyDeviceToHost, m_copyStream.get()));
        m_copied[b].record(m_copyStream.get());
    }
    // The repetition ends when the last chunk has landed on the host.
    for (std::size_t b = 0; b < std::min<std::size_t>(2, m_plan.rows.size()); ++b)
        KS_CUDA_CHECK(cudaStreamWaitEvent(stream(), m_copied[b].get(), 0));
}

void LrvDeviceRun::copyOut(double* host)
{
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    const std::uint64_t first = rowStart(m_rowBegin);
    if (m_plan.streamed()) {
        if (m_hostBase != host)
            std::copy(m_hostBase + first, m_hostBase + rowStart(m_rowEnd), host + first);
        return;
    }
    KS_CUDA_CHECK(cudaMemcpy(
        host + first, m_out[0].data(), (rowStart(m_rowEnd) - first) * sizeof(double), cudaMemcpyDeviceToHost));
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
    // The floor the copies alone set: this run's output at the ceiling measured at prepare.
    const double outputBytes = static_cast<double>(rowStart(m_rowEnd) - rowStart(m_rowBegin)) * sizeof(double);
    char text[320];
    std::snprintf(text, sizeof text,
        "output streamed to the host in %zu chunks of at most %.0f MiB (timed; copies overlap the next chunk)%s; "
        "one chunk's copy to the host at prepare: %.1f GB/s, so the %.2f GB output needs at least %.1f ms",
        m_plan.rows.size(), static_cast<double>(m_plan.maxPairs * sizeof(double)) / 1048576.0,
        m_hostRegistered || m_hostBase != m_host.data() ? "" : "; host memory could not be page-locked",
        m_copyCeilingGBs, outputBytes / 1e9, m_copyCeilingGBs > 0.0 ? outputBytes / (m_copyCeilingGBs * 1e6) : 0.0);
    return text;
}

// ---------------------------------------------------------------------------------------------------------------
// Centred logs (shared with the library variants).

namespace {
/// The centred features as the tensor-core kernel's A operand wants them: in blocks of 16 features × 8 samples (one
/// m16n8k8 A tile), block (feature group G, step s) at (G·stride/8 + s)·128, so that lane (g, q) of a warp finds
/// its four A values — features g and g + 8 of the group, samples 2q and 2q + 1 of the step, in the register order
/// of the mma — as two 16-byte loads, slots 2·lane and 64 + 2·lane, and a warp's load covers 512 contiguous bytes.
/// Slot o holds feature ((o >> 3) & 7) + 8·(o & 1) of the group and sample 2·((o >> 1) & 3) + (o >> 6) of the step.
struct FragmentOrder {
    static constexpr int kFeatures = 16;
    static constexpr int kSamples = 8;
    __host__ __device__ static constexpr int featureOf(int slot) { return ((slot >> 3) & 7) + 8 * (slot & 1); }
    __host__ __device__ static constexpr int sampleOf(int slot) { return 2 * ((slot >> 1) & 3) + (slot >> 6); }
    /// The same blocks for the mma's B operand (the j side), the column copy: slot o holds feature o >> 3 and sample
    /// o & 7, so lane (g, q)'s loads at slots 2·lane and 64 + 2·lane are B(q, g), B(q + 4, g) for features g and
    /// g + 8 — k slot q carrying sample 2q and slot q + 4 sample 2q + 1, as in the A blocks.
    __host__ __device__ static constexpr int columnFeatureOf(int slot) { return slot >> 3; }
    __host__ __device__ static constexpr int columnSampleOf(int slot) { return slot & 7; }
    /// Where the block holding (feature i, sample k) starts, for rows of `stride` samples.
    __host__ __device__ static constexpr std::uint64_t blockStart(
        std::uint64_t i, std::uint64_t k, std::uint64_t stride)
    {
        return ((i / kFeatures) * (stride / kSamples) + k / kSamples) * (kFeatures * kSamples);
    }
};

/// Where a kernel reads centred features (or weights): value(i, k) of feature i, sample k. The N × p copy …
struct SampleMajorRows {
    const double* values;
    std::uint64_t p;
    __device__ double operator()(std::uint64_t i, std::uint64_t k) const { return values[k * p + i]; }
};

/// … the feature-major copy, rows `stride` apart …
struct FeatureMajorRows {
    const double* values;
    std::uint64_t stride;
    __device__ double operator()(std::uint64_t i, std::uint64_t k) const { return values[i * stride + k]; }
};

/// … or FragmentOrder's column copy, where a block's slot f·8 + s holds its feature f and sample s.
struct ColumnBlockRows {
    const double* values;
    std::uint64_t stride;
    __device__ double operator()(std::uint64_t i, std::uint64_t k) const
    {
        return values[FragmentOrder::blockStart(i, k, stride) + (i % FragmentOrder::kFeatures) * FragmentOrder::kSamples
            + k % FragmentOrder::kSamples];
    }
};

struct CentredLogsPolicy {
    static constexpr int kFeatures = 32; ///< a warp across features: loads and stores coalesce
    static constexpr int kRows = 8; ///< warps splitting the samples between them
    static constexpr int kThreads = kFeatures * kRows;
};

/// Sum over the block's rows of a per-thread value, for this thread's feature (threads laid out Features to a row);
/// every thread gets it.
template <int Rows, int Features> __device__ double sumOverRows(double value, double (&partial)[Rows][Features])
{
    const int tx = threadIdx.x % Features;
    const int ty = threadIdx.x / Features;
    partial[ty][tx] = value;
    __syncthreads();
    double total = 0.0;
#pragma unroll
    for (int r = 0; r < Rows; ++r)
        total += partial[r][tx];
    __syncthreads(); // partial is reused by the next sum
    return total;
}

/// The logarithm's table (table_log.h) in shared memory, a log each for the first kPieces of a block's Threads
/// threads; the caller waits for it.
template <int Threads> __device__ void makeLogPieces(LogPiece* pieces)
{
    static_assert(Threads >= table_log::kPieces, "a piece a thread");
    if (threadIdx.x < table_log::kPieces)
        pieces[threadIdx.x] = logPiece(static_cast<int>(threadIdx.x));
}

/// sumOverRows for a block whose warps each hold two rows of 16 features (lanes 0–15 and 16–31): the two combined by a
/// shuffle first, then the warps' sums through `partial` (its first Rows / 2 rows).
template <int Rows, int Features> __device__ double sumOverPairedRows(double value, double (&partial)[Rows][Features])
{
    static_assert(Features == 16, "two rows a warp");
    value += __shfl_xor_sync(device::kFullWarpMask, value, 16);
    const int tx = threadIdx.x % Features;
    if ((threadIdx.x & 31) < Features)
        partial[threadIdx.x / 32][tx] = value;
    __syncthreads();
    double total = 0.0;
#pragma unroll
    for (int r = 0; r < Rows / 2; ++r)
        total += partial[r][tx];
    __syncthreads(); // partial is reused by the next sum
    return total;
}

/// A block of 32 samples × 32 features ([sample][feature]) written to the feature-major copy (rows `stride` apart)
/// of features first…first + 31, samples k0…k0 + 31 below stride: a warp stores consecutive samples of one feature.
/// With `fragments` and `columns`, the block goes to the fragment-order copies too (FragmentOrder's A and B blocks),
/// features beyond p as the zeros the block holds for them; a null `transposed` skips the feature-major copy. Waits for
/// the block to be filled first and, after, for the reads to finish before it is refilled.
__device__ void storeFeatureMajor(const double (&block)[CentredLogsPolicy::kFeatures][CentredLogsPolicy::kFeatures + 1],
    std::uint64_t first, std::uint64_t k0, std::uint64_t p, double* transposed, std::uint64_t stride, double* fragments,
    double* columns, double fragmentScale)
{
    constexpr int kFeatures = CentredLogsPolicy::kFeatures;
    const int tx = threadIdx.x % kFeatures;
    const int ty = threadIdx.x / kFeatures;
    __syncthreads();
    if (transposed)
#pragma unroll
        for (int r = 0; r < kFeatures / CentredLogsPolicy::kRows; ++r) {
            const int f = ty + r * CentredLogsPolicy::kRows;
            const std::uint64_t k = k0 + tx;
            if (first + f < p && k < stride)
                transposed[(first + f) * stride + k] = block[tx][f];
        }
    if (fragments) {
        // Consecutive threads store consecutive slots of one 16-feature, 8-sample block.
        constexpr int kSlots = FragmentOrder::kFeatures * FragmentOrder::kSamples;
        for (int e = threadIdx.x; e < kFeatures * kFeatures; e += CentredLogsPolicy::kThreads) {
            const int slot = e % kSlots;
            const int b = e / kSlots;
            // The block's first feature and sample within the 32 × 32: both copies put slot `slot` of their block
            // (group f0, step k0 + s0) at the same place.
            const int f0 = (b % (kFeatures / FragmentOrder::kFeatures)) * FragmentOrder::kFeatures;
            const int s0 = (b / (kFeatures / FragmentOrder::kFeatures)) * FragmentOrder::kSamples;
            if (k0 + s0 >= stride)
                continue;
            const std::uint64_t at = FragmentOrder::blockStart(first + f0, k0 + s0, stride) + slot;
            fragments[at]
                = block[s0 + FragmentOrder::sampleOf(slot)][f0 + FragmentOrder::featureOf(slot)] * fragmentScale;
            columns[at] = block[s0 + FragmentOrder::columnSampleOf(slot)][f0 + FragmentOrder::columnFeatureOf(slot)];
        }
    }
    __syncthreads();
}

/// What a centring kernel does first: lets the kernel after it be scheduled (it waits for this one's end before it
/// reads anything), and, given the tensor-core kernel's `flags`, has block 0 zero its two counters.
__device__ __forceinline__ void startCentring(unsigned int* flags)
{
    device::allowEarlyLaunch();
    if (flags && blockIdx.x == 0 && threadIdx.x < 2)
        flags[threadIdx.x] = 0;
}

/// 32 features per block, their samples split over 8 warps: logs (or, kPower, y^alpha · scale[i]) into C and their
/// mean, then centre and sum squares (two passes, accurate). Each thread rereads only what it wrote itself. The
/// feature-major copy has rows of `stride` ≥ n samples, the padding zeroed; it is written through a shared 32 × 32
/// block, so a warp stores 32 consecutive samples of one feature instead of one sample of 32 features. `flags`: see
/// startCentring.
template <bool kPower>
__global__ void __launch_bounds__(CentredLogsPolicy::kThreads)
    centredFeaturesKernel(const double* __restrict__ y, std::uint64_t n, std::uint64_t p, double alpha,
        const double* __restrict__ scale, double* centred, double* sumSquares, double* transposed, std::uint64_t stride,
        double* fragments, double* columns, unsigned int* flags, FragmentScales scales)
{
    startCentring(flags);
    constexpr int kFeatures = CentredLogsPolicy::kFeatures;
    constexpr int kRows = CentredLogsPolicy::kRows;
    __shared__ double partial[kRows][kFeatures];
    __shared__ double block[kFeatures][kFeatures + 1]; // [sample][feature], then read [feature][sample]
    const int tx = threadIdx.x % kFeatures;
    const int ty = threadIdx.x / kFeatures;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * kFeatures;
    const std::uint64_t i = first + tx;
    const bool active = i < p;
    double sum = 0.0;
    const double featureScale = kPower && active ? scale[i] : 1.0;
    if (active)
        for (std::uint64_t k = ty; k < n; k += kRows) {
            const double l = kPower ? pow(y[k * p + i], alpha) * featureScale : log(y[k * p + i]);
            centred[k * p + i] = l;
            sum += l;
        }
    const double mean = sumOverRows(sum, partial) / static_cast<double>(n);
    double squares = 0.0;
    const bool copies = transposed || fragments;
    const std::uint64_t extent = copies ? stride : n; // samples, and the copies' padding
    for (std::uint64_t k0 = 0; k0 < extent; k0 += kFeatures) {
#pragma unroll
        for (int r = 0; r < kFeatures / kRows; ++r) {
            const std::uint64_t k = k0 + ty + r * kRows; // each thread's samples in the first pass's order
            double c = 0.0;
            if (active && k < n) {
                c = centred[k * p + i] - mean;
                centred[k * p + i] = c;
                squares = fma(c, c, squares);
            }
            block[ty + r * kRows][tx] = c;
        }
        if (copies)
            storeFeatureMajor(block, first, k0, p, transposed, stride, fragments, columns, scales.a);
    }
    const double total = sumOverRows(squares, partial);
    if (active && ty == 0)
        sumSquares[i] = total * scales.sums;
}

/// centredSlabKernel's shape: a block holds its features' whole columns of logs in shared memory between the passes.
struct CentredSlabPolicy {
    static constexpr int kFeatures = FragmentOrder::kFeatures; ///< a block's features: one fragment-order group
    static constexpr int kRows = 16; ///< threads down the samples; a warp covers two samples of the 16 features
    static constexpr int kThreads = kFeatures * kRows;
    static constexpr int kPitch = kFeatures + 1; ///< doubles per sample in the slab (16 would put them in 2 banks)
    static constexpr int kBatch = 8; ///< a thread's loads of Y issued together (N ≤ 128: all of them)
    /// Samples that fit, with the partial sums and the logarithm's table, in the 48 KB of shared memory a kernel gets
    /// without asking (47,616 bytes at 320).
    static constexpr int kMaxSamples = 320;
    static std::size_t slabBytes(std::uint64_t n) { return n * kPitch * sizeof(double); }
};

/// centredFeaturesKernel for N ≤ CentredSlabPolicy::kMaxSamples: Y is read once, the logs (or powers) stay in shared
/// memory for the centring pass, and every copy is written from there as a contiguous run — the block's 16 rows of
/// the feature-major copy, its whole fragment-order group — instead of being reread from `centred` 32 samples at a
/// time between barriers. 16 features a block: twice centredFeaturesKernel's blocks (625 at p = 10,000 for 313).
/// Here the sample-major `centred` may be null too (the tensor-core run reads only the fragment-order copies). Logs by
/// tableLog, each block making the table; `logConstants` reach its multiply-adds from the constant bank as a parameter.
/// One wave whose time follows its instructions: the table logarithm, the 16-byte stores and the sums' shuffles took it
/// from 1,148 to 813 instructions a warp and 10.3 to 8.6 µs at 80 × 10,000 (H200, Nsight Compute; the whole lrv run
/// 0.15–0.6 % faster on five machines).
template <bool kPower>
__global__ void __launch_bounds__(CentredSlabPolicy::kThreads)
    centredSlabKernel(const double* __restrict__ y, std::uint64_t n, std::uint64_t p, double alpha,
        const double* __restrict__ scale, double* centred, double* sumSquares, double* transposed, std::uint64_t stride,
        double* fragments, double* columns, unsigned int* flags, FragmentScales scales, LogConstants logConstants)
{
    startCentring(flags);
    using P = CentredSlabPolicy;
    extern __shared__ double slab[]; // [sample][feature], P::kPitch apart; zero for features beyond p
    __shared__ double partial[P::kRows][P::kFeatures];
    const int tx = threadIdx.x % P::kFeatures;
    const int ty = threadIdx.x / P::kFeatures;
    const int samples = static_cast<int>(n);
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * P::kFeatures;
    const std::uint64_t i = first + tx;
    const bool active = i < p;
    const double featureScale = kPower && active ? scale[i] : 1.0;
    double v[P::kBatch]; // a batch's loads all in flight before its first log
    const std::uint64_t rowStep = P::kRows * p; // Y's elements between a thread's samples
    auto load = [&](int k0) {
        const double* at = y + static_cast<std::uint64_t>(k0) * p + i;
#pragma unroll
        for (int b = 0; b < P::kBatch; ++b, at += rowStep)
            v[b] = active && k0 + b * P::kRows < samples ? *at : 1.0;
    };
    load(ty);
    // The logarithm's table (table_log.h), made while the first batch is loaded: a log each for half the threads.
    __shared__ LogPiece pieces[kPower ? 1 : table_log::kPieces];
    if constexpr (!kPower) {
        makeLogPieces<P::kThreads>(pieces);
        __syncthreads();
    }
    double sum = 0.0;
    for (int k0 = ty; k0 < samples; k0 += P::kBatch * P::kRows) {
        if (k0 != ty)
            load(k0);
#pragma unroll
        for (int b = 0; b < P::kBatch; ++b) {
            const int k = k0 + b * P::kRows;
            if (k < samples) {
                const double l = !active ? 0.0
                    : kPower             ? pow(v[b], alpha) * featureScale
                                         : tableLog(v[b], pieces, logConstants);
                slab[k * P::kPitch + tx] = l;
                sum += l;
            }
        }
    }
    const double mean = sumOverPairedRows(sum, partial) / static_cast<double>(n);
    double squares = 0.0;
    for (int k = ty; k < samples; k += P::kRows) {
        const double c = active ? slab[k * P::kPitch + tx] - mean : 0.0;
        slab[k * P::kPitch + tx] = c;
        if (active && centred)
            centred[k * p + i] = c;
        squares = fma(c, c, squares);
    }
    const double total = sumOverPairedRows(squares, partial); // its barriers also make the slab whole for every thread
    if (active && ty == 0)
        sumSquares[i] = total * scales.sums;
    const int width = static_cast<int>(stride);
    if (transposed) {
        // Rows first … first + 15 of the feature-major copy are one run of 16·stride doubles; those beyond p stay.
        const int features = p - first < P::kFeatures ? static_cast<int>(p - first) : P::kFeatures;
        double* run = transposed + first * stride;
        for (int e = threadIdx.x; e < features * width; e += P::kThreads) {
            const int f = e / width;
            const int k = e - f * width;
            run[e] = k < samples ? slab[k * P::kPitch + f] : 0.0;
        }
    }
    if (fragments) {
        // The group's blocks of 8 samples follow one another: one run of 16·stride doubles in each copy, both at the
        // same place, zeros beyond p and N. A thread stores two slots at once (16 bytes) and keeps its pair of slots in
        // every block it writes: slots 2q and 2q + 1 hold, in the A copy, features f and f + 8 of one sample, in the B
        // copy one feature's samples s and s + 1 (FragmentOrder). With a slot a thread and its index worked out per
        // store, these stores were a quarter of the kernel's instructions.
        constexpr int kSlots = FragmentOrder::kFeatures * FragmentOrder::kSamples;
        constexpr int kPairs = kSlots / 2;
        static_assert(P::kThreads % kPairs == 0, "a thread keeps its pair of slots");
        constexpr int kPassSamples = P::kThreads / kPairs * FragmentOrder::kSamples;
        const int slot = 2 * static_cast<int>(threadIdx.x % kPairs);
        const double* fromA = slab + FragmentOrder::sampleOf(slot) * P::kPitch + FragmentOrder::featureOf(slot);
        const double* fromB
            = slab + FragmentOrder::columnSampleOf(slot) * P::kPitch + FragmentOrder::columnFeatureOf(slot);
        const int lastA = samples - FragmentOrder::sampleOf(slot); // a block's sample k0 + s exists while k0 < last
        const int lastB = samples - FragmentOrder::columnSampleOf(slot);
        const std::uint64_t start = FragmentOrder::blockStart(first, 0, stride);
        double2* toA = reinterpret_cast<double2*>(fragments + start) + threadIdx.x;
        double2* toB = reinterpret_cast<double2*>(columns + start) + threadIdx.x;
        for (int k0 = static_cast<int>(threadIdx.x) / kPairs * FragmentOrder::kSamples; k0 < width;
             k0 += kPassSamples, toA += P::kThreads, toB += P::kThreads) {
            const double* a = fromA + k0 * P::kPitch;
            const double* b = fromB + k0 * P::kPitch;
            *toA = k0 < lastA ? make_double2(a[0] * scales.a, a[FragmentOrder::kFeatures / 2] * scales.a)
                              : make_double2(0.0, 0.0);
            *toB = make_double2(k0 < lastB ? b[0] : 0.0, k0 + 1 < lastB ? b[P::kPitch] : 0.0);
        }
    }
}

/// scale[i] = nf / (alpha · Σ_k full[k][i]^alpha), with centredFeaturesKernel's layout of threads.
__global__ void __launch_bounds__(CentredLogsPolicy::kThreads)
    featureScalesKernel(const double* __restrict__ full, std::uint64_t nf, std::uint64_t p, double alpha, double* scale)
{
    __shared__ double partial[CentredLogsPolicy::kRows][CentredLogsPolicy::kFeatures];
    const int tx = threadIdx.x % CentredLogsPolicy::kFeatures;
    const int ty = threadIdx.x / CentredLogsPolicy::kFeatures;
    const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * CentredLogsPolicy::kFeatures + tx;
    double sum = 0.0;
    if (i < p)
        for (std::uint64_t k = ty; k < nf; k += CentredLogsPolicy::kRows)
            sum += pow(full[k * p + i], alpha);
    const double total = sumOverRows(sum, partial);
    if (i < p && ty == 0)
        scale[i] = static_cast<double>(nf) / (alpha * total);
}
} // namespace

bool centredCopyOptional(std::uint64_t n)
{
    return n <= CentredSlabPolicy::kMaxSamples;
}

void launchCentredLogs(const double* y, std::uint64_t n, std::uint64_t p, double* centred, double* sumSquares,
    double* transposed, std::uint64_t transposedStride, cudaStream_t stream, double* fragments, double* columns,
    unsigned int* flags, FragmentScales scales)
{
    if (n <= CentredSlabPolicy::kMaxSamples) {
        centredSlabKernel<false><<<device::blocksFor(p, CentredSlabPolicy::kFeatures), CentredSlabPolicy::kThreads,
            CentredSlabPolicy::slabBytes(n), stream>>>(y, n, p, 0.0, nullptr, centred, sumSquares, transposed,
            transposedStride, fragments, columns, flags, scales, LogConstants {});
        KS_CUDA_CHECK_LAUNCH("centredSlabKernel<log>");
        return;
    }
    centredFeaturesKernel<false>
        <<<device::blocksFor(p, CentredLogsPolicy::kFeatures), CentredLogsPolicy::kThreads, 0, stream>>>(y, n, p, 0.0,
            nullptr, centred, sumSquares, transposed, transposedStride, fragments, columns, flags, scales);
    KS_CUDA_CHECK_LAUNCH("centredFeaturesKernel<log>");
}

void launchCentredPowers(const double* y, std::uint64_t n, std::uint64_t p, double alpha, const double* scale,
    double* centred, double* sumSquares, double* transposed, std::uint64_t transposedStride, cudaStream_t stream,
    double* fragments, double* columns, unsigned int* flags, FragmentScales scales)
{
    if (n <= CentredSlabPolicy::kMaxSamples) {
        centredSlabKernel<true><<<device::blocksFor(p, CentredSlabPolicy::kFeatures), CentredSlabPolicy::kThreads,
            CentredSlabPolicy::slabBytes(n), stream>>>(y, n, p, alpha, scale, centred, sumSquares, transposed,
            transposedStride, fragments, columns, flags, scales, LogConstants {});
        KS_CUDA_CHECK_LAUNCH("centredSlabKernel<power>");
        return;
    }
    centredFeaturesKernel<true>
        <<<device::blocksFor(p, CentredLogsPolicy::kFeatures), CentredLogsPolicy::kThreads, 0, stream>>>(y, n, p, alpha,
            scale, centred, sumSquares, transposed, transposedStride, fragments, columns, flags, scales);
    KS_CUDA_CHECK_LAUNCH("centredFeaturesKernel<power>");
}

void launchFeatureScales(
    const double* full, std::uint64_t nf, std::uint64_t p, double alpha, double* scale, cudaStream_t stream)
{
    featureScalesKernel<<<device::blocksFor(p, CentredLogsPolicy::kFeatures), CentredLogsPolicy::kThreads, 0, stream>>>(
        full, nf, p, alpha, scale);
    KS_CUDA_CHECK_LAUNCH("featureScalesKernel");
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

/// Loads samples [k0, k0 + Depth) of the centred logs of features [i0, i0 + Tile) and [j0, j0 + Tile) into shared
/// memory. Past the last sample or feature both sides get zero, and (0 − 0)² or 0·0 adds nothing.
template <int Depth, int Tile, int Stride, int Threads, typename Rows>
__device__ void loadCentredStage(Rows centred, std::uint64_t n, std::uint64_t p, std::uint64_t i0, std::uint64_t j0,
    std::uint64_t k0, double (&rowsI)[Depth][Stride], double (&rowsJ)[Depth][Stride])
{
    for (int e = threadIdx.x; e < Depth * Tile; e += Threads) {
        const int kk = e / Tile;
        const int t = e % Tile;
        const std::uint64_t k = k0 + kk;
        rowsI[kk][t] = k < n && i0 + t < p ? centred(i0 + t, k) : 0.0;
        rowsJ[kk][t] = k < n && j0 + t < p ? centred(j0 + t, k) : 0.0;
    }
}

/// Accumulates Σ_k (C[k][i] − C[k][j])² for this thread's 4×4 pairs of tile (row tile r, column tile c).
template <typename Rows>
__device__ void accumulateTile(Rows centred, std::uint64_t n, std::uint64_t p, std::uint64_t i0, std::uint64_t j0,
    double (&acc)[TilePolicy::kMicro][TilePolicy::kMicro])
{
    __shared__ double rowsI[TilePolicy::kDepth][TilePolicy::kTile];
    __shared__ double rowsJ[TilePolicy::kDepth][TilePolicy::kTile];
    const int tx = threadIdx.x % TilePolicy::kThreadsX;
    const int ty = threadIdx.x / TilePolicy::kThreadsX;
    for (std::uint64_t k0 = 0; k0 < n; k0 += TilePolicy::kDepth) {
        loadCentredStage<TilePolicy::kDepth, TilePolicy::kTile, TilePolicy::kTile, TilePolicy::kThreads>(
            centred, n, p, i0, j0, k0, rowsI, rowsJ);
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

/// Weighted lrv of this thread's 4×4 pairs of tile (i0, j0) into out, in two passes over the samples: Σw, Σw² and
/// Σw·x first (w = W_i·W_j, x = c_i − c_j), then Σw(x − x̄)² around x̄ = Σw·x / Σw.
template <typename Rows>
__device__ void weightedTile(Rows centred, Rows weights, std::uint64_t n, std::uint64_t p, std::uint64_t i0,
    std::uint64_t j0, double (&out)[TilePolicy::kMicro][TilePolicy::kMicro])
{
    constexpr int kMicro = TilePolicy::kMicro;
    __shared__ double rowsI[TilePolicy::kDepth][TilePolicy::kTile];
    __shared__ double rowsJ[TilePolicy::kDepth][TilePolicy::kTile];
    __shared__ double weightsI[TilePolicy::kDepth][TilePolicy::kTile];
    __shared__ double weightsJ[TilePolicy::kDepth][TilePolicy::kTile];
    const int tx = threadIdx.x % TilePolicy::kThreadsX;
    const int ty = threadIdx.x / TilePolicy::kThreadsX;
    double weight[kMicro][kMicro] = {}, mean[kMicro][kMicro] = {}, factor[kMicro][kMicro] = {};
    // One pass over the samples; `pass` sees each sample's w and x for each of the thread's pairs.
    const auto overSamples = [&](auto&& pass) {
        for (std::uint64_t k0 = 0; k0 < n; k0 += TilePolicy::kDepth) {
            loadCentredStage<TilePolicy::kDepth, TilePolicy::kTile, TilePolicy::kTile, TilePolicy::kThreads>(
                centred, n, p, i0, j0, k0, rowsI, rowsJ);
            loadCentredStage<TilePolicy::kDepth, TilePolicy::kTile, TilePolicy::kTile, TilePolicy::kThreads>(
                weights, n, p, i0, j0, k0, weightsI, weightsJ); // zero weights past N or p add nothing
            __syncthreads();
#pragma unroll 4
            for (int kk = 0; kk < TilePolicy::kDepth; ++kk) {
                double a[kMicro], b[kMicro], wa[kMicro], wb[kMicro];
#pragma unroll
                for (int u = 0; u < kMicro; ++u) {
                    a[u] = rowsI[kk][ty + TilePolicy::kThreadsY * u];
                    wa[u] = weightsI[kk][ty + TilePolicy::kThreadsY * u];
                    b[u] = rowsJ[kk][tx + TilePolicy::kThreadsX * u];
                    wb[u] = weightsJ[kk][tx + TilePolicy::kThreadsX * u];
                }
#pragma unroll
                for (int u = 0; u < kMicro; ++u)
#pragma unroll
                    for (int v = 0; v < kMicro; ++v)
                        pass(u, v, wa[u] * wb[v], a[u] - b[v]);
            }
            __syncthreads();
        }
    };
    overSamples([&](int u, int v, double w, double x) {
        weight[u][v] += w;
        factor[u][v] = fma(w, w, factor[u][v]);
        mean[u][v] = fma(w, x, mean[u][v]);
    });
#pragma unroll
    for (int u = 0; u < kMicro; ++u)
#pragma unroll
        for (int v = 0; v < kMicro; ++v) {
            mean[u][v] /= weight[u][v];
            factor[u][v] = weight[u][v] / (weight[u][v] * weight[u][v] - factor[u][v]);
            out[u][v] = 0.0;
        }
    overSamples([&](int u, int v, double w, double x) {
        const double d = x - mean[u][v];
        out[u][v] = fma(w * d, d, out[u][v]);
    });
#pragma unroll
    for (int u = 0; u < kMicro; ++u)
#pragma unroll
        for (int v = 0; v < kMicro; ++v)
            out[u][v] *= factor[u][v];
}

/// Tiles blockIdx.x, blockIdx.x + gridDim.x, … of the tileCount from firstTile: lrv, or weighted lrv when kWeighted.
template <bool kWeighted, typename Rows>
__device__ void tiledPairs(Rows centred, Rows weights, std::uint64_t n, std::uint64_t p, std::uint64_t firstTile,
    unsigned tileCount, std::uint64_t rowBegin, std::uint64_t rowEnd, double* __restrict__ out)
{
    const double scale = kWeighted ? 1.0 : 1.0 / static_cast<double>(n - 1);
    const std::uint64_t base = rowStart(rowBegin);
    const int tx = threadIdx.x % TilePolicy::kThreadsX;
    const int ty = threadIdx.x / TilePolicy::kThreadsX;
    for (unsigned t = blockIdx.x; t < tileCount; t += gridDim.x) {
        std::uint64_t r = 0, c = 0;
        triangleAt(firstTile + t, r, c); // tiles (r, c) with c ≤ r, numbered row by row
        const std::uint64_t i0 = r * TilePolicy::kTile;
        const std::uint64_t j0 = c * TilePolicy::kTile;
        double acc[TilePolicy::kMicro][TilePolicy::kMicro] = {};
        if constexpr (kWeighted)
            weightedTile(centred, weights, n, p, i0, j0, acc);
        else
            accumulateTile(centred, n, p, i0, j0, acc);
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
}

/// A block per 64×64 tile.
template <bool kWeighted>
__global__ void __launch_bounds__(TilePolicy::kThreads) tiledPairsKernel(const double* __restrict__ centred,
    const double* __restrict__ weights, std::uint64_t n, std::uint64_t p, std::uint64_t firstTile, unsigned tileCount,
    std::uint64_t rowBegin, std::uint64_t rowEnd, double* __restrict__ out)
{
    tiledPairs<kWeighted>(
        SampleMajorRows {centred, p}, SampleMajorRows {weights, p}, n, p, firstTile, tileCount, rowBegin, rowEnd, out);
}
} // namespace

/// The triangle tiles covering rows [rowBegin, rowEnd): the first tile's number and how many (one block each).
struct TileRange {
    std::uint64_t first = 0;
    unsigned count = 0;
};

TileRange tilesForRows(std::uint64_t rowBegin, std::uint64_t rowEnd, std::uint64_t tile)
{
    const std::uint64_t firstRowTile = rowBegin / tile;
    const std::uint64_t endRowTile = (rowEnd + tile - 1) / tile;
    const std::uint64_t first = firstRowTile * (firstRowTile + 1) / 2;
    const std::uint64_t count = endRowTile * (endRowTile + 1) / 2 - first;
    if (count > 0x7fffffffULL)
        throw ComputeError("lrv: too many tiles in one chunk; lower device_output_mb");
    return TileRange {first, static_cast<unsigned>(count)};
}

namespace {
template <bool kWeighted>
void launchTiled(const double* centred, const double* weights, std::uint64_t n, std::uint64_t p, std::uint64_t rowBegin,
    std::uint64_t rowEnd, double* out, cudaStream_t stream)
{
    const TileRange tiles = tilesForRows(rowBegin, rowEnd, TilePolicy::kTile);
    // Plain copies: GCC warns about a launch argument taken from a struct member.
    const std::uint64_t firstTile = tiles.first;
    const unsigned blocks = tiles.count;
    if (blocks == 0)
        return;
    tiledPairsKernel<kWeighted>
        <<<blocks, TilePolicy::kThreads, 0, stream>>>(centred, weights, n, p, firstTile, blocks, rowBegin, rowEnd, out);
    if constexpr (kWeighted)
        KS_CUDA_CHECK_LAUNCH("tiledPairsKernel<weighted>");
    else
        KS_CUDA_CHECK_LAUNCH("tiledPairsKernel");
}
} // namespace

void launchTiledPairs(const double* centred, std::uint64_t n, std::uint64_t p, std::uint64_t rowBegin,
    std::uint64_t rowEnd, double* out, cudaStream_t stream)
{
    launchTiled<false>(centred, nullptr, n, p, rowBegin, rowEnd, out, stream);
}

void launchWeightedTiledPairs(const double* centred, const double* weights, std::uint64_t n, std::uint64_t p,
    std::uint64_t rowBegin, std::uint64_t rowEnd, double* out, cudaStream_t stream)
{
    launchTiled<true>(centred, weights, n, p, rowBegin, rowEnd, out, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// Refinement after an expansion: the pairs whose numerator cancelled are recomputed directly.

namespace {
struct RefinePolicy {
    static constexpr int kThreads = 256; ///< 8 warps, a warp per recomputed pair; the fallback's tiles use them all
    static constexpr int kBlocksPerSm = 8; ///< a capped grid looping over the list, or over the fallback's tiles
    static constexpr std::uint64_t kWorklistDivisor = 16; ///< a chunk's worklist holds this fraction of its pairs …
    static constexpr std::uint64_t kMinWorklist = 1024; ///< … and at least this many
};

/// The sum over a warp's lanes, in every lane.
__device__ double warpSum(double value)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        value += __shfl_xor_sync(device::kFullWarpMask, value, offset);
    return value;
}

/// A warp per listed pair: Σ_k (c_ik − c_jk)² from centred logs that a warp reads along k (feature-major, or in
/// column blocks); weighted (kWeighted, W in the same layout beside them), two passes: the weighted mean of
/// c_i − c_j, then the weighted squared deviations.
template <bool kWeighted, typename Rows>
__device__ void recomputeListed(Rows c, Rows w, std::uint64_t n, const std::uint64_t* __restrict__ worklist,
    unsigned listed, std::uint64_t chunkBase, double* __restrict__ out)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warpsPerGrid = gridDim.x * (blockDim.x / 32);
    for (unsigned e = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; e < listed; e += warpsPerGrid) {
        std::uint64_t i = 0, j = 0;
        pairAt(worklist[e], i, j);
        double value = 0.0;
        if constexpr (kWeighted) {
            double weight = 0.0, weight2 = 0.0, sum = 0.0;
            for (std::uint64_t k = lane; k < n; k += 32) {
                const double wk = w(i, k) * w(j, k);
                weight += wk;
                weight2 = fma(wk, wk, weight2);
                sum = fma(wk, c(i, k) - c(j, k), sum);
            }
            weight = warpSum(weight);
            weight2 = warpSum(weight2);
            const double mean = warpSum(sum) / weight;
            double squares = 0.0;
            for (std::uint64_t k = lane; k < n; k += 32) {
                const double d = c(i, k) - c(j, k) - mean;
                squares = fma(w(i, k) * w(j, k) * d, d, squares);
            }
            value = warpSum(squares) * weight / (weight * weight - weight2);
        } else {
            double squares = 0.0;
            for (std::uint64_t k = lane; k < n; k += 32) {
                const double d = c(i, k) - c(j, k);
                squares = fma(d, d, squares);
            }
            value = warpSum(squares) / static_cast<double>(n - 1);
        }
        if (lane == 0)
            out[worklist[e] - chunkBase] = value;
    }
}

/// The refinement in one launch, decided on the device so the stream never waits: the listed pairs recomputed, or,
/// when more were flagged than the list holds (*decisionCount > capacity), the whole chunk by the tiled kernel —
/// which then writes every pair, so the list is left alone. A capped grid: usually all but a few blocks return at
/// once. `listedRows` serve the listed pairs, `tileRows` the fallback's tiles (W in the same layouts, weighted).
template <bool kWeighted, typename ListedRows, typename TileRows>
__global__ void __launch_bounds__(RefinePolicy::kThreads)
    refineKernel(ListedRows listedRows, ListedRows listedWeights, TileRows tileRows, TileRows tileWeights,
        std::uint64_t n, std::uint64_t p, std::uint64_t firstTile, unsigned tileCount, std::uint64_t rowBegin,
        std::uint64_t rowEnd, const std::uint64_t* __restrict__ worklist, const unsigned int* worklistCount,
        const unsigned int* decisionCount, unsigned int capacity, double* __restrict__ out)
{
    static_assert(RefinePolicy::kThreads == TilePolicy::kThreads);
    device::waitForPrerequisites(); // launched early: the expansion's list and output are whole from here
    if (*decisionCount > capacity)
        tiledPairs<kWeighted>(tileRows, tileWeights, n, p, firstTile, tileCount, rowBegin, rowEnd, out);
    else
        recomputeListed<kWeighted>(
            listedRows, listedWeights, n, worklist, min(*worklistCount, capacity), rowStart(rowBegin), out);
}

/// launchRefinement's launch for either layout of the centred features; `early`: device::launchEarly's.
template <bool kWeighted, typename ListedRows, typename TileRows>
void launchRefineKernel(ListedRows listedRows, ListedRows listedWeights, TileRows tileRows, TileRows tileWeights,
    std::uint64_t n, std::uint64_t p, std::uint64_t rowBegin, std::uint64_t rowEnd, const std::uint64_t* worklist,
    const unsigned int* flags, unsigned int capacity, double* out, cudaStream_t stream,
    const unsigned int* decisionCount, bool early)
{
    const TileRange tiles = tilesForRows(rowBegin, rowEnd, TilePolicy::kTile);
    // Plain copies: GCC warns about a launch argument taken from a struct member.
    const std::uint64_t firstTile = tiles.first;
    const unsigned tileCount = tiles.count;
    // Enough blocks for the fallback's tiles or for a warp per listed pair, at most kBlocksPerSm an SM.
    const unsigned grid = device::gridFor(
        std::max<std::uint64_t>(tileCount, capacity / (RefinePolicy::kThreads / 32)), 1, RefinePolicy::kBlocksPerSm);
    device::launchEarly(early, kWeighted ? "launch of refineKernel<weighted>" : "launch of refineKernel",
        refineKernel<kWeighted, ListedRows, TileRows>, grid, RefinePolicy::kThreads, 0, stream, listedRows,
        listedWeights, tileRows, tileWeights, n, p, firstTile, tileCount, rowBegin, rowEnd, worklist, flags,
        decisionCount ? decisionCount : flags, capacity, out);
}
} // namespace

unsigned int worklistCapacity(std::uint64_t pairs)
{
    return static_cast<unsigned>(std::min<std::uint64_t>(
        0x7fffffffULL, std::max(RefinePolicy::kMinWorklist, pairs / RefinePolicy::kWorklistDivisor)));
}

void launchRefinement(const double* transposed, std::uint64_t transposedStride, const double* centred, std::uint64_t n,
    std::uint64_t p, std::uint64_t rowBegin, std::uint64_t rowEnd, const std::uint64_t* worklist, unsigned int* flags,
    unsigned int capacity, double* out, cudaStream_t stream, const unsigned int* decisionCount,
    const double* transposedWeights, const double* weights, bool early)
{
    const FeatureMajorRows listedRows {transposed, transposedStride};
    const FeatureMajorRows listedWeights {transposedWeights, transposedStride};
    const SampleMajorRows tileRows {centred, p};
    const SampleMajorRows tileWeights {weights, p};
    if (weights)
        launchRefineKernel<true>(listedRows, listedWeights, tileRows, tileWeights, n, p, rowBegin, rowEnd, worklist,
            flags, capacity, out, stream, decisionCount, early);
    else
        launchRefineKernel<false>(listedRows, listedWeights, tileRows, tileWeights, n, p, rowBegin, rowEnd, worklist,
            flags, capacity, out, stream, decisionCount, early);
}

// ---------------------------------------------------------------------------------------------------------------
// The tensor-core expansion: lrv_ij = (s_i + s_j)/(N − 1) − 2·g_ij/(N − 1) in 64×64 tiles, g_ij = Σ_k c_ik c_jk from
// FP64 mma.sync (on Hopper m16n8k16 a whole stage, m16n8k8 where the last stage is one step), four warps of 32×32 or
// two of 64×32 (DmmaWarps). The accumulators start at the first part and the A copy comes scaled by −2/(N − 1)
// (FragmentScales), so they end as the lrv and are written straight out — g never touches memory. Pairs whose numerator
// cancels are listed for the refinement above.

namespace {
struct DmmaPolicy {
    static constexpr int kTile = 64;
    /// Warps down the tile (DmmaWarps), two across it. Two down, four warps of 32 × 32 pairs, for the instance whose
    /// stages are all whole: four blocks an SM share its 64 K registers at 128 a thread (five, at 96, spilled 192
    /// bytes: H200, 0.210 → 0.389 ms at 80 × 10,000). One down, two warps of 64 × 32 pairs, for the one with a
    /// one-step last stage (kHalfLast): a quarter fewer shared-memory loads an mma, and five blocks an SM at 168
    /// registers (8–32 bytes spilled). H200, one call, against 2 × 2 at five blocks an SM (where that instance had
    /// gained over four: 200 × 30,000 3.58 → 3.55 ms): 37 × 20,000 0.5343–0.5351 → 0.5131–0.5135 ms, 200 × 30,000
    /// 3.476–3.480 → 3.438–3.439; but 80 × 10,000 (whole stages) 0.2048–0.2058 → 0.2123–0.2135 at five blocks and
    /// 0.2098–0.2107 at four (228 registers, 8 warps an SM).
    static constexpr int warpsDown(bool halfLast) { return halfLast ? 1 : 2; }
    /// Blocks an SM, as above.
    static constexpr int blocksPerSm(bool halfLast) { return halfLast ? 5 : 4; }
    static constexpr int kStep = 8; ///< samples per mma
    static constexpr int kDepth = 16; ///< samples per shared-memory stage: two k8 steps (no zero padding at N = 80)
    static constexpr int kSteps = kDepth / kStep;
    /// The output tile staged for row-wise, coalesced stores; rows 72 doubles apart put a quarter-warp's 16-byte
    /// writes (two rows, four pairs of columns each) in distinct banks.
    static constexpr int kOutStride = kTile + 8;
    /// Where a tile's accumulators get their first values, s_i + s_j: each thread's own loads before the stages
    /// (startFromLoads), or the shared copy of the sums once the first stage has landed (startFromShared). Same work;
    /// ptxas allocates the two differently in each instance (H200, 2 × 2 warps, one call, the instance each size runs):
    /// 80 × 10,000 (row by row, whole stages) 0.2087 ms from shared, 0.2074 loaded; 37 × 20,000 (row by row, one-step
    /// last stage) 0.538 / 0.531; 200 × 30,000 (grouped, one-step last stage) 3.468 / 3.488. So loaded, but for that.
    /// With 64 × 32 warps in the one-step instances, the same (one call): 37 × 20,000 0.5096–0.5108 loaded,
    /// 0.5179–0.5209 from shared; 200 × 30,000 3.4369–3.4370 from shared, 3.4599–3.4628 loaded.
    static constexpr bool startsFromShared(bool grouped, bool halfLast) { return grouped && halfLast; }
    /// A whole tile's test for cancelling pairs (a thread that finds one lists its pairs by the exact test): each pair
    /// against its own row's and column's bounds (cancellationBound; two integer compares a pair, the same pairs as
    /// cancelsByPartsHighWords), or all of a thread's pairs against the largest of its rows' and columns' bounds (one
    /// compare a pair; a superset, so perhaps a few more threads list). H200, 2 × 2 warps, one call each, the
    /// instance each size runs, against the parts test: 80 × 10,000 (row by row) 0.2064–0.2073 → 0.2039–0.2056 ms one
    /// bound a thread (another call: 0.2077–0.2091 → 0.2058–0.2072 per pair); 37 × 20,000 (row by row) 0.525 → 0.526
    /// one a thread, 0.528 per pair; 200 × 30,000 (grouped) 3.420–3.423 → 3.412–3.414 per pair, 3.426–3.428 one a
    /// thread. So one a thread, but for the grouped instances. With 64 × 32 warps in the one-step instances, the same
    /// (one call): 37 × 20,000 0.5096–0.5108 one a thread, 0.5112–0.5122 per pair; 200 × 30,000 3.4369–3.4370 per pair,
    /// 3.4403–3.4418 one a thread.
    static constexpr bool boundsPerThread(bool grouped) { return !grouped; }
    /// storeTile's row loop unrolled twice in the instances with whole stages, as the compiler chooses in the others
    /// (0). H200, one call, three runs each at 80 × 10,000: its choice (four rows a pass there) 0.2062–0.2070 ms,
    /// unrolled once 0.2065–0.2076, twice 0.2023–0.2034; grouped 0.2140, 0.2133, 0.2102. Another H200, this code
    /// against the one before: 0.2038–0.2043 → 0.2016–0.2018, grouped 0.2125 → 0.2086. Twice in the one-step instances
    /// too cost 8 % at 37 × 20,000 (0.5115 → 0.5524 ms) and 0.4 % at 200 × 30,000.
    static constexpr int storeUnroll(bool halfLast) { return halfLast ? 0 : 2; }
    /// A whole stage's two k8 steps as one m16n8k16 (gramTile), in the instances whose stages are all whole: half the
    /// mma instructions, and with both steps' fragments loaded at once ptxas keeps the loop in 124 registers, no
    /// spills (4 bytes before). H200, one call each, against two m16n8k8: 80 × 10,000 0.2003–0.2022 → 0.1958–0.1965 ms
    /// and 0.2005–0.2007 → 0.1956–0.1965; 160 × 30,000 (grouped) 2.878 → 2.788. Both steps' fragments (48 doubles a
    /// thread) do not fit beside the one-step instances' 64 × 32 warps' accumulators (165–168 registers, 356–768 bytes
    /// spilled); as 2 × 2 warps at four blocks an SM, with the last stage's one step apart, those ran 4 % slower at
    /// 37 × 20,000 (0.5057–0.5064 → 0.5282–0.5287 ms) and 1.3 % at 200 × 30,000 (3.395–3.398 → 3.439–3.442).
    static constexpr bool pairsSteps(bool halfLast) { return !halfLast; }
};

/// The tile's warps: WarpsM down it and two across, each a block of kWarpTileM × kWarpTileN pairs in m16n8k8 tiles.
template <int WarpsM> struct DmmaWarps {
    static constexpr int kWarpsM = WarpsM; ///< warps down the tile …
    static constexpr int kWarpsN = 2; ///< … and across it
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int kWarpTileM = DmmaPolicy::kTile / kWarpsM; ///< a warp's rows of the tile …
    static constexpr int kWarpTileN = DmmaPolicy::kTile / kWarpsN; ///< … and columns
    static constexpr int kMTiles = kWarpTileM / 16; ///< m16n8k8 tiles down a warp's block
    static constexpr int kNTiles = kWarpTileN / 8; ///< … and across it
    /// The thread's first row of the tile in its accumulators (then + 8, + 16, …) …
    __device__ static int firstRow() { return (threadIdx.x / 32 / kWarpsN) * kWarpTileM + (threadIdx.x & 31) / 4; }
    /// … and its first column (then + 1, + 8, + 9, …, + 25): recomputed where needed, not kept through the stages.
    __device__ static int firstColumn() { return (threadIdx.x / 32 % kWarpsN) * kWarpTileN + 2 * (threadIdx.x & 3); }
};

/// The warps of the dmmaPairsKernel instance kHalfLast = halfLast.
template <bool kHalfLast> using DmmaWarpsFor = DmmaWarps<DmmaPolicy::warpsDown(kHalfLast)>;

/// Samples in a row of the centred logs the tensor-core kernels read (the feature-major copy, W's, and a fragment-order
/// copy's run of blocks for 16 features): N rounded up to whole stages, padded with zeros.
std::uint64_t dmmaStride(std::uint64_t n)
{
    return (n + DmmaPolicy::kDepth - 1) / DmmaPolicy::kDepth * DmmaPolicy::kDepth;
}

/// Rows of that matrix: p rounded up to whole tiles, the rows beyond p zero, so a tile's copies need no bounds.
std::uint64_t dmmaFeatureRows(std::uint64_t p)
{
    return (p + DmmaPolicy::kTile - 1) / DmmaPolicy::kTile * DmmaPolicy::kTile;
}

/// The order the tensor-core kernels take their tiles in (triangleAtGrouped): tile rows of `tile` features, in groups
/// of kFeatures features. While the two copies a tile reads (`copyBytes` together) fit in half of L2, row by row: every
/// panel stays in L2 anyway. Past that, a column's panel would come from memory again for every tile row; in groups it
/// comes once a group and serves the group's tiles at once. H200 (A/B in one session): 200 × 30,000 (copies 100 MB)
/// 3.99 → 3.73 ms (groups of 1,024 features 3.84; L2 hit rate 70 → 91 %, the SM clock under load 1.76 → 1.86 GHz);
/// weighted, 31.2 → 29.3 ms. At 80 × 10,000 (12.8 MB) groups were 2–5 % slower than rows. The `group_rows` parameter,
/// when not 0, sets the group instead.
struct TileOrder {
    static constexpr std::uint64_t kFeatures = 2048;
    static unsigned groupRows(std::int64_t forced, std::uint64_t copyBytes, std::uint64_t tile)
    {
        if (forced > 0)
            return static_cast<unsigned>(forced);
        int device = 0, l2 = 0;
        KS_CUDA_CHECK(cudaGetDevice(&device));
        KS_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
        return 2 * copyBytes <= static_cast<std::uint64_t>(l2) ? 1u : static_cast<unsigned>(kFeatures / tile);
    }
};

/// One stage of samples for a 64×64 tile: both sides in FragmentOrder's blocks, [16-feature group][step], the i side
/// from the A copy and the j side from the B (column) copy. Lane (g, q)'s two 16-byte loads of a block are, on the
/// i side, the m16n8k8 A fragment of its 16 features and, on the j side, the B fragments of two n8 tiles (features
/// 0–7, then 8–15). The registers come out of the loads in the mma's order (no moves), a warp's load is 512
/// contiguous bytes, and a stage of either side is a thread's 16 bytes of each group.
struct DmmaStage {
    static constexpr int kGroups = DmmaPolicy::kTile / FragmentOrder::kFeatures;
    static constexpr int kBlock = FragmentOrder::kFeatures * FragmentOrder::kSamples;
    double a[kGroups][DmmaPolicy::kSteps][kBlock];
    double b[kGroups][DmmaPolicy::kSteps][kBlock];
};

/// The block's shared memory: the sample stages while g accumulates, then the finished 64×64 tile of lrv values.
/// Aligned to 128 bytes, whatever else the kernel keeps in shared memory: in a build that declared a 4-byte variable
/// first, the stages started 16 bytes off, and the warps' 512-byte copies into them reached L2 as three times the
/// requests and twice the sectors (H200, 80 × 10,000: 65 M against 30 M sectors read; 0.292 against 0.217 ms).
union alignas(128) DmmaShared {
    DmmaStage stages[2];
    double tile[DmmaPolicy::kTile][DmmaPolicy::kOutStride];
};

/// Starts an asynchronous 16-byte copy global → shared; sm_80 and up, like the mma.
__device__ __forceinline__ void copyAsync16(double* dst, const double* src)
{
#if __CUDA_ARCH__ >= 800
    const auto address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(src));
#else
    __trap();
#endif
}

__device__ __forceinline__ void commitCopies()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most `Pending` committed groups of copies are still in flight.
template <int Pending> __device__ __forceinline__ void waitCopies()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

/// One thread's share of filling a stage: samples [k0, k0 + kDepth) of `Arrays` blocks of Tile features, block a
/// from the feature-major matrix matrices[a] (rows `stride` apart, zero beyond N) starting at feature first[a]. The
/// matrices have whole 64-feature tiles of rows (dmmaFeatureRows, zero beyond p), so every copy is valid. Eight
/// threads copy a feature's 128 bytes, 16 bytes each; the thread keeps its sources for the whole tile, so a stage
/// costs it only the copies.
template <int Arrays, int Tile, int Threads> class StageCopies {
public:
    static constexpr int kPerRow = DmmaPolicy::kDepth / 2; ///< 16-byte copies per feature and stage
    static constexpr int kFeatureStep = Threads / kPerRow; ///< features one pass of the block covers
    static constexpr int kPasses = Tile / kFeatureStep;
    using Stage = double[Arrays][DmmaPolicy::kSteps][Tile][DmmaPolicy::kStep];

    __device__ StageCopies(
        const double* const (&matrices)[Arrays], const std::uint64_t (&first)[Arrays], std::uint64_t stride)
        : m_passStride(kFeatureStep * stride)
    {
        const int c = threadIdx.x % kPerRow;
        const int t = threadIdx.x / kPerRow;
        for (int a = 0; a < Arrays; ++a)
            m_source[a] = matrices[a] + (first[a] + t) * stride + 2 * c;
        m_target = (c / (DmmaPolicy::kStep / 2)) * Tile * DmmaPolicy::kStep + t * DmmaPolicy::kStep
            + 2 * (c % (DmmaPolicy::kStep / 2));
    }

    /// Starts the copies; the caller commits them.
    __device__ void issue(std::uint64_t k0, Stage& stage) const
    {
#pragma unroll
        for (int a = 0; a < Arrays; ++a)
#pragma unroll
            for (int m = 0; m < kPasses; ++m)
                copyAsync16(&stage[a][0][0][0] + m_target + m * kFeatureStep * DmmaPolicy::kStep,
                    m_source[a] + m * m_passStride + k0);
    }

private:
    const double* m_source[Arrays];
    std::uint64_t m_passStride;
    int m_target;
};

/// forEachStage's start when there is nothing to start.
struct NoStart {
    __device__ void operator()() const { }
};

/// Runs consume(stage, steps) over the stages of samples [0, stride) in order, double-buffered: stage s + 1's copies
/// fly while the tensor cores work on stage s. One barrier a stage: once stage s has landed for every thread, every
/// thread is also done with stage s − 1, whose buffer then takes stage s + 1. Ends with a barrier, so the caller
/// may reuse the buffers' memory. `steps` is the stage's k8 steps to compute: kSteps, and `lastSteps` in the last
/// stage (lastStageSteps). start() runs once, after the first stage has landed (with whatever the caller copied
/// before it) and before its first consume.
template <class Copies, class Stage, class Start, class Consume>
__device__ void forEachStage(
    const Copies& copies, std::uint64_t stride, int lastSteps, Stage (&buffers)[2], Start&& start, Consume&& consume)
{
    const std::uint64_t stages = stride / DmmaPolicy::kDepth;
    copies.issue(0, buffers[0]);
    commitCopies();
    for (std::uint64_t s = 0; s < stages; ++s) {
        waitCopies<0>();
        __syncthreads();
        if (s + 1 < stages) {
            copies.issue((s + 1) * DmmaPolicy::kDepth, buffers[(s + 1) & 1]);
            commitCopies();
        }
        if (s == 0)
            start();
        consume(buffers[s & 1], s + 1 < stages ? int(DmmaPolicy::kSteps) : lastSteps);
    }
    __syncthreads();
}

/// The k8 steps of the last stage that hold any of the N samples: 1 when the stride's last kStep samples are padding
/// (zeros, whose mma would add nothing; N mod kDepth in (0, kStep], e.g. 200 samples: 25 steps of 26), else kSteps.
__host__ __device__ constexpr int lastStageSteps(std::uint64_t samples, std::uint64_t stride)
{
    static_assert(DmmaPolicy::kSteps == 2, "a last stage is whole or one step");
    return samples + DmmaPolicy::kStep <= stride ? 1 : DmmaPolicy::kSteps;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 900 // Hopper uses the m16n8k8 instruction below
/// d += a·b for one m8n8k4 FP64 tensor-core tile (compute capability 8.0 and up): A 8×4 row-major (lane: row
/// lane/4, column lane%4), B 4×8 column-major (lane: row lane%4, column lane/4), D 8×8 (lane: row lane/4, columns
/// 2·(lane%4) + {0, 1}).
__device__ __forceinline__ void dmma884(double& d0, double& d1, double a, double b)
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
        : "+d"(d0), "+d"(d1)
        : "d"(a), "d"(b));
#else
    __trap(); // prepare refuses devices without FP64 tensor cores
#endif
}
#endif

/// d += a·b for a 16×8 tile over 8 samples. With g = lane/4 and q = lane%4: a = A(g, q), A(g+8, q), A(g, q+4),
/// A(g+8, q+4); b = B(q, g), B(q+4, g); d = D(g, 2q…2q+1), D(g+8, 2q…2q+1). Hopper has the shape as one
/// instruction (cuBLAS's DGEMM uses it); Ampere and Ada run it as four m8n8k4, whose fragments are the same.
__device__ __forceinline__ void dmma1688(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    dmma884(d[0], d[1], a[0], b[0]);
    dmma884(d[0], d[1], a[2], b[1]);
    dmma884(d[2], d[3], a[1], b[0]);
    dmma884(d[2], d[3], a[3], b[1]);
#endif
}

/// d += a·b for a 16×8 tile over 16 samples: dmma1688 over the first eight (a[0…3], b[0…1]) and then the next eight
/// (a[4…7], b[2…3]), each half's k slots as there (the PTX ISA's m16n8k16 f64 fragments: a_e at row g + 8·(e mod 2),
/// column q + 4·⌊e/2⌋; b_e at row q + 4·e). Hopper has it as one instruction; elsewhere it is the two halves.
__device__ __forceinline__ void dmma16816(double (&d)[4], const double (&a)[8], const double (&b)[4])
{
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
        "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#else
    const double aLow[4] = {a[0], a[1], a[2], a[3]}, aHigh[4] = {a[4], a[5], a[6], a[7]};
    const double bLow[2] = {b[0], b[1]}, bHigh[2] = {b[2], b[3]};
    dmma1688(d, aLow, bLow);
    dmma1688(d, aHigh, bHigh);
#endif
}

/// A stage's copies for a 64×64 tile by Threads threads: the four FragmentOrder groups of each side (each stage two
/// contiguous 1 KiB blocks a group), a thread's 16 bytes of each (or of each half); the i side from the A copy, the
/// j side from the column copy.
template <int Threads> class DmmaCopies {
    /// 16-byte copies a thread makes of each group's stage, per side
    static constexpr int kCopies = DmmaPolicy::kSteps * DmmaStage::kBlock / (2 * Threads);

public:
    __device__ DmmaCopies(
        const double* fragments, const double* columns, std::uint64_t stride, std::uint64_t i0, std::uint64_t j0)
        : m_a(fragments + FragmentOrder::blockStart(i0, 0, stride) + 2 * threadIdx.x)
        , m_b(columns + FragmentOrder::blockStart(j0, 0, stride) + 2 * threadIdx.x)
        , m_groupStride(FragmentOrder::blockStart(FragmentOrder::kFeatures, 0, stride))
    {
        static_assert(kCopies * 2 * Threads == DmmaPolicy::kSteps * DmmaStage::kBlock);
    }
    __device__ void issue(std::uint64_t k0, DmmaStage& stage) const
    {
        const std::uint64_t offset = k0 / FragmentOrder::kSamples * DmmaStage::kBlock; // the stage's first block
#pragma unroll
        for (int g = 0; g < DmmaStage::kGroups; ++g)
#pragma unroll
            for (int h = 0; h < kCopies; ++h) {
                const int slot = 2 * Threads * h;
                copyAsync16(&stage.a[g][0][0] + 2 * threadIdx.x + slot, m_a + g * m_groupStride + offset + slot);
                copyAsync16(&stage.b[g][0][0] + 2 * threadIdx.x + slot, m_b + g * m_groupStride + offset + slot);
            }
    }

private:
    const double* m_a;
    const double* m_b;
    std::uint64_t m_groupStride;
};

/// A lane's two 16-byte loads of a staged FragmentOrder block: slots 2·lane, 2·lane + 1 and 64 + 2·lane, 65 + 2·lane.
struct BlockPair {
    double2 low;
    double2 high;
};
__device__ __forceinline__ BlockPair loadBlockPair(const double (&block)[DmmaStage::kBlock], int lane)
{
    return {*reinterpret_cast<const double2*>(&block[2 * lane]),
        *reinterpret_cast<const double2*>(&block[DmmaStage::kBlock / 2 + 2 * lane])};
}

/// A lane's fragments of k8 step `step` of a stage for this warp's block (Warps; its first m16 group wg, its first
/// 16-feature group of the j side wn): the i side's m16 tiles into a[u][aAt…aAt + 3], the j side's n8 tiles into
/// b[v][bAt…bAt + 1] (m16n8k8's fragments, or one half of m16n8k16's).
template <class Warps, int AWidth, int BWidth>
__device__ __forceinline__ void loadStepFragments(const DmmaStage& stage, int step, int wg, int wn, int lane,
    double (&a)[Warps::kMTiles][AWidth], double (&b)[Warps::kNTiles][BWidth], int aAt, int bAt)
{
#pragma unroll
    for (int u = 0; u < Warps::kMTiles; ++u) {
        const BlockPair pair = loadBlockPair(stage.a[wg + u][step], lane);
        a[u][aAt + 0] = pair.low.x;
        a[u][aAt + 1] = pair.low.y;
        a[u][aAt + 2] = pair.high.x;
        a[u][aAt + 3] = pair.high.y;
    }
#pragma unroll
    for (int w = 0; w < Warps::kNTiles / 2; ++w) {
        const BlockPair pair = loadBlockPair(stage.b[wn + w][step], lane);
        b[2 * w][bAt + 0] = pair.low.x;
        b[2 * w][bAt + 1] = pair.low.y;
        b[2 * w + 1][bAt + 0] = pair.high.x;
        b[2 * w + 1][bAt + 1] = pair.high.y;
    }
}

/// Adds this warp's block (Warps) of the product of the A and column copies for tile (i0, j0) to `acc`, set before
/// the call or by start() once the first stage has landed (forEachStage). The k slots q and q+4 of an mma carry a
/// lane's samples 2q and 2q+1 of the step — the same permutation for A and B, so the sum over samples is unchanged.
/// The last stage computes `lastSteps` steps. kPairedSteps (DmmaPolicy::pairsSteps): every stage is whole, and its two
/// steps go to the tensor cores as one m16n8k16 a pair of tiles.
template <class Warps, bool kPairedSteps, class Start>
__device__ void gramTile(const double* __restrict__ fragments, const double* __restrict__ columns, std::uint64_t stride,
    int lastSteps, std::uint64_t i0, std::uint64_t j0, double (&acc)[Warps::kMTiles][Warps::kNTiles][4],
    DmmaShared& shared, Start&& start)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wg = (warp / Warps::kWarpsN) * Warps::kMTiles; // the warp's first m16 group
    const int wn = (warp % Warps::kWarpsN) * (Warps::kWarpTileN / FragmentOrder::kFeatures); // … j side
    const DmmaCopies<Warps::kThreads> copies(fragments, columns, stride, i0, j0);
    forEachStage(copies, stride, lastSteps, shared.stages, start, [&](const DmmaStage& stage, int steps) {
        if constexpr (kPairedSteps) {
            static_assert(DmmaPolicy::kSteps == 2, "a stage is one m16n8k16");
            double a[Warps::kMTiles][8], b[Warps::kNTiles][4];
#pragma unroll
            for (int step = 0; step < DmmaPolicy::kSteps; ++step)
                loadStepFragments<Warps>(stage, step, wg, wn, lane, a, b, 4 * step, 2 * step);
#pragma unroll
            for (int u = 0; u < Warps::kMTiles; ++u)
#pragma unroll
                for (int v = 0; v < Warps::kNTiles; ++v)
                    dmma16816(acc[u][v], a[u], b[v]);
        } else {
#pragma unroll
            for (int step = 0; step < DmmaPolicy::kSteps; ++step) {
                if (step > 0 && step >= steps)
                    break;
                double a[Warps::kMTiles][4], b[Warps::kNTiles][2];
                loadStepFragments<Warps>(stage, step, wg, wn, lane, a, b, 0, 0);
#pragma unroll
                for (int u = 0; u < Warps::kMTiles; ++u)
#pragma unroll
                    for (int v = 0; v < Warps::kNTiles; ++v)
                        dmma1688(acc[u][v], a[u], b[v]);
            }
        }
    });
}

/// acc = s_i + s_j (both already over N − 1) for this thread's pairs, the tile's s_i at rowSums and s_j at
/// columnSums in global memory: all of the thread's loads first, then the adds (ptxas may place them among the first
/// stage's copies).
template <class Warps>
__device__ __forceinline__ void startFromLoads(double (&acc)[Warps::kMTiles][Warps::kNTiles][4],
    const double* __restrict__ rowSums, const double* __restrict__ columnSums)
{
    const int li = Warps::firstRow();
    const int lj = Warps::firstColumn();
    double si[Warps::kMTiles][2], sj[Warps::kNTiles][2];
#pragma unroll
    for (int u = 0; u < Warps::kMTiles; ++u)
#pragma unroll
        for (int half = 0; half < 2; ++half)
            si[u][half] = __ldcg(rowSums + li + 16 * u + 8 * half);
#pragma unroll
    for (int v = 0; v < Warps::kNTiles; ++v)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            sj[v][h] = __ldcg(columnSums + lj + 8 * v + h);
#pragma unroll
    for (int u = 0; u < Warps::kMTiles; ++u)
#pragma unroll
        for (int half = 0; half < 2; ++half)
#pragma unroll
            for (int v = 0; v < Warps::kNTiles; ++v)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    acc[u][v][2 * half + h] = si[u][half] + sj[v][h];
}

/// The same from the shared copy of the sums ([0] the rows', [1] the columns'), once it has landed.
template <class Warps>
__device__ __forceinline__ void startFromShared(
    double (&acc)[Warps::kMTiles][Warps::kNTiles][4], const double (&sums)[2][DmmaPolicy::kTile])
{
    const int li = Warps::firstRow();
    const int lj = Warps::firstColumn();
#pragma unroll
    for (int u = 0; u < Warps::kMTiles; ++u)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const double si = sums[0][li + 16 * u + 8 * half];
#pragma unroll
            for (int v = 0; v < Warps::kNTiles; ++v)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    acc[u][v][2 * half + h] = si + sums[1][lj + 8 * v + h];
        }
}

/// Adds pair (i, j) to the refinement's worklist (counted even when the list is full: the fallback then runs).
__device__ __forceinline__ void listPair(
    std::uint64_t i, std::uint64_t j, std::uint64_t* worklist, unsigned int* worklistCount, unsigned int capacity)
{
    const unsigned slot = atomicAdd(worklistCount, 1u);
    if (slot < capacity)
        worklist[slot] = pairIndex(i, j);
}

/// Stores a finished Tile × Tile block of lrv values from shared memory, a warp a row: the pairs j < i of rows
/// [rowBegin, rowEnd) below p. A row's pairs are contiguous in propr's order, so a whole row whose first pair is
/// 16-byte aligned goes out in 16-byte stores, two pairs a lane; any other row, a pair a lane. kWhole: the tile lies
/// below the diagonal with all its rows below p and in [rowBegin, rowEnd), so every row is whole. The stores are
/// marked streaming (evict first): the output is never reread here, and leaves L2 to the centred copies the tiles
/// reread (H200: 0.222 → 0.216 ms at 80 × 10,000, 4.01 → 3.97 ms at 200 × 30,000). Each warp takes a run of
/// consecutive rows: row i's first pair is 16-byte aligned when i mod 4 is 0 or 1, so with rows dealt round-robin
/// (w, w + 4, …) two of four warps would store every unaligned row, with twice the instructions, and the block would
/// wait for them. kUnroll: the row loop unrolled that many times, or (0) as the compiler chooses.
template <int Tile, int Stride, int Threads, bool kWhole = false, int kUnroll = 0>
__device__ void storeTile(const double (&tile)[Tile][Stride], std::uint64_t i0, std::uint64_t j0, std::uint64_t p,
    std::uint64_t rowBegin, std::uint64_t rowEnd, double* __restrict__ out)
{
    constexpr int kWarps = Threads / 32;
    const int lane = threadIdx.x & 31;
    const int first = kWhole ? 0 : static_cast<int>(max(i0, rowBegin) - i0);
    const int last = kWhole ? Tile : static_cast<int>(min(i0 + Tile, min(p, rowEnd)) - i0);
    const int rows = (last - first + kWarps - 1) / kWarps;
    int r = first + static_cast<int>(threadIdx.x / 32) * rows;
    const int end = min(r + rows, last);
    std::uint64_t offset = pairIndex(i0 + r, j0) - rowStart(rowBegin);
    // The same loop twice, so that each instance gets exactly the code measured: with the body written once, as a
    // lambda or as an inlined function, the compiler's output differed from both (PTX compared).
    if constexpr (kUnroll > 0) {
#pragma unroll kUnroll
        for (; r < end; ++r) {
            const std::uint64_t i = i0 + r;
            double* row = out + offset;
            offset += i; // row i + 1's pairs start i later
            const int count = kWhole ? Tile : static_cast<int>(min(static_cast<std::uint64_t>(Tile), i - j0));
            if (count == Tile && reinterpret_cast<std::uintptr_t>(row) % sizeof(double2) == 0) {
                for (int c = lane; c < Tile / 2; c += 32)
                    __stcs(reinterpret_cast<double2*>(row) + c, make_double2(tile[r][2 * c], tile[r][2 * c + 1]));
            } else {
                for (int c = lane; c < count; c += 32)
                    __stcs(row + c, tile[r][c]);
            }
        }
    } else {
        for (; r < end; ++r) {
            const std::uint64_t i = i0 + r;
            double* row = out + offset;
            offset += i; // row i + 1's pairs start i later
            const int count = kWhole ? Tile : static_cast<int>(min(static_cast<std::uint64_t>(Tile), i - j0));
            if (count == Tile && reinterpret_cast<std::uintptr_t>(row) % sizeof(double2) == 0) {
                for (int c = lane; c < Tile / 2; c += 32)
                    __stcs(reinterpret_cast<double2*>(row) + c, make_double2(tile[r][2 * c], tile[r][2 * c + 1]));
            } else {
                for (int c = lane; c < count; c += 32)
                    __stcs(row + c, tile[r][c]);
            }
        }
    }
}

/// Tile (r, c) of a chunk's tile `tile`: the chunk's tile rows (tilesForRows') in TileOrder's groups of groupRows, each
/// swept column by column. One thread finds it and shares it through the kernel's `at`: the mapping's registers, live
/// in every thread, made dmmaPairsKernel spill 56 bytes (5.7 M local requests at 200 × 30,000). Ends with a barrier.
/// (The array is the kernel's: a __shared__ array declared in here made the kernel 46 % slower at 200 × 30,000.)
__device__ __forceinline__ void groupedTileAt(std::uint32_t tile, std::uint64_t rowBegin, std::uint64_t rowEnd,
    unsigned tileSize, unsigned groupRows, std::uint32_t (&at)[2], std::uint64_t& r, std::uint64_t& c)
{
    if (threadIdx.x == 0) {
        triangleAtGrouped(tile, static_cast<std::uint32_t>(rowBegin / tileSize),
            static_cast<std::uint32_t>((rowEnd + tileSize - 1) / tileSize), groupRows, r, c);
        at[0] = static_cast<std::uint32_t>(r);
        at[1] = static_cast<std::uint32_t>(c);
    }
    __syncthreads();
    r = at[0];
    c = at[1];
}

/// kGrouped: the tiles in TileOrder's groups of groupRows tile rows (else row by row, and groupRows unread; a template
/// argument, since the row-by-row kernel compiled with the grouped code beside it ran 2 % slower at 80 × 10,000).
/// kHalfLast: the last stage is one k8 step (lastStageSteps; its own instance, as a runtime step count cost 1.5 % at
/// 80 × 10,000, where every stage is whole).
template <bool kGrouped, bool kHalfLast>
__global__ void __launch_bounds__(DmmaWarpsFor<kHalfLast>::kThreads, DmmaPolicy::blocksPerSm(kHalfLast))
    dmmaPairsKernel(const double* __restrict__ fragments, const double* __restrict__ columns, std::uint64_t stride,
        const double* __restrict__ sumSquares, std::uint64_t p, std::uint64_t firstTile, std::uint64_t rowBegin,
        std::uint64_t rowEnd, unsigned groupRows, double* __restrict__ out, int shift, std::uint64_t* worklist,
        unsigned int* worklistCount, unsigned int capacity)
{
    constexpr int kTile = DmmaPolicy::kTile;
    using Warps = DmmaWarpsFor<kHalfLast>;
    std::uint64_t r = 0, c = 0;
    const auto tile = static_cast<std::uint32_t>(firstTile + blockIdx.x); // computeChunk: tiles below 2^32
    if constexpr (kGrouped) {
        __shared__ std::uint32_t at[2];
        groupedTileAt(tile, rowBegin, rowEnd, kTile, groupRows, at, r, c);
    } else {
        triangleAtSmall(tile, r, c);
    }
    const std::uint64_t i0 = r * kTile;
    const std::uint64_t j0 = c * kTile;
    device::allowEarlyLaunch(); // the refinement waits for this kernel's end
    device::waitForPrerequisites(); // launched early: the centred copies are ready from here
    __shared__ DmmaShared shared;
    // s_i/(N − 1) of the tile's rows and s_j/(N − 1) of its columns (sumSquares has whole tiles, zero beyond p, scaled
    // by the centring: FragmentScales), copied with the first stage.
    __shared__ alignas(16) double sums[2][kTile];
    if (threadIdx.x < kTile) {
        const int side = threadIdx.x / (kTile / 2);
        const int e = 2 * (threadIdx.x % (kTile / 2));
        copyAsync16(&sums[side][e], sumSquares + (side == 0 ? i0 : j0) + e);
    }
    // lrv = (s_i + s_j)/(N − 1) − 2·g/(N − 1): the accumulators start at the first part, and the A copy comes scaled
    // by −2/(N − 1), so the mma adds the second and leaves the lrv itself — no FP64 arithmetic after the last mma,
    // where the epilogue's two fma a pair, on the pipe the mma shares, had held up the tile (H200: 6 % at 80 × 10,000
    // with the epilogue's arithmetic left out altogether).
    double acc[Warps::kMTiles][Warps::kNTiles][4];
    const int steps = kHalfLast ? 1 : DmmaPolicy::kSteps;
    if constexpr (DmmaPolicy::startsFromShared(kGrouped, kHalfLast)) {
        gramTile<Warps, DmmaPolicy::pairsSteps(kHalfLast)>(
            fragments, columns, stride, steps, i0, j0, acc, shared, [&] { startFromShared<Warps>(acc, sums); });
    } else {
        startFromLoads<Warps>(acc, sumSquares + i0, sumSquares + j0);
        gramTile<Warps, DmmaPolicy::pairsSteps(kHalfLast)>(
            fragments, columns, stride, steps, i0, j0, acc, shared, NoStart {});
    }

    // The accumulators into the shared tile; the test for cancelling pairs on the integer units, against the larger
    // of s_i and s_j (cancelsByPartsHighWords, as bounds worked out once a row and a column: cancelsByBounds) ...
    // Most tiles lie below the diagonal, whole and in this chunk's rows: their pairs need no bounds, and are listed
    // only once a thread has seen that one of its 32 cancels.
    const bool whole = i0 > j0 && i0 + kTile <= p && i0 >= rowBegin && i0 + kTile <= rowEnd;
    auto finish = [&](auto wholeTag) {
        constexpr bool kWhole = decltype(wholeTag)::value;
        const int li = Warps::firstRow();
        const int lj = Warps::firstColumn();
        int boundJ[Warps::kNTiles][2]; // the test's bounds from this thread's columns' s_j/(N − 1)
#pragma unroll
        for (int v = 0; v < Warps::kNTiles; ++v)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                boundJ[v][h] = cancellationBound(highWord(sums[1][lj + 8 * v + h]), shift);
        int threadBound = 0; // the largest of the thread's bounds (DmmaPolicy::boundsPerThread)
        constexpr bool kThreadBound = kWhole && DmmaPolicy::boundsPerThread(kGrouped);
        if constexpr (kThreadBound) {
#pragma unroll
            for (int v = 0; v < Warps::kNTiles; ++v)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    threadBound = max(threadBound, boundJ[v][h]);
#pragma unroll
            for (int r = 0; r < 2 * Warps::kMTiles; ++r)
                threadBound = max(threadBound, cancellationBound(highWord(sums[0][li + 8 * r]), shift));
        }
        bool anyCancels = false;
#pragma unroll
        for (int u = 0; u < Warps::kMTiles; ++u)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int row = li + 16 * u + 8 * half;
                const std::uint64_t i = i0 + row;
                const int boundI = cancellationBound(highWord(sums[0][row]), shift);
                const bool rowListed = kWhole || (i < p && i >= rowBegin && i < rowEnd);
#pragma unroll
                for (int v = 0; v < Warps::kNTiles; ++v) {
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const std::uint64_t j = j0 + lj + 8 * v + h;
                        if constexpr (kThreadBound)
                            anyCancels |= highWord(acc[u][v][2 * half + h]) < threadBound;
                        else if constexpr (kWhole)
                            anyCancels |= cancelsByBounds(acc[u][v][2 * half + h], boundI, boundJ[v][h]);
                        else if (rowListed && j < i && cancelsByBounds(acc[u][v][2 * half + h], boundI, boundJ[v][h]))
                            listPair(i, j, worklist, worklistCount, capacity);
                    }
                    *reinterpret_cast<double2*>(&shared.tile[row][lj + 8 * v])
                        = make_double2(acc[u][v][2 * half], acc[u][v][2 * half + 1]);
                }
            }
        if (kWhole && anyCancels) // rare: the thread's values again, from the tile it wrote
            for (int e = 0; e < Warps::kMTiles * 2 * Warps::kNTiles * 2; ++e) {
                const int h = e & 1;
                const int v = (e >> 1) % Warps::kNTiles;
                const int half = (e / (2 * Warps::kNTiles)) & 1;
                const int u = e / (4 * Warps::kNTiles);
                const int row = li + 16 * u + 8 * half;
                const int col = lj + 8 * v + h;
                if (cancelsByPartsHighWords(
                        shared.tile[row][col], highWord(sums[0][row]), highWord(sums[1][col]), shift))
                    listPair(i0 + row, j0 + col, worklist, worklistCount, capacity);
            }
        __syncthreads();
        // ... then stored a row at a time.
        storeTile<kTile, DmmaPolicy::kOutStride, Warps::kThreads, kWhole, DmmaPolicy::storeUnroll(kHalfLast)>(
            shared.tile, i0, j0, p, rowBegin, rowEnd, out);
    };
    if (whole)
        finish(std::true_type {});
    else
        finish(std::false_type {});
}

// The weighted expansion on the tensor cores. With w = W_i·W_j and x = c_i − c_j per sample, B = W∘C and Q = W∘C²,
// every sum of the weighted lrv is a product over the samples of two feature-major matrices:
//   Σw = W_iᵀW_j,  Σw² = (W∘W)_iᵀ(W∘W)_j,  Σw·x = B_iᵀW_j − W_iᵀB_j,  Σw·x² = Q_iᵀW_j + W_iᵀQ_j − 2·B_iᵀB_j,
// seven mma a k8 step into five accumulators (B, Q and W∘W formed from the C and W fragments in registers); then
// Σw(x − x̄)² = Σw·x² − (Σw·x)²/Σw. Five accumulators fit a warp's 16×16 pairs, so a block is 32×32 pairs.
struct WeightedDmmaPolicy {
    static constexpr int kTile = 32;
    static constexpr int kWarps = 4; ///< 2 × 2 warps of 16 × 16
    static constexpr int kThreads = 32 * kWarps;
    static constexpr int kBlocksPerSm = 3;
    static constexpr int kWarpTile = 16; ///< one m16 tile down a warp's block …
    static constexpr int kNTiles = kWarpTile / 8; ///< … and two n8 across
    static constexpr int kArrays = 4; ///< C_i, W_i, C_j, W_j
    static constexpr int kOutStride = kTile + 1;
};

/// Stages as DmmaShared's, for four arrays of 32 features; then the finished 32×32 tile. Aligned as DmmaShared is.
union alignas(128) WeightedDmmaShared {
    double stages[2][WeightedDmmaPolicy::kArrays][DmmaPolicy::kSteps][WeightedDmmaPolicy::kTile][DmmaPolicy::kStep];
    double tile[WeightedDmmaPolicy::kTile][WeightedDmmaPolicy::kOutStride];
};

/// The weighted sums of one warp's 16×16 pairs, each as m16n8k8 accumulators over its two n8 tiles.
struct WeightedSums {
    double weight[WeightedDmmaPolicy::kNTiles][4] = {}; ///< Σw
    double weight2[WeightedDmmaPolicy::kNTiles][4] = {}; ///< Σw²
    double sum[WeightedDmmaPolicy::kNTiles][4] = {}; ///< Σw·x
    double terms[WeightedDmmaPolicy::kNTiles][4] = {}; ///< Σw·(c_i² + c_j²)
    double cross[WeightedDmmaPolicy::kNTiles][4] = {}; ///< Σw·c_i·c_j
};

/// The weighted sums of this warp's 16×16 pairs of tile (i0, j0), the last stage `lastSteps` k8 steps (forEachStage).
__device__ void weightedGramTile(const double* __restrict__ transposed, const double* __restrict__ transposedWeights,
    std::uint64_t stride, int lastSteps, std::uint64_t i0, std::uint64_t j0, WeightedSums& sums,
    WeightedDmmaShared& shared)
{
    using Policy = WeightedDmmaPolicy;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wm = (warp >> 1) * Policy::kWarpTile;
    const int wn = (warp & 1) * Policy::kWarpTile;
    const int group = lane >> 2;
    const int quad = lane & 3;
    const StageCopies<Policy::kArrays, Policy::kTile, Policy::kThreads> copies(
        {transposed, transposedWeights, transposed, transposedWeights}, {i0, i0, j0, j0}, stride);
    forEachStage(copies, stride, lastSteps, shared.stages, NoStart {}, [&](const auto& stage, int steps) {
#pragma unroll
        for (int step = 0; step < DmmaPolicy::kSteps; ++step) {
            if (step > 0 && step >= steps)
                break;
            // A's fragments: W_i and then B_i, Q_i, W_i² from them and C_i.
            const double2 cTop = *reinterpret_cast<const double2*>(&stage[0][step][wm + group][2 * quad]);
            const double2 cBottom = *reinterpret_cast<const double2*>(&stage[0][step][wm + group + 8][2 * quad]);
            const double2 wTop = *reinterpret_cast<const double2*>(&stage[1][step][wm + group][2 * quad]);
            const double2 wBottom = *reinterpret_cast<const double2*>(&stage[1][step][wm + group + 8][2 * quad]);
            const double ca[4] = {cTop.x, cBottom.x, cTop.y, cBottom.y};
            const double wa[4] = {wTop.x, wBottom.x, wTop.y, wBottom.y};
            double ba[4], qa[4], w2a[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                ba[e] = wa[e] * ca[e];
                qa[e] = ba[e] * ca[e];
                w2a[e] = wa[e] * wa[e];
            }
#pragma unroll
            for (int v = 0; v < Policy::kNTiles; ++v) {
                const int col = wn + 8 * v + group;
                const double2 cCol = *reinterpret_cast<const double2*>(&stage[2][step][col][2 * quad]);
                const double2 wCol = *reinterpret_cast<const double2*>(&stage[3][step][col][2 * quad]);
                const double wb[2] = {wCol.x, wCol.y};
                const double bb[2] = {wCol.x * cCol.x, wCol.y * cCol.y};
                const double nb[2] = {-bb[0], -bb[1]};
                const double qb[2] = {bb[0] * cCol.x, bb[1] * cCol.y};
                const double w2b[2] = {wb[0] * wb[0], wb[1] * wb[1]};
                dmma1688(sums.weight[v], wa, wb);
                dmma1688(sums.weight2[v], w2a, w2b);
                dmma1688(sums.sum[v], ba, wb);
                dmma1688(sums.sum[v], wa, nb);
                dmma1688(sums.terms[v], qa, wb);
                dmma1688(sums.terms[v], wa, qb);
                dmma1688(sums.cross[v], ba, bb);
            }
        }
    });
}

__global__ void __launch_bounds__(WeightedDmmaPolicy::kThreads, WeightedDmmaPolicy::kBlocksPerSm)
    weightedDmmaPairsKernel(const double* __restrict__ transposed, const double* __restrict__ transposedWeights,
        std::uint64_t stride, int lastSteps, std::uint64_t p, std::uint64_t firstTile, std::uint64_t rowBegin,
        std::uint64_t rowEnd, unsigned groupRows, double* __restrict__ out, double tau, std::uint64_t* worklist,
        unsigned int* worklistCount, unsigned int capacity)
{
    using Policy = WeightedDmmaPolicy;
    std::uint64_t r = 0, c = 0;
    __shared__ std::uint32_t at[2];
    groupedTileAt(static_cast<std::uint32_t>(firstTile + blockIdx.x), rowBegin, rowEnd, Policy::kTile, groupRows, at, r,
        c); // computeChunk: tiles below 2^32
    const std::uint64_t i0 = r * Policy::kTile;
    const std::uint64_t j0 = c * Policy::kTile;
    device::allowEarlyLaunch(); // the refinement waits for this kernel's end
    device::waitForPrerequisites(); // launched early: the feature-major copies are ready from here
    __shared__ WeightedDmmaShared shared;
    WeightedSums sums;
    weightedGramTile(transposed, transposedWeights, stride, lastSteps, i0, j0, sums, shared);

    // Weighted lrv from the accumulators into the shared tile (flagging cancelling pairs on the way) ...
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int li = (warp >> 1) * Policy::kWarpTile + (lane >> 2);
    const int lj = (warp & 1) * Policy::kWarpTile + 2 * (lane & 3);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        const int row = li + 8 * half;
        const std::uint64_t i = i0 + row;
        const bool rowListed = i < p && i >= rowBegin && i < rowEnd;
#pragma unroll
        for (int v = 0; v < Policy::kNTiles; ++v)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int e = 2 * half + h;
                const int col = lj + 8 * v + h;
                const std::uint64_t j = j0 + col;
                const double weight = sums.weight[v][e];
                const double sum = sums.sum[v][e];
                const double terms = sums.terms[v][e];
                const double numerator = terms - 2.0 * sums.cross[v][e] - sum * sum / weight;
                shared.tile[row][col] = numerator * weight / (weight * weight - sums.weight2[v][e]);
                if (rowListed && j < i && !(numerator >= tau * terms)) // NaN-safe: listed too
                    listPair(i, j, worklist, worklistCount, capacity);
            }
    }
    __syncthreads();
    // ... then stored row by row.
    storeTile<Policy::kTile, Policy::kOutStride, Policy::kThreads>(shared.tile, i0, j0, p, rowBegin, rowEnd, out);
}

/// W feature-major: p rows of `stride` ≥ n values, the samples then zeros (centredFeaturesKernel's threads).
__global__ void __launch_bounds__(CentredLogsPolicy::kThreads) featureMajorKernel(const double* __restrict__ w,
    std::uint64_t n, std::uint64_t p, double* __restrict__ transposed, std::uint64_t stride)
{
    device::allowEarlyLaunch(); // the next kernel waits for this one's end before it reads anything
    constexpr int kFeatures = CentredLogsPolicy::kFeatures;
    __shared__ double block[kFeatures][kFeatures + 1];
    const int tx = threadIdx.x % kFeatures;
    const int ty = threadIdx.x / kFeatures;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * kFeatures;
    for (std::uint64_t k0 = 0; k0 < stride; k0 += kFeatures) {
#pragma unroll
        for (int r = 0; r < kFeatures / CentredLogsPolicy::kRows; ++r) {
            const std::uint64_t k = k0 + ty + r * CentredLogsPolicy::kRows;
            block[ty + r * CentredLogsPolicy::kRows][tx] = first + tx < p && k < n ? w[k * p + first + tx] : 0.0;
        }
        storeFeatureMajor(block, first, k0, p, transposed, stride, nullptr, nullptr, 1.0);
    }
}
} // namespace

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
    /// The grid's cap, in waves of kBlocksPerSm blocks a multiprocessor; beyond it, threads loop over more pairs.
    static constexpr int kWaves = 64;
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

/// x = log y, or y^alpha (times scale[i] when given), for every cell of an n × p table.
__global__ void transformKernel(const double* __restrict__ y, std::uint64_t cells, std::uint64_t p, double alpha,
    const double* __restrict__ scale, double* __restrict__ x)
{
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t c = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < cells; c += stride)
        x[c] = alpha == 0.0 ? log(y[c]) : pow(y[c], alpha) * (scale ? scale[c % p] : 1.0);
}

/// propr's other modes, a thread per pair: with kPairMeans the pair's scaling means of Yfull^a weighted by
/// Wfull_i·Wfull_j (a pass over the nf reference samples), then the weighted mean of the pair's differences and the
/// weighted squared deviations (two passes over the n samples; w ≡ 1 when !kWeighted). x is log y, y^a, or y^a
/// already scaled by 1/(m_i·a) (unweighted alpha); divisor is a² for weighted alpha, else 1.
template <bool kWeighted, bool kPairMeans>
__global__ void __launch_bounds__(ThreadPerPairPolicy::kThreads)
    modesPerPairKernel(const double* __restrict__ x, const double* __restrict__ w, const double* __restrict__ xFull,
        const double* __restrict__ wFull, std::uint64_t n, std::uint64_t nf, std::uint64_t p, double divisor,
        std::uint64_t pairBegin, std::uint64_t pairEnd, double* __restrict__ out)
{
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t q = pairBegin + static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < pairEnd;
         q += stride) {
        std::uint64_t i = 0, j = 0;
        pairAt(q, i, j);
        double si = 1.0, sj = 1.0;
        if (kPairMeans) {
            double weight = 0.0, sumI = 0.0, sumJ = 0.0;
            for (std::uint64_t k = 0; k < nf; ++k) {
                const double wk = wFull[k * p + i] * wFull[k * p + j];
                weight += wk;
                sumI = fma(wk, xFull[k * p + i], sumI);
                sumJ = fma(wk, xFull[k * p + j], sumJ);
            }
            si = weight / sumI;
            sj = weight / sumJ;
        }
        double weight = 0.0, weight2 = 0.0, sum = 0.0;
        for (std::uint64_t k = 0; k < n; ++k) {
            const double wk = kWeighted ? w[k * p + i] * w[k * p + j] : 1.0;
            weight += wk;
            weight2 = fma(wk, wk, weight2);
            sum = fma(wk, x[k * p + i] * si - x[k * p + j] * sj, sum);
        }
        const double mean = sum / weight;
        double squares = 0.0;
        for (std::uint64_t k = 0; k < n; ++k) {
            const double wk = kWeighted ? w[k * p + i] * w[k * p + j] : 1.0;
            const double e = x[k * p + i] * si - x[k * p + j] * sj - mean;
            squares = fma(wk * e, e, squares);
        }
        out[q - pairBegin] = squares * weight / ((weight * weight - weight2) * divisor);
    }
}

/// Device bytes thread_per_pair needs beside Y (and W) for its mode: x, and for weighted alpha Yfull^a and Wfull.
std::uint64_t threadPerPairBytes(const data::ExpressionTable& t, const ParamSet& params)
{
    const Mode mode = modeOf(t, params);
    if (!mode.weighted && !mode.transformed())
        return 0;
    const std::uint64_t full = mode.weighted && mode.transformed() ? 2 * t.fullValues().size() : 0;
    return (t.values.size() + full) * sizeof(double);
}

class ThreadPerPairRun final : public LrvDeviceRun {
public:
    ThreadPerPairRun(const data::ExpressionTable& table, const ParamSet& params)
        : LrvDeviceRun(table, params, threadPerPairBytes(table, params), 1, ModeSupport::All)
        , m_sms(device::multiprocessorCount())
    {
        if (!m_mode.weighted && !m_mode.transformed())
            return; // the log-ratio from Y directly
        // Allocated before the timed upload, which times copies only.
        m_x = device::DeviceBuffer<double>(m_n * m_p);
        if (m_mode.weighted && m_mode.transformed()) {
            m_xFull = device::DeviceBuffer<double>(table.fullValues().size());
            m_wFull = device::DeviceBuffer<double>(table.fullWeights().size());
            timedUpload([&] { m_wFull.uploadAsync(table.fullWeights(), stream()); });
        }
    }
    void beforeChunks() override
    {
        if (!m_mode.weighted && !m_mode.transformed())
            return;
        const double* scale = nullptr;
        if (!m_mode.weighted) { // unweighted alpha: x = y^a / (m_i·a), m_i over Yfull
            launchFeatureScales(fullValues(), m_table.fullSamples(), m_p, m_mode.alpha, m_scale.data(), stream());
            scale = m_scale.data();
        }
        launchTransform(m_y.data(), m_n * m_p, scale, m_x.data());
        if (m_xFull.size() != 0)
            launchTransform(fullValues(), m_xFull.size(), nullptr, m_xFull.data());
    }
    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        const std::uint64_t begin = rowStart(rowBegin);
        const std::uint64_t count = rowStart(rowEnd) - begin;
        if (count == 0)
            return;
        const unsigned blocks = device::blocksFor(count, ThreadPerPairPolicy::kThreads,
            static_cast<std::uint64_t>(m_sms) * ThreadPerPairPolicy::kBlocksPerSm * ThreadPerPairPolicy::kWaves);
        if (!m_mode.weighted && !m_mode.transformed()) {
            threadPerPairKernel<<<blocks, ThreadPerPairPolicy::kThreads, 0, stream()>>>(
                m_y.data(), m_n, m_p, begin, begin + count, out);
            KS_CUDA_CHECK_LAUNCH("threadPerPairKernel");
        } else if (!m_mode.weighted) {
            modesPerPairKernel<false, false><<<blocks, ThreadPerPairPolicy::kThreads, 0, stream()>>>(
                m_x.data(), nullptr, nullptr, nullptr, m_n, 0, m_p, 1.0, begin, begin + count, out);
            KS_CUDA_CHECK_LAUNCH("modesPerPairKernel<alpha>");
        } else if (!m_mode.transformed()) {
            modesPerPairKernel<true, false><<<blocks, ThreadPerPairPolicy::kThreads, 0, stream()>>>(
                m_x.data(), m_w.data(), nullptr, nullptr, m_n, 0, m_p, 1.0, begin, begin + count, out);
            KS_CUDA_CHECK_LAUNCH("modesPerPairKernel<weighted>");
        } else {
            modesPerPairKernel<true, true><<<blocks, ThreadPerPairPolicy::kThreads, 0, stream()>>>(m_x.data(),
                m_w.data(), m_xFull.data(), m_wFull.data(), m_n, m_table.fullSamples(), m_p,
                m_mode.alpha * m_mode.alpha, begin, begin + count, out);
            KS_CUDA_CHECK_LAUNCH("modesPerPairKernel<weighted alpha>");
        }
    }

private:
    void launchTransform(const double* y, std::uint64_t cells, const double* scale, double* x)
    {
        const unsigned blocks = device::blocksFor(cells, ThreadPerPairPolicy::kThreads,
            static_cast<std::uint64_t>(m_sms) * ThreadPerPairPolicy::kBlocksPerSm * ThreadPerPairPolicy::kWaves);
        transformKernel<<<blocks, ThreadPerPairPolicy::kThreads, 0, stream()>>>(y, cells, m_p, m_mode.alpha, scale, x);
        KS_CUDA_CHECK_LAUNCH("transformKernel");
    }

    int m_sms;
    device::DeviceBuffer<double> m_x; ///< log y, y^a, or y^a / (m_i·a)
    device::DeviceBuffer<double> m_xFull; ///< Yfull^a (weighted alpha)
    device::DeviceBuffer<double> m_wFull; ///< Wfull (weighted alpha)
};

// -----------------------------------------------------------------------------------------------------------
// logs_tiled: N·p logs once, centred per feature, then the register-tiled triangle.

class LogsTiledRun final : public LrvDeviceRun {
public:
    LogsTiledRun(const data::ExpressionTable& table, const ParamSet& params)
        : LrvDeviceRun(table, params, (table.samples + 1) * table.features * sizeof(double), TilePolicy::kTile,
            ModeSupport::Weighted)
        , m_centred(m_n * m_p)
        , m_sumSquares(m_p)
    {
    }
    void beforeChunks() override { launchCentred(m_centred.data(), m_sumSquares.data(), nullptr, 0); }
    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        if (m_mode.weighted)
            launchWeightedTiledPairs(m_centred.data(), m_w.data(), m_n, m_p, rowBegin, rowEnd, out, stream());
        else
            launchTiledPairs(m_centred.data(), m_n, m_p, rowBegin, rowEnd, out, stream());
    }

private:
    device::DeviceBuffer<double> m_centred;
    device::DeviceBuffer<double> m_sumSquares;
};

// -----------------------------------------------------------------------------------------------------------
// dmma_refined: centred logs, the tensor-core expansion written from registers, cancelling pairs recomputed; weighted
// lrv through the weighted expansion (32×32 tiles), W feature-major beside the centred logs.

/// Whether dmma_refined keeps the N × p copy of the centred logs: weighted (the refinement's fallback reads it), or as
/// the centring's scratch when it cannot leave it out.
bool dmmaKeepsSampleMajor(const data::ExpressionTable& t)
{
    return !t.weights.empty() || !centredCopyOptional(t.samples);
}

/// Device bytes dmma_refined needs beside Y (and W): the centred logs twice — feature-major and N × p, W
/// feature-major (weighted), or in the two fragment orders and, when dmmaKeepsSampleMajor, N × p (unweighted) — their
/// squares, and the refinement's worklist.
std::uint64_t dmmaRefinedBytes(const data::ExpressionTable& t)
{
    const std::uint64_t featureMajor = dmmaStride(t.samples) * dmmaFeatureRows(t.features);
    const std::uint64_t sampleMajor = dmmaKeepsSampleMajor(t) ? t.samples * t.features : 0;
    return (sampleMajor + dmmaFeatureRows(t.features) + 2 * featureMajor) * sizeof(double)
        + std::uint64_t {worklistCapacity(pairCount(t.features))} * sizeof(std::uint64_t);
}

class DmmaRefinedRun final : public LrvDeviceRun {
public:
    /// The flagged pairs' count summed over a multi-device run's devices, into flags[1] (see combineFlags).
    using FlagsCombiner = std::function<void(unsigned int* flags, cudaStream_t stream)>;

    DmmaRefinedRun(const data::ExpressionTable& table, const ParamSet& params, OutputShare share = {})
        : LrvDeviceRun(table, params, dmmaRefinedBytes(table), DmmaPolicy::kTile, ModeSupport::Weighted, share)
        , m_stride(dmmaStride(m_n))
        , m_centred(dmmaKeepsSampleMajor(table) ? m_n * m_p : 0)
        , m_transposed(m_mode.weighted ? m_stride * dmmaFeatureRows(m_p) : 0)
        , m_fragments(m_mode.weighted ? 0 : m_stride * dmmaFeatureRows(m_p))
        , m_columns(m_mode.weighted ? 0 : m_stride * dmmaFeatureRows(m_p))
        , m_transposedWeights(m_mode.weighted ? m_stride * dmmaFeatureRows(m_p) : 0)
        , m_sumSquares(dmmaFeatureRows(m_p))
        , m_capacity(worklistCapacity(m_pairs))
        , m_worklist(m_capacity)
        , m_flags(2)
        , m_tau(cancellationThreshold(m_n))
        , m_shift(cancellationShift(m_tau))
        , m_groupRows(
              TileOrder::groupRows(params.integer("group_rows"), 2 * m_stride * dmmaFeatureRows(m_p) * sizeof(double),
                  m_mode.weighted ? WeightedDmmaPolicy::kTile : DmmaPolicy::kTile))
    {
        int device = 0, major = 0;
        KS_CUDA_CHECK(cudaGetDevice(&device));
        KS_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 8)
            throw SkipRun("needs FP64 tensor cores (compute capability 8.0 or newer)");
        // Early launches need the kernels' waits, which exist only in code compiled for compute capability 9.0 (a
        // build without it runs on Hopper from older PTX, where they compile to nothing).
        cudaFuncAttributes compiled {};
        KS_CUDA_CHECK(cudaFuncGetAttributes(&compiled, dmmaPairsKernel<true, true>));
        m_early = major >= 9 && compiled.ptxVersion >= 90;
        // The rows beyond p stay zero: every run rewrites only the first p (the fragment copies' up to a multiple of
        // 16 or 32, with zeros).
        m_transposed.fillBytesAsync(0, stream());
        m_sumSquares.fillBytesAsync(0, stream());
        if (m_mode.weighted) {
            m_transposedWeights.fillBytesAsync(0, stream());
        } else {
            m_fragments.fillBytesAsync(0, stream());
            m_columns.fillBytesAsync(0, stream());
        }
    }
    void beforeChunks() override
    {
        // Unweighted, the fragment-order copies serve everything after: the tensor-core kernel, the listed pairs'
        // recomputation and the fallback's tiles. The centring zeroes the flags, so the tensor-core kernel follows
        // it directly and may be launched early.
        // The tensor-core kernel's A copy and sums come scaled (FragmentScales): its mma ends with the lrv itself.
        const double scale = 1.0 / static_cast<double>(m_n - 1);
        launchCentred(m_centred.data(), m_sumSquares.data(), m_transposed.data(), m_stride,
            m_mode.weighted ? nullptr : m_fragments.data(), m_mode.weighted ? nullptr : m_columns.data(),
            m_flags.data(), m_mode.weighted ? FragmentScales {} : FragmentScales {-2.0 * scale, scale});
        m_flagsZeroed = true;
        if (m_mode.weighted) {
            featureMajorKernel<<<device::blocksFor(m_p, CentredLogsPolicy::kFeatures), CentredLogsPolicy::kThreads, 0,
                stream()>>>(m_w.data(), m_n, m_p, m_transposedWeights.data(), m_stride);
            KS_CUDA_CHECK_LAUNCH("featureMajorKernel");
        }
    }
    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        const TileRange tiles
            = tilesForRows(rowBegin, rowEnd, m_mode.weighted ? WeightedDmmaPolicy::kTile : DmmaPolicy::kTile);
        // Plain copies: GCC warns about a launch argument taken from a struct member.
        const std::uint64_t firstTile = tiles.first;
        const unsigned blocks = tiles.count;
        // The first chunk's kernel follows the centring's kernels (which zeroed the flags) and may start early.
        const bool early = m_early && m_flagsZeroed;
        if (!m_flagsZeroed)
            m_flags.fillBytesAsync(0, stream());
        m_flagsZeroed = false;
        if (blocks == 0) {
            if (m_combineFlags) // a part with no rows still joins its devices' collective
                m_combineFlags(m_flags.data(), stream());
            return;
        }
        if (firstTile + blocks > 0xffffffffULL) // p beyond about 5.9 million: its output could not be stored anyway
            throw ComputeError("lrv: too many tiles for the tensor-core kernel's tile index");
        if (m_mode.weighted) {
            device::launchEarly(early, "launch of weightedDmmaPairsKernel", weightedDmmaPairsKernel, blocks,
                WeightedDmmaPolicy::kThreads, 0, stream(), m_transposed.data(), m_transposedWeights.data(), m_stride,
                lastStageSteps(m_n, m_stride), m_p, firstTile, rowBegin, rowEnd, m_groupRows, out, m_tau,
                m_worklist.data(), m_flags.data(), m_capacity);
        } else {
            const bool halfLast = lastStageSteps(m_n, m_stride) == 1;
            const auto kernel = m_groupRows > 1
                ? (halfLast ? dmmaPairsKernel<true, true> : dmmaPairsKernel<true, false>)
                : (halfLast ? dmmaPairsKernel<false, true> : dmmaPairsKernel<false, false>);
            const int threads = halfLast ? DmmaWarpsFor<true>::kThreads : DmmaWarpsFor<false>::kThreads;
            device::launchEarly(early, "launch of dmmaPairsKernel", kernel, blocks, threads, 0, stream(),
                m_fragments.data(), m_columns.data(), m_stride, m_sumSquares.data(), m_p, firstTile, rowBegin, rowEnd,
                m_groupRows, out, m_shift, m_worklist.data(), m_flags.data(), m_capacity);
        }
        if (m_combineFlags)
            m_combineFlags(m_flags.data(), stream());
        // After the tensor-core kernel itself (not a collective), the refinement may be launched early too.
        const bool refineEarly = m_early && !m_combineFlags;
        const unsigned int* decision = m_combineFlags ? m_flags.data() + 1 : nullptr;
        if (m_mode.weighted) {
            launchRefinement(m_transposed.data(), m_stride, m_centred.data(), m_n, m_p, rowBegin, rowEnd,
                m_worklist.data(), m_flags.data(), m_capacity, out, stream(), decision, m_transposedWeights.data(),
                m_w.data(), refineEarly);
        } else {
            const ColumnBlockRows rows {m_columns.data(), m_stride};
            launchRefineKernel<false>(rows, rows, rows, rows, m_n, m_p, rowBegin, rowEnd, m_worklist.data(),
                m_flags.data(), m_capacity, out, stream(), decision, refineEarly);
        }
    }
    /// A multi-device run whose parts are each one chunk decides the refinement's fallback on the flagged pairs of
    /// every device together, as the single-device run decides on the whole triangle: `combine` writes that sum
    /// to flags[1] (every part calls it once per repetition, so it may be a collective).
    void combineFlags(FlagsCombiner combine) { m_combineFlags = std::move(combine); }

private:
    std::uint64_t m_stride; ///< samples per row of the feature-major and fragment-order copies: N in whole stages
    device::DeviceBuffer<double> m_centred; ///< N × p (dmmaKeepsSampleMajor)
    device::DeviceBuffer<double> m_transposed; ///< feature-major (weighted lrv)
    device::DeviceBuffer<double> m_fragments; ///< the centred logs × −2/(N − 1) in FragmentOrder (unweighted): A's …
    device::DeviceBuffer<double> m_columns; ///< … and B's
    device::DeviceBuffer<double> m_transposedWeights; ///< W feature-major like m_transposed (weighted lrv)
    device::DeviceBuffer<double> m_sumSquares; ///< whole tiles of them, zero beyond p; over N − 1 when unweighted
    unsigned int m_capacity;
    device::DeviceBuffer<std::uint64_t> m_worklist;
    device::DeviceBuffer<unsigned int> m_flags; ///< [0] the pairs flagged here, [1] summed over a multi-device run
    double m_tau;
    int m_shift; ///< cancellationShift(m_tau), the unweighted kernel's form of the test
    unsigned m_groupRows; ///< TileOrder's group for this table on this device
    FlagsCombiner m_combineFlags;
    bool m_early = false; ///< kernels after the centring launched early (device::launchEarly): compute capability 9.0+
    bool m_flagsZeroed = false; ///< by the centring, for the chunk after it
};

// -----------------------------------------------------------------------------------------------------------
// dmma_refined_multi: dmma_refined over every device of the run. The triangle's rows are split in blocks of whole
// 64-row tiles, one block per device, of (nearly) equal pair counts; each device computes its block's pairs with the
// same kernels into its own output (on the device when it fits, else streamed to the host), and the refinement's
// fallback is decided on every device's flagged pairs together (one ncclAllReduce of a count), so every pair's bits
// equal dmma_refined's.

class DmmaMultiRun final : public device::MultiDeviceRun {
public:
    DmmaMultiRun(const data::ExpressionTable& table, const ParamSet& params, const RunContext& context)
        : MultiDeviceRun(context, "dmma_refined")
        , m_table(table)
        , m_params(params)
        , m_host(pairCount(table.features), std::nan(""))
    {
        const std::vector<std::uint64_t> bounds = equalWorkBounds(table.features, ranks(), DmmaPolicy::kTile,
            [](std::uint64_t rows) { return static_cast<double>(rowStart(rows)); });
        makeParts([&](int rank) {
            const OutputShare share {
                bounds[static_cast<std::size_t>(rank)], bounds[static_cast<std::size_t>(rank) + 1], m_host.data()};
            // A device with no rows (more devices than tiles) still takes part in the collectives: it computes an
            // empty range.
            return std::make_unique<DmmaRefinedRun>(table, params, share);
        });
        bool anyStreamed = false;
        for (int rank = 0; rank < ranks(); ++rank)
            anyStreamed = anyStreamed || partAs<DmmaRefinedRun>(rank).streamed();
        if (anyStreamed) {
            m_hostRegistered = cudaHostRegister(m_host.data(), m_host.size() * sizeof(double), cudaHostRegisterPortable)
                == cudaSuccess;
            if (!m_hostRegistered)
                cudaGetLastError();
        } else {
            for (int rank = 0; rank < ranks(); ++rank)
                partAs<DmmaRefinedRun>(rank).combineFlags([this, rank](unsigned int* flags, cudaStream_t s) {
                    KS_NCCL_CHECK(device::nccl().allReduce(
                        flags, flags + 1, 1, device::kNcclUint32, device::kNcclSum, comm(rank), s));
                });
        }
    }
    ~DmmaMultiRun() override
    {
        if (m_hostRegistered)
            cudaHostUnregister(m_host.data());
    }
    Result fetch() override
    {
        team().run([&](int rank) { partAs<DmmaRefinedRun>(rank).copyOut(m_host.data()); });
        return makeResult(m_host, m_table);
    }

private:
    std::unique_ptr<PreparedRun> solo() override { return std::make_unique<DmmaRefinedRun>(m_table, m_params); }

    const data::ExpressionTable& m_table;
    ParamSet m_params;
    std::vector<double> m_host; ///< the whole result: streamed parts write here during run(), the others in fetch()
    bool m_hostRegistered = false;
};

constexpr int kTableLogThreads = 256;

/// tableLogsOnDevice's kernel: each block makes the table as the centring does.
__global__ void __launch_bounds__(kTableLogThreads)
    tableLogKernel(const double* __restrict__ x, std::size_t count, double* __restrict__ out)
{
    __shared__ LogPiece pieces[table_log::kPieces];
    makeLogPieces<kTableLogThreads>(pieces);
    __syncthreads();
    for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[e] = tableLog(x[e], pieces);
}
} // namespace
} // namespace ks::lrv::gpu

namespace ks::lrv {

std::vector<double> tableLogsOnDevice(const std::vector<double>& x)
{
    if (device::cudaDevices().empty())
        return {};
    std::vector<double> logs(x.size());
    if (x.empty())
        return logs;
    device::DeviceBuffer<double> in(x.size());
    device::DeviceBuffer<double> out(x.size());
    in.uploadAsync(std::span<const double>(x), nullptr);
    gpu::tableLogKernel<<<device::blocksFor(x.size(), gpu::kTableLogThreads, 4096), gpu::kTableLogThreads>>>(
        in.data(), x.size(), out.data());
    KS_CUDA_CHECK_LAUNCH("tableLogKernel");
    out.downloadAsync(std::span<double>(logs), nullptr);
    KS_CUDA_CHECK(cudaDeviceSynchronize());
    return logs;
}

std::unique_ptr<PreparedRun> prepareBlockPerPair(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::BlockPerPairRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareThreadPerPair(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::ThreadPerPairRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareDmmaRefined(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::DmmaRefinedRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareDmmaRefinedMulti(const data::Dataset& d, const ParamSet& p, const RunContext& c)
{
    return std::make_unique<gpu::DmmaMultiRun>(d.as<data::ExpressionTable>(), p, c);
}

std::unique_ptr<PreparedRun> prepareLogsTiled(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::LogsTiledRun>(d, p);
}

} // namespace ks::lrv
