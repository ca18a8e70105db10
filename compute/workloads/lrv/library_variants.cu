// cuBLAS variants of lrv: the expansion lrv_ij = (s_i + s_j − 2·g_ij) / (N − 1) on centred logs, with the Gram
// matrix g in row panels — cublasDsyrk for each panel's diagonal block, cublasDgemm for the rectangle left of it, so
// no product is computed twice — and a packing epilogue into propr's order; and a refined version that
// recomputes directly every pair whose expansion cancels beyond what its error bound allows.
#include "compute/device/cublas_loader.cuh"
#include "compute/device/launch.cuh"
#include "compute/workloads/lrv/lrv_device.cuh"

#include <algorithm>

namespace ks::lrv::gpu {

namespace {
struct GemmPolicy {
    static constexpr std::uint64_t kPanelBytes = std::uint64_t(2) << 30; ///< Gram-panel workspace cap
    static constexpr std::uint64_t kRowAlign = 64;
    static constexpr int kPackThreads = 256;
};

/// Packs rows [a, b) of the Gram panel X (X[j + (i − a)·cols] = g_ij) into lrv values, a block row per
/// matrix row so reads of X and writes of the output are both contiguous in j; with a worklist, also lists the
/// pairs whose numerator is under tau·(s_i + s_j), where the expansion's rounding error could exceed 1e-10 of
/// the value.
__global__ void __launch_bounds__(GemmPolicy::kPackThreads)
    packPanelKernel(const double* __restrict__ gram, const double* __restrict__ sumSquares, std::uint64_t n,
        std::uint64_t a, std::uint64_t cols, std::uint64_t chunkBase, double* __restrict__ out, double tau,
        std::uint64_t* worklist, unsigned int* worklistCount, unsigned int capacity)
{
    const std::uint64_t i = a + blockIdx.y;
    const double si = sumSquares[i];
    const double scale = 1.0 / static_cast<double>(n - 1);
    const double* row = gram + static_cast<std::uint64_t>(blockIdx.y) * cols;
    double* target = out + (rowStart(i) - chunkBase);
    for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < i;
         j += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const double scaleOfTerms = si + sumSquares[j];
        const double numerator = scaleOfTerms - 2.0 * row[j];
        target[j] = numerator * scale;
        if (worklist && numerator < tau * scaleOfTerms) {
            const unsigned slot = atomicAdd(worklistCount, 1u);
            if (slot < capacity)
                worklist[slot] = rowStart(i) + j;
        }
    }
}

std::uint64_t panelRows(std::uint64_t p)
{
    const std::uint64_t byMemory = GemmPolicy::kPanelBytes / (sizeof(double) * std::max<std::uint64_t>(p, 1));
    if (byMemory >= p)
        return p; // one panel: a single DSYRK
    return std::max<std::uint64_t>(GemmPolicy::kRowAlign, byMemory / GemmPolicy::kRowAlign * GemmPolicy::kRowAlign);
}

class CublasExpansionRun final : public LrvDeviceRun {
public:
    CublasExpansionRun(const data::ExpressionTable& table, const ParamSet& params, bool refine)
        : LrvDeviceRun(table, params, extraBytes(table, refine), GemmPolicy::kRowAlign, ModeSupport::Unweighted)
        , m_refine(refine)
        , m_rows(panelRows(m_p))
        , m_centred(m_n * m_p)
        , m_sumSquares(m_p)
        , m_gram(m_p * std::min(m_rows, m_p))
        , m_cublas(stream())
    {
        if (refine) {
            m_transposed = device::DeviceBuffer<double>(m_n * m_p);
            m_capacity = worklistCapacity(m_pairs);
            m_worklist = device::DeviceBuffer<std::uint64_t>(m_capacity);
            m_flags = device::DeviceBuffer<unsigned int>(1); // the listed count
            // Where the expansion's worst-case error, about N·eps·(s_i + s_j), could exceed 1e-10 of the value.
            m_tau = cancellationThreshold(m_n);
        }
    }

