// The small helpers every reader shares, each kept once in data/: blanks and byte-order marks (line_cursor.h),
// numbers in text (number_text.h), the wording of messages (reader_messages.h), saturating sizes (host_memory.h),
// HDF5 paths and the one-dataset search (hdf5_file.h), and DrawSequence (random.h).

#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/line_cursor.h"
#include "data/number_text.h"
#include "data/random.h"
#include "data/reader_messages.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::errorSays;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

TEST(LineText, TrimmedDropsEveryBlankAtBothEndsAndNothingInside)
{
    EXPECT_EQ(trimmed(" \t\v\f\rx \t y\r\f\v\t "), "x \t y");
    EXPECT_EQ(trimmed(" \t\r"), "");
    EXPECT_EQ(trimmed("x"), "x");
}

TEST(LineText, WithoutBomDropsOnlyALeadingUtf8Mark)
{
    EXPECT_EQ(withoutBom("\xEF\xBB\xBFx y z"), "x y z");
    EXPECT_EQ(withoutBom("x\xEF\xBB\xBF"), "x\xEF\xBB\xBF");
    EXPECT_EQ(withoutBom("\xEF\xBB"), "\xEF\xBB");
}

TEST(LineText, LowerCaseIsAscii)
{
    EXPECT_EQ(lowerCase("%%MatrixMarket CSR_Matrix .PLY"), "%%matrixmarket csr_matrix .ply");
}

TEST(NumberText, ParseRealTakesALeadingPlusButNotPlusMinus)
{
    double v = 0;
    EXPECT_EQ(parseReal("+2.5", v), NumberStatus::Ok);
    EXPECT_EQ(v, 2.5);
    EXPECT_EQ(parseReal("-1e3", v), NumberStatus::Ok);
    EXPECT_EQ(v, -1000.0);
    EXPECT_EQ(parseReal("+-1", v), NumberStatus::NotANumber);
    EXPECT_EQ(parseReal("", v), NumberStatus::NotANumber);
    EXPECT_EQ(parseReal("1.5x", v), NumberStatus::NotANumber);
    EXPECT_EQ(parseReal(" 1", v), NumberStatus::NotANumber);
}

TEST(NumberText, ParseRealTellsOverflowFromUnderflow)
{
    double v = 0;
    EXPECT_EQ(parseReal("1e999", v), NumberStatus::OutOfRange);
    EXPECT_EQ(parseReal("-1e999", v), NumberStatus::OutOfRange);
    EXPECT_EQ(parseReal("1e-400", v), NumberStatus::Ok);
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1e-300);
    EXPECT_EQ(parseReal("nan", v), NumberStatus::Ok);
    EXPECT_TRUE(std::isnan(v));
    EXPECT_EQ(parseReal("-inf", v), NumberStatus::Ok);
    EXPECT_EQ(v, -kInf);
}

