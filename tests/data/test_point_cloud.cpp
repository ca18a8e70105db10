// The sdh workload's point clouds: the XYZ, PDB, PLY and plain text readers over the committed corpus under
// tests/data/sdh/{good,bad}, the frame / model choice, binary PLY of both byte orders and every property type written
// at test time, HDF5 N × 3 and frames × N × 3 files and wrong shapes made at test time, gzip, the generators and
// their determinism across thread counts, the dataset's metadata, and real PDB files from Debian's pymol-data.

#include "data/dataset_error.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/point_cloud.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
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

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeGzip(const std::string& path, const std::string& bytes)
{
    gzFile file = gzopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr) << path;
    ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    ASSERT_EQ(gzclose(file), Z_OK);
}

/// A test name from a corpus file name ("crlf.xyz" -> "crlf_xyz").
std::string testNameOf(std::string name)
{
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

struct Coordinates {
    std::vector<double> x, y, z;
};

/// Checks a cloud holds exactly these coordinates (== on doubles: every value in the corpus is parsed exactly).
void expectCoordinates(const PointCloud& cloud, const Coordinates& expected, const std::string& what)
{
    ASSERT_EQ(cloud.size(), expected.x.size()) << what;
    ASSERT_EQ(cloud.y.size(), expected.y.size()) << what;
    ASSERT_EQ(cloud.z.size(), expected.z.size()) << what;
    EXPECT_EQ(cloud.x, expected.x) << what;
    EXPECT_EQ(cloud.y, expected.y) << what;
    EXPECT_EQ(cloud.z, expected.z) << what;
}

ReadOptions frameOptions(const std::string& frame)
{
    ReadOptions options;
    options.params["frame"] = frame;
    return options;
}

std::string property(const Dataset& d, const std::string& key)
{
    for (const auto& [k, v] : d.meta().properties)
        if (k == key)
            return v;
    ADD_FAILURE() << "no property " << key;
    return {};
}

// --- the good corpus ------------------------------------------------------------------------------------------

struct GoodCloud {
    const char* name;
    Coordinates coordinates;
    const char* storedType;
    std::vector<std::string> notes;
};

const GoodCloud kGoodClouds[] = {
    {"water.xyz", {{0, 0, 0}, {0, 0.7572, -0.7572}, {0.1173, -0.4692, -0.4692}}, "text", {}},
    {"two_frames.xyz", {{1, 4}, {2, 5}, {3, 6}}, "text",
        {"read frame 1 (count line 1), more frames follow; choose another with --param frame=N"}},
    {"headerless.xyz", {{1, -1.5}, {2, 0}, {3, 2.25}}, "text", {}},
    {"crlf_bom.xyz", {{10.5, 1e-3}, {-3, 200}, {7, -0.0}}, "text", {}},
    {"points.csv", {{1, 4.5, -7}, {2, -5.5, 8}, {3, 60, 9}}, "text", {}},
    {"points.txt", {{0, 1.25, 0.5}, {0, -2.5, -0.25}, {0, 3.75, 0.01}}, "text", {}},
    {"small.pdb", {{-123.456, 1.5, 0}, {-789.012, 2.25, -0.5}, {1000, -3.125, 12}}, "text", {}},
    {"short_records.pdb", {{1, -1}, {2, -2}, {3, -3}}, "text", {}},
    {"models.pdb", {{1, 2}, {1, 2}, {1, 2}}, "text",
        {"read model 1 (MODEL record at line 1), more models follow; choose another with --param frame=N"}},
    {"hybrid36.pdb", {{10, 11, -5.5, 0.001, 12}, {20, 21, 6.25, 0.002, 22}, {30, 31, -7.125, 0.003, 32}}, "text", {}},
    {"cube.ply", {{0, 1, 0, -1}, {0, 0, 1, -2}, {0, 0, 0.5, -3.25}}, "float32",
        {"read the vertex element; skipped face (1)"}},
};

void PrintTo(const GoodCloud& file, std::ostream* os)
{
    *os << file.name;
}

class PointCloudGoodCorpusTest : public test::TempDirTest, public ::testing::WithParamInterface<GoodCloud> { };

TEST_P(PointCloudGoodCorpusTest, ReadsTheExpectedCoordinates)
{
    const GoodCloud& good = GetParam();
    const std::string path = test::corpusPath(std::string("good/") + good.name, "sdh");
    const Dataset d = loadPointCloud(path);
    const auto& cloud = d.as<PointCloud>();
    expectCoordinates(cloud, good.coordinates, path);
    EXPECT_EQ(cloud.storedType, good.storedType);
    EXPECT_EQ(cloud.notes, good.notes);
    EXPECT_EQ(d.meta().kind, "points");
    EXPECT_EQ(d.meta().name, good.name);
    EXPECT_EQ(d.meta().source, path);
    EXPECT_EQ(d.meta().size, good.coordinates.x.size());
    EXPECT_EQ(d.meta().notes, good.notes);

    // The same bytes gzip-compressed, named with .gz after the format's extension, read the same.
    const std::string gz = tempPath(std::string(good.name) + ".gz");
    writeGzip(gz, readBytes(path));
    const Dataset fromGzip = loadPointCloud(gz);
    expectCoordinates(fromGzip.as<PointCloud>(), good.coordinates, gz);
    EXPECT_EQ(fromGzip.meta().contentHash, d.meta().contentHash);
    EXPECT_EQ(fromGzip.meta().name, std::string(good.name) + ".gz");

    // Written to HDF5, it reads back as the same points with the same content hash.
    const std::string h5 = tempPath("copy.h5");
    writePointHdf5(h5, cloud);
    const Dataset fromHdf5 = loadPointCloud(h5);
    expectCoordinates(fromHdf5.as<PointCloud>(), good.coordinates, h5);
    EXPECT_EQ(fromHdf5.as<PointCloud>().storedType, "float64");
    EXPECT_EQ(fromHdf5.meta().contentHash, d.meta().contentHash);
}

INSTANTIATE_TEST_SUITE_P(PointCloudCorpus, PointCloudGoodCorpusTest, ::testing::ValuesIn(kGoodClouds),
    [](const ::testing::TestParamInfo<GoodCloud>& p) { return testNameOf(p.param.name); });

TEST(PointCloudCorpusTest, EveryGoodFileIsListed)
{
    std::set<std::string> covered;
    for (const auto& good : kGoodClouds)
        covered.insert(good.name);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::corpusPath("good", "sdh"))) {
        ++files;
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the good corpus but kGoodClouds does not list it";
    }
    EXPECT_EQ(files, covered.size()) << "kGoodClouds lists a file that is not in the good corpus";
}

