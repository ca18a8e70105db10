// The lrv workload's expression tables: the text reader over the committed corpus under tests/data/lrv/{good,bad},
// gzip and round trips written at test time, the HDF5 reader (files written at test time through h5::File), the
// reader parameters (orientation, zeros, na), the generator and its planted pairs, the dataset metadata, and a
// real table: Seurat's pbmc_raw.txt from Debian's r-cran-seurat package.

#include "data/dataset.h"
#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/hdf5_file.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <zlib.h>

#if __has_include(<omp.h>)
#include <omp.h>
#endif

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::errorSays;

/// The table every good corpus file holds, samples as rows.
const std::vector<double> kCorpusValues = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10.5, 11, 12};
const std::vector<std::string> kSamples = {"S1", "S2", "S3"};
const std::vector<std::string> kFeatures = {"G1", "G2", "G3", "G4"};

ReadOptions withParams(std::map<std::string, std::string> params)
{
    ReadOptions options;
    options.params = std::move(params);
    return options;
}

const ReadOptions kFeaturesAsRows = withParams({{"orientation", "features-as-rows"}});

void writeGzip(const std::string& path, const std::string& text)
{
    gzFile file = gzopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr) << path;
    ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(file), Z_OK);
}

void expectBitIdentical(const std::vector<double>& actual, const std::vector<double>& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(actual[i]), std::bit_cast<std::uint64_t>(expected[i]))
            << "element " << i << ": " << actual[i] << " vs " << expected[i];
}

/// A test name from a corpus file name ("crlf_bom.csv" -> "crlf_bom_csv").
std::string testNameOf(std::string name)
{
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

/// propr's lrv of features i and j: the sample variance of log(Y[, i] / Y[, j]), in long double.
double logRatioVariance(const ExpressionTable& t, std::size_t i, std::size_t j)
{
    long double sum = 0, sumSq = 0;
    std::vector<long double> v(t.samples);
    for (std::size_t k = 0; k < t.samples; ++k) {
        v[k] = std::log(static_cast<long double>(t.values[k * t.features + i]))
            - std::log(static_cast<long double>(t.values[k * t.features + j]));
        sum += v[k];
    }
    const long double mean = sum / static_cast<long double>(t.samples);
    for (auto x : v)
        sumSq += (x - mean) * (x - mean);
    return static_cast<double>(sumSq / static_cast<long double>(t.samples - 1));
}

// --- the good corpus ------------------------------------------------------------------------------------------

struct GoodFile {
    const char* name;
    bool featuresAsRows;
    std::vector<std::string> samples;
    std::vector<std::string> features;
};

const GoodFile kGoodCorpus[] = {
    {"corner_label.tsv", false, kSamples, kFeatures},
    {"corner_empty.csv", false, kSamples, kFeatures},
    {"write_table.tsv", false, kSamples, kFeatures},
    {"no_row_names.csv", false, kSamples, kFeatures},
    {"crlf_bom.csv", false, kSamples, kFeatures},
    {"quoted_names.csv", false, {"sample 1", "S2", "S3"}, {"GENE, 1", "GENE \"2\"", "#G3", "G4"}},
    {"features_rows.tsv", true, kSamples, {"#G1", "G2", "G3", "G4"}},
    {"features_rows_r_default.txt", true, kSamples, kFeatures},
    {"semicolon_blank_lines.csv", false, kSamples, kFeatures},
    {"numeric_index.csv", false, {"0", "1", "2"}, kFeatures},
    {"number_forms.csv", false, kSamples, kFeatures},
    {"no_trailing_newline.tsv", false, kSamples, kFeatures},
};

void PrintTo(const GoodFile& file, std::ostream* os)
{
    *os << file.name;
}

class ExpressionTextGoodCorpusTest : public ::testing::TestWithParam<GoodFile> { };

TEST_P(ExpressionTextGoodCorpusTest, ReadsTheSameThreeByFourTable)
{
    const GoodFile& file = GetParam();
    const ReadOptions options = file.featuresAsRows ? kFeaturesAsRows : ReadOptions {};
    const ExpressionTable t = readExpressionText(test::corpusPath(std::string("good/") + file.name, "lrv"), options);
    EXPECT_EQ(t.samples, 3u);
    EXPECT_EQ(t.features, 4u);
    EXPECT_EQ(t.values, kCorpusValues);
    EXPECT_EQ(t.sampleNames, file.samples);
    EXPECT_EQ(t.featureNames, file.features);
    EXPECT_EQ(t.storedType, "float64");
    EXPECT_TRUE(t.notes.empty());
}

INSTANTIATE_TEST_SUITE_P(ExpressionCorpus, ExpressionTextGoodCorpusTest, ::testing::ValuesIn(kGoodCorpus),
    [](const ::testing::TestParamInfo<GoodFile>& p) { return testNameOf(p.param.name); });

TEST(ExpressionTextCorpusTest, EveryGoodFileIsRead)
{
    std::set<std::string> covered;
    for (const auto& good : kGoodCorpus)
        covered.insert(good.name);
    for (const auto& entry : std::filesystem::directory_iterator(test::corpusPath("good", "lrv")))
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the good corpus but kGoodCorpus does not list it";
}

// --- the bad corpus -------------------------------------------------------------------------------------------

struct BadFile {
    const char* name;
    bool featuresAsRows;
    const char* place;
    const char* problem;
};

const BadFile kBadCorpus[] = {
    {"na_cell.tsv", false, "line 3, column 3 (sample S2, feature G2)",
        "missing value NA; drop the feature with --param na=drop"},
    {"empty_cell.csv", false, "line 2, column 3 (sample S1, feature G2)", "missing value (empty cell)"},
    {"nan_cell.csv", false, "line 3, column 4 (sample S2, feature G3)", "missing value NaN"},
    {"zero_cell.tsv", false, "line 3, column 4 (sample S2, feature G3)",
        "zero value; log-ratios need strictly positive values (or --param zeros=replace)"},
    {"negative_cell.csv", false, "line 3, column 3 (sample S2, feature G2)",
        "negative value -2; log-ratios need strictly positive values"},
    {"inf_cell.csv", false, "line 2, column 4 (sample S1, feature G3)",
        "an infinite value; log-ratios need finite, strictly positive values"},
    {"non_numeric.csv", false, "line 3, column 2 (sample S2, feature G1)", "'abc' is not a number"},
    {"out_of_range.csv", false, "line 3, column 3 (sample S2, feature G2)", "'1e999' is out of the range of a double"},
    {"ragged_row.csv", false, "line 3", "row has 3 fields; expected 4 like the first data row (line 2)"},
    {"ragged_first_row.tsv", false, "line 2",
        "row has 5 fields but the header has 3; expected 3 (a corner cell in the header) or 4 (R's write.table form)"},
    {"empty.tsv", false, "", "empty file: no header and no data rows"},
    {"blank_lines_only.csv", false, "", "empty file: no header and no data rows"},
    {"header_only.csv", false, "line 1", "header only: no data rows after it"},
    {"duplicate_features.csv", false, "line 1, column 5", "duplicate feature name 'G2' (also column 3 of the header)"},
    {"duplicate_feature_rows.tsv", true, "line 4, column 1", "duplicate feature name 'G1' (also line 2)"},
    {"one_sample.csv", false, "", "the table has 1 sample; lrv needs at least 2"},
    {"one_feature.csv", false, "", "the table has 1 feature; lrv needs at least 2"},
    {"names_only.csv", false, "line 2", "no value columns: each row holds only its name"},
    {"stray_quote.csv", false, "line 2", "stray quote"},
};

void PrintTo(const BadFile& file, std::ostream* os)
{
    *os << file.name;
}

class ExpressionTextBadCorpusTest : public ::testing::TestWithParam<BadFile> { };

TEST_P(ExpressionTextBadCorpusTest, ThrowsNamingFilePlaceAndProblem)
{
    const BadFile& bad = GetParam();
    const std::string path = test::corpusPath(std::string("bad/") + bad.name, "lrv");
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    const ReadOptions options = bad.featuresAsRows ? kFeaturesAsRows : ReadOptions {};
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionText(path, options); }), path, bad.place, bad.problem));
    // loadExpressionTable sniffs the format and must report the same error.
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { loadExpressionTable(path, options); }), path, bad.place, bad.problem));
}

