// The image dataset with its metadata, and the choice of reader for a path: a folder of CIFAR-10 batches or IDX
// pairs, or a file by its name, else by its first bytes or its size.

#include "data/dataset_error.h"
#include "data/hash.h"
#include "data/image_set.h"
#include "data/line_cursor.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <cstdio>
#include <filesystem>
#include <span>
#include <zlib.h>

namespace ks::data {

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kCifar10Record = 3073;

std::string perChannel(const std::vector<double>& values)
{
    std::string text;
    for (std::size_t c = 0; c < values.size(); ++c) {
        char value[32];
        std::snprintf(value, sizeof value, "%.6g", values[c]);
        text += (c == 0 ? "" : " / ") + std::string(value);
    }
    return text;
}

/// The first four bytes (decompressed when gzip), big-endian; 0 when the file is shorter.
std::uint32_t leadingWord(const std::string& path)
{
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        return 0;
    unsigned char bytes[4] = {0, 0, 0, 0};
    const int got = gzread(file, bytes, sizeof bytes);
    gzclose(file);
    if (got != 4)
        return 0;
    return (std::uint32_t {bytes[0]} << 24) | (std::uint32_t {bytes[1]} << 16) | (std::uint32_t {bytes[2]} << 8)
        | bytes[3];
}

bool holdsCifarBatches(const fs::path& directory)
{
    std::error_code ec;
    if (fs::is_regular_file(directory / "test_batch.bin", ec))
        return true;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("data_batch_") && name.ends_with(".bin"))
            return true;
    }
    return false;
}

std::string folderName(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    return baseName(path);
}

} // namespace

Dataset makeImageDataset(ImageSet set, std::string name, std::string source)
{
    validateImageSet(set, source);
    DatasetMeta meta;
    meta.kind = "images";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    // The shape and class count too: the same bytes as 1 × 28 × 28 or 28 × 1 × 28 are different data.
    const std::uint64_t shape[5] = {set.size(), set.channels, set.height, set.width, set.classes};
    hasher.add(shape, sizeof shape);
    hasher.addSpan(std::span<const std::uint8_t>(set.labels));
    hasher.addSpan(std::span<const float>(set.pixels));
    meta.contentHash = hasher.hex();
    meta.size = set.size();

    std::vector<std::uint64_t> perClass(set.classes, 0);
    for (const std::uint8_t label : set.labels)
        ++perClass[label];
    std::string counts;
    for (std::size_t k = 0; k < perClass.size(); ++k)
        counts += (k == 0 ? "" : " / ") + std::to_string(perClass[k]);
    std::string classes = std::to_string(set.classes);
    if (!set.classNames.empty())
        classes += " (" + listing(set.classNames) + ")";
    char range[64];
    std::snprintf(range, sizeof range, "[%g, %g]", set.rawMin, set.rawMax);
    meta.properties = {
        {"images", std::to_string(set.size())},
        {"shape",
            std::to_string(set.channels) + " × " + std::to_string(set.height) + " × " + std::to_string(set.width)},
        {"classes", classes},
        {"images per class", counts},
        {"per-channel mean", perChannel(set.channelMean)},
        {"per-channel std", perChannel(set.channelStd)},
        {"raw value range", range},
        {"stored as", set.storedType},
        {"source", listing(set.sourceFiles)},
    };
    meta.notes = set.notes;
    return Dataset::make(std::move(meta), std::move(set));
}

Dataset loadImageSet(const std::string& path, const ReadOptions& options)
{
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const std::string split = imageSplit(options, path);
        const std::string name = folderName(path) + " (" + split + ")";
        ImageSet set;
        if (holdsCifarBatches(path))
            set = readCifar10(findCifarBatches(path, options), options);
        else
            set = readIdx(findIdxPair(path, options), options);
        set.notes.insert(set.notes.begin(), "split: " + split);
        return makeImageDataset(std::move(set), name, path);
    }
    if (!fs::exists(path, ec))
        throw DatasetError(path, "", "no such file or folder");
    const std::string name = baseName(path);
    const std::string lower = lowerCase(name);
    ImageSet set;
    if (lower.find("idx3-ubyte") != std::string::npos || lower.find("idx1-ubyte") != std::string::npos)
        set = readIdx(findIdxPair(path, options), options);
    else if (lower.ends_with(".bin"))
        set = readCifar10({path}, options);
    else {
        const std::uint32_t magic = leadingWord(path);
        const std::uint64_t size = fs::file_size(path, ec);
        if (magic == 0x00000803)
            throw DatasetError(path, "byte 0",
                "an IDX images file, but not named *-images-idx3-ubyte[.gz], so its labels file cannot be found");
        if (magic == 0x00000801)
            throw DatasetError(path, "byte 0",
                "an IDX labels file, but not named *-labels-idx1-ubyte[.gz], so its images file cannot be found");
        if (!ec && size > 0 && size % kCifar10Record == 0)
            set = readCifar10({path}, options);
        else
            throw DatasetError(path, "",
                "neither an IDX file (*-images-idx3-ubyte[.gz] with its labels) nor CIFAR-10 binary batches "
                "(data_batch_N.bin, test_batch.bin, or a folder of them)");
    }
    return makeImageDataset(std::move(set), name, path);
}

} // namespace ks::data
