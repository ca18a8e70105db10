#include "compute/core/cpu_run.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

namespace ks {

namespace {
std::size_t lastLevelCacheBytes()
{
    std::size_t largest = 0;
    for (int index = 0; index < 8; ++index) {
        std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
        std::string text;
        if (!(in >> text) || text.empty())
            continue;
        std::size_t value = std::stoul(text);
        const char unit = text.back();
        if (unit == 'K')
            value <<= 10;
        else if (unit == 'M')
            value <<= 20;
        largest = std::max(largest, value);
    }
    return largest > 0 ? largest : std::size_t(32) << 20;
}
} // namespace

const Clock& steadyClock()
{
    static const SteadyClock clock;
    return clock;
}

void HostCacheFlusher::flush()
{
    if (m_buffer.empty())
        m_buffer.resize(std::min<std::size_t>(2 * lastLevelCacheBytes(), std::size_t(512) << 20));
    // The byte changes every time so the stores cannot be elided.
    std::memset(m_buffer.data(), m_buffer[0] + 1, m_buffer.size());
}

} // namespace ks