    void beforeChunks() override
    {
        launchCentred(m_centred.data(), m_sumSquares.data(), m_refine ? m_transposed.data() : nullptr, m_n);
    }

    void computeChunk(std::uint64_t rowBegin, std::uint64_t rowEnd, double* out) override
    {
        const std::uint64_t chunkBase = rowStart(rowBegin);
        if (m_refine)
            m_flags.fillBytesAsync(0, stream());
        const auto& api = device::cublas();
        for (std::uint64_t a = rowBegin; a < rowEnd; a += m_rows) {
            const std::uint64_t b = std::min(rowEnd, a + m_rows);
            const std::uint64_t cols = b; // every j < i < b
            const double one = 1.0, zero = 0.0;
            // Column-major view of the row-major N × p centred logs: M(i, k) = C[k][i], leading dimension p.
            // X(j, r) = Σ_k M(j, k) · M(a + r, k) = g_{a + r, j}: the rectangle j < a by DGEMM, the diagonal
            // block a ≤ j < a + r by DSYRK (its upper triangle in block coordinates).
            if (a > 0)
                KS_CUBLAS_CHECK(api.dgemm(m_cublas.get(), CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(a),
                    static_cast<int>(b - a), static_cast<int>(m_n), &one, m_centred.data(), static_cast<int>(m_p),
                    m_centred.data() + a, static_cast<int>(m_p), &zero, m_gram.data(), static_cast<int>(cols)));
            KS_CUBLAS_CHECK(api.dsyrk(m_cublas.get(), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, static_cast<int>(b - a),
                static_cast<int>(m_n), &one, m_centred.data() + a, static_cast<int>(m_p), &zero, m_gram.data() + a,
                static_cast<int>(cols)));
            const dim3 grid(device::blocksFor(b, GemmPolicy::kPackThreads), static_cast<unsigned>(b - a));
            packPanelKernel<<<grid, GemmPolicy::kPackThreads, 0, stream()>>>(m_gram.data(), m_sumSquares.data(), m_n, a,
                cols, chunkBase, out, m_tau, m_refine ? m_worklist.data() : nullptr,
                m_refine ? m_flags.data() : nullptr, m_capacity);
            KS_CUDA_CHECK_LAUNCH("packPanelKernel");
        }
        if (!m_refine)
            return;
        launchRefinement(m_transposed.data(), m_n, m_centred.data(), m_n, m_p, rowBegin, rowEnd, m_worklist.data(),
            m_flags.data(), m_capacity, out, stream());
    }

private:
    static std::uint64_t extraBytes(const data::ExpressionTable& t, bool refine)
    {
        const std::uint64_t p = t.features;
        const std::uint64_t centred = (t.samples * p + p) * sizeof(double);
        const std::uint64_t gram = p * std::min(panelRows(p), p) * sizeof(double);
        return centred + gram + (refine ? t.samples * p * sizeof(double) + pairCount(p) / 2 : 0);
    }

    bool m_refine;
    std::uint64_t m_rows;
    device::DeviceBuffer<double> m_centred;
    device::DeviceBuffer<double> m_sumSquares;
    device::DeviceBuffer<double> m_gram;
    device::DeviceBuffer<double> m_transposed;
    device::DeviceBuffer<std::uint64_t> m_worklist;
    device::DeviceBuffer<unsigned int> m_flags;
    unsigned int m_capacity = 0;
    double m_tau = 0.0;
    device::CublasHandle m_cublas;
};
} // namespace
} // namespace ks::lrv::gpu

namespace ks::lrv {

std::unique_ptr<PreparedRun> prepareCublasGemm(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::CublasExpansionRun>(d, p, false);
}

std::unique_ptr<PreparedRun> prepareCublasRefined(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::CublasExpansionRun>(d, p, true);
}

} // namespace ks::lrv
