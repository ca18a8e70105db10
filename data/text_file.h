#pragma once

#include <string>

namespace ks::data {

/// Reads a whole text file into memory; gzip-compressed files (recognised by their magic bytes, so `.gz` or not)
/// are decompressed on the fly. Throws DatasetError for a missing or unreadable file, a corrupt gzip stream, or a
/// file larger than the memory available.
std::string readTextFile(const std::string& path);

/// The file name without its directories, as used in messages and dataset names.
std::string baseName(const std::string& path);

} // namespace ks::data
