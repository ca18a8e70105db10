#pragma once

// Device-side pieces shared by the lrv CUDA and library variants: the table on the device, centred logs, and the
// prepared state that computes the half matrix in row chunks — all at once when it fits, otherwise streamed to the
// host chunk by chunk while the next one computes.

#include "compute/core/make_run.h"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/workloads/lrv/lrv.h"

#include <vector>

namespace ks::lrv::gpu {

/// Row ranges [begin, end) of the half matrix, each small enough for the device output buffer.
struct ChunkPlan {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> rows;
    std::uint64_t maxPairs = 0; ///< pairs in the largest chunk: the buffer's size
    bool streamed() const { return rows.size() > 1; }
};

/// Splits rows rowBegin … rowEnd into chunks of at most capPairs pairs, boundaries on multiples of rowAlign (a chunk
/// of one aligned block is taken whole even when it exceeds the cap); rowBegin is a multiple of rowAlign.
ChunkPlan planChunks(std::uint64_t rowBegin, std::uint64_t rowEnd, std::uint64_t capPairs, std::uint64_t rowAlign);
/// The same for every row 0 … p.
inline ChunkPlan planChunks(std::uint64_t p, std::uint64_t capPairs, std::uint64_t rowAlign)
{
    return planChunks(0, p, capPairs, rowAlign);
}

/// The rows of the half matrix a run computes: all of them, or a multi-device run's part, whose streamed chunks land
/// in the whole result's host vector `host` (m_pairs values, indexed by pairIndex) instead of the run's own.
struct OutputShare {
    std::uint64_t rowBegin = 0;
    std::uint64_t rowEnd = 0; ///< 0: every row
    double* host = nullptr;
};

/// Factors a centring applies to the A fragment copy (`fragments`; the column copy is left as it is) and to the sums
/// of squares. The tensor-core kernel asks for a = −2/(N − 1) and sums = 1/(N − 1): its accumulators start at
/// (s_i + s_j)/(N − 1) and the mma adds −2·g_ij/(N − 1), so they end as the lrv, with no arithmetic after the mma.
/// Every other caller (the cuBLAS variants read sumSquares too) keeps the default, 1 and 1.
struct FragmentScales {
    double a = 1.0;
    double sums = 1.0;
};

/// Centred logs: C[k][i] = log Y[k][i] − mean_k log Y[k][i] (N × p, row-major like Y), and sumSquares[i] =
/// Σ_k C[k][i]² (times scales.sums). Also the feature-major copy when `transposed` is not null: p rows of
/// `transposedStride` ≥ N values, the samples then zeros; and, when `fragments` and `columns` are not null (with or
/// without `transposed`; `transposedStride` then their rows' samples too, a multiple of 16), the same values in the
/// tensor-core kernel's fragment order for its A (times scales.a) and B operands (cuda_variants.cu, FragmentOrder).
/// `centred` may be null when centredCopyOptional(n). With `flags`, the kernel also zeroes flags[0] and flags[1] (a
/// tensor-core kernel's counters), and the kernel after it may be launched early (device::launchEarly). `scales`: see
/// FragmentScales.
void launchCentredLogs(const double* y, std::uint64_t n, std::uint64_t p, double* centred, double* sumSquares,
    double* transposed, std::uint64_t transposedStride, cudaStream_t stream, double* fragments = nullptr,
    double* columns = nullptr, unsigned int* flags = nullptr, FragmentScales scales = {});

/// Whether launchCentredLogs and launchCentredPowers can leave out the N × p copy (a null `centred`) for `n` samples:
/// up to 320, a block holds its features' whole columns in shared memory between its passes; past that, the N × p copy
/// is where it keeps them.
bool centredCopyOptional(std::uint64_t n);

/// Centred features for the alpha transform: C[k][i] = x_ki − mean_k x_ki with x_ki = Y[k][i]^alpha · scale[i]
/// (scale[i] = 1 / (m_i·alpha), m_i the mean of Yfull^alpha's feature i, from launchFeatureScales), so that
/// Σ_k (C[k][i] − C[k][j])² / (N − 1) is the alpha lrv; otherwise as launchCentredLogs.
void launchCentredPowers(const double* y, std::uint64_t n, std::uint64_t p, double alpha, const double* scale,
    double* centred, double* sumSquares, double* transposed, std::uint64_t transposedStride, cudaStream_t stream,
    double* fragments = nullptr, double* columns = nullptr, unsigned int* flags = nullptr, FragmentScales scales = {});

/// scale[i] = nf / (alpha · Σ_k full[k][i]^alpha) for the nf × p table `full` (Yfull, or Y itself).
void launchFeatureScales(
    const double* full, std::uint64_t nf, std::uint64_t p, double alpha, double* scale, cudaStream_t stream);

/// The direct register-tiled kernel for rows [rowBegin, rowEnd) (rowBegin a multiple of 64): writes
/// Σ_k (C[k][i] − C[k][j])² / (N − 1) for every pair in those rows to out[pairIndex(i, j) − rowStart(rowBegin)].
void launchTiledPairs(const double* centred, std::uint64_t n, std::uint64_t p, std::uint64_t rowBegin,
    std::uint64_t rowEnd, double* out, cudaStream_t stream);

/// The same for weighted lrv: with w = W[k][i]·W[k][j] and x = C[k][i] − C[k][j] (centred logs: a shift of x by a
/// pair's constant leaves its weighted variance as it is), Σw(x − x̄)² · Σw / ((Σw)² − Σw²), x̄ = Σw·x / Σw, in two
/// passes over the samples (the weighted mean, then the squared deviations). `weights` is W, N × p like C.
void launchWeightedTiledPairs(const double* centred, const double* weights, std::uint64_t n, std::uint64_t p,
    std::uint64_t rowBegin, std::uint64_t rowEnd, double* out, cudaStream_t stream);

/// Room in a chunk's worklist of pairs to recompute: a sixteenth of the pairs, at least 1024.
unsigned int worklistCapacity(std::uint64_t pairs);

/// After an expansion wrote rows [rowBegin, rowEnd): recomputes every listed pair directly from the feature-major
/// centred logs (rows `transposedStride` apart), and — when more pairs were flagged than the list holds (flags[0] >
/// capacity) — instead the whole chunk with the tiled kernel; one launch, the choice taken on the device so the stream
/// never waits. `decisionCount`, when given, is the count that decision compares with the capacity instead
/// of flags[0] (a multi-device run's flagged pairs summed over its devices). Weighted lrv passes W twice, like the
/// centred logs: feature-major (`transposedWeights`, the same stride) and N × p (`weights`). `early`: launched with
/// device::launchEarly, after a kernel that allows it.
void launchRefinement(const double* transposed, std::uint64_t transposedStride, const double* centred, std::uint64_t n,
    std::uint64_t p, std::uint64_t rowBegin, std::uint64_t rowEnd, const std::uint64_t* worklist, unsigned int* flags,
    unsigned int capacity, double* out, cudaStream_t stream, const unsigned int* decisionCount = nullptr,
    const double* transposedWeights = nullptr, const double* weights = nullptr, bool early = false);

/// Which of propr's modes (lrv.h's Mode) a GPU variant computes; the others it skips, naming who computes them.
enum class ModeSupport {
    LogOnly, ///< the unweighted log-ratio lrv
    Unweighted, ///< and the alpha transform, through centred features (launchCentred)
    Weighted, ///< and weighted lrv (W uploaded as m_w); not weighted alpha, whose means depend on the pair
    All, ///< and weighted alpha
};

/// Base of every lrv GPU variant: Y uploaded once, the output plan, and run() = beforeChunks() then every chunk,
/// streamed through two device buffers and a copy stream when the plan has several. With the alpha transform the
/// reference Yfull (when one was given) is uploaded too, and the feature scales have a buffer; with weights, W.
class LrvDeviceRun : public device::CudaPreparedRun {
public:
    using Model = data::ExpressionTable;

