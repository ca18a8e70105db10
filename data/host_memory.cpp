#include "data/host_memory.h"

#include "data/dataset_error.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>

namespace ks::data {

namespace {

constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();
std::atomic<std::uint64_t> g_memoryLimit {0};
std::mutex g_memoryLimitNameMutex;
std::string g_memoryLimitName = "--memory-limit";

std::uint64_t machineAvailable()
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
    return kNoLimit;
}

/// A number from a one-line file ("max" and unreadable files are no limit).
std::uint64_t numberIn(const std::string& path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max")
        return kNoLimit;
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return kNoLimit;
    }
}

/// RLIMIT_AS less the address space mapped now.
std::uint64_t addressSpaceHeadroom()
{
    rlimit limit {};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return kNoLimit;
    const std::uint64_t mapped = mappedAddressSpace();
    const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
    return cap > mapped ? cap - mapped : 0;
}

/// The smallest limit now and its name.
std::pair<std::uint64_t, std::string> budget()
{
    std::pair<std::uint64_t, std::string> best {machineAvailable(), ""};
    const auto consider = [&best](std::uint64_t bytes, const std::string& name) {
        if (bytes < best.first)
            best = {bytes, name};
    };
    consider(addressSpaceHeadroom(), "ulimit -v");
    std::ifstream cgroup("/proc/self/cgroup");
    consider(cgroupHeadroom(std::string(std::istreambuf_iterator<char>(cgroup), std::istreambuf_iterator<char>()),
                 "/sys/fs/cgroup"),
        "cgroup limit");
    if (const std::uint64_t own = g_memoryLimit.load(); own != 0)
        consider(own, memoryLimitName());
    return best;
}

} // namespace

std::uint64_t cgroupHeadroom(const std::string& cgroupText, const std::string& root)
{
    std::uint64_t headroom = kNoLimit;
    std::istringstream lines(cgroupText);
    std::string line;
    while (std::getline(lines, line)) {
        // "0::/path" (v2), or "N:memory:/path" / "N:cpu,memory:/path" (v1).
        const std::size_t first = line.find(':');
        const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        std::uint64_t limit = kNoLimit;
        std::uint64_t used = 0;
        if (controllers.empty()) {
            limit = numberIn(root + path + "/memory.max");
            used = numberIn(root + path + "/memory.current");
        } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            limit = numberIn(root + "/memory" + path + "/memory.limit_in_bytes");
            used = numberIn(root + "/memory" + path + "/memory.usage_in_bytes");
        }
        if (limit == kNoLimit)
            continue;
        if (used == kNoLimit)
            used = 0;
        headroom = std::min(headroom, limit > used ? limit - used : 0);
    }
    return headroom;
}

std::uint64_t mappedAddressSpace()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmSize:", 0) == 0)
            return std::stoull(line.substr(7)) * 1024ULL;
    return 0;
}

std::uint64_t availableHostMemory()
{
    return budget().first;
}

std::string memoryBudgetSource()
{
    return budget().second;
}

void setMemoryLimit(std::uint64_t bytes, const std::string& name)
{
    {
        const std::lock_guard lock(g_memoryLimitNameMutex);
        g_memoryLimitName = name;
    }
    g_memoryLimit.store(bytes);
}

std::string memoryLimitName()
{
    const std::lock_guard lock(g_memoryLimitNameMutex);
    return g_memoryLimitName;
}

std::uint64_t memoryLimit()
{
    return g_memoryLimit.load();
}

std::uint64_t parseByteSize(const std::string& text)
{
    std::size_t used = 0;
    double value = 0.0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw std::invalid_argument("'" + text + "' is not a size such as 4G, 512M or 1000000");
    }
    std::string unit = text.substr(used);
    for (char& c : unit)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "IB")
        unit.resize(unit.size() - 2);
    else if (!unit.empty() && unit.back() == 'B')
        unit.pop_back();
    const std::string units = "KMGT";
    double scale = 1.0;
    if (unit.size() == 1 && units.find(unit[0]) != std::string::npos)
        scale = std::pow(1024.0, static_cast<double>(units.find(unit[0]) + 1));
    else if (!unit.empty())
        throw std::invalid_argument("'" + text + "' is not a size such as 4G, 512M or 1000000");
    const double bytes = value * scale;
    if (!(bytes >= 1.0) || bytes >= 1.8e19)
        throw std::invalid_argument("'" + text + "' is not a size between 1 byte and 16 EiB");
    return static_cast<std::uint64_t>(bytes);
}

void requireHostMemory(std::uint64_t bytes, const std::string& file, const std::string& place, const std::string& what)
{
    const auto [available, source] = budget();
    if (bytes > available)
        throw DatasetError(file, place,
            what + " needs " + formatBytes(bytes) + " of memory but only " + formatBytes(available) + " is available"
                + (!source.empty() ? " (" + source + ")" : std::string()));
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
