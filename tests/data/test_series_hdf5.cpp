// The Series2D HDF5 reader and the h5::File wrapper under it. Every file is written at test time: through our
// writer where it can make the case, through the HDF5 C API where it cannot (user blocks, fixed-length strings,
// a filter this library does not have).

#include "data/dataset_error.h"
#include "data/hdf5_file.h"
#include "data/series2d.h"

#include "hdf5_test_support.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::errorSays;
using test::RawId;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Writes a dataset with the C API (for what our writer deliberately cannot produce).
void writeRaw(hid_t file, const char* name, hid_t fileType, hid_t memType, const std::vector<hsize_t>& dims,
    const void* data, hid_t dcpl = H5P_DEFAULT)
{
    RawId space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    ASSERT_GE(space.get(), 0);
    RawId dataset(H5Dcreate2(file, name, fileType, space.get(), H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(dataset.get(), 0) << name;
    ASSERT_GE(H5Dwrite(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
}

void expectBitIdentical(const std::vector<double>& actual, const std::vector<double>& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(actual[i]), std::bit_cast<std::uint64_t>(expected[i]))
            << "element " << i << ": " << actual[i] << " vs " << expected[i];
}

Series2D ramp(std::size_t n, double slope = 2.0)
{
    Series2D s;
    for (std::size_t i = 0; i < n; ++i) {
        s.x.push_back(0.5 * static_cast<double>(i));
        s.y.push_back(slope * 0.5 * static_cast<double>(i) + 1.0);
    }
    return s;
}

class SeriesHdf5Test : public test::TempDirTest {
protected:
    /// A file whose x and y are written by `write` through our wrapper.
    template <class F> std::string makeFile(const std::string& name, F&& write)
    {
        const std::string p = tempPath(name);
        {
            h5::File file = h5::File::create(p);
            write(file);
        }
        return p;
    }

    std::optional<DatasetError> readError(const std::string& p, const ReadOptions& options = {})
    {
        return catchDatasetError([&] { readSeriesHdf5(p, options); });
    }
};

// --- round trips ----------------------------------------------------------------------------------------------

TEST_F(SeriesHdf5Test, Float64RoundTripIsBitIdentical)
{
    Series2D original;
    original.x = {0.1, 1e-300, -1.7976931348623157e308, 123456789.123456789, -0.0, 4.9406564584124654e-324};
    original.y = {2.0 / 3.0, -1e-300, 1.7976931348623157e308, -123456789.123456789, 0.0, 1e22};
    const std::string p = tempPath("f64.h5");
    writeSeriesHdf5(p, original);
    const Series2D read = readSeriesHdf5(p);
    expectBitIdentical(read.x, original.x);
    expectBitIdentical(read.y, original.y);
    EXPECT_EQ(read.storedType, "float64");
    EXPECT_EQ(h5::File::open(p).info("/x").type, "float64");
}

TEST_F(SeriesHdf5Test, Float32IsStoredAsFloat32AndReadBackWidened)
{
    Series2D original;
    original.x = {0.1, 1e-30, -3.4028234663852886e38, 123456.789, -0.0};
    original.y = {1.0 / 3.0, 2.5, 7.0, -1e-3, 65504.0};
    const std::string p = tempPath("f32.h5");
    writeSeriesHdf5(p, original, true);
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.info("/x").type, "float32");
    EXPECT_EQ(file.info("/y").type, "float32");

    const Series2D read = readSeriesHdf5(p);
    EXPECT_EQ(read.storedType, "float32");
    ASSERT_EQ(read.x.size(), original.x.size());
    for (std::size_t i = 0; i < original.x.size(); ++i) {
        EXPECT_EQ(read.x[i], static_cast<double>(static_cast<float>(original.x[i]))) << i;
        EXPECT_EQ(read.y[i], static_cast<double>(static_cast<float>(original.y[i]))) << i;
    }
    EXPECT_TRUE(std::signbit(read.x[4]));
}

TEST_F(SeriesHdf5Test, MixedFloatTypesAreReportedAsBoth)
{
    const std::string p = makeFile("mixed.h5", [](h5::File& f) {
        const std::vector<double> x = {1, 2, 3};
        const std::vector<float> y = {4, 5, 6};
        f.writeDoubles("/x", x, {3});
        f.writeFloats("/y", y, {3});
    });
    const Series2D read = readSeriesHdf5(p);
    EXPECT_EQ(read.storedType, "float64/float32");
    EXPECT_EQ(read.y, (std::vector<double> {4, 5, 6}));
}

TEST_F(SeriesHdf5Test, LargeSeriesAreChunkedAndGzipCompressed)
{
    for (const bool asFloat32 : {false, true}) {
        const Series2D original = ramp(5000);
        const std::string p = tempPath(asFloat32 ? "large32.h5" : "large64.h5");
        writeSeriesHdf5(p, original, asFloat32);
        const h5::File file = h5::File::open(p);
        for (const char* name : {"/x", "/y"}) {
            const auto info = file.info(name);
            EXPECT_TRUE(info.chunked) << name;
            EXPECT_EQ(info.filters, (std::vector<std::string> {"gzip (1)"})) << name;
            EXPECT_EQ(info.dims, (std::vector<std::uint64_t> {5000}));
        }
        // The ramp compresses well: the file is far smaller than the raw values.
        EXPECT_LT(std::filesystem::file_size(p), 5000u * 2 * (asFloat32 ? 4 : 8) / 2);
        const Series2D read = readSeriesHdf5(p);
        EXPECT_EQ(read.x, original.x); // exact in float32 too: multiples of 0.5 below 2^24
        EXPECT_EQ(read.y, original.y);
    }
}

TEST_F(SeriesHdf5Test, CompressionStartsAt1024Points)
{
    const std::string small = tempPath("small.h5");
    const std::string large = tempPath("large.h5");
    writeSeriesHdf5(small, ramp(1023));
    writeSeriesHdf5(large, ramp(1024));
    const auto smallInfo = h5::File::open(small).info("/x");
    EXPECT_FALSE(smallInfo.chunked);
    EXPECT_TRUE(smallInfo.filters.empty());
    const auto largeInfo = h5::File::open(large).info("/x");
    EXPECT_TRUE(largeInfo.chunked);
    EXPECT_EQ(largeInfo.filters, (std::vector<std::string> {"gzip (1)"}));
    EXPECT_EQ(readSeriesHdf5(large).x, ramp(1024).x);
}

// --- finding x and y ------------------------------------------------------------------------------------------

TEST_F(SeriesHdf5Test, FindsXAndYInASubgroup)
{
    const Series2D s = ramp(10);
    const std::string p = makeFile("sub.h5", [&](h5::File& f) {
        f.writeDoubles("/runs/first/x", s.x, {10});
        f.writeDoubles("/runs/first/y", s.y, {10});
        f.writeDoubles("/runs/first/z", s.y, {10});
    });
    const Series2D read = readSeriesHdf5(p);
    EXPECT_EQ(read.x, s.x);
    EXPECT_EQ(read.y, s.y);
}

TEST_F(SeriesHdf5Test, SeveralCandidateGroupsAskForH5Path)
{
    const std::string p = makeFile("several.h5", [](h5::File& f) {
        const Series2D a = ramp(4, 1.0), b = ramp(4, 3.0);
        f.writeDoubles("/a/x", a.x, {4});
        f.writeDoubles("/a/y", a.y, {4});
        f.writeDoubles("/b/x", b.x, {4});
        f.writeDoubles("/b/y", b.y, {4});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "", "several groups hold x and y (/a, /b); choose one with --h5-path"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(p); }), p, "", "--h5-path"));

    const std::vector<double> expectedB = ramp(4, 3.0).y;
    for (const char* choice : {"/b", "b", "/b/x", "b/y"}) {
        ReadOptions options;
        options.h5Path = choice;
        EXPECT_EQ(readSeriesHdf5(p, options).y, expectedB) << "h5Path " << choice;
        EXPECT_EQ(loadSeries2D(p, options).as<Series2D>().y, expectedB) << "h5Path " << choice;
    }
    ReadOptions a;
    a.h5Path = "a";
    EXPECT_EQ(readSeriesHdf5(p, a).y, ramp(4, 1.0).y);
}

