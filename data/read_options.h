#pragma once

#include <map>
#include <string>

namespace ks::data {

/// What a caller may tell a dataset reader besides the path. Every field may keep its default; each reader reads only
/// the fields whose comments name it and ignores the rest.
struct ReadOptions {
    /// Keep NaN/Inf instead of rejecting the file: read by the series, point-cloud and sparse-matrix readers and by
    /// readVector. The expression-table readers ignore it: an infinity is always an error there and a NaN a missing
    /// value (their `na` parameter).
    bool allowNonFinite = false;
    /// The group or dataset to read from an HDF5 file with several candidates: read by every HDF5 reader, ignored by
    /// the text formats. loadSparseMatrix applies it to the matrix's file only, never to vectorPath.
    std::string h5Path;
    /// Read only by loadSparseMatrix (spmv): x comes from this file (readVector) instead of being generated.
    std::string vectorPath;
    /// The run's parameters. Read only by the readers that declare reader options, each at its own keys: the
    /// expression-table readers (orientation, zeros, na), the point-cloud readers (frame) and the image-set readers
    /// (split). Every other key, and every other reader, ignores them; the workload's parameter axes validate the
    /// values.
    std::map<std::string, std::string> params;
};

} // namespace ks::data