INSTANTIATE_TEST_SUITE_P(ExpressionCorpus, ExpressionTextBadCorpusTest, ::testing::ValuesIn(kBadCorpus),
    [](const ::testing::TestParamInfo<BadFile>& p) { return testNameOf(p.param.name); });

TEST(ExpressionTextCorpusTest, EveryBadFileHasAnExpectedError)
{
    std::set<std::string> covered;
    for (const auto& bad : kBadCorpus)
        covered.insert(bad.name);
    for (const auto& entry : std::filesystem::directory_iterator(test::corpusPath("bad", "lrv")))
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the malformed corpus but kBadCorpus has no expectation for it";
}

// --- reader parameters ----------------------------------------------------------------------------------------

class ExpressionTempTest : public test::TempDirTest { };

TEST(ExpressionTextParamsTest, NaDropRemovesEveryFeatureHoldingAMissingValue)
{
    const ExpressionTable t
        = readExpressionText(test::corpusPath("bad/na_cell.tsv", "lrv"), withParams({{"na", "drop"}}));
    EXPECT_EQ(t.samples, 3u);
    EXPECT_EQ(t.features, 2u);
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"G1", "G4"}));
    EXPECT_EQ(t.sampleNames, kSamples);
    EXPECT_EQ(t.values, (std::vector<double> {1, 4, 5, 8, 9, 12}));
    ASSERT_EQ(t.notes.size(), 1u);
    EXPECT_EQ(t.notes[0], "dropped 2 of 4 features holding missing values (NA, NaN or empty cells): G2, G3");
}

TEST(ExpressionTextParamsTest, NaDropHandlesEmptyCellsAndNaN)
{
    const ExpressionTable empty
        = readExpressionText(test::corpusPath("bad/empty_cell.csv", "lrv"), withParams({{"na", "drop"}}));
    EXPECT_EQ(empty.featureNames, (std::vector<std::string> {"G1", "G3"}));
    EXPECT_EQ(empty.values, (std::vector<double> {1, 3, 4, 6}));
    const ExpressionTable nan
        = readExpressionText(test::corpusPath("bad/nan_cell.csv", "lrv"), withParams({{"na", "drop"}}));
    EXPECT_EQ(nan.featureNames, (std::vector<std::string> {"G1", "G2"}));
    EXPECT_EQ(nan.values, (std::vector<double> {1, 2, 4, 5}));
}

TEST(ExpressionTextParamsTest, NaDropDoesNotExcuseInfinitiesOrNegatives)
{
    const ReadOptions drop = withParams({{"na", "drop"}});
    const std::string inf = test::corpusPath("bad/inf_cell.csv", "lrv");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionText(inf, drop); }), inf,
        "line 2, column 4 (sample S1, feature G3)", "an infinite value"));
    const std::string negative = test::corpusPath("bad/negative_cell.csv", "lrv");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionText(negative, drop); }), negative,
        "line 3, column 3 (sample S2, feature G2)", "negative value -2"));
}

TEST_F(ExpressionTempTest, NaDropLeavingFewerThanTwoFeaturesIsAnError)
{
    const std::string p = writeFile("mostly_na.csv", ",G1,G2,G3\nS1,1,NA,3\nS2,4,5,\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"na", "drop"}}));
    }),
        p, "", "2 of 3 features hold missing values; after dropping them 1 feature is left, and lrv needs at least 2"));
}

TEST(ExpressionTextParamsTest, ZerosReplaceUsesTheSmallestPositiveValueAndSaysSo)
{
    const ExpressionTable t
        = readExpressionText(test::corpusPath("bad/zero_cell.tsv", "lrv"), withParams({{"zeros", "replace"}}));
    EXPECT_EQ(t.values, (std::vector<double> {1, 2, 3, 4, 5, 0.25, 0.25, 8, 0.25, 10.5, 11, 12}));
    ASSERT_EQ(t.notes.size(), 1u);
    EXPECT_EQ(t.notes[0], "replaced 2 zeros with 0.25, the smallest positive value");
}

