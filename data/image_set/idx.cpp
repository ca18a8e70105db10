// IDX files as the MNIST family ships them: an images file (magic 0x00000803) with its labels file (0x00000801),
// big-endian headers, plain or gzip; finding the pair from either file or from a folder and a split.

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/image_set.h"
#include "data/line_cursor.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>

namespace ks::data {

namespace {

namespace fs = std::filesystem;

constexpr const char* kImagesTag = "-images-idx3-ubyte";
constexpr const char* kLabelsTag = "-labels-idx1-ubyte";
constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;

const std::array<const char*, kImageClasses> kFashionNames
    = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};

std::string hex32(std::uint32_t value)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08X", value);
    return text;
}

std::uint32_t bigEndian32(const std::string& bytes, std::size_t offset)
{
    std::uint32_t value = 0;
    for (std::size_t k = 0; k < 4; ++k)
        value = (value << 8) | static_cast<unsigned char>(bytes[offset + k]);
    return value;
}

bool isGzip(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[2] = {0, 0};
    in.read(magic, 2);
    return in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f
        && static_cast<unsigned char>(magic[1]) == 0x8b;
}

/// An IDX file in memory and how to name a place in it.
struct IdxFile {
    std::string path;
    std::string bytes;
    bool gzip = false;

    std::string place(std::uint64_t offset) const
    {
        return "byte " + std::to_string(offset) + (gzip ? " of the decompressed stream" : "");
    }
};

IdxFile readIdxFile(const std::string& path)
{
    IdxFile file;
    file.path = path;
    file.gzip = isGzip(path);
    file.bytes = readTextFile(path);
    return file;
}

/// Checks the magic number and the header's room, and returns the dimensions (rank of them, from byte 4).
std::vector<std::uint32_t> idxHeader(const IdxFile& file, std::uint32_t expectedMagic, const char* what)
{
    const std::size_t rank = expectedMagic & 0xffu;
    const std::uint64_t headerSize = 4 + 4 * rank;
    if (file.bytes.empty())
        throw DatasetError(file.path, file.place(0), std::string("empty file; an IDX ") + what + " file was expected");
    if (file.bytes.size() < 4)
        throw DatasetError(file.path, file.place(file.bytes.size()),
            "the file ends inside the magic number (" + plural(file.bytes.size(), "byte") + ")");
    const std::uint32_t magic = bigEndian32(file.bytes, 0);
    if (magic != expectedMagic) {
        std::string problem = "magic number " + hex32(magic) + " is not " + hex32(expectedMagic) + ", that of IDX "
            + what + " (unsigned bytes, rank " + std::to_string(rank) + ")";
        if (magic == kImagesMagic)
            problem += "; this is an IDX images file";
        else if (magic == kLabelsMagic)
            problem += "; this is an IDX labels file";
        else if ((magic >> 16) == 0 && (magic & 0xff00u) != 0x0800u)
            problem += "; its element type " + hex32((magic >> 8) & 0xffu)
                + " is not unsigned bytes (0x08), the only type the MNIST family uses";
        throw DatasetError(file.path, file.place(0), problem);
    }
    if (file.bytes.size() < headerSize)
        throw DatasetError(file.path, file.place(file.bytes.size()),
            "the file ends inside the header: rank " + std::to_string(rank) + " needs " + plural(headerSize, "byte")
                + ", the file has " + std::to_string(file.bytes.size()));
    std::vector<std::uint32_t> dims(rank);
    for (std::size_t d = 0; d < rank; ++d)
        dims[d] = bigEndian32(file.bytes, 4 + 4 * d);
    return dims;
}

/// The length the header promises against the file's, naming the first missing or extra byte.
void checkLength(const IdxFile& file, std::uint64_t headerSize, std::uint64_t payload, const std::string& what)
{
    const std::uint64_t expected = saturatingAdd(headerSize, payload);
    const std::uint64_t actual = file.bytes.size();
    if (actual < expected)
        throw DatasetError(file.path, file.place(actual),
            "the file ends after " + plural(actual, "byte") + "; the header's " + what + " need "
                + std::to_string(expected) + " (truncated)");
    if (actual > expected)
        throw DatasetError(file.path, file.place(expected),
            plural(actual - expected, "byte") + " past the " + std::to_string(expected) + " that the header's " + what
                + " need");
}

std::string withoutGz(const std::string& name)
{
    return name.ends_with(".gz") ? name.substr(0, name.size() - 3) : name;
}

/// `stem` (no .gz) in `directory`, preferring the compression of `preferGz`; empty when neither exists.
std::string existingVariant(const fs::path& directory, const std::string& stem, bool preferGz)
{
    const std::string first = preferGz ? stem + ".gz" : stem;
    const std::string second = preferGz ? stem : stem + ".gz";
    for (const auto& name : {first, second}) {
        std::error_code ec;
        if (fs::is_regular_file(directory / name, ec))
            return (directory / name).string();
    }
    return {};
}

} // namespace

