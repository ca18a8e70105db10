#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace ks::data::h5 {

/// What a dataset in an HDF5 file is, read from its metadata without touching its data.
struct DatasetInfo {
    std::string path; ///< absolute, e.g. "/group/x"
    std::vector<std::uint64_t> dims; ///< extents; rank is dims.size()
    std::string type; ///< "float64", "float32", "int32", "uint8", "string", "compound", ...
    bool isFloat = false;
    bool isInteger = false;
    bool chunked = false;
    std::vector<std::string> filters; ///< "gzip (1)", "shuffle (2)", "lzf (32000, not available)", ...
    std::uint64_t elementCount() const;
};

/// Every group and dataset in a file reached through hard links (as H5Ovisit lists them), in one pass linear in the
/// number of objects: for searches that ask about many paths.
struct Contents {
    std::vector<std::string> groups; ///< "/" first, then depth first in name order
    std::vector<std::string> datasets; ///< depth first in name order
    std::unordered_set<std::string> datasetSet; ///< the same paths, for lookups
    std::unordered_set<std::string> links; ///< soft and external links, not followed
    /// A dataset reached through hard links.
    bool hasDataset(const std::string& path) const;
};

/// An open HDF5 file. All HDF5 calls are serialised (Debian's library is not thread-safe), HDF5's own error
/// printing is off, and every failure becomes a DatasetError naming the file, the dataset and HDF5's error stack.
class File {
public:
    /// Opens read-only. DatasetError for a missing file or one that is not HDF5.
    static File open(const std::string& path);
    /// Creates (truncates) a file for writing.
    static File create(const std::string& path);

    File(File&&) noexcept;
    File& operator=(File&&) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    const std::string& path() const { return m_path; }

    /// Every dataset in the file reached through hard links, depth first, in name order.
    std::vector<DatasetInfo> datasets() const;
    /// The datasets in `group` and the groups below it, in the same order.
    std::vector<DatasetInfo> datasets(const std::string& group) const;
    /// Every group in the file, "/" first.
    std::vector<std::string> groups() const;
    /// The groups and datasets of the whole file in one pass (linear in the number of objects).
    Contents contents() const;
    /// A dataset at `path` in `contents`, or a soft or external link there that leads to one (resolved only then).
    bool hasDataset(const Contents& contents, const std::string& path) const;
    bool hasDataset(const std::string& path) const;
    bool hasGroup(const std::string& path) const;
    DatasetInfo info(const std::string& path) const;

    /// Reads a numeric dataset converted to double. Checks rank (0 = any), that the type is numeric (floats only
    /// when floatOnly), that every filter it needs is available and that the memory fits, all before reading.
    std::vector<double> readDoubles(const std::string& path, int expectedRank, bool floatOnly) const;
    /// Rows [firstRow, firstRow + rowCount) along the first extent of a numeric dataset, converted to double, with
    /// the same checks; only those rows are read (a hyperslab), and only their memory is required.
    std::vector<double> readDoubleRows(
        const std::string& path, int expectedRank, std::uint64_t firstRow, std::uint64_t rowCount) const;
    std::vector<float> readFloats(const std::string& path, int expectedRank, bool floatOnly) const;
    std::vector<std::string> readStrings(const std::string& path) const;
    /// Reads an integer dataset converted to int64 (uint64 values beyond it saturate), with the same checks before
    /// reading; a float or other dataset is a DatasetError.
    std::vector<std::int64_t> readInt64s(const std::string& path, int expectedRank) const;
    /// Reads an integer dataset whose type int32 holds exactly (int8 to int32, uint8, uint16); any other type is a
    /// DatasetError, so callers read wider types with readInt64s and check the range themselves.
    std::vector<std::int32_t> readInt32s(const std::string& path, int expectedRank) const;

    /// Writes a dataset (gzip-compressed and chunked when `compress` and it is large enough).
    void writeDoubles(const std::string& path, std::span<const double> values, std::vector<std::uint64_t> dims,
        bool compress = false);
    void writeFloats(
        const std::string& path, std::span<const float> values, std::vector<std::uint64_t> dims, bool compress = false);
    void writeUInt64s(const std::string& path, std::span<const std::uint64_t> values, std::vector<std::uint64_t> dims,
        bool compress = false);
    void writeInt32s(const std::string& path, std::span<const std::int32_t> values, std::vector<std::uint64_t> dims,
        bool compress = false);
    void writeUInt8s(const std::string& path, std::span<const std::uint8_t> values, std::vector<std::uint64_t> dims,
        bool compress = false);
    void writeInt64s(const std::string& path, std::span<const std::int64_t> values, std::vector<std::uint64_t> dims,
        bool compress = false);
    void writeStrings(const std::string& path, const std::vector<std::string>& values);
    void writeStringAttribute(const std::string& objectPath, const std::string& name, const std::string& value);
    std::string readStringAttribute(const std::string& objectPath, const std::string& name) const;
    bool hasAttribute(const std::string& objectPath, const std::string& name) const;
    /// A numeric attribute's values (any rank, flattened) converted to double; DatasetError naming the object when
    /// it is missing or not numeric.
    std::vector<double> readNumericAttribute(const std::string& objectPath, const std::string& name) const;
    /// Writes a 1-D int64 attribute (numpy's int64 array, as AnnData writes `shape`).
    void writeInt64Attribute(
        const std::string& objectPath, const std::string& name, std::span<const std::int64_t> values);
    void createGroup(const std::string& path);

    /// Raises a DatasetError naming this file and `place`, for readers built on this class.
    [[noreturn]] void fail(const std::string& place, const std::string& problem) const;

private:
    File(std::string path, std::int64_t id);
    struct Impl;
    std::string m_path;
    std::int64_t m_id = -1;
};

/// True when the file starts with the HDF5 signature (checked at offsets 0, 512, 1024, ...).
bool looksLikeHdf5(const std::string& path);

/// "/a/b" from the --h5-path a user typed ("a/b", "/a/b/", …).
std::string normalisedPath(std::string path);

/// The group holding `path`: "/a" for "/a/b", "/" for "/b".
std::string parentPath(const std::string& path);
/// `name` in `group`: "/b" in "/", "/a/b" in "/a".
std::string childPath(const std::string& group, const std::string& name);
/// "/a/x (float64 3×4)": a dataset as the readers list it in their messages.
std::string describe(const DatasetInfo& info);
/// describe() of each.
std::vector<std::string> describe(const std::vector<DatasetInfo>& infos);

/// A reader's search for the one dataset it reads: the dataset --h5-path names, else every dataset in the group it
/// names (the whole file when it is empty) and those of them that `fits`. `chosen` is the named dataset or the only
/// one that fits; empty, the reader decides or fails, its message listing `all` or `fitting`.
struct DatasetSearch {
    std::string chosen;
    std::string group = "/";
    std::vector<DatasetInfo> all;
    std::vector<DatasetInfo> fitting;

    /// "the file" or "group /g": where the search looked, as messages say it.
    std::string where() const;
};
DatasetSearch searchDatasets(
    const File& file, const std::string& h5Path, const std::function<bool(const DatasetInfo&)>& fits);

/// Where --h5-path points: `dataset` when it names a dataset; otherwise `group`, the group to search ("/" when
/// h5Path is empty). Fails, naming the path, when it names neither.
struct PathTarget {
    std::string dataset;
    std::string group = "/";
};
PathTarget resolvePath(const File& file, const std::string& h5Path);

} // namespace ks::data::h5