TEST_F(SeriesHdf5Test, RootAndSubgroupAreBothCandidates)
{
    const Series2D s = ramp(3);
    const std::string p = makeFile("root_and_sub.h5", [&](h5::File& f) {
        f.writeDoubles("/x", s.x, {3});
        f.writeDoubles("/y", s.y, {3});
        f.writeDoubles("/g/x", s.x, {3});
        f.writeDoubles("/g/y", s.y, {3});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "", "several groups hold x and y (/, /g)"));
    for (const char* choice : {"/", "/x", "x", "/g", "g/x"}) {
        ReadOptions options;
        options.h5Path = choice;
        EXPECT_EQ(readSeriesHdf5(p, options).x, s.x) << "h5Path " << choice;
    }
}

TEST_F(SeriesHdf5Test, H5PathThatDoesNotExistThrows)
{
    const std::string p = tempPath("one.h5");
    writeSeriesHdf5(p, ramp(3));
    ReadOptions options;
    options.h5Path = "nope";
    EXPECT_TRUE(errorSays(readError(p, options), p, "group /nope", "no such group in the file"));
}

// --- malformed files ------------------------------------------------------------------------------------------

TEST_F(SeriesHdf5Test, XOfRankTwoThrows)
{
    const std::string p = makeFile("rank2.h5", [](h5::File& f) {
        const std::vector<double> v = {1, 2, 3, 4, 5, 6};
        f.writeDoubles("/x", v, {2, 3});
        f.writeDoubles("/y", v, {6});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "dataset /x", "has rank 2; expected a 1-D dataset"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(p); }), p, "dataset /x", "has rank 2"));
}

