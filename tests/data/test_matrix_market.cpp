// The spmv workload's sparse matrices from text: the Matrix Market reader over the committed corpus under
// tests/data/spmv/{good,bad}, gzip copies and round trips written at test time, the memory check of the size line,
// csrFromTriplets and validateCsr, 10x Genomics MEX folders built at test time, and real files from Debian: PETSc's
// example matrices (libpetsc3.18-dev-examples) and Seurat's MEX test folders (r-cran-seurat).

#include "data/dataset_error.h"
#include "data/sparse_matrix.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <zlib.h>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::errorSays;

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeGzip(const std::string& path, const std::string& text)
{
    gzFile file = gzopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr) << path;
    if (!text.empty()) {
        ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    }
    ASSERT_EQ(gzclose(file), Z_OK);
}

/// A file's text whether it is gzip-compressed or not (zlib reads plain files through).
std::string readMaybeGzip(const std::string& path)
{
    gzFile file = gzopen(path.c_str(), "rb");
    EXPECT_NE(file, nullptr) << path;
    if (!file)
        return {};
    std::string text;
    char chunk[1 << 14];
    int got = 0;
    while ((got = gzread(file, chunk, sizeof chunk)) > 0)
        text.append(chunk, static_cast<std::size_t>(got));
    EXPECT_EQ(got, 0) << path;
    gzclose(file);
    return text;
}

std::vector<double> toDense(const CsrMatrix& m)
{
    std::vector<double> dense(m.rows * m.cols, 0.0);
    for (std::uint64_t r = 0; r < m.rows; ++r)
        for (std::int64_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
            dense[r * m.cols + static_cast<std::uint64_t>(m.colIdx[k])] += m.values[k];
    return dense;
}

void expectSameCsr(const CsrMatrix& actual, const CsrMatrix& expected)
{
    EXPECT_EQ(actual.rows, expected.rows);
    EXPECT_EQ(actual.cols, expected.cols);
    EXPECT_EQ(actual.rowPtr, expected.rowPtr);
    EXPECT_EQ(actual.colIdx, expected.colIdx);
    ASSERT_EQ(actual.values.size(), expected.values.size());
    for (std::size_t k = 0; k < expected.values.size(); ++k)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(actual.values[k]), std::bit_cast<std::uint64_t>(expected.values[k]))
            << "entry " << k << ": " << actual.values[k] << " vs " << expected.values[k];
}

using EntryMap = std::map<std::pair<std::uint64_t, std::uint64_t>, double>;

/// Checks a CSR holds exactly the entries of `expected` (0-based (row, column) → value), bit for bit.
void expectCsrHolds(const CsrMatrix& m, const EntryMap& expected, const std::string& what)
{
    ASSERT_NO_THROW(validateCsr(m, what));
    EXPECT_EQ(m.nnz(), expected.size()) << what;
    for (std::uint64_t r = 0; r < m.rows; ++r)
        for (std::int64_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
            const auto it = expected.find({r, static_cast<std::uint64_t>(m.colIdx[k])});
            ASSERT_NE(it, expected.end()) << what << ": unexpected entry (" << r << ", " << m.colIdx[k] << ")";
            EXPECT_EQ(std::bit_cast<std::uint64_t>(m.values[k]), std::bit_cast<std::uint64_t>(it->second))
                << what << ": entry (" << r << ", " << m.colIdx[k] << "): " << m.values[k] << " vs " << it->second;
        }
}

