// Hand-written CUDA variants of spmv: the seed's scalar, vector and adaptive kernels, its row binning (strategy 2)
// and ELL (strategy 4); beyond the seed, sub-warp rows with a width chosen from the mean row length, and a
// merge-path load balance (Merrill & Garland 2016) that is indifferent to how the non-zeros are spread over rows.
#include "compute/device/launch.cuh"
#include "compute/workloads/spmv/auto_choice.h"
#include "compute/workloads/spmv/row_tiles.h"
#include "compute/workloads/spmv/spmv_device.cuh"
#include "compute/workloads/spmv/spmv_policy.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cuda/atomic>
#include <utility>

namespace ks::spmv::gpu {

namespace {

/// Sum over the lanes of a group of `Width` consecutive lanes; every lane of the warp must call it together.
template <int Width, class T> __device__ __forceinline__ T groupSum(T value)
{
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset >>= 1)
        value += __shfl_down_sync(device::kFullWarpMask, value, offset, Width);
    return value;
}

/// A load of A's values or column indices. Streaming: marked evict-first, so the stream of A, read once, does not
/// push x — read again by every row with a non-zero in that column — out of L2 (on the 4M uniform matrix in
/// float64: 0.72 → 0.61 ms for ell, 1.54 → 0.74 ms for merge_path; 0.28 → 0.20 ms for merge_path on the power-law
/// matrix). Not for a thread walking its own row (scalar), which rereads each fetched line over its next iterations
/// and needs it kept (the Laplacian: 0.11 against 0.18 ms).
template <bool Streaming = true, class T> __device__ __forceinline__ T loadOnce(const T* address)
{
    if constexpr (Streaming)
        return __ldcs(address);
    else
        return __ldg(address);
}

/// The gathers of partialRow, which the scalar, vector, sub-warp, adaptive and row-binning kernels share.
struct GatherPolicy {
    /// Non-zeros per batch: a lane's column indices and values are all requested before the gathers from x that
    /// need them, so each lane has several loads in flight instead of one chain of two dependent ones per non-zero.
    static constexpr int kBatch = 4;
};

/// Σ_k val[k]·x[col[k]] over k = begin + first, begin + first + step, … < end; Streaming as in loadOnce.
template <bool Streaming, class T>
__device__ __forceinline__ T partialRow(const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
    int begin, int end, int first, int step)
{
    constexpr int kBatch = GatherPolicy::kBatch;
    T sum = 0;
    int k = begin + first;
    for (; k + (kBatch - 1) * step < end; k += kBatch * step) {
        int c[kBatch];
        T v[kBatch];
#pragma unroll
        for (int i = 0; i < kBatch; ++i) {
            c[i] = loadOnce<Streaming>(col + k + i * step);
            v[i] = loadOnce<Streaming>(val + k + i * step);
        }
#pragma unroll
        for (int i = 0; i < kBatch; ++i)
            sum += v[i] * x[c[i]];
    }
    if (k + step < end) { // a pair left
        const int c0 = loadOnce<Streaming>(col + k);
        const int c1 = loadOnce<Streaming>(col + k + step);
        const T v0 = loadOnce<Streaming>(val + k);
        const T v1 = loadOnce<Streaming>(val + k + step);
        sum += v0 * x[c0];
        sum += v1 * x[c1];
        k += 2 * step;
    }
    if (k < end)
        sum += loadOnce<Streaming>(val + k) * x[loadOnce<Streaming>(col + k)];
    return sum;
}

// ---------------------------------------------------------------------------------------------------------------
// Long rows. A kernel that gives each row a fixed number of lanes keeps them busy for as long as its longest row:
// on the power-law matrix of 4M rows (exponent 2.2), sub-warp's 4 lanes on a 456,099-long row took 27.9 ms, 88×
// cuSPARSE. Rows longer than a kernel's limit are cut at prepare into chunks of kChunk (or kWideChunk) non-zeros, a
// block each, and the row kernels skip those rows. A second kernel adds each row's partial sums in chunk order, or,
// for row_tiles, the block that finishes a row last does (no atomic adds of values either way: the same sum every
// run), and row_tiles runs these blocks at the head of its own grid where x is one panel. Thresholds in
// spmv_policy.h.

struct LongRowPolicy : LongRowThresholds {
    static constexpr int kItems = 8; ///< non-zeros a thread loads, in either kind of chunk
    static constexpr int kThreads = kChunk / kItems; ///< a narrow chunk's block
    static constexpr int kWideThreads = kWideChunk / kItems; ///< a wide chunk's block
    static_assert(kChunk % kItems == 0 && kWideChunk % kItems == 0);
    static constexpr int kFinishThreads = 128; ///< longFinishKernel: a thread per chunk
    template <bool kWide> static constexpr int threads() { return kWide ? kWideThreads : kThreads; }
};

/// The longest row a kernel that gives each row `lanes` lanes keeps.
constexpr int longRowLimit(int lanes)
{
    return lanes * LongRowPolicy::kPerLane;
}

/// The long rows' device lists, as LongRows uploads them: the narrow chunks (kChunk non-zeros) first, then the wide
/// ones (kWideChunk), each with its row of A, its first non-zero, and the first and end chunk of its row; a partial sum
/// per chunk, and an arrival count per chunk of which a row uses its first's, zero between runs (the row's last block
/// puts it back).
template <class T> struct LongRowArgs {
    int narrowChunks = 0;
    int wideChunks = 0;
    const int* chunkRow = nullptr;
    const int* chunkBegin = nullptr;
    const int* rowFirst = nullptr;
    const int* rowEnd = nullptr;
    T* partial = nullptr;
    unsigned int* arrivals = nullptr;
};

/// Copies an int from global to shared memory, on sm_80 and up without passing through a register (cp.async), so
/// that nothing stays live across a thread's gathers; readable after waitSharedCopies() and a barrier.
__device__ __forceinline__ void copyToShared(int* shared, const int* global)
{
#if __CUDA_ARCH__ >= 800
    const auto address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(address), "l"(global) : "memory");
#else
    *shared = *global;
#endif
}

__device__ __forceinline__ void waitSharedCopies()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/// Block `block` of the long rows' narrow chunks (LongRowPolicy::kThreads threads) or, kWide, of their wide ones
/// (kWideThreads), all its threads calling. Each thread issues all its loads of columns and values before its
/// gathers (partialRow's batches of four in two rounds took 0.142 ms on 20,000 rows of 2,000 in float32 on an H100,
/// this 0.124). The chunk's sum goes to `partial` (longFinishKernel adds a row's sums) or, kArrive, the row is
/// finished here: a row of one chunk is stored at once, and the block that finishes a row's last chunk (the arrival
/// count) adds the row's sums in chunk order into y and zeroes the count.
template <class T, bool kWide, bool kArrive>
__device__ __forceinline__ void longRowsBlock(int block, const LongRowArgs<T>& args, const int* __restrict__ rowPtr,
    const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    using P = LongRowPolicy;
    constexpr int kThreads = P::threads<kWide>();
    constexpr int kLength = kThreads * P::kItems;
    __shared__ T warpSums[kThreads / 32];
    __shared__ int rowOf[3]; // kArrive: the chunk's row of A, its row's first and end chunk
    const int t = static_cast<int>(threadIdx.x);
    const int chunk = kWide ? args.narrowChunks + block : block;
    const int begin = args.chunkBegin[chunk];
    const int stop = begin + min(kLength, rowPtr[args.chunkRow[chunk] + 1] - begin); // no overflow near 2^31
    int c[P::kItems];
    T v[P::kItems];
#pragma unroll
    for (int i = 0; i < P::kItems; ++i) {
        const int k = begin + i * kThreads + t;
        c[i] = k < stop ? loadOnce(col + k) : 0;
        v[i] = k < stop ? loadOnce(val + k) : T(0);
    }
    if (kArrive && t == 0) { // what thread 0 needs after the barrier, not held in registers meanwhile
        copyToShared(&rowOf[0], args.chunkRow + chunk);
        copyToShared(&rowOf[1], args.rowFirst + chunk);
        copyToShared(&rowOf[2], args.rowEnd + chunk);
    }
    T sum = 0;
#pragma unroll
    for (int i = 0; i < P::kItems; ++i)
        sum += v[i] * x[c[i]];
    sum = groupSum<32>(sum);
    if (t % 32 == 0)
        warpSums[t / 32] = sum;
    if constexpr (kArrive)
        waitSharedCopies();
    __syncthreads();
    if (t != 0)
        return;
    T total = 0;
#pragma unroll
    for (int w = 0; w < kThreads / 32; ++w)
        total += warpSums[w];
    if constexpr (!kArrive) {
        args.partial[chunk] = total;
        return;
    }
    const int row = rowOf[0];
    const int first = rowOf[1];
    const int end = rowOf[2];
    if (end - first == 1) { // the row's only chunk
        y[row] = total;
        return;
    }
    args.partial[chunk] = total;
    // The arrival releases the sum to, and acquires the others' sums for, the block that arrives last.
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> arrivals(args.arrivals[first]);
    if (arrivals.fetch_add(1u, cuda::memory_order_acq_rel) != static_cast<unsigned>(end - first - 1))
        return;
    T rowSum = 0;
    for (int k = first; k < end; ++k)
        rowSum += __ldcg(args.partial + k); // from L2: other blocks wrote them
    y[row] = rowSum;
    arrivals.store(0u, cuda::memory_order_relaxed); // the run's end orders it before the next run
}

