// The reader worker's wire format: every payload kind crosses unchanged (every field, the meta and its content
// hash), through a memfd as the worker hands it over, and bytes that are not a whole dataset are refused before
// anything is allocated from them.
#include "data/dataset_wire.h"
#include "data/expression_table.h"
#include "data/image_set.h"
#include "data/point_cloud.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks::data {
namespace {

/// A memfd holding `dataset` at `offset` (after a page, as the worker writes it), and its length.
struct Written {
    int fd = -1;
    std::uint64_t bytes = 0;
    ~Written()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

void writeAt(Written& w, const Dataset& dataset, std::uint64_t offset)
{
    w.fd = ::memfd_create("ks-wire-test", MFD_CLOEXEC);
    ASSERT_GE(w.fd, 0);
    ASSERT_EQ(::lseek(w.fd, static_cast<off_t>(offset), SEEK_SET), static_cast<off_t>(offset));
    wire::writeDataset(w.fd, dataset);
    w.bytes = static_cast<std::uint64_t>(::lseek(w.fd, 0, SEEK_CUR)) - offset;
}

Dataset roundTrip(const Dataset& dataset, bool release = false)
{
    Written w;
    writeAt(w, dataset, 4096);
    return wire::readDataset(w.fd, 4096, w.bytes, release);
}

void expectSameMeta(const DatasetMeta& a, const DatasetMeta& b)
{
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.contentHash, b.contentHash);
    EXPECT_FALSE(b.contentHash.empty());
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.properties, b.properties);
    EXPECT_EQ(a.notes, b.notes);
}

TEST(DatasetWire, Series2DCrossesUnchanged)
{
    Series2D s = generateSeries({.n = 1000, .seed = 4});
    s.xName = "time (s)";
    s.yName = "signal, \xce\xbcV";
    s.storedType = "float32";
    const Dataset original = makeSeriesDataset(s, "series.csv", "/data/series.csv");
    const Dataset copy = roundTrip(original);
    expectSameMeta(original.meta(), copy.meta());
    const auto& a = original.as<Series2D>();
    const auto& b = copy.as<Series2D>();
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.xName, b.xName);
    EXPECT_EQ(a.yName, b.yName);
    EXPECT_EQ(a.storedType, b.storedType);
}

TEST(DatasetWire, SparseSystemCrossesWithItsVectorAndNames)
{
    SparseSystem system;
    system.matrix = generateSparse({.rows = 300, .cols = 200, .density = 0.05, .seed = 2});
    for (std::uint64_t r = 0; r < system.matrix.rows; ++r)
        system.matrix.rowNames.push_back("gene-" + std::to_string(r));
    for (std::uint64_t c = 0; c < system.matrix.cols; ++c)
        system.matrix.colNames.push_back(c % 7 == 0 ? std::string() : "cell\t" + std::to_string(c));
    system.matrix.storedType = "integer";
    system.matrix.notes = {"symmetric expanded", "duplicates summed"};
    system.x = generateVector(system.matrix.cols, 9);
    system.vectorSource = "x.txt";
    const Dataset original = makeSparseDataset(system, "m.mtx", "/data/m.mtx");
    const Dataset copy = roundTrip(original);
    expectSameMeta(original.meta(), copy.meta());
    const auto& a = original.as<SparseSystem>();
    const auto& b = copy.as<SparseSystem>();
    EXPECT_EQ(a.matrix.rows, b.matrix.rows);
    EXPECT_EQ(a.matrix.cols, b.matrix.cols);
    EXPECT_EQ(a.matrix.rowPtr, b.matrix.rowPtr);
    EXPECT_EQ(a.matrix.colIdx, b.matrix.colIdx);
    EXPECT_EQ(a.matrix.values, b.matrix.values);
    EXPECT_EQ(a.matrix.rowNames, b.matrix.rowNames);
    EXPECT_EQ(a.matrix.colNames, b.matrix.colNames);
    EXPECT_EQ(a.matrix.storedType, b.matrix.storedType);
    EXPECT_EQ(a.matrix.notes, b.matrix.notes);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.vectorSource, b.vectorSource);
}

TEST(DatasetWire, PointCloudCrossesUnchanged)
{
    PointCloud cloud = generateCloud({.points = 5000, .seed = 3});
    cloud.storedType = "text";
    cloud.notes = {"model 1 of 3 read"};
    const Dataset original = makePointDataset(cloud, "1abc.pdb", "/data/1abc.pdb");
    const Dataset copy = roundTrip(original);
    expectSameMeta(original.meta(), copy.meta());
    const auto& a = original.as<PointCloud>();
    const auto& b = copy.as<PointCloud>();
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.z, b.z);
    EXPECT_EQ(a.storedType, b.storedType);
    EXPECT_EQ(a.notes, b.notes);
}

