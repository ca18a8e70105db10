// The Series2D text reader: the committed corpus under tests/data/linreg/{good,bad}, gzip input written at test
// time, exact round trips through writeSeriesCsv, and the files that are not there or not files.

#include "data/dataset_error.h"
#include "data/series2d.h"
#include "data/text_file.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>
#include <zlib.h>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::corpusPath;
using test::errorSays;

const std::vector<double> kCorpusX = {0.0, 1.0, 2.0};
const std::vector<double> kCorpusY = {1.5, 4.0, 6.5};

/// Writes `text` gzip-compressed through zlib, as `gzip` would.
void writeGzip(const std::string& path, const std::string& text)
{
    gzFile file = gzopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr) << path;
    ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(file), Z_OK);
}

std::string numberedCsv(std::size_t rows)
{
    std::string text = "time,value\n";
    for (std::size_t i = 0; i < rows; ++i)
        text += std::to_string(i) + "," + std::to_string(2.5 * static_cast<double>(i) - 1.0) + "\n";
    return text;
}

void expectBitIdentical(const std::vector<double>& actual, const std::vector<double>& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(actual[i]), std::bit_cast<std::uint64_t>(expected[i]))
            << "element " << i << ": " << actual[i] << " vs " << expected[i];
}

// --- the good corpus ------------------------------------------------------------------------------------------

struct GoodFile {
    const char* name;
    const char* xName;
    const char* yName;
};

const GoodFile kGoodCorpus[] = {
    {"comma_header.csv", "time", "value"},
    {"tab_no_header.tsv", "x", "y"},
    {"semicolon_header.csv", "time", "value"},
    {"whitespace.txt", "x", "y"},
    {"crlf_bom.csv", "time", "value"},
    {"quoted_header_comments.csv", "time, s", "value \"v\""},
    {"multiline_header.csv", "time\n(s)", "value"},
};

/// A test name from a corpus file name ("crlf_bom.csv" -> "crlf_bom_csv").
std::string testNameOf(std::string name)
{
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

void PrintTo(const GoodFile& file, std::ostream* os)
{
    *os << file.name;
}

class SeriesTextGoodCorpusTest : public ::testing::TestWithParam<GoodFile> { };

TEST_P(SeriesTextGoodCorpusTest, ReadsTheSameThreePoints)
{
    const GoodFile& file = GetParam();
    const Series2D s = readSeriesText(corpusPath(std::string("good/") + file.name));
    EXPECT_EQ(s.x, kCorpusX);
    EXPECT_EQ(s.y, kCorpusY);
    EXPECT_EQ(s.xName, file.xName);
    EXPECT_EQ(s.yName, file.yName);
    EXPECT_EQ(s.storedType, "float64");
}

INSTANTIATE_TEST_SUITE_P(Corpus, SeriesTextGoodCorpusTest, ::testing::ValuesIn(kGoodCorpus),
    [](const ::testing::TestParamInfo<GoodFile>& p) { return testNameOf(p.param.name); });

TEST(SeriesTextCorpusTest, EveryGoodFileIsRead)
{
    std::set<std::string> covered;
    for (const auto& good : kGoodCorpus)
        covered.insert(good.name);
    for (const auto& entry : std::filesystem::directory_iterator(corpusPath("good")))
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the good corpus but kGoodCorpus does not list it";
}

// --- the bad corpus -------------------------------------------------------------------------------------------

struct BadFile {
    const char* name;
    const char* place;
    const char* problem;
};

const BadFile kBadCorpus[] = {
    {"non_numeric.csv", "line 3, column 2", "'abc' is not a number"},
    {"non_numeric_x.tsv", "line 2, column 1", "'foo' is not a number"},
    {"non_numeric_after_comments.csv", "line 7, column 2", "'two' is not a number"},
    {"two_decimal_points.csv", "line 2, column 2", "'1.2.3' is not a number"},
    {"plus_minus.csv", "line 2, column 2", "'+-4' is not a number"},
    {"out_of_range.csv", "line 1, column 2", "'1e999' is out of the range of a double"},
    {"empty_cell.csv", "line 2, column 2", "empty cell where a number was expected"},
    {"ragged_three_fields.csv", "line 3", "row has 3 fields; expected 2 (x and y)"},
    {"ragged_one_field.txt", "line 2", "row has 1 field; expected 2 (x and y)"},
    {"crlf_one_field.csv", "line 3", "row has 1 field; expected 2 (x and y)"},
    {"header_three_columns.csv", "line 1", "header has 3 columns; expected 2 (x and y)"},
    {"empty.csv", "", "empty file: no data rows"},
    {"comments_only.csv", "", "empty file: no data rows"},
    {"header_only.csv", "", "no data rows after the header"},
    {"nan_cell.csv", "line 3, column 2", "NaN (non-finite values are rejected"},
    {"inf_cell.csv", "line 2, column 1", "an infinite value (non-finite values are rejected"},
    {"stray_quote.csv", "line 3", "stray quote"},
    {"unterminated_quote.csv", "line 3", "unterminated quoted field"},
};

void PrintTo(const BadFile& file, std::ostream* os)
{
    *os << file.name;
}

class SeriesTextBadCorpusTest : public ::testing::TestWithParam<BadFile> { };

TEST_P(SeriesTextBadCorpusTest, ThrowsNamingFilePlaceAndProblem)
{
    const BadFile& bad = GetParam();
    const std::string path = corpusPath(std::string("bad/") + bad.name);
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSeriesText(path); }), path, bad.place, bad.problem));
    // loadSeries2D sniffs the format and must report the same error.
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(path); }), path, bad.place, bad.problem));
}

