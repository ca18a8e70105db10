// The oracle: every pair's log-ratio variance from logs taken once in long double, then two passes (mean, then
// squared deviations) in long double, exactly propr's formula evaluated wider than propr's double.
#include "compute/core/cpu_run.h"
#include "compute/workloads/lrv/lrv.h"

#include <cmath>

namespace ks::lrv {

std::vector<long double> referenceLogs(const data::ExpressionTable& t, const CancelPoint& cancel)
{
    std::vector<long double> logs(t.samples * t.features);
    const auto p = static_cast<std::int64_t>(t.features);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < p; ++i) {
        if (cancel.stopRequested())
            continue; // one check per feature's N logs
        for (std::size_t k = 0; k < t.samples; ++k)
            logs[static_cast<std::size_t>(i) * t.samples + k]
                = std::log(static_cast<long double>(t.values[k * t.features + static_cast<std::size_t>(i)]));
    }
    cancel.throwIfStopped();
    return logs;
}

double referencePair(const std::vector<long double>& logs, std::size_t samples, std::size_t i, std::size_t j)
{
    const long double* a = logs.data() + i * samples;
    const long double* b = logs.data() + j * samples;
    long double sum = 0.0L;
    for (std::size_t k = 0; k < samples; ++k)
        sum += a[k] - b[k];
    const long double mean = sum / static_cast<long double>(samples);
    long double squares = 0.0L;
    for (std::size_t k = 0; k < samples; ++k) {
        const long double d = (a[k] - b[k]) - mean;
        squares += d * d;
    }
    return static_cast<double>(squares / static_cast<long double>(samples - 1));
}

namespace {
class ReferenceRun final : public HalfMatrixCpuRun {
public:
    using HalfMatrixCpuRun::HalfMatrixCpuRun;
    void run() override
    {
        const CancelPoint& cancel = cancelPoint();
        const auto logs = referenceLogs(m_table, cancel);
        const std::size_t p = m_table.features;
        sizeValues(pairCount(p), cancel);
        const std::size_t checkEvery = pairsPerCheck(m_table.samples);
        // Rows grow with i: dynamic scheduling keeps the threads evenly loaded. A stop check every checkEvery pairs
        // of a row; once stopped, the rest of the row and the rows left are skipped.
#pragma omp parallel for schedule(dynamic, 16)
        for (std::int64_t si = 1; si < static_cast<std::int64_t>(p); ++si) {
            const auto i = static_cast<std::size_t>(si);
            CancelCountdown countdown(checkEvery);
            for (std::size_t j = 0; j < i; ++j) {
                if (countdown.due() && cancel.stopRequested())
                    break;
                m_values[pairIndex(i, j)] = referencePair(logs, m_table.samples, i, j);
            }
        }
        cancel.throwIfStopped();
    }
};
} // namespace

std::unique_ptr<PreparedRun> prepareReference(const data::Dataset& dataset, const ParamSet&, const RunContext& context)
{
    return std::make_unique<ReferenceRun>(dataset.as<data::ExpressionTable>(), context);
}

} // namespace ks::lrv
