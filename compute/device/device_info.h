#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

/// Where a run executed: a CUDA device, or the host CPU for cpu variants. Plain C++: the GUI includes it.
struct DeviceInfo {
    std::string kind; ///< "cuda" or "host"
    int index = -1;
    std::string name;
    std::string uuid;
    int smCount = 0; ///< multiprocessors; for the host, hardware threads
    int ccMajor = 0;
    int ccMinor = 0;
    int smClockMHz = 0; ///< peak SM clock
    int memClockMHz = 0; ///< peak memory clock
    int memBusWidthBits = 0;
    std::uint64_t totalMemory = 0;
    std::uint64_t l2Bytes = 0;
    /// The last-level cache a working set is compared against (Summary::cacheResident): L2 for a GPU, the highest
    /// level the kernel reports for the host; 0 when unknown.
    std::uint64_t lastLevelCacheBytes = 0;
    std::string driverVersion;
    std::string runtimeVersion;
};

namespace device {

/// True when this binary was compiled with the CUDA variants.
bool cudaBuilt();
/// The CUDA devices present; empty without a driver, a device, or CUDA support in the build.
std::vector<DeviceInfo> cudaDevices();
/// Empty when CUDA variants can run; otherwise the reason ("built without CUDA", "no CUDA device/driver: …").
std::string cudaUnavailableReason();
/// Makes `index` the current device of the calling thread; throws ComputeError when it does not exist.
void selectDevice(int index);
/// The host CPU as a DeviceInfo (name from /proc/cpuinfo, hardware threads as smCount, the last-level cache from
/// hostLastLevelCacheBytes).
DeviceInfo hostInfo();
/// The largest cache of the highest level listed under `cacheDir` (Linux sysfs: index*/level, index*/size such as
/// "32768K", index*/type; instruction caches ignored); 0 when the directory or its files are missing or unreadable.
std::uint64_t hostLastLevelCacheBytes(const std::string& cacheDir = "/sys/devices/system/cpu/cpu0/cache");
/// Called after a sticky CUDA error: every CUDA variant is unavailable with this reason until restart.
void markCudaUnusable(const std::string& reason);
/// Throws ComputeError when `bytes` more device memory is not free on the current device, so a too-large
/// dataset gets a clear message instead of an allocation failure deep inside a variant.
void requireDeviceMemory(std::size_t bytes, const std::string& what);
/// The reason given to markCudaUnusable, or empty.
std::string cudaUnusableReason();

} // namespace device
} // namespace ks
