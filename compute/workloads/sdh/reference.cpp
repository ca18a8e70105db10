// The oracle: every pair's distance in double — √((dx·dx + dy·dy) + dz·dz), each operation rounded once (this file
// is compiled without floating-point contraction, so no fused multiply-add changes a rounding) — and its bucket
// ⌊d / W⌋, counted exactly in 64 bits. The float64 CUDA variant that claims exact counts repeats these operations.
#include "compute/core/errors.h"
#include "compute/workloads/sdh/sdh.h"
#include "data/host_memory.h"
#include "data/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ks::sdh {

double boundingDiagonal(const data::PointCloud& cloud, std::size_t points)
{
    double extent[3] = {0.0, 0.0, 0.0};
    const std::vector<double>* axes[3] = {&cloud.x, &cloud.y, &cloud.z};
    for (int a = 0; a < 3; ++a) {
        const auto end = axes[a]->begin() + static_cast<std::ptrdiff_t>(std::min(points, axes[a]->size()));
        if (end != axes[a]->begin()) {
            const auto [lo, hi] = std::minmax_element(axes[a]->begin(), end);
            extent[a] = *hi - *lo;
        }
    }
    return std::sqrt((extent[0] * extent[0] + extent[1] * extent[1]) + extent[2] * extent[2]);
}

namespace {
/// Four significant digits: enough for a refusal's figures.
std::string shortNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}
} // namespace

Buckets checkedBuckets(double width, double diagonal, const std::string& diagonalSource)
{
    if (!(width > 0.0))
        throw ParameterError("bucket_width must be positive");
    const double buckets = std::floor(diagonal / width) + 1.0;
    const double bytes = buckets * sizeof(std::uint64_t);
    const std::uint64_t available = data::availableHostMemory();
    if (buckets > kMaxBuckets || bytes > static_cast<double>(available)) {
        const std::string copy
            = bytes >= 1e18 ? shortNumber(bytes) + " bytes" : data::formatBytes(static_cast<std::uint64_t>(bytes));
        const std::string limit = bytes > static_cast<double>(available)
            ? "over the " + data::formatBytes(available) + " available"
            : "at most 10^8 buckets";
        throw ParameterError("bucket_width=" + shortNumber(width) + " makes " + shortNumber(buckets)
            + " buckets (bounding-box diagonal " + shortNumber(diagonal) + ", " + diagonalSource + "): " + copy
            + " per histogram, " + limit);
    }
    return {width, static_cast<std::uint64_t>(buckets)};
}

Buckets bucketsFor(const data::PointCloud& cloud, double width)
{
    return checkedBuckets(width, boundingDiagonal(cloud, cloud.size()), "this cloud");
}

double bucketWidth(const ParamSet& params)
{
    return params.real("bucket_width");
}

Result makeResult(std::vector<std::uint64_t> counts)
{
    return Result {"histogram", {}, {}, std::move(counts), {}, {}, {}};
}

namespace {
class ReferenceRun final : public CpuPreparedRun {
public:
    ReferenceRun(const data::PointCloud& cloud, Buckets buckets, const RunContext& context)
        : CpuPreparedRun(context)
        , m_cloud(cloud)
        , m_buckets(buckets)
    {
    }
    void run() override
    {
        const auto& c = m_cloud;
        const std::size_t n = c.size();
        m_counts.assign(m_buckets.count, 0);
        const std::uint64_t last = m_buckets.count - 1;
        for (std::size_t i = 0; i < n; ++i) {
            cancelPoint().throwIfStopped(); // once per row of up to n pairs
            for (std::size_t j = i + 1; j < n; ++j) {
                const double dx = c.x[i] - c.x[j];
                const double dy = c.y[i] - c.y[j];
                const double dz = c.z[i] - c.z[j];
                const double d = std::sqrt((dx * dx + dy * dy) + dz * dz);
                ++m_counts[std::min(static_cast<std::uint64_t>(d / m_buckets.width), last)];
            }
        }
    }
    Result fetch() override { return makeResult(m_counts); }

private:
    const data::PointCloud& m_cloud;
    Buckets m_buckets;
    std::vector<std::uint64_t> m_counts;
};
} // namespace

std::unique_ptr<PreparedRun> prepareReference(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    const auto& cloud = dataset.as<data::PointCloud>();
    return std::make_unique<ReferenceRun>(cloud, bucketsFor(cloud, bucketWidth(params)), context);
}

} // namespace ks::sdh
