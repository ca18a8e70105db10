#include "data/text_file.h"

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <zlib.h>

namespace ks::data {

namespace {
bool hasGzipMagic(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    unsigned char magic[2] = {0, 0};
    in.read(reinterpret_cast<char*>(magic), 2);
    return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::string readGzip(const std::string& path)
{
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        throw DatasetError(path, "", std::string("cannot open: ") + std::strerror(errno));
    std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(file, gzclose);
    gzbuffer(file, 1 << 17);
    const std::uint64_t limit = availableHostMemory() / 2;
    std::string text;
    char chunk[1 << 16];
    for (;;) {
        const int got = gzread(file, chunk, sizeof chunk);
        if (got < 0) {
            int code = 0;
            const char* message = gzerror(file, &code);
            throw DatasetError(path, "byte " + std::to_string(text.size()) + " of the decompressed stream",
                std::string("corrupt gzip data: ") + (message ? message : "unknown error"));
        }
        if (got == 0)
            break;
        text.append(chunk, static_cast<std::size_t>(got));
        if (text.size() > limit)
            throw DatasetError(
                path, "", "decompressed content exceeds the memory available (" + formatBytes(limit) + ")");
    }
    int code = 0;
    gzerror(file, &code);
    // Z_BUF_ERROR here means the file ended in the middle of the gzip stream (zlib.h, gzread).
    if (code != Z_OK)
        throw DatasetError(path, "end of file", "truncated or corrupt gzip stream");
    return text;
}
} // namespace

std::string baseName(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

std::string readTextFile(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw DatasetError(path, "", "no such file");
    if (std::filesystem::is_directory(status))
        throw DatasetError(path, "", "is a directory, not a file");
    requireReadableKind(path);
    if (hasGzipMagic(path))
        return readGzip(path);

    const auto size = std::filesystem::file_size(path, ec);
    if (ec)
        throw DatasetError(path, "", "cannot determine the file size: " + ec.message());
    requireHostMemory(size, path, "", "reading the file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DatasetError(path, "", std::string("cannot open: ") + std::strerror(errno));
    std::string text(size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uintmax_t>(in.gcount()) != size)
        throw DatasetError(path, "", "could not read the whole file");
    return text;
}

} // namespace ks::data