INSTANTIATE_TEST_SUITE_P(Corpus, SeriesTextBadCorpusTest, ::testing::ValuesIn(kBadCorpus),
    [](const ::testing::TestParamInfo<BadFile>& p) { return testNameOf(p.param.name); });

TEST(SeriesTextCorpusTest, EveryBadFileHasAnExpectedError)
{
    std::set<std::string> covered;
    for (const auto& bad : kBadCorpus)
        covered.insert(bad.name);
    for (const auto& entry : std::filesystem::directory_iterator(corpusPath("bad")))
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the malformed corpus but kBadCorpus has no expectation for it";
}

TEST(SeriesTextCorpusTest, AllowNonFiniteKeepsNanAndInf)
{
    ReadOptions options;
    options.allowNonFinite = true;
    const Series2D nan = readSeriesText(corpusPath("bad/nan_cell.csv"), options);
    ASSERT_EQ(nan.y.size(), 2u);
    EXPECT_EQ(nan.x, (std::vector<double> {1.0, 3.0}));
    EXPECT_TRUE(std::isnan(nan.y[1]));

    const Series2D inf = readSeriesText(corpusPath("bad/inf_cell.csv"), options);
    ASSERT_EQ(inf.x.size(), 1u);
    EXPECT_EQ(inf.x[0], -std::numeric_limits<double>::infinity());
    EXPECT_EQ(inf.y[0], 1.0);
}

TEST(SeriesTextCorpusTest, AllowNonFiniteDoesNotExcuseOtherProblems)
{
    ReadOptions options;
    options.allowNonFinite = true;
    const std::string path = corpusPath("bad/non_numeric.csv");
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readSeriesText(path, options); }), path, "line 3, column 2", "'abc' is not a number"));
}

// --- files written at test time -------------------------------------------------------------------------------

class SeriesTextTest : public test::TempDirTest { };

TEST_F(SeriesTextTest, FirstRowWithAnyNumberIsDataNotHeader)
{
    // "x" is not a number but "1" is: the row is data and "x" is the error.
    const std::string path = writeFile("mixed.csv", "x,1\n2,3\n");
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSeriesText(path); }), path, "line 1, column 1", "'x' is not a number"));
}

