// CPU variant: the reference's arithmetic in double, rows of the pair triangle shared over OpenMP threads
// (dynamic schedule: row i has n − i − 1 pairs), a private histogram per thread, summed at the end.
#include "compute/workloads/sdh/sdh.h"

#include <algorithm>
#include <cmath>

namespace ks::sdh {

namespace {
class CpuOpenMpRun final : public CpuPreparedRun {
public:
    CpuOpenMpRun(const data::PointCloud& cloud, Buckets buckets, const RunContext& context)
        : CpuPreparedRun(context)
        , m_cloud(cloud)
        , m_buckets(buckets)
    {
    }
    void run() override
    {
        const auto& c = m_cloud;
        const auto n = static_cast<std::int64_t>(c.size());
        const std::uint64_t last = m_buckets.count - 1;
        const double width = m_buckets.width;
        const CancelPoint& cancel = cancelPoint();
        m_counts.assign(m_buckets.count, 0);
#pragma omp parallel
        {
            std::vector<std::uint64_t> local(m_buckets.count, 0);
#pragma omp for schedule(dynamic, 64) nowait
            for (std::int64_t si = 0; si < n; ++si) {
                // One check per row of up to n pairs (a millisecond at 10^5 points): once stopped, the rows left
                // are skipped.
                if (cancel.stopRequested())
                    continue;
                const auto i = static_cast<std::size_t>(si);
                const double xi = c.x[i], yi = c.y[i], zi = c.z[i];
                for (std::size_t j = i + 1; j < c.size(); ++j) {
                    const double dx = xi - c.x[j];
                    const double dy = yi - c.y[j];
                    const double dz = zi - c.z[j];
                    const double d = std::sqrt((dx * dx + dy * dy) + dz * dz);
                    ++local[std::min(static_cast<std::uint64_t>(d / width), last)];
                }
            }
#pragma omp critical
            for (std::size_t b = 0; b < local.size(); ++b)
                m_counts[b] += local[b];
        }
        cancel.throwIfStopped();
    }
    Result fetch() override
    {
        return makeResult(m_counts);
    }

private:
    const data::PointCloud& m_cloud;
    Buckets m_buckets;
    std::vector<std::uint64_t> m_counts;
};
} // namespace

std::unique_ptr<PreparedRun> prepareCpuOpenMp(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    const auto& cloud = dataset.as<data::PointCloud>();
    return std::make_unique<CpuOpenMpRun>(cloud, bucketsFor(cloud, bucketWidth(params)), context);
}

} // namespace ks::sdh
