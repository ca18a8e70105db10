// The spmv dataset beyond the file readers: the sparse generators (exact structure of the Laplacians and bands,
// statistics of the random patterns, determinism for any seed and thread count), the x vector (generated, and read
// from text and HDF5), the dataset's metadata, and loadSparseMatrix over Matrix Market, HDF5 and MEX inputs.

#include "data/dataset.h"
#include "data/dataset_error.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/sparse_matrix.h"

#include "test_support.h"

#include <chrono>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
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

double entry(const CsrMatrix& m, std::uint64_t r, std::uint64_t c)
{
    for (auto k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
        if (static_cast<std::uint64_t>(m.colIdx[k]) == c)
            return m.values[k];
    return 0.0;
}

void expectSameMatrix(const CsrMatrix& a, const CsrMatrix& b)
{
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.cols, b.cols);
    EXPECT_EQ(a.rowPtr, b.rowPtr);
    EXPECT_EQ(a.colIdx, b.colIdx);
    ASSERT_EQ(a.values.size(), b.values.size());
    for (std::size_t k = 0; k < a.values.size(); ++k)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(a.values[k]), std::bit_cast<std::uint64_t>(b.values[k])) << k;
}

std::string hashOf(const CsrMatrix& m)
{
    SparseSystem system;
    system.matrix = m;
    system.x.assign(m.cols, 1.0);
    system.vectorSource = "ones";
    return makeSparseDataset(std::move(system), "m", "generator").meta().contentHash;
}

SparseGenerator laplacian(SparsePattern pattern, std::uint64_t side)
{
    SparseGenerator g;
    g.pattern = pattern;
    g.side = side;
    return g;
}

std::string property(const Dataset& d, const std::string& key)
{
    for (const auto& [k, v] : d.meta().properties)
        if (k == key)
            return v;
    return "(absent)";
}

// --- the Laplacians and the band ----------------------------------------------------------------------------------