template <class T, bool kWide, bool kArrive>
__global__ void __launch_bounds__(LongRowPolicy::threads<kWide>())
    longRowsKernel(LongRowArgs<T> args, const int* __restrict__ rowPtr, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    longRowsBlock<T, kWide, kArrive>(static_cast<int>(blockIdx.x), args, rowPtr, col, val, x, y);
}

/// A thread per chunk: the first chunk of each row adds the row's partial sums in chunk order into y.
template <class T>
__global__ void __launch_bounds__(LongRowPolicy::kFinishThreads)
    longFinishKernel(int chunks, LongRowArgs<T> args, T* __restrict__ y)
{
    const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= chunks || args.rowFirst[c] != c)
        return;
    T sum = 0;
    for (int k = static_cast<int>(c); k < args.rowEnd[c]; ++k)
        sum += args.partial[k];
    y[args.chunkRow[c]] = sum;
}

/// The rows of A longer than a limit, cut into chunks: found at prepare (one pass, on the host), allocated and
/// uploaded with the variant's data, run beside its row kernel (or, args(), inside it).
template <class T> class LongRows {
public:
    LongRows() = default;
    /// Finds the rows longer than `limit`; allocate() and upload() then make their device lists. Rows of up to
    /// kWideChunk non-zeros go to narrow chunks, longer ones to wide chunks, and longFinishKernel adds the rows'
    /// partial sums after. `wideOnly`: every row in wide chunks, each row finished by its last block, in one launch
    /// (run()) or in the caller's grid (args()).
    LongRows(const data::CsrMatrix& a, int limit, bool wideOnly = false)
        : m_limit(limit)
        , m_wideOnly(wideOnly)
    {
        // The narrow rows' chunks first, then the wide rows': each row's chunks are consecutive. Where the last block
        // of a row adds its sums, a row of one chunk is stored at once; the power-law rows of exponent 2.2, with few
        // long rows of many chunks each, gain (row_tiles in float64 0.316 → 0.312 ms beside its two passes, H200),
        // but 20,000 rows of about 2,000, with 13 % of two chunks, lose 30 % (0.094 → 0.123 ms in float32) to the
        // arrivals of those rows' blocks, or 9 % (0.103) as one wide chunk each in a launch after the narrow ones.
        const int narrowMax = wideOnly ? limit : LongRowPolicy::kWideChunk;
        for (const bool wide : {false, true}) {
            const std::int64_t chunk = wide ? LongRowPolicy::kWideChunk : LongRowPolicy::kChunk;
            for (std::uint64_t row = 0; row < a.rows; ++row) {
                const std::int64_t length = a.rowPtr[row + 1] - a.rowPtr[row];
                if (length <= limit || (length > narrowMax) != wide)
                    continue;
                ++m_rows;
                const auto first = static_cast<int>(m_chunkRow.size());
                const auto end = first + static_cast<int>((length + chunk - 1) / chunk);
                for (std::int64_t k = 0; k < length; k += chunk) {
                    m_chunkRow.push_back(static_cast<int>(row));
                    m_chunkBegin.push_back(static_cast<int>(a.rowPtr[row] + k));
                    m_rowFirst.push_back(first);
                    m_rowEnd.push_back(end);
                }
            }
            if (!wide)
                m_narrowChunks = m_chunkRow.size();
        }
    }
    /// Device bytes allocate() takes.
    std::size_t deviceBytes() const
    {
        return m_chunkRow.size() * (4 * sizeof(int) + sizeof(T) + (m_wideOnly ? sizeof(unsigned int) : 0));
    }
    /// Allocates the device lists (after the variant has checked its device memory).
    void allocate()
    {
        if (m_rows == 0)
            return;
        m_dChunkRow = device::DeviceBuffer<int>(m_chunkRow.size());
        m_dChunkBegin = device::DeviceBuffer<int>(m_chunkBegin.size());
        m_dRowFirst = device::DeviceBuffer<int>(m_rowFirst.size());
        m_dRowEnd = device::DeviceBuffer<int>(m_rowEnd.size());
        m_partial = device::DeviceBuffer<T>(m_chunkRow.size());
        if (m_wideOnly)
            m_arrivals = device::DeviceBuffer<unsigned int>(m_chunkRow.size());
    }
    /// Starts the upload on `stream`, and zeroes the arrival counts; the host lists stay alive with this object.
    void upload(cudaStream_t stream)
    {
        if (m_rows == 0)
            return;
        m_dChunkRow.uploadAsync(m_chunkRow, stream);
        m_dChunkBegin.uploadAsync(m_chunkBegin, stream);
        m_dRowFirst.uploadAsync(m_rowFirst, stream);
        m_dRowEnd.uploadAsync(m_rowEnd, stream);
        if (m_wideOnly)
            m_arrivals.fillBytesAsync(0, stream);
    }
    /// The device lists, for a kernel that runs a wide-only set's blocks itself (longRowsBlock<T, true, true>).
    LongRowArgs<T> args()
    {
        if (m_rows == 0)
            return {};
        return {static_cast<int>(m_narrowChunks), static_cast<int>(m_chunkRow.size() - m_narrowChunks),
            m_dChunkRow.data(), m_dChunkBegin.data(), m_dRowFirst.data(), m_dRowEnd.data(), m_partial.data(),
            m_arrivals.data()};
    }
    /// Writes y of the long rows: one launch where wide-only, else the narrow chunks' launch, the wide chunks' and the
    /// finishing kernel.
    void run(const int* rowPtr, const int* col, const T* val, const T* x, T* y, cudaStream_t stream)
    {
        const LongRowArgs<T> a = args();
        if (m_wideOnly) {
            if (a.wideChunks > 0) {
                longRowsKernel<T, true, true>
                    <<<static_cast<unsigned>(a.wideChunks), LongRowPolicy::kWideThreads, 0, stream>>>(
                        a, rowPtr, col, val, x, y);
                KS_CUDA_CHECK_LAUNCH("longRowsKernel<wide, arrive>");
            }
            return;
        }
        if (a.narrowChunks > 0) {
            longRowsKernel<T, false, false>
                <<<static_cast<unsigned>(a.narrowChunks), LongRowPolicy::kThreads, 0, stream>>>(
                    a, rowPtr, col, val, x, y);
            KS_CUDA_CHECK_LAUNCH("longRowsKernel");
        }
        if (a.wideChunks > 0) {
            longRowsKernel<T, true, false>
                <<<static_cast<unsigned>(a.wideChunks), LongRowPolicy::kWideThreads, 0, stream>>>(
                    a, rowPtr, col, val, x, y);
            KS_CUDA_CHECK_LAUNCH("longRowsKernel<wide>");
        }
        if (const int chunks = a.narrowChunks + a.wideChunks; chunks > 0) {
            longFinishKernel<T><<<device::blocksFor(chunks, LongRowPolicy::kFinishThreads),
                LongRowPolicy::kFinishThreads, 0, stream>>>(chunks, a, y);
            KS_CUDA_CHECK_LAUNCH("longFinishKernel");
        }
    }
    int limit() const { return m_limit; }
    std::size_t rows() const { return m_rows; }
    /// "3 rows longer than 256 non-zeros in 229 blocks of up to 2048 (4096 for rows longer than 4096)", or empty
    /// when there are none.
    std::string note() const
    {
        if (m_rows == 0)
            return {};
        const std::string narrow = std::to_string(LongRowPolicy::kChunk);
        const std::string wide = std::to_string(LongRowPolicy::kWideChunk);
        const std::string blocks = m_narrowChunks == m_chunkRow.size() ? narrow
            : m_narrowChunks == 0                                      ? wide
                                  : narrow + " (" + wide + " for rows longer than " + wide + ")";
        return std::to_string(m_rows) + (m_rows == 1 ? " row" : " rows") + " longer than " + std::to_string(m_limit)
            + " non-zeros in " + std::to_string(m_chunkRow.size()) + " blocks of up to " + blocks;
    }

private:
    int m_limit = 0;
    bool m_wideOnly = false;
    std::size_t m_rows = 0;
    std::vector<int> m_chunkRow;
    std::vector<int> m_chunkBegin;
    std::vector<int> m_rowFirst; ///< per chunk: its row's first chunk …
    std::vector<int> m_rowEnd; ///< … and the chunk after its row's last
    std::size_t m_narrowChunks = 0; ///< the chunks of kChunk come first in the lists, then those of kWideChunk
    device::DeviceBuffer<int> m_dChunkRow;
    device::DeviceBuffer<int> m_dChunkBegin;
    device::DeviceBuffer<int> m_dRowFirst;
    device::DeviceBuffer<int> m_dRowEnd;
    device::DeviceBuffer<T> m_partial;
    device::DeviceBuffer<unsigned int> m_arrivals;
};