TEST(NumberText, ParseIntegerSaysWhyATokenIsNotOne)
{
    std::int64_t v = 0;
    EXPECT_EQ(parseInteger("+7", v), NumberStatus::Ok);
    EXPECT_EQ(v, 7);
    EXPECT_EQ(parseInteger("-9223372036854775808", v), NumberStatus::Ok);
    EXPECT_EQ(v, std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(parseInteger("1.5", v), NumberStatus::NotAnInteger);
    EXPECT_EQ(parseInteger("1e3", v), NumberStatus::NotAnInteger);
    EXPECT_EQ(parseInteger("99999999999999999999", v), NumberStatus::OutOfRange);
    EXPECT_EQ(parseInteger("seven", v), NumberStatus::NotANumber);
}

TEST(NumberText, ParseUnsignedRefusesSignsOtherThanPlus)
{
    std::uint64_t v = 0;
    EXPECT_EQ(parseUnsigned("+5", v), NumberStatus::Ok);
    EXPECT_EQ(v, 5U);
    EXPECT_EQ(parseUnsigned("18446744073709551615", v), NumberStatus::Ok);
    EXPECT_EQ(v, kMax64);
    EXPECT_EQ(parseUnsigned("18446744073709551616", v), NumberStatus::OutOfRange);
    EXPECT_EQ(parseUnsigned("-5", v), NumberStatus::NotANumber);
    EXPECT_EQ(parseUnsigned("+-5", v), NumberStatus::NotANumber);
}

TEST(NumberText, FormatNumberPrintsTenSignificantDigits)
{
    EXPECT_EQ(formatNumber(0.1), "0.1");
    EXPECT_EQ(formatNumber(1.0 / 3.0), "0.3333333333");
    EXPECT_EQ(formatNumber(23000), "23000");
    EXPECT_EQ(formatNumber(1e20), "1e+20");
}

TEST(NumberText, ACellsBlanksAreTheReadersBlanks)
{
    // parseNumberField trims what trimmed() trims, so a vertical tab or form feed around a cell is a blank.
    EXPECT_EQ(parseNumberField("\v 5\f\r", "f.csv", 1, 1), 5.0);
    EXPECT_TRUE(errorSays(catchDatasetError([] { parseNumberField("\v\f", "f.csv", 3, 2); }), "f.csv",
        "line 3, column 2", "empty cell where a number was expected"));
    // Unlike parseReal, a cell that underflows is out of range.
    EXPECT_TRUE(errorSays(catchDatasetError([] { parseNumberField("1e-400", "f.csv", 1, 1); }), "f.csv",
        "line 1, column 1", "'1e-400' is out of the range of a double"));
}

TEST(ReaderMessages, QuotedTokenCutsLongTokens)
{
    EXPECT_EQ(quotedToken("abc"), "'abc'");
    EXPECT_EQ(quotedToken(""), "''");
    const std::string forty(40, 'x');
    EXPECT_EQ(quotedToken(forty), "'" + forty + "'");
    EXPECT_EQ(quotedToken(forty + "yz"), "'" + forty + "\xE2\x80\xA6'");
}

TEST(ReaderMessages, PluralCountsWithItsNoun)
{
    EXPECT_EQ(plural(0, "point"), "0 points");
    EXPECT_EQ(plural(1, "point"), "1 point");
    EXPECT_EQ(plural(2, "point"), "2 points");
    EXPECT_EQ(plural(1, "vertex", "vertices"), "1 vertex");
    EXPECT_EQ(plural(3, "vertex", "vertices"), "3 vertices");
}

TEST(ReaderMessages, ListingSaysHowManyItLeftOut)
{
    EXPECT_EQ(listing({}), "");
    EXPECT_EQ(listing({"a"}), "a");
    EXPECT_EQ(listing({"a", "b", "c"}), "a, b, c");
    EXPECT_EQ(listing({"a", "b", "c"}, 3), "a, b, c");
    EXPECT_EQ(listing({"a", "b", "c", "d"}, 2), "a, b and 2 more");
}

TEST(ReaderMessages, CheckFiniteRejectsNanAndInfinityUnlessAllowed)
{
    const ReadOptions strict;
    ReadOptions lenient;
    lenient.allowNonFinite = true;
    EXPECT_NO_THROW(checkFinite(1.5, "f", "line 1", strict));
    EXPECT_NO_THROW(checkFinite(kNaN, "f", "line 1", lenient));
    EXPECT_NO_THROW(checkFinite(-kInf, "f", "line 1", lenient));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { checkFinite(kNaN, "f", "line 4", strict); }), "f", "line 4",
        "NaN (non-finite values are rejected; allow them with --allow-nonfinite)"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { checkFinite(-kInf, "f", "element 2", strict); }), "f", "element 2",
        std::string("an infinite value") + kNonFiniteHint));
}

TEST(HostMemory, SizesSaturateInsteadOfWrapping)
{
    EXPECT_EQ(saturatingMul(3, 4), 12U);
    EXPECT_EQ(saturatingMul(0, kMax64), 0U);
    EXPECT_EQ(saturatingMul(std::uint64_t {1} << 40, std::uint64_t {1} << 40), kMax64);
    EXPECT_EQ(saturatingAdd(kMax64 - 1, 1), kMax64);
    EXPECT_EQ(saturatingAdd(kMax64, 1), kMax64);
}