TEST_F(SeriesHdf5Test, YOfRankTwoThrowsNamingY)
{
    const std::string p = makeFile("rank2y.h5", [](h5::File& f) {
        const std::vector<double> v = {1, 2, 3, 4};
        f.writeDoubles("/x", v, {4});
        f.writeDoubles("/y", v, {2, 2});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "dataset /y", "has rank 2; expected a 1-D dataset"));
}

TEST_F(SeriesHdf5Test, XOfIntegerTypeThrows)
{
    const std::string p = makeFile("int.h5", [](h5::File& f) {
        const std::vector<std::uint64_t> x = {1, 2, 3};
        const std::vector<double> y = {1, 2, 3};
        f.writeUInt64s("/x", x, {3});
        f.writeDoubles("/y", y, {3});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "dataset /x", "holds uint64 values; expected float32 or float64"));
}

TEST_F(SeriesHdf5Test, YOfInt32TypeThrows)
{
    const std::string p = tempPath("int32.h5");
    {
        RawId file(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        const double x[3] = {1, 2, 3};
        const std::int32_t y[3] = {1, 2, 3};
        writeRaw(file.get(), "/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3}, x);
        writeRaw(file.get(), "/y", H5T_STD_I32LE, H5T_NATIVE_INT32, {3}, y);
    }
    EXPECT_TRUE(errorSays(readError(p), p, "dataset /y", "holds int32 values; expected float32 or float64"));
}

TEST_F(SeriesHdf5Test, XOfStringTypeThrows)
{
    const std::string p = makeFile("string.h5", [](h5::File& f) {
        f.writeStrings("/x", {"1", "2", "3"});
        const std::vector<double> y = {1, 2, 3};
        f.writeDoubles("/y", y, {3});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "dataset /x", "holds string values; expected float32 or float64"));
}

TEST_F(SeriesHdf5Test, UnequalLengthsThrow)
{
    const std::string p = makeFile("unequal.h5", [](h5::File& f) {
        const std::vector<double> x = {1, 2, 3}, y = {1, 2, 3, 4};
        f.writeDoubles("/x", x, {3});
        f.writeDoubles("/y", y, {4});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "group /", "x has 3 values but y has 4; they must be of equal length"));
}

TEST_F(SeriesHdf5Test, MissingYThrows)
{
    const std::string p = makeFile("no_y.h5", [](h5::File& f) {
        const std::vector<double> x = {1, 2, 3};
        f.writeDoubles("/x", x, {3});
        f.writeDoubles("/g/z", x, {3});
    });
    EXPECT_TRUE(errorSays(readError(p), p, "", "no group holds datasets named x and y (the file has: /g/z, /x)"));
    ReadOptions options;
    options.h5Path = "/";
    EXPECT_TRUE(errorSays(readError(p, options), p, "group /", "has no dataset named y"));
    options.h5Path = "/g";
    EXPECT_TRUE(errorSays(readError(p, options), p, "group /g", "has no dataset named x"));
}

TEST_F(SeriesHdf5Test, FileWithoutDatasetsThrows)
{
    const std::string p = makeFile("no_datasets.h5", [](h5::File& f) { f.createGroup("/empty"); });
    EXPECT_TRUE(errorSays(readError(p), p, "", "(the file has: no datasets)"));
}

TEST_F(SeriesHdf5Test, EmptyDatasetsThrow)
{
    const std::string p = makeFile("empty.h5", [](h5::File& f) {
        const std::vector<double> none;
        f.writeDoubles("/x", none, {0});
        f.writeDoubles("/y", none, {0});
    });
    EXPECT_EQ(h5::File::open(p).info("/x").dims, (std::vector<std::uint64_t> {0}));
    EXPECT_TRUE(errorSays(readError(p), p, "dataset /x", "is empty: no points"));
}

TEST_F(SeriesHdf5Test, NonFiniteValuesAreRejectedNamingTheElement)
{
    Series2D withNaN = ramp(6);
    withNaN.x[3] = kNaN;
    const std::string nanPath = tempPath("nan.h5");
    writeSeriesHdf5(nanPath, withNaN);
    EXPECT_TRUE(errorSays(readError(nanPath), nanPath, "dataset /x, element 3", "NaN (non-finite values are rejected"));

    Series2D withInf = ramp(6);
    withInf.y[2] = -kInf;
    const std::string infPath = tempPath("inf.h5");
    writeSeriesHdf5(infPath, withInf, true);
    EXPECT_TRUE(errorSays(readError(infPath), infPath, "dataset /y, element 2", "an infinite value"));

    // Compressed data is checked the same way.
    Series2D large = ramp(3000);
    large.y[2999] = kNaN;
    const std::string largePath = tempPath("large_nan.h5");
    writeSeriesHdf5(largePath, large);
    EXPECT_TRUE(errorSays(readError(largePath), largePath, "dataset /y, element 2999", "NaN"));

    ReadOptions options;
    options.allowNonFinite = true;
    EXPECT_TRUE(std::isnan(readSeriesHdf5(nanPath, options).x[3]));
    EXPECT_EQ(readSeriesHdf5(infPath, options).y[2], -kInf);
    EXPECT_TRUE(std::isnan(loadSeries2D(largePath, options).as<Series2D>().y[2999]));
}

TEST_F(SeriesHdf5Test, NonHdf5FileWithH5ExtensionIsReadAsTextAndFails)
{
    const std::string p = writeFile("fake.h5", "this is not an HDF5 file\n");
    EXPECT_FALSE(h5::looksLikeHdf5(p));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { h5::File::open(p); }), p, "", "not an HDF5 file"));
    EXPECT_TRUE(errorSays(readError(p), p, "", "not an HDF5 file"));
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { loadSeries2D(p); }), p, "line 1", "header has 6 columns; expected 2 (x and y)"));
}