/// Joins a variant's own note and its long rows' note.
inline std::string joinNotes(const std::string& first, const std::string& second)
{
    return first.empty() ? second : second.empty() ? first : first + "; " + second;
}

// ---------------------------------------------------------------------------------------------------------------
// scalar (the seed's): a thread per row.

struct ScalarPolicy {
    static constexpr int kThreads = 256;
};

template <class T>
__global__ void __launch_bounds__(ScalarPolicy::kThreads)
    scalarKernel(int rows, int maxLength, const int* __restrict__ rowPtr, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
        const int begin = rowPtr[row];
        const int end = rowPtr[row + 1];
        if (end - begin <= maxLength) // longer rows: LongRows
            y[row] = partialRow<false>(col, val, x, begin, end, 0, 1);
    }
}

/// Base of the variants that give each row a fixed number of lanes: A, x and y, and the rows too long for those
/// lanes, which run() hands to LongRows after the variant's own kernel.
template <class T> class FixedLanesRun : public SpmvDeviceRun<T> {
public:
    /// `longRows`: the rows longer than the variant's lanes keep, found before the device memory is checked.
    FixedLanesRun(const data::SparseSystem& system, LongRows<T> longRows, std::size_t extraBytes = 0)
        : SpmvDeviceRun<T>(system, extraBytes + longRows.deviceBytes())
        , m_long(std::move(longRows))
    {
        m_long.allocate();
        this->timedUpload([&] { m_long.upload(this->stream()); });
    }
    void run() final
    {
        if (this->m_rows == 0)
            return;
        if (m_long.rows() == 0 || runsLongRows()) {
            runRows();
            return;
        }
        // The long rows on a stream of their own beside the variant's kernel (their rows are disjoint): the long
        // rows' blocks fill the multiprocessors that the row kernel's last wave leaves idle, and one launch's gap
        // goes. The row kernel is launched first, so its blocks are not the ones left waiting at the end.
        m_fork.record(this->stream());
        KS_CUDA_CHECK(cudaStreamWaitEvent(m_side.get(), m_fork.get(), 0));
        runRows();
        m_long.run(this->m_rowPtr.data(), this->m_colIdx.data(), this->m_values.data(), this->m_x.data(),
            this->m_y.data(), m_side.get());
        m_join.record(m_side.get());
        KS_CUDA_CHECK(cudaStreamWaitEvent(this->stream(), m_join.get(), 0));
    }
    std::string note() const override { return m_long.note(); }

protected:
    /// Launches the variant's kernel for the rows of at most maxLength() non-zeros (and, runsLongRows(), the rest).
    virtual void runRows() = 0;
    /// Whether runRows() runs the long rows' blocks itself, inside its own grid (m_long.args()).
    virtual bool runsLongRows() const { return false; }
    int maxLength() const { return m_long.limit(); }
    LongRows<T> m_long;

private:
    device::Stream m_side;
    device::Event m_fork;
    device::Event m_join;
};

template <class T> class ScalarRun final : public FixedLanesRun<T> {
public:
    explicit ScalarRun(const data::SparseSystem& system)
        : FixedLanesRun<T>(system, LongRows<T>(system.matrix, longRowLimit(1)))
    {
    }

private:
    void runRows() override
    {
        scalarKernel<T>
            <<<device::blocksFor(this->m_rows, ScalarPolicy::kThreads), ScalarPolicy::kThreads, 0, this->stream()>>>(
                this->m_rows, this->maxLength(), this->m_rowPtr.data(), this->m_colIdx.data(), this->m_values.data(),
                this->m_x.data(), this->m_y.data());
        KS_CUDA_CHECK_LAUNCH("scalarKernel");
    }
};

// ---------------------------------------------------------------------------------------------------------------
// vector (the seed's, Width = 32) and sub-warp rows: a group of Width lanes per row, strided over the row's
// non-zeros, then a shuffle reduction. The loop runs warp-uniformly (a warp takes 32 / Width consecutive rows per
// step), so every lane reaches the shuffles.

struct SubwarpPolicy {
    static constexpr int kThreads = 256;
    static constexpr double kPerLane = 2.0; ///< non-zeros per lane of a typical row (4 measured slower throughout)
};

template <class T, int Width>
__global__ void __launch_bounds__(SubwarpPolicy::kThreads)
    subwarpKernel(int rows, int maxLength, const int* __restrict__ rowPtr, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    constexpr int kRowsPerWarp = 32 / Width;
    const int lane = threadIdx.x % Width;
    const int group = (threadIdx.x % 32) / Width;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
    for (long long base = warp * kRowsPerWarp; base < rows; base += warps * kRowsPerWarp) {
        const long long row = base + group;
        T sum = 0;
        bool mine = false; // a row of this kernel's, not one for LongRows
        if (row < rows) {
            const int begin = rowPtr[row];
            const int end = rowPtr[row + 1];
            mine = end - begin <= maxLength;
            if (mine)
                sum = partialRow<true>(col, val, x, begin, end, lane, Width);
        }
        sum = groupSum<Width>(sum);
        if (lane == 0 && mine)
            y[row] = sum;
    }
}

/// The sub-warp width for a mean row length: half the mean rounded to an integer, then up to a power of two, within
/// [2, 32] — each lane takes about two non-zeros of a typical row.
int subwarpWidth(double meanLength)
{
    const auto share = static_cast<unsigned>(std::max(1.0, std::round(meanLength / SubwarpPolicy::kPerLane)));
    return static_cast<int>(std::clamp(std::bit_ceil(share), 2u, 32u));
}

template <class T> class SubwarpRun final : public FixedLanesRun<T> {
public:
    SubwarpRun(const data::SparseSystem& system, int width)
        : FixedLanesRun<T>(system, LongRows<T>(system.matrix, longRowLimit(width)))
        , m_width(width)
    {
    }
    std::string note() const override
    {
        return joinNotes(
            m_width == 32 ? std::string() : std::to_string(m_width) + " lanes per row", this->m_long.note());
    }

private:
    void runRows() override
    {
        switch (m_width) {
        case 2:
            launch<2>();
            break;
        case 4:
            launch<4>();
            break;
        case 8:
            launch<8>();
            break;
        case 16:
            launch<16>();
            break;
        default:
            launch<32>();
            break;
        }
    }
    template <int Width> void launch()
    {
        const std::uint64_t threads = static_cast<std::uint64_t>(this->m_rows) * Width;
        subwarpKernel<T, Width>
            <<<device::blocksFor(threads, SubwarpPolicy::kThreads), SubwarpPolicy::kThreads, 0, this->stream()>>>(
                this->m_rows, this->maxLength(), this->m_rowPtr.data(), this->m_colIdx.data(), this->m_values.data(),
                this->m_x.data(), this->m_y.data());
        KS_CUDA_CHECK_LAUNCH("subwarpKernel");
    }
    int m_width;
};

// ---------------------------------------------------------------------------------------------------------------
// adaptive (the seed's): a warp per row; a row of at most kScalarMax non-zeros (spmv_policy.h) is summed by lane 0
// alone (the seed's "scalar" branch), a longer one by the whole warp with a shuffle reduction. The branch is
// warp-uniform.

struct AdaptivePolicy : AdaptiveThresholds {
    static constexpr int kThreads = 256;
};

template <class T>
__global__ void __launch_bounds__(AdaptivePolicy::kThreads)
    adaptiveKernel(int rows, int maxLength, const int* __restrict__ rowPtr, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    const int lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
    for (long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; row < rows;
         row += warps) {
        const int begin = rowPtr[row];
        const int end = rowPtr[row + 1];
        if (end - begin > maxLength)
            continue; // LongRows (warp-uniform)
        if (end - begin <= AdaptivePolicy::kScalarMax) {
            if (lane == 0)
                y[row] = partialRow<false>(col, val, x, begin, end, 0, 1);
        } else {
            const T sum = groupSum<32>(partialRow<true>(col, val, x, begin, end, lane, 32));
            if (lane == 0)
                y[row] = sum;
        }
    }
}

template <class T> class AdaptiveRun final : public FixedLanesRun<T> {
public:
    explicit AdaptiveRun(const data::SparseSystem& system)
        : FixedLanesRun<T>(system, LongRows<T>(system.matrix, longRowLimit(32)))
    {
    }

private:
    void runRows() override
    {
        const std::uint64_t threads = static_cast<std::uint64_t>(this->m_rows) * 32;
        adaptiveKernel<T>
            <<<device::blocksFor(threads, AdaptivePolicy::kThreads), AdaptivePolicy::kThreads, 0, this->stream()>>>(
                this->m_rows, this->maxLength(), this->m_rowPtr.data(), this->m_colIdx.data(), this->m_values.data(),
                this->m_x.data(), this->m_y.data());
        KS_CUDA_CHECK_LAUNCH("adaptiveKernel");
    }
};