TEST_F(SeriesTextTest, RoundTripThroughCsvIsBitIdentical)
{
    Series2D original;
    original.x = {0.1, 1e-300, -1.7976931348623157e308, 123456789.123456789, -0.0, 4.9406564584124654e-324,
        std::numeric_limits<double>::min(), std::numeric_limits<double>::max(), 1.0 / 3.0, 9007199254740993.0};
    original.y = {2.0 / 3.0, -1e-300, 1.7976931348623157e308, -123456789.123456789, 0.0, -5e-324, 0.7, 6.02214076e23,
        -1.0 / 7.0, 1e22};
    original.xName = "time, s";
    original.yName = "value \"v\"";
    const std::string path = tempPath("round_trip.csv");
    writeSeriesCsv(path, original);
    const Series2D read = readSeriesText(path);
    expectBitIdentical(read.x, original.x);
    expectBitIdentical(read.y, original.y);
    EXPECT_EQ(read.xName, original.xName);
    EXPECT_EQ(read.yName, original.yName);
}

TEST_F(SeriesTextTest, RoundTripKeepsNamesWithDelimitersTheReaderDetects)
{
    // Names with a tab, semicolons or a leading '#' must not change how the file is read back.
    for (const auto& [xName, yName] : std::vector<std::pair<std::string, std::string>> {
             {"t\ts", "v"}, {"a;b;c", "d"}, {"#x", "y"}, {" x ", "y\nz"}}) {
        Series2D original;
        original.x = {1.0, 2.0};
        original.y = {3.0, 4.0};
        original.xName = xName;
        original.yName = yName;
        const std::string path = tempPath("names.csv");
        writeSeriesCsv(path, original);
        const Series2D read = readSeriesText(path);
        EXPECT_EQ(read.xName, xName);
        EXPECT_EQ(read.yName, yName);
        EXPECT_EQ(read.x, original.x);
        EXPECT_EQ(read.y, original.y);
    }
}

TEST_F(SeriesTextTest, NonFiniteValuesRoundTripWhenAllowed)
{
    Series2D original;
    original.x = {1.0, std::numeric_limits<double>::infinity(), 3.0};
    original.y = {std::numeric_limits<double>::quiet_NaN(), 2.0, -std::numeric_limits<double>::infinity()};
    const std::string path = tempPath("nonfinite.csv");
    writeSeriesCsv(path, original);

    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSeriesText(path); }), path, "line 2, column 2", "NaN"));
    ReadOptions options;
    options.allowNonFinite = true;
    const Series2D read = readSeriesText(path, options);
    ASSERT_EQ(read.x.size(), 3u);
    EXPECT_TRUE(std::isnan(read.y[0]));
    EXPECT_EQ(read.x[1], original.x[1]);
    EXPECT_EQ(read.y[2], original.y[2]);
}

TEST_F(SeriesTextTest, WriteToAMissingDirectoryThrows)
{
    const std::string path = tempPath("no/such/dir/out.csv");
    Series2D s;
    s.x = {1.0};
    s.y = {2.0};
    EXPECT_TRUE(errorSays(catchDatasetError([&] { writeSeriesCsv(path, s); }), path, "", "cannot open for writing"));
}

TEST_F(SeriesTextTest, ReadsGzipCompressedInputDirectly)
{
    const std::string text = numberedCsv(5000);
    const std::string plain = writeFile("series.csv", text);
    const std::string compressed = tempPath("series.csv.gz");
    writeGzip(compressed, text);
    ASSERT_LT(std::filesystem::file_size(compressed), text.size());

    const Series2D expected = readSeriesText(plain);
    const Series2D read = readSeriesText(compressed);
    EXPECT_EQ(read.x, expected.x);
    EXPECT_EQ(read.y, expected.y);
    EXPECT_EQ(read.xName, "time");
    EXPECT_EQ(read.y.size(), 5000u);
    EXPECT_EQ(read.y[4999], 2.5 * 4999 - 1.0);
    EXPECT_EQ(readTextFile(compressed), text);
}

TEST_F(SeriesTextTest, GzipIsRecognisedByItsMagicBytesNotItsName)
{
    const std::string path = tempPath("compressed_but_named.csv");
    writeGzip(path, "x y\r\n# comment\r\n1 2\r\n3 4\r\n");
    const Series2D s = readSeriesText(path);
    EXPECT_EQ(s.x, (std::vector<double> {1.0, 3.0}));
    EXPECT_EQ(s.y, (std::vector<double> {2.0, 4.0}));
}

