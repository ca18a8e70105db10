// The cnn workload's image sets: IDX pairs (plain and gzip, found from either file or a folder and a split) and
// CIFAR-10 batches (a file, a folder in batch order) written at test time, a malformed corpus generated at test time
// (each case checked for its file, place and problem), the dispatcher, the dataset's metadata and hash, the
// generator's determinism, balance and learnability, and the real Fashion-MNIST files of Debian's
// dataset-fashion-mnist.

#include "data/dataset_error.h"
#include "data/image_set.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <ostream>
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

std::string bigEndian(std::uint32_t value)
{
    std::string bytes(4, '\0');
    for (int k = 0; k < 4; ++k)
        bytes[k] = static_cast<char>((value >> (8 * (3 - k))) & 0xffu);
    return bytes;
}

/// An IDX images file: magic 0x00000803, count, rows, cols, then `pixels` as given (any length, to make bad ones).
std::string idxImages(std::uint32_t count, std::uint32_t rows, std::uint32_t cols, const std::string& pixels,
    std::uint32_t magic = 0x00000803)
{
    return bigEndian(magic) + bigEndian(count) + bigEndian(rows) + bigEndian(cols) + pixels;
}

/// An IDX labels file: magic 0x00000801, count (the labels' own unless given), then the labels.
std::string idxLabels(const std::vector<std::uint8_t>& labels, std::int64_t count = -1)
{
    std::string bytes = bigEndian(0x00000801)
        + bigEndian(count < 0 ? static_cast<std::uint32_t>(labels.size()) : static_cast<std::uint32_t>(count));
    for (const std::uint8_t label : labels)
        bytes += static_cast<char>(label);
    return bytes;
}

/// `count` images of rows × cols whose pixel k of image i is (7·i + 3·k) mod 256.
std::string patternPixels(std::uint32_t count, std::uint32_t rows, std::uint32_t cols)
{
    std::string bytes;
    for (std::uint32_t i = 0; i < count; ++i)
        for (std::uint32_t k = 0; k < rows * cols; ++k)
            bytes += static_cast<char>((7 * i + 3 * k) % 256);
    return bytes;
}

/// A CIFAR record: the label byte, then R, G and B planes of 32 × 32 filled with r, g and b.
std::string cifarRecord(std::uint8_t label, std::uint8_t r, std::uint8_t g, std::uint8_t b)
{
    return std::string(1, static_cast<char>(label)) + std::string(1024, static_cast<char>(r))
        + std::string(1024, static_cast<char>(g)) + std::string(1024, static_cast<char>(b));
}