// ---------------------------------------------------------------------------------------------------------------
// row_binning (the seed's strategy 2): rows sorted into bins by length once, at prepare — short rows (up to kShortMax
// non-zeros, empty ones included) a thread each, medium (up to kMediumMax) a warp each, long ones a block per chunk
// of up to LongRowThresholds::kChunk (LongRows); the thresholds are in spmv_policy.h.

struct BinningPolicy : RowBinningThresholds {
    static constexpr int kThreads = 256; ///< both bin kernels
};

template <class T>
__global__ void __launch_bounds__(BinningPolicy::kThreads)
    binThreadKernel(int count, const int* __restrict__ list, const int* __restrict__ rowPtr,
        const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) {
        const int row = list[i];
        y[row] = partialRow<false>(col, val, x, rowPtr[row], rowPtr[row + 1], 0, 1);
    }
}

template <class T>
__global__ void __launch_bounds__(BinningPolicy::kThreads)
    binWarpKernel(int count, const int* __restrict__ list, const int* __restrict__ rowPtr, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (i >= count)
        return; // warp-uniform
    const int lane = threadIdx.x % 32;
    const int row = list[i];
    const T sum = groupSum<32>(partialRow<true>(col, val, x, rowPtr[row], rowPtr[row + 1], lane, 32));
    if (lane == 0)
        y[row] = sum;
}

template <class T> class RowBinningRun final : public FixedLanesRun<T> {
public:
    explicit RowBinningRun(const data::SparseSystem& system)
        : FixedLanesRun<T>(
            system, LongRows<T>(system.matrix, BinningPolicy::kMediumMax), system.matrix.rows * sizeof(int))
    {
        const auto start = std::chrono::steady_clock::now();
        std::vector<int> bins[2];
        const auto& a = system.matrix;
        for (std::uint64_t row = 0; row < a.rows; ++row) {
            const auto length = a.rowPtr[row + 1] - a.rowPtr[row];
            if (length <= BinningPolicy::kMediumMax)
                bins[length <= BinningPolicy::kShortMax ? 0 : 1].push_back(static_cast<int>(row));
        }
        std::vector<int> all;
        all.reserve(bins[0].size() + bins[1].size());
        for (int b = 0; b < 2; ++b) {
            m_count[b] = static_cast<int>(bins[b].size());
            m_offset[b] = static_cast<int>(all.size());
            all.insert(all.end(), bins[b].begin(), bins[b].end());
        }
        m_binningMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        m_lists = device::DeviceBuffer<int>(all.size());
        this->timedUpload([&] { m_lists.uploadAsync(all, this->stream()); });
    }
    std::string note() const override
    {
        char text[160];
        std::snprintf(text, sizeof text, "bins of %d short and %d medium rows; binning %.1f ms at prepare", m_count[0],
            m_count[1], m_binningMs);
        return joinNotes(text, this->m_long.note());
    }

private:
    void runRows() override
    {
        const int* lists = m_lists.data();
        if (m_count[0] > 0) {
            binThreadKernel<T><<<device::blocksFor(m_count[0], BinningPolicy::kThreads), BinningPolicy::kThreads, 0,
                this->stream()>>>(m_count[0], lists + m_offset[0], this->m_rowPtr.data(), this->m_colIdx.data(),
                this->m_values.data(), this->m_x.data(), this->m_y.data());
            KS_CUDA_CHECK_LAUNCH("binThreadKernel");
        }
        if (m_count[1] > 0) {
            binWarpKernel<T><<<device::blocksFor(static_cast<std::uint64_t>(m_count[1]) * 32, BinningPolicy::kThreads),
                BinningPolicy::kThreads, 0, this->stream()>>>(m_count[1], lists + m_offset[1], this->m_rowPtr.data(),
                this->m_colIdx.data(), this->m_values.data(), this->m_x.data(), this->m_y.data());
            KS_CUDA_CHECK_LAUNCH("binWarpKernel");
        }
    }

    device::DeviceBuffer<int> m_lists;
    int m_count[2] = {};
    int m_offset[2] = {};
    double m_binningMs = 0.0;
};

// ---------------------------------------------------------------------------------------------------------------
// ell (the seed's strategy 4): every row padded to the longest, stored column-major so consecutive threads read
// consecutive slots; a thread per row. Converted once at prepare; skipped where padding would store more than
// kMaxPadding slots per non-zero (spmv_policy.h; ELL is for regular matrices).

struct EllPolicy : EllThresholds {
    static constexpr int kThreads = 256;
    static constexpr int kBatch = 4; ///< slots whose loads a thread issues together
};

template <class T>
__global__ void __launch_bounds__(EllPolicy::kThreads) ellKernel(int rows, int width, const int* __restrict__ cols,
    const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y)
{
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    // kBatch slots at a time, their loads issued together; padding (column −1) follows a row's entries.
    constexpr int kBatch = EllPolicy::kBatch;
    T sum = 0;
    for (int k = 0; k < width; k += kBatch) {
        int c[kBatch];
        T v[kBatch];
#pragma unroll
        for (int i = 0; i < kBatch; ++i) {
            const std::size_t slot = static_cast<std::size_t>(k + i) * rows + row;
            c[i] = k + i < width ? loadOnce(cols + slot) : -1;
            v[i] = c[i] >= 0 ? loadOnce(vals + slot) : T(0);
        }
#pragma unroll
        for (int i = 0; i < kBatch; ++i)
            if (c[i] >= 0)
                sum += v[i] * x[c[i]];
        if (c[kBatch - 1] < 0)
            break;
    }
    y[row] = sum;
}

std::uint64_t longestRow(const data::CsrMatrix& a)
{
    std::uint64_t longest = 0;
    for (std::uint64_t row = 0; row < a.rows; ++row)
        longest = std::max<std::uint64_t>(longest, static_cast<std::uint64_t>(a.rowPtr[row + 1] - a.rowPtr[row]));
    return longest;
}

template <class T> class EllRun final : public SpmvDeviceRun<T> {
public:
    EllRun(const data::SparseSystem& system, std::uint64_t width)
        : SpmvDeviceRun<T>(system, width * system.matrix.rows * (sizeof(int) + sizeof(T)))
        , m_width(static_cast<int>(width))
    {
        const auto start = std::chrono::steady_clock::now();
        const auto& a = system.matrix;
        const HostOperands<T> in(system);
        const std::size_t slots = width * a.rows;
        std::vector<int> cols(slots, -1);
        std::vector<T> vals(slots, T(0));
        for (std::uint64_t row = 0; row < a.rows; ++row)
            for (auto k = a.rowPtr[row]; k < a.rowPtr[row + 1]; ++k) {
                const std::size_t slot = static_cast<std::size_t>(k - a.rowPtr[row]) * a.rows + row;
                cols[slot] = a.colIdx[static_cast<std::size_t>(k)];
                vals[slot] = in.values()[static_cast<std::size_t>(k)];
            }
        m_conversionMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        m_padding = a.nnz() == 0 ? 1.0 : static_cast<double>(slots) / static_cast<double>(a.nnz());
        m_cols = device::DeviceBuffer<int>(slots);
        m_vals = device::DeviceBuffer<T>(slots);
        this->timedUpload([&] {
            m_cols.uploadAsync(cols, this->stream());
            m_vals.uploadAsync(vals, this->stream());
        });
    }
    void run() override
    {
        if (this->m_rows == 0)
            return;
        ellKernel<T><<<device::blocksFor(this->m_rows, EllPolicy::kThreads), EllPolicy::kThreads, 0, this->stream()>>>(
            this->m_rows, m_width, m_cols.data(), m_vals.data(), this->m_x.data(), this->m_y.data());
        KS_CUDA_CHECK_LAUNCH("ellKernel");
    }
    std::string note() const override
    {
        char text[160];
        std::snprintf(text, sizeof text, "ELL width %d (%.2f slots per non-zero); conversion %.1f ms at prepare",
            m_width, m_padding, m_conversionMs);
        return text;
    }

private:
    int m_width;
    double m_padding = 1.0;
    double m_conversionMs = 0.0;
    device::DeviceBuffer<int> m_cols;
    device::DeviceBuffer<T> m_vals;
};

// ---------------------------------------------------------------------------------------------------------------
// dia: the non-zeros stored by diagonal (offset = col − row), each diagonal a whole run of `rows` values, zeros
// where it has no entry, and no column indices (the DIA format; Bell & Garland, "Efficient sparse matrix-vector
// multiplication on CUDA", NVIDIA NVR-2008-004). A thread per row reads slot d·rows + row of each diagonal and
// x[row + offset]: both runs coalesce, and of A only the values move. Converted once at prepare; skipped where the
// diagonals are too many or the zeros too much (DiaThresholds), and where x holds a value that is not finite,
// which a stored zero would turn into NaN where the row has no entry.

struct DiaPolicy : DiaThresholds {
    static constexpr int kThreads = 256;
    static constexpr int kBatch = 8; ///< diagonals whose loads a thread issues together
};

