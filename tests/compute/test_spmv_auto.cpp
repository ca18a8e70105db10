// The spmv `auto` variant's decision: row statistics of small matrices checked by hand, and the choice for each
// matrix class the thresholds (spmv_policy.h) separate, on generated matrices as the variant sees them.
#include "compute/core/registry.h"
#include "compute/workloads/spmv/auto_choice.h"
#include "compute/workloads/spmv/spmv_policy.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>

namespace ks {
namespace {

/// Rows {0, 1}, {}, {2}, {0, 1, 2, 3}: lengths 2, 0, 1, 4 in a 4 × 4 matrix.
data::CsrMatrix handMatrix()
{
    data::CsrMatrix a;
    a.rows = 4;
    a.cols = 4;
    a.rowPtr = {0, 2, 2, 3, 7};
    a.colIdx = {0, 1, 2, 0, 1, 2, 3};
    a.values.assign(7, 1.0);
    return a;
}

TEST(SpmvAuto, RowStatisticsOfASmallMatrix)
{
    const spmv::RowStats s = spmv::rowStats(handMatrix());
    EXPECT_EQ(s.rows, 4u);
    EXPECT_EQ(s.nnz, 7u);
    EXPECT_DOUBLE_EQ(s.mean, 1.75);
    // Deviations 0.25, −1.75, −0.75, 2.25: squares 0.0625 + 3.0625 + 0.5625 + 5.0625 = 8.75 over 4 rows.
    EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(8.75 / 4));
    EXPECT_EQ(s.longest, 4u);
    EXPECT_EQ(s.emptyRows, 1u);
    // Spans 2, 1 and 4 columns of 4 over the three non-empty rows.
    EXPECT_DOUBLE_EQ(s.meanSpan, (2.0 + 1.0 + 4.0) / 3.0 / 4.0);
    EXPECT_DOUBLE_EQ(s.ellPadding(), 4.0 * 4.0 / 7.0);
    // Offsets col − row: row 0 has 0, 1; row 2 has 0; row 3 has −3, −2, −1, 0: five diagonals, 5 × 4 slots for 7.
    EXPECT_EQ(s.diagonals, 5u);
    EXPECT_DOUBLE_EQ(s.diaFill(), 5.0 * 4.0 / 7.0);
}

TEST(SpmvAuto, DiagonalOffsetsAscendAndStopPastTheLimit)
{
    EXPECT_EQ(spmv::diagonalOffsets(handMatrix(), 10), (std::vector<std::int64_t> {-3, -2, -1, 0, 1}));
    // More than the limit: the first limit + 1 found, in order (rows 0 and 2 give 0 and 1, row 3 then −3).
    EXPECT_EQ(spmv::diagonalOffsets(handMatrix(), 2), (std::vector<std::int64_t> {-3, 0, 1}));
    // A tridiagonal matrix of 6 rows: three diagonals whatever its size.
    data::CsrMatrix t;
    t.rows = 6;
    t.cols = 6;
    t.rowPtr = {0};
    for (std::int32_t row = 0; row < 6; ++row) {
        for (std::int32_t col = std::max(0, row - 1); col <= std::min(5, row + 1); ++col)
            t.colIdx.push_back(col);
        t.rowPtr.push_back(static_cast<std::int64_t>(t.colIdx.size()));
    }
    t.values.assign(t.colIdx.size(), 1.0);
    EXPECT_EQ(spmv::diagonalOffsets(t, spmv::DiaThresholds::kMaxDiagonals), (std::vector<std::int64_t> {-1, 0, 1}));
}

TEST(SpmvAuto, AnEmptyMatrixHasZeroStatisticsAndStillAChoice)
{
    data::CsrMatrix a;
    a.rows = 3;
    a.cols = 5;
    a.rowPtr = {0, 0, 0, 0};
    const spmv::RowStats s = spmv::rowStats(a);
    EXPECT_EQ(s.nnz, 0u);
    EXPECT_EQ(s.emptyRows, 3u);
    EXPECT_EQ(s.meanSpan, 0.0);
    EXPECT_FALSE(spmv::chooseKernel(s).variant.empty());
}

spmv::RowStats stats(std::uint64_t rows, double mean, std::uint64_t longest)
{
    spmv::RowStats s;
    s.rows = rows;
    s.cols = rows;
    s.mean = mean;
    s.nnz = static_cast<std::uint64_t>(mean * static_cast<double>(rows));
    s.longest = longest;
    return s;
}

TEST(SpmvAuto, EachClassGetsItsKernelAndTheReasonNamesTheFigures)
{
    // A power-law matrix: the longest row thousands of times the mean.
    const auto skewed = spmv::chooseKernel(stats(4'000'000, 8, 456'099));
    EXPECT_EQ(skewed.variant, "row_tiles");
    EXPECT_NE(skewed.reason.find("456099"), std::string::npos) << skewed.reason;
    // A 2-D Laplacian: five per row, padding under 1.1; its diagonals not counted, ell.
    EXPECT_EQ(spmv::chooseKernel(stats(16'000'000, 4.9995, 5)).variant, "ell");
    // The same on its five diagonals: dia, and the reason gives the count.
    spmv::RowStats laplacian = stats(16'000'000, 4.9995, 5);
    laplacian.diagonals = 5;
    const auto stencil = spmv::chooseKernel(laplacian);
    EXPECT_EQ(stencil.variant, "dia");
    EXPECT_NE(stencil.reason.find("5 diagonals"), std::string::npos) << stencil.reason;
    // Too many diagonals (the count stops at the limit + 1), or diagonals too empty: ell again.
    laplacian.diagonals = spmv::DiaThresholds::kMaxDiagonals + 1;
    EXPECT_EQ(spmv::chooseKernel(laplacian).variant, "ell");
    laplacian.diagonals = 7;
    EXPECT_EQ(spmv::chooseKernel(laplacian).variant, "ell");
    // A banded matrix of 61 per row.
    EXPECT_EQ(spmv::chooseKernel(stats(2'000'000, 61, 61)).variant, "ell");
    // Regular, but too few rows to keep a thread per row busy: the seed's 50,000 rows of about 50.
    EXPECT_EQ(spmv::chooseKernel(stats(50'000, 50, 80)).variant, "row_tiles");
    // Short rows whose longest pads ELL past its limit.
    EXPECT_EQ(spmv::chooseKernel(stats(8'000'000, 3, 16)).variant, "row_tiles");
    // Regular in length, but each row's columns spread over the whole of x: ELL's neighbouring threads share no
    // lines of x.
    spmv::RowStats random16 = stats(4'000'000, 16, 35);
    random16.meanSpan = 0.88;
    const auto spread = spmv::chooseKernel(random16);
    EXPECT_EQ(spread.variant, "row_tiles");
    EXPECT_NE(spread.reason.find("88%"), std::string::npos) << spread.reason;
    // Long dense-ish rows, 20,000 of 2,000: a block per chunk of each row.
    const auto dense = spmv::chooseKernel(stats(20'000, 2000, 2100));
    EXPECT_EQ(dense.variant, "row_binning");
    EXPECT_NE(dense.reason.find("long rows"), std::string::npos) << dense.reason;
}

TEST(SpmvAuto, GeneratedMatricesOfEachPatternGetTheChoiceTheirClassExpects)
{
    const Workload& spmv = *defaultRegistry().find("spmv");
    const auto choiceFor = [&](const std::map<std::string, std::string>& values) {
        const data::Dataset d = spmv.generate(ParamSet::parse(spmv.generatorParameters(), values));
        return spmv::chooseKernel(spmv::rowStats(d.as<data::SparseSystem>().matrix)).variant;
    };
    EXPECT_EQ(
        choiceFor({{"pattern", "powerlaw"}, {"rows", "200000"}, {"per_row", "8"}, {"exponent", "1.6"}}), "row_tiles");
    EXPECT_EQ(choiceFor({{"pattern", "laplacian2d"}, {"rows", "1000000"}}), "dia");
    EXPECT_EQ(choiceFor({{"pattern", "laplacian3d"}, {"rows", "1000000"}}), "dia");
    EXPECT_EQ(choiceFor({{"pattern", "banded"}, {"rows", "600000"}, {"bandwidth", "30"}}), "dia");
    EXPECT_EQ(choiceFor({{"pattern", "uniform"}, {"rows", "1000000"}, {"per_row", "3"}}), "row_tiles");
    EXPECT_EQ(choiceFor({{"pattern", "uniform"}, {"rows", "600000"}, {"per_row", "16"}}), "row_tiles");
    EXPECT_EQ(choiceFor({{"pattern", "uniform"}, {"rows", "2000"}, {"per_row", "1000"}}), "row_binning");
}

} // namespace
} // namespace ks