TEST(SparseGeneratorTest, WhatItWillAllocateIsEstimatedAndRefusedBeforeAllocating)
{
    SparseGenerator g;
    g.rows = 10'000;
    g.cols = 20'000;
    g.density = 0.01;
    // 2,000,000 expected entries of 12 bytes and 10,001 row pointers; x adds 20,000 doubles.
    EXPECT_EQ(sparseGeneratorBytes(g), 2'000'000u * 12 + 10'001u * 8);
    EXPECT_EQ(sparseGeneratorBytes(g, true) - sparseGeneratorBytes(g), 20'000u * 8);
    g.pattern = SparsePattern::Laplacian3d;
    g.side = 10;
    EXPECT_EQ(sparseGeneratorBytes(g, true), 7'000u * 12 + 1'001u * 8 + 1'000u * 8);
    g.pattern = SparsePattern::Uniform;
    setMemoryLimit(4 << 20);
    const auto error = test::catchDatasetError([&] { generateSparse(g); });
    setMemoryLimit(0);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->file(), "generator");
    EXPECT_TRUE(test::contains(error->what(),
        "the matrix needs 22.96 MiB of memory but only 4.00 MiB is available "
        "(--memory-limit)"))
        << error->what();
}

TEST(SparseGeneratorTest, Laplacian2dStructure)
{
    for (std::uint64_t n : {1, 2, 5, 17}) {
        const CsrMatrix m = generateSparse(laplacian(SparsePattern::Laplacian2d, n));
        ASSERT_NO_THROW(validateCsr(m, "generator"));
        EXPECT_EQ(m.rows, n * n);
        EXPECT_EQ(m.cols, n * n);
        EXPECT_EQ(m.nnz(), 5 * n * n - 4 * n) << "side " << n;
        for (std::uint64_t i = 0; i < n; ++i)
            for (std::uint64_t j = 0; j < n; ++j) {
                const std::uint64_t r = i * n + j;
                EXPECT_EQ(entry(m, r, r), 4.0);
                double sum = 0;
                for (auto k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
                    sum += m.values[k];
                    const auto c = static_cast<std::uint64_t>(m.colIdx[k]);
                    if (c != r) {
                        EXPECT_EQ(m.values[k], -1.0);
                        // A grid neighbour: one step in i or j.
                        const auto ci = c / n, cj = c % n;
                        EXPECT_EQ((ci > i ? ci - i : i - ci) + (cj > j ? cj - j : j - cj), 1u) << r << " → " << c;
                        EXPECT_EQ(entry(m, c, r), -1.0) << "symmetric";
                    }
                }
                const bool interior = i > 0 && j > 0 && i + 1 < n && j + 1 < n;
                if (interior)
                    EXPECT_EQ(sum, 0.0) << "row " << r;
                else
                    EXPECT_GT(sum, 0.0) << "row " << r;
            }
    }
}

TEST(SparseGeneratorTest, Laplacian3dStructure)
{
    for (std::uint64_t n : {1, 2, 3, 6}) {
        const CsrMatrix m = generateSparse(laplacian(SparsePattern::Laplacian3d, n));
        ASSERT_NO_THROW(validateCsr(m, "generator"));
        EXPECT_EQ(m.rows, n * n * n);
        EXPECT_EQ(m.nnz(), 7 * n * n * n - 6 * n * n) << "side " << n;
        std::uint64_t interiorRows = 0;
        for (std::uint64_t r = 0; r < m.rows; ++r) {
            EXPECT_EQ(entry(m, r, r), 6.0);
            double sum = 0;
            for (auto k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
                sum += m.values[k];
            const std::uint64_t i = r / (n * n), j = (r / n) % n, l = r % n;
            const bool interior = i > 0 && j > 0 && l > 0 && i + 1 < n && j + 1 < n && l + 1 < n;
            if (interior) {
                ++interiorRows;
                EXPECT_EQ(sum, 0.0) << "row " << r;
                EXPECT_EQ(m.rowPtr[r + 1] - m.rowPtr[r], 7);
                EXPECT_EQ(entry(m, r, r - n * n), -1.0);
                EXPECT_EQ(entry(m, r, r + n), -1.0);
            }
        }
        EXPECT_EQ(interiorRows, n > 2 ? (n - 2) * (n - 2) * (n - 2) : 0);
    }
}

TEST(SparseGeneratorTest, BandedStructure)
{
    SparseGenerator g;
    g.pattern = SparsePattern::Banded;
    g.rows = 10;
    g.bandwidth = 3;
    const CsrMatrix m = generateSparse(g);
    ASSERT_NO_THROW(validateCsr(m, "generator"));
    EXPECT_EQ(m.cols, 10u);
    EXPECT_EQ(m.nnz(), 10u * 7u - 3u * 4u); // rows · (2b + 1) − b(b + 1)
    for (std::uint64_t r = 0; r < m.rows; ++r)
        for (auto k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
            const auto c = static_cast<std::int64_t>(m.colIdx[k]);
            EXPECT_LE(std::abs(c - static_cast<std::int64_t>(r)), 3);
            EXPECT_GE(m.values[k], -1.0);
            EXPECT_LT(m.values[k], 1.0);
            EXPECT_NE(m.values[k], 0.0);
        }
    g.bandwidth = 0;
    EXPECT_EQ(generateSparse(g).nnz(), 10u);
    g.bandwidth = 100; // wider than the matrix: every row full
    EXPECT_EQ(generateSparse(g).nnz(), 100u);
}

// --- the random patterns ------------------------------------------------------------------------------------------

TEST(SparseGeneratorTest, UniformDensityAndColumnSpread)
{
    SparseGenerator g;
    g.rows = 4000;
    g.cols = 1000;
    g.density = 0.01;
    const CsrMatrix m = generateSparse(g);
    ASSERT_NO_THROW(validateCsr(m, "generator"));
    // nnz ~ Binomial(4e6, 0.01): mean 40,000, σ ≈ 199; ±5σ.
    EXPECT_NEAR(static_cast<double>(m.nnz()), 40000.0, 1000.0);
    // Row lengths ~ Binomial(1000, 0.01): variance 9.9.
    double sumSq = 0;
    for (std::uint64_t r = 0; r < m.rows; ++r) {
        const double d = static_cast<double>(m.rowPtr[r + 1] - m.rowPtr[r]) - 10.0;
        sumSq += d * d;
    }
    EXPECT_NEAR(sumSq / static_cast<double>(m.rows), 9.9, 1.5);
    // Columns uniform: every column used about 40 times, the mean column near the middle.
    std::vector<int> perColumn(m.cols, 0);
    double columnSum = 0, valueSum = 0;
    for (std::size_t k = 0; k < m.colIdx.size(); ++k) {
        ++perColumn[static_cast<std::size_t>(m.colIdx[k])];
        columnSum += m.colIdx[k];
        valueSum += m.values[k];
        ASSERT_GE(m.values[k], -1.0);
        ASSERT_LT(m.values[k], 1.0);
        ASSERT_NE(m.values[k], 0.0);
    }
    EXPECT_GT(*std::min_element(perColumn.begin(), perColumn.end()), 10);
    EXPECT_LT(*std::max_element(perColumn.begin(), perColumn.end()), 90);
    EXPECT_NEAR(columnSum / static_cast<double>(m.nnz()), 499.5, 5.0);
    EXPECT_NEAR(valueSum / static_cast<double>(m.nnz()), 0.0, 0.02);
}

TEST(SparseGeneratorTest, UniformDenseRowsAndEdgeDensities)
{
    // Density 0.5 over 3000 columns: the normal approximation for the lengths, selection sampling for the columns.
    SparseGenerator g;
    g.rows = 300;
    g.cols = 3000;
    g.density = 0.5;
    const CsrMatrix m = generateSparse(g);
    ASSERT_NO_THROW(validateCsr(m, "generator"));
    EXPECT_NEAR(static_cast<double>(m.nnz()) / (300.0 * 3000.0), 0.5, 0.005);

    g.density = 0.9; // p > 1/2 by symmetry
    EXPECT_NEAR(static_cast<double>(generateSparse(g).nnz()) / (300.0 * 3000.0), 0.9, 0.005);

    g.cols = 40;
    g.density = 0.3; // inversion, rows denser than a quarter of the columns
    const CsrMatrix small = generateSparse(g);
    ASSERT_NO_THROW(validateCsr(small, "generator"));
    EXPECT_NEAR(static_cast<double>(small.nnz()) / (300.0 * 40.0), 0.3, 0.03);

    g.density = 0.0;
    EXPECT_EQ(generateSparse(g).nnz(), 0u);
    g.density = 1.0;
    const CsrMatrix full = generateSparse(g);
    EXPECT_EQ(full.nnz(), 300u * 40u);
    EXPECT_NO_THROW(validateCsr(full, "generator"));
}

TEST(SparseGeneratorTest, PowerLawHasALongRowManyShortOnesAndTheMean)
{
    SparseGenerator g;
    g.pattern = SparsePattern::PowerLaw;
    g.rows = 1'000'000;
    g.cols = 1'000'000;
    g.density = 16.0 / 1e6; // mean row length 16
    g.exponent = 2.0;
    const CsrMatrix m = generateSparse(g);
    ASSERT_NO_THROW(validateCsr(m, "generator"));
    const double mean = static_cast<double>(m.nnz()) / static_cast<double>(m.rows);
    EXPECT_NEAR(mean, 16.0, 0.3);
    std::int64_t longest = 0;
    std::uint64_t short2 = 0;
    std::uint64_t longestRow = 0;
    for (std::uint64_t r = 0; r < m.rows; ++r) {
        const auto length = m.rowPtr[r + 1] - m.rowPtr[r];
        if (length > longest) {
            longest = length;
            longestRow = r;
        }
        short2 += length <= 2;
    }
    EXPECT_GE(static_cast<double>(longest), 1000.0 * 16.0);
    EXPECT_GT(short2, m.rows / 4) << "many short rows";
    // The long rows are scattered by the permutation, not at the top.
    EXPECT_NE(longestRow, 0u);

    // A steeper exponent (thinner tail) keeps the mean with a shorter longest row.
    g.rows = g.cols = 100'000;
    g.density = 8.0 / 1e5;
    g.exponent = 3.0;
    const CsrMatrix thin = generateSparse(g);
    EXPECT_NEAR(static_cast<double>(thin.nnz()) / 1e5, 8.0, 0.2);
    std::int64_t thinLongest = 0;
    for (std::uint64_t r = 0; r < thin.rows; ++r)
        thinLongest = std::max(thinLongest, thin.rowPtr[r + 1] - thin.rowPtr[r]);
    EXPECT_GT(thinLongest, 100);
    EXPECT_LT(thinLongest, 100'000);
}

TEST(SparseGeneratorTest, PowerLawClampsAtTheColumnCount)
{
    SparseGenerator g;
    g.pattern = SparsePattern::PowerLaw;
    g.rows = 5000;
    g.cols = 200;
    g.density = 0.05; // mean 10
    g.exponent = 1.5;
    const CsrMatrix m = generateSparse(g);
    ASSERT_NO_THROW(validateCsr(m, "generator"));
    EXPECT_NEAR(static_cast<double>(m.nnz()) / 5000.0, 10.0, 0.5);
    std::uint64_t full = 0;
    for (std::uint64_t r = 0; r < m.rows; ++r)
        full += m.rowPtr[r + 1] - m.rowPtr[r] == 200;
    EXPECT_GT(full, 0u);
    g.density = 1.0;
    EXPECT_EQ(generateSparse(g).nnz(), 5000u * 200u);
}

TEST(SparseGeneratorTest, SameSeedSameMatrixOtherSeedOtherMatrix)
{
    for (auto pattern : {SparsePattern::Uniform, SparsePattern::PowerLaw, SparsePattern::Banded}) {
        SparseGenerator g;
        g.pattern = pattern;
        g.rows = 3000;
        g.cols = 2000;
        g.density = 0.005;
        const CsrMatrix a = generateSparse(g);
        const CsrMatrix b = generateSparse(g);
        expectSameMatrix(a, b);
        EXPECT_EQ(hashOf(a), hashOf(b));
        g.seed = 2;
        EXPECT_NE(hashOf(generateSparse(g)), hashOf(a)) << static_cast<int>(pattern);
    }
}

TEST(SparseGeneratorTest, SameMatrixForAnyThreadCount)
{
#if __has_include(<omp.h>)
    const int threads = omp_get_max_threads();
    for (auto pattern :
        {SparsePattern::Uniform, SparsePattern::PowerLaw, SparsePattern::Banded, SparsePattern::Laplacian3d}) {
        SparseGenerator g;
        g.pattern = pattern;
        g.rows = 20000;
        g.cols = 5000;
        g.density = 0.002;
        g.side = 12;
        omp_set_num_threads(1);
        const CsrMatrix one = generateSparse(g);
        const std::vector<double> xOne = generateVector(10000, 3);
        omp_set_num_threads(3);
        const CsrMatrix three = generateSparse(g);
        const std::vector<double> xThree = generateVector(10000, 3);
        omp_set_num_threads(threads);
        expectSameMatrix(three, one);
        EXPECT_EQ(xOne, xThree);
    }
#else
    GTEST_SKIP() << "no <omp.h> to set the thread count with";
#endif
}

TEST(SparseGeneratorTest, BadParametersNameTheParameter)
{
    SparseGenerator g;
    g.density = 1.5;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "density", "must be in [0, 1]"));
    g.density = 0.01;
    g.rows = 0;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "rows", "must be between 1"));
    g.rows = 10;
    g.cols = 3'000'000'000ULL;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "cols", "32-bit indices"));
    g.cols = 10;
    g.pattern = SparsePattern::PowerLaw;
    g.exponent = 1.0;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "exponent", "at least 1.05"));
    g.exponent = 2.0;
    g.density = 0.0;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "density", "must be in (0, 1]"));
    g.pattern = SparsePattern::Laplacian3d;
    g.side = 0;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "side", "between 1 and 1290"));
    g.pattern = SparsePattern::Laplacian2d;
    g.side = 50000;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { generateSparse(g); }), "generator", "side", "between 1 and 46340"));
}