TEST(DatasetWire, ExpressionTableCrossesUnchanged)
{
    ExpressionTable table = generateExpression({.samples = 20, .features = 50, .plantedPairs = 3, .seed = 5});
    table.featureNames[3] = "GENE, \"three\"";
    table.notes = {"zeros replaced by 0.5"};
    table.storedType = "float32";
    const Dataset original = makeExpressionDataset(table, "counts.tsv", "/data/counts.tsv");
    const Dataset copy = roundTrip(original);
    expectSameMeta(original.meta(), copy.meta());
    const auto& a = original.as<ExpressionTable>();
    const auto& b = copy.as<ExpressionTable>();
    EXPECT_EQ(a.samples, b.samples);
    EXPECT_EQ(a.features, b.features);
    EXPECT_EQ(a.values, b.values);
    EXPECT_EQ(a.sampleNames, b.sampleNames);
    EXPECT_EQ(a.featureNames, b.featureNames);
    EXPECT_EQ(a.storedType, b.storedType);
    EXPECT_EQ(a.notes, b.notes);
}

void expectSameImages(const ImageSet& a, const ImageSet& b)
{
    EXPECT_EQ(a.channels, b.channels);
    EXPECT_EQ(a.height, b.height);
    EXPECT_EQ(a.width, b.width);
    EXPECT_EQ(a.classes, b.classes);
    EXPECT_EQ(a.pixels, b.pixels);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.classNames, b.classNames);
    EXPECT_EQ(a.channelMean, b.channelMean);
    EXPECT_EQ(a.channelStd, b.channelStd);
    EXPECT_EQ(a.rawMin, b.rawMin);
    EXPECT_EQ(a.rawMax, b.rawMax);
    EXPECT_EQ(a.storedType, b.storedType);
    EXPECT_EQ(a.sourceFiles, b.sourceFiles);
    EXPECT_EQ(a.notes, b.notes);
    ASSERT_EQ(a.heldOut == nullptr, b.heldOut == nullptr);
}

TEST(DatasetWire, ImageSetCrossesWithItsHeldOutSplit)
{
    ImageSet set = generateImages({.count = 200, .heldOut = 40, .channels = 3, .height = 8, .width = 8, .seed = 6});
    set.classNames = {"plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
    ASSERT_NE(set.heldOut, nullptr) << "the generator makes the held-out split";
    const Dataset original = makeImageDataset(set, "cifar", "/data/cifar");
    const Dataset copy = roundTrip(original);
    expectSameMeta(original.meta(), copy.meta());
    const auto& a = original.as<ImageSet>();
    const auto& b = copy.as<ImageSet>();
    expectSameImages(a, b);
    expectSameImages(*a.heldOut, *b.heldOut);
}

TEST(DatasetWire, ImageSetWithoutHeldOutSplit)
{
    const ImageSet set = generateImages({.count = 30, .heldOut = 0, .seed = 7});
    const Dataset original = makeImageDataset(set, "idx", "/data/idx");
    const Dataset copy = roundTrip(original);
    expectSameMeta(original.meta(), copy.meta());
    expectSameImages(original.as<ImageSet>(), copy.as<ImageSet>());
}

TEST(DatasetWire, ALargePayloadIsReleasedAsItIsRead)
{
    // 3 × 8 MiB of doubles: read straight into the vectors, and the memfd's pages given back behind the reader.
    const Dataset original = makePointDataset(generateCloud({.points = 1 << 20, .seed = 8}), "big", "generator");
    Written w;
    writeAt(w, original, 4096);
    const Dataset copy = wire::readDataset(w.fd, 4096, w.bytes, true);
    expectSameMeta(original.meta(), copy.meta());
    EXPECT_EQ(original.as<PointCloud>().z, copy.as<PointCloud>().z);
    struct stat info { };
    ASSERT_EQ(::fstat(w.fd, &info), 0);
    EXPECT_LT(static_cast<std::uint64_t>(info.st_blocks) * 512, w.bytes / 2) << "the read part was punched out";
}

TEST(DatasetWire, BytesThatAreNotAWholeDatasetAreRefused)
{
    const Dataset original = makeSeriesDataset(generateSeries({.n = 100}), "s", "generator");
    Written w;
    writeAt(w, original, 0);
    EXPECT_THROW(wire::readDataset(w.fd, 0, w.bytes - 1, false), std::runtime_error);
    EXPECT_THROW(wire::readDataset(w.fd, 1, w.bytes - 1, false), std::runtime_error) << "no signature";
    // A count patched to claim more than the bytes hold is refused before the vector is made.
    std::vector<char> bytes(w.bytes);
    ASSERT_EQ(::pread(w.fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    const std::uint64_t n = 100;
    // The meta's size comes first; x's count is the next 100.
    const auto find100 = [&](std::vector<char>::iterator from) {
        return std::search(
            from, bytes.end(), reinterpret_cast<const char*>(&n), reinterpret_cast<const char*>(&n) + sizeof n);
    };
    const auto size = find100(bytes.begin());
    ASSERT_NE(size, bytes.end());
    const auto at = find100(size + 1);
    ASSERT_NE(at, bytes.end());
    const std::uint64_t huge = std::uint64_t {1} << 60;
    std::memcpy(&*at, &huge, sizeof huge);
    ASSERT_EQ(::pwrite(w.fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    try {
        wire::readDataset(w.fd, 0, w.bytes, false);
        FAIL() << "a patched count was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("runs past the end"), std::string::npos) << e.what();
    }
}

TEST(DatasetWire, AnEmptyDatasetHasNoPayloadToWrite)
{
    Written w;
    w.fd = ::memfd_create("ks-wire-test", MFD_CLOEXEC);
    EXPECT_THROW(wire::writeDataset(w.fd, Dataset {}), std::logic_error);
}

} // namespace
} // namespace ks::data