TEST(PointCloudCorpusTest, TheCrlfFilesKeepTheirLineEndings)
{
    // .gitattributes keeps the corpus byte-exact; a checkout that converted line endings would test nothing.
    EXPECT_TRUE(contains(readBytes(test::corpusPath("good/crlf_bom.xyz", "sdh")),
        "\xEF\xBB\xBF"
        "2\r\ncomment\r\n"));
    EXPECT_TRUE(contains(readBytes(test::corpusPath("good/hybrid36.pdb", "sdh")), "C\r\nATOM  A0000"));
}

// --- the bad corpus -------------------------------------------------------------------------------------------

struct BadCloud {
    const char* name;
    const char* place;
    const char* problem;
};

const BadCloud kBadClouds[] = {
    {"text_matrix_market.mtx", "line 1", "a Matrix Market file (a sparse matrix), not x y z points: spmv reads it"},
    {"xyz_short_line.xyz", "line 4", "short line: 3 fields, expected 4 (element x y z)"},
    {"xyz_non_numeric.xyz", "line 3, column 3", "y coordinate 'abc' is not a number"},
    {"xyz_count_too_big.xyz", "end of file", "found 3 atoms, but the count line (line 1) declares 4"},
    {"xyz_count_too_small.xyz", "line 5", "more atom rows than the 2 the count line (line 1) declares"},
    {"xyz_bad_count.xyz", "line 1",
        "bad count line: expected the number of atoms (a non-negative whole number), found 'three'"},
    {"xyz_negative_count.xyz", "line 1", "bad count line: expected the number of atoms"},
    {"xyz_nan.xyz", "line 3, column 2",
        "x coordinate is NaN (non-finite values are rejected; allow them with --allow-nonfinite)"},
    {"xyz_inf.xyz", "line 3, column 4", "z coordinate is infinite (non-finite values are rejected"},
    {"xyz_out_of_range.xyz", "line 3, column 3", "y coordinate '1e999' is out of the range of a double"},
    {"xyz_empty.xyz", "", "empty file: no atom count line"},
    {"xyz_zero_atoms.xyz", "line 1", "frame 1 has no atoms (its count line says 0)"},
    {"xyz_no_comment.xyz", "end of file", "no comment line after the count line (line 1)"},
    {"pdb_short_record.pdb", "line 2",
        "ATOM record of 50 characters; its coordinates need columns 31–54 (x 31–38, y 39–46, z 47–54)"},
    {"pdb_non_numeric.pdb", "line 2, column 39", "y coordinate '1.2x45' is not a number"},
    {"pdb_blank_coordinate.pdb", "line 1, column 31", "x coordinate (columns 31–38) is blank"},
    // Split on blanks the record would read as 1, 2, 3; its fixed columns hold "      1." and "000   2.".
    {"pdb_shifted_columns.pdb", "line 1, column 39", "y coordinate '000   2.' is not a number"},
    {"pdb_nan.pdb", "line 1, column 47", "z coordinate is NaN"},
    {"pdb_no_atoms.pdb", "", "no ATOM or HETATM records: no atoms to read"},
    {"pdb_empty_model.pdb", "line 1", "model 1 has no ATOM or HETATM records"},
    {"ply_bad_magic.ply", "line 1", "not a PLY file: the first line must be 'ply'"},
    {"ply_bad_format.ply", "line 2",
        "unknown format 'binary_middle_endian'; expected ascii, binary_little_endian or binary_big_endian"},
    {"ply_no_format.ply", "line 6", "the header has no format line before end_header"},
    {"ply_unknown_type.ply", "line 4, column 2", "unknown property type 'float128'"},
    {"ply_property_before_element.ply", "line 3", "a property line before any element line"},
    {"ply_unknown_keyword.ply", "line 3", "unknown header keyword 'vertices'"},
    {"ply_bad_element_count.ply", "line 3, column 3", "element count 'many' is not a non-negative whole number"},
    {"ply_no_end_header.ply", "end of file", "the header has no end_header line"},
    {"ply_no_vertex.ply", "line 5", "the header declares no vertex element"},
    {"ply_missing_z.ply", "line 3", "the vertex element has no property z (it has x, y)"},
    {"ply_zero_vertices.ply", "line 3", "the vertex element has no vertices (count 0)"},
    {"ply_truncated_ascii.ply", "end of file", "the body ends after 1 of the 2 vertices the header declares"},
    {"ply_non_numeric.ply", "line 9, column 2", "y coordinate 'five' is not a number"},
    {"ply_short_vertex_line.ply", "line 9",
        "vertex 1: the line ends at value 3, before the vertex element's properties are all given"},
    {"ply_long_vertex_line.ply", "line 8", "vertex 0: more values than the vertex element's 3 properties hold"},
    {"ply_nan.ply", "line 9, column 3", "z coordinate is NaN"},
    {"txt_short_line.txt", "line 2", "short line: 2 fields, expected 3 (x y z)"},
    {"txt_too_many_fields.csv", "line 2", "4 fields, expected 3 (x y z)"},
    {"txt_non_numeric.csv", "line 3, column 2", "y coordinate 'abc' is not a number"},
    {"txt_empty_field.csv", "line 1, column 2", "y coordinate is empty"},
    {"txt_nan.txt", "line 2, column 1", "x coordinate is NaN"},
    {"txt_empty.txt", "", "empty file: no points"},
    {"txt_comments_only.txt", "", "no points (only blank, comment and header lines)"},
    {"txt_header_only.csv", "", "no points (only blank, comment and header lines)"},
};

void PrintTo(const BadCloud& file, std::ostream* os)
{
    *os << file.name;
}

class PointCloudBadCorpusTest : public ::testing::TestWithParam<BadCloud> { };

TEST_P(PointCloudBadCorpusTest, ThrowsNamingFilePlaceAndProblem)
{
    const BadCloud& bad = GetParam();
    const std::string path = test::corpusPath(std::string("bad/") + bad.name, "sdh");
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadPointCloud(path); }), path, bad.place, bad.problem));
}

INSTANTIATE_TEST_SUITE_P(PointCloudCorpus, PointCloudBadCorpusTest, ::testing::ValuesIn(kBadClouds),
    [](const ::testing::TestParamInfo<BadCloud>& p) { return testNameOf(p.param.name); });

TEST(PointCloudCorpusTest, EveryBadFileHasAnExpectedError)
{
    std::set<std::string> covered;
    for (const auto& bad : kBadClouds)
        covered.insert(bad.name);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::corpusPath("bad", "sdh"))) {
        ++files;
        EXPECT_TRUE(covered.count(entry.path().filename().string()))
            << entry.path() << " is in the malformed corpus but kBadClouds has no expectation for it";
    }
    EXPECT_EQ(files, covered.size()) << "kBadClouds lists a file that is not in the malformed corpus";
}

