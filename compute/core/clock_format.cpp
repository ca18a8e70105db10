#include "compute/core/clock_format.h"

#include <chrono>
#include <ctime>
#include <unistd.h>

namespace ks {

namespace {
std::string formatNow(const char* pattern)
{
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc {};
    gmtime_r(&now, &utc);
    char buffer[64];
    std::strftime(buffer, sizeof buffer, pattern, &utc);
    return buffer;
}
} // namespace

std::string utcTimestamp()
{
    return formatNow("%Y-%m-%dT%H:%M:%SZ");
}

std::string sessionStamp()
{
    return formatNow("%Y%m%dT%H%M%S") + "-" + std::to_string(getpid());
}

} // namespace ks
