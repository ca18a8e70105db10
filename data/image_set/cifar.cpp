// CIFAR-10 binary batches: records of one label byte and 3,072 pixel bytes (R, G, B planes of 32 × 32), a file or a
// folder of data_batch_N.bin / test_batch.bin, with batches.meta.txt's class names when it is there.

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/image_set.h"
#include "data/line_cursor.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <utility>

namespace ks::data {

namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kCifarSide = 32;
constexpr std::uint32_t kCifarChannels = 3;
constexpr std::uint64_t kCifarPixels = std::uint64_t {kCifarChannels} * kCifarSide * kCifarSide;
constexpr std::uint64_t kCifar10Record = 1 + kCifarPixels;
constexpr std::uint64_t kCifar100Record = 2 + kCifarPixels;

const std::array<const char*, kImageClasses> kCifar10Names
    = {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};

/// N of data_batch_N.bin, or 0 for any other name.
std::uint64_t batchNumber(const std::string& name)
{
    const std::string_view prefix = "data_batch_";
    const std::string_view suffix = ".bin";
    if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() <= prefix.size() + suffix.size())
        return 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size() - suffix.size();
    std::uint64_t n = 0;
    const auto [ptr, ec] = std::from_chars(first, last, n);
    return ec == std::errc() && ptr == last ? n : 0;
}

/// The file's size, checked to hold whole CIFAR-10 records.
std::uint64_t checkedRecords(const std::string& path)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw DatasetError(path, "", fs::exists(path, ec) ? "not a regular file" : "no such file");
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec)
        throw DatasetError(path, "", "cannot determine the file size: " + ec.message());
    if (size == 0)
        throw DatasetError(path, "byte 0", "empty file; a CIFAR-10 batch holds records of 3,073 bytes");
    if (size % kCifar10Record != 0) {
        if (size % kCifar100Record == 0)
            throw DatasetError(path, "byte " + std::to_string(size),
                "this is a CIFAR-100 file: its " + std::to_string(size) + " bytes are "
                    + plural(size / kCifar100Record, "record") + " of 3,074 bytes (coarse and fine label, then 3,072 "
                    + "pixels); only CIFAR-10 (1 label byte, 3,073-byte records, 10 classes) is read");
        const std::uint64_t whole = size / kCifar10Record;
        throw DatasetError(path, "record " + std::to_string(whole) + ", byte " + std::to_string(whole * kCifar10Record),
            "the file's " + std::to_string(size) + " bytes are not a multiple of 3,073: the last record has "
                + plural(size % kCifar10Record, "byte") + " (truncated)");
    }
    return size / kCifar10Record;
}

/// batches.meta.txt: one class name a line (blank lines ignored); empty when absent or not ten names.
std::vector<std::string> metaNames(const fs::path& directory)
{
    std::error_code ec;
    const fs::path meta = directory / "batches.meta.txt";
    if (!fs::is_regular_file(meta, ec))
        return {};
    const std::string text = readTextFile(meta.string());
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string_view line = trimmed(std::string_view(text).substr(start, end - start));
        if (!line.empty())
            names.emplace_back(line);
        start = end + 1;
    }
    return names.size() == kImageClasses ? names : std::vector<std::string> {};
}

} // namespace

std::vector<std::string> findCifarBatches(const std::string& path, const ReadOptions& options)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return {path};
    const std::string split = imageSplit(options, path);
    if (split == "test") {
        const fs::path test = fs::path(path) / "test_batch.bin";
        if (!fs::is_regular_file(test, ec))
            throw DatasetError(path, "", "no test_batch.bin in the folder for the test split");
        return {test.string()};
    }
    std::vector<std::pair<std::uint64_t, std::string>> batches;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
        const std::uint64_t n = batchNumber(entry.path().filename().string());
        if (n > 0 && entry.is_regular_file())
            batches.emplace_back(n, entry.path().string());
    }
    if (batches.empty())
        throw DatasetError(path, "", "no data_batch_N.bin in the folder for the train split");
    std::sort(batches.begin(), batches.end());
    std::vector<std::string> files;
    files.reserve(batches.size());
    for (auto& batch : batches)
        files.push_back(std::move(batch.second));
    return files;
}

ImageSet readCifar10(const std::vector<std::string>& files, const ReadOptions&)
{
    if (files.empty())
        throw std::invalid_argument("readCifar10: no files");
    // Every file's size first: a bad last batch fails before the first is read.
    std::uint64_t total = 0;
    for (const auto& file : files)
        total = saturatingAdd(total, checkedRecords(file));
    requireHostMemory(saturatingMul(total, kCifarPixels * (1 + sizeof(float))), files.front(), "",
        "reading " + plural(total, "CIFAR-10 image"));

    ImageSet set;
    set.channels = kCifarChannels;
    set.height = kCifarSide;
    set.width = kCifarSide;
    set.labels.reserve(total);
    std::vector<std::uint8_t> raw;
    raw.reserve(total * kCifarPixels);
    for (const auto& file : files) {
        const std::string bytes = readTextFile(file);
        if (bytes.size() % kCifar10Record != 0)
            throw DatasetError(file, "byte " + std::to_string(bytes.size()),
                "the content changed while it was read: " + std::to_string(bytes.size())
                    + " bytes are not whole 3,073-byte records");
        const std::uint64_t records = bytes.size() / kCifar10Record;
        for (std::uint64_t r = 0; r < records; ++r) {
            const char* record = bytes.data() + r * kCifar10Record;
            const auto label = static_cast<unsigned char>(record[0]);
            if (label >= kImageClasses)
                throw DatasetError(file, "record " + std::to_string(r) + ", byte " + std::to_string(r * kCifar10Record),
                    "label " + std::to_string(label) + " is not below " + std::to_string(kImageClasses)
                        + ", the number of CIFAR-10 classes");
            set.labels.push_back(label);
            raw.insert(raw.end(), record + 1, record + kCifar10Record);
        }
        set.sourceFiles.push_back(baseName(file));
    }
    normaliseImages(set, raw, files.front());
    const fs::path directory = fs::path(files.front()).has_parent_path() ? fs::path(files.front()).parent_path() : ".";
    set.classNames = metaNames(directory);
    if (set.classNames.empty())
        set.classNames.assign(kCifar10Names.begin(), kCifar10Names.end());
    else
        set.notes.push_back("class names from batches.meta.txt");
    if (files.size() > 1)
        set.notes.push_back("read " + plural(files.size(), "batch", "batches") + ": " + listing(set.sourceFiles));
    return set;
}

} // namespace ks::data