TEST(ExpressionTextParamsTest, ZerosReplaceDoesNotExcuseNegatives)
{
    const std::string p = test::corpusPath("bad/negative_cell.csv", "lrv");
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"zeros", "replace"}}));
    }),
        p, "line 3, column 3 (sample S2, feature G2)", "negative value -2"));
}

TEST(ExpressionTextParamsTest, UnknownParameterValuesAreErrors)
{
    const std::string p = test::corpusPath("good/corner_label.tsv", "lrv");
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"orientation", "columns"}}));
    }),
        p, "parameter orientation", "'columns' is not one of samples-as-rows, features-as-rows"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"zeros", "keep"}}));
    }),
        p, "parameter zeros", "'keep' is not one of error, replace"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"na", "zero"}}));
    }),
        p, "parameter na", "'zero' is not one of error, drop"));
    // Keys the reader does not know are the workload's business.
    EXPECT_NO_THROW(readExpressionText(p, withParams({{"device_output_mb", "64"}})));
}

TEST_F(ExpressionTempTest, HandCheckedStorageOrderIsSamplesByFeaturesRowMajor)
{
    // 3 samples × 4 features; every value says where it is: 10 · sample + feature (1-based).
    const std::string p = writeFile("order.csv", ",A,B,C,D\nx,11,12,13,14\ny,21,22,23,24\nz,31,32,33,34\n");
    const ExpressionTable t = readExpressionText(p);
    ASSERT_EQ(t.samples, 3u);
    ASSERT_EQ(t.features, 4u);
    for (std::size_t k = 0; k < 3; ++k)
        for (std::size_t i = 0; i < 4; ++i)
            EXPECT_EQ(t.values[k * t.features + i], static_cast<double>(10 * (k + 1) + (i + 1)))
                << "sample " << k << ", feature " << i;
    EXPECT_EQ(t.values, (std::vector<double> {11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34}));
    EXPECT_EQ(t.sampleNames, (std::vector<std::string> {"x", "y", "z"}));
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"A", "B", "C", "D"}));
}

TEST_F(ExpressionTempTest, FeaturesAsRowsTransposesCellByCell)
{
    // 2 features (rows) × 3 samples (columns): value = 10 · feature + sample.
    const std::string p = writeFile("features.tsv", "gene\tsA\tsB\tsC\ngX\t11\t12\t13\ngY\t21\t22\t23\n");
    const ExpressionTable t = readExpressionText(p, kFeaturesAsRows);
    ASSERT_EQ(t.samples, 3u);
    ASSERT_EQ(t.features, 2u);
    EXPECT_EQ(t.sampleNames, (std::vector<std::string> {"sA", "sB", "sC"}));
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"gX", "gY"}));
    EXPECT_EQ(t.values[0 * 2 + 0], 11); // sample sA, feature gX
    EXPECT_EQ(t.values[0 * 2 + 1], 21); // sample sA, feature gY
    EXPECT_EQ(t.values[1 * 2 + 0], 12); // sample sB, feature gX
    EXPECT_EQ(t.values[2 * 2 + 1], 23); // sample sC, feature gY
    EXPECT_EQ(t.values, (std::vector<double> {11, 21, 12, 22, 13, 23}));

    // The same file read as samples-as-rows is a 2 × 3 table.
    const ExpressionTable asSamples = readExpressionText(p);
    EXPECT_EQ(asSamples.samples, 2u);
    EXPECT_EQ(asSamples.features, 3u);
    EXPECT_EQ(asSamples.values, (std::vector<double> {11, 12, 13, 21, 22, 23}));
}

TEST_F(ExpressionTempTest, FeaturesAsRowsNamesCellsByTheirSampleAndFeature)
{
    const std::string p = writeFile("features_zero.tsv", "gene\tsA\tsB\tsC\ngX\t11\t12\t13\ngY\t21\t0\t23\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionText(p, kFeaturesAsRows); }), p,
        "line 3, column 3 (sample sB, feature gY)", "zero value"));
    const std::string na
        = writeFile("features_na.tsv", "gene\tsA\tsB\tsC\ngX\t11\tNA\t13\ngY\t21\t22\t23\ngZ\t1\t2\t3\n");
    const ExpressionTable t = readExpressionText(na, withParams({{"orientation", "features-as-rows"}, {"na", "drop"}}));
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"gY", "gZ"}));
    EXPECT_EQ(t.values, (std::vector<double> {21, 1, 22, 2, 23, 3}));
    ASSERT_EQ(t.notes.size(), 1u);
    EXPECT_TRUE(contains(t.notes[0], "dropped 1 of 3 features"));
    EXPECT_TRUE(contains(t.notes[0], ": gX"));
}

TEST_F(ExpressionTempTest, ANumericFirstColumnUnderALabelIsAFeature)
{
    // As wide as the header, a label in the corner and numbers in every row's first field: no row names, so
    // "id" is a feature (the rule for tables without row names); an empty corner cell would make it row names.
    const std::string p = writeFile("numeric_first.csv", "id,G1,G2\n1,5,6\n2,7,8\n");
    const ExpressionTable t = readExpressionText(p);
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"id", "G1", "G2"}));
    EXPECT_EQ(t.sampleNames, (std::vector<std::string> {"S1", "S2"}));
    EXPECT_EQ(t.values, (std::vector<double> {1, 5, 6, 2, 7, 8}));
    // One name among numbers makes the whole first column names.
    const std::string mixed = writeFile("mixed_first.csv", "id,G1,G2\n1,5,6\nsecond,7,8\n");
    const ExpressionTable m = readExpressionText(mixed);
    EXPECT_EQ(m.featureNames, (std::vector<std::string> {"G1", "G2"}));
    EXPECT_EQ(m.sampleNames, (std::vector<std::string> {"1", "second"}));
}