/// A test name from a corpus file name ("crlf.mtx" -> "crlf_mtx").
std::string testNameOf(std::string name)
{
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

// --- the good corpus ------------------------------------------------------------------------------------------

struct GoodMatrix {
    const char* name;
    std::uint64_t rows;
    std::uint64_t cols;
    std::vector<double> dense; ///< row-major
    std::uint64_t nnz; ///< stored entries (explicit zeros of coordinate files count)
    const char* storedType;
    std::vector<std::string> notes;
};

const GoodMatrix kGoodCorpus[] = {
    {"general_real.mtx", 3, 4, {1.5, 0, 0, -2, 0, 3.25, 0, 0, 0.4, 0, -5, 0}, 5, "float64", {}},
    {"integer.mtx", 2, 3, {7, 0, -12, 0, 3, 0}, 4, "integer", {}},
    {"pattern.mtx", 3, 3, {0, 1, 0, 1, 0, 1, 0, 0, 1}, 4, "pattern", {}},
    {"symmetric.mtx", 4, 4, {2, -1, 0, 0.5, -1, 2, -1, 0, 0, -1, 0, 0, 0.5, 0, 0, 3}, 9, "float64",
        {"symmetric: expanded to the full matrix (3 mirrored entries)"}},
    {"symmetric_upper_triangle.mtx", 3, 3, {0, 5, -1, 5, 4, 0, -1, 0, 0}, 5, "float64",
        {"symmetric: expanded to the full matrix (2 mirrored entries)"}},
    {"symmetric_pattern.mtx", 3, 3, {1, 0, 1, 0, 0, 1, 1, 1, 0}, 5, "pattern",
        {"symmetric: expanded to the full matrix (2 mirrored entries)"}},
    {"skew_symmetric.mtx", 3, 3, {0, -4, 0, 4, 0, 1.5, 0, -1.5, 0}, 4, "float64",
        {"skew-symmetric: expanded to the full matrix (2 mirrored entries, negated)"}},
    {"array_general.mtx", 3, 2, {1, 2, 0, 5, -3.5, 0}, 4, "float64",
        {"array: 2 zero values left out of the sparse structure"}},
    {"array_symmetric.mtx", 3, 3, {4, 1, 0, 1, 5, 2, 0, 2, 6}, 7, "float64",
        {"symmetric: expanded to the full matrix (2 mirrored entries)",
            "array: 1 zero value left out of the sparse structure"}},
    {"array_skew_symmetric.mtx", 3, 3, {0, -1, -2, 1, 0, -3, 2, 3, 0}, 6, "integer",
        {"skew-symmetric: expanded to the full matrix (3 mirrored entries, negated)"}},
    {"comments_blank_lines.mtx", 2, 2, {1, 0, 0, 2}, 2, "float64", {}},
    {"unsorted.mtx", 3, 3, {1, 2, 0, 0, 0, 6, 7, 0, 9}, 5, "float64", {}},
    {"duplicates.mtx", 2, 2, {1.75, 0, 3, 2}, 3, "float64", {"2 duplicate entries summed"}},
    {"crlf.mtx", 2, 3, {0, 0, 1, -1, 0.125, 0}, 3, "float64", {}},
    {"case_insensitive_banner.mtx", 2, 2, {0, 0, 8, 0}, 1, "float64", {}},
    {"number_forms.mtx", 2, 3, {0.5, 5, 3, -0.025, 100, 1e-320}, 6, "float64", {}},
    {"no_trailing_newline.mtx", 2, 2, {0, 3, 4, 0}, 2, "float64", {}},
    {"no_entries.mtx", 3, 4, std::vector<double>(12, 0.0), 0, "float64", {}},
};

void PrintTo(const GoodMatrix& file, std::ostream* os)
{
    *os << file.name;
}

class MatrixMarketGoodCorpusTest : public test::TempDirTest, public ::testing::WithParamInterface<GoodMatrix> { };

TEST_P(MatrixMarketGoodCorpusTest, ReadsTheExpectedMatrix)
{
    const GoodMatrix& good = GetParam();
    const std::string path = test::corpusPath(std::string("good/") + good.name, "spmv");
    const CsrMatrix m = readMatrixMarket(path);
    EXPECT_NO_THROW(validateCsr(m, path));
    EXPECT_EQ(m.rows, good.rows);
    EXPECT_EQ(m.cols, good.cols);
    EXPECT_EQ(m.nnz(), good.nnz);
    EXPECT_EQ(toDense(m), good.dense);
    EXPECT_EQ(m.storedType, good.storedType);
    EXPECT_EQ(m.notes, good.notes);
    EXPECT_TRUE(m.rowNames.empty());
    EXPECT_TRUE(m.colNames.empty());

    // The same bytes gzip-compressed (recognised by content, whatever the name) read the same.
    const std::string gz = tempPath("copy.mtx.gz");
    writeGzip(gz, readBytes(path));
    const CsrMatrix fromGzip = readMatrixMarket(gz);
    expectSameCsr(fromGzip, m);
    EXPECT_EQ(fromGzip.notes, m.notes);
    const std::string disguised = tempPath("no_suffix.mtx");
    writeGzip(disguised, readBytes(path));
    expectSameCsr(readMatrixMarket(disguised), m);

    // Written back as coordinate real general, it reads as the same matrix.
    const std::string written = tempPath("written.mtx");
    writeMatrixMarket(written, m);
    const CsrMatrix back = readMatrixMarket(written);
    expectSameCsr(back, m);
    EXPECT_EQ(back.storedType, "float64");
    EXPECT_TRUE(back.notes.empty());
}

INSTANTIATE_TEST_SUITE_P(MatrixMarketCorpus, MatrixMarketGoodCorpusTest, ::testing::ValuesIn(kGoodCorpus),
    [](const ::testing::TestParamInfo<GoodMatrix>& p) { return testNameOf(p.param.name); });

TEST(MatrixMarketCorpusTest, EveryGoodFileIsListed)
{
    std::set<std::string> covered;
    for (const auto& good : kGoodCorpus)
        covered.insert(good.name);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::corpusPath("good", "spmv"))) {
        ++files;
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the good corpus but kGoodCorpus does not list it";
    }
    EXPECT_EQ(files, covered.size()) << "kGoodCorpus lists a file that is not in the good corpus";
}

TEST(MatrixMarketCorpusTest, TheCrlfFileKeepsItsLineEndings)
{
    // .gitattributes keeps the corpus byte-exact; a checkout that converted line endings would test nothing.
    const std::string bytes = readBytes(test::corpusPath("good/crlf.mtx", "spmv"));
    EXPECT_TRUE(contains(bytes, "general\r\n% crlf\r\n2 3 3\r\n"));
}

// --- the bad corpus -------------------------------------------------------------------------------------------

struct BadMatrix {
    const char* name;
    const char* place;
    const char* problem;
};

const BadMatrix kBadCorpus[] = {
    {"empty.mtx", "", "empty file: no %%MatrixMarket banner"},
    {"not_matrix_market.mtx", "line 1",
        "not a Matrix Market file: the first line must be the banner %%MatrixMarket matrix <format> <field> "
        "<symmetry>"},
    {"bad_banner.mtx", "line 1", "bad banner: 3 words after %%MatrixMarket, expected 4: %%MatrixMarket matrix"},
    {"bad_format.mtx", "line 1", "bad banner: unknown format 'sparse'; expected coordinate or array"},
    {"vector_object.mtx", "line 1", "bad banner: object 'vector' is not supported; only 'matrix' is"},
    {"complex.mtx", "line 1", "complex matrices are not supported"},
    {"hermitian.mtx", "line 1", "hermitian matrices are not supported"},
    {"pattern_array.mtx", "line 1", "'pattern' is invalid with the 'array' format"},
    {"skew_pattern.mtx", "line 1", "'pattern' is invalid with 'skew-symmetric'"},
    {"no_size_line.mtx", "end of file", "no size line after the banner"},
    {"bad_size_line.mtx", "line 3", "bad size line: 2 fields; expected 'rows columns entries' for a coordinate matrix"},
    {"size_not_a_number.mtx", "line 2", "bad size line: column count 'three' is not a non-negative integer"},
    {"negative_size.mtx", "line 2", "bad size line: negative row count -3"},
    {"dimension_too_large.mtx", "line 2",
        "the column count 2147483648 exceeds 2147483647, the most a sparse matrix with 32-bit indices holds"},
    {"not_square_symmetric.mtx", "line 2", "a symmetric matrix must be square, but the size line says 3 × 4"},
    {"too_much_memory.mtx", "line 2", "the 9000000000000 entries the size line declares needs"},
    {"index_zero.mtx", "line 4, column 1", "row index 0 is out of range 1..3 (Matrix Market indices are 1-based)"},
    {"index_out_of_range.mtx", "line 4, column 2", "column index 5 is out of range 1..4"},
    {"negative_index.mtx", "line 4, column 2", "column index -1 is out of range 1..4"},
    {"too_few_entries.mtx", "end of file", "found 2 entries, but the size line (line 2) declares 3"},
    {"too_many_entries.mtx", "line 5", "more entries than the 2 the size line (line 2) declares"},
    {"non_numeric_value.mtx", "line 4, column 3", "value 'abc' is not a number"},
    {"nan_value.mtx", "line 3, column 3",
        "value NaN (non-finite values are rejected; allow them with --allow-nonfinite)"},
    {"inf_value.mtx", "line 4, column 3", "an infinite value (non-finite values are rejected"},
    {"value_out_of_range.mtx", "line 3, column 3", "value '1e999' is out of the range of a double"},
    {"skew_diagonal.mtx", "line 4",
        "diagonal entry (2, 2) in a skew-symmetric matrix, whose diagonal is zero and not stored"},
    {"integer_with_float.mtx", "line 4, column 3",
        "value '1.5' is not an integer, but the banner declares an integer matrix"},
    {"missing_value.mtx", "line 4", "missing value: 2 fields, expected 3 (row, column, value) in a real matrix"},
    {"extra_field.mtx", "line 3", "3 fields, expected 2 (row, column)"},
    {"array_too_few_values.mtx", "end of file", "found 5 values, but a 3 × 2 array holds 6 (size line 2)"},
    {"array_too_many_values.mtx", "line 6",
        "more values than the 3 a 2 × 2 array (the lower triangle, column by column) holds"},
};