std::string gzipped(const std::string& bytes)
{
    uLongf size = compressBound(static_cast<uLong>(bytes.size())) + 32;
    std::string out(size, '\0');
    z_stream stream {};
    // windowBits 15 + 16: a gzip wrapper, as .gz files have.
    EXPECT_EQ(deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream.avail_in = static_cast<uInt>(bytes.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

/// The mean and population std of raw byte values, as normaliseImages computes them.
std::pair<double, double> meanStd(const std::string& bytes)
{
    double sum = 0;
    for (const char c : bytes)
        sum += static_cast<unsigned char>(c);
    const double mean = sum / static_cast<double>(bytes.size());
    double squares = 0;
    for (const char c : bytes)
        squares += (static_cast<unsigned char>(c) - mean) * (static_cast<unsigned char>(c) - mean);
    return {mean, std::sqrt(squares / static_cast<double>(bytes.size()))};
}

class ImageSetTest : public test::TempDirTest {
protected:
    ReadOptions split(const std::string& which) const
    {
        ReadOptions options;
        options.params["split"] = which;
        return options;
    }
};

// ---- IDX -----------------------------------------------------------------------------------------------------------

TEST_F(ImageSetTest, IdxPairReadsShapeLabelsAndNormalisedPixels)
{
    const std::string pixels = patternPixels(5, 3, 4);
    const std::vector<std::uint8_t> labels = {3, 0, 9, 1, 3};
    const std::string images = writeFile("train-images-idx3-ubyte", idxImages(5, 3, 4, pixels));
    const std::string labelFile = writeFile("train-labels-idx1-ubyte", idxLabels(labels));

    const ImageSet set = readIdx(findIdxPair(images));
    EXPECT_EQ(set.channels, 1u);
    EXPECT_EQ(set.height, 3u);
    EXPECT_EQ(set.width, 4u);
    EXPECT_EQ(set.classes, 10u);
    EXPECT_EQ(set.labels, labels);
    ASSERT_EQ(set.pixels.size(), 60u);
    const auto [mean, sd] = meanStd(pixels);
    ASSERT_EQ(set.channelMean.size(), 1u);
    EXPECT_NEAR(set.channelMean[0], mean, 1e-9);
    EXPECT_NEAR(set.channelStd[0], sd, 1e-9);
    for (std::size_t k = 0; k < pixels.size(); ++k)
        EXPECT_FLOAT_EQ(set.pixels[k], static_cast<float>((static_cast<unsigned char>(pixels[k]) - mean) / sd)) << k;
    const auto [lo, hi] = std::minmax_element(pixels.begin(), pixels.end(),
        [](char a, char b) { return static_cast<unsigned char>(a) < static_cast<unsigned char>(b); });
    EXPECT_EQ(set.rawMin, static_cast<unsigned char>(*lo));
    EXPECT_EQ(set.rawMax, static_cast<unsigned char>(*hi));
    EXPECT_EQ(set.sourceFiles, (std::vector<std::string> {"train-images-idx3-ubyte", "train-labels-idx1-ubyte"}));
    EXPECT_TRUE(set.classNames.empty());

    // The labels file finds its images, and the folder its train pair: the same set.
    const IdxPair fromLabels = findIdxPair(labelFile);
    EXPECT_EQ(fromLabels.images, images);
    EXPECT_EQ(fromLabels.labels, labelFile);
    const IdxPair fromFolder = findIdxPair(m_dir.string());
    EXPECT_EQ(fromFolder.images, images);
    EXPECT_EQ(fromFolder.labels, labelFile);
}

TEST_F(ImageSetTest, GzipPairsReadLikePlainOnesAndTheFolderPicksTheSplit)
{
    const std::string pixels = patternPixels(4, 2, 2);
    const std::vector<std::uint8_t> labels = {1, 2, 3, 4};
    writeFile("train-images-idx3-ubyte", idxImages(4, 2, 2, pixels));
    writeFile("train-labels-idx1-ubyte", idxLabels(labels));
    const std::string testPixels = patternPixels(2, 2, 2).substr(0, 4) + std::string("\x10\x20\x30\x40", 4);
    const std::string testImages = writeFile("t10k-images-idx3-ubyte.gz", gzipped(idxImages(2, 2, 2, testPixels)));
    const std::string testLabels = writeFile("t10k-labels-idx1-ubyte.gz", gzipped(idxLabels({7, 8})));
    // A plain pair read from a gzip copy of itself hashes the same: the hash is of the content, not the file.
    const std::string sub = (m_dir / "gz").string();
    std::filesystem::create_directories(sub);
    writeFile("gz/train-images-idx3-ubyte.gz", gzipped(idxImages(4, 2, 2, pixels)));
    writeFile("gz/train-labels-idx1-ubyte.gz", gzipped(idxLabels(labels)));
    writeFile("gz/t10k-images-idx3-ubyte", idxImages(2, 2, 2, testPixels));
    writeFile("gz/t10k-labels-idx1-ubyte", idxLabels({7, 8}));

    const Dataset plain = loadImageSet(m_dir.string());
    const Dataset gz = loadImageSet(sub);
    EXPECT_EQ(plain.meta().contentHash, gz.meta().contentHash);
    EXPECT_EQ(plain.as<ImageSet>().labels, labels);
    EXPECT_EQ(plain.meta().name, m_dir.filename().string() + " (train)");

    const Dataset test = loadImageSet(m_dir.string(), split("test"));
    EXPECT_EQ(test.meta().size, 2u);
    EXPECT_EQ(test.as<ImageSet>().labels, (std::vector<std::uint8_t> {7, 8}));
    EXPECT_EQ(test.meta().name, m_dir.filename().string() + " (test)");
    const IdxPair pair = findIdxPair(m_dir.string(), split("test"));
    EXPECT_EQ(pair.images, testImages);
    EXPECT_EQ(pair.labels, testLabels);
    // A gzipped images file given directly pairs with its gzipped labels.
    EXPECT_EQ(findIdxPair(testImages).labels, testLabels);
    EXPECT_EQ(loadImageSet(testLabels).meta().contentHash, test.meta().contentHash);
}

TEST_F(ImageSetTest, FashionPathsKeepFashionMnistClassNames)
{
    std::filesystem::create_directories(m_dir / "fashion-mnist");
    writeFile("fashion-mnist/train-images-idx3-ubyte", idxImages(2, 2, 2, patternPixels(2, 2, 2)));
    writeFile("fashion-mnist/train-labels-idx1-ubyte", idxLabels({0, 9}));
    const ImageSet set = readIdx(findIdxPair((m_dir / "fashion-mnist").string()));
    ASSERT_EQ(set.classNames.size(), 10u);
    EXPECT_EQ(set.classNames[0], "T-shirt/top");
    EXPECT_EQ(set.classNames[9], "Ankle boot");
}

// ---- The held-out split beside the train split ---------------------------------------------------------------------

std::map<std::string, std::string> properties(const Dataset& d)
{
    return {d.meta().properties.begin(), d.meta().properties.end()};
}

bool hasNote(const Dataset& d, const std::string& part)
{
    return std::any_of(d.meta().notes.begin(), d.meta().notes.end(),
        [&](const std::string& note) { return note.find(part) != std::string::npos; });
}

TEST_F(ImageSetTest, AnIdxTrainSplitTakesItsTestPairAsHeldOutOnTheTrainScale)
{
    const std::string trainPixels = patternPixels(5, 3, 4);
    const std::string testPixels = std::string(12, '\x40') + std::string(12, '\xc0');
    const std::string trainImages = writeFile("train-images-idx3-ubyte", idxImages(5, 3, 4, trainPixels));
    writeFile("train-labels-idx1-ubyte", idxLabels({0, 1, 2, 3, 4}));
    writeFile("t10k-images-idx3-ubyte.gz", gzipped(idxImages(2, 3, 4, testPixels)));
    writeFile("t10k-labels-idx1-ubyte.gz", gzipped(idxLabels({9, 8})));

    // The folder, the images file and the labels file of the train split all find it.
    for (const std::string& path : {m_dir.string(), trainImages, tempPath("train-labels-idx1-ubyte")}) {
        const Dataset d = loadImageSet(path);
        const ImageSet& set = d.as<ImageSet>();
        ASSERT_NE(set.heldOut, nullptr) << path;
        const ImageSet& held = *set.heldOut;
        EXPECT_EQ(held.labels, (std::vector<std::uint8_t> {9, 8}));
        EXPECT_EQ(held.height, 3u);
        EXPECT_EQ(held.width, 4u);
        EXPECT_EQ(held.heldOut, nullptr);
        // Raw 0x40 and 0xc0 on the training split's mean and std, not on their own (which would give −1 and +1).
        const auto [mean, sd] = meanStd(trainPixels);
        EXPECT_EQ(held.channelMean, set.channelMean);
        EXPECT_EQ(held.channelStd, set.channelStd);
        EXPECT_NEAR(held.pixels[0], (64 - mean) / sd, 1e-5);
        EXPECT_NEAR(held.pixels[23], (192 - mean) / sd, 1e-5);
        EXPECT_EQ(
            held.sourceFiles, (std::vector<std::string> {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}));
        EXPECT_EQ(properties(d)["held-out"], "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz: 2 images");
        EXPECT_TRUE(hasNote(d, "held-out: t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz, 2 images")) << path;
        EXPECT_EQ(d.meta().size, 5u); // the held-out images are not training images
    }

    // The test split has none: it is itself the held-out data.
    const Dataset test = loadImageSet(m_dir.string(), split("test"));
    EXPECT_EQ(test.as<ImageSet>().heldOut, nullptr);
    EXPECT_EQ(properties(test)["held-out"], "none");
    EXPECT_TRUE(hasNote(test, "the test split itself was read"));
    EXPECT_EQ(loadImageSet(tempPath("t10k-images-idx3-ubyte.gz")).as<ImageSet>().heldOut, nullptr);
    EXPECT_TRUE(hasNote(loadImageSet(tempPath("t10k-images-idx3-ubyte.gz")), "not a train-* file"));
}

TEST_F(ImageSetTest, TestPrefixedPairsCountAndWithoutOneTheNotesSaySo)
{
    writeFile("train-images-idx3-ubyte", idxImages(2, 2, 2, patternPixels(2, 2, 2)));
    writeFile("train-labels-idx1-ubyte", idxLabels({1, 2}));
    const Dataset alone = loadImageSet(m_dir.string());
    EXPECT_EQ(alone.as<ImageSet>().heldOut, nullptr);
    EXPECT_EQ(properties(alone)["held-out"], "none");
    EXPECT_TRUE(hasNote(alone, "no held-out split beside the file"));

    writeFile("test-images-idx3-ubyte", idxImages(3, 2, 2, patternPixels(3, 2, 2)));
    writeFile("test-labels-idx1-ubyte", idxLabels({3, 4, 5}));
    const Dataset withTest = loadImageSet(tempPath("train-images-idx3-ubyte"));
    ASSERT_NE(withTest.as<ImageSet>().heldOut, nullptr);
    EXPECT_EQ(withTest.as<ImageSet>().heldOut->labels, (std::vector<std::uint8_t> {3, 4, 5}));
    // The held-out split is part of the content: another one, another hash.
    EXPECT_NE(withTest.meta().contentHash, alone.meta().contentHash);
    writeFile("test-labels-idx1-ubyte", idxLabels({3, 4, 6}));
    EXPECT_NE(loadImageSet(m_dir.string()).meta().contentHash, withTest.meta().contentHash);
}

TEST_F(ImageSetTest, ACifarTrainBatchTakesTestBatchAsHeldOut)
{
    writeFile("data_batch_1.bin", cifarRecord(6, 10, 20, 30) + cifarRecord(9, 30, 20, 10));
    writeFile("test_batch.bin", cifarRecord(2, 20, 20, 40));
    for (const std::string& path : {m_dir.string(), tempPath("data_batch_1.bin")}) {
        const Dataset d = loadImageSet(path);
        const ImageSet& set = d.as<ImageSet>();
        ASSERT_NE(set.heldOut, nullptr) << path;
        EXPECT_EQ(set.heldOut->labels, (std::vector<std::uint8_t> {2}));
        EXPECT_EQ(set.heldOut->sourceFiles, (std::vector<std::string> {"test_batch.bin"}));
        // R: (20 − 20) / 10; G: (20 − 20) / 1; B: (40 − 20) / 10, on the train batch's statistics.
        EXPECT_FLOAT_EQ(set.heldOut->pixels[0], 0.0f);
        EXPECT_FLOAT_EQ(set.heldOut->pixels[1024], 0.0f);
        EXPECT_FLOAT_EQ(set.heldOut->pixels[2048], 2.0f);
        EXPECT_EQ(properties(d)["held-out"], "test_batch.bin: 1 image");
    }
    EXPECT_EQ(loadImageSet(tempPath("test_batch.bin")).as<ImageSet>().heldOut, nullptr);
    EXPECT_EQ(loadImageSet(m_dir.string(), split("test")).as<ImageSet>().heldOut, nullptr);
    // A batch recognised by its size alone is not known to be a train split.
    std::filesystem::create_directories(m_dir / "renamed");
    writeFile("renamed/batch.dat", cifarRecord(1, 1, 1, 1));
    writeFile("renamed/test_batch.bin", cifarRecord(1, 1, 1, 1));
    EXPECT_EQ(loadImageSet(tempPath("renamed/batch.dat")).as<ImageSet>().heldOut, nullptr);
}

TEST_F(ImageSetTest, AMalformedHeldOutSplitIsAnErrorNamingItsFile)
{
    writeFile("train-images-idx3-ubyte", idxImages(5, 3, 4, patternPixels(5, 3, 4)));
    writeFile("train-labels-idx1-ubyte", idxLabels({0, 1, 2, 3, 4}));
    const std::string testImages = tempPath("t10k-images-idx3-ubyte");
    // Truncated pixels.
    writeFile("t10k-images-idx3-ubyte", idxImages(2, 3, 4, patternPixels(2, 3, 4)).substr(0, 30));
    writeFile("t10k-labels-idx1-ubyte", idxLabels({1, 2}));
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { loadImageSet(m_dir.string()); }), testImages, "byte 30", "(truncated)"));
    // A bad label.
    writeFile("t10k-images-idx3-ubyte", idxImages(2, 3, 4, patternPixels(2, 3, 4)));
    writeFile("t10k-labels-idx1-ubyte", idxLabels({1, 12}));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(tempPath("train-images-idx3-ubyte")); }),
        tempPath("t10k-labels-idx1-ubyte"), "label 1, byte 9", "label 12 is not below 10"));
    // Another image shape than the training images'.
    writeFile("t10k-images-idx3-ubyte", idxImages(2, 4, 3, patternPixels(2, 4, 3)));
    writeFile("t10k-labels-idx1-ubyte", idxLabels({1, 2}));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(m_dir.string()); }), testImages, "image shape",
        "the held-out images are 1 × 4 × 3 but the training images 1 × 3 × 4"));
    // Images without their labels.
    std::filesystem::remove(tempPath("t10k-labels-idx1-ubyte"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(m_dir.string()); }), m_dir.string(), "",
        "found t10k-images-idx3-ubyte but no t10k-labels-idx1-ubyte[.gz] beside it"));
    // CIFAR: a truncated test batch.
    std::filesystem::create_directories(m_dir / "cifar");
    writeFile("cifar/data_batch_1.bin", cifarRecord(1, 2, 3, 4));
    writeFile("cifar/test_batch.bin", cifarRecord(1, 2, 3, 4).substr(0, 100));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(tempPath("cifar/data_batch_1.bin")); }),
        tempPath("cifar/test_batch.bin"), "record 0, byte 0", "(truncated)"));
}

