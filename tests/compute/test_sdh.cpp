// The sdh workload on configurations checked by hand — points on a line, a cube's corners, coincident points —
// for every variant (CPU ones here, CUDA ones where a device exists), the bucket count, the Delta's total check,
// and the histogram written by --output.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "compute/core/runner.h"
#include "compute/workloads/sdh/screen.h"
#include "compute/workloads/sdh/sdh.h"
#include "data/text_file.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>
#include <unistd.h>

namespace ks {
namespace {

const Workload& sdhWorkload()
{
    return *defaultRegistry().find("sdh");
}

data::Dataset cloud(std::vector<double> x, std::vector<double> y, std::vector<double> z)
{
    data::PointCloud c;
    c.x = std::move(x);
    c.y = std::move(y);
    c.z = std::move(z);
    return data::makePointDataset(std::move(c), "hand", "test");
}

Result runVariant(const std::string& id, const data::Dataset& d, double width)
{
    const auto params = ParamSet::parse(sdhWorkload().parameters(), {{"bucket_width", std::to_string(width)}});
    RunContext context {0, &steadyClock()};
    auto run = sdhWorkload().findVariant(id)->prepare(d, params, context);
    run->run();
    run->run(); // a second repetition starts from a zeroed histogram
    return run->fetch();
}

/// Ten points 0, 1, …, 9 on the x axis: distance k for 10 − k pairs. Width 0.64 keeps every k/W away from a bucket
/// edge (k/0.64 = 1.5625, 3.125, …), so even the float variant must count exactly.
std::vector<std::uint64_t> lineHistogram(std::size_t buckets)
{
    std::vector<std::uint64_t> counts(buckets, 0);
    for (int k = 1; k <= 9; ++k)
        counts[static_cast<std::size_t>(k / 0.64)] += static_cast<std::uint64_t>(10 - k);
    return counts;
}

class SdhByHand : public ::testing::TestWithParam<std::string> { };

TEST_P(SdhByHand, PointsOnALineAndACubesCorners)
{
    const Variant& v = *sdhWorkload().findVariant(GetParam());
    if (const auto reason = unavailableReason(v); !reason.empty())
        GTEST_SKIP() << reason;

    const auto line
        = cloud({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<double>(10, 5.0), std::vector<double>(10, -2.0));
    // Diagonal 9 → ⌊9 / 0.64⌋ + 1 = 15 buckets.
    EXPECT_EQ(runVariant(GetParam(), line, 0.64).counts, lineHistogram(15));

    // The unit cube's 8 corners: 12 edges (1), 12 face diagonals (√2), 4 space diagonals (√3). Width 0.4: buckets
    // ⌊2.5⌋ = 2, ⌊3.54⌋ = 3, ⌊4.33⌋ = 4, of ⌊√3 / 0.4⌋ + 1 = 5.
    const auto cube = cloud({0, 1, 0, 1, 0, 1, 0, 1}, {0, 0, 1, 1, 0, 0, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 1});
    EXPECT_EQ(runVariant(GetParam(), cube, 0.4).counts, (std::vector<std::uint64_t> {0, 0, 12, 12, 4}));

    // Coincident points: every pair at distance 0, in bucket 0 — the only bucket.
    const auto same = cloud(std::vector<double>(5, 3.0), std::vector<double>(5, 3.0), std::vector<double>(5, 3.0));
    EXPECT_EQ(runVariant(GetParam(), same, 1.0).counts, (std::vector<std::uint64_t> {10}));

    // One point: no pairs, one empty bucket.
    EXPECT_EQ(runVariant(GetParam(), cloud({1}, {2}, {3}), 1.0).counts, (std::vector<std::uint64_t> {0}));
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, SdhByHand,
    ::testing::Values("reference", "cpu_openmp", "baseline", "shared_lr", "shared_lr_local", "shared_lr_copies",
        "shared_lr_soa", "tiled_f32", "tiled_f64_exact", "tiled_f32_multi"),
    [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(SdhWorkload, EveryRegisteredVariantIsCheckedByHand)
{
    std::size_t listed = 0;
    for (const auto& v : sdhWorkload().variants())
        for (const char* id : {"reference", "cpu_openmp", "baseline", "shared_lr", "shared_lr_local",
                 "shared_lr_copies", "shared_lr_soa", "tiled_f32", "tiled_f64_exact", "tiled_f32_multi"})
            listed += v.id == id;
    EXPECT_EQ(listed, sdhWorkload().variants().size()) << "add the new variant to SdhByHand";
}

TEST(SdhWorkload, BucketsFollowTheBoundingBoxDiagonal)
{
    data::PointCloud c;
    c.x = {0, 3};
    c.y = {0, 4};
    c.z = {0, 0};
    EXPECT_EQ(sdh::bucketsFor(c, 1.0).count, 6u); // diagonal 5 → buckets 0 … 5
    EXPECT_EQ(sdh::bucketsFor(c, 5.0).count, 2u);
    EXPECT_EQ(sdh::bucketsFor(c, 10.0).count, 1u);
    EXPECT_THROW(sdh::bucketsFor(c, 0.0), ParameterError);
    EXPECT_THROW(sdh::bucketsFor(c, 1e-9), ParameterError) << "5·10⁹ buckets are refused";
}

TEST(SdhWorkload, ADeltaFlagsALostPairAndAMovedOne)
{
    const auto line = cloud({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<double>(10, 0.0), std::vector<double>(10, 0.0));
    const auto params = ParamSet::parse(sdhWorkload().parameters(), {{"bucket_width", "0.64"}});
    const Result reference = sdh::makeResult(lineHistogram(15));

    Result moved = reference; // one pair in the neighbouring bucket: the total is still right
    --moved.counts[1];
    ++moved.counts[2];
    const Delta m = sdhWorkload().compare(moved, reference, line, params);
    EXPECT_DOUBLE_EQ(m.value, 2.0 / (2.0 * 45.0));
    EXPECT_FALSE(m.withinTolerance()) << "one pair in 45 is far over 1e-3";
    // The distribution: two buckets one pair off, the rest exact; integer counts have no ULP, so the step histogram
    // is the count difference; no per-bucket tolerance (the Delta's is on the L1 fraction).
    ASSERT_TRUE(m.relError && m.stepError);
    EXPECT_EQ(m.stepError->measure, "count_diff");
    EXPECT_EQ(m.stepError->elements, reference.counts.size());
    EXPECT_EQ(m.stepError->counts[1], 2u);
    EXPECT_EQ(m.stepError->counts[0], reference.counts.size() - 2);
    EXPECT_EQ(m.relError->compared(), reference.counts.size());
    EXPECT_EQ(m.relError->counts[0], reference.counts.size() - 2);
    EXPECT_FALSE(m.relError->tolerance);

    Result lost = reference; // a pair missing: always wrong
    --lost.counts[3];
    EXPECT_TRUE(std::isinf(sdhWorkload().compare(lost, reference, line, params).value));

    EXPECT_TRUE(sdhWorkload().compare(reference, reference, line, params).withinTolerance());
    // Without a reference (too many pairs for it) only the total is checked.
    EXPECT_TRUE(sdhWorkload().compare(reference, Result {}, line, params).withinTolerance());
    EXPECT_FALSE(sdhWorkload().compare(lost, Result {}, line, params).withinTolerance());
    EXPECT_FALSE(sdhWorkload().compare(reference, Result {}, line, params).relError) << "no bucket was compared";
}

// tiled_f64_exact's float screen rests on a bound on the approximate square root (screen.h): checked here on every
// positive normal float, on the device at hand.
TEST(SdhScreenGpu, TheSquareRootIsWithinTheScreensBound)
{
    if (const auto reason = unavailableReason(*sdhWorkload().findVariant("tiled_f64_exact")); !reason.empty())
        GTEST_SKIP() << reason;
#if KS_HAVE_CUDA
    const double worst = sdh::gpu::measureScreenSqrtError();
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", worst);
    RecordProperty("sqrt_approx_max_rel_error", text);
    EXPECT_GT(worst, 0.0) << "an approximate square root that is never off was not measured";
    EXPECT_LE(worst, sdh::gpu::kScreenSqrtError);
#endif
}

/// Random points of an integer lattice: at bucket width 1 every d² is an integer, so many pairs lie on a bucket edge
/// (d² a perfect square) or a hair from one (d² = m² + k: q − m ≈ k / 2m), where the screen must defer.
data::Dataset latticeCloud(std::size_t points, int side, double offset)
{
    std::mt19937_64 random(7);
    std::uniform_int_distribution<int> coordinate(0, side);
    std::vector<double> x(points), y(points), z(points);
    for (std::size_t i = 0; i < points; ++i) {
        x[i] = offset + coordinate(random);
        y[i] = offset + coordinate(random);
        z[i] = offset + coordinate(random);
    }
    return cloud(std::move(x), std::move(y), std::move(z));
}

TEST(SdhScreenGpu, ExactOnLatticePointsNearBucketEdges)
{
    const Variant& exact = *sdhWorkload().findVariant("tiled_f64_exact");
    if (const auto reason = unavailableReason(exact); !reason.empty())
        GTEST_SKIP() << reason;
    // 2,600 buckets; near the origin, and a million away (the screen's coordinates are taken from the box's centre).
    for (const double offset : {0.0, 1e6}) {
        const auto points = latticeCloud(12'000, 1'500, offset);
        const auto params = ParamSet::parse(sdhWorkload().parameters(), {{"bucket_width", "1"}});
        RunContext context {0, &steadyClock()};
        auto run = exact.prepare(points, params, context);
        run->run();
        const Result got = run->fetch();
        const Facts facts = run->facts();
        EXPECT_EQ(got.counts, runVariant("reference", points, 1.0).counts) << "offset " << offset;
        double placedInDouble = -1.0;
        for (const auto& [name, value] : facts)
            if (name == "pairs placed in double")
                placedInDouble = value;
        EXPECT_GT(placedInDouble, 0.0) << "the pairs on bucket edges are placed in double";
        EXPECT_LT(placedInDouble, 0.05 * static_cast<double>(sdh::pairCount(12'000)));
    }
}

TEST(SdhWorkload, OutputWritesOneBucketPerRow)
{
    const auto path
        = (std::filesystem::temp_directory_path() / ("ks_sdh_" + std::to_string(::getpid()) + ".csv")).string();
    writeResultFile(path, sdh::makeResult({3, 0, 7}));
    EXPECT_EQ(data::readTextFile(path), "histogram\n3\n0\n7\n");
    std::filesystem::remove(path);
}

} // namespace
} // namespace ks