void PrintTo(const BadMatrix& file, std::ostream* os)
{
    *os << file.name;
}

class MatrixMarketBadCorpusTest : public ::testing::TestWithParam<BadMatrix> { };

TEST_P(MatrixMarketBadCorpusTest, ThrowsNamingFilePlaceAndProblem)
{
    const BadMatrix& bad = GetParam();
    const std::string path = test::corpusPath(std::string("bad/") + bad.name, "spmv");
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(path); }), path, bad.place, bad.problem));
}

INSTANTIATE_TEST_SUITE_P(MatrixMarketCorpus, MatrixMarketBadCorpusTest, ::testing::ValuesIn(kBadCorpus),
    [](const ::testing::TestParamInfo<BadMatrix>& p) { return testNameOf(p.param.name); });

TEST(MatrixMarketCorpusTest, EveryBadFileHasAnExpectedError)
{
    std::set<std::string> covered;
    for (const auto& bad : kBadCorpus)
        covered.insert(bad.name);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::corpusPath("bad", "spmv"))) {
        ++files;
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the malformed corpus but kBadCorpus has no expectation for it";
    }
    EXPECT_EQ(files, covered.size()) << "kBadCorpus lists a file that is not in the malformed corpus";
}

// --- reading: options, limits, errors of files written at test time --------------------------------------------

class MatrixMarketReadTest : public test::TempDirTest { };

TEST(MatrixMarketOptionsTest, AllowNonFiniteKeepsNaNAndInfinities)
{
    ReadOptions options;
    options.allowNonFinite = true;
    const CsrMatrix nan = readMatrixMarket(test::corpusPath("bad/nan_value.mtx", "spmv"), options);
    ASSERT_EQ(nan.nnz(), 2u);
    EXPECT_TRUE(std::isnan(nan.values[0]));
    EXPECT_EQ(nan.values[1], 2.0);
    const CsrMatrix inf = readMatrixMarket(test::corpusPath("bad/inf_value.mtx", "spmv"), options);
    ASSERT_EQ(inf.nnz(), 2u);
    EXPECT_EQ(inf.values[1], -std::numeric_limits<double>::infinity());
}

TEST_F(MatrixMarketReadTest, SizeLinesNeedingTooMuchMemoryFailBeforeAllocating)
{
    // Each would need far more than any machine has; a reader that allocated first would die of bad_alloc or worse
    // instead of naming the size line.
    const std::string general = writeFile(
        "general.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 9000000000000\n");
    auto error = catchDatasetError([&] { readMatrixMarket(general); });
    EXPECT_TRUE(errorSays(error, general, "line 2", "the 9000000000000 entries the size line declares needs"));
    ASSERT_TRUE(error);
    EXPECT_TRUE(contains(error->problem(), "of memory but only"));
    EXPECT_TRUE(contains(error->problem(), "is available"));

    const std::string symmetric = writeFile("symmetric.mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n% comment\n2000000000 2000000000 5000000000000\n1 1 1\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(symmetric); }), symmetric, "line 3",
        "the 5000000000000 entries the size line declares (up to 10000000000000 after expanding the symmetry) "
        "needs"));

    // An entry count near 2^64 saturates instead of wrapping to a small size.
    const std::string wrapping = writeFile(
        "wrapping.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 18446744073709551615\n1 1 1\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(wrapping); }), wrapping, "line 2",
        "the 18446744073709551615 entries the size line declares"));

    const std::string array
        = writeFile("array.mtx", "%%MatrixMarket matrix array real general\n2000000000 2000000000\n1\n");
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readMatrixMarket(array); }), array, "line 2", "a 2000000000 × 2000000000 array needs"));
}

TEST_F(MatrixMarketReadTest, DimensionsAreCheckedIn64Bits)
{
    // 2^32 + 1 would wrap to 1 in 32-bit arithmetic; 2^64 does not fit at all.
    const std::string rows
        = writeFile("rows.mtx", "%%MatrixMarket matrix coordinate real general\n4294967297 1 1\n1 1 1\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(rows); }), rows, "line 2",
        "the row count 4294967297 exceeds 2147483647, the most a sparse matrix with 32-bit indices holds"));
    const std::string huge
        = writeFile("huge.mtx", "%%MatrixMarket matrix coordinate real general\n18446744073709551616 1 1\n1 1 1\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(huge); }), huge, "line 2",
        "bad size line: row count '18446744073709551616' does not fit in 64 bits"));
    // The largest dimension is accepted (one entry, so nothing big is needed but the row pointers of one row).
    const std::string widest
        = writeFile("widest.mtx", "%%MatrixMarket matrix coordinate real general\n1 2147483647 1\n1 2147483647 2\n");
    const CsrMatrix m = readMatrixMarket(widest);
    EXPECT_EQ(m.cols, kMaxSparseDimension);
    ASSERT_EQ(m.nnz(), 1u);
    EXPECT_EQ(m.colIdx[0], 2147483646);
    // An index past 2^32 is out of range, not wrapped.
    const std::string index
        = writeFile("index.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4294967297 1 1\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(index); }), index, "line 3, column 1",
        "row index 4294967297 is out of range 1..3"));
}