TEST(ImageSetRules, AHeldOutSplitMustMatchTheSetItBelongsTo)
{
    ImageGenerator g;
    g.count = 20;
    g.heldOut = 10;
    g.height = 8;
    g.width = 8;
    const ImageSet set = generateImages(g);
    EXPECT_NO_THROW(validateImageSet(set, "src"));
    auto withHeldOut = [&](const std::function<void(ImageSet&)>& change) {
        ImageSet copy = set;
        ImageSet held = *set.heldOut;
        change(held);
        copy.heldOut = std::make_shared<const ImageSet>(std::move(held));
        return catchDatasetError([&] { validateImageSet(copy, "src"); });
    };
    EXPECT_TRUE(errorSays(withHeldOut([](ImageSet& h) { h.labels[3] = 10; }), "src (held-out split)", "image 3",
        "label 10 is not below"));
    EXPECT_TRUE(errorSays(withHeldOut([](ImageSet& h) { h.classes = 12; }), "src", "held-out split",
        "in 12 classes do not match the training images' 1 × 8 × 8 in 10"));
    EXPECT_TRUE(errorSays(withHeldOut([](ImageSet& h) { h.channelMean[0] += 1.0; }), "src", "held-out split",
        "not on the training images' scale"));
    ImageSet other = generateImages(g);
    other.heldOut.reset();
    ImageSet wide = *set.heldOut;
    wide.width = 9;
    EXPECT_TRUE(errorSays(catchDatasetError([&] { attachHeldOut(other, wide, "wide.bin"); }), "wide.bin", "image shape",
        "1 × 8 × 9 but the training images 1 × 8 × 8"));
}

