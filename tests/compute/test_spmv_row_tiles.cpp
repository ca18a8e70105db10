// spmv row_tiles' plan (row_tiles.h), checked on the host: every row in one tile or among the long rows, every
// tile within its capacity in every panel, and y computed pass by pass from the plan equal to y from A.
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/workloads/spmv/row_tiles.h"
#include "compute/workloads/spmv/spmv_policy.h"
#include "spmv_runs.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ks {
namespace {

/// rows × cols with random lengths up to `longest` (some rows empty, a few long), distinct ascending columns and
/// small integer values, so sums are exact in double.
data::CsrMatrix randomMatrix(std::uint64_t rows, std::uint64_t cols, int longest, unsigned seed)
{
    std::mt19937 rng(seed);
    data::CsrMatrix a;
    a.rows = rows;
    a.cols = cols;
    a.rowPtr.push_back(0);
    for (std::uint64_t r = 0; r < rows; ++r) {
        int length = static_cast<int>(rng() % 7);
        if (rng() % 13 == 0)
            length = static_cast<int>(rng() % static_cast<unsigned>(longest + 1));
        length = std::min<int>(length, static_cast<int>(cols));
        std::vector<char> taken(cols, 0);
        for (int k = 0; k < length;) {
            const auto c = rng() % cols;
            if (!taken[c]) {
                taken[c] = 1;
                ++k;
            }
        }
        for (std::uint64_t c = 0; c < cols; ++c)
            if (taken[c]) {
                a.colIdx.push_back(static_cast<std::int32_t>(c));
                a.values.push_back(static_cast<double>(static_cast<int>(rng() % 19) - 9));
            }
        a.rowPtr.push_back(static_cast<std::int64_t>(a.colIdx.size()));
    }
    return a;
}

/// y = A·x the plan's way: for each panel, each tile's rows summed from that panel's segment, the first panel
/// storing and the others adding; rows of no tile left NaN.
std::vector<double> planProduct(const data::CsrMatrix& a, const spmv::RowTilePlan& plan, const std::vector<double>& x)
{
    std::vector<double> y(a.rows, std::nan(""));
    const int tiles = plan.tiles();
    const std::uint64_t stride = a.rows + static_cast<std::uint64_t>(tiles);
    for (int p = 0; p < plan.panels; ++p)
        for (int t = 0; t < tiles; ++t) {
            const int r0 = plan.tileRows[2 * t];
            const int rows = plan.tileRows[2 * t + 1] - r0;
            const std::uint16_t* offset = plan.offsets.data() + p * stride + r0 + t;
            const std::int64_t n0 = plan.segmentStart[static_cast<std::size_t>(p * (tiles + 1) + t)];
            for (int r = 0; r < rows; ++r) {
                double sum = 0;
                for (int k = offset[r]; k < offset[r + 1]; ++k) {
                    const std::int64_t position = n0 + k;
                    const std::int64_t source = plan.order.empty() ? position : plan.order[position];
                    const auto column = static_cast<std::uint64_t>(a.colIdx[source]);
                    EXPECT_EQ(column / plan.panelWidth, static_cast<std::uint64_t>(p)) << "row " << r0 + r;
                    EXPECT_GE(source, a.rowPtr[r0 + r]);
                    EXPECT_LT(source, a.rowPtr[r0 + r + 1]);
                    sum += a.values[source] * x[column];
                }
                y[r0 + r] = p == 0 ? sum : y[r0 + r] + sum;
            }
        }
    return y;
}

TEST(SpmvRowTiles, EveryRowIsInOneTileOrLongAndThePlanGivesAsProduct)
{
    for (const int panels : {1, 2, 3})
        for (const unsigned seed : {1u, 2u, 3u}) {
            const int capacity = 37;
            const int maxRows = 5;
            const data::CsrMatrix a = randomMatrix(1'003, 211, 90, seed);
            const spmv::RowTilePlan plan = spmv::planRowTiles(a, capacity, maxRows, panels);
            SCOPED_TRACE("panels " + std::to_string(panels) + ", seed " + std::to_string(seed));
            ASSERT_EQ(plan.panels, panels);
            EXPECT_EQ(plan.panelWidth, (211 + static_cast<std::uint64_t>(panels) - 1) / panels);
            EXPECT_EQ(plan.order.empty(), panels == 1);
            std::uint64_t inLongRows = 0;
            for (std::uint64_t r = 0; r < a.rows; ++r)
                if (a.rowPtr[r + 1] - a.rowPtr[r] > capacity)
                    inLongRows += static_cast<std::uint64_t>(a.rowPtr[r + 1] - a.rowPtr[r]);
            EXPECT_GT(inLongRows, 0u);
            if (panels > 1) {
                EXPECT_EQ(plan.order.size(), a.nnz() - inLongRows);
            }
            // Tiles in order; the rows between them are exactly the long ones.
            const int tiles = plan.tiles();
            ASSERT_GT(tiles, 0);
            std::uint64_t next = 0;
            for (int t = 0; t < tiles; ++t) {
                const auto r0 = static_cast<std::uint64_t>(plan.tileRows[2 * t]);
                const auto r1 = static_cast<std::uint64_t>(plan.tileRows[2 * t + 1]);
                for (; next < r0; ++next)
                    EXPECT_GT(a.rowPtr[next + 1] - a.rowPtr[next], capacity) << "row " << next << " in no tile";
                EXPECT_LT(r0, r1);
                EXPECT_LE(r1 - r0, static_cast<std::uint64_t>(maxRows));
                for (std::uint64_t r = r0; r < r1; ++r)
                    EXPECT_LE(a.rowPtr[r + 1] - a.rowPtr[r], capacity);
                const std::uint64_t stride = a.rows + static_cast<std::uint64_t>(tiles);
                for (int p = 0; p < panels; ++p)
                    EXPECT_LE(plan.offsets[p * stride + r1 + static_cast<std::uint64_t>(t)], capacity);
                next = r1;
            }
            for (; next < a.rows; ++next)
                EXPECT_GT(a.rowPtr[next + 1] - a.rowPtr[next], capacity);

            std::vector<double> x(a.cols);
            for (std::uint64_t c = 0; c < a.cols; ++c)
                x[c] = static_cast<double>(static_cast<int>(c % 11) - 5);
            const std::vector<double> y = planProduct(a, plan, x);
            for (std::uint64_t r = 0; r < a.rows; ++r) {
                if (a.rowPtr[r + 1] - a.rowPtr[r] > capacity) {
                    EXPECT_TRUE(std::isnan(y[r])) << "long row " << r;
                    continue;
                }
                double expected = 0;
                for (auto k = a.rowPtr[r]; k < a.rowPtr[r + 1]; ++k)
                    expected += a.values[k] * x[static_cast<std::uint64_t>(a.colIdx[k])];
                EXPECT_EQ(y[r], expected) << "row " << r;
            }
        }
}

TEST(SpmvRowTiles, EmptyMatricesAndMatricesOfOnlyLongRowsHaveNoTilesToRun)
{
    data::CsrMatrix empty;
    empty.rows = 0;
    empty.cols = 4;
    empty.rowPtr = {0};
    EXPECT_EQ(spmv::planRowTiles(empty, 8, 4, 2).tiles(), 0);

    data::CsrMatrix dense; // two rows of 6 with capacity 5: both long
    dense.rows = 2;
    dense.cols = 6;
    dense.rowPtr = {0, 6, 12};
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 6; ++c) {
            dense.colIdx.push_back(c);
            dense.values.push_back(1.0);
        }
    const spmv::RowTilePlan plan = spmv::planRowTiles(dense, 5, 4, 2);
    EXPECT_EQ(plan.tiles(), 0);
    EXPECT_TRUE(plan.order.empty());

    data::CsrMatrix zeros; // rows without non-zeros still form tiles (y is stored 0 for them)
    zeros.rows = 9;
    zeros.cols = 3;
    zeros.rowPtr.assign(10, 0);
    const spmv::RowTilePlan zeroPlan = spmv::planRowTiles(zeros, 5, 4, 1);
    EXPECT_EQ(zeroPlan.tiles(), 3);
}

TEST(SpmvRowTiles, PanelsFollowXAgainstL2)
{
    constexpr std::uint64_t kMiB = 1ULL << 20;
    EXPECT_EQ(spmv::rowTilePanels(16 * kMiB, 50 * kMiB, 16.0), 1); // float32 x of 4M: fits
    EXPECT_EQ(spmv::rowTilePanels(32 * kMiB, 50 * kMiB, 16.0), 2); // float64 x of 4M
    EXPECT_EQ(spmv::rowTilePanels(64 * kMiB, 50 * kMiB, 3.0), 3); // float64 x of 8M
    EXPECT_EQ(spmv::rowTilePanels(16 * kMiB, 60 * kMiB, 16.0), 1); // an H200's L2
    EXPECT_EQ(spmv::rowTilePanels(32 * kMiB, 60 * kMiB, 8.0), 2);
    EXPECT_EQ(spmv::rowTilePanels(32 * kMiB, 60 * kMiB, 3.0), 1); // short rows: a pass more costs y again
    EXPECT_EQ(spmv::rowTilePanels(64 * kMiB, 60 * kMiB, 3.0), 2);
    EXPECT_EQ(spmv::rowTilePanels(128 * kMiB, 60 * kMiB, 2.0), 3);
    EXPECT_EQ(spmv::rowTilePanels(1024 * kMiB, 50 * kMiB, 16.0), spmv::RowTileThresholds::kMaxPanels);
    EXPECT_EQ(spmv::rowTilePanels(64 * kMiB, 0, 16.0), 1); // L2 unknown
    EXPECT_EQ(spmv::rowTilePanels(0, 50 * kMiB, 16.0), 1);
}

TEST(SpmvRowTiles, OutOfRangeSettingsAreRefused)
{
    data::CsrMatrix a;
    a.rows = 1;
    a.cols = 1;
    a.rowPtr = {0, 0};
    EXPECT_THROW(spmv::planRowTiles(a, 0, 4, 1), std::invalid_argument);
    EXPECT_THROW(spmv::planRowTiles(a, 70'000, 4, 1), std::invalid_argument);
    EXPECT_THROW(spmv::planRowTiles(a, 8, 0, 1), std::invalid_argument);
    EXPECT_THROW(spmv::planRowTiles(a, 8, 4, 0), std::invalid_argument);
    EXPECT_THROW(spmv::planRowTiles(a, 8, 4, spmv::RowTileThresholds::kMaxPanels + 1), std::invalid_argument);
}

/// The variant's result for `d` with run parameters `params`, after two runs.
Result runVariant(const Workload& spmv, const std::string& id, const data::Dataset& d, const ParamSet& params)
{
    return test::prepareAndRun(spmv, id, d, params)->fetch();
}

// On a GPU: row_tiles in one, two and three panels (forced: at these sizes x fits in L2, so the default is one)
// against the reference, on the registry's test classes and sizes (empty rows, rows longer than a tile, 1 row).
TEST(SpmvRowTilesGpu, OneTwoAndThreePanelsMatchTheReferenceOnEveryClass)
{
    const Workload& spmv = *defaultRegistry().find("spmv");
    if (const auto why = unavailableReason(*spmv.findVariant("row_tiles")); !why.empty())
        GTEST_SKIP() << why;
    const std::vector<std::map<std::string, std::string>> classes
        = {{{"per_row", "6"}}, {{"per_row", "0.4"}}, {{"aspect", "2.7"}, {"per_row", "5"}},
            {{"aspect", "0.3"}, {"per_row", "3"}}, {{"pattern", "powerlaw"}, {"per_row", "8"}, {"exponent", "1.6"}},
            {{"pattern", "laplacian2d"}}, {{"pattern", "banded"}, {"bandwidth", "2"}}};
    unsigned seed = 11;
    for (const std::uint64_t rows : {1ULL, 31ULL, 1000ULL, 100003ULL})
        for (auto generator : classes) {
            generator["rows"] = std::to_string(rows);
            generator["seed"] = std::to_string(seed++);
            const data::Dataset d = spmv.generate(ParamSet::parse(spmv.generatorParameters(), generator));
            for (const char* precision : {"f64", "f32"}) {
                const ParamSet base = ParamSet::parse(spmv.parameters(), {{"precision", precision}});
                const Result reference = runVariant(spmv, "reference", d, base);
                for (const char* panels : {"1", "2", "3"}) {
                    const ParamSet params
                        = ParamSet::parse(spmv.parameters(), {{"precision", precision}, {"panels", panels}});
                    const Delta delta = spmv.compare(runVariant(spmv, "row_tiles", d, params), reference, d, params);
                    EXPECT_LE(delta.value, delta.tolerance)
                        << d.meta().name << ", " << precision << ", " << panels << " panels";
                }
            }
        }
}

// On a GPU: a long row cut into several chunks has its partial sums added by the block that finishes it last, found
// by an arrival count each run must leave at zero. Rows just past row_tiles' capacity (one chunk), rows of several
// chunks of 4,096 (one of exactly two), and rows past the fixed-lane kernels' limits (an odd number of narrow chunks
// for scalar); every variant that cuts long rows runs three times with y poisoned again (reset()) before each run,
// and each run's y is checked against the reference: a count left behind would leave the long rows unwritten.
TEST(SpmvRowTilesGpu, EveryRunWritesTheLongRowsAgain)
{
    const Workload& spmv = *defaultRegistry().find("spmv");
    if (const auto why = unavailableReason(*spmv.findVariant("row_tiles")); !why.empty())
        GTEST_SKIP() << why;
    data::SparseSystem system;
    data::CsrMatrix& a = system.matrix;
    a.rows = 3300;
    a.cols = 30000;
    a.rowPtr.push_back(0);
    std::mt19937 rng(5);
    const std::vector<int> longLengths = {4094, 9000, 4096, 700, 12289, 65, 4095, 3000, 29999, 100, 8192};
    for (std::uint64_t r = 0; r < a.rows; ++r) {
        const int length = r % 300 == 7 ? longLengths[(r / 300) % longLengths.size()] : static_cast<int>(rng() % 9);
        const std::uint64_t start = rng() % a.cols;
        for (int k = 0; k < length; ++k) {
            a.colIdx.push_back(static_cast<std::int32_t>((start + static_cast<std::uint64_t>(k)) % a.cols));
            a.values.push_back(static_cast<double>(static_cast<int>(rng() % 7) - 3));
        }
        std::sort(a.colIdx.end() - length, a.colIdx.end());
        a.rowPtr.push_back(static_cast<std::int64_t>(a.colIdx.size()));
    }
    system.x.resize(a.cols);
    for (double& v : system.x)
        v = static_cast<double>(static_cast<int>(rng() % 9) - 4);
    const data::Dataset d = data::makeSparseDataset(system, "long rows", "test");
    for (const char* precision : {"f64", "f32"}) {
        const ParamSet params = ParamSet::parse(spmv.parameters(), {{"precision", precision}});
        const Result reference = runVariant(spmv, "reference", d, params);
        // row_tiles in one pass (the long rows inside its grid) and in two and three (beside them); the fixed-lane
        // variants with their finishing kernel.
        const std::vector<std::pair<const char*, const char*>> runs
            = {{"row_tiles", "1"}, {"row_tiles", "2"}, {"row_tiles", "3"}, {"scalar", "0"}, {"subwarp", "0"},
                {"vector", "0"}, {"adaptive", "0"}, {"row_binning", "0"}};
        for (const auto& [id, panels] : runs) {
            const ParamSet runParams
                = ParamSet::parse(spmv.parameters(), {{"precision", precision}, {"panels", panels}});
            RunContext context {0, &steadyClock()};
            auto run = spmv.findVariant(id)->prepare(d, runParams, context);
            for (int r = 0; r < 3; ++r) {
                run->reset();
                run->timer().start();
                run->run();
                run->timer().stop();
                run->timer().elapsedMs();
                const Delta delta = spmv.compare(run->fetch(), reference, d, runParams);
                EXPECT_LE(delta.value, delta.tolerance)
                    << id << " (" << panels << " panels), " << precision << ", run " << r + 1;
            }
        }
    }
}

} // namespace
} // namespace ks
