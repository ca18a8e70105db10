#include "data/input_file.h"

#include "data/dataset_error.h"
#include "data/read_place.h"

#include <sys/stat.h>

namespace ks::data {

void requireReadableKind(const std::string& path, InputShape shape)
{
    // Every reader passes here first: the reader worker names this file if the reading that follows dies.
    noteReadFile(path);
    struct stat info { };
    // stat, not lstat: a symbolic link is judged by what it points to.
    if (::stat(path.c_str(), &info) != 0)
        return;
    if (S_ISREG(info.st_mode))
        return;
    if (S_ISDIR(info.st_mode)) {
        if (shape == InputShape::FileOrFolder)
            return;
        throw DatasetError(path, "", "is a directory, not a file");
    }
    const char* what = S_ISFIFO(info.st_mode) ? "a FIFO (named pipe)"
        : S_ISCHR(info.st_mode)               ? "a character device"
        : S_ISBLK(info.st_mode)               ? "a block device"
        : S_ISSOCK(info.st_mode)              ? "a socket"
                                              : "of an unknown kind";
    throw DatasetError(path, "", std::string("is ") + what + ", not a regular file");
}

} // namespace ks::data