TEST_F(SeriesHdf5Test, BinaryGarbageWithH5ExtensionFailsSensibly)
{
    std::string bytes;
    std::uint32_t state = 12345;
    for (int i = 0; i < 4096; ++i) {
        state = state * 1664525u + 1013904223u;
        bytes.push_back(static_cast<char>(state >> 24));
    }
    bytes[0] = 'G'; // not a gzip magic by chance
    const std::string p = writeFile("garbage.h5", bytes);
    EXPECT_FALSE(h5::looksLikeHdf5(p));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { h5::File::open(p); }), p, "", "not an HDF5 file"));
    const auto error = catchDatasetError([&] { loadSeries2D(p); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->file(), p);
    EXPECT_FALSE(error->problem().empty());
}

TEST_F(SeriesHdf5Test, TruncatedFileThrowsAndNeverCrashes)
{
    const std::string full = tempPath("full.h5");
    writeSeriesHdf5(full, ramp(20000));
    const auto size = std::filesystem::file_size(full);
    for (const auto keep : {size / 2, size - 1, std::uintmax_t {4096}, std::uintmax_t {100}}) {
        const std::string p = tempPath("truncated_" + std::to_string(keep) + ".h5");
        std::filesystem::copy_file(full, p);
        std::filesystem::resize_file(p, keep);
        const auto openAndRead = catchDatasetError([&] {
            const h5::File file = h5::File::open(p);
            file.readDoubles("/x", 1, true);
            file.readDoubles("/y", 1, true);
        });
        ASSERT_TRUE(openAndRead) << "kept " << keep << " of " << size << " bytes";
        EXPECT_EQ(openAndRead->file(), p);
        EXPECT_FALSE(openAndRead->problem().empty());
        const auto viaReader = readError(p);
        ASSERT_TRUE(viaReader) << "kept " << keep;
        EXPECT_EQ(viaReader->file(), p);
        const auto viaLoad = catchDatasetError([&] { loadSeries2D(p); });
        ASSERT_TRUE(viaLoad) << "kept " << keep;
        EXPECT_EQ(viaLoad->file(), p);
    }
}

