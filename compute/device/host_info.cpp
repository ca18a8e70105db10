#include "compute/device/device_info.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <sys/utsname.h>
#include <thread>

namespace ks::device {

namespace {
std::mutex& unusableMutex()
{
    static std::mutex mutex;
    return mutex;
}
std::string& unusableReasonStorage()
{
    static std::string reason;
    return reason;
}

/// The first line of a small sysfs file, or empty when it cannot be read.
std::string firstLine(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

/// A sysfs cache size ("32K", "1024K", "8M", or plain bytes) in bytes; 0 when it does not parse.
std::uint64_t parseCacheSize(const std::string& text)
{
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        ++digits;
    if (digits == 0 || digits > 15)
        return 0;
    std::uint64_t value = std::stoull(text.substr(0, digits));
    switch (digits < text.size() ? std::toupper(static_cast<unsigned char>(text[digits])) : 0) {
    case 0:
        return value;
    case 'K':
        return value << 10;
    case 'M':
        return value << 20;
    case 'G':
        return value << 30;
    default:
        return 0;
    }
}
} // namespace

void markCudaUnusable(const std::string& reason)
{
    std::lock_guard lock(unusableMutex());
    if (unusableReasonStorage().empty())
        unusableReasonStorage() = reason;
}

/// The reason recorded by markCudaUnusable, or empty.
std::string cudaUnusableReason()
{
    std::lock_guard lock(unusableMutex());
    return unusableReasonStorage();
}

std::uint64_t hostLastLevelCacheBytes(const std::string& cacheDir)
{
    std::error_code ec;
    std::filesystem::directory_iterator it(cacheDir, ec);
    if (ec)
        return 0;
    int bestLevel = 0;
    std::uint64_t bestBytes = 0;
    for (const auto& entry : it) {
        if (entry.path().filename().string().rfind("index", 0) != 0)
            continue;
        if (firstLine(entry.path() / "type") == "Instruction")
            continue;
        const std::string levelText = firstLine(entry.path() / "level");
        if (levelText.empty() || levelText.size() > 2 || !std::isdigit(static_cast<unsigned char>(levelText[0])))
            continue;
        const int level = std::stoi(levelText);
        const std::uint64_t bytes = parseCacheSize(firstLine(entry.path() / "size"));
        if (bytes == 0)
            continue;
        if (level > bestLevel || (level == bestLevel && bytes > bestBytes)) {
            bestLevel = level;
            bestBytes = bytes;
        }
    }
    return bestBytes;
}

DeviceInfo hostInfo()
{
    DeviceInfo info;
    info.kind = "host";
    info.index = 0;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                info.name = line.substr(line.find_first_not_of(' ', colon + 1));
            break;
        }
    }
    if (info.name.empty()) {
        utsname u {};
        info.name = uname(&u) == 0 ? std::string(u.machine) + " CPU" : "CPU";
    }
    info.smCount = static_cast<int>(std::thread::hardware_concurrency());
    info.lastLevelCacheBytes = hostLastLevelCacheBytes();
    utsname u {};
    if (uname(&u) == 0)
        info.driverVersion = std::string(u.sysname) + " " + u.release;
    return info;
}

} // namespace ks::device
