// The generators behind the built-in sdh data: points uniform in a box (the seed's setting) or Gaussian clusters.

#include "data/cancel.h"
#include "data/cancellable_loop.h"
#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/number_text.h"
#include "data/point_cloud.h"
#include "data/random.h"
#include "data/reader_messages.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ks::data {

namespace {

constexpr const char* kGenerator = "generator";

// CounterRng streams: coordinate a of point i is a function of (seed, stream + a, i) only, so the cloud is the same
// for any thread count. normal(s) draws from streams 2s and 2s + 1, hence the spacing.
constexpr std::uint64_t kUniformStream = 1; // uniform, streams 1..3, index = point
constexpr std::uint64_t kCentreStream = 8; // uniform, streams 8..10, index = cluster
constexpr std::uint64_t kMemberStream = 12; // uniform, index = point: its cluster
constexpr std::uint64_t kOffsetStream = 16; // normal(): streams 32..37, index = point

void checkGenerator(const CloudGenerator& g)
{
    if (g.points < 1)
        throw DatasetError(kGenerator, "points", "must be at least 1");
    if (!std::isfinite(g.box) || !(g.box > 0.0))
        throw DatasetError(kGenerator, "box", "must be positive and finite, got " + formatNumber(g.box));
    if (g.shape == CloudShape::GaussianClusters) {
        if (g.clusters < 1)
            throw DatasetError(kGenerator, "clusters", "must be at least 1");
        if (!std::isfinite(g.spread) || g.spread < 0.0)
            throw DatasetError(kGenerator, "spread", "must be non-negative and finite, got " + formatNumber(g.spread));
    }
}

} // namespace

PointCloud generateCloud(const CloudGenerator& g)
{
    checkGenerator(g);
    requireHostMemory(saturatingMul(g.points, 3 * sizeof(double)), kGenerator, plural(g.points, "point"),
        "generating the point cloud");
    const CounterRng rng(g.seed);
    PointCloud cloud;
    cloud.storedType = "float64";
    // A stop request (Ctrl-C, Cancel) is checked while the memory is first touched and before each block of points:
    // the blocks left are skipped, then it throws.
    const CancelPoint cancel = ambientCancelPoint();
    for (auto* axis : {&cloud.x, &cloud.y, &cloud.z})
        resizeCancellably(*axis, g.points, cancel);
    double* axes[3] = {cloud.x.data(), cloud.y.data(), cloud.z.data()};
    const auto n = static_cast<std::int64_t>(g.points);
    if (g.shape == CloudShape::UniformBox) {
        parallelForCancellable(n, cancel, [&](std::int64_t q) {
            const auto i = static_cast<std::uint64_t>(q);
            for (std::uint64_t a = 0; a < 3; ++a)
                axes[a][i] = g.box * rng.uniform(kUniformStream + a, i);
        });
        return cloud;
    }
    std::vector<double> centres(g.clusters * 3);
    for (std::uint64_t c = 0; c < g.clusters; ++c)
        for (std::uint64_t a = 0; a < 3; ++a)
            centres[c * 3 + a] = g.box * rng.uniform(kCentreStream + a, c);
    const double sigma = g.spread * g.box;
    parallelForCancellable(n, cancel, [&](std::int64_t q) {
        const auto i = static_cast<std::uint64_t>(q);
        const std::uint64_t c = std::min<std::uint64_t>(g.clusters - 1,
            static_cast<std::uint64_t>(rng.uniform(kMemberStream, i) * static_cast<double>(g.clusters)));
        for (std::uint64_t a = 0; a < 3; ++a)
            axes[a][i] = centres[c * 3 + a] + sigma * rng.normal(kOffsetStream + a, i);
    });
    cloud.notes.push_back(plural(g.clusters, "Gaussian cluster") + " of standard deviation " + formatNumber(sigma)
        + "; points may lie outside the box");
    return cloud;
}

} // namespace ks::data