template <class T>
__global__ void __launch_bounds__(DiaPolicy::kThreads) diaKernel(long long rows, long long cols, int diagonals,
    const long long* __restrict__ offsets, const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y)
{
    __shared__ long long offset[DiaPolicy::kMaxDiagonals];
    for (int d = threadIdx.x; d < diagonals; d += blockDim.x)
        offset[d] = offsets[d];
    __syncthreads();
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    // The diagonals in ascending order of column, as CSR sums a row; kBatch at a time, their loads issued together.
    constexpr int kBatch = DiaPolicy::kBatch;
    T sum = 0;
    for (int d0 = 0; d0 < diagonals; d0 += kBatch) {
        T v[kBatch];
        T xv[kBatch];
#pragma unroll
        for (int i = 0; i < kBatch; ++i) {
            const int d = d0 + i;
            const long long column = d < diagonals ? row + offset[d] : -1;
            const bool inside = column >= 0 && column < cols;
            v[i] = inside ? loadOnce(vals + static_cast<std::size_t>(d) * static_cast<std::size_t>(rows) + row) : T(0);
            xv[i] = inside ? x[column] : T(0);
        }
#pragma unroll
        for (int i = 0; i < kBatch; ++i)
            sum += v[i] * xv[i];
    }
    y[row] = sum;
}

template <class T> class DiaRun final : public SpmvDeviceRun<T> {
public:
    DiaRun(const data::SparseSystem& system, const std::vector<std::int64_t>& offsets)
        : SpmvDeviceRun<T>(system, offsets.size() * (system.matrix.rows * sizeof(T) + sizeof(long long)))
        , m_diagonals(static_cast<int>(offsets.size()))
    {
        const auto start = std::chrono::steady_clock::now();
        const auto& a = system.matrix;
        const HostOperands<T> in(system);
        std::vector<T> vals(offsets.size() * a.rows, T(0));
        for (std::uint64_t row = 0; row < a.rows; ++row) {
            std::size_t d = 0; // columns ascend within a row, and so do the offsets
            for (auto k = a.rowPtr[row]; k < a.rowPtr[row + 1]; ++k) {
                const std::int64_t offset
                    = static_cast<std::int64_t>(a.colIdx[static_cast<std::size_t>(k)]) - static_cast<std::int64_t>(row);
                while (offsets[d] < offset)
                    ++d;
                vals[d * a.rows + row] = in.values()[static_cast<std::size_t>(k)];
            }
        }
        m_conversionMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        m_fill = a.nnz() == 0 ? 1.0 : static_cast<double>(vals.size()) / static_cast<double>(a.nnz());
        // Rows whose column row + offset lies in [0, cols): from max(0, −offset) to min(rows, cols − offset).
        const auto rows = static_cast<std::int64_t>(a.rows);
        const auto cols = static_cast<std::int64_t>(a.cols);
        for (const std::int64_t offset : offsets)
            m_insideSlots += static_cast<std::size_t>(
                std::max<std::int64_t>(0, std::min(rows, cols - offset) - std::max<std::int64_t>(0, -offset)));
        const std::vector<long long> offsets64(offsets.begin(), offsets.end());
        m_offsets = device::DeviceBuffer<long long>(offsets64.size());
        m_vals = device::DeviceBuffer<T>(vals.size());
        this->timedUpload([&] {
            m_offsets.uploadAsync(offsets64, this->stream());
            m_vals.uploadAsync(vals, this->stream());
        });
    }
    void run() override
    {
        if (this->m_rows == 0)
            return;
        diaKernel<T><<<device::blocksFor(this->m_rows, DiaPolicy::kThreads), DiaPolicy::kThreads, 0, this->stream()>>>(
            this->m_rows, this->m_cols, m_diagonals, m_offsets.data(), m_vals.data(), this->m_x.data(),
            this->m_y.data());
        KS_CUDA_CHECK_LAUNCH("diaKernel");
    }
    std::string note() const override
    {
        char text[160];
        std::snprintf(text, sizeof text,
            "DIA: %d diagonals (%.2f slots per non-zero; bytes as it stores A); conversion %.1f ms at prepare",
            m_diagonals, m_fill, m_conversionMs);
        return text;
    }
    /// The diagonals' slots inside the matrix (the kernel loads no others), their offsets, x and y: no column indices
    /// or row pointers, the cost model's CSR arrays.
    std::optional<double> bytesMoved() const override
    {
        return static_cast<double>(m_insideSlots * sizeof(T) + m_offsets.size() * sizeof(long long)
            + (static_cast<std::size_t>(this->m_rows) + static_cast<std::size_t>(this->m_cols)) * sizeof(T));
    }

private:
    int m_diagonals;
    std::size_t m_insideSlots = 0; ///< slots of the diagonals that lie inside the matrix
    double m_fill = 1.0;
    double m_conversionMs = 0.0;
    device::DeviceBuffer<long long> m_offsets;
    device::DeviceBuffer<T> m_vals;
};

// ---------------------------------------------------------------------------------------------------------------
// merge_path: the rows' ends and the non-zeros are two sorted lists, and every thread takes an equal share of
// their merge — kItems steps, each either one product or one finished row — so one enormous row or a run of
// empty rows costs no more than its share (Merrill & Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC 2016). Tiles of kThreads·kItems steps are found once at prepare (the partition depends on
// the structure alone); a tile's products and row ends are staged in shared memory with coalesced loads. A thread
// stores every row it finishes; the partial sums of rows that cross threads are combined by a segmented warp scan
// and, across warps, shared atomics; the part of a row that crosses into the next tile is added by a small fix-up
// kernel after.

struct MergePolicy {
    static constexpr int kThreads = 256;
    static constexpr int kItems = 7; ///< odd: threads' walks through the staged products fall on different banks
    static constexpr int kTileItems = kThreads * kItems;
    static constexpr int kPartitionThreads = 256; ///< the partition at prepare: a thread per tile boundary
    static constexpr int kFixupThreads = 256; ///< the fix-up: a thread per tile's carry-out
};

/// The coordinate (rows finished, non-zeros consumed) where merge diagonal d crosses the path: a row's end comes
/// after all of its non-zeros.
__device__ __forceinline__ void mergeCoordinate(long long d, const int* rowEnds, int rows, int nnz, int& row, int& nz)
{
    long long lo = max(d - nnz, 0LL);
    long long hi = min(d, static_cast<long long>(rows));
    while (lo < hi) {
        const long long mid = (lo + hi) / 2;
        if (rowEnds[mid] <= d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    row = static_cast<int>(lo);
    nz = static_cast<int>(d - lo);
}

__global__ void mergePartitionKernel(
    int tiles, int rows, int nnz, const int* __restrict__ rowPtr, int* __restrict__ tileRow, int* __restrict__ tileNz)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles)
        return;
    const long long d = min(static_cast<long long>(t) * MergePolicy::kTileItems, static_cast<long long>(rows) + nnz);
    mergeCoordinate(d, rowPtr + 1, rows, nnz, tileRow[t], tileNz[t]);
}

template <class T> struct MergeShared {
    int rowPtr[MergePolicy::kTileItems + 2]; ///< rowPtr[r0 …], one more than the rows the tile can touch
    T products[MergePolicy::kTileItems];
    T rowSum[MergePolicy::kTileItems + 1]; ///< parts of the tile's rows that cross warps (or leave the tile)
    int lastRow; ///< the row the tile's last busy thread stopped in, tile-local (−1: none)
};