TEST_F(MatrixMarketReadTest, MoreBannerAndEntryErrors)
{
    auto expectError
        = [&](const std::string& name, const std::string& text, const std::string& place, const std::string& problem) {
              const std::string p = writeFile(name, text);
              EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(p); }), p, place, problem)) << name;
          };
    const std::string h = "%%MatrixMarket matrix coordinate real general\n";
    expectError("unknown_field.mtx", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", "line 1",
        "bad banner: unknown field 'float'; expected real, integer, pattern or complex");
    expectError("unknown_symmetry.mtx", "%%MatrixMarket matrix coordinate real upper\n1 1 0\n", "line 1",
        "bad banner: unknown symmetry 'upper'; expected general, symmetric, skew-symmetric or hermitian");
    expectError("five_words.mtx", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", "line 1",
        "bad banner: 5 words after %%MatrixMarket, expected 4");
    expectError("complex_hermitian.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 0\n", "line 1",
        "complex matrices are not supported");
    expectError("array_size_three.mtx", "%%MatrixMarket matrix array real general\n2 2 4\n", "line 2",
        "bad size line: 3 fields; expected 'rows columns' for an array");
    expectError("one_field.mtx", h + "2 2 1\n1\n", "line 3", "1 fields, expected 3 (row, column, value)");
    expectError("four_fields.mtx", h + "2 2 1\n1 1 1 1\n", "line 3", "4 fields, expected 3 (row, column, value)");
    expectError(
        "index_float.mtx", h + "2 2 1\n1.5 1 1\n", "line 3, column 1", "row index '1.5' is not a positive integer");
    expectError(
        "index_word.mtx", h + "2 2 1\n1 x 1\n", "line 3, column 2", "column index 'x' is not a positive integer");
    expectError("partial_number.mtx", h + "2 2 1\n1 1 1.5x\n", "line 3, column 3", "value '1.5x' is not a number");
    expectError("plus_minus.mtx", h + "2 2 1\n1 1 +-1\n", "line 3, column 3", "value '+-1' is not a number");
    expectError("integer_overflow.mtx",
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n", "line 3, column 3",
        "integer value '99999999999999999999' does not fit in 64 bits");
    expectError("integer_exponent.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1e3\n",
        "line 3, column 3", "value '1e3' is not an integer");
    expectError(
        "array_nan.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\nNaN\n", "line 4, column 1", "value NaN");
    expectError("array_integer_float.mtx", "%%MatrixMarket matrix array integer general\n1 2\n1\n2.0\n",
        "line 4, column 1", "value '2.0' is not an integer");
    expectError("array_skew_too_few.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n", "end of file",
        "found 2 values, but a 3 × 3 array (the strict lower triangle, column by column) holds 3 (size line 2)");
    expectError("skew_not_square.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 2\n1\n", "line 2",
        "a skew-symmetric matrix must be square, but the size line says 3 × 2");
    expectError("index_in_empty.mtx", h + "0 0 1\n1 1 1\n", "line 3, column 1",
        "row index 1 is out of range: the matrix has no rows (Matrix Market indices are 1-based)");
    expectError("blank_file.mtx", " \r\n\n\t\n", "", "empty file: no %%MatrixMarket banner");
    expectError("blank_first_line.mtx", "\n" + h + "1 1 0\n", "line 1", "not a Matrix Market file");
    // A byte-order mark before the banner is tolerated; one in front of data is not a number.
    const std::string bom = writeFile("bom.mtx", "\xEF\xBB\xBF" + h + "1 1 1\n1 1 2\n");
    EXPECT_EQ(readMatrixMarket(bom).values, (std::vector<double> {2}));
    // The file is named as given, and missing files are DatasetErrors too.
    const std::string missing = tempPath("missing.mtx");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMatrixMarket(missing); }), missing, "", "no such file"));
}

TEST_F(MatrixMarketReadTest, ArraysMayHoldSeveralValuesPerLineAndIntegerArraysAreIntegers)
{
    // The format puts one value per line; writers that wrap several are read column-major all the same.
    const std::string p
        = writeFile("wrapped.mtx", "%%MatrixMarket matrix array integer general\n2 3\n1 0 3\n4 5 -6\n\n");
    const CsrMatrix m = readMatrixMarket(p);
    EXPECT_EQ(toDense(m), (std::vector<double> {1, 3, 5, 0, 4, -6}));
    EXPECT_EQ(m.storedType, "integer");
    EXPECT_EQ(m.notes, (std::vector<std::string> {"array: 1 zero value left out of the sparse structure"}));
}

TEST_F(MatrixMarketReadTest, SymmetricFilesStoringBothTrianglesSumTheMirrors)
{
    // The format stores one triangle; a file holding (1,2) and (2,1) both gets each mirrored onto the other, and
    // the pairs are summed like any duplicates (and said so).
    const std::string p
        = writeFile("both.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 2 1\n2 1 2\n2 2 5\n");
    const CsrMatrix m = readMatrixMarket(p);
    EXPECT_EQ(toDense(m), (std::vector<double> {0, 3, 3, 5}));
    EXPECT_EQ(m.notes,
        (std::vector<std::string> {
            "symmetric: expanded to the full matrix (2 mirrored entries)", "2 duplicate entries summed"}));
}

TEST_F(MatrixMarketReadTest, LargeFileReadsLikeItsTriplets)
{
    // 300,000 random entries (duplicates included) written as text in random order, read back and compared with a
    // map built from the same triplets in file order.
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::uint64_t> row(0, 2999), col(0, 1999);
    std::uniform_real_distribution<double> value(-1, 1);
    EntryMap expected;
    std::string text = "%%MatrixMarket matrix coordinate real general\n3000 2000 300000\n";
    char line[96];
    for (int k = 0; k < 300000; ++k) {
        const std::uint64_t r = row(rng), c = col(rng);
        const double v = value(rng);
        std::snprintf(line, sizeof line, "%llu %llu %.17g\n", static_cast<unsigned long long>(r + 1),
            static_cast<unsigned long long>(c + 1), v);
        text += line;
        expected[{r, c}] += v;
    }
    const std::string p = writeFile("large.mtx", text);
    const CsrMatrix m = readMatrixMarket(p);
    EXPECT_EQ(m.rows, 3000u);
    EXPECT_EQ(m.cols, 2000u);
    expectCsrHolds(m, expected, p);
    ASSERT_EQ(m.notes.size(), 1u);
    EXPECT_EQ(m.notes[0], std::to_string(300000 - expected.size()) + " duplicate entries summed");
}

