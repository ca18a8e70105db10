// CPU variant: logs once in double, centred per feature, then Σ(c_ik − c_jk)² / (N − 1) for every pair with an
// OpenMP loop over rows (the deviations of a log-ratio from its mean are exactly the difference of centred logs).
#include "compute/core/cpu_run.h"
#include "compute/workloads/lrv/lrv.h"

#include <cmath>

namespace ks::lrv {

namespace {
class CpuOpenMpRun final : public HalfMatrixCpuRun {
public:
    using HalfMatrixCpuRun::HalfMatrixCpuRun;
    void run() override
    {
        const std::size_t n = m_table.samples;
        const std::size_t p = m_table.features;
        const CancelPoint& cancel = cancelPoint();
        std::vector<double> centred(n * p);
#pragma omp parallel for schedule(static)
        for (std::int64_t si = 0; si < static_cast<std::int64_t>(p); ++si) {
            if (cancel.stopRequested())
                continue; // one check per feature's N logs
            const auto i = static_cast<std::size_t>(si);
            double* c = centred.data() + i * n;
            double sum = 0.0;
            for (std::size_t k = 0; k < n; ++k) {
                c[k] = std::log(m_table.values[k * p + i]);
                sum += c[k];
            }
            const double mean = sum / static_cast<double>(n);
            for (std::size_t k = 0; k < n; ++k)
                c[k] -= mean;
        }
        cancel.throwIfStopped();
        sizeValues(pairCount(p), cancel);
        const double scale = 1.0 / static_cast<double>(n - 1);
        const std::size_t checkEvery = pairsPerCheck(n);
#pragma omp parallel for schedule(dynamic, 16)
        for (std::int64_t si = 1; si < static_cast<std::int64_t>(p); ++si) {
            const auto i = static_cast<std::size_t>(si);
            const double* a = centred.data() + i * n;
            double* out = m_values.data() + pairIndex(i, 0);
            CancelCountdown countdown(checkEvery);
            for (std::size_t j = 0; j < i; ++j) {
                // A stop check every checkEvery pairs of the row; once stopped, the rest and the rows left are
                // skipped.
                if (countdown.due() && cancel.stopRequested())
                    break;
                const double* b = centred.data() + j * n;
                double s = 0.0;
                for (std::size_t k = 0; k < n; ++k) {
                    const double d = a[k] - b[k];
                    s += d * d;
                }
                out[j] = s * scale;
            }
        }
        cancel.throwIfStopped();
    }
};
} // namespace

std::unique_ptr<PreparedRun> prepareCpuOpenMp(const data::Dataset& dataset, const ParamSet&, const RunContext& context)
{
    return std::make_unique<CpuOpenMpRun>(dataset.as<data::ExpressionTable>(), context);
}

} // namespace ks::lrv