TEST(Hdf5Paths, ParentChildAndDescription)
{
    EXPECT_EQ(h5::parentPath("/a/b/c"), "/a/b");
    EXPECT_EQ(h5::parentPath("/b"), "/");
    EXPECT_EQ(h5::parentPath("b"), "/");
    EXPECT_EQ(h5::childPath("/", "b"), "/b");
    EXPECT_EQ(h5::childPath("/a", "b"), "/a/b");
    h5::DatasetInfo matrix;
    matrix.path = "/m";
    matrix.type = "float64";
    matrix.dims = {3, 4};
    h5::DatasetInfo scalar;
    scalar.path = "/s";
    scalar.type = "int32";
    EXPECT_EQ(h5::describe(matrix), "/m (float64 3×4)");
    EXPECT_EQ(h5::describe(scalar), "/s (int32)");
    EXPECT_EQ(h5::describe(std::vector<h5::DatasetInfo> {matrix, scalar}),
        (std::vector<std::string> {"/m (float64 3×4)", "/s (int32)"}));
}

class DatasetSearchTest : public test::TempDirTest {
protected:
    /// /g/a (4 × 3), /g/b (12), /c (4 × 3).
    std::string makeFile() const
    {
        const std::string path = tempPath("search.h5");
        const std::vector<double> values(12, 1.0);
        h5::File file = h5::File::create(path);
        file.createGroup("/g");
        file.writeDoubles("/g/a", values, {4, 3});
        file.writeDoubles("/g/b", values, {12});
        file.writeDoubles("/c", values, {4, 3});
        return path;
    }

    static bool isNx3(const h5::DatasetInfo& d) { return d.dims.size() == 2 && d.dims[1] == 3; }
};

TEST_F(DatasetSearchTest, TheWholeFileWithTwoThatFitChoosesNone)
{
    const h5::File file = h5::File::open(makeFile());
    const h5::DatasetSearch search = h5::searchDatasets(file, "", isNx3);
    EXPECT_EQ(search.chosen, "");
    EXPECT_EQ(search.group, "/");
    EXPECT_EQ(search.where(), "the file");
    EXPECT_EQ(search.all.size(), 3U);
    ASSERT_EQ(search.fitting.size(), 2U);
    EXPECT_EQ(search.fitting[0].path, "/c");
    EXPECT_EQ(search.fitting[1].path, "/g/a");
}

TEST_F(DatasetSearchTest, AGroupWithOneThatFitsChoosesIt)
{
    const h5::File file = h5::File::open(makeFile());
    const h5::DatasetSearch search = h5::searchDatasets(file, "g/", isNx3);
    EXPECT_EQ(search.chosen, "/g/a");
    EXPECT_EQ(search.group, "/g");
    EXPECT_EQ(search.where(), "group /g");
    EXPECT_EQ(search.all.size(), 2U);
}

TEST_F(DatasetSearchTest, ANamedDatasetIsChosenWhateverItsShape)
{
    const h5::File file = h5::File::open(makeFile());
    const h5::DatasetSearch search = h5::searchDatasets(file, "/g/b", isNx3);
    EXPECT_EQ(search.chosen, "/g/b");
    EXPECT_TRUE(search.all.empty());
    EXPECT_TRUE(search.fitting.empty());
}

TEST_F(DatasetSearchTest, APathThatNamesNothingIsAnError)
{
    const std::string path = makeFile();
    const h5::File file = h5::File::open(path);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { h5::searchDatasets(file, "/nope", isNx3); }), path, "",
        "no dataset or group named /nope (--h5-path)"));
}

TEST(DrawSequence, DrawNIsStreamFirstPlusNOfTheIndex)
{
    const CounterRng rng(42);
    DrawSequence draws(rng, 100, 7);
    EXPECT_EQ(draws.uniform(), rng.uniform(100, 7));
    EXPECT_EQ(draws.uniform(), rng.uniform(101, 7));
    const double u1 = 1.0 - rng.uniform(102, 7);
    const double u2 = rng.uniform(103, 7);
    EXPECT_DOUBLE_EQ(draws.normal(), std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
    for (int i = 0; i < 1000; ++i)
        EXPECT_LT(draws.below(3), 3U);
}

} // namespace
} // namespace ks::data
