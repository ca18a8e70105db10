#include "data/host_memory.h"

#include "data/dataset_error.h"

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>

namespace ks::data {

std::uint64_t availableHostMemory()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t value = 0;
    std::string unit;
    while (meminfo >> key >> value >> unit) {
        if (key == "MemAvailable:")
            return value * 1024ULL;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
        return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
    return UINT64_MAX;
}

void requireHostMemory(std::uint64_t bytes, const std::string& file, const std::string& place, const std::string& what)
{
    const std::uint64_t available = availableHostMemory();
    if (bytes > available)
        throw DatasetError(file, place,
            what + " needs " + formatBytes(bytes) + " of memory but only " + formatBytes(available) + " is available");
}

std::uint64_t saturatingMul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

std::string formatBytes(std::uint64_t bytes)
{
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 6) {
        value /= 1024.0;
        ++unit;
    }
    char buffer[48];
    if (unit == 0)
        std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buffer, sizeof buffer, "%.2f %s", value, kUnits[unit]);
    return buffer;
}

} // namespace ks::data