TEST_F(ExpressionTempTest, FeaturesAsRowsWithoutRowNamesGeneratesFeatureNames)
{
    const std::string p = writeFile("plain.tsv", "sA\tsB\n1\t2\n3\t4\n5\t6\n");
    const ExpressionTable t = readExpressionText(p, kFeaturesAsRows);
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"F1", "F2", "F3"}));
    EXPECT_EQ(t.sampleNames, (std::vector<std::string> {"sA", "sB"}));
    EXPECT_EQ(t.values, (std::vector<double> {1, 3, 5, 2, 4, 6}));
}

TEST_F(ExpressionTempTest, DuplicateSampleNamesAreAllowed)
{
    const ExpressionTable t = readExpressionText(test::corpusPath("bad/duplicate_feature_rows.tsv", "lrv"));
    EXPECT_EQ(t.sampleNames, (std::vector<std::string> {"G1", "G2", "G1"}));
    EXPECT_EQ(t.values, (std::vector<double> {1, 2, 3, 4, 5, 6}));
}

TEST_F(ExpressionTempTest, GzipIsReadDirectly)
{
    std::string text;
    std::ifstream in(test::corpusPath("good/corner_label.tsv", "lrv"), std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    const std::string p = tempPath("table.tsv.gz");
    writeGzip(p, text);
    const ExpressionTable t = readExpressionText(p);
    EXPECT_EQ(t.values, kCorpusValues);
    EXPECT_EQ(t.featureNames, kFeatures);
    const Dataset d = loadExpressionTable(p);
    EXPECT_EQ(d.meta().name, "table.tsv.gz");
    EXPECT_EQ(d.as<ExpressionTable>().values, kCorpusValues);
}

TEST_F(ExpressionTempTest, TheFirstOffendingCellInFileOrderIsReported)
{
    // A zero before a missing value: with both checks on, the zero (earlier in the file) is reported.
    const std::string p = writeFile("both.csv", ",G1,G2,G3\nS1,1,0,3\nS2,NA,5,6\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionText(p); }), p,
        "line 2, column 3 (sample S1, feature G2)", "zero value"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"zeros", "replace"}}));
    }),
        p, "line 3, column 2 (sample S2, feature G1)", "missing value NA"));
    // Dropping G1 for its NA leaves the zero, replaced.
    const ExpressionTable t = readExpressionText(p, withParams({{"zeros", "replace"}, {"na", "drop"}}));
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"G2", "G3"}));
    EXPECT_EQ(t.values, (std::vector<double> {3, 3, 5, 6}));
    EXPECT_EQ(t.notes.size(), 2u);
}

TEST_F(ExpressionTempTest, AllZerosCannotBeReplaced)
{
    const std::string p = writeFile("zeros.csv", ",G1,G2\nS1,0,0\nS2,0,0\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionText(p, withParams({{"zeros", "replace"}}));
    }),
        p, "", "every value is zero"));
}

TEST_F(ExpressionTempTest, MissingFileIsAnError)
{
    const std::string p = tempPath("absent.tsv");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadExpressionTable(p); }), p, "", "no such file"));
}

// --- CSV round trip -------------------------------------------------------------------------------------------

TEST_F(ExpressionTempTest, CsvRoundTripKeepsValuesBitForBitAndAwkwardNames)
{
    ExpressionTable original;
    original.samples = 3;
    original.features = 4;
    original.values = {0.1, 1e-300, 123456789.123456789, 2.0 / 3.0, 1e22, 4.9406564584124654e-324, 7, 8,
        1.7976931348623157e308, 0.5, 3, 1e-7};
    original.sampleNames = {"1", "sample, two", "#three"};
    original.featureNames = {"GENE \"quoted\"", "a;b", "tab\there", "NA"};
    const std::string p = tempPath("round.csv");
    writeExpressionCsv(p, original);
    const ExpressionTable read = readExpressionText(p);
    EXPECT_EQ(read.samples, 3u);
    EXPECT_EQ(read.features, 4u);
    expectBitIdentical(read.values, original.values);
    EXPECT_EQ(read.sampleNames, original.sampleNames);
    EXPECT_EQ(read.featureNames, original.featureNames);
}

TEST_F(ExpressionTempTest, WritersRejectInconsistentTables)
{
    ExpressionTable bad;
    bad.samples = 2;
    bad.features = 2;
    bad.values = {1, 2, 3};
    const std::string p = tempPath("bad.csv");
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { writeExpressionCsv(p, bad); }), p, "", "holds 3 values but its shape is 2 × 2"));
    bad.values.push_back(4);
    bad.featureNames = {"only one"};
    const std::string h = tempPath("bad.h5");
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { writeExpressionHdf5(h, bad); }), h, "", "1 feature names for 2 features"));
}

// --- HDF5 -----------------------------------------------------------------------------------------------------

class ExpressionHdf5Test : public test::TempDirTest {
protected:
    template <class F> std::string makeFile(const std::string& name, F&& write)
    {
        const std::string p = tempPath(name);
        {
            h5::File file = h5::File::create(p);
            write(file);
        }
        return p;
    }

    static ExpressionTable corpusTable()
    {
        ExpressionTable t;
        t.samples = 3;
        t.features = 4;
        t.values = kCorpusValues;
        t.sampleNames = kSamples;
        t.featureNames = kFeatures;
        return t;
    }
};

TEST_F(ExpressionHdf5Test, RoundTripKeepsValuesAndNames)
{
    ExpressionTable original = corpusTable();
    original.values[5] = 1.0 / 3.0;
    original.featureNames[1] = "GENE, \"two\"";
    const std::string p = tempPath("round.h5");
    writeExpressionHdf5(p, original);
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.info("/matrix").dims, (std::vector<std::uint64_t> {3, 4}));
    EXPECT_EQ(file.info("/matrix").type, "float64");
    EXPECT_EQ(file.readStrings("/feature_names"), original.featureNames);
    EXPECT_EQ(file.readStrings("/sample_names"), original.sampleNames);

    const ExpressionTable read = readExpressionHdf5(p);
    EXPECT_EQ(read.samples, 3u);
    EXPECT_EQ(read.features, 4u);
    expectBitIdentical(read.values, original.values);
    EXPECT_EQ(read.sampleNames, original.sampleNames);
    EXPECT_EQ(read.featureNames, original.featureNames);
    EXPECT_EQ(read.storedType, "float64");

    const Dataset d = loadExpressionTable(p);
    EXPECT_EQ(d.meta().kind, "expression");
    EXPECT_EQ(d.as<ExpressionTable>().featureNames, original.featureNames);
}