// ---- CIFAR-10 ------------------------------------------------------------------------------------------------------

TEST_F(ImageSetTest, CifarFileReadsPlanesAsChannels)
{
    const std::string file = writeFile("data_batch_1.bin", cifarRecord(6, 10, 20, 30) + cifarRecord(9, 30, 20, 10));
    const ImageSet set = readCifar10(findCifarBatches(file));
    EXPECT_EQ(set.channels, 3u);
    EXPECT_EQ(set.height, 32u);
    EXPECT_EQ(set.width, 32u);
    EXPECT_EQ(set.labels, (std::vector<std::uint8_t> {6, 9}));
    // R: 10 and 30 (mean 20, std 10); G: 20 everywhere (std 1 by rule, pixels 0); B like R.
    EXPECT_EQ(set.channelMean, (std::vector<double> {20.0, 20.0, 20.0}));
    EXPECT_EQ(set.channelStd, (std::vector<double> {10.0, 1.0, 10.0}));
    EXPECT_FLOAT_EQ(set.pixels[0], -1.0f);
    EXPECT_FLOAT_EQ(set.pixels[1024], 0.0f);
    EXPECT_FLOAT_EQ(set.pixels[2048], 1.0f);
    EXPECT_FLOAT_EQ(set.pixels[3072], 1.0f);
    EXPECT_FLOAT_EQ(set.pixels[3072 + 2048], -1.0f);
    EXPECT_EQ(set.rawMin, 10);
    EXPECT_EQ(set.rawMax, 30);
    ASSERT_EQ(set.classNames.size(), 10u);
    EXPECT_EQ(set.classNames[6], "frog");
}

