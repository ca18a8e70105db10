#pragma once

#include <string>

namespace ks::data {

/// What an input path may be besides a regular file.
enum class InputShape {
    File, ///< a regular file (or a symbolic link to one)
    FileOrFolder, ///< also a directory: readers that take a folder (MEX, IDX, CIFAR-10)
};

/// Refuses, before anything opens it, an input that is not a regular file (a FIFO, a character or block device, a
/// socket, a directory where no folder is read): opening a FIFO blocks until a writer comes, reading a device may
/// never end. The DatasetError names the path and what it is. A missing path passes: each reader says so in its words.
void requireReadableKind(const std::string& path, InputShape shape = InputShape::File);

} // namespace ks::data