// --- the x vector -----------------------------------------------------------------------------------------------

TEST(SparseVectorTest, GeneratedVectorIsUniformAndSeeded)
{
    const std::vector<double> x = generateVector(100000, 1);
    ASSERT_EQ(x.size(), 100000u);
    double sum = 0;
    for (double v : x) {
        ASSERT_GE(v, -1.0);
        ASSERT_LT(v, 1.0);
        sum += v;
    }
    EXPECT_NEAR(sum / 1e5, 0.0, 0.01);
    EXPECT_EQ(generateVector(100000, 1), x);
    EXPECT_NE(generateVector(100000, 2), x);
    EXPECT_TRUE(generateVector(0, 1).empty());
    // A prefix of a longer vector: element i depends on (seed, i) only.
    const std::vector<double> longer = generateVector(100001, 1);
    EXPECT_TRUE(std::equal(x.begin(), x.end(), longer.begin()));
}

class SparseVectorFileTest : public test::TempDirTest { };

TEST_F(SparseVectorFileTest, TextOneValuePerLine)
{
    const std::string p = writeFile("x.txt", "\xEF\xBB\xBF# x for the test\n1.5\n\n  -2e-3  \r\n# more\n7\n+4");
    EXPECT_EQ(readVector(p), (std::vector<double> {1.5, -2e-3, 7, 4}));
}