template <class T>
__global__ void __launch_bounds__(MergePolicy::kThreads)
    mergePathKernel(int rows, const int* __restrict__ tileRow, const int* __restrict__ tileNz,
        const int* __restrict__ rowPtr, const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
        T* __restrict__ y, int* __restrict__ outRow, T* __restrict__ outValue)
{
    __shared__ MergeShared<T> s;
    const int r0 = tileRow[blockIdx.x];
    const int n0 = tileNz[blockIdx.x];
    const int tileRows = tileRow[blockIdx.x + 1] - r0;
    const int tileNnz = tileNz[blockIdx.x + 1] - n0;
    const int tileItems = tileRows + tileNnz;
    // Stage the tile: row pointers of rows r0 … r0 + tileRows (the last may be unfinished), and the products.
    for (int k = threadIdx.x; k <= tileRows + 1 && r0 + k <= rows; k += MergePolicy::kThreads)
        s.rowPtr[k] = rowPtr[r0 + k];
    for (int k = threadIdx.x; k <= tileRows; k += MergePolicy::kThreads)
        s.rowSum[k] = T(0);
    for (int k = threadIdx.x; k < tileNnz; k += MergePolicy::kThreads)
        s.products[k] = loadOnce(val + n0 + k) * x[loadOnce(col + n0 + k)];
    __syncthreads();

    // This thread's start on the tile's path, by binary search over the staged row ends.
    const int d = min(static_cast<int>(threadIdx.x) * MergePolicy::kItems, tileItems);
    int lo = max(d - tileNnz, 0);
    int hi = min(d, tileRows);
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (s.rowPtr[mid + 1] - n0 <= d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    int row = lo;
    int nz = d - lo;
    const int items = min(MergePolicy::kItems, tileItems - d);
    const bool startsMidRow = n0 + nz > s.rowPtr[row]; // part of this row was summed before this thread
    bool firstEnd = true;
    int headRow = -1;
    T headValue = 0;
    T sum = 0;
    for (int i = 0; i < items; ++i) {
        if (n0 + nz < s.rowPtr[row + 1]) {
            sum += s.products[nz++];
        } else {
            if (firstEnd && startsMidRow) {
                headRow = row; // finished here, begun before: completed below with the earlier threads' parts
                headValue = sum;
            } else {
                y[r0 + row] = sum;
            }
            firstEnd = false;
            sum = 0;
            ++row;
        }
    }
    // The row this thread stopped in: a segmented scan over the warp's lanes (rows never decrease along them)
    // sums each row's parts within the warp. The last lane of a row's run hands its sum to the next lane when that
    // lane finishes the row; otherwise (the run reaches the warp's end, or the tile's) it adds it to the row's
    // shared slot — a few shared atomics per tile, however long its rows.
    const int key = items > 0 && r0 + row < rows ? row : -1;
    const int lane = threadIdx.x % 32;
    T scan = sum;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const T other = __shfl_up_sync(device::kFullWarpMask, scan, offset);
        const int otherKey = __shfl_up_sync(device::kFullWarpMask, key, offset);
        if (lane >= offset && otherKey == key)
            scan += other;
    }
    const int previousKey = __shfl_up_sync(device::kFullWarpMask, key, 1);
    const T previousScan = __shfl_up_sync(device::kFullWarpMask, scan, 1);
    const int nextKey = __shfl_down_sync(device::kFullWarpMask, key, 1);
    const int nextHead = __shfl_down_sync(device::kFullWarpMask, headRow, 1);
    const bool runEnds = key >= 0 && (lane == 31 || nextKey != key);
    if (runEnds && !(lane < 31 && nextHead == key) && scan != T(0))
        atomicAdd(&s.rowSum[key], scan);
    if (headRow >= 0 && lane > 0 && previousKey == headRow)
        headValue += previousScan;
    const int last = min(MergePolicy::kThreads, (tileItems + MergePolicy::kItems - 1) / MergePolicy::kItems) - 1;
    if (static_cast<int>(threadIdx.x) == last || (last < 0 && threadIdx.x == 0))
        s.lastRow = last >= 0 ? key : -1;
    __syncthreads();
    if (headRow >= 0)
        y[r0 + headRow] = headValue + s.rowSum[headRow]; // the parts from earlier warps arrived in the slot
    if (threadIdx.x == 0) {
        // The tile's carry-out: the unfinished row its last busy threads stopped in, finished by a later tile.
        outRow[blockIdx.x] = s.lastRow >= 0 ? r0 + s.lastRow : -1;
        outValue[blockIdx.x] = s.lastRow >= 0 ? s.rowSum[s.lastRow] : T(0);
    }
}

/// Adds each tile's carry-out to its row, after every tile has stored the rows it finished.
template <class T>
__global__ void mergeFixupKernel(int tiles, const int* __restrict__ outRow, const T* __restrict__ outValue, T* y)
{
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < tiles && outRow[t] >= 0)
        atomicAdd(&y[outRow[t]], outValue[t]);
}

template <class T> class MergePathRun final : public SpmvDeviceRun<T> {
public:
    explicit MergePathRun(const data::SparseSystem& system)
        : SpmvDeviceRun<T>(system, tileCount(system.matrix) * (3 * sizeof(int) + sizeof(T)) + 2 * sizeof(int))
        , m_tiles(static_cast<int>(tileCount(system.matrix)))
        , m_tileRow(m_tiles + 1)
        , m_tileNz(m_tiles + 1)
        , m_outRow(m_tiles)
        , m_outValue(m_tiles)
    {
        mergePartitionKernel<<<device::blocksFor(m_tiles + 1, MergePolicy::kPartitionThreads),
            MergePolicy::kPartitionThreads, 0, this->stream()>>>(
            m_tiles, this->m_rows, this->m_nnz, this->m_rowPtr.data(), m_tileRow.data(), m_tileNz.data());
        KS_CUDA_CHECK_LAUNCH("mergePartitionKernel");
        KS_CUDA_CHECK(cudaStreamSynchronize(this->stream()));
    }
    void run() override
    {
        if (m_tiles == 0)
            return;
        mergePathKernel<T><<<m_tiles, MergePolicy::kThreads, 0, this->stream()>>>(this->m_rows, m_tileRow.data(),
            m_tileNz.data(), this->m_rowPtr.data(), this->m_colIdx.data(), this->m_values.data(), this->m_x.data(),
            this->m_y.data(), m_outRow.data(), m_outValue.data());
        KS_CUDA_CHECK_LAUNCH("mergePathKernel");
        mergeFixupKernel<T>
            <<<device::blocksFor(m_tiles, MergePolicy::kFixupThreads), MergePolicy::kFixupThreads, 0, this->stream()>>>(
                m_tiles, m_outRow.data(), m_outValue.data(), this->m_y.data());
        KS_CUDA_CHECK_LAUNCH("mergeFixupKernel");
    }
    std::string note() const override
    {
        return std::to_string(m_tiles) + " tiles of " + std::to_string(MergePolicy::kTileItems)
            + " merge steps, partitioned at prepare";
    }

private:
    static std::uint64_t tileCount(const data::CsrMatrix& a)
    {
        return (a.rows + a.nnz() + MergePolicy::kTileItems - 1) / MergePolicy::kTileItems;
    }
    int m_tiles;
    device::DeviceBuffer<int> m_tileRow;
    device::DeviceBuffer<int> m_tileNz;
    device::DeviceBuffer<int> m_outRow;
    device::DeviceBuffer<T> m_outValue;
};

// ---------------------------------------------------------------------------------------------------------------
// row_tiles: tiles of consecutive rows (row_tiles.h, planned at prepare), a block each. The block stages the tile's
// products in shared memory — every thread's 16-byte loads of columns and values issued before any of its gathers
// from x, so each has eight gathers in flight — then sums each row from shared memory: a thread per row of up to
// kThreadRowMax non-zeros, a warp per longer one. Where x outgrows its share of L2, its columns are cut into panels
// and the kernel runs once per panel over that panel's non-zeros (reordered at prepare), the first pass storing y
// and the others adding to it: each pass then gathers from a slice of x that stays in L2 while A streams through
// (random columns in float64, 8M rows of 3: 0.61 ms in one pass, 0.49 ms in three, on an H100). Rows longer than a
// tile's capacity go to LongRows.

struct RowTilePolicy : RowTileThresholds {
    static constexpr int kGroups = kItems / 4; ///< 16-byte loads of four columns (and their values) per thread
    static constexpr int kWarpRowsMax = kCapacity / (kThreadRowMax + 1) + 1; ///< rows of a tile a warp sums
    static constexpr int kRowsPerThread = kMaxRows / kThreads; ///< rows of a tile a thread walks, at most
    /// Blocks a multiprocessor holds where the long rows' blocks share the kernel (rowTileLongKernel): the tiles
    /// alone take 40 registers in float64, three blocks; with the long rows' code the compiler took 52, two blocks,
    /// unless told. Four in float32 (32 registers, as the long rows' own kernel) was no faster (H200).
    static constexpr int kLongBlocksPerSm = 3;
    static_assert(kMaxRows % kThreads == 0);
};

/// Four values of A from `values + q` (q a multiple of four), streamed.
template <class T> __device__ __forceinline__ void loadFour(const T* values, int q, T (&v)[4])
{
    if constexpr (sizeof(T) == 8) {
        const double2 low = __ldcs(reinterpret_cast<const double2*>(values + q));
        const double2 high = __ldcs(reinterpret_cast<const double2*>(values + q + 2));
        v[0] = low.x;
        v[1] = low.y;
        v[2] = high.x;
        v[3] = high.y;
    } else {
        const float4 f = __ldcs(reinterpret_cast<const float4*>(values + q));
        v[0] = f.x;
        v[1] = f.y;
        v[2] = f.z;
        v[3] = f.w;
    }
}

/// Stores a row's sum of this pass: the first pass sets y, later ones add to it.
template <class T> __device__ __forceinline__ void storeRow(T* y, long long row, T sum, int pass)
{
    if (pass == 0)
        y[row] = sum;
    else
        y[row] += sum;
}