// --- a dataset compressed with a filter this library does not have ---------------------------------------------

std::size_t passThroughFilter(unsigned, std::size_t, const unsigned[], std::size_t nbytes, std::size_t*, void**)
{
    return nbytes;
}

/// Keeps HDF5 from looking for a real LZF plugin on disk while the test runs.
class NoFilterPlugins {
public:
    NoFilterPlugins()
    {
        H5PLget_loading_state(&m_saved);
        H5PLset_loading_state(0);
    }
    ~NoFilterPlugins() { H5PLset_loading_state(m_saved); }

private:
    unsigned m_saved = H5PL_ALL_PLUGIN;
};

TEST_F(SeriesHdf5Test, DatasetWithAnUnavailableFilterThrowsNamingTheFilter)
{
    constexpr H5Z_filter_t kLzf = 32000;
    const H5Z_class2_t lzfStandIn = {H5Z_CLASS_T_VERS, kLzf, 1, 1, "lzf", nullptr, nullptr, passThroughFilter};
    ASSERT_GE(H5Zregister(&lzfStandIn), 0);
    const std::string p = tempPath("lzf.h5");
    const Series2D s = ramp(256);
    {
        RawId file(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        ASSERT_GE(file.get(), 0);
        RawId dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        const hsize_t chunk = 64;
        ASSERT_GE(H5Pset_chunk(dcpl.get(), 1, &chunk), 0);
        ASSERT_GE(H5Pset_filter(dcpl.get(), kLzf, H5Z_FLAG_MANDATORY, 0, nullptr), 0);
        writeRaw(file.get(), "/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {256}, s.x.data(), dcpl.get());
        writeRaw(file.get(), "/y", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {256}, s.y.data(), dcpl.get());
    }
    {
        // While the filter is registered the file reads normally.
        const Series2D read = readSeriesHdf5(p);
        EXPECT_EQ(read.y, s.y);
    }
    ASSERT_GE(H5Zunregister(kLzf), 0);
    const NoFilterPlugins noPlugins;
    ASSERT_LE(H5Zfilter_avail(kLzf), 0);

    const auto info = h5::File::open(p).info("/x");
    EXPECT_TRUE(info.chunked);
    EXPECT_EQ(info.filters, (std::vector<std::string> {"lzf (32000, not available)"}));

    for (const auto& error : {readError(p), catchDatasetError([&] { loadSeries2D(p); }),
             catchDatasetError([&] { h5::File::open(p).readDoubles("/x", 1, true); })}) {
        EXPECT_TRUE(errorSays(error, p, "dataset /x", "'lzf'"));
        EXPECT_TRUE(contains(error->problem(), "does not have"));
        EXPECT_TRUE(contains(error->problem(), "filter"));
    }
}

// --- sniffing and metadata ------------------------------------------------------------------------------------

TEST_F(SeriesHdf5Test, LoadSeries2DSniffsHdf5BySignatureNotExtension)
{
    const Series2D s = ramp(5);
    const std::string p = tempPath("really_hdf5.csv");
    writeSeriesHdf5(p, s, true);
    EXPECT_TRUE(h5::looksLikeHdf5(p));
    const Dataset d = loadSeries2D(p);
    EXPECT_EQ(d.meta().kind, "series2d");
    EXPECT_EQ(d.meta().name, "really_hdf5.csv");
    EXPECT_EQ(d.meta().source, p);
    EXPECT_EQ(d.meta().size, 5u);
    const std::vector<std::pair<std::string, std::string>> properties
        = {{"points", "5"}, {"x range", "[0, 2]"}, {"y range", "[1, 5]"}, {"stored as", "float32"}};
    EXPECT_EQ(d.meta().properties, properties);
    EXPECT_EQ(d.as<Series2D>().x, s.x);
}

TEST_F(SeriesHdf5Test, FileWithAUserBlockIsRecognisedAndRead)
{
    const std::string p = tempPath("userblock.h5");
    const Series2D s = ramp(8);
    {
        RawId fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
        ASSERT_GE(H5Pset_userblock(fcpl.get(), 512), 0);
        RawId file(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose);
        ASSERT_GE(file.get(), 0);
        writeRaw(file.get(), "/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {8}, s.x.data());
        writeRaw(file.get(), "/y", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {8}, s.y.data());
    }
    EXPECT_TRUE(h5::looksLikeHdf5(p));
    const Dataset d = loadSeries2D(p);
    EXPECT_EQ(d.as<Series2D>().y, s.y);
}

TEST(Hdf5SignatureTest, MissingOrTinyFilesAreNotHdf5)
{
    EXPECT_FALSE(h5::looksLikeHdf5("/nonexistent/file.h5"));
    const auto error = catchDatasetError([] { h5::File::open("/nonexistent/file.h5"); });
    EXPECT_TRUE(errorSays(error, "/nonexistent/file.h5", "", "no such file"));
}

// --- h5::File: listing, strings, attributes -------------------------------------------------------------------

TEST_F(SeriesHdf5Test, ListsGroupsAndDatasetsWithShapesTypesAndFilters)
{
    const Series2D s = ramp(2000);
    const std::string p = makeFile("listing.h5", [&](h5::File& f) {
        f.writeDoubles("/x", s.x, {2000}, true);
        const std::vector<float> y = {1, 2, 3};
        f.writeFloats("/y", y, {3});
        const std::vector<std::uint64_t> counts = {0, 1, 2, 3, 4, 5};
        f.writeUInt64s("/meta/counts", counts, {2, 3});
        f.writeStrings("/meta/names", {"alpha", "", "µs, \"quoted\""});
        f.createGroup("/empty/deeper");
        f.createGroup("/empty/deeper"); // creating an existing group is a no-op
    });
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.path(), p);
    EXPECT_EQ(file.groups(), (std::vector<std::string> {"/", "/empty", "/empty/deeper", "/meta"}));

    const auto datasets = file.datasets();
    ASSERT_EQ(datasets.size(), 4u);
    EXPECT_EQ(datasets[0].path, "/meta/counts");
    EXPECT_EQ(datasets[0].type, "uint64");
    EXPECT_TRUE(datasets[0].isInteger);
    EXPECT_FALSE(datasets[0].isFloat);
    EXPECT_EQ(datasets[0].dims, (std::vector<std::uint64_t> {2, 3}));
    EXPECT_EQ(datasets[0].elementCount(), 6u);

    EXPECT_EQ(datasets[1].path, "/meta/names");
    EXPECT_EQ(datasets[1].type, "string");
    EXPECT_FALSE(datasets[1].isInteger);
    EXPECT_FALSE(datasets[1].isFloat);
    EXPECT_EQ(datasets[1].dims, (std::vector<std::uint64_t> {3}));

    EXPECT_EQ(datasets[2].path, "/x");
    EXPECT_EQ(datasets[2].type, "float64");
    EXPECT_TRUE(datasets[2].isFloat);
    EXPECT_TRUE(datasets[2].chunked);
    EXPECT_EQ(datasets[2].filters, (std::vector<std::string> {"gzip (1)"}));
    EXPECT_EQ(datasets[2].dims, (std::vector<std::uint64_t> {2000}));

    EXPECT_EQ(datasets[3].path, "/y");
    EXPECT_EQ(datasets[3].type, "float32");
    EXPECT_FALSE(datasets[3].chunked);
    EXPECT_TRUE(datasets[3].filters.empty());

    EXPECT_TRUE(file.hasDataset("/x"));
    EXPECT_TRUE(file.hasDataset("/meta/names"));
    EXPECT_FALSE(file.hasDataset("/meta"));
    EXPECT_FALSE(file.hasDataset("/nope/x"));
    EXPECT_FALSE(file.hasDataset("/"));
    EXPECT_TRUE(file.hasGroup("/"));
    EXPECT_TRUE(file.hasGroup("/empty/deeper"));
    EXPECT_FALSE(file.hasGroup("/x"));
    EXPECT_FALSE(file.hasGroup("/nope/deeper"));

    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { file.info("/nope"); }), p, "dataset /nope", "no such dataset in the file"));
}