TEST_F(SparseVectorFileTest, GzipText)
{
    const std::string p = tempPath("x.txt.gz");
    gzFile file = gzopen(p.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    const std::string text = "1\n2\n3\n";
    gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
    gzclose(file);
    EXPECT_EQ(readVector(p), (std::vector<double> {1, 2, 3}));
}

TEST_F(SparseVectorFileTest, MalformedText)
{
    const std::string p = writeFile("bad.txt", "1\n2\nabc\n4\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(p); }), p, "line 3", "'abc' is not a number"));
    const std::string two = writeFile("two.txt", "1\n2 3\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(two); }), two, "line 2", "is not a number"));
    const std::string empty = writeFile("empty.txt", "");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(empty); }), empty, "", "empty file"));
    const std::string comments = writeFile("comments.txt", "# nothing\n\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(comments); }), comments, "", "no values"));
    const std::string nan = writeFile("nan.txt", "1\nnan\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(nan); }), nan, "line 2", "NaN"));
    ReadOptions options;
    options.allowNonFinite = true;
    EXPECT_TRUE(std::isnan(readVector(nan, options)[1]));
    const std::string missing = tempPath("missing.txt");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(missing); }), missing, "", "no such file"));
}

TEST_F(SparseVectorFileTest, Hdf5OnlyVectorOrH5Path)
{
    const std::string p = tempPath("x.h5");
    {
        h5::File f = h5::File::create(p);
        const std::vector<double> x = {1, 2, 3};
        f.writeDoubles("/vectors/x", x, {3});
        f.writeStrings("/vectors/names", {"a", "b", "c"});
    }
    EXPECT_EQ(readVector(p), (std::vector<double> {1, 2, 3}));

    const std::string q = tempPath("two.h5");
    {
        h5::File f = h5::File::create(q);
        const std::vector<double> x = {1, 2, 3};
        const std::vector<std::int64_t> y = {4, 5};
        f.writeDoubles("/x", x, {3});
        f.writeInt64s("/y", y, {2});
    }
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(q); }), q, "", "several 1-D numeric datasets"));
    ReadOptions options;
    options.h5Path = "y";
    EXPECT_EQ(readVector(q, options), (std::vector<double> {4, 5}));
}

