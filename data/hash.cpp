#include "data/hash.h"

#include <cstdio>
#include <cstring>

namespace ks::data {

namespace {
constexpr std::uint64_t kPrime = 0x100000001b3ULL;
}

void ContentHasher::absorbWord(std::uint64_t word)
{
    auto& lane = m_lanes[m_words & 3u];
    lane = (lane ^ word) * kPrime;
    ++m_words;
}

void ContentHasher::add(const void* bytes, std::size_t count)
{
    const auto* p = static_cast<const unsigned char*>(bytes);
    m_bytes += count;
    while (count > 0 && m_pendingCount > 0) {
        m_pending[m_pendingCount++] = *p++;
        --count;
        if (m_pendingCount == 8) {
            std::uint64_t word;
            std::memcpy(&word, m_pending.data(), 8);
            absorbWord(word);
            m_pendingCount = 0;
        }
    }
    // Four lanes at a time: independent multiply chains keep the hash near memory speed.
    while (count >= 32) {
        std::uint64_t w[4];
        std::memcpy(w, p, 32);
        for (int k = 0; k < 4; ++k)
            m_lanes[(m_words + static_cast<unsigned>(k)) & 3u]
                = (m_lanes[(m_words + static_cast<unsigned>(k)) & 3u] ^ w[k]) * kPrime;
        m_words += 4;
        p += 32;
        count -= 32;
    }
    while (count >= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        absorbWord(word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        m_pending[m_pendingCount++] = *p++;
        --count;
    }
}

std::uint64_t ContentHasher::value() const
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    auto mix = [&h](std::uint64_t v) {
        for (int k = 0; k < 8; ++k) {
            h ^= (v >> (8 * k)) & 0xffu;
            h *= kPrime;
        }
    };
    for (auto lane : m_lanes)
        mix(lane);
    for (std::size_t i = 0; i < m_pendingCount; ++i) {
        h ^= m_pending[i];
        h *= kPrime;
    }
    mix(m_bytes);
    return h;
}

std::string ContentHasher::hex() const
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "ks64:%016llx", static_cast<unsigned long long>(value()));
    return buffer;
}

} // namespace ks::data