TEST_F(ExpressionHdf5Test, WithoutNameDatasetsNamesAreGenerated)
{
    const std::string p = makeFile("bare.h5", [](h5::File& f) { f.writeDoubles("/Y", kCorpusValues, {3, 4}); });
    const ExpressionTable t = readExpressionHdf5(p);
    EXPECT_EQ(t.sampleNames, kSamples);
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"F1", "F2", "F3", "F4"}));
    EXPECT_EQ(t.values, kCorpusValues);
}

TEST_F(ExpressionHdf5Test, FeaturesBySamplesNeedsTheOrientation)
{
    // The corpus table stored transposed: 4 features × 3 samples, with names the AnnData/scanpy way.
    const std::vector<double> transposed = {1, 5, 9, 2, 6, 10.5, 3, 7, 11, 4, 8, 12};
    const std::string p = makeFile("pxn.h5", [&](h5::File& f) {
        f.writeDoubles("/counts", transposed, {4, 3});
        f.writeStrings("/var_names", kFeatures);
        f.writeStrings("/obs_names", kSamples);
    });
    const ExpressionTable t = readExpressionHdf5(p, kFeaturesAsRows);
    EXPECT_EQ(t.samples, 3u);
    EXPECT_EQ(t.features, 4u);
    EXPECT_EQ(t.values, kCorpusValues);
    EXPECT_EQ(t.values[2 * 4 + 1], 10.5); // sample S3, feature G2: stored at [1, 2]
    EXPECT_EQ(t.sampleNames, kSamples);
    EXPECT_EQ(t.featureNames, kFeatures);

    // Read the default way, the names do not fit and the message says why.
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p, "dataset /var_names",
        "has 4 names but the matrix /counts has 3 features; stored features × samples? use "
        "--param orientation=features-as-rows"));
}

TEST_F(ExpressionHdf5Test, RownamesAndColnamesFollowTheStoredMatrix)
{
    const std::vector<double> transposed = {1, 5, 9, 2, 6, 10.5, 3, 7, 11, 4, 8, 12};
    const std::string p = makeFile("r.h5", [&](h5::File& f) {
        f.writeDoubles("/m", transposed, {4, 3});
        f.writeStrings("/rownames", kFeatures);
        f.writeStrings("/colnames", kSamples);
    });
    const ExpressionTable t = readExpressionHdf5(p, kFeaturesAsRows);
    EXPECT_EQ(t.featureNames, kFeatures);
    EXPECT_EQ(t.sampleNames, kSamples);
}

TEST_F(ExpressionHdf5Test, IntegerMatrixIsReadAsDoubles)
{
    const std::vector<std::uint64_t> counts = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const std::string p = makeFile("int.h5", [&](h5::File& f) {
        f.writeUInt64s("/group/counts", counts, {3, 4});
        f.writeStrings("/group/genes", kFeatures);
        f.writeStrings("/group/barcodes", kSamples);
    });
    const ExpressionTable t = readExpressionHdf5(p);
    EXPECT_EQ(t.values, (std::vector<double> {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    EXPECT_EQ(t.featureNames, kFeatures);
    EXPECT_EQ(t.sampleNames, kSamples);
    EXPECT_EQ(t.storedType, "uint64");
    EXPECT_EQ(
        loadExpressionTable(p).meta().properties.back(), (std::pair<std::string, std::string> {"stored as", "uint64"}));
}

TEST_F(ExpressionHdf5Test, SeveralMatricesNeedH5Path)
{
    std::vector<double> normalized = kCorpusValues;
    for (double& v : normalized)
        v /= 2;
    const std::string p = makeFile("several.h5", [&](h5::File& f) {
        f.writeDoubles("/counts", kCorpusValues, {3, 4});
        f.writeDoubles("/normalized", normalized, {3, 4});
        f.writeStrings("/feature_names", kFeatures);
        f.writeDoubles("/size_factors", std::vector<double> {1, 1, 1}, {3});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p, "",
        "several 2-D numeric datasets in the file (/counts (float64 3×4), /normalized (float64 3×4)); choose one "
        "with --h5-path"));
    ReadOptions options;
    options.h5Path = "normalized";
    const ExpressionTable t = readExpressionHdf5(p, options);
    EXPECT_EQ(t.values, normalized);
    EXPECT_EQ(t.featureNames, kFeatures);
    options.h5Path = "/counts";
    EXPECT_EQ(readExpressionHdf5(p, options).values, kCorpusValues);
}

TEST_F(ExpressionHdf5Test, H5PathNamingAGroupSearchesIt)
{
    const std::string p = makeFile("groups.h5", [&](h5::File& f) {
        f.writeDoubles("/raw/matrix", kCorpusValues, {3, 4});
        f.writeStrings("/raw/feature_names", kFeatures);
        f.writeDoubles("/other/matrix", kCorpusValues, {3, 4});
    });
    ReadOptions options;
    options.h5Path = "/raw";
    const ExpressionTable t = readExpressionHdf5(p, options);
    EXPECT_EQ(t.featureNames, kFeatures);
    options.h5Path = "/nowhere";
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p, options); }), p, "",
        "no dataset or group named /nowhere (--h5-path)"));
}

TEST_F(ExpressionHdf5Test, NoMatrixListsWhatTheFileHas)
{
    const std::string p = makeFile("vectors.h5", [&](h5::File& f) {
        f.writeDoubles("/x", std::vector<double> {1, 2, 3}, {3});
        f.writeStrings("/names", kSamples);
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p, "",
        "no 2-D numeric dataset (an expression matrix) in the file (it has /names (string 3), /x (float64 3))"));
}

