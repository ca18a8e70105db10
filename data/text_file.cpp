#include "data/text_file.h"

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/input_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
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

/// Why a gzip stream stops growing: the budget measured when reading began and the decompressed size reached (the
/// text grows in one buffer, so while it grows the old and the new buffer count together).
[[noreturn]] void inflatesPastBudget(const std::string& path, std::uint64_t budget, std::uint64_t reached)
{
    const std::string source = memoryBudgetSource();
    throw DatasetError(path, "",
        "inflates past the memory budget of " + formatBytes(budget)
            + (source.empty() ? std::string() : " (" + source + ")") + " at " + formatBytes(reached)
            + " of text (growing it holds it twice)");
}

[[noreturn]] void corruptGzip(const std::string& path, gzFile file, std::uint64_t at)
{
    int code = 0;
    const char* message = gzerror(file, &code);
    throw DatasetError(path, "byte " + std::to_string(at) + " of the decompressed stream",
        std::string("corrupt gzip data: ") + (message ? message : "unknown error"));
}

void checkGzipEnd(const std::string& path, gzFile file)
{
    int code = 0;
    gzerror(file, &code);
    // Z_BUF_ERROR here means the file ended in the middle of the gzip stream (zlib.h, gzread).
    if (code != Z_OK)
        throw DatasetError(path, "end of file", "truncated or corrupt gzip stream");
}

gzFile openGzip(const std::string& path)
{
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        throw DatasetError(path, "", std::string("cannot open: ") + std::strerror(errno));
    gzbuffer(file, 1 << 17);
    return file;
}

/// Makes room for `more` bytes after `size` in `text`, growing by half again at a time, so that the old and the new
/// buffer together (a reallocation holds both) never pass `budget`; false when they would.
bool growWithin(std::string& text, std::size_t more, std::uint64_t budget)
{
    const std::uint64_t needed = static_cast<std::uint64_t>(text.size()) + more;
    if (needed <= text.capacity())
        return true;
    const std::uint64_t old = text.capacity();
    std::uint64_t grown = std::max<std::uint64_t>({needed, old + old / 2, 64 << 10});
    if (old + grown > budget)
        grown = budget > old ? budget - old : 0;
    if (grown < needed)
        return false;
    text.reserve(static_cast<std::size_t>(grown));
    return true;
}

std::string readGzip(const std::string& path)
{
    std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(openGzip(path), gzclose);
    gzFile file = guard.get();
    const std::uint64_t budget = availableHostMemory();
    std::string text;
    char chunk[1 << 16];
    for (;;) {
        const int got = gzread(file, chunk, sizeof chunk);
        if (got < 0)
            corruptGzip(path, file, text.size());
        if (got == 0)
            break;
        if (!growWithin(text, static_cast<std::size_t>(got), budget))
            inflatesPastBudget(path, budget, text.size() + static_cast<std::uint64_t>(got));
        text.append(chunk, static_cast<std::size_t>(got));
    }
    checkGzipEnd(path, file);
    return text;
}

/// The checks every text read starts with.
void requireTextFile(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw DatasetError(path, "", "no such file");
    if (std::filesystem::is_directory(status))
        throw DatasetError(path, "", "is a directory, not a file");
    requireReadableKind(path);
}

constexpr std::size_t kStreamChunk = 64 << 10;
constexpr std::string_view kBom = "\xEF\xBB\xBF";
} // namespace

std::string baseName(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

std::string readTextFile(const std::string& path)
{
    requireTextFile(path);
    if (hasGzipMagic(path))
        return readGzip(path);

    std::error_code ec;
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

TextStream::TextStream(const std::string& path)
    : m_path(path)
{
    requireTextFile(path);
    m_compressed = hasGzipMagic(path);
    std::error_code ec;
    m_fileSize = std::filesystem::file_size(path, ec);
    if (ec)
        throw DatasetError(path, "", "cannot determine the file size: " + ec.message());
    // zlib reads a file without the gzip magic as it is, so one path serves both.
    m_file = openGzip(path);
}

TextStream::~TextStream()
{
    if (m_file)
        gzclose(static_cast<gzFile>(m_file));
}

std::uint64_t TextStream::remainingBound() const
{
    if (m_compressed)
        return std::numeric_limits<std::uint64_t>::max();
    return m_fileSize > m_consumed ? m_fileSize - m_consumed : 0;
}

bool TextStream::fill()
{
    if (m_end)
        return false;
    // What is handed out is moved to the front first, so the buffer holds one chunk and the line being read.
    m_buffer.erase(0, m_pos);
    m_pos = 0;
    if (m_buffer.size() + kStreamChunk > m_buffer.capacity()) {
        const std::uint64_t budget = availableHostMemory();
        if (!growWithin(m_buffer, kStreamChunk, budget)) {
            const std::string source = memoryBudgetSource();
            throw DatasetError(m_path, "line " + std::to_string(m_number + 1),
                "a line of " + formatBytes(m_buffer.size()) + " without an end does not fit in the memory budget of "
                    + formatBytes(budget) + (source.empty() ? std::string() : " (" + source + ")"));
        }
    }
    const std::size_t old = m_buffer.size();
    m_buffer.resize(old + kStreamChunk);
    const int got = gzread(static_cast<gzFile>(m_file), m_buffer.data() + old, kStreamChunk);
    if (got < 0)
        corruptGzip(m_path, static_cast<gzFile>(m_file), m_consumed + old);
    m_buffer.resize(old + static_cast<std::size_t>(got));
    if (got == 0) {
        checkGzipEnd(m_path, static_cast<gzFile>(m_file));
        m_end = true;
    }
    return got > 0;
}

bool TextStream::next(std::string_view& line)
{
    std::size_t searched = m_pos;
    for (;;) {
        const std::size_t end = m_buffer.find('\n', searched);
        if (end != std::string::npos || (m_end && m_pos < m_buffer.size())) {
            const std::size_t stop = end == std::string::npos ? m_buffer.size() : end;
            line = std::string_view(m_buffer).substr(m_pos, stop - m_pos);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            if (m_number == 0 && line.starts_with(kBom))
                line.remove_prefix(kBom.size());
            const std::size_t next = end == std::string::npos ? m_buffer.size() : end + 1;
            m_consumed += next - m_pos;
            m_pos = next;
            ++m_number;
            return true;
        }
        if (m_end)
            return false;
        searched = m_buffer.size() - m_pos;
        fill();
    }
}

} // namespace ks::data