// --- writing ----------------------------------------------------------------------------------------------------

TEST_F(MatrixMarketReadTest, WriteThenReadIsBitExact)
{
    std::vector<std::int64_t> rows = {0, 0, 2, 2, 2, 4};
    std::vector<std::int32_t> cols = {1, 4, 0, 2, 3, 4};
    std::vector<double> values = {0.1, 1.0 / 3.0, -2.5e300, 4.9406564584124654e-324, -0.0, 123456789.123456789};
    const CsrMatrix m = csrFromTriplets(5, 5, rows, cols, values);
    const std::string p = tempPath("written.mtx");
    writeMatrixMarket(p, m);
    const std::string text = readBytes(p);
    EXPECT_EQ(text.rfind("%%MatrixMarket matrix coordinate real general\n", 0), 0u) << text;
    EXPECT_TRUE(contains(text, "\n5 5 6\n1 2 0.10000000000000001\n"));
    const CsrMatrix back = readMatrixMarket(p);
    expectSameCsr(back, m);
    EXPECT_TRUE(std::signbit(back.values[4]));
}

TEST_F(MatrixMarketReadTest, WritingAnEmptyMatrixAndToAnUnwritablePlace)
{
    CsrMatrix empty;
    empty.rows = 2;
    empty.cols = 3;
    empty.rowPtr = {0, 0, 0};
    const std::string p = tempPath("empty.mtx");
    writeMatrixMarket(p, empty);
    const CsrMatrix back = readMatrixMarket(p);
    expectSameCsr(back, empty);

    const std::string nowhere = tempPath("no/such/directory.mtx");
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { writeMatrixMarket(nowhere, empty); }), nowhere, "", "cannot open for writing"));
    // An inconsistent matrix is not written.
    CsrMatrix broken = empty;
    broken.rowPtr = {0, 1, 1};
    EXPECT_TRUE(errorSays(catchDatasetError([&] { writeMatrixMarket(p, broken); }), p, "row 0",
        "the row ends at 1, past the 0 stored entries"));
}

// --- csrFromTriplets ------------------------------------------------------------------------------------------

TEST(CsrFromTripletsTest, SortsByRowThenColumn)
{
    std::vector<std::int64_t> rows = {2, 0, 1, 2, 0, 2};
    std::vector<std::int32_t> cols = {3, 2, 0, 0, 1, 2};
    std::vector<double> values = {23, 2, 10, 20, 1, 22};
    std::uint64_t duplicates = 99;
    const CsrMatrix m = csrFromTriplets(4, 4, rows, cols, values, &duplicates);
    EXPECT_EQ(m.rows, 4u);
    EXPECT_EQ(m.cols, 4u);
    EXPECT_EQ(m.rowPtr, (std::vector<std::int64_t> {0, 2, 3, 6, 6}));
    EXPECT_EQ(m.colIdx, (std::vector<std::int32_t> {1, 2, 0, 0, 2, 3}));
    EXPECT_EQ(m.values, (std::vector<double> {1, 2, 10, 20, 22, 23}));
    EXPECT_EQ(duplicates, 0u);
    EXPECT_EQ(m.nnz(), 6u);
    EXPECT_NO_THROW(validateCsr(m, "triplets"));
    EXPECT_TRUE(m.notes.empty());
    // The triplets are consumed (their memory is released for the CSR's sake).
    EXPECT_TRUE(rows.empty());
    EXPECT_TRUE(cols.empty());
    EXPECT_TRUE(values.empty());
}

TEST(CsrFromTripletsTest, SumsDuplicatesInInputOrderAndCountsThem)
{
    // 1e16 + 1 − 1e16 is 0 in that order and 1 in another: the sum follows the input order.
    std::vector<std::int64_t> rows = {1, 0, 1, 1, 0, 1};
    std::vector<std::int32_t> cols = {2, 0, 2, 0, 0, 2};
    std::vector<double> values = {1e16, 5, 1, 7, -5, -1e16};
    std::uint64_t duplicates = 0;
    const CsrMatrix m = csrFromTriplets(2, 3, rows, cols, values, &duplicates);
    EXPECT_EQ(duplicates, 3u);
    EXPECT_EQ(m.rowPtr, (std::vector<std::int64_t> {0, 1, 3}));
    EXPECT_EQ(m.colIdx, (std::vector<std::int32_t> {0, 0, 2}));
    EXPECT_EQ(m.values, (std::vector<double> {0, 7, (1e16 + 1) - 1e16}));
    EXPECT_EQ(m.colIdx.size(), m.values.size());
    EXPECT_NO_THROW(validateCsr(m, "triplets"));

    // Without a counter it does the same.
    std::vector<std::int64_t> r2 = {0, 0};
    std::vector<std::int32_t> c2 = {1, 1};
    std::vector<double> v2 = {2, 3};
    const CsrMatrix n = csrFromTriplets(1, 2, r2, c2, v2);
    EXPECT_EQ(n.values, (std::vector<double> {5}));
}

TEST(CsrFromTripletsTest, EmptyRowsAndEmptyMatrices)
{
    std::vector<std::int64_t> rows;
    std::vector<std::int32_t> cols;
    std::vector<double> values;
    const CsrMatrix none = csrFromTriplets(3, 5, rows, cols, values);
    EXPECT_EQ(none.rowPtr, (std::vector<std::int64_t> {0, 0, 0, 0}));
    EXPECT_EQ(none.nnz(), 0u);
    EXPECT_NO_THROW(validateCsr(none, "none"));
    const CsrMatrix zero = csrFromTriplets(0, 0, rows, cols, values);
    EXPECT_EQ(zero.rowPtr, (std::vector<std::int64_t> {0}));
    EXPECT_NO_THROW(validateCsr(zero, "zero"));
}