TEST(PointCloudOptionsTest, AllowNonFiniteKeepsNaNInTheReadersButNotInTheDataset)
{
    ReadOptions options;
    options.allowNonFinite = true;
    const std::string nan = test::corpusPath("bad/xyz_nan.xyz", "sdh");
    const PointCloud cloud = readXyz(nan, options);
    ASSERT_EQ(cloud.size(), 1u);
    EXPECT_TRUE(std::isnan(cloud.x[0]));
    EXPECT_TRUE(std::isinf(readXyz(test::corpusPath("bad/xyz_inf.xyz", "sdh"), options).z[0]));
    EXPECT_TRUE(std::isnan(readPdb(test::corpusPath("bad/pdb_nan.pdb", "sdh"), options).z[0]));
    EXPECT_TRUE(std::isnan(readPly(test::corpusPath("bad/ply_nan.ply", "sdh"), options).z[1]));
    EXPECT_TRUE(std::isnan(readPointText(test::corpusPath("bad/txt_nan.txt", "sdh"), options).x[1]));
    // A pair distance with a NaN has no bucket: the dataset refuses it whatever the option.
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadPointCloud(nan, options); }), nan, "point 0",
        "x coordinate is NaN; pair distances need finite coordinates (even with --allow-nonfinite)"));
}

// --- frames and models ----------------------------------------------------------------------------------------

TEST(PointCloudFrameTest, XyzFramesAreChosenByTheFrameParameter)
{
    const std::string path = test::corpusPath("good/two_frames.xyz", "sdh");
    const PointCloud second = readXyz(path, frameOptions("2"));
    expectCoordinates(second, {{1.5, -4}, {2.5, -5}, {3.5, -6}}, path);
    EXPECT_EQ(second.notes,
        (std::vector<std::string> {"read frame 2 of 2 (count line 6); choose another with --param frame=N"}));
    expectCoordinates(readXyz(path, frameOptions("1")), {{1, 4}, {2, 5}, {3, 6}}, path);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(path, frameOptions("3")); }), path, "parameter frame",
        "frame 3 requested, but the file has 2 frames"));
    const std::string single = test::corpusPath("good/water.xyz", "sdh");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(single, frameOptions("2")); }), single, "parameter frame",
        "frame 2 requested, but the file has 1 frame"));
    for (const char* bad : {"0", "abc", "-1", "1.5", ""})
        EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(path, frameOptions(bad)); }), path, "parameter frame",
            "is not a frame number (a whole number from 1)"))
            << bad;
}

TEST(PointCloudFrameTest, PdbModelsAreChosenByTheFrameParameter)
{
    const std::string path = test::corpusPath("good/models.pdb", "sdh");
    const PointCloud second = readPdb(path, frameOptions("2"));
    expectCoordinates(second, {{-1, -2}, {-1, -2}, {-1, -2}}, path);
    EXPECT_EQ(second.notes,
        (std::vector<std::string> {
            "read model 2 (MODEL record at line 5), more models follow; choose another with --param frame=N"}));
    expectCoordinates(readPdb(path, frameOptions("3")), {{3}, {0}, {0}}, path);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPdb(path, frameOptions("4")); }), path, "parameter frame",
        "model 4 requested, but the file has 3 models"));
    const std::string plain = test::corpusPath("good/small.pdb", "sdh");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPdb(plain, frameOptions("2")); }), plain, "parameter frame",
        "model 2 requested, but the file has 1 model (no MODEL records)"));
    // The dataset carries the reader's note.
    const Dataset d = loadPointCloud(path, frameOptions("2"));
    EXPECT_EQ(d.meta().notes, second.notes);
}

class PointCloudOneFrameTest : public test::TempDirTest { };

TEST_F(PointCloudOneFrameTest, OnlyTheFrameWantedIsReadAndItsCountIsCheckedFirst)
{
    // The frames after the one wanted are never read: a short second frame is an error only when it is wanted.
    const std::string shortSecond = writeFile("short_second.xyz", "1\nc\nC 1 2 3\n2\nc\nC 1 2 3\n");
    const PointCloud first = readXyz(shortSecond);
    expectCoordinates(first, {{1}, {2}, {3}}, shortSecond);
    EXPECT_EQ(first.notes,
        (std::vector<std::string> {
            "read frame 1 (count line 1), more frames follow; choose another with --param frame=N"}));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(shortSecond, frameOptions("2")); }), shortSecond,
        "end of file", "found 1 atom, but the count line (line 4) declares 2"));
    // An extra row in the frame wanted is still an error.
    const std::string extra = writeFile("extra.xyz", "1\nc\nC 1 2 3\nC 4 5 6\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(extra); }), extra, "line 4",
        "more atom rows than the 1 the count line (line 1) declares"));
    // A trajectory whose later frames are garbage (and far larger than the budget) reads frame 1 under a small one.
    std::string trajectory = "2\nframe 1\nC 1 2 3\nO 4 5 6\n99999999999\nframe 2\n";
    trajectory += std::string(8 << 20, 'x');
    const std::string big = writeFile("big.xyz", trajectory);
    setMemoryLimit(2 << 20);
    struct Unlimit {
        ~Unlimit() { setMemoryLimit(0); }
    } unlimit;
    expectCoordinates(readXyz(big), {{1, 4}, {2, 5}, {3, 6}}, big);
    // A count line beyond the budget is refused before its rows are read, naming the count line.
    const std::string huge = writeFile("huge.xyz", "100000000\nframe 1\nC 1 2 3\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(huge); }), huge, "line 1",
        "frame 1 of 100000000 atoms needs 2.24 GiB of memory"));
    // PDB: left at the MODEL record after the model wanted (the bad record after it is never read).
    std::string pdb = "MODEL        1\n"
                      "ATOM      1  N   ALA A   1       1.000   2.000   3.000  1.00  0.00           N\n"
                      "ENDMDL\nMODEL        2\n";
    pdb += "ATOM      2  short record that is an error when read\n";
    const std::string models = writeFile("models.pdb", pdb);
    const PointCloud model = readPdb(models);
    expectCoordinates(model, {{1}, {2}, {3}}, models);
    EXPECT_EQ(model.notes,
        (std::vector<std::string> {"read model 1 (MODEL record at line 1), more models follow; "
                                   "choose another with --param frame=N"}));
}

TEST(PointCloudFrameTest, SingleFrameFormatsRefuseOtherFrames)
{
    const std::string ply = test::corpusPath("good/cube.ply", "sdh");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(ply, frameOptions("2")); }), ply, "parameter frame",
        "frame 2 requested, but a PLY file holds a single frame"));
    const std::string csv = test::corpusPath("good/points.csv", "sdh");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointText(csv, frameOptions("2")); }), csv, "parameter frame",
        "frame 2 requested, but a plain text file holds a single frame"));
    const std::string headerless = test::corpusPath("good/headerless.xyz", "sdh");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readXyz(headerless, frameOptions("2")); }), headerless,
        "parameter frame", "frame 2 requested, but a headerless x y z file holds a single frame"));
    EXPECT_EQ(readPly(ply, frameOptions("1")).size(), 4u);
}

