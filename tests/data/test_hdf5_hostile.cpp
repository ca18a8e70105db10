// HDF5 files as other writers leave them and as an attacker might: fixed-length strings of each padding kind and
// of full width, a group nested 600 deep, a shape beyond any integer; and inputs that are not regular files (a FIFO,
// a device, a directory), refused by every reader entry before anything opens them.
#include "data/expression_table.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/image_set.h"
#include "data/input_file.h"
#include "data/point_cloud.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"
#include "data/text_file.h"
#include "hdf5_test_support.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::errorSays;
using test::RawId;

/// A 1-D dataset of fixed-length strings of `width` bytes with the given padding, each value's bytes stored as given
/// (no terminator added: a full-width value fills its slot).
void writeFixedStrings(
    hid_t location, const char* name, std::size_t width, H5T_str_t pad, const std::vector<std::string>& values)
{
    RawId type(H5Tcopy(H5T_C_S1), H5Tclose);
    ASSERT_GE(H5Tset_size(type.get(), width), 0);
    ASSERT_GE(H5Tset_strpad(type.get(), pad), 0);
    std::vector<char> bytes(width * values.size(), pad == H5T_STR_SPACEPAD ? ' ' : '\0');
    for (std::size_t i = 0; i < values.size(); ++i) {
        ASSERT_LE(values[i].size(), width);
        std::memcpy(bytes.data() + i * width, values[i].data(), values[i].size());
    }
    const hsize_t extent = values.size();
    RawId space(H5Screate_simple(1, &extent, nullptr), H5Sclose);
    RawId dataset(H5Dcreate2(location, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(dataset.get(), 0) << name;
    ASSERT_GE(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), 0) << name;
}

void writeFixedStringAttribute(
    hid_t object, const char* name, std::size_t width, H5T_str_t pad, const std::string& value)
{
    RawId type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), width);
    H5Tset_strpad(type.get(), pad);
    std::string bytes(width, pad == H5T_STR_SPACEPAD ? ' ' : '\0');
    bytes.replace(0, value.size(), value);
    RawId space(H5Screate(H5S_SCALAR), H5Sclose);
    RawId attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    ASSERT_GE(attribute.get(), 0) << name;
    ASSERT_GE(H5Awrite(attribute.get(), type.get(), bytes.data()), 0) << name;
}