TEST(CsrFromTripletsTest, RandomTripletsMatchAMapReference)
{
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::int64_t> row(0, 499);
    std::uniform_int_distribution<std::int32_t> col(0, 299);
    std::uniform_real_distribution<double> value(-10, 10);
    std::vector<std::int64_t> rows;
    std::vector<std::int32_t> cols;
    std::vector<double> values;
    EntryMap expected;
    for (int k = 0; k < 100000; ++k) {
        rows.push_back(row(rng));
        cols.push_back(col(rng));
        values.push_back(value(rng));
        expected[{static_cast<std::uint64_t>(rows.back()), static_cast<std::uint64_t>(cols.back())}] += values.back();
    }
    std::uint64_t duplicates = 0;
    const CsrMatrix m = csrFromTriplets(500, 300, rows, cols, values, &duplicates);
    EXPECT_EQ(duplicates, 100000 - expected.size());
    expectCsrHolds(m, expected, "random triplets");
}

TEST(CsrFromTripletsTest, MisuseIsALogicError)
{
    std::vector<std::int64_t> rows = {0, 1};
    std::vector<std::int32_t> cols = {0};
    std::vector<double> values = {1, 2};
    EXPECT_THROW(csrFromTriplets(2, 2, rows, cols, values), std::logic_error);
    std::vector<std::int64_t> r = {2};
    std::vector<std::int32_t> c = {0};
    std::vector<double> v = {1};
    EXPECT_THROW(csrFromTriplets(2, 2, r, c, v), std::logic_error);
    r = {0};
    c = {-1};
    EXPECT_THROW(csrFromTriplets(2, 2, r, c, v), std::logic_error);
    r = {-1};
    c = {0};
    EXPECT_THROW(csrFromTriplets(2, 2, r, c, v), std::logic_error);
    EXPECT_THROW(csrFromTriplets(kMaxSparseDimension + 1, 2, r, c, v), std::logic_error);
}

// --- validateCsr ----------------------------------------------------------------------------------------------

/// A valid 3 × 4 matrix: row 0 {1, 3}, row 1 empty, row 2 {0, 2, 3}.
CsrMatrix validSmall()
{
    CsrMatrix m;
    m.rows = 3;
    m.cols = 4;
    m.rowPtr = {0, 2, 2, 5};
    m.colIdx = {1, 3, 0, 2, 3};
    m.values = {1, 2, 3, 4, 5};
    return m;
}

TEST(ValidateCsrTest, AValidMatrixPasses)
{
    EXPECT_NO_THROW(validateCsr(validSmall(), "m"));
    CsrMatrix named = validSmall();
    named.rowNames = {"a", "b", "c"};
    named.colNames = {"w", "x", "y", "z"};
    EXPECT_NO_THROW(validateCsr(named, "m"));
}

TEST(ValidateCsrTest, EveryInvariantViolationIsNamed)
{
    auto expectError = [](const CsrMatrix& m, const std::string& place, const std::string& problem) {
        EXPECT_TRUE(errorSays(catchDatasetError([&] { validateCsr(m, "matrix.h5"); }), "matrix.h5", place, problem));
    };
    CsrMatrix m = validSmall();
    m.rowPtr.pop_back();
    expectError(m, "", "the row pointers hold 3 entries; 3 rows need 4");
    m = validSmall();
    m.rowPtr.clear();
    expectError(m, "", "the row pointers hold 0 entries; 3 rows need 4");
    m = validSmall();
    m.rowPtr[0] = 1;
    expectError(m, "row 0", "the row pointers start at 1 instead of 0");
    m = validSmall();
    m.rowPtr = {0, 2, 1, 5};
    expectError(m, "row 1", "the row pointers decrease: rowPtr[1] = 2 > rowPtr[2] = 1");
    m = validSmall();
    m.values.pop_back();
    expectError(m, "", "5 column indices but 4 values");
    m = validSmall();
    m.colIdx[4] = 4;
    expectError(m, "row 2", "column index 4 (entry 4) is outside 0..3");
    m = validSmall();
    m.colIdx[2] = -1;
    expectError(m, "row 2", "column index -1 (entry 2) is outside 0..3");
    m = validSmall();
    m.colIdx = {3, 1, 0, 2, 3};
    expectError(m, "row 0", "unsorted column index 1 (entry 1) after 3");
    m = validSmall();
    m.colIdx = {1, 3, 0, 2, 2};
    expectError(m, "row 2", "duplicate column index 2 (entry 4) after 2");
    m = validSmall();
    m.colIdx.push_back(3);
    m.values.push_back(6);
    expectError(m, "", "the row pointers end at 5 but 6 entries are stored");
    m = validSmall();
    m.rowPtr[3] = 6;
    expectError(m, "row 2", "the row ends at 6, past the 5 stored entries");
    m = validSmall();
    m.cols = kMaxSparseDimension + 1;
    expectError(m, "", "exceeds 2147483647, the most a sparse matrix with 32-bit indices holds");
    m = validSmall();
    m.rowNames = {"a", "b"};
    expectError(m, "", "2 row names for 3 rows");
    m = validSmall();
    m.colNames = {"a"};
    expectError(m, "", "1 column names for 4 columns");
}

// --- 10x Genomics MEX folders ---------------------------------------------------------------------------------

class MexFolderTest : public test::TempDirTest {
protected:
    /// A MEX folder of 3 features × 2 barcodes in `name`.
    std::string makeFolder(const std::string& name)
    {
        std::filesystem::create_directories(m_dir / name);
        writeFile(name + "/matrix.mtx",
            "%%MatrixMarket matrix coordinate integer general\n%metadata_json: {\"format_version\": 2}\n3 2 4\n"
            "1 1 5\n3 1 1\n2 2 7\n3 2 2\n");
        writeGzip(tempPath(name + "/features.tsv.gz"),
            "ENSG01\tGENE1\tGene Expression\nENSG02\tGENE2\tGene Expression\nENSG03\tGENE3\tGene Expression\n");
        writeFile(name + "/barcodes.tsv", "AAAC-1\nAAAG-1\n");
        return tempPath(name);
    }
};