// --- PLY written at test time ---------------------------------------------------------------------------------

/// One value of a PLY type in the given byte order (binary) or as text (ascii).
std::string plyValue(double v, const std::string& type, int format)
{
    if (format == 0) {
        std::ostringstream out;
        out.precision(17);
        out << v;
        return out.str() + " ";
    }
    unsigned char bytes[8];
    std::size_t size = 0;
    auto put = [&](auto value) {
        size = sizeof value;
        std::memcpy(bytes, &value, size);
    };
    if (type == "char" || type == "int8")
        put(static_cast<std::int8_t>(v));
    else if (type == "uchar" || type == "uint8")
        put(static_cast<std::uint8_t>(v));
    else if (type == "short" || type == "int16")
        put(static_cast<std::int16_t>(v));
    else if (type == "ushort" || type == "uint16")
        put(static_cast<std::uint16_t>(v));
    else if (type == "int" || type == "int32")
        put(static_cast<std::int32_t>(v));
    else if (type == "uint" || type == "uint32")
        put(static_cast<std::uint32_t>(v));
    else if (type == "float" || type == "float32")
        put(static_cast<float>(v));
    else
        put(v);
    const bool big = format == 2;
    if (big != (std::endian::native == std::endian::big))
        std::reverse(bytes, bytes + size);
    return std::string(reinterpret_cast<const char*>(bytes), size);
}

const char* const kFormats[] = {"ascii", "binary_little_endian", "binary_big_endian"};

/// A PLY file of 3 vertices whose x, y, z have `type`, among other properties (one a list), after a face element
/// with list properties and before an edge element. Returns the bytes; the header ends at `*headerSize`.
std::string plyWithFaces(const std::string& type, int format, const Coordinates& c, std::size_t* headerSize = nullptr)
{
    std::string header = std::string("ply\nformat ") + kFormats[format] + " 1.0\ncomment written by the test\n"
        + "element face 2\nproperty list uchar int vertex_indices\nproperty uchar flags\n" + "element vertex 3\n"
        + "property char a\nproperty " + type + " x\nproperty list ushort float extra\nproperty " + type
        + " y\nproperty int16 c\nproperty " + type + " z\n"
        + "element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n";
    if (headerSize)
        *headerSize = header.size();
    const bool ascii = format == 0;
    std::string body;
    auto endItem = [&] {
        if (ascii)
            body += "\n";
    };
    const std::vector<std::vector<int>> faces = {{0, 1, 2}, {0, 1, 2, 0}};
    for (const auto& face : faces) {
        body += plyValue(static_cast<double>(face.size()), "uchar", format);
        for (int i : face)
            body += plyValue(i, "int", format);
        body += plyValue(7, "uchar", format);
        endItem();
    }
    for (std::size_t i = 0; i < c.x.size(); ++i) {
        body += plyValue(-1, "char", format);
        body += plyValue(c.x[i], type, format);
        body += plyValue(static_cast<double>(i), "ushort", format); // i extra floats
        for (std::size_t k = 0; k < i; ++k)
            body += plyValue(0.25, "float", format);
        body += plyValue(c.y[i], type, format);
        body += plyValue(-300, "int16", format);
        body += plyValue(c.z[i], type, format);
        endItem();
    }
    body += plyValue(0, "int", format) + plyValue(1, "int", format);
    endItem();
    return header + body;
}

class PlyWrittenTest : public test::TempDirTest { };

TEST_F(PlyWrittenTest, EveryPropertyTypeInAsciiAndBothByteOrders)
{
    const std::vector<std::pair<std::string, std::string>> types = {{"char", "int8"}, {"uchar", "uint8"},
        {"short", "int16"}, {"ushort", "uint16"}, {"int", "int32"}, {"uint", "uint32"}, {"float", "float32"},
        {"double", "float64"}, {"int8", "int8"}, {"uint8", "uint8"}, {"int16", "int16"}, {"uint16", "uint16"},
        {"int32", "int32"}, {"uint32", "uint32"}, {"float32", "float32"}, {"float64", "float64"}};
    for (const auto& [type, canonical] : types) {
        const bool isFloat = canonical.rfind("float", 0) == 0;
        const bool isSigned = canonical[0] != 'u';
        const Coordinates c = isFloat ? Coordinates {{0.5, -2.25, 127}, {0.125, 3, -0.5}, {8, 9, 10}}
            : isSigned                ? Coordinates {{0, -1, 127}, {1, -128, 2}, {3, 4, -5}}
                                      : Coordinates {{0, 1, 255}, {1, 128, 2}, {3, 4, 5}};
        for (int format = 0; format < 3; ++format) {
            SCOPED_TRACE(type + " " + kFormats[format]);
            const std::string path
                = writeFile(type + "_" + std::to_string(format) + ".ply", plyWithFaces(type, format, c));
            const PointCloud cloud = readPly(path);
            expectCoordinates(cloud, c, path);
            EXPECT_EQ(cloud.storedType, canonical);
            EXPECT_EQ(cloud.notes, (std::vector<std::string> {"read the vertex element; skipped face (2), edge (1)"}));
        }
    }
}

TEST_F(PlyWrittenTest, MixedTypesCrlfHeaderAndGzip)
{
    const std::string bytes = "ply\r\nformat binary_big_endian 1.0\r\nelement vertex 2\r\nproperty double x\r\n"
                              "property float y\r\nproperty int z\r\nend_header\r\n"
        + plyValue(1.5, "double", 2) + plyValue(-2.5, "float", 2) + plyValue(-7, "int", 2)
        + plyValue(1e300, "double", 2) + plyValue(0.0625, "float", 2) + plyValue(123456, "int", 2);
    const std::string path = writeFile("mixed.ply", bytes);
    const PointCloud cloud = readPly(path);
    expectCoordinates(cloud, {{1.5, 1e300}, {-2.5, 0.0625}, {-7, 123456}}, path);
    EXPECT_EQ(cloud.storedType, "float64/float32/int32");
    EXPECT_TRUE(cloud.notes.empty());
    const std::string gz = tempPath("mixed.ply.gz");
    writeGzip(gz, bytes);
    expectCoordinates(loadPointCloud(gz).as<PointCloud>(), {{1.5, 1e300}, {-2.5, 0.0625}, {-7, 123456}}, gz);
}

