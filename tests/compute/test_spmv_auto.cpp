// The spmv `auto` variant's decision: row statistics of small matrices checked by hand, and the choice for each
// matrix class the thresholds (spmv_policy.h) separate, on generated matrices as the variant sees them.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/workloads/spmv/auto_choice.h"
#include "compute/workloads/spmv/spmv_policy.h"
#include "spmv_runs.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
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

/// A matrix of `rows` × `cols` whose non-zeros lie on the diagonals `offsets` (col − row), every `hole`-th entry of
/// each left out (a stencil's boundary gaps), values and x small integers.
data::SparseSystem bands(std::uint64_t rows, std::uint64_t cols, const std::vector<std::int64_t>& offsets, int hole)
{
    data::SparseSystem system;
    data::CsrMatrix& a = system.matrix;
    a.rows = rows;
    a.cols = cols;
    a.rowPtr.push_back(0);
    int entry = 0;
    for (std::uint64_t r = 0; r < rows; ++r) {
        for (const std::int64_t offset : offsets) { // ascending, so the columns are
            const std::int64_t c = static_cast<std::int64_t>(r) + offset;
            if (c < 0 || c >= static_cast<std::int64_t>(cols) || ++entry % hole == 0)
                continue;
            a.colIdx.push_back(static_cast<std::int32_t>(c));
            a.values.push_back(static_cast<double>(entry % 7 - 3));
        }
        a.rowPtr.push_back(static_cast<std::int64_t>(a.colIdx.size()));
    }
    system.x.resize(cols);
    for (std::uint64_t c = 0; c < cols; ++c)
        system.x[c] = static_cast<double>(static_cast<int>(c % 9) - 4) * 0.5;
    return system;
}

// On a GPU: dia on wide and tall band matrices with gaps (diagonals that leave the matrix on either side), against
// the reference; its bytes are the slots inside the matrix, offsets, x and y, no more than the CSR arrays.
TEST(SpmvDiaGpu, WideAndTallBandsMatchTheReference)
{
    const Workload& spmv = *defaultRegistry().find("spmv");
    if (const auto why = unavailableReason(*spmv.findVariant("dia")); !why.empty())
        GTEST_SKIP() << why;
    for (const auto& [rows, cols] : {std::pair<std::uint64_t, std::uint64_t> {2000, 1500}, {1500, 2000}, {1, 40}}) {
        const data::Dataset d
            = data::makeSparseDataset(bands(rows, cols, {-700, -7, -1, 0, 3, 40, 1700}, 11), "bands", "test");
        for (const char* precision : {"f64", "f32"}) {
            const ParamSet params = ParamSet::parse(spmv.parameters(), {{"precision", precision}});
            const Result reference = test::prepareAndRun(spmv, "reference", d, params)->fetch();
            auto dia = test::prepareAndRun(spmv, "dia", d, params);
            const Delta delta = spmv.compare(dia->fetch(), reference, d, params);
            EXPECT_LE(delta.value, delta.tolerance) << rows << " × " << cols << ", " << precision;
            ASSERT_TRUE(dia->bytesMoved().has_value());
            EXPECT_LE(*dia->bytesMoved(), spmv.cost(d, params).bytes) << rows << " × " << cols << ", " << precision;
        }
    }
}

// On a GPU: a value of x that is not finite (or not finite in float32) makes dia skip, and auto, which chose dia
// from the matrix, runs what it would have chosen without it and says so.
TEST(SpmvDiaGpu, AnXThatIsNotFiniteMakesDiaSkipAndAutoChooseAgain)
{
    const Workload& spmv = *defaultRegistry().find("spmv");
    if (const auto why = unavailableReason(*spmv.findVariant("dia")); !why.empty())
        GTEST_SKIP() << why;
    data::SparseSystem system = bands(600'000, 600'000, {-1, 0, 1}, 1'000'000);
    system.x[5] = 1e39; // finite as a double, infinite as a float
    const data::Dataset d = data::makeSparseDataset(system, "tridiagonal", "test");
    ASSERT_EQ(spmv::chooseKernel(spmv::rowStats(system.matrix)).variant, "dia");
    RunContext context {0, &steadyClock()};
    const ParamSet f64 = ParamSet::parse(spmv.parameters(), {{"precision", "f64"}});
    const ParamSet f32 = ParamSet::parse(spmv.parameters(), {{"precision", "f32"}});
    EXPECT_NO_THROW(spmv.findVariant("dia")->prepare(d, f64, context));
    EXPECT_THROW(spmv.findVariant("dia")->prepare(d, f32, context), SkipRun);
    const std::string note = spmv.findVariant("auto")->prepare(d, f32, context)->note();
    EXPECT_EQ(note.rfind("chose ell", 0), 0u) << note;
    EXPECT_NE(note.find("dia skips: x holds a value that is not finite in float32"), std::string::npos) << note;
    system.x[5] = std::numeric_limits<double>::infinity();
    const data::Dataset infinite = data::makeSparseDataset(system, "tridiagonal", "test");
    EXPECT_THROW(spmv.findVariant("dia")->prepare(infinite, f64, context), SkipRun);
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
