#include "compute/device/device_info.h"

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
    utsname u {};
    if (uname(&u) == 0)
        info.driverVersion = std::string(u.sysname) + " " + u.release;
    return info;
}

} // namespace ks::device