TEST_F(PlyWrittenTest, TruncatedBinaryBodiesNameTheByte)
{
    const Coordinates c {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    std::size_t headerSize = 0;
    const std::string full = plyWithFaces("float", 1, c, &headerSize);
    // Inside the second face: its count (1 byte) and three of its four indices fit, the fourth does not.
    const std::size_t face1 = headerSize + 1 + 12 + 1;
    const std::string inFaces = writeFile("faces.ply", full.substr(0, face1 + 1 + 12 + 2));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(inFaces); }), inFaces, "byte " + std::to_string(face1 + 1),
        "the body ends inside face 1 of 2 (the file is truncated, or its header declares more than it holds)"));
    // Inside the last vertex: the y value is cut.
    const std::size_t vertices = face1 + 1 + 16 + 1;
    const std::size_t vertex2 = vertices + (1 + 4 + 2 + 4 + 2 + 4) + (1 + 4 + 2 + 4 + 4 + 2 + 4);
    const std::size_t y2 = vertex2 + 1 + 4 + 2 + 2 * 4;
    const std::string inVertices = writeFile("vertices.ply", full.substr(0, y2 + 3));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(inVertices); }), inVertices, "byte " + std::to_string(y2),
        "the body ends inside vertex 2 of 3"));
    // Fixed-size vertices that cannot fit are refused before anything is allocated.
    const std::string xyzFloats = "property float x\nproperty float y\nproperty float z\nend_header\n";
    const std::string fixedHeader = "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\n" + xyzFloats;
    const std::string fixed = writeFile("fixed.ply", fixedHeader + std::string(24, '\0'));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(fixed); }), fixed,
        "byte " + std::to_string(fixedHeader.size()),
        "the body holds 24 bytes after the elements before it, but 1000000000 vertices of 12 bytes need 12000000000"));
    // An element without properties and a huge count before the vertices (found by fuzzing: it was stepped through
    // one empty item at a time, for hours) holds no bytes.
    const std::string emptyHeader = "ply\nformat binary_little_endian 1.0\nelement nothing 18446744073709551615\n"
                                    "element vertex 1\n"
        + xyzFloats;
    const std::string empty = writeFile(
        "empty_element.ply", emptyHeader + plyValue(1, "float", 1) + plyValue(2, "float", 1) + plyValue(3, "float", 1));
    EXPECT_EQ(readPly(empty).size(), 1u);
    // A negative list length.
    const std::string negativeHeader = "ply\nformat binary_little_endian 1.0\nelement face 1\n"
                                       "property list char int vertex_indices\nelement vertex 1\n"
        + xyzFloats;
    const std::string negative
        = writeFile("negative.ply", negativeHeader + plyValue(-1, "char", 1) + std::string(12, '\0'));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(negative); }), negative,
        "byte " + std::to_string(negativeHeader.size()),
        "negative list length -1 in property vertex_indices of face 0"));
    // Binary NaN: the place names the vertex and its byte.
    const std::string nanHeader = "ply\nformat binary_little_endian 1.0\nelement vertex 2\n" + xyzFloats;
    const std::string nan = writeFile("nan.ply",
        nanHeader + plyValue(1, "float", 1) + plyValue(2, "float", 1) + plyValue(3, "float", 1)
            + plyValue(std::numeric_limits<double>::quiet_NaN(), "float", 1) + plyValue(2, "float", 1)
            + plyValue(3, "float", 1));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(nan); }), nan,
        "vertex 1 (byte " + std::to_string(nanHeader.size() + 12) + ")", "x coordinate is NaN"));
}

TEST_F(PlyWrittenTest, AsciiElementsBeforeTheVerticesAreSkippedByLine)
{
    const Coordinates c {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    const std::string path = writeFile("ascii.ply", plyWithFaces("double", 0, c));
    expectCoordinates(readPly(path), c, path);
    const std::string truncated = writeFile("cut.ply",
        "ply\nformat ascii 1.0\nelement face 3\nproperty list uchar int vertex_indices\nelement vertex 1\n"
        "property float x\nproperty float y\nproperty float z\nend_header\n3 0 1 2\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPly(truncated); }), truncated, "end of file",
        "the body ends after 1 of the 3 face items"));
}

// --- HDF5 -------------------------------------------------------------------------------------------------------

class PointHdf5Test : public test::TempDirTest { };

TEST_F(PointHdf5Test, ReadsNx3OfEveryNumericType)
{
    const std::string f32 = tempPath("f32.h5");
    {
        h5::File file = h5::File::create(f32);
        const std::vector<float> v {0.5f, 1.5f, -2.5f, 3.25f, 4.0f, -5.0f};
        file.writeFloats("/group/coords", v, {2, 3});
    }
    const PointCloud a = readPointHdf5(f32);
    expectCoordinates(a, {{0.5, 3.25}, {1.5, 4}, {-2.5, -5}}, f32);
    EXPECT_EQ(a.storedType, "float32");
    EXPECT_TRUE(a.notes.empty());

    const std::string i32 = tempPath("ints.hdf5");
    {
        h5::File file = h5::File::create(i32);
        const std::vector<std::int32_t> v {1, 2, 3, -4, -5, -6, 7, 8, 9};
        file.writeInt32s("/atoms", v, {3, 3});
    }
    const PointCloud b = readPointHdf5(i32);
    expectCoordinates(b, {{1, -4, 7}, {2, -5, 8}, {3, -6, 9}}, i32);
    EXPECT_EQ(b.storedType, "int32");

    // Recognised by its signature whatever the name.
    const std::string disguised = tempPath("points.dat");
    std::filesystem::copy_file(f32, disguised);
    const Dataset d = loadPointCloud(disguised);
    expectCoordinates(d.as<PointCloud>(), {{0.5, 3.25}, {1.5, 4}, {-2.5, -5}}, disguised);
    EXPECT_EQ(d.meta().name, "points.dat");
    EXPECT_EQ(property(d, "stored as"), "float32");
}

TEST_F(PointHdf5Test, FramesByNBy3ReadsTheChosenFrame)
{
    const std::string path = tempPath("traj.h5");
    std::vector<double> v;
    for (int f = 0; f < 3; ++f)
        for (int i = 0; i < 2; ++i)
            for (int a = 0; a < 3; ++a)
                v.push_back(100.0 * f + 10.0 * i + a);
    {
        h5::File file = h5::File::create(path);
        file.writeDoubles("/traj", v, {3, 2, 3});
    }
    const PointCloud first = readPointHdf5(path);
    expectCoordinates(first, {{0, 10}, {1, 11}, {2, 12}}, path);
    EXPECT_EQ(
        first.notes, (std::vector<std::string> {"read frame 1 of 3 of /traj; choose another with --param frame=N"}));
    const PointCloud third = readPointHdf5(path, frameOptions("3"));
    expectCoordinates(third, {{200, 210}, {201, 211}, {202, 212}}, path);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(path, frameOptions("4")); }), path, "parameter frame",
        "frame 4 requested, but dataset /traj (3 × 2 × 3) has 3 frames"));
    const std::string single = tempPath("single.h5");
    {
        h5::File file = h5::File::create(single);
        file.writeDoubles("/points", std::vector<double>(6, 1.0), {2, 3});
    }
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(single, frameOptions("2")); }), single,
        "parameter frame", "frame 2 requested, but dataset /points (2 × 3) has 1 frame"));
}