TEST_F(SeriesHdf5Test, ReadDoublesChecksRankAndType)
{
    const std::string p = makeFile("numeric.h5", [](h5::File& f) {
        const std::vector<std::uint64_t> counts = {0, 1, 2, 3, 4, 5};
        f.writeUInt64s("/counts", counts, {2, 3});
        const std::vector<float> y = {1.5f, 2.5f};
        f.writeFloats("/y", y, {2});
        f.writeStrings("/names", {"a"});
    });
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.readDoubles("/counts", 2, false), (std::vector<double> {0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(file.readDoubles("/counts", 0, false).size(), 6u);
    EXPECT_EQ(file.readFloats("/y", 1, true), (std::vector<float> {1.5f, 2.5f}));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { file.readDoubles("/counts", 1, false); }), p, "dataset /counts",
        "has rank 2; expected rank 1"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { file.readDoubles("/counts", 2, true); }), p, "dataset /counts",
        "holds uint64 values; expected float32 or float64"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { file.readFloats("/names", 1, false); }), p, "dataset /names",
        "holds string values; expected numbers"));
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { file.readDoubles("/missing", 1, false); }), p, "dataset /missing", "no such dataset"));
}

TEST_F(SeriesHdf5Test, WritersRejectExtentsThatDoNotMatchTheValues)
{
    const std::string p = tempPath("mismatch.h5");
    h5::File file = h5::File::create(p);
    const std::vector<double> v = {1, 2, 3};
    EXPECT_TRUE(errorSays(catchDatasetError([&] { file.writeDoubles("/x", v, {4}); }), p, "dataset /x",
        "extents do not match the number of values"));
    file.writeDoubles("/x", v, {3});
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { file.writeDoubles("/x", v, {3}); }), p, "dataset /x", "cannot create"));
}