    LrvDeviceRun(const data::ExpressionTable& table, const ParamSet& params, std::uint64_t extraDeviceBytes,
        std::uint64_t rowAlign, ModeSupport support = ModeSupport::LogOnly, OutputShare share = {});
    ~LrvDeviceRun() override;
    void run() final;
    Result fetch() override;
    std::string note() const override;
    /// Whether the output goes to the host chunk by chunk during run() (it did not fit on the device at once).
    bool streamed() const { return m_plan.streamed(); }
    /// After run(): puts this run's pairs into `host` (the whole result, indexed by pairIndex); a streamed run's are
    /// there already when its share named `host`.
    void copyOut(double* host);

protected:
    /// Work before the chunks (centred logs); enqueued on stream().
    virtual void beforeChunks() { }
    /// Enqueues the pairs of rows [rowBegin, rowEnd) into out (index relative to rowStart(rowBegin)).
    virtual void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) = 0;
    /// The centred features of an unweighted mode, enqueued on stream(): logs (launchCentredLogs), or with alpha the
    /// feature scales from Yfull then launchCentredPowers.
    void launchCentred(double* centred, double* sumSquares, double* transposed, std::uint64_t transposedStride,
        double* fragments = nullptr, double* columns = nullptr, unsigned int* flags = nullptr,
        FragmentScales scales = {});
    /// Yfull on the device: the uploaded reference, or Y.
    const double* fullValues() const { return m_full.size() != 0 ? m_full.data() : m_y.data(); }

    const data::ExpressionTable& m_table;
    Mode m_mode;
    std::uint64_t m_n;
    std::uint64_t m_p;
    std::uint64_t m_pairs; ///< of the whole half matrix, whatever the share
    std::uint64_t m_rowBegin; ///< this run's rows
    std::uint64_t m_rowEnd;
    device::DeviceBuffer<double> m_y;
    device::DeviceBuffer<double> m_w; ///< W, N × p like Y, uploaded in a weighted mode
    device::DeviceBuffer<double> m_full; ///< the reference Yfull, uploaded with alpha when one was given
    device::DeviceBuffer<double> m_scale; ///< p feature scales with alpha: 1 / (m_i·alpha)

private:
    /// GB/s of the fastest of a few copies of one chunk buffer into the host result (streamed runs, at prepare).
    double measureCopyCeiling();

    ChunkPlan m_plan;
    device::DeviceBuffer<double> m_out[2];
    device::Stream m_copyStream;
    device::Event m_computed[2];
    device::Event m_copied[2];
    std::vector<double> m_host;
    double* m_hostBase = nullptr; ///< where streamed chunks land: m_host, or the share's host vector
    bool m_hostRegistered = false;
    double m_copyCeilingGBs = 0.0; ///< measureCopyCeiling's figure (streamed runs)
};

} // namespace ks::lrv::gpu