TEST_F(PointHdf5Test, OneFrameOfATrajectoryLargerThanTheBudgetIsReadAlone)
{
    // 64 frames of 20,000 points: 30 MiB in all, 0.46 MiB a frame. Under a 4 MiB budget only the frame asked for is
    // read (a hyperslab), so the trajectory loads; a frame larger than the budget is refused before the read.
    const std::string path = tempPath("long.h5");
    constexpr std::uint64_t kFrames = 64, kPoints = 20000;
    {
        std::vector<double> v(kFrames * kPoints * 3);
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<double>(i);
        h5::File file = h5::File::create(path);
        file.writeDoubles("/traj", v, {kFrames, kPoints, 3});
    }
    setMemoryLimit(4 << 20);
    struct Unlimit {
        ~Unlimit() { setMemoryLimit(0); }
    } unlimit;
    const PointCloud frame = readPointHdf5(path, frameOptions("40"));
    ASSERT_EQ(frame.size(), kPoints);
    const double first = 39.0 * kPoints * 3;
    EXPECT_EQ(frame.x[0], first);
    EXPECT_EQ(frame.z[kPoints - 1], first + kPoints * 3 - 1);
    setMemoryLimit(256 << 10);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(path, frameOptions("2")); }), path, "dataset /traj",
        "reading 20000 points of frame 2 of 64"));
}

TEST_F(PointHdf5Test, WrongRankShapeOrChoiceNamesTheDatasetAndItsExtents)
{
    auto make = [&](const std::string& name, auto write) {
        const std::string path = tempPath(name);
        h5::File file = h5::File::create(path);
        write(file);
        return path;
    };
    const std::string rank1 = make("rank1.h5", [](h5::File& f) { f.writeDoubles("/p", std::vector<double>(6), {6}); });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(rank1); }), rank1, "dataset /p",
        "has rank 1 (6); expected N × 3 points or frames × N × 3"));
    const std::string nBy2 = make("n2.h5", [](h5::File& f) { f.writeDoubles("/p", std::vector<double>(8), {4, 2}); });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(nBy2); }), nBy2, "dataset /p",
        "has extents 4 × 2; expected N × 3 points or frames × N × 3 (the last extent must be 3: x, y, z)"));
    const std::string rank4 = make("rank4.h5", [](h5::File& f) {
        f.writeDoubles("/p", std::vector<double>(12), {1, 2, 2, 3});
    });
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readPointHdf5(rank4); }), rank4, "dataset /p", "has rank 4 (1 × 2 × 2 × 3)"));
    const std::string transposed = make("3n.h5", [](h5::File& f) {
        f.writeDoubles("/p", std::vector<double>(12), {3, 4});
    });
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { loadPointCloud(transposed); }), transposed, "dataset /p", "has extents 3 × 4"));
    const std::string strings = make("strings.h5", [](h5::File& f) { f.writeStrings("/names", {"a", "b", "c"}); });
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readPointHdf5(strings); }), strings, "dataset /names", "has rank 1 (3)"));

    const std::string several = make("several.h5", [](h5::File& f) {
        f.writeDoubles("/a", std::vector<double>(6, 1.0), {2, 3});
        f.writeDoubles("/b", std::vector<double>(9, 2.0), {3, 3});
        f.writeDoubles("/other", std::vector<double>(4, 2.0), {4});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(several); }), several, "",
        "several N × 3 datasets in the file (/a, /b); choose one with --h5-path"));
    ReadOptions choose;
    choose.h5Path = "b";
    EXPECT_EQ(readPointHdf5(several, choose).size(), 3u);
    choose.h5Path = "/missing";
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(several, choose); }), several, "",
        "no dataset or group named /missing (--h5-path)"));
    choose.h5Path = "/other";
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readPointHdf5(several, choose); }), several, "dataset /other", "has rank 1 (4)"));

    const std::string none = make("none.h5", [](h5::File& f) {
        f.writeDoubles("/u", std::vector<double>(4), {4});
        f.writeDoubles("/v", std::vector<double>(5), {5});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(none); }), none, "",
        "no N × 3 or frames × N × 3 numeric dataset in the file (it has /u (float64 4), /v (float64 5))"));

    const std::string nan = make("nan.h5", [](h5::File& f) {
        f.writeDoubles("/points", std::vector<double> {1, 2, 3, 4, 5, std::numeric_limits<double>::infinity()}, {2, 3});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readPointHdf5(nan); }), nan, "dataset /points, element [1, 2]",
        "z coordinate is infinite (non-finite values are rejected; allow them with --allow-nonfinite)"));
    ReadOptions allow;
    allow.allowNonFinite = true;
    EXPECT_TRUE(std::isinf(readPointHdf5(nan, allow).z[1]));

    const std::string notHdf5 = writeFile("fake.h5", "1 2 3\n");
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { loadPointCloud(notHdf5); }), notHdf5, "", "not an HDF5 file (no HDF5 signature)"));
}

// --- loadPointCloud: dispatch by extension ------------------------------------------------------------------------

class LoadPointCloudTest : public test::TempDirTest { };

TEST_F(LoadPointCloudTest, ExtensionsChooseTheReader)
{
    const std::string pdb = readBytes(test::corpusPath("good/small.pdb", "sdh"));
    const Coordinates small {{-123.456, 1.5, 0}, {-789.012, 2.25, -0.5}, {1000, -3.125, 12}};
    for (const char* name : {"upper.PDB", "entry.ent", "entry.ENT.gz"}) {
        const std::string path = tempPath(name);
        if (std::string(name).ends_with(".gz"))
            writeGzip(path, pdb);
        else
            writeFile(name, pdb);
        const Dataset d = loadPointCloud(path);
        expectCoordinates(d.as<PointCloud>(), small, path);
        EXPECT_EQ(d.meta().name, name);
    }
    // Anything else is plain x y z text, gzip or not.
    const std::string dat = writeFile("cloud.dat", "1 2 3\n4 5 6\n");
    expectCoordinates(loadPointCloud(dat).as<PointCloud>(), {{1, 4}, {2, 5}, {3, 6}}, dat);
    const std::string gz = tempPath("cloud.csv.gz");
    writeGzip(gz, "x,y,z\n1,2,3\n");
    expectCoordinates(loadPointCloud(gz).as<PointCloud>(), {{1}, {2}, {3}}, gz);
    // A PDB read as plain text fails on its first record: the extension decides.
    const std::string misnamed = writeFile("small.txt", pdb);
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { loadPointCloud(misnamed); }), misnamed, "line 2", "fields, expected 3 (x y z)"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadPointCloud(tempPath("missing.xyz")); }), tempPath("missing.xyz"),
        "", "no such file"));
}