TEST_F(MexFolderTest, ReadsFeaturesByNameAndBarcodes)
{
    const std::string dir = makeFolder("mex");
    EXPECT_TRUE(isMexFolder(dir));
    const CsrMatrix m = readMexFolder(dir);
    EXPECT_EQ(m.rows, 3u);
    EXPECT_EQ(m.cols, 2u);
    EXPECT_EQ(toDense(m), (std::vector<double> {5, 0, 0, 7, 1, 2}));
    EXPECT_EQ(m.rowNames, (std::vector<std::string> {"GENE1", "GENE2", "GENE3"}));
    EXPECT_EQ(m.colNames, (std::vector<std::string> {"AAAC-1", "AAAG-1"}));
    EXPECT_EQ(m.storedType, "integer");
    EXPECT_TRUE(m.notes.empty());
    EXPECT_NO_THROW(validateCsr(m, dir));
}

TEST_F(MexFolderTest, GzippedMatrixAndOneColumnGenesFile)
{
    const std::string dir = makeFolder("mex");
    const std::string matrix = readBytes(dir + "/matrix.mtx");
    std::filesystem::remove(dir + "/matrix.mtx");
    std::filesystem::remove(dir + "/features.tsv.gz");
    writeGzip(dir + "/matrix.mtx.gz", matrix);
    writeFile("mex/genes.tsv", "g1\r\ng2\r\ng3\r\n\r\n");
    writeGzip(dir + "/barcodes.tsv.gz", "b1\nb2");
    std::filesystem::remove(dir + "/barcodes.tsv");
    EXPECT_TRUE(isMexFolder(dir));
    const CsrMatrix m = readMexFolder(dir);
    EXPECT_EQ(toDense(m), (std::vector<double> {5, 0, 0, 7, 1, 2}));
    EXPECT_EQ(m.rowNames, (std::vector<std::string> {"g1", "g2", "g3"}));
    EXPECT_EQ(m.colNames, (std::vector<std::string> {"b1", "b2"}));
}

TEST_F(MexFolderTest, MissingNameFilesLeaveTheMatrixUnnamedAndSaySo)
{
    const std::string dir = makeFolder("mex");
    std::filesystem::remove(dir + "/features.tsv.gz");
    std::filesystem::remove(dir + "/barcodes.tsv");
    const CsrMatrix m = readMexFolder(dir);
    EXPECT_TRUE(m.rowNames.empty());
    EXPECT_TRUE(m.colNames.empty());
    EXPECT_EQ(m.notes,
        (std::vector<std::string> {
            "no features.tsv or genes.tsv: rows are unnamed", "no barcodes.tsv: columns are unnamed"}));
}

TEST_F(MexFolderTest, MissingMatrixIsAnError)
{
    const std::string dir = makeFolder("mex");
    std::filesystem::remove(dir + "/matrix.mtx");
    EXPECT_FALSE(isMexFolder(dir));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMexFolder(dir); }), dir, "", "no matrix.mtx or matrix.mtx.gz"));
    // A directory named matrix.mtx is not a matrix file.
    std::filesystem::create_directories(dir + "/matrix.mtx");
    EXPECT_FALSE(isMexFolder(dir));
    EXPECT_FALSE(isMexFolder(tempPath("nowhere")));
    const std::string file = writeFile("plain.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 0\n");
    EXPECT_FALSE(isMexFolder(file));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMexFolder(file); }), file, "", "not a directory"));
}

TEST_F(MexFolderTest, NameCountMismatchNamesTheFileAndBothCounts)
{
    const std::string dir = makeFolder("mex");
    writeGzip(dir + "/features.tsv.gz", "E1\tG1\tGene Expression\nE2\tG2\tGene Expression\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMexFolder(dir); }), dir + "/features.tsv.gz", "",
        "2 names (lines), but matrix.mtx has 3 rows"));
    const std::string other = makeFolder("mex2");
    writeFile("mex2/barcodes.tsv", "A\nB\nC\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMexFolder(other); }), other + "/barcodes.tsv", "",
        "3 names (lines), but matrix.mtx has 2 columns"));
}

TEST_F(MexFolderTest, MatrixErrorsNameTheMatrixFile)
{
    const std::string dir = makeFolder("mex");
    writeFile("mex/matrix.mtx", "%%MatrixMarket matrix coordinate integer general\n3 2 1\n4 1 1\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readMexFolder(dir); }), dir + "/matrix.mtx", "line 3, column 1",
        "row index 4 is out of range 1..3"));
}

// --- real files from Debian -----------------------------------------------------------------------------------

/// What a plain, slow reading of a coordinate Matrix Market file finds (iostreams, std::stod, a map), for
/// comparison with the reader.
struct IndependentParse {
    std::string format, field, symmetry;
    std::uint64_t rows = 0, cols = 0, declared = 0;
    EntryMap entries;
};

IndependentParse parseIndependently(const std::string& path)
{
    IndependentParse p;
    std::istringstream in(readMaybeGzip(path));
    std::string line;
    std::getline(in, line);
    std::string banner, object;
    std::istringstream(line) >> banner >> object >> p.format >> p.field >> p.symmetry;
    for (std::string* word : {&p.format, &p.field, &p.symmetry})
        std::transform(word->begin(), word->end(), word->begin(), [](unsigned char c) { return std::tolower(c); });
    while (std::getline(in, line) && (line.empty() || line[0] == '%')) { }
    std::istringstream(line) >> p.rows >> p.cols >> p.declared;
    std::uint64_t read = 0;
    while (read < p.declared && std::getline(in, line)) {
        std::istringstream fields(line);
        std::uint64_t i = 0, j = 0;
        std::string value;
        if (!(fields >> i >> j))
            continue;
        fields >> value;
        const double v = p.field == "pattern" ? 1.0 : std::stod(value);
        p.entries[{i - 1, j - 1}] += v;
        if (p.symmetry != "general" && i != j)
            p.entries[{j - 1, i - 1}] += p.symmetry == "skew-symmetric" ? -v : v;
        ++read;
    }
    EXPECT_EQ(read, p.declared) << path;
    return p;
}

std::vector<std::string> namesColumn(const std::string& path, std::size_t field)
{
    std::istringstream in(readMaybeGzip(path));
    std::vector<std::string> names;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::istringstream parts(line);
        std::string part;
        while (std::getline(parts, part, '\t'))
            fields.push_back(part);
        names.push_back(fields.size() > field ? fields[field] : fields.empty() ? "" : fields[0]);
    }
    return names;
}