TEST_F(SeriesTextTest, GzipErrorsCarryLineNumbersOfTheDecompressedText)
{
    const std::string path = tempPath("bad.csv.gz");
    writeGzip(path, "x,y\n1,2\n3,abc\n");
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSeriesText(path); }), path, "line 3, column 2", "'abc' is not a number"));
}

TEST_F(SeriesTextTest, EmptyGzipStreamIsAnEmptyFile)
{
    const std::string path = tempPath("empty.csv.gz");
    writeGzip(path, "");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSeriesText(path); }), path, "", "empty file"));
}

TEST_F(SeriesTextTest, CorruptGzipAfterAValidHeaderThrows)
{
    // A valid 10-byte gzip header (deflate, no flags, Unix) followed by bytes that are no deflate stream.
    std::string bytes = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";
    bytes += std::string(64, '\xff');
    const std::string path = writeFile("garbage.csv.gz", bytes);
    const auto error = catchDatasetError([&] { readSeriesText(path); });
    EXPECT_TRUE(errorSays(error, path, "byte 0 of the decompressed stream", "corrupt gzip data"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(path); }), path, "byte 0 of the decompressed stream",
        "corrupt gzip data"));
}

TEST_F(SeriesTextTest, GzipWithAWrongChecksumThrows)
{
    const std::string path = tempPath("bad_crc.csv.gz");
    writeGzip(path, numberedCsv(100));
    // The trailer is CRC-32 then length; flip a bit of the CRC.
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    bytes[bytes.size() - 8] = static_cast<char>(bytes[bytes.size() - 8] ^ 0x01);
    writeFile("bad_crc.csv.gz", bytes);
    const auto error = catchDatasetError([&] { readSeriesText(path); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->file(), path);
    EXPECT_TRUE(contains(error->problem(), "gzip")) << error->what();
}

TEST_F(SeriesTextTest, TruncatedGzipStreamThrowsInsteadOfReturningAPrefix)
{
    const std::string text = numberedCsv(20000);
    const std::string path = tempPath("truncated.csv.gz");
    writeGzip(path, text);
    const auto size = std::filesystem::file_size(path);
    for (const auto keep : {size / 2, size - 4, std::uintmax_t {2}}) {
        writeGzip(path, text);
        std::filesystem::resize_file(path, keep);
        EXPECT_TRUE(errorSays(
            catchDatasetError([&] { readSeriesText(path); }), path, "end of file", "truncated or corrupt gzip stream"))
            << "kept " << keep << " of " << size << " bytes";
    }
}

TEST_F(SeriesTextTest, MissingFileThrows)
{
    const std::string path = tempPath("does_not_exist.csv");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSeriesText(path); }), path, "", "no such file"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(path); }), path, "", "no such file"));
}

TEST_F(SeriesTextTest, DirectoryInsteadOfAFileThrows)
{
    const std::string path = tempPath("a_directory.csv");
    std::filesystem::create_directory(path);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSeriesText(path); }), path, "", "is a directory, not a file"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(path); }), path, "", "is a directory, not a file"));
}

TEST_F(SeriesTextTest, LoadSeries2DFillsTheMetadataForText)
{
    const std::string path = corpusPath("good/comma_header.csv");
    const Dataset d = loadSeries2D(path);
    ASSERT_FALSE(d.empty());
    ASSERT_TRUE(d.holds<Series2D>());
    EXPECT_EQ(d.meta().kind, "series2d");
    EXPECT_EQ(d.meta().name, "comma_header.csv");
    EXPECT_EQ(d.meta().source, path);
    EXPECT_EQ(d.meta().size, 3u);
    const std::vector<std::pair<std::string, std::string>> properties
        = {{"points", "3"}, {"time range", "[0, 2]"}, {"value range", "[1.5, 6.5]"}, {"stored as", "float64"}};
    EXPECT_EQ(d.meta().properties, properties);
    EXPECT_EQ(d.as<Series2D>().y, kCorpusY);
}

TEST(TextFileTest, BaseNameDropsTheDirectories)
{
    EXPECT_EQ(baseName("/a/b/data.csv"), "data.csv");
    EXPECT_EQ(baseName("data.csv"), "data.csv");
    EXPECT_EQ(baseName("rel/dir/x.h5"), "x.h5");
}

} // namespace
} // namespace ks::data
