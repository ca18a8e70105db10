#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace ks::data {

/// Incremental content hash (FNV-1a on 64-bit words in four interleaved lanes, so gigabytes hash in well under
/// a second). Identifies a dataset's numeric content in result rows, independent of the file format.
class ContentHasher {
public:
    void add(const void* bytes, std::size_t count);
    template <class T> void addSpan(std::span<const T> values) { add(values.data(), values.size_bytes()); }
    std::uint64_t value() const;
    /// "ks64:0123456789abcdef"
    std::string hex() const;

private:
    void absorbWord(std::uint64_t word);

    std::array<std::uint64_t, 4> m_lanes {
        0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL, 0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL};
    std::array<unsigned char, 8> m_pending {};
    std::size_t m_pendingCount = 0;
    std::uint64_t m_words = 0;
    std::uint64_t m_bytes = 0;
};

} // namespace ks::data