TEST_F(ExpressionHdf5Test, WrongRankOrTypeIsAnError)
{
    const std::string p = makeFile("rank3.h5", [&](h5::File& f) {
        f.writeDoubles("/cube", std::vector<double>(8, 1.0), {2, 2, 2});
        f.writeStrings("/labels", kSamples);
    });
    ReadOptions options;
    options.h5Path = "/cube";
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p, options); }), p, "dataset /cube",
        "has rank 3; expected a 2-D matrix (samples × features)"));
    options.h5Path = "/labels";
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p, options); }), p, "dataset /labels",
        "has rank 1; expected a 2-D matrix"));
    const std::string e = makeFile("empty.h5", [&](h5::File&) {});
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(e); }), e, "",
        "no 2-D numeric dataset (an expression matrix) in the file (it has no datasets)"));
}

TEST_F(ExpressionHdf5Test, NameDatasetOfTheWrongLengthIsAnError)
{
    const std::string p = makeFile("names.h5", [&](h5::File& f) {
        f.writeDoubles("/matrix", kCorpusValues, {3, 4});
        f.writeStrings("/feature_names", {"G1", "G2", "G3", "G4", "G5"});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p, "dataset /feature_names",
        "has 5 names but the matrix /matrix has 4 features"));

    const std::string q = makeFile("samples.h5", [&](h5::File& f) {
        f.writeDoubles("/matrix", kCorpusValues, {3, 4});
        f.writeDoubles("/sample_names", std::vector<double> {1, 2, 3}, {3});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(q); }), q, "dataset /sample_names",
        "holds float64 values; expected a 1-D list of 3 sample names (strings)"));

    // A later candidate that fits wins over an earlier one that does not.
    const std::string r = makeFile("fallback.h5", [&](h5::File& f) {
        f.writeDoubles("/matrix", kCorpusValues, {3, 4});
        f.writeStrings("/features", {"x", "y"});
        f.writeStrings("/genes", kFeatures);
    });
    EXPECT_EQ(readExpressionHdf5(r).featureNames, kFeatures);
}

TEST_F(ExpressionHdf5Test, DuplicateFeatureNamesAreAnError)
{
    const std::string p = makeFile("dup.h5", [&](h5::File& f) {
        f.writeDoubles("/matrix", kCorpusValues, {3, 4});
        f.writeStrings("/feature_names", {"G1", "G2", "G1", "G4"});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p, "dataset /feature_names",
        "duplicate feature name 'G1' (also element 0; it repeats at element 2)"));
}

TEST_F(ExpressionHdf5Test, NaNZerosAndNegativesFollowTheTextRules)
{
    std::vector<double> values = kCorpusValues;
    values[1 * 4 + 2] = std::numeric_limits<double>::quiet_NaN(); // sample S2, feature G3
    values[2 * 4 + 0] = 0; // sample S3, feature G1
    const std::string p = makeFile("nan.h5", [&](h5::File& f) {
        f.writeDoubles("/matrix", values, {3, 4});
        f.writeStrings("/feature_names", kFeatures);
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p,
        "dataset /matrix, element [1, 2] (sample S2, feature G3)", "missing value NaN; drop the feature"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionHdf5(p, withParams({{"na", "drop"}}));
    }),
        p, "dataset /matrix, element [2, 0] (sample S3, feature G1)", "zero value"));
    const ExpressionTable t = readExpressionHdf5(p, withParams({{"na", "drop"}, {"zeros", "replace"}}));
    EXPECT_EQ(t.featureNames, (std::vector<std::string> {"G1", "G2", "G4"}));
    EXPECT_EQ(t.values, (std::vector<double> {1, 2, 4, 5, 6, 8, 1, 10.5, 12}));
    ASSERT_EQ(t.notes.size(), 2u);
    EXPECT_EQ(t.notes[1], "replaced 1 zero with 1, the smallest positive value");

    values[2 * 4 + 0] = -1;
    values[0] = std::numeric_limits<double>::infinity();
    const std::string q = makeFile("neg.h5", [&](h5::File& f) { f.writeDoubles("/matrix", values, {3, 4}); });
    EXPECT_TRUE(errorSays(catchDatasetError([&] {
        readExpressionHdf5(q, withParams({{"na", "drop"}}));
    }),
        q, "dataset /matrix, element [0, 0] (sample S1, feature F1)", "an infinite value"));
}