TEST_F(SparseVectorFileTest, Hdf5VectorBesideASparseGroup)
{
    // The sparse group's 1-D datasets (data, indices, indptr, shape) are not candidates.
    CsrMatrix m;
    m.rows = 2;
    m.cols = 2;
    m.rowPtr = {0, 1, 2};
    m.colIdx = {0, 1};
    m.values = {1, 2};
    const std::string p = tempPath("system.h5");
    writeSparseHdf5(p, m);
    const std::string q = tempPath("system2.h5");
    {
        h5::File f = h5::File::create(q);
        const std::vector<double> data = {1, 2};
        const std::vector<std::int32_t> indices = {0, 1};
        const std::vector<std::int64_t> indptr = {0, 1, 2};
        f.writeDoubles("/A/data", data, {2});
        f.writeInt32s("/A/indices", indices, {2});
        f.writeInt64s("/A/indptr", indptr, {3});
        const std::vector<std::int64_t> shape = {2, 2};
        f.writeInt64s("/A/shape", shape, {2});
        const std::vector<double> x = {0.5, -0.5};
        f.writeDoubles("/x", x, {2});
    }
    EXPECT_EQ(readVector(q), (std::vector<double> {0.5, -0.5}));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(p); }), p, "", "no 1-D numeric dataset"));
}

