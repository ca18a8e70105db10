#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ks::data {

/// Reads a whole text file into memory; gzip-compressed files (recognised by their magic bytes, so `.gz` or not)
/// are decompressed on the fly. Throws DatasetError for a missing or unreadable file, a corrupt gzip stream, a file
/// larger than the memory budget, or a gzip stream that inflates past it (refused before the buffer grows beyond it,
/// naming the budget and the size reached).
std::string readTextFile(const std::string& path);

/// A text file read a chunk at a time and handed out a line at a time, as LineCursor hands out a text in memory (LF
/// or CRLF, numbered from 1; a UTF-8 byte-order mark at the start dropped), gzip decompressed as it goes: for readers
/// that keep a small part of a large file (one frame of a trajectory) or stop early (a vector longer than wanted), so
/// only what they keep is in memory. The same checks and errors as readTextFile; a line longer than the memory
/// budget is refused.
class TextStream {
public:
    explicit TextStream(const std::string& path);
    ~TextStream();
    TextStream(const TextStream&) = delete;
    TextStream& operator=(const TextStream&) = delete;

    /// The next line, valid until the next call; false at the end of the file.
    bool next(std::string_view& line);
    /// The last line handed out.
    std::size_t number() const { return m_number; }
    /// Bytes of text (decompressed) handed out so far, line ends included.
    std::uint64_t consumed() const { return m_consumed; }
    /// The file's size on disk (compressed for gzip).
    std::uint64_t fileSize() const { return m_fileSize; }
    bool compressed() const { return m_compressed; }
    /// At most how many bytes of text remain: exact for a plain file, unknown (the largest uint64) for gzip.
    std::uint64_t remainingBound() const;

private:
    bool fill();

    std::string m_path;
    void* m_file = nullptr; // gzFile: zlib's type stays out of this header
    std::string m_buffer;
    std::size_t m_pos = 0;
    std::size_t m_number = 0;
    std::uint64_t m_consumed = 0;
    std::uint64_t m_fileSize = 0;
    bool m_compressed = false;
    bool m_end = false;
};

/// The file name without its directories, as used in messages and dataset names.
std::string baseName(const std::string& path);

} // namespace ks::data