TEST_F(SeriesHdf5Test, CreateInAMissingDirectoryThrows)
{
    const std::string p = tempPath("no/such/dir/out.h5");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { h5::File::create(p); }), p, "", "cannot create HDF5 file"));
}

TEST_F(SeriesHdf5Test, StringsRoundTrip)
{
    const std::vector<std::string> values = {"alpha", "", "µs, \"quoted\"", std::string(300, 'z')};
    const std::string p = makeFile("strings.h5", [&](h5::File& f) {
        f.writeStrings("/labels", values);
        f.writeStrings("/group/none", {});
        const std::vector<double> x = {1.0};
        f.writeDoubles("/x", x, {1});
    });
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.readStrings("/labels"), values);
    EXPECT_TRUE(file.readStrings("/group/none").empty());
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { file.readStrings("/x"); }), p, "dataset /x", "holds float64 values; expected strings"));
}

TEST_F(SeriesHdf5Test, FixedLengthStringsAreReadWithoutPadding)
{
    const std::string p = tempPath("fixed.h5");
    {
        RawId file(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        RawId type(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(type.get(), 8);
        const char data[3][8]
            = {{'a', 'l', 'p', 'h', 'a', 0, 0, 0}, {'1', '2', '3', '4', '5', '6', '7', '8'}, {0, 0, 0, 0, 0, 0, 0, 0}};
        writeRaw(file.get(), "/fixed", type.get(), type.get(), {3}, data);
    }
    EXPECT_EQ(h5::File::open(p).readStrings("/fixed"), (std::vector<std::string> {"alpha", "12345678", ""}));
    EXPECT_EQ(h5::File::open(p).info("/fixed").type, "string");
}

TEST_F(SeriesHdf5Test, StringAttributesRoundTrip)
{
    const std::string p = makeFile("attributes.h5", [](h5::File& f) {
        const std::vector<double> x = {1.0};
        f.writeDoubles("/x", x, {1});
        f.createGroup("/g");
        f.writeStringAttribute("/", "creator", "KernelScope 0.1");
        f.writeStringAttribute("/x", "units", "s");
        f.writeStringAttribute("/x", "units", "milliseconds"); // replaces, longer than before
        f.writeStringAttribute("/g", "note", "");
        f.writeStringAttribute("/g", "unicode", "µs ✓");
        EXPECT_EQ(f.readStringAttribute("/x", "units"), "milliseconds");
    });
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.readStringAttribute("/", "creator"), "KernelScope 0.1");
    EXPECT_EQ(file.readStringAttribute("/x", "units"), "milliseconds");
    EXPECT_EQ(file.readStringAttribute("/g", "note"), "");
    EXPECT_EQ(file.readStringAttribute("/g", "unicode"), "µs ✓");
    EXPECT_EQ(file.readStringAttribute("/x", "missing"), "");
    EXPECT_EQ(file.readStringAttribute("/nope", "creator"), "");
}

TEST_F(SeriesHdf5Test, AttributeErrorsNameTheObject)
{
    const std::string p = tempPath("attribute_errors.h5");
    {
        h5::File file = h5::File::create(p);
        EXPECT_TRUE(errorSays(catchDatasetError([&] { file.writeStringAttribute("/nope", "a", "b"); }), p, "/nope",
            "cannot open to set attribute 'a'"));
    }
    {
        RawId file(H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
        RawId space(H5Screate(H5S_SCALAR), H5Sclose);
        RawId attribute(
            H5Acreate2(file.get(), "count", H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        const std::int32_t value = 7;
        ASSERT_GE(H5Awrite(attribute.get(), H5T_NATIVE_INT32, &value), 0);
    }
    const h5::File file = h5::File::open(p);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { file.readStringAttribute("/", "count"); }), p, "/",
        "attribute 'count' is not a string"));
}

TEST_F(SeriesHdf5Test, FileIsMovable)
{
    const std::string p = tempPath("move.h5");
    writeSeriesHdf5(p, ramp(3));
    h5::File a = h5::File::open(p);
    h5::File b = std::move(a);
    EXPECT_EQ(b.path(), p);
    EXPECT_TRUE(b.hasDataset("/x"));
    h5::File c = h5::File::open(p);
    c = std::move(b);
    EXPECT_EQ(c.readDoubles("/x", 1, true), ramp(3).x);
}

} // namespace
} // namespace ks::data