void writeDoubles(hid_t location, const char* name, const std::vector<hsize_t>& dims, const std::vector<double>& values)
{
    RawId space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    RawId dataset(
        H5Dcreate2(location, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(dataset.get(), 0) << name;
    ASSERT_GE(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0) << name;
}

void writeInt64s(hid_t location, const char* name, const std::vector<std::int64_t>& values)
{
    const hsize_t extent = values.size();
    RawId space(H5Screate_simple(1, &extent, nullptr), H5Sclose);
    RawId dataset(
        H5Dcreate2(location, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(dataset.get(), 0) << name;
    ASSERT_GE(H5Dwrite(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0) << name;
}

class Hdf5HostileTest : public test::TempDirTest {
protected:
    /// Creates `name` and hands its root group to `fill`.
    template <class F> std::string makeFile(const std::string& name, F&& fill)
    {
        const std::string p = tempPath(name);
        RawId file(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        EXPECT_GE(file.get(), 0);
        fill(file.get());
        return p;
    }
};

struct Padding {
    H5T_str_t pad;
    const char* name;
};
constexpr Padding kPaddings[]
    = {{H5T_STR_NULLTERM, "NULLTERM"}, {H5T_STR_NULLPAD, "NULLPAD"}, {H5T_STR_SPACEPAD, "SPACEPAD"}};

TEST_F(Hdf5HostileTest, FixedLengthStringsKeepEveryCharacterWhateverTheirPadding)
{
    // Full-width values (no room for a terminator), shorter ones, and an empty one, in each padding.
    const std::vector<std::string> names = {"abc", "abd", "a", "", "xyz"};
    for (const auto& padding : kPaddings) {
        SCOPED_TRACE(padding.name);
        const std::string p = makeFile(std::string(padding.name) + ".h5",
            [&](hid_t file) { writeFixedStrings(file, "names", 3, padding.pad, names); });
        const auto file = h5::File::open(p);
        EXPECT_EQ(file.readStrings("/names"), names);
    }
}

TEST_F(Hdf5HostileTest, SpacePaddedStringsLoseOnlyTheirPadding)
{
    // SPACEPAD's trailing spaces are padding, not part of the value; spaces inside a value stay.
    const std::string p = makeFile("spaces.h5", [&](hid_t file) {
        writeFixedStrings(file, "names", 8, H5T_STR_SPACEPAD, {"a b", "gene 12", "full wid"});
    });
    EXPECT_EQ(h5::File::open(p).readStrings("/names"), (std::vector<std::string> {"a b", "gene 12", "full wid"}));
}

TEST_F(Hdf5HostileTest, VariableLengthStringsBeyondTheBudgetAreRefusedAndFreed)
{
    // 2,000 names of 4 KiB: 8 MiB of characters, whose total only the read finds. Under a 4 MiB budget libhdf5's
    // allocations are refused past what the budget leaves, and the read fails with the figure; what it had allocated
    // is given back (LeakSanitizer checks that in the sanitised build). Under no limit they read whole.
    const std::vector<std::string> names(2000, std::string(4096, 'g'));
    const std::string p = tempPath("long-names.h5");
    {
        h5::File file = h5::File::create(p);
        file.writeStrings("/names", names);
    }
    EXPECT_EQ(h5::File::open(p).readStrings("/names"), names);
    setMemoryLimit(4 << 20);
    struct Unlimit {
        ~Unlimit() { setMemoryLimit(0); }
    } unlimit;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { h5::File::open(p).readStrings("/names"); }), p, "dataset /names",
        "its strings need more than the 1.96 MiB the memory budget leaves"));
}

TEST_F(Hdf5HostileTest, FixedLengthStringAttributesKeepEveryCharacter)
{
    for (const auto& padding : kPaddings) {
        SCOPED_TRACE(padding.name);
        const std::string p = makeFile(std::string("attribute_") + padding.name + ".h5", [&](hid_t file) {
            writeFixedStringAttribute(file, "encoding-type", 7, padding.pad, "anndata");
            writeFixedStringAttribute(file, "short", 10, padding.pad, "csr");
        });
        const auto file = h5::File::open(p);
        EXPECT_EQ(file.readStringAttribute("/", "encoding-type"), "anndata");
        EXPECT_EQ(file.readStringAttribute("/", "short"), "csr");
    }
}

TEST_F(Hdf5HostileTest, LrvFeatureNamesInFullWidthFixedStringsAreDistinct)
{
    // h5py writes numpy 'S3' arrays as NULLPAD strings of three bytes: abc, abd and abe once read as "ab" three times,
    // a duplicate feature name.
    for (const auto& padding : kPaddings) {
        SCOPED_TRACE(padding.name);
        const std::string p = makeFile(std::string("lrv_") + padding.name + ".h5", [&](hid_t file) {
            writeDoubles(file, "matrix", {2, 3}, {1, 2, 3, 4, 5, 6});
            writeFixedStrings(file, "feature_names", 3, padding.pad, {"abc", "abd", "abe"});
            writeFixedStrings(file, "sample_names", 2, padding.pad, {"s1", "s2"});
        });
        const Dataset d = loadExpressionTable(p);
        const auto& table = d.as<ExpressionTable>();
        EXPECT_EQ(table.featureNames, (std::vector<std::string> {"abc", "abd", "abe"}));
        EXPECT_EQ(table.sampleNames, (std::vector<std::string> {"s1", "s2"}));
    }
}

TEST_F(Hdf5HostileTest, TenXBarcodesAndFeatureNamesInFullWidthFixedStrings)
{
    // 10x Genomics files store barcodes and names as fixed-length NULLPAD strings, many exactly as long as the type.
    const std::string p = makeFile("tenx.h5", [&](hid_t file) {
        RawId group(H5Gcreate2(file, "matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        writeDoubles(group.get(), "data", {3}, {1, 2, 3});
        writeInt64s(group.get(), "indices", {0, 1, 1});
        writeInt64s(group.get(), "indptr", {0, 2, 3});
        writeInt64s(group.get(), "shape", {2, 2});
        writeFixedStrings(group.get(), "barcodes", 4, H5T_STR_NULLPAD, {"AAAC", "AAAG"});
        RawId features(H5Gcreate2(group.get(), "features", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        writeFixedStrings(features.get(), "name", 4, H5T_STR_NULLPAD, {"CD3E", "CD4"});
        writeFixedStrings(features.get(), "id", 5, H5T_STR_NULLPAD, {"ENS01", "ENS02"});
    });
    const CsrMatrix m = readSparseHdf5(p);
    EXPECT_EQ(m.colNames, (std::vector<std::string> {"AAAC", "AAAG"}));
    EXPECT_EQ(m.rowNames, (std::vector<std::string> {"CD3E", "CD4"}));
}

/// Groups g0/g1/.../g{depth-1} below the root, each made from its parent so that writing stays linear; the deepest
/// holds the datasets `fill` writes.
template <class F> void nest(hid_t file, int depth, F&& fill)
{
    std::deque<RawId> groups; // RawId cannot move; a deque never moves what it holds
    hid_t parent = file;
    for (int level = 0; level < depth; ++level) {
        const std::string name = "g" + std::to_string(level);
        groups.emplace_back(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        ASSERT_GE(groups.back().get(), 0) << level;
        parent = groups.back().get();
    }
    fill(parent);
}

std::string nestedPath(int depth)
{
    std::string path;
    for (int level = 0; level < depth; ++level)
        path += "/g" + std::to_string(level);
    return path;
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(Hdf5HostileTest, LinregGroupSearchIsFastSixHundredGroupsDeep)
{
    // Checking every path prefix of every group made this search cubic in the depth: 152 s at 600 levels.
    constexpr int kDepth = 600;
    const std::string p = makeFile("deep.h5", [&](hid_t file) {
        nest(file, kDepth, [&](hid_t deepest) {
            writeDoubles(deepest, "x", {3}, {1, 2, 3});
            writeDoubles(deepest, "y", {3}, {2, 4, 7});
        });
    });
    const auto start = std::chrono::steady_clock::now();
    const Series2D series = readSeriesHdf5(p);
    const double seconds = secondsSince(start);
    EXPECT_EQ(series.x, (std::vector<double> {1, 2, 3}));
    EXPECT_EQ(series.y, (std::vector<double> {2, 4, 7}));
    EXPECT_LT(seconds, 5.0) << "the search of " << kDepth << " nested groups took " << seconds << " s";
    RecordProperty("search_seconds", std::to_string(seconds));

    const auto contents = h5::File::open(p).contents();
    ASSERT_EQ(contents.groups.size(), static_cast<std::size_t>(kDepth + 1));
    EXPECT_EQ(contents.groups.front(), "/");
    EXPECT_EQ(contents.groups.back(), nestedPath(kDepth));
    EXPECT_TRUE(contents.hasDataset(nestedPath(kDepth) + "/x"));
    EXPECT_FALSE(contents.hasDataset(nestedPath(kDepth)));
}

TEST_F(Hdf5HostileTest, DeepFileWithoutXAndYFailsFastNamingWhatItHas)
{
    constexpr int kDepth = 600;
    const std::string p = makeFile(
        "deep_empty.h5", [&](hid_t file) { nest(file, kDepth, [&](hid_t g) { writeDoubles(g, "z", {1}, {1}); }); });
    const auto start = std::chrono::steady_clock::now();
    const auto error = catchDatasetError([&] { readSeriesHdf5(p); });
    EXPECT_LT(secondsSince(start), 5.0);
    EXPECT_TRUE(errorSays(error, p, "", "no group holds datasets named x and y"));
}

TEST_F(Hdf5HostileTest, SparseGroupSearchIsFastSixHundredGroupsDeep)
{
    constexpr int kDepth = 600;
    const std::string p = makeFile("deep_sparse.h5", [&](hid_t file) {
        nest(file, kDepth, [&](hid_t g) {
            writeDoubles(g, "data", {2}, {1, 2});
            writeInt64s(g, "indices", {0, 1});
            writeInt64s(g, "indptr", {0, 1, 2});
            writeInt64s(g, "shape", {2, 2});
        });
    });
    const auto start = std::chrono::steady_clock::now();
    const CsrMatrix m = readSparseHdf5(p);
    EXPECT_LT(secondsSince(start), 5.0);
    EXPECT_EQ(m.rows, 2u);
    EXPECT_EQ(m.values, (std::vector<double> {1, 2}));
}

TEST_F(Hdf5HostileTest, GroupSearchFollowsSoftLinksNamedXAndY)
{
    // The listing does not follow links, but a group whose x and y are links to datasets elsewhere still holds them.
    const std::string p = makeFile("links.h5", [&](hid_t file) {
        RawId data(H5Gcreate2(file, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        writeDoubles(data.get(), "xv", {3}, {1, 2, 3});
        writeDoubles(data.get(), "yv", {3}, {3, 5, 7});
        RawId fit(H5Gcreate2(file, "fit", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        ASSERT_GE(H5Lcreate_soft("/data/xv", fit.get(), "x", H5P_DEFAULT, H5P_DEFAULT), 0);
        ASSERT_GE(H5Lcreate_soft("/data/yv", fit.get(), "y", H5P_DEFAULT, H5P_DEFAULT), 0);
        ASSERT_GE(H5Lcreate_soft("/nowhere", fit.get(), "dangling", H5P_DEFAULT, H5P_DEFAULT), 0);
        // A second hard link to a group: listed once, as H5Ovisit lists it.
        ASSERT_GE(H5Lcreate_hard(file, "data", file, "again", H5P_DEFAULT, H5P_DEFAULT), 0);
    });
    const Series2D series = readSeriesHdf5(p);
    EXPECT_EQ(series.y, (std::vector<double> {3, 5, 7}));
    const auto file = h5::File::open(p);
    const auto contents = file.contents();
    EXPECT_EQ(contents.groups, (std::vector<std::string> {"/", "/again", "/fit"}));
    EXPECT_EQ(contents.datasets, (std::vector<std::string> {"/again/xv", "/again/yv"}));
    EXPECT_EQ(contents.links.size(), 3u);
    EXPECT_TRUE(file.hasDataset(contents, "/fit/x"));
    EXPECT_FALSE(file.hasDataset(contents, "/fit/dangling"));
}

TEST_F(Hdf5HostileTest, PathLookupsWalkOneLinkAtATime)
{
    const std::string p
        = makeFile("paths.h5", [&](hid_t file) { nest(file, 3, [&](hid_t g) { writeDoubles(g, "x", {1}, {1}); }); });
    const auto file = h5::File::open(p);
    EXPECT_TRUE(file.hasGroup("/g0/g1/g2"));
    EXPECT_TRUE(file.hasDataset("/g0/g1/g2/x"));
    EXPECT_FALSE(file.hasDataset("/g0/g1/g2"));
    EXPECT_FALSE(file.hasGroup("/g0/g1/g2/x"));
    EXPECT_FALSE(file.hasDataset("/g0/g1/g2/x/y")); // through a dataset
    EXPECT_FALSE(file.hasDataset("/g0/missing/x"));
    EXPECT_FALSE(file.hasDataset("/g0//g1"));
    EXPECT_FALSE(file.hasDataset("g0/g1"));
}

TEST_F(Hdf5HostileTest, ShapeBeyondAnyIntegerIsReportedAsItIs)
{
    // 1e300 rows: casting it to an integer is undefined and used to print "row count 0".
    const std::string p = makeFile("huge_shape.h5", [&](hid_t file) {
        RawId group(H5Gcreate2(file, "m", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        writeDoubles(group.get(), "data", {1}, {1});
        writeInt64s(group.get(), "indices", {0});
        writeInt64s(group.get(), "indptr", {0, 1});
        const hsize_t two = 2;
        RawId space(H5Screate_simple(1, &two, nullptr), H5Sclose);
        RawId attribute(
            H5Acreate2(group.get(), "shape", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        const double shape[2] = {1e300, 1};
        ASSERT_GE(H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, shape), 0);
    });
    const auto error = catchDatasetError([&] { readSparseHdf5(p); });
    EXPECT_TRUE(errorSays(error, p, "group /m, attribute shape", "the row count 1e+300 exceeds"));
    EXPECT_FALSE(contains(error ? error->problem() : "", "row count 0"));
}

TEST_F(Hdf5HostileTest, ShapeJustPastTheLimitIsPrintedInFull)
{
    const std::string p = makeFile("wide_shape.h5", [&](hid_t file) {
        RawId group(H5Gcreate2(file, "m", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        writeDoubles(group.get(), "data", {1}, {1});
        writeInt64s(group.get(), "indices", {0});
        writeInt64s(group.get(), "indptr", {0, 1});
        writeInt64s(group.get(), "shape", {1, 5'000'000'000});
    });
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/shape", "the column count 5000000000 exceeds"));
}

class InputKindTest : public test::TempDirTest {
protected:
    std::string fifo(const std::string& name)
    {
        const std::string p = tempPath(name);
        EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0) << std::strerror(errno);
        return p;
    }
};

TEST_F(InputKindTest, EveryReaderEntryRefusesAFifoWithoutBlocking)
{
    // Opening a FIFO for reading blocks until a writer comes: each of these would hang the test before the check.
    const std::string p = fifo("data.csv");
    const std::vector<std::pair<const char*, std::function<void()>>> entries = {
        {"loadSeries2D", [&] { loadSeries2D(p); }},
        {"readSeriesHdf5", [&] { readSeriesHdf5(p); }},
        {"loadPointCloud", [&] { loadPointCloud(p); }},
        {"loadSparseMatrix", [&] { loadSparseMatrix(p); }},
        {"readVector", [&] { readVector(p); }},
        {"loadExpressionTable", [&] { loadExpressionTable(p); }},
        {"loadImageSet", [&] { loadImageSet(p); }},
        {"readTextFile", [&] { readTextFile(p); }},
        {"h5::File::open", [&] { h5::File::open(p); }},
    };
    for (const auto& [name, entry] : entries)
        EXPECT_TRUE(errorSays(catchDatasetError(entry), p, "", "is a FIFO (named pipe), not a regular file")) << name;
    EXPECT_FALSE(h5::looksLikeHdf5(p));
}

TEST_F(InputKindTest, AFifoAsTheVectorIsRefusedBeforeTheMatrixIsRead)
{
    const std::string matrix = writeFile("m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 5\n");
    const std::string vector = fifo("x.txt");
    ReadOptions options;
    options.vectorPath = vector;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSparseMatrix(matrix, options); }), vector, "",
        "is a FIFO (named pipe), not a regular file"));
}

TEST_F(InputKindTest, DevicesAndDirectoriesAreNamedForWhatTheyAre)
{
    EXPECT_TRUE(errorSays(catchDatasetError([] { loadSeries2D("/dev/null"); }), "/dev/null", "",
        "is a character device, not a regular file"));
    EXPECT_TRUE(errorSays(catchDatasetError([] { loadPointCloud("/dev/zero"); }), "/dev/zero", "",
        "is a character device, not a regular file"));
    const std::string folder = tempPath("folder");
    std::filesystem::create_directories(folder);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadSeries2D(folder); }), folder, "", "is a directory, not a file"));
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { loadExpressionTable(folder); }), folder, "", "is a directory, not a file"));
    // Readers of folders (IDX, CIFAR-10, MEX) still get theirs, and say what the folder lacks.
    const auto images = catchDatasetError([&] { loadImageSet(folder); });
    ASSERT_TRUE(images);
    EXPECT_FALSE(contains(images->problem(), "not a file")) << images->what();
    EXPECT_NO_THROW(requireReadableKind(folder, InputShape::FileOrFolder));
}

TEST_F(InputKindTest, RegularFilesLinksToThemAndMissingPathsPass)
{
    const std::string p = writeFile("ok.csv", "x,y\n1,2\n3,5\n");
    EXPECT_NO_THROW(requireReadableKind(p));
    const std::string link = tempPath("link.csv");
    std::filesystem::create_symlink(p, link);
    EXPECT_NO_THROW(requireReadableKind(link));
    EXPECT_EQ(loadSeries2D(link).meta().size, 2u);
    // A missing path is each reader's to report in its own words ("no such file").
    EXPECT_NO_THROW(requireReadableKind(tempPath("missing.csv")));
}

} // namespace
} // namespace ks::data