TEST_F(LoadPointCloudTest, LargeXyzAndTextReadExactly)
{
    // Many points, with %.17g so every double round-trips: the readers parse with from_chars, exactly.
    const CloudGenerator g {CloudShape::UniformBox, 20'000, 23'000.0, 8, 0.03, 5};
    const PointCloud cloud = generateCloud(g);
    std::string xyz = std::to_string(cloud.size()) + "\ngenerated\n";
    std::string text = "x y z\n";
    char line[128];
    for (std::size_t i = 0; i < cloud.size(); ++i) {
        std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", cloud.x[i], cloud.y[i], cloud.z[i]);
        xyz += std::string("Ar ") + line;
        text += line;
    }
    const Dataset fromXyz = loadPointCloud(writeFile("big.xyz", xyz));
    const Dataset fromText = loadPointCloud(writeFile("big.txt", text));
    const Dataset generated = makePointDataset(cloud, "generated", "generator");
    EXPECT_EQ(fromXyz.as<PointCloud>().x, cloud.x);
    EXPECT_EQ(fromXyz.as<PointCloud>().z, cloud.z);
    EXPECT_EQ(fromText.as<PointCloud>().y, cloud.y);
    EXPECT_EQ(fromXyz.meta().contentHash, generated.meta().contentHash);
    EXPECT_EQ(fromText.meta().contentHash, generated.meta().contentHash);
}

// --- the dataset ------------------------------------------------------------------------------------------------

TEST(PointDatasetTest, PropertiesHashAndLimits)
{
    PointCloud cloud;
    cloud.x = {0, 3};
    cloud.y = {0, 4};
    cloud.z = {0, 12};
    cloud.notes = {"a note"};
    const Dataset d = makePointDataset(cloud, "two", "src");
    EXPECT_EQ(d.meta().kind, "points");
    EXPECT_EQ(d.meta().name, "two");
    EXPECT_EQ(d.meta().source, "src");
    EXPECT_EQ(d.meta().size, 2u);
    EXPECT_EQ(d.meta().notes, cloud.notes);
    EXPECT_EQ(property(d, "points"), "2");
    EXPECT_EQ(property(d, "bounding box"), "x [0, 3], y [0, 4], z [0, 12]");
    EXPECT_EQ(property(d, "bounding-box diagonal"), "13");
    EXPECT_EQ(property(d, "stored as"), "float64");
    EXPECT_EQ(d.meta().contentHash.rfind("ks64:", 0), 0u);
    EXPECT_EQ(d.as<PointCloud>().x, cloud.x);

    PointCloud swapped = cloud;
    std::swap(swapped.x, swapped.y);
    EXPECT_NE(makePointDataset(swapped, "s", "src").meta().contentHash, d.meta().contentHash);
    PointCloud retyped = cloud;
    retyped.storedType = "text";
    EXPECT_EQ(makePointDataset(retyped, "r", "elsewhere").meta().contentHash, d.meta().contentHash);

    // One point is a dataset (zero pairs), none is not.
    PointCloud one;
    one.x = {1};
    one.y = {-2};
    one.z = {3};
    const Dataset single = makePointDataset(one, "one", "src");
    EXPECT_EQ(single.meta().size, 1u);
    EXPECT_EQ(property(single, "bounding-box diagonal"), "0");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { makePointDataset(PointCloud {}, "none", "src"); }), "src", "",
        "no points: the sdh histogram needs at least one point"));
    PointCloud ragged = cloud;
    ragged.z.pop_back();
    EXPECT_TRUE(errorSays(catchDatasetError([&] { makePointDataset(ragged, "r", "src"); }), "src", "",
        "the cloud's x, y and z hold different numbers of values (2, 2, 1)"));
    PointCloud infinite = cloud;
    infinite.y[1] = -std::numeric_limits<double>::infinity();
    EXPECT_TRUE(errorSays(catchDatasetError([&] { makePointDataset(infinite, "i", "src"); }), "src", "point 1",
        "y coordinate is infinite; pair distances need finite coordinates"));
}

// --- generators -------------------------------------------------------------------------------------------------

std::string hashOf(const PointCloud& cloud)
{
    return makePointDataset(cloud, "g", "generator").meta().contentHash;
}