TEST_F(SparseVectorFileTest, Hdf5MalformedVector)
{
    const std::string p = tempPath("matrix.h5");
    {
        h5::File f = h5::File::create(p);
        const std::vector<double> v = {1, 2, 3, 4, 5, 6};
        f.writeDoubles("/m", v, {3, 2});
        f.writeStrings("/names", {"a", "b"});
    }
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(p); }), p, "",
        "no 1-D numeric dataset (a vector) in the file (it has /m (float64 3×2), /names (string 2))"));
    ReadOptions options;
    options.h5Path = "/m";
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readVector(p, options); }), p, "dataset /m", "has rank 2; expected a 1-D vector"));
    options.h5Path = "/names";
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(p, options); }), p, "dataset /names",
        "holds string values; expected numbers"));
    options.h5Path = "/none";
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readVector(p, options); }), p, "", "no dataset or group named /none"));
}

// --- the dataset --------------------------------------------------------------------------------------------------

CsrMatrix smallMatrix()
{
    CsrMatrix m;
    m.rows = 3;
    m.cols = 4;
    m.rowPtr = {0, 2, 2, 5};
    m.colIdx = {0, 3, 0, 1, 2};
    m.values = {1, -2, 3, 4.5, 5};
    m.storedType = "integer";
    m.notes = {"summed 1 duplicate entry"};
    return m;
}

TEST(SparseDatasetTest, MetadataAndHash)
{
    SparseSystem system;
    system.matrix = smallMatrix();
    system.x = {1, 2, 3, 4};
    system.vectorSource = "x.txt";
    const Dataset d = makeSparseDataset(system, "small.mtx", "/data/small.mtx");
    EXPECT_EQ(d.meta().kind, "csr");
    EXPECT_EQ(d.meta().name, "small.mtx");
    EXPECT_EQ(d.meta().source, "/data/small.mtx");
    EXPECT_EQ(d.meta().size, 3u);
    EXPECT_EQ(property(d, "shape"), "3 × 4");
    EXPECT_EQ(property(d, "nnz"), "5");
    EXPECT_EQ(property(d, "density"), "0.4167");
    EXPECT_EQ(property(d, "row length (min / mean / max)"), "0 / 1.667 / 3");
    EXPECT_EQ(property(d, "value range"), "[-2, 5]");
    EXPECT_EQ(property(d, "stored as"), "integer");
    EXPECT_EQ(property(d, "x"), "x.txt");
    EXPECT_EQ(d.meta().notes, system.matrix.notes);
    EXPECT_TRUE(contains(d.meta().contentHash, "ks64:"));
    ASSERT_TRUE(d.holds<SparseSystem>());
    EXPECT_EQ(d.as<SparseSystem>().x, system.x);

    // The hash covers x and every array of the matrix, not the names or the source.
    const std::string hash = d.meta().contentHash;
    SparseSystem other = system;
    other.vectorSource = "elsewhere";
    other.matrix.rowNames = {"a", "b", "c"};
    EXPECT_EQ(makeSparseDataset(other, "n", "s").meta().contentHash, hash);
    other.x[3] = 4.5;
    EXPECT_NE(makeSparseDataset(other, "n", "s").meta().contentHash, hash);
    other = system;
    other.matrix.values[4] = 5.5;
    EXPECT_NE(makeSparseDataset(other, "n", "s").meta().contentHash, hash);
    other = system;
    other.matrix.colIdx[4] = 3;
    EXPECT_NE(makeSparseDataset(other, "n", "s").meta().contentHash, hash);
}