IdxPair findIdxPair(const std::string& path, const ReadOptions& options)
{
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const std::string split = imageSplit(options, path);
        const std::vector<std::string> prefixes
            = split == "train" ? std::vector<std::string> {"train"} : std::vector<std::string> {"t10k", "test"};
        for (const auto& prefix : prefixes) {
            const std::string images = existingVariant(path, prefix + kImagesTag, true);
            if (images.empty())
                continue;
            const std::string labels = existingVariant(path, prefix + kLabelsTag, images.ends_with(".gz"));
            if (labels.empty())
                throw DatasetError(
                    path, "", "found " + baseName(images) + " but no " + prefix + kLabelsTag + "[.gz] beside it");
            return {images, labels};
        }
        std::vector<std::string> looked;
        looked.reserve(prefixes.size());
        for (const auto& prefix : prefixes)
            looked.push_back(prefix + kImagesTag + "[.gz]");
        throw DatasetError(path, "",
            "no IDX images file of the " + split + " split in the folder (looked for " + listing(looked) + ")");
    }
    const fs::path file(path);
    const std::string name = file.filename().string();
    const std::string stem = withoutGz(name);
    const bool gz = name.ends_with(".gz");
    const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
    auto partner = [&](const std::string& tag, const std::string& otherTag) {
        const std::string otherStem = stem.substr(0, stem.size() - std::string(tag).size()) + otherTag;
        std::string found = existingVariant(directory, otherStem, gz);
        if (found.empty())
            throw DatasetError(path, "", "no " + otherStem + "[.gz] beside it to pair with");
        return found;
    };
    if (stem.ends_with(kImagesTag))
        return {path, partner(kImagesTag, kLabelsTag)};
    if (stem.ends_with(kLabelsTag))
        return {partner(kLabelsTag, kImagesTag), path};
    throw DatasetError(path, "",
        std::string("not named as an IDX pair: the MNIST family names its files *") + kImagesTag + "[.gz] and *"
            + kLabelsTag + "[.gz]");
}

ImageSet readIdx(const IdxPair& files, const ReadOptions&)
{
    const IdxFile images = readIdxFile(files.images);
    const std::vector<std::uint32_t> dims = idxHeader(images, kImagesMagic, "images");
    const std::uint64_t count = dims[0];
    const std::uint32_t rows = dims[1];
    const std::uint32_t cols = dims[2];
    if (count == 0)
        throw DatasetError(files.images, images.place(4), "the header counts 0 images");
    if (rows == 0 || cols == 0)
        throw DatasetError(files.images, images.place(rows == 0 ? 8 : 12),
            "image size " + std::to_string(rows) + " × " + std::to_string(cols) + " has a zero extent");
    const std::uint64_t imageBytes = static_cast<std::uint64_t>(rows) * cols;
    checkLength(images, 16, saturatingMul(count, imageBytes),
        plural(count, "image") + " of " + std::to_string(rows) + " × " + std::to_string(cols));

    const IdxFile labels = readIdxFile(files.labels);
    const std::vector<std::uint32_t> labelDims = idxHeader(labels, kLabelsMagic, "labels");
    if (labelDims[0] != count)
        throw DatasetError(files.labels, labels.place(4),
            "the labels file holds " + plural(labelDims[0], "label") + " but " + baseName(files.images) + " holds "
                + plural(count, "image") + "; images and labels must pair one to one");
    checkLength(labels, 8, count, plural(count, "label"));
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto label = static_cast<unsigned char>(labels.bytes[8 + i]);
        if (label >= kImageClasses)
            throw DatasetError(files.labels, "label " + std::to_string(i) + ", " + labels.place(8 + i),
                "label " + std::to_string(label) + " is not below " + std::to_string(kImageClasses)
                    + ", the number of classes");
    }

    ImageSet set;
    set.channels = 1;
    set.height = rows;
    set.width = cols;
    set.labels.assign(labels.bytes.begin() + 8, labels.bytes.end());
    normaliseImages(set,
        std::span<const std::uint8_t>(
            reinterpret_cast<const std::uint8_t*>(images.bytes.data()) + 16, images.bytes.size() - 16),
        files.images);
    set.sourceFiles = {baseName(files.images), baseName(files.labels)};
    if (lowerCase(files.images).find("fashion") != std::string::npos) {
        set.classNames.assign(kFashionNames.begin(), kFashionNames.end());
        set.notes.push_back("class names: Fashion-MNIST's (the path says fashion)");
    }
    return set;
}

} // namespace ks::data