TEST(CloudGeneratorTest, UniformPointsFillTheBox)
{
    CloudGenerator g;
    g.points = 50'000;
    g.box = 1000.0;
    const PointCloud cloud = generateCloud(g);
    ASSERT_EQ(cloud.size(), 50'000u);
    EXPECT_EQ(cloud.storedType, "float64");
    EXPECT_TRUE(cloud.notes.empty());
    for (const auto* axis : {&cloud.x, &cloud.y, &cloud.z}) {
        const auto [lo, hi] = std::minmax_element(axis->begin(), axis->end());
        EXPECT_GE(*lo, 0.0);
        EXPECT_LT(*hi, 1000.0);
        EXPECT_LT(*lo, 1.0); // 50,000 draws reach both ends
        EXPECT_GT(*hi, 999.0);
        double sum = 0;
        for (double v : *axis)
            sum += v;
        EXPECT_NEAR(sum / 50'000.0, 500.0, 5.0); // σ of the mean ≈ 1.3
    }
    EXPECT_NE(cloud.x, cloud.y);
    const Dataset d = makePointDataset(cloud, "g", "generator");
    EXPECT_EQ(d.meta().size, 50'000u);
}

TEST(CloudGeneratorTest, ClustersAreGaussianBlobsAroundCentresInTheBox)
{
    CloudGenerator g;
    g.shape = CloudShape::GaussianClusters;
    g.points = 20'000;
    g.box = 100.0;
    g.clusters = 5;
    g.spread = 0.0;
    // With no spread every point is its cluster's centre: at most 5 distinct points, all in the box.
    const PointCloud centres = generateCloud(g);
    std::set<std::tuple<double, double, double>> distinct;
    for (std::size_t i = 0; i < centres.size(); ++i) {
        distinct.emplace(centres.x[i], centres.y[i], centres.z[i]);
        EXPECT_GE(centres.x[i], 0.0);
        EXPECT_LT(centres.x[i], 100.0);
    }
    EXPECT_EQ(distinct.size(), 5u);
    // With spread 0.01 (σ = 1) every point lies within 6σ of one of those centres.
    g.spread = 0.01;
    const PointCloud blobs = generateCloud(g);
    ASSERT_EQ(blobs.size(), 20'000u);
    EXPECT_EQ(blobs.notes,
        (std::vector<std::string> {"5 Gaussian clusters of standard deviation 1; points may lie "
                                   "outside the box"}));
    double worst = 0;
    for (std::size_t i = 0; i < blobs.size(); ++i) {
        double nearest = std::numeric_limits<double>::infinity();
        for (const auto& [cx, cy, cz] : distinct)
            nearest = std::min(nearest,
                std::sqrt((blobs.x[i] - cx) * (blobs.x[i] - cx) + (blobs.y[i] - cy) * (blobs.y[i] - cy)
                    + (blobs.z[i] - cz) * (blobs.z[i] - cz)));
        worst = std::max(worst, nearest);
    }
    EXPECT_LT(worst, 6.0 * std::sqrt(3.0));
    EXPECT_GT(worst, 1.0);
}

TEST(CloudGeneratorTest, DeterministicFromTheSeed)
{
    for (auto shape : {CloudShape::UniformBox, CloudShape::GaussianClusters}) {
        CloudGenerator g;
        g.shape = shape;
        g.points = 5000;
        const PointCloud a = generateCloud(g);
        const PointCloud b = generateCloud(g);
        EXPECT_EQ(a.x, b.x);
        EXPECT_EQ(a.y, b.y);
        EXPECT_EQ(a.z, b.z);
        g.seed = 2;
        EXPECT_NE(hashOf(generateCloud(g)), hashOf(a));
        // The first points do not depend on how many are drawn.
        g.seed = 1;
        g.points = 100;
        const PointCloud prefix = generateCloud(g);
        EXPECT_TRUE(std::equal(prefix.x.begin(), prefix.x.end(), a.x.begin()));
        EXPECT_TRUE(std::equal(prefix.z.begin(), prefix.z.end(), a.z.begin()));
    }
}

TEST(CloudGeneratorTest, SameCloudForAnyThreadCount)
{
#if __has_include(<omp.h>)
    const int threads = omp_get_max_threads();
    for (auto shape : {CloudShape::UniformBox, CloudShape::GaussianClusters}) {
        CloudGenerator g;
        g.shape = shape;
        g.points = 100'003;
        omp_set_num_threads(1);
        const PointCloud one = generateCloud(g);
        omp_set_num_threads(3);
        const PointCloud three = generateCloud(g);
        omp_set_num_threads(threads);
        EXPECT_EQ(one.x, three.x);
        EXPECT_EQ(one.y, three.y);
        EXPECT_EQ(one.z, three.z);
    }
#else
    GTEST_SKIP() << "no <omp.h> to set the thread count with";
#endif
}

TEST(CloudGeneratorTest, BadParametersNameTheParameter)
{
    auto failsOn = [](CloudGenerator g, const char* place, const char* problem) {
        return errorSays(catchDatasetError([&] { generateCloud(g); }), "generator", place, problem);
    };
    CloudGenerator g;
    g.points = 0;
    EXPECT_TRUE(failsOn(g, "points", "must be at least 1"));
    g = {};
    g.box = 0.0;
    EXPECT_TRUE(failsOn(g, "box", "must be positive and finite, got 0"));
    g.box = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(failsOn(g, "box", "must be positive and finite"));
    g = {};
    g.shape = CloudShape::GaussianClusters;
    g.clusters = 0;
    EXPECT_TRUE(failsOn(g, "clusters", "must be at least 1"));
    g.clusters = 3;
    g.spread = -0.5;
    EXPECT_TRUE(failsOn(g, "spread", "must be non-negative and finite, got -0.5"));
    // Clusters and spread mean nothing to the uniform box.
    g.shape = CloudShape::UniformBox;
    EXPECT_EQ(generateCloud(g).size(), g.points);
    g.points = std::uint64_t {1} << 62;
    EXPECT_TRUE(failsOn(g, "4611686018427387904 points", "generating the point cloud"));
}

// --- real files: PyMOL's test structures (Debian pymol-data) ------------------------------------------------------

/// ATOM/HETATM records of the first model and their coordinates, parsed apart from the reader: by std::stod on the
/// fixed columns.
Coordinates firstModelIndependently(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    Coordinates c;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("ENDMDL", 0) == 0)
            break;
        if (line.rfind("ATOM  ", 0) != 0 && line.rfind("HETATM", 0) != 0)
            continue;
        c.x.push_back(std::stod(line.substr(30, 8)));
        c.y.push_back(std::stod(line.substr(38, 8)));
        c.z.push_back(std::stod(line.substr(46, 8)));
    }
    return c;
}

class PymolPdbTest : public test::TempDirTest { };

TEST_F(PymolPdbTest, PymolTestStructuresFromDebian)
{
    const test::DebianPackage package = test::fetchDebianPackage("pymol-data", m_dir.string());
    if (package.root.empty())
        GTEST_SKIP() << package.skipReason;
    const std::filesystem::path dat = package.root + "/usr/share/pymol/test/dat";
    if (!std::filesystem::is_directory(dat))
        GTEST_SKIP() << package.deb << " has no " << dat;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dat))
        if (entry.is_regular_file() && entry.path().extension() == ".pdb")
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    ASSERT_GE(files.size(), 5u) << "pymol-data was expected to ship a dozen test PDB files in " << dat;

    std::size_t read = 0;
    for (const std::string& path : files) {
        SCOPED_TRACE(path);
        const Coordinates expected = firstModelIndependently(path);
        if (expected.x.empty())
            continue;
        const Dataset d = loadPointCloud(path);
        const auto& cloud = d.as<PointCloud>();
        EXPECT_EQ(cloud.size(), expected.x.size());
        EXPECT_EQ(d.meta().size, expected.x.size());
        expectCoordinates(cloud, expected, path);
        ++read;
    }
    EXPECT_GE(read, 5u);

    // Known by hand: tiny.pdb's first record is "ATOM      1  C   THR C   7      22.336  25.300  48.803 ...", and
    // water.pdb's HETATM records end at column 54.
    const std::string tiny = (dat / "tiny.pdb").string();
    if (std::filesystem::is_regular_file(tiny)) {
        const PointCloud cloud = readPdb(tiny);
        ASSERT_FALSE(cloud.x.empty());
        EXPECT_EQ(cloud.x[0], 22.336);
        EXPECT_EQ(cloud.y[0], 25.3);
        EXPECT_EQ(cloud.z[0], 48.803);
    }
    const std::string water = (dat / "water.pdb").string();
    if (std::filesystem::is_regular_file(water)) {
        EXPECT_EQ(readPdb(water).size(), 648u);
    }
}

} // namespace
} // namespace ks::data