TEST(SparseDatasetTest, VectorLengthMismatchNamesTheVector)
{
    SparseSystem system;
    system.matrix = smallMatrix();
    system.x = {1, 2, 3};
    system.vectorSource = "/data/x.txt";
    EXPECT_TRUE(errorSays(catchDatasetError([&] { makeSparseDataset(system, "small.mtx", "/data/small.mtx"); }),
        "/data/x.txt", "", "the vector has 3 values but the matrix small.mtx has 4 columns"));
}

TEST(SparseDatasetTest, InvalidMatrixIsRejected)
{
    SparseSystem system;
    system.matrix = smallMatrix();
    system.matrix.colIdx = {3, 0, 0, 1, 2};
    system.x = {1, 2, 3, 4};
    EXPECT_TRUE(catchDatasetError([&] { makeSparseDataset(system, "m", "/data/m.mtx"); }).has_value());
}

TEST(SparseDatasetTest, GeneratedMatrixDataset)
{
    SparseSystem system;
    system.matrix = generateSparse(laplacian(SparsePattern::Laplacian2d, 10));
    system.x = generateVector(system.matrix.cols, 1);
    system.vectorSource = "generated (seed 1)";
    const Dataset d = makeSparseDataset(std::move(system), "laplacian", "generator");
    EXPECT_EQ(property(d, "row length (min / mean / max)"), "3 / 4.6 / 5");
    EXPECT_EQ(property(d, "value range"), "[-1, 4]");
    EXPECT_EQ(property(d, "stored as"), "float64");
}

// --- loading ------------------------------------------------------------------------------------------------------

class SparseLoadTest : public test::TempDirTest { };

TEST_F(SparseLoadTest, MatrixMarketWithGeneratedVector)
{
    const CsrMatrix m = smallMatrix();
    const std::string p = tempPath("small.mtx");
    writeMatrixMarket(p, m);
    const Dataset d = loadSparseMatrix(p);
    const auto& system = d.as<SparseSystem>();
    expectSameMatrix(system.matrix, m);
    EXPECT_EQ(system.x, generateVector(4, 1));
    EXPECT_EQ(system.vectorSource, "generated (seed 1)");
    EXPECT_EQ(property(d, "x"), "generated (seed 1)");
    EXPECT_EQ(d.meta().name, "small.mtx");
    EXPECT_EQ(d.meta().source, p);
}

TEST_F(SparseLoadTest, Hdf5WithVectorFile)
{
    const CsrMatrix m = smallMatrix();
    const std::string p = tempPath("small.h5");
    writeSparseHdf5(p, m);
    const std::string x = writeFile("x.txt", "1\n2\n3\n4\n");
    ReadOptions options;
    options.vectorPath = x;
    const Dataset d = loadSparseMatrix(p, options);
    const auto& system = d.as<SparseSystem>();
    expectSameMatrix(system.matrix, m);
    EXPECT_EQ(system.x, (std::vector<double> {1, 2, 3, 4}));
    EXPECT_EQ(system.vectorSource, x);
    EXPECT_EQ(property(d, "stored as"), "float64");

    // The same matrix and x hash the same whichever file format they came from.
    const std::string mtx = tempPath("small.mtx");
    writeMatrixMarket(mtx, m);
    EXPECT_EQ(loadSparseMatrix(mtx, options).meta().contentHash, d.meta().contentHash);
    EXPECT_NE(loadSparseMatrix(mtx).meta().contentHash, d.meta().contentHash);

    // An HDF5 vector file: h5Path names the matrix's group, not the vector.
    const std::string xh5 = tempPath("x.h5");
    {
        h5::File f = h5::File::create(xh5);
        const std::vector<double> values = {4, 3, 2, 1};
        f.writeDoubles("/x", values, {4});
    }
    options.vectorPath = xh5;
    options.h5Path = "/matrix";
    EXPECT_EQ(loadSparseMatrix(p, options).as<SparseSystem>().x, (std::vector<double> {4, 3, 2, 1}));
}