/// Tile `tile` of pass `pass` (all the block's threads calling).
template <class T>
__device__ __forceinline__ void rowTileBlock(unsigned tile, int pass, int tiles, long long offsetStride, int length,
    const int* __restrict__ tileRows, const int* __restrict__ segmentStart, const std::uint16_t* __restrict__ offsets,
    const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    using P = RowTilePolicy;
    __shared__ T products[P::kThreads * P::kItems];
    __shared__ int warpRows[P::kWarpRowsMax];
    __shared__ int warpRowCount;
    if (threadIdx.x == 0)
        warpRowCount = 0;
    const int r0 = tileRows[2 * tile];
    const int rows = tileRows[2 * tile + 1] - r0;
    const std::uint16_t* offset = offsets + pass * offsetStride + r0 + tile;
    const int n0 = segmentStart[pass * (tiles + 1) + tile];
    const int n1 = n0 + offset[rows];
    // Groups of four from the multiple of four at or below n0; a group reaching past the arrays' `length` loads
    // singly.
    const int a0 = n0 & ~3;
    int c[P::kGroups][4];
    T v[P::kGroups][4];
#pragma unroll
    for (int g = 0; g < P::kGroups; ++g) {
        const int q = a0 + 4 * (g * P::kThreads + static_cast<int>(threadIdx.x));
        if (q >= n1)
            continue;
        if (q + 4 <= length) {
            const int4 four = __ldcs(reinterpret_cast<const int4*>(col + q));
            c[g][0] = four.x;
            c[g][1] = four.y;
            c[g][2] = four.z;
            c[g][3] = four.w;
            loadFour(val, q, v[g]);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                c[g][e] = q + e < n1 ? loadOnce(col + q + e) : 0;
                v[g][e] = q + e < n1 ? loadOnce(val + q + e) : T(0);
            }
        }
    }
#pragma unroll
    for (int g = 0; g < P::kGroups; ++g) {
        const int q = a0 + 4 * (g * P::kThreads + static_cast<int>(threadIdx.x));
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (q + e >= n0 && q + e < n1)
                products[q + e - n0] = v[g][e] * x[c[g][e]];
    }
    // The bounds of the thread's rows, all requested before the barrier: read row after row, as the loop below
    // walks them, they were a round trip to memory each.
    int begin[P::kRowsPerThread];
    int end[P::kRowsPerThread];
#pragma unroll
    for (int i = 0; i < P::kRowsPerThread; ++i) {
        const int r = i * P::kThreads + static_cast<int>(threadIdx.x);
        begin[i] = r < rows ? offset[r] : 0;
        end[i] = r < rows ? offset[r + 1] : 0;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < P::kRowsPerThread; ++i) {
        const int r = i * P::kThreads + static_cast<int>(threadIdx.x);
        if (r >= rows)
            break;
        if (end[i] - begin[i] <= P::kThreadRowMax) {
            T sum = 0;
            for (int k = begin[i]; k < end[i]; ++k)
                sum += products[k];
            storeRow(y, r0 + r, sum, pass);
        } else {
            warpRows[atomicAdd(&warpRowCount, 1)] = r;
        }
    }
    __syncthreads();
    // Longer rows: a warp each, or, when the tile has fewer of them than warps, `split` warps each, whose partial
    // sums are added in order after (2,000-long rows, two to a tile, take all sixteen warps instead of two). The
    // rows' order in warpRows varies between runs; a row's sum does not.
    constexpr int kWarps = P::kThreads / 32;
    const int count = warpRowCount;
    const int split = count > 0 ? max(1, kWarps / count) : 1;
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (split == 1) {
        for (int i = warp; i < count; i += kWarps) {
            const int r = warpRows[i];
            const int end = offset[r + 1];
            T sum = 0;
            for (int k = offset[r] + lane; k < end; k += 32)
                sum += products[k];
            sum = groupSum<32>(sum);
            if (lane == 0)
                storeRow(y, r0 + r, sum, pass);
        }
        return;
    }
    __shared__ T partial[kWarps];
    if (warp < count * split) {
        const int r = warpRows[warp / split];
        const int end = offset[r + 1];
        T sum = 0;
        for (int k = offset[r] + (warp % split) * 32 + lane; k < end; k += 32 * split)
            sum += products[k];
        sum = groupSum<32>(sum);
        if (lane == 0)
            partial[warp] = sum;
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < count) {
        T sum = 0;
        for (int j = 0; j < split; ++j)
            sum += partial[threadIdx.x * split + j];
        storeRow(y, r0 + warpRows[threadIdx.x], sum, pass);
    }
}

template <class T>
__global__ void __launch_bounds__(RowTilePolicy::kThreads)
    rowTileKernel(int pass, int tiles, long long offsetStride, int length, const int* __restrict__ tileRows,
        const int* __restrict__ segmentStart, const std::uint16_t* __restrict__ offsets, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y)
{
    rowTileBlock(blockIdx.x, pass, tiles, offsetStride, length, tileRows, segmentStart, offsets, col, val, x, y);
}

/// rowTileKernel with the long rows' blocks at the head of its grid (A's own order: rowPtr, longCol, longVal): one
/// launch for the whole of y where x is one panel.
template <class T>
__global__ void __launch_bounds__(RowTilePolicy::kThreads, RowTilePolicy::kLongBlocksPerSm)
    rowTileLongKernel(int tiles, long long offsetStride, int length, const int* __restrict__ tileRows,
        const int* __restrict__ segmentStart, const std::uint16_t* __restrict__ offsets, const int* __restrict__ col,
        const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y, LongRowArgs<T> longRows,
        const int* __restrict__ rowPtr, const int* __restrict__ longCol, const T* __restrict__ longVal)
{
    // row_tiles' long rows are wide-only (LongRows).
    static_assert(RowTilePolicy::kThreads == LongRowPolicy::kWideThreads);
    const int longBlocks = longRows.wideChunks;
    if (static_cast<int>(blockIdx.x) < longBlocks)
        longRowsBlock<T, true, true>(static_cast<int>(blockIdx.x), longRows, rowPtr, longCol, longVal, x, y);
    else
        rowTileBlock(blockIdx.x - static_cast<unsigned>(longBlocks), 0, tiles, offsetStride, length, tileRows,
            segmentStart, offsets, col, val, x, y);
}

template <class T> class RowTilesRun final : public FixedLanesRun<T> {
public:
    /// The plan's lists are uploaded here and not kept: the run holds their device copies and the few figures
    /// run() and note() read.
    RowTilesRun(const data::SparseSystem& system, const RowTilePlan& plan, double planMs)
        : FixedLanesRun<T>(
            system, LongRows<T>(system.matrix, RowTilePolicy::kCapacity, true), deviceBytes(plan, system.matrix.nnz()))
        , m_tiles(plan.tiles())
        , m_panels(plan.panels)
        , m_panelWidth(plan.panelWidth)
        , m_reordered(!plan.order.empty())
        , m_length(m_reordered ? static_cast<int>(plan.order.size()) : this->m_nnz)
        , m_planMs(planMs)
        , m_tileRows(plan.tileRows.size())
        , m_segmentStart(plan.segmentStart.size())
        , m_offsets(plan.offsets.size())
    {
        std::vector<int> cols;
        std::vector<T> vals;
        if (m_reordered) {
            const HostOperands<T> in(system);
            cols.reserve(plan.order.size());
            vals.reserve(plan.order.size());
            for (const std::int32_t k : plan.order) {
                cols.push_back(system.matrix.colIdx[static_cast<std::size_t>(k)]);
                vals.push_back(in.values()[static_cast<std::size_t>(k)]);
            }
            m_cols = device::DeviceBuffer<int>(cols.size());
            m_vals = device::DeviceBuffer<T>(vals.size());
        }
        this->timedUpload([&] {
            m_tileRows.uploadAsync(plan.tileRows, this->stream());
            m_segmentStart.uploadAsync(plan.segmentStart, this->stream());
            m_offsets.uploadAsync(plan.offsets, this->stream());
            if (m_reordered) {
                m_cols.uploadAsync(cols, this->stream());
                m_vals.uploadAsync(vals, this->stream());
            }
        });
    }
    std::string note() const override
    {
        char text[200];
        if (m_panels > 1)
            std::snprintf(text, sizeof text,
                "%d tiles of up to %d rows; x in %d column panels of %llu columns, a pass each; planned in %.1f ms",
                m_tiles, RowTilePolicy::kMaxRows, m_panels, static_cast<unsigned long long>(m_panelWidth), m_planMs);
        else
            std::snprintf(text, sizeof text, "%d tiles of up to %d rows and %d non-zeros; planned in %.1f ms", m_tiles,
                RowTilePolicy::kMaxRows, RowTilePolicy::kCapacity, m_planMs);
        return joinNotes(text, this->m_long.note());
    }

private:
    static std::size_t deviceBytes(const RowTilePlan& plan, std::uint64_t nnz)
    {
        const std::size_t reordered = plan.order.empty() ? 0 : nnz * (sizeof(int) + sizeof(T));
        return reordered + (plan.tileRows.size() + plan.segmentStart.size()) * sizeof(int)
            + plan.offsets.size() * sizeof(std::uint16_t);
    }
    /// Where x is one panel, the long rows' blocks run at the head of the tiles' grid (rowTileLongKernel): no second
    /// stream and no launch of their own (H200: the power-law rows of exponent 2.2 in float32 0.260 → 0.246 ms,
    /// exponent 1.6 in float64 0.169 → 0.162). Beside two or three passes they keep their stream: at the head of the
    /// first pass, exponent 2.2 in float64 took 0.331 against 0.321 ms, at the head of the last 0.325 against 0.318.
    bool runsLongRows() const override { return m_panels == 1; }
    void runRows() override
    {
        const LongRowArgs<T> longRows = this->m_long.args();
        const int* cols = m_reordered ? m_cols.data() : this->m_colIdx.data();
        const T* vals = m_reordered ? m_vals.data() : this->m_values.data();
        const auto stride = static_cast<long long>(this->m_rows) + m_tiles;
        for (int pass = 0; pass < m_panels; ++pass) {
            if (const int longBlocks = longRows.wideChunks; pass == 0 && longBlocks > 0 && runsLongRows()) {
                rowTileLongKernel<T><<<longBlocks + m_tiles, RowTilePolicy::kThreads, 0, this->stream()>>>(m_tiles,
                    stride, m_length, m_tileRows.data(), m_segmentStart.data(), m_offsets.data(), cols, vals,
                    this->m_x.data(), this->m_y.data(), longRows, this->m_rowPtr.data(), this->m_colIdx.data(),
                    this->m_values.data());
                KS_CUDA_CHECK_LAUNCH("rowTileLongKernel");
                continue;
            }
            if (m_tiles == 0)
                continue;
            rowTileKernel<T><<<m_tiles, RowTilePolicy::kThreads, 0, this->stream()>>>(pass, m_tiles, stride, m_length,
                m_tileRows.data(), m_segmentStart.data(), m_offsets.data(), cols, vals, this->m_x.data(),
                this->m_y.data());
            KS_CUDA_CHECK_LAUNCH("rowTileKernel");
        }
    }

    int m_tiles;
    int m_panels;
    std::uint64_t m_panelWidth;
    bool m_reordered; ///< A's non-zeros copied in panel order (more than one panel)
    int m_length; ///< of the column and value arrays the kernel reads
    double m_planMs;
    device::DeviceBuffer<int> m_tileRows;
    device::DeviceBuffer<int> m_segmentStart;
    device::DeviceBuffer<std::uint16_t> m_offsets;
    device::DeviceBuffer<int> m_cols;
    device::DeviceBuffer<T> m_vals;
};