TEST_F(MatrixMarketReadTest, PetscExampleMatricesFromDebian)
{
    const test::DebianPackage package = test::fetchDebianPackage("libpetsc3.18-dev-examples", m_dir.string());
    if (package.root.empty())
        GTEST_SKIP() << package.skipReason;
    // .../usr/share/petsc/3.18/share/petsc/datafiles/matrices/*.mtx
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(package.root))
        if (entry.is_regular_file() && entry.path().extension() == ".mtx"
            && entry.path().parent_path().filename() == "matrices"
            && entry.path().parent_path().parent_path().filename() == "datafiles")
            files.push_back(entry.path().string());
    if (files.empty())
        GTEST_SKIP() << package.deb << " ships no datafiles/matrices/*.mtx";
    std::sort(files.begin(), files.end());

    std::set<std::string> symmetries;
    for (const std::string& path : files) {
        SCOPED_TRACE(path);
        const IndependentParse expected = parseIndependently(path);
        ASSERT_EQ(expected.format, "coordinate");
        symmetries.insert(expected.symmetry);
        const CsrMatrix m = readMatrixMarket(path);
        EXPECT_EQ(m.rows, expected.rows);
        EXPECT_EQ(m.cols, expected.cols);
        expectCsrHolds(m, expected.entries, path);
        EXPECT_EQ(m.storedType, expected.field == "real" ? "float64" : expected.field);
        // A symmetric matrix reads as one: every entry has its mirror, negated for skew-symmetric ones.
        const std::vector<double> dense = toDense(m);
        if (expected.symmetry != "general")
            for (std::uint64_t r = 0; r < m.rows; ++r)
                for (std::int64_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
                    const std::uint64_t c = static_cast<std::uint64_t>(m.colIdx[k]);
                    const double mirror = dense[c * m.cols + r];
                    EXPECT_EQ(mirror, expected.symmetry == "skew-symmetric" ? -m.values[k] : m.values[k]);
                }
    }
    EXPECT_TRUE(symmetries.count("skew-symmetric")) << "PETSc's matrices were expected to include a skew-symmetric one";

    // Known by hand: m_05_05_crk.mtx is 5 × 5 skew-symmetric with 4 stored entries, (5,1) = 15 among them.
    const auto crk = std::find_if(files.begin(), files.end(),
        [](const std::string& f) { return std::filesystem::path(f).filename() == "m_05_05_crk.mtx"; });
    if (crk != files.end()) {
        const CsrMatrix m = readMatrixMarket(*crk);
        EXPECT_EQ(m.rows, 5u);
        EXPECT_EQ(m.nnz(), 8u);
        const std::vector<double> dense = toDense(m);
        EXPECT_EQ(dense[4 * 5 + 0], 15.0);
        EXPECT_EQ(dense[0 * 5 + 4], -15.0);
        EXPECT_EQ(m.notes,
            (std::vector<std::string> {"skew-symmetric: expanded to the full matrix (4 mirrored entries, negated)"}));
    }
}

TEST_F(MexFolderTest, SeuratTestFoldersFromDebian)
{
    const test::DebianPackage package = test::fetchDebianPackage("r-cran-seurat", m_dir.string());
    if (package.root.empty())
        GTEST_SKIP() << package.skipReason;
    // Seurat's tests/testdata holds a MEX folder (matrix.mtx, genes.tsv, barcodes.tsv; Debian gzips the larger
    // files in /usr/share/doc) and a Cell Ranger 3 one in cr3.0 (features.tsv with three columns).
    const std::filesystem::path testdata = package.root + "/usr/share/doc/r-cran-seurat/tests/testdata";
    if (!isMexFolder(testdata.string()))
        GTEST_SKIP() << package.deb << " has no MEX folder at " << testdata;
    std::vector<std::string> folders = {testdata.string()};
    if (isMexFolder((testdata / "cr3.0").string()))
        folders.push_back((testdata / "cr3.0").string());

    for (const std::string& dir : folders) {
        SCOPED_TRACE(dir);
        auto first = [&](std::initializer_list<const char*> names) {
            for (const char* name : names)
                if (std::filesystem::is_regular_file(dir + "/" + name))
                    return dir + "/" + name;
            return std::string();
        };
        const std::string matrixFile = first({"matrix.mtx", "matrix.mtx.gz"});
        const std::string featuresFile = first({"features.tsv", "features.tsv.gz", "genes.tsv", "genes.tsv.gz"});
        const std::string barcodesFile = first({"barcodes.tsv", "barcodes.tsv.gz"});
        ASSERT_FALSE(featuresFile.empty());
        ASSERT_FALSE(barcodesFile.empty());
        const std::vector<std::string> features = namesColumn(featuresFile, 1);
        const std::vector<std::string> barcodes = namesColumn(barcodesFile, 0);
        const IndependentParse expected = parseIndependently(matrixFile);

        const CsrMatrix m = readMexFolder(dir);
        EXPECT_EQ(m.rows, features.size());
        EXPECT_EQ(m.cols, barcodes.size());
        EXPECT_EQ(m.rows, expected.rows);
        EXPECT_EQ(m.cols, expected.cols);
        EXPECT_EQ(m.rowNames, features);
        EXPECT_EQ(m.colNames, barcodes);
        EXPECT_EQ(m.storedType, "integer");
        expectCsrHolds(m, expected.entries, matrixFile);
    }

    // Known by hand: the top folder is 240 genes × 80 cells with 4,814 entries; its first entry is gene 2 (CD79B) of
    // cell 1 (ATGCCAGAACGACT-1), count 1; the first gene is MS4A1.
    const CsrMatrix m = readMexFolder(testdata.string());
    EXPECT_EQ(m.rows, 240u);
    EXPECT_EQ(m.cols, 80u);
    EXPECT_EQ(m.nnz(), 4814u);
    ASSERT_FALSE(m.rowNames.empty());
    EXPECT_EQ(m.rowNames[0], "MS4A1");
    EXPECT_EQ(m.rowNames[1], "CD79B");
    EXPECT_EQ(m.colNames[0], "ATGCCAGAACGACT-1");
    EXPECT_EQ(toDense(m)[1 * m.cols + 0], 1.0);
}

} // namespace
} // namespace ks::data