TEST_F(ExpressionHdf5Test, NotHdf5IsAnError)
{
    const std::string p = writeFile("fake.h5", "not hdf5 at all\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionHdf5(p); }), p, "", "not an HDF5 file"));
}

// --- the generator --------------------------------------------------------------------------------------------

TEST(ExpressionGeneratorTest, ShapeNamesAndPositivity)
{
    ExpressionGenerator g;
    g.samples = 7;
    g.features = 13;
    g.plantedPairs = 3;
    const ExpressionTable t = generateExpression(g);
    EXPECT_EQ(t.samples, 7u);
    EXPECT_EQ(t.features, 13u);
    ASSERT_EQ(t.values.size(), 7u * 13u);
    EXPECT_EQ(t.sampleNames.front(), "S1");
    EXPECT_EQ(t.sampleNames.back(), "S7");
    EXPECT_EQ(t.featureNames.front(), "F1");
    EXPECT_EQ(t.featureNames.back(), "F13");
    EXPECT_EQ(t.storedType, "float64");
    EXPECT_TRUE(t.notes.empty());
    for (double v : t.values)
        EXPECT_TRUE(std::isfinite(v) && v >= 1.0) << v;
}

TEST(ExpressionGeneratorTest, SameSeedSameTableOtherSeedOtherTable)
{
    ExpressionGenerator g;
    g.samples = 20;
    g.features = 50;
    const ExpressionTable a = generateExpression(g);
    const ExpressionTable b = generateExpression(g);
    expectBitIdentical(a.values, b.values);
    g.seed = 2;
    const ExpressionTable c = generateExpression(g);
    EXPECT_NE(a.values, c.values);
}

TEST(ExpressionGeneratorTest, SameTableForAnyThreadCount)
{
#if __has_include(<omp.h>)
    ExpressionGenerator g;
    g.samples = 16;
    g.features = 300;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const ExpressionTable one = generateExpression(g);
    omp_set_num_threads(3);
    const ExpressionTable three = generateExpression(g);
    omp_set_num_threads(threads);
    expectBitIdentical(three.values, one.values);
#else
    GTEST_SKIP() << "no <omp.h> to set the thread count with";
#endif
}

TEST(ExpressionGeneratorTest, CountsAreIntegersPlusOneExceptThePlantedFeatures)
{
    ExpressionGenerator g;
    g.samples = 30;
    g.features = 40;
    g.plantedPairs = 4;
    const ExpressionTable t = generateExpression(g);
    std::set<std::size_t> planted;
    for (const auto& [i, j] : plantedPairs(g))
        planted.insert(i);
    std::size_t nonInteger = 0;
    for (std::size_t k = 0; k < t.samples; ++k)
        for (std::size_t i = 0; i < t.features; ++i) {
            const double v = t.values[k * t.features + i];
            if (planted.count(i))
                nonInteger += v != std::floor(v);
            else
                EXPECT_EQ(v, std::floor(v)) << "sample " << k << ", feature " << i;
        }
    EXPECT_GT(nonInteger, 4u * 30u / 2);
}

TEST(ExpressionGeneratorTest, PlantedPairsAreWellSpreadAndDisjoint)
{
    ExpressionGenerator g;
    g.features = 1000;
    g.plantedPairs = 10;
    const auto pairs = plantedPairs(g);
    ASSERT_EQ(pairs.size(), 10u);
    std::set<std::size_t> used;
    for (const auto& [i, j] : pairs) {
        EXPECT_GT(i, j);
        EXPECT_LT(i, g.features);
        EXPECT_TRUE(used.insert(i).second) << i;
        EXPECT_TRUE(used.insert(j).second) << j;
    }
    // Spread: the first and last j are far apart, and so are the i.
    std::vector<std::size_t> is, js;
    for (const auto& [i, j] : pairs) {
        is.push_back(i);
        js.push_back(j);
    }
    EXPECT_GT(*std::max_element(js.begin(), js.end()) - *std::min_element(js.begin(), js.end()), 400u);
    EXPECT_GT(*std::max_element(is.begin(), is.end()) - *std::min_element(is.begin(), is.end()), 400u);
    EXPECT_EQ(plantedPairs(g), pairs);

    g.features = 2;
    g.plantedPairs = 1;
    EXPECT_EQ(plantedPairs(g), (std::vector<std::pair<std::size_t, std::size_t>> {{1, 0}}));
    g.plantedPairs = 0;
    EXPECT_TRUE(plantedPairs(g).empty());
}

TEST(ExpressionGeneratorTest, PlantedPairsHaveLrvNearNoiseSquaredAndTheSmallestLrv)
{
    ExpressionGenerator g;
    g.samples = 80;
    g.features = 120;
    g.plantedPairs = 6;
    g.proportionalNoise = 1e-3;
    const ExpressionTable t = generateExpression(g);
    const double expected = g.proportionalNoise * g.proportionalNoise;
    std::set<std::pair<std::size_t, std::size_t>> planted;
    for (const auto& pair : plantedPairs(g)) {
        planted.insert(pair);
        const double lrv = logRatioVariance(t, pair.first, pair.second);
        // The sample variance of 80 normals is within ±50% of σ² far beyond 3 standard errors (±16%).
        EXPECT_GT(lrv, 0.5 * expected) << pair.first << ", " << pair.second;
        EXPECT_LT(lrv, 1.5 * expected) << pair.first << ", " << pair.second;
    }
    double smallestOther = std::numeric_limits<double>::infinity();
    for (std::size_t i = 1; i < t.features; ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (!planted.count({i, j}))
                smallestOther = std::min(smallestOther, logRatioVariance(t, i, j));
    EXPECT_GT(smallestOther, 1000 * expected);
}

TEST(ExpressionGeneratorTest, CountsAreOverdispersedAsAsked)
{
    // Negative binomial: variance = μ + dispersion · μ², so var/μ² averages about dispersion for μ ≈ 100.
    // Plain Poisson (dispersion 0): variance = μ.
    auto meanRatio = [](double dispersion, bool squared) {
        ExpressionGenerator g;
        g.samples = 200;
        g.features = 100;
        g.plantedPairs = 0;
        g.dispersion = dispersion;
        const ExpressionTable t = generateExpression(g);
        double total = 0;
        for (std::size_t i = 0; i < t.features; ++i) {
            double sum = 0, sumSq = 0;
            for (std::size_t k = 0; k < t.samples; ++k) {
                const double count = t.values[k * t.features + i] - 1;
                sum += count;
                sumSq += count * count;
            }
            const double n = static_cast<double>(t.samples);
            const double mean = sum / n;
            const double variance = (sumSq - n * mean * mean) / (n - 1);
            total += squared ? variance / (mean * mean) : variance / mean;
        }
        return total / static_cast<double>(t.features);
    };
    const double nb = meanRatio(0.5, true);
    EXPECT_GT(nb, 0.35);
    EXPECT_LT(nb, 0.75);
    const double poisson = meanRatio(0.0, false);
    EXPECT_GT(poisson, 0.85);
    EXPECT_LT(poisson, 1.15);
}

TEST(ExpressionGeneratorTest, RejectsTooSmallShapesAndTooManyPairs)
{
    ExpressionGenerator g;
    g.samples = 1;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateExpression(g); }), "generator", "samples", "at least 2"));
    g.samples = 10;
    g.features = 1;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateExpression(g); }), "generator", "features", "at least 2"));
    g.features = 10;
    g.plantedPairs = 6;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { plantedPairs(g); }), "generator", "planted",
        "6 pairs do not fit in 10 features (at most features / 2 = 5)"));
    g.plantedPairs = 5;
    g.meanCount = 0;
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { generateExpression(g); }), "generator", "parameters", "mean must be positive"));
}