TEST_F(ImageSetTest, CifarFolderReadsBatchesInNumericOrderOrTheTestBatch)
{
    writeFile("data_batch_10.bin", cifarRecord(3, 3, 3, 3));
    writeFile("data_batch_2.bin", cifarRecord(2, 2, 2, 2));
    writeFile("data_batch_1.bin", cifarRecord(1, 1, 1, 1) + cifarRecord(0, 0, 0, 0));
    writeFile("test_batch.bin", cifarRecord(5, 5, 5, 5));
    writeFile("batches.meta.txt", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n\n");
    const Dataset train = loadImageSet(m_dir.string());
    EXPECT_EQ(train.as<ImageSet>().labels, (std::vector<std::uint8_t> {1, 0, 2, 3}));
    EXPECT_EQ(train.as<ImageSet>().sourceFiles,
        (std::vector<std::string> {"data_batch_1.bin", "data_batch_2.bin", "data_batch_10.bin"}));
    EXPECT_EQ(train.as<ImageSet>().classNames.front(), "a");
    EXPECT_EQ(train.meta().size, 4u);
    const Dataset test = loadImageSet(m_dir.string(), split("test"));
    EXPECT_EQ(test.as<ImageSet>().labels, (std::vector<std::uint8_t> {5}));
    EXPECT_EQ(test.as<ImageSet>().sourceFiles, (std::vector<std::string> {"test_batch.bin"}));
}

// ---- The dispatcher and the dataset --------------------------------------------------------------------------------

TEST_F(ImageSetTest, LoadImageSetChoosesByNameOrSize)
{
    writeFile("x-images-idx3-ubyte", idxImages(2, 2, 2, patternPixels(2, 2, 2)));
    writeFile("x-labels-idx1-ubyte", idxLabels({1, 2}));
    EXPECT_EQ(loadImageSet(tempPath("x-images-idx3-ubyte")).meta().properties[1].second, "1 × 2 × 2");
    // A CIFAR batch under another name is recognised by its size.
    const Dataset cifar = loadImageSet(writeFile("batch.dat", cifarRecord(4, 1, 2, 3)));
    EXPECT_EQ(cifar.meta().properties[1].second, "3 × 32 × 32");
    // An IDX file under another name is named as one, with why it cannot be read.
    const std::string renamed = writeFile("images.raw", idxImages(2, 2, 2, patternPixels(2, 2, 2)));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(renamed); }), renamed, "byte 0", "an IDX images file"));
    const std::string other = writeFile("notes.txt", "hello");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(other); }), other, "", "neither an IDX file"));
    const std::string missing = tempPath("absent");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(missing); }), missing, "", "no such file"));
    const std::string empty = (m_dir / "empty").string();
    std::filesystem::create_directories(empty);
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { loadImageSet(empty); }), empty, "", "no IDX images file of the train split"));
    EXPECT_TRUE(errorSays(catchDatasetError([&] { loadImageSet(empty, split("validation")); }), empty,
        "parameter split", "'validation' is not a split"));
}

TEST_F(ImageSetTest, DatasetCarriesShapeClassesStatisticsAndAStableHash)
{
    writeFile("data_batch_1.bin", cifarRecord(6, 10, 20, 30) + cifarRecord(9, 30, 20, 10));
    const Dataset d = loadImageSet(tempPath("data_batch_1.bin"));
    EXPECT_EQ(d.meta().kind, "images");
    EXPECT_EQ(d.meta().size, 2u);
    std::map<std::string, std::string> p(d.meta().properties.begin(), d.meta().properties.end());
    EXPECT_EQ(p["images"], "2");
    EXPECT_EQ(p["shape"], "3 × 32 × 32");
    EXPECT_TRUE(contains(p["classes"], "10 (airplane, automobile,"));
    EXPECT_EQ(p["images per class"], "0 / 0 / 0 / 0 / 0 / 0 / 1 / 0 / 0 / 1");
    EXPECT_EQ(p["per-channel mean"], "20 / 20 / 20");
    EXPECT_EQ(p["per-channel std"], "10 / 1 / 10");
    EXPECT_EQ(p["raw value range"], "[10, 30]");
    EXPECT_EQ(p["stored as"], "uint8");
    EXPECT_EQ(p["source"], "data_batch_1.bin");
    EXPECT_EQ(d.meta().contentHash, loadImageSet(tempPath("data_batch_1.bin")).meta().contentHash);
    // Another label, another hash.
    writeFile("data_batch_1.bin", cifarRecord(5, 10, 20, 30) + cifarRecord(9, 30, 20, 10));
    EXPECT_NE(d.meta().contentHash, loadImageSet(tempPath("data_batch_1.bin")).meta().contentHash);

    ImageSet broken = d.as<ImageSet>();
    broken.labels[1] = 10;
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { makeImageDataset(broken, "x", "src"); }), "src", "image 1", "label 10 is not below"));
    broken = d.as<ImageSet>();
    broken.pixels.pop_back();
    EXPECT_TRUE(errorSays(catchDatasetError([&] { makeImageDataset(broken, "x", "src"); }), "src", "", "pixels for"));
}

TEST_F(ImageSetTest, RenormalisingPutsATestSplitOnTheTrainScale)
{
    writeFile("data_batch_1.bin", cifarRecord(6, 10, 20, 30) + cifarRecord(9, 30, 20, 10));
    ImageSet set = readCifar10({tempPath("data_batch_1.bin")});
    renormaliseImages(set, {0.0, 10.0, 20.0}, {10.0, 5.0, 2.0});
    // Raw R of image 0 is 10: (10 − 0) / 10; G 20: (20 − 10) / 5; B 30: (30 − 20) / 2.
    EXPECT_FLOAT_EQ(set.pixels[0], 1.0f);
    EXPECT_FLOAT_EQ(set.pixels[1024], 2.0f);
    EXPECT_FLOAT_EQ(set.pixels[2048], 5.0f);
    EXPECT_EQ(set.channelMean, (std::vector<double> {0.0, 10.0, 20.0}));
    EXPECT_THROW(renormaliseImages(set, {0.0}, {1.0}), std::invalid_argument);
    EXPECT_THROW(renormaliseImages(set, {0.0, 0.0, 0.0}, {1.0, 0.0, 1.0}), std::invalid_argument);
}

// ---- The malformed corpus ------------------------------------------------------------------------------------------

/// A bad input made at test time: the files to write, the path to load (relative; "." is the test's folder), and
/// what the error must say: the file (relative), its place and a part of its problem.
struct BadImages {
    const char* name;
    std::function<std::map<std::string, std::string>()> files;
    const char* load;
    const char* file;
    const char* place;
    const char* problem;
};

std::map<std::string, std::string> idxPair(const std::string& images, const std::string& labels)
{
    return {{"train-images-idx3-ubyte", images}, {"train-labels-idx1-ubyte", labels}};
}

const std::string kGoodImages = idxImages(5, 3, 4, patternPixels(5, 3, 4)); // 16 + 60 bytes
const std::string kGoodLabels = idxLabels({0, 1, 2, 3, 4}); // 8 + 5 bytes

