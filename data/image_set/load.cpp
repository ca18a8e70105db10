// The image dataset with its metadata, and the choice of reader for a path: a folder of CIFAR-10 batches or IDX
// pairs, or a file by its name, else by its first bytes or its size.

#include "data/dataset_error.h"
#include "data/hash.h"
#include "data/image_set.h"
#include "data/input_file.h"
#include "data/line_cursor.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
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

/// data_batch_N.bin: a CIFAR-10 batch of the train split.
bool isTrainBatch(const std::string& name)
{
    const std::string_view prefix = "data_batch_", suffix = ".bin";
    if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() == prefix.size() + suffix.size())
        return false;
    return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()),
        name.end() - static_cast<std::ptrdiff_t>(suffix.size()), [](char c) { return c >= '0' && c <= '9'; });
}

/// The IDX test pair (t10k-* or test-*) in `directory`, read and attached as the held-out split when its images
/// file is there (a missing labels file or a malformed file is an error); a note saying there is none otherwise.
void attachIdxTest(ImageSet& set, const fs::path& directory, const ReadOptions& options)
{
    bool present = false;
    std::error_code ec;
    for (const char* prefix : {"t10k", "test"})
        for (const char* suffix : {"", ".gz"})
            present
                = present || fs::is_regular_file(directory / (std::string(prefix) + "-images-idx3-ubyte" + suffix), ec);
    if (!present) {
        set.notes.push_back("no held-out split beside the file (no t10k-* or test-* IDX pair in the folder)");
        return;
    }
    ReadOptions test = options;
    test.params["split"] = "test";
    const IdxPair pair = findIdxPair(directory.string(), test);
    attachHeldOut(set, readIdx(pair, test), pair.images);
}

/// test_batch.bin in `directory` as the held-out split when it is there; a note saying there is none otherwise.
void attachCifarTest(ImageSet& set, const fs::path& directory, const ReadOptions& options)
{
    std::error_code ec;
    const fs::path file = directory / "test_batch.bin";
    if (!fs::is_regular_file(file, ec)) {
        set.notes.push_back("no held-out split beside the file (no test_batch.bin in the folder)");
        return;
    }
    attachHeldOut(set, readCifar10({file.string()}, options), file.string());
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
    if (set.heldOut) {
        const std::uint64_t heldOutSize = set.heldOut->size();
        hasher.add(&heldOutSize, sizeof heldOutSize);
        hasher.addSpan(std::span<const std::uint8_t>(set.heldOut->labels));
        hasher.addSpan(std::span<const float>(set.heldOut->pixels));
    }
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
        {"held-out",
            set.heldOut ? listing(set.heldOut->sourceFiles) + ": " + plural(set.heldOut->size(), "image") : "none"},
    };
    meta.notes = set.notes;
    return Dataset::make(std::move(meta), std::move(set));
}

Dataset loadImageSet(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path, InputShape::FileOrFolder);
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const std::string split = imageSplit(options, path);
        const std::string name = folderName(path) + " (" + split + ")";
        ImageSet set;
        const bool cifar = holdsCifarBatches(path);
        if (cifar)
            set = readCifar10(findCifarBatches(path, options), options);
        else
            set = readIdx(findIdxPair(path, options), options);
        set.notes.insert(set.notes.begin(), "split: " + split);
        if (split == "test")
            set.notes.push_back("no held-out split: the test split itself was read");
        else if (cifar)
            attachCifarTest(set, path, options);
        else
            attachIdxTest(set, path, options);
        return makeImageDataset(std::move(set), name, path);
    }
    if (!fs::exists(path, ec))
        throw DatasetError(path, "", "no such file or folder");
    const std::string name = baseName(path);
    const std::string lower = lowerCase(name);
    const fs::path directory = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    ImageSet set;
    if (lower.find("idx3-ubyte") != std::string::npos || lower.find("idx1-ubyte") != std::string::npos) {
        const IdxPair pair = findIdxPair(path, options);
        set = readIdx(pair, options);
        // The MNIST family names its train split train-*; any other pair (t10k-*, a user's own) has no test beside.
        if (lowerCase(baseName(pair.images)).starts_with("train-"))
            attachIdxTest(set, directory, options);
        else
            set.notes.push_back("no held-out split: not a train-* file");
    } else if (lower.ends_with(".bin")) {
        set = readCifar10({path}, options);
        if (isTrainBatch(lower))
            attachCifarTest(set, directory, options);
        else
            set.notes.push_back("no held-out split: not a data_batch_N.bin file");
    } else {
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