// --- the dataset ----------------------------------------------------------------------------------------------

TEST(ExpressionDatasetTest, MetadataDescribesTheTable)
{
    ExpressionTable t;
    t.samples = 3;
    t.features = 4;
    t.values = kCorpusValues;
    t.storedType = "int32";
    t.notes = {"replaced 1 zero with 1, the smallest positive value"};
    const Dataset d = makeExpressionDataset(t, "table.tsv", "/data/table.tsv");
    const DatasetMeta& meta = d.meta();
    EXPECT_EQ(meta.kind, "expression");
    EXPECT_EQ(meta.name, "table.tsv");
    EXPECT_EQ(meta.source, "/data/table.tsv");
    EXPECT_EQ(meta.size, 4u);
    EXPECT_EQ(meta.notes, t.notes);
    const std::vector<std::pair<std::string, std::string>> expected
        = {{"samples", "3"}, {"features", "4"}, {"value range", "[1, 12]"}, {"stored as", "int32"}};
    EXPECT_EQ(meta.properties, expected);
    EXPECT_EQ(meta.contentHash.rfind("ks64:", 0), 0u);
    // Names are filled in when the table came without them.
    EXPECT_EQ(d.as<ExpressionTable>().sampleNames, kSamples);
    EXPECT_EQ(d.as<ExpressionTable>().featureNames, (std::vector<std::string> {"F1", "F2", "F3", "F4"}));

    // The same values in another shape are other data.
    ExpressionTable reshaped = t;
    reshaped.samples = 4;
    reshaped.features = 3;
    EXPECT_NE(makeExpressionDataset(reshaped, "r", "r").meta().contentHash, meta.contentHash);
    // Names do not change the content hash.
    ExpressionTable renamed = t;
    renamed.featureNames = {"a", "b", "c", "d"};
    EXPECT_EQ(makeExpressionDataset(renamed, "r", "r").meta().contentHash, meta.contentHash);

    ExpressionTable broken = t;
    broken.values.pop_back();
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { makeExpressionDataset(broken, "b", "src"); }), "src", "", "holds 11 values"));
}

TEST(ExpressionDatasetTest, GeneratedDatasetHasItsShape)
{
    ExpressionGenerator g;
    g.samples = 5;
    g.features = 9;
    g.plantedPairs = 2;
    const Dataset d = makeExpressionDataset(generateExpression(g), "generated", "generator");
    EXPECT_EQ(d.meta().size, 9u);
    EXPECT_EQ(d.as<ExpressionTable>().values.size(), 45u);
    EXPECT_EQ(d.meta().properties[0].second, "5");
}

// --- a real table: Seurat's pbmc_raw.txt ----------------------------------------------------------------------

std::vector<std::string> splitTabs(const std::string& line)
{
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, '\t'))
        fields.push_back(field);
    if (!line.empty() && line.back() == '\t')
        fields.emplace_back();
    return fields;
}

TEST_F(ExpressionTempTest, SeuratPbmcRawFromDebian)
{
    const test::DebianPackage package = test::fetchDebianPackage("r-cran-seurat", m_dir.string());
    if (package.root.empty())
        GTEST_SKIP() << package.skipReason;
    const std::string path = package.root + "/usr/lib/R/site-library/Seurat/extdata/pbmc_raw.txt";
    if (!std::filesystem::is_regular_file(path))
        GTEST_SKIP() << package.deb << " does not ship Seurat/extdata/pbmc_raw.txt";

    // Count the file ourselves: features as rows, R's write.table form (the header holds only the sample names).
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = splitTabs(line);
    std::vector<std::vector<std::string>> rows;
    while (std::getline(in, line))
        if (!line.empty())
            rows.push_back(splitTabs(line));
    ASSERT_FALSE(rows.empty());
    std::size_t zeros = 0;
    double smallestPositive = std::numeric_limits<double>::infinity();
    std::string firstZeroPlace;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        ASSERT_EQ(rows[r].size(), header.size() + 1) << "line " << r + 2;
        for (std::size_t f = 1; f < rows[r].size(); ++f) {
            const double v = std::stod(rows[r][f]);
            if (v == 0) {
                if (zeros++ == 0)
                    firstZeroPlace = "line " + std::to_string(r + 2) + ", column " + std::to_string(f + 1) + " (sample "
                        + header[f - 1] + ", feature " + rows[r][0] + ")";
            } else {
                smallestPositive = std::min(smallestPositive, v);
            }
        }
    }
    ASSERT_GT(zeros, 0u) << "pbmc_raw.txt was expected to hold zeros";

    EXPECT_TRUE(errorSays(catchDatasetError([&] { readExpressionText(path, kFeaturesAsRows); }), path, firstZeroPlace,
        "zero value; log-ratios need strictly positive values"));

    const ExpressionTable t
        = readExpressionText(path, withParams({{"orientation", "features-as-rows"}, {"zeros", "replace"}}));
    EXPECT_EQ(t.samples, header.size());
    EXPECT_EQ(t.features, rows.size());
    EXPECT_EQ(t.sampleNames, header);
    ASSERT_EQ(t.featureNames.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        EXPECT_EQ(t.featureNames[i], rows[i][0]);
    // Spot-check the transpose: every cell of a few features and samples, zeros replaced.
    for (const std::size_t i : {std::size_t {0}, rows.size() / 2, rows.size() - 1})
        for (const std::size_t k : {std::size_t {0}, header.size() / 3, header.size() - 1}) {
            const double v = std::stod(rows[i][k + 1]);
            EXPECT_EQ(t.values[k * t.features + i], v == 0 ? smallestPositive : v)
                << "feature " << i << ", sample " << k;
        }
    ASSERT_EQ(t.notes.size(), 1u);
    char expectedNote[128];
    std::snprintf(expectedNote, sizeof expectedNote, "replaced %zu zeros with %.10g, the smallest positive value",
        zeros, smallestPositive);
    EXPECT_EQ(t.notes[0], expectedNote);
    for (double v : t.values)
        ASSERT_GT(v, 0);
}

} // namespace
} // namespace ks::data