const BadImages kBadImages[] = {
    {"idx_empty_images", [] { return idxPair("", kGoodLabels); }, "train-images-idx3-ubyte", "train-images-idx3-ubyte",
        "byte 0", "empty file"},
    {"idx_empty_labels", [] { return idxPair(kGoodImages, ""); }, "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
        "byte 0", "empty file"},
    {"idx_truncated_magic", [] { return idxPair(kGoodImages.substr(0, 3), kGoodLabels); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 3", "ends inside the magic number"},
    {"idx_truncated_header", [] { return idxPair(kGoodImages.substr(0, 10), kGoodLabels); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 10", "ends inside the header"},
    {"idx_truncated_pixels", [] { return idxPair(kGoodImages.substr(0, 70), kGoodLabels); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 70",
        "ends after 70 bytes; the header's 5 images of 3 × 4 need 76 (truncated)"},
    {"idx_truncated_gzip",
        [] {
            return std::map<std::string, std::string> {
                {"train-images-idx3-ubyte.gz", gzipped(kGoodImages.substr(0, 40))},
                {"train-labels-idx1-ubyte.gz", gzipped(kGoodLabels)}};
        },
        "train-images-idx3-ubyte.gz", "train-images-idx3-ubyte.gz", "byte 40 of the decompressed stream",
        "(truncated)"},
    {"idx_truncated_labels", [] { return idxPair(kGoodImages, kGoodLabels.substr(0, 11)); }, "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte", "byte 11", "the header's 5 labels need 13"},
    {"idx_labels_magic_in_images", [] { return idxPair(kGoodLabels, kGoodLabels); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 0", "magic number 0x00000801 is not 0x00000803"},
    {"idx_images_magic_in_labels", [] { return idxPair(kGoodImages, kGoodImages); }, "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte", "byte 0", "this is an IDX images file"},
    {"idx_float_images", [] { return idxPair(idxImages(5, 3, 4, patternPixels(5, 3, 4), 0x00000D03), kGoodLabels); },
        "train-images-idx3-ubyte", "train-images-idx3-ubyte", "byte 0", "element type 0x0000000D"},
    {"idx_wrong_magic", [] { return idxPair(idxImages(5, 3, 4, patternPixels(5, 3, 4), 0x12345678), kGoodLabels); },
        "train-images-idx3-ubyte", "train-images-idx3-ubyte", "byte 0", "magic number 0x12345678"},
    {"idx_count_mismatch",
        [] {
            return idxPair(kGoodImages, idxLabels({0, 1, 2, 3}));
        },
        "train-labels-idx1-ubyte", "train-labels-idx1-ubyte", "byte 4",
        "holds 4 labels but train-images-idx3-ubyte holds 5 images"},
    {"idx_dimension_mismatch", [] { return idxPair(idxImages(5, 3, 5, patternPixels(5, 3, 4)), kGoodLabels); },
        "train-images-idx3-ubyte", "train-images-idx3-ubyte", "byte 76", "5 images of 3 × 5 need 91"},
    {"idx_extra_bytes", [] { return idxPair(kGoodImages + "xy", kGoodLabels); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 76", "2 bytes past the 76"},
    {"idx_zero_rows", [] { return idxPair(idxImages(5, 0, 4, ""), kGoodLabels); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 8", "zero extent"},
    {"idx_zero_count", [] { return idxPair(idxImages(0, 3, 4, ""), idxLabels({})); }, "train-images-idx3-ubyte",
        "train-images-idx3-ubyte", "byte 4", "counts 0 images"},
    {"idx_huge_header", [] { return idxPair(idxImages(0xffffffffu, 0xffffu, 0xffffu, ""), kGoodLabels); },
        "train-images-idx3-ubyte", "train-images-idx3-ubyte", "byte 16", "(truncated)"},
    {"idx_bad_label",
        [] {
            return idxPair(kGoodImages, idxLabels({0, 1, 2, 10, 4}));
        },
        "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "label 3, byte 11", "label 10 is not below 10"},
    {"idx_no_labels_file",
        [] {
            return std::map<std::string, std::string> {{"train-images-idx3-ubyte", kGoodImages}};
        },
        "train-images-idx3-ubyte", "train-images-idx3-ubyte", "", "no train-labels-idx1-ubyte[.gz] beside it"},
    {"cifar_empty",
        [] {
            return std::map<std::string, std::string> {{"data_batch_1.bin", ""}};
        },
        "data_batch_1.bin", "data_batch_1.bin", "byte 0", "empty file"},
    {"cifar_truncated",
        [] {
            return std::map<std::string, std::string> {
                {"data_batch_1.bin", (cifarRecord(1, 2, 3, 4) + cifarRecord(5, 6, 7, 8)).substr(0, 3073 + 100)}};
        },
        "data_batch_1.bin", "data_batch_1.bin", "record 1, byte 3073", "the last record has 100 bytes (truncated)"},
    {"cifar_100",
        [] {
            std::string record = std::string(1, '\x03') + cifarRecord(42, 1, 2, 3);
            return std::map<std::string, std::string> {{"train.bin", record + record}};
        },
        "train.bin", "train.bin", "byte 6148", "this is a CIFAR-100 file"},
    {"cifar_bad_label",
        [] {
            return std::map<std::string, std::string> {
                {"data_batch_1.bin", cifarRecord(1, 2, 3, 4) + cifarRecord(10, 6, 7, 8)}};
        },
        "data_batch_1.bin", "data_batch_1.bin", "record 1, byte 3073", "label 10 is not below 10"},
    {"cifar_bad_second_batch",
        [] {
            return std::map<std::string, std::string> {
                {"data_batch_1.bin", cifarRecord(1, 2, 3, 4)}, {"data_batch_2.bin", cifarRecord(1, 2, 3, 4) + "xy"}};
        },
        ".", "data_batch_2.bin", "record 1, byte 3073", "not a multiple of 3,073"},
    {"cifar_folder_without_train_batches",
        [] {
            return std::map<std::string, std::string> {{"test_batch.bin", cifarRecord(1, 2, 3, 4)}};
        },
        ".", ".", "", "no data_batch_N.bin in the folder for the train split"},
};

void PrintTo(const BadImages& bad, std::ostream* os)
{
    *os << bad.name;
}

class BadImageTest : public ImageSetTest, public ::testing::WithParamInterface<BadImages> { };

TEST_P(BadImageTest, ThrowsNamingFilePlaceAndProblem)
{
    const BadImages& bad = GetParam();
    for (const auto& [name, bytes] : bad.files())
        writeFile(name, bytes);
    auto path = [&](const std::string& relative) { return relative == "." ? m_dir.string() : tempPath(relative); };
    const auto error = catchDatasetError([&] { loadImageSet(path(bad.load)); });
    EXPECT_TRUE(errorSays(error, path(bad.file), bad.place, bad.problem));
}

INSTANTIATE_TEST_SUITE_P(ImageCorpus, BadImageTest, ::testing::ValuesIn(kBadImages),
    [](const ::testing::TestParamInfo<BadImages>& param) { return std::string(param.param.name); });

// ---- The generator -------------------------------------------------------------------------------------------------

TEST(ImageGeneratorTest, DeterministicFromTheSeedAndBalanced)
{
    ImageGenerator g;
    g.count = 1003;
    g.seed = 7;
    const ImageSet a = generateImages(g);
    const ImageSet b = generateImages(g);
    EXPECT_EQ(a.pixels, b.pixels);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.channels, 1u);
    EXPECT_EQ(a.height, 28u);
    EXPECT_EQ(a.width, 28u);
    std::vector<int> perClass(10, 0);
    for (const auto label : a.labels)
        ++perClass[label];
    for (int k = 0; k < 10; ++k)
        EXPECT_EQ(perClass[k], k < 3 ? 101 : 100) << "class " << k;
    // Shuffled, not in class order.
    int inOrder = 0;
    for (std::size_t i = 0; i < a.labels.size(); ++i)
        inOrder += a.labels[i] == i % 10;
    EXPECT_LT(inOrder, 300);
    // Normalised with its own statistics.
    double sum = 0;
    double squares = 0;
    for (const float p : a.pixels) {
        sum += p;
        squares += static_cast<double>(p) * p;
    }
    const double n = static_cast<double>(a.pixels.size());
    EXPECT_NEAR(sum / n, 0.0, 1e-4);
    EXPECT_NEAR(std::sqrt(squares / n - (sum / n) * (sum / n)), 1.0, 1e-4);

    g.seed = 8;
    const ImageSet c = generateImages(g);
    EXPECT_NE(a.pixels, c.pixels);
    EXPECT_NE(a.labels, c.labels);
    EXPECT_EQ(makeImageDataset(a, "a", "generator").meta().contentHash,
        makeImageDataset(b, "b", "generator").meta().contentHash);
    EXPECT_NE(makeImageDataset(a, "a", "generator").meta().contentHash,
        makeImageDataset(c, "c", "generator").meta().contentHash);
}

TEST(ImageGeneratorTest, HeldOutImagesComeFromTheSameGeneratorAtOtherIndices)
{
    ImageGenerator g;
    g.count = 300;
    g.height = 12;
    g.width = 12;
    g.seed = 5;
    const ImageSet none = generateImages(g);
    EXPECT_EQ(none.heldOut, nullptr);
    g.heldOut = 103;
    const ImageSet set = generateImages(g);
    ASSERT_NE(set.heldOut, nullptr);
    const ImageSet& held = *set.heldOut;
    // The training images are the same with or without a held-out split.
    EXPECT_EQ(set.pixels, none.pixels);
    EXPECT_EQ(set.labels, none.labels);
    EXPECT_EQ(set.channelMean, none.channelMean);
    // Balanced labels of its own, on the training scale, and not copies of training images.
    ASSERT_EQ(held.size(), 103u);
    std::vector<int> perClass(10, 0);
    for (const auto label : held.labels)
        ++perClass[label];
    for (int k = 0; k < 10; ++k)
        EXPECT_EQ(perClass[k], k < 3 ? 11 : 10) << "class " << k;
    EXPECT_EQ(held.channelMean, set.channelMean);
    EXPECT_EQ(held.channelStd, set.channelStd);
    const std::size_t size = set.imageSize();
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < set.size(); ++j)
            EXPECT_FALSE(std::equal(held.pixels.begin() + static_cast<std::ptrdiff_t>(i * size),
                held.pixels.begin() + static_cast<std::ptrdiff_t>((i + 1) * size),
                set.pixels.begin() + static_cast<std::ptrdiff_t>(j * size)))
                << "held-out image " << i << " repeats training image " << j;
    EXPECT_EQ(held.sourceFiles, (std::vector<std::string> {"generated images 300 … 402"}));
    // Deterministic, and in the dataset's hash and properties.
    const ImageSet again = generateImages(g);
    EXPECT_EQ(again.heldOut->pixels, held.pixels);
    EXPECT_EQ(again.heldOut->labels, held.labels);
    const Dataset d = makeImageDataset(set, "g", "generator");
    EXPECT_NE(d.meta().contentHash, makeImageDataset(none, "g", "generator").meta().contentHash);
    EXPECT_EQ(properties(d)["held-out"], "generated images 300 … 402: 103 images");
    EXPECT_EQ(d.meta().size, 300u);
}

TEST(ImageGeneratorTest, SameImagesForAnyThreadCount)
{
#if __has_include(<omp.h>)
    ImageGenerator g;
    g.count = 300;
    g.channels = 3;
    g.height = 32;
    g.width = 32;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const ImageSet one = generateImages(g);
    omp_set_num_threads(4);
    const ImageSet four = generateImages(g);
    omp_set_num_threads(threads);
    EXPECT_EQ(one.pixels, four.pixels);
    EXPECT_EQ(one.labels, four.labels);
#else
    GTEST_SKIP() << "no <omp.h> to set the thread count with";
#endif
}

TEST(ImageGeneratorTest, ClassesAreLearnableByANearestCentroidClassifier)
{
    // If the class means alone separate held-out images far above chance, a small CNN has something to learn.
    for (const std::uint32_t channels : {1u, 3u}) {
        ImageGenerator g;
        g.count = 3000;
        g.channels = channels;
        g.height = channels == 1 ? 28 : 32;
        g.width = g.height;
        const ImageSet set = generateImages(g);
        const std::size_t size = set.imageSize();
        const std::size_t train = 2000;
        std::vector<double> centroid(10 * size, 0.0);
        std::vector<int> count(10, 0);
        for (std::size_t i = 0; i < train; ++i) {
            ++count[set.labels[i]];
            for (std::size_t k = 0; k < size; ++k)
                centroid[set.labels[i] * size + k] += set.pixels[i * size + k];
        }
        for (int c = 0; c < 10; ++c)
            for (std::size_t k = 0; k < size; ++k)
                centroid[c * size + k] /= count[c];
        int correct = 0;
        for (std::size_t i = train; i < set.size(); ++i) {
            int best = 0;
            double bestDistance = INFINITY;
            for (int c = 0; c < 10; ++c) {
                double d = 0;
                for (std::size_t k = 0; k < size; ++k) {
                    const double e = set.pixels[i * size + k] - centroid[c * size + k];
                    d += e * e;
                }
                if (d < bestDistance) {
                    bestDistance = d;
                    best = c;
                }
            }
            correct += best == set.labels[i];
        }
        const double accuracy = correct / static_cast<double>(set.size() - train);
        EXPECT_GT(accuracy, 0.5) << channels << " channel(s)";
        // Not trivially separable either: the noise, phase and shift leave work for a network.
        EXPECT_LT(accuracy, 0.95) << channels << " channel(s)";
    }
}

TEST(ImageGeneratorTest, BadParametersNameTheParameter)
{
    auto fails = [](ImageGenerator g, const char* place, const char* problem) {
        return errorSays(catchDatasetError([&] { generateImages(g); }), "generator", place, problem);
    };
    ImageGenerator g;
    g.count = 0;
    EXPECT_TRUE(fails(g, "count", "at least 1"));
    g = {};
    g.channels = 0;
    EXPECT_TRUE(fails(g, "channels", "between 1 and 16"));
    g = {};
    g.width = 2;
    EXPECT_TRUE(fails(g, "width", "between 4 and 1024"));
    g = {};
    g.classes = 1;
    EXPECT_TRUE(fails(g, "classes", "between 2 and 256"));
}

// ---- Real Fashion-MNIST --------------------------------------------------------------------------------------------

TEST(FashionMnistTest, DebianFilesReadAsSixtyAndTenThousandBalancedImages)
{
    const std::string folder = "/usr/share/datasets/fashion-mnist";
    std::error_code ec;
    if (!std::filesystem::exists(folder + "/train-images-idx3-ubyte.gz", ec))
        GTEST_SKIP() << folder << " has no train-images-idx3-ubyte.gz: install Debian's dataset-fashion-mnist "
                     << "(packaging/install-deps.sh does)";
    ReadOptions testSplit;
    testSplit.params["split"] = "test";
    for (const auto& [options, count] :
        std::vector<std::pair<ReadOptions, std::size_t>> {{ReadOptions {}, 60'000}, {testSplit, 10'000}}) {
        const Dataset d = loadImageSet(folder, options);
        const ImageSet& set = d.as<ImageSet>();
        ASSERT_EQ(set.size(), count);
        EXPECT_EQ(set.channels, 1u);
        EXPECT_EQ(set.height, 28u);
        EXPECT_EQ(set.width, 28u);
        std::vector<std::size_t> perClass(10, 0);
        for (const auto label : set.labels) {
            ASSERT_LT(label, 10);
            ++perClass[label];
        }
        for (int k = 0; k < 10; ++k)
            EXPECT_EQ(perClass[k], count / 10) << "class " << k;
        double sum = 0;
        double squares = 0;
        for (const float p : set.pixels) {
            sum += p;
            squares += static_cast<double>(p) * p;
        }
        const double n = static_cast<double>(set.pixels.size());
        EXPECT_NEAR(sum / n, 0.0, 1e-4);
        EXPECT_NEAR(std::sqrt(squares / n - (sum / n) * (sum / n)), 1.0, 1e-4);
        // Fashion-MNIST's well-known raw statistics: mean ≈ 72.9 (0.286 · 255), std ≈ 90.0 (0.353 · 255).
        EXPECT_NEAR(set.channelMean[0], 72.9, 1.0);
        EXPECT_NEAR(set.channelStd[0], 90.0, 1.5);
        EXPECT_EQ(set.rawMin, 0);
        EXPECT_EQ(set.rawMax, 255);
        EXPECT_EQ(set.classNames.front(), "T-shirt/top");
        EXPECT_EQ(d.meta().properties[1].second, "1 × 28 × 28");
        if (count == 60'000) {
            ASSERT_NE(set.heldOut, nullptr);
            EXPECT_EQ(set.heldOut->size(), 10'000u);
            EXPECT_EQ(set.heldOut->sourceFiles.front(), "t10k-images-idx3-ubyte.gz");
            EXPECT_EQ(set.heldOut->channelMean, set.channelMean);
        } else {
            EXPECT_EQ(set.heldOut, nullptr);
        }
    }
}

} // namespace
} // namespace ks::data