TEST_F(SparseLoadTest, VectorOfTheWrongLength)
{
    const std::string p = tempPath("small.mtx");
    writeMatrixMarket(p, smallMatrix());
    const std::string x = writeFile("x.txt", "1\n2\n3\n");
    ReadOptions options;
    options.vectorPath = x;
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { loadSparseMatrix(p, options); }), x, "", "the vector has 3 values but the matrix"));
}

TEST_F(SparseLoadTest, AVectorOfTheWrongLengthIsRefusedBeforeItsValuesAreRead)
{
    // Longer: refused at the first value too many, whatever follows (here text that is no number).
    const std::string longer = writeFile("longer.txt", "1\n2\n3\n4\n5\nnot read\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(longer, {}, 4); }), longer, "line 5",
        "the vector has more than 4 values but the matrix has 4 columns"));
    // A plain file too small for the values: refused unread (its content would be an error too).
    const std::string small = writeFile("small.txt", "1\n2\nxyz\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(small, {}, 100); }), small, "",
        "a file of 8 B holds at most 5 values but the matrix has 100 columns"));
    EXPECT_EQ(readVector(writeFile("exact.txt", "# x\n1\n\n2\n3\n4"), {}, 4), (std::vector<double> {1, 2, 3, 4}));
    // HDF5: the extent is compared before any value is read (the values here are strings, an error if read).
    const std::string h5path = tempPath("x.h5");
    {
        h5::File f = h5::File::create(h5path);
        const std::vector<double> values(1000, 1.0);
        f.writeDoubles("/x", values, {1000});
    }
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readVector(h5path, {}, 999); }), h5path, "dataset /x",
        "the vector has 1000 values but the matrix has 999 columns"));
    EXPECT_EQ(readVector(h5path, {}, 1000).size(), 1000u);
}

TEST_F(SparseLoadTest, ALargeVectorOfTheWrongLengthIsRefusedAtOnce)
{
    // 64 MiB of values against a 4-column matrix: refused at line 5 without reading (or holding) the rest.
    const std::string p = tempPath("small.mtx");
    writeMatrixMarket(p, smallMatrix());
    const std::string x = tempPath("big.txt");
    {
        std::ofstream out(x, std::ios::binary);
        std::string lines;
        for (int i = 0; i < (1 << 19); ++i)
            lines += "1\n";
        for (int i = 0; i < 64; ++i)
            out << lines;
    }
    ReadOptions options;
    options.vectorPath = x;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSparseMatrix(p, options); }), x, "line 5",
        "more than 4 values but the matrix has 4 columns"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST_F(SparseLoadTest, MexFolderIsNamedAfterTheFolder)
{
    const std::filesystem::path dir = m_dir / "filtered_feature_bc_matrix";
    std::filesystem::create_directories(dir);
    writeMatrixMarket((dir / "matrix.mtx").string(), smallMatrix());
    writeFile("filtered_feature_bc_matrix/features.tsv",
        "E1\tG1\tGene Expression\nE2\tG2\tGene Expression\n"
        "E3\tG3\tGene Expression\n");
    writeFile("filtered_feature_bc_matrix/barcodes.tsv", "B1\nB2\nB3\nB4\n");
    const Dataset d = loadSparseMatrix(dir.string() + "/");
    EXPECT_EQ(d.meta().name, "filtered_feature_bc_matrix");
    const auto& system = d.as<SparseSystem>();
    EXPECT_EQ(system.matrix.rowNames, (std::vector<std::string> {"G1", "G2", "G3"}));
    EXPECT_EQ(system.x.size(), 4u);

    // Its matrix file, as a file dialog picks it, opens the whole folder: names included.
    const Dataset fromFile = loadSparseMatrix((dir / "matrix.mtx").string());
    EXPECT_EQ(fromFile.as<SparseSystem>().matrix.rowNames, system.matrix.rowNames);
    EXPECT_EQ(fromFile.as<SparseSystem>().matrix.colNames, (std::vector<std::string> {"B1", "B2", "B3", "B4"}));
}

} // namespace
} // namespace ks::data