// ---------------------------------------------------------------------------------------------------------------
// auto: the kernel chooseKernel (auto_choice.cpp) picks from the matrix's row statistics, run as that variant would
// run, the choice and its reason in the note.

class AutoRun final : public PreparedRun {
public:
    AutoRun(std::unique_ptr<PreparedRun> chosen, std::string choice)
        : m_chosen(std::move(chosen))
        , m_choice(std::move(choice))
    {
    }
    void run() override { m_chosen->run(); }
    Result fetch() override { return m_chosen->fetch(); }
    RepTimer& timer() override { return m_chosen->timer(); }
    void flushCaches() override { m_chosen->flushCaches(); }
    void reset() override { m_chosen->reset(); }
    double transferMs() const override { return m_chosen->transferMs(); }
    std::optional<double> metric() override { return m_chosen->metric(); }
    std::optional<std::uint64_t> stateDigest() override { return m_chosen->stateDigest(); }
    Facts facts() override { return m_chosen->facts(); }
    std::string note() const override { return joinNotes(m_choice, m_chosen->note()); }
    std::optional<double> bytesMoved() const override { return m_chosen->bytesMoved(); }

private:
    std::unique_ptr<PreparedRun> m_chosen;
    std::string m_choice;
};

} // namespace
} // namespace ks::spmv::gpu

namespace ks::spmv {

std::unique_ptr<PreparedRun> prepareScalar(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::ScalarRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareVector(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::SubwarpRun>(d, p, 32);
}

std::unique_ptr<PreparedRun> prepareAdaptive(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::AdaptiveRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareRowBinning(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::RowBinningRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareEll(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    const auto& a = d.as<data::SparseSystem>().matrix;
    const std::uint64_t width = gpu::longestRow(a);
    const double slots = static_cast<double>(width) * static_cast<double>(a.rows);
    if (a.nnz() > 0 && slots > gpu::EllPolicy::kMaxPadding * static_cast<double>(a.nnz())) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", gpu::EllPolicy::kMaxPadding);
        throw SkipRun("irregular rows: ELL would store " + std::to_string(static_cast<std::uint64_t>(slots))
            + " slots (longest row " + std::to_string(width) + ") for " + std::to_string(a.nnz())
            + " non-zeros, more than " + limit + " per non-zero");
    }
    return makeRun<gpu::EllRun>(d, p, width);
}

namespace {
/// dia's run on `d`, whose non-zeros lie on the diagonals `offsets` (diagonalOffsets with DiaPolicy::kMaxDiagonals),
/// or SkipRun with the reason.
std::unique_ptr<PreparedRun> prepareDiaOn(
    const data::Dataset& d, const ParamSet& p, const std::vector<std::int64_t>& offsets)
{
    const auto& system = d.as<data::SparseSystem>();
    const auto& a = system.matrix;
    if (offsets.size() > static_cast<std::size_t>(gpu::DiaPolicy::kMaxDiagonals))
        throw SkipRun("scattered non-zeros: they lie on more than " + std::to_string(gpu::DiaPolicy::kMaxDiagonals)
            + " diagonals (col − row)");
    const double slots = static_cast<double>(offsets.size()) * static_cast<double>(a.rows);
    if (a.nnz() > 0 && slots > gpu::DiaPolicy::kMaxFill * static_cast<double>(a.nnz())) {
        char text[200];
        std::snprintf(text, sizeof text,
            "sparse diagonals: DIA would store %.0f slots (%zu diagonals × %llu rows) for %llu non-zeros, more than "
            "%g per non-zero",
            slots, offsets.size(), static_cast<unsigned long long>(a.rows), static_cast<unsigned long long>(a.nnz()),
            gpu::DiaPolicy::kMaxFill);
        throw SkipRun(text);
    }
    // In the value type the kernel reads: 1e39 is finite as a double and infinite as a float.
    const bool f32 = precisionOf(p) == Precision::F32;
    if (!std::all_of(system.x.begin(), system.x.end(),
            [f32](double v) { return f32 ? std::isfinite(static_cast<float>(v)) : std::isfinite(v); }))
        throw SkipRun(std::string("x holds a value that is not finite") + (f32 ? " in float32" : "")
            + ": a stored zero would make it NaN where a row has no entry");
    return makeRun<gpu::DiaRun>(d, p, offsets);
}
} // namespace

std::unique_ptr<PreparedRun> prepareDia(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return prepareDiaOn(d, p, diagonalOffsets(d.as<data::SparseSystem>().matrix, gpu::DiaPolicy::kMaxDiagonals));
}

std::unique_ptr<PreparedRun> prepareSubwarp(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::SubwarpRun>(d, p, gpu::subwarpWidth(meanRowLength(d.as<data::SparseSystem>().matrix)));
}

std::unique_ptr<PreparedRun> prepareMergePath(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::MergePathRun>(d, p);
}

std::unique_ptr<PreparedRun> prepareRowTiles(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    const auto& a = d.as<data::SparseSystem>().matrix;
    const auto start = std::chrono::steady_clock::now();
    int device = 0;
    int l2 = 0;
    KS_CUDA_CHECK(cudaGetDevice(&device));
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    const std::size_t valueBytes = precisionOf(p) == Precision::F32 ? sizeof(float) : sizeof(double);
    const auto forced = static_cast<int>(p.integer("panels"));
    const RowTilePlan plan = planRowTiles(a, RowTileThresholds::kCapacity, RowTileThresholds::kMaxRows,
        forced > 0 ? forced : rowTilePanels(a.cols * valueBytes, static_cast<std::uint64_t>(l2), meanRowLength(a)));
    const double planMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return makeRun<gpu::RowTilesRun>(d, p, plan, planMs);
}

std::unique_ptr<PreparedRun> prepareAuto(const data::Dataset& d, const ParamSet& p, const RunContext& c)
{
    std::vector<std::int64_t> offsets; // the scan that counts the diagonals serves dia too
    const RowStats stats = rowStats(d.as<data::SparseSystem>().matrix, &offsets);
    AutoChoice choice = chooseKernel(stats);
    std::unique_ptr<PreparedRun> chosen;
    if (choice.variant == "dia") {
        // dia also looks at x (a value that is not finite makes it skip); the matrix alone chose it, so where it
        // skips, auto runs what it would have chosen without the diagonals, and says why.
        try {
            chosen = prepareDiaOn(d, p, offsets);
        } catch (const SkipRun& skipped) {
            RowStats withoutDiagonals = stats;
            withoutDiagonals.diagonals = 0;
            const AutoChoice next = chooseKernel(withoutDiagonals);
            choice = {next.variant, next.reason + " (dia skips: " + skipped.what() + ")"};
        }
    }
    if (chosen) {
        // dia, prepared above
    } else if (choice.variant == "row_tiles") {
        chosen = prepareRowTiles(d, p, c);
    } else if (choice.variant == "merge_path") {
        chosen = prepareMergePath(d, p, c);
    } else if (choice.variant == "ell") {
        chosen = prepareEll(d, p, c);
    } else if (choice.variant == "row_binning") {
        chosen = prepareRowBinning(d, p, c);
    } else {
        chosen = prepareSubwarp(d, p, c);
    }
    return std::make_unique<gpu::AutoRun>(std::move(chosen), "chose " + choice.variant + ": " + choice.reason);
}

} // namespace ks::spmv
