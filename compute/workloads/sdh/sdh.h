#pragma once

// The sdh workload (seed 001): the spatial distance histogram of a point cloud — every one of the N(N−1)/2 pair
// distances counted into buckets of width W, bucket ⌊d / W⌋, with as many buckets as the bounding box's diagonal
// needs.

#include "compute/core/cpu_run.h"
#include "compute/core/variant.h"
#include "compute/core/workload.h"
#include "data/point_cloud.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks {
class Registry;
}

namespace ks::sdh {

/// Number of pairs of n points, n(n − 1)/2.
inline std::uint64_t pairCount(std::uint64_t n)
{
    return n < 2 ? 0 : n * (n - 1) / 2;
}

/// The histogram's shape for a cloud and a bucket width: ⌊diagonal / W⌋ + 1 buckets, so every pair distance (at
/// most the bounding box's diagonal) has one.
struct Buckets {
    double width = 0.0;
    std::uint64_t count = 0;
};
Buckets bucketsFor(const data::PointCloud& cloud, double width);
/// The bounding-box diagonal of a cloud's first `points` points (all of them when it has fewer).
double boundingDiagonal(const data::PointCloud& cloud, std::size_t points);
/// The histogram for a diagonal and a bucket width, or a ParameterError naming bucket_width when the width is not
/// positive or the buckets would not fit: at most kMaxBuckets, and one copy (8 bytes a bucket) within the memory
/// available now. `diagonalSource` says where the diagonal comes from ("this cloud", "about, for box=…").
Buckets checkedBuckets(double width, double diagonal, const std::string& diagonalSource);
/// The most buckets a histogram may have: 800 MB a copy, and the OpenMP variant keeps one a thread.
constexpr double kMaxBuckets = 1e8;

/// The `bucket_width` parameter.
double bucketWidth(const ParamSet& params);

/// An sdh Result: quantity "histogram", one count per bucket.
Result makeResult(std::vector<std::uint64_t> counts);

/// Adds the sdh workload to the registry.
void registerSdh(Registry& registry);

} // namespace ks::sdh
