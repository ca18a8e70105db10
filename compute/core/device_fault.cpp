#include "compute/core/device_fault.h"

#include "data/host_memory.h"

namespace ks {

std::string deviceMemoryShortfall(std::uint64_t needed, std::uint64_t freeBytes, std::uint64_t totalBytes)
{
    return "needs " + data::formatBytes(needed) + " on the device, " + data::formatBytes(freeBytes) + " free of "
        + data::formatBytes(totalBytes);
}

std::string brokenContextReport(const std::string& cause, const std::string& place)
{
    return "the CUDA context is broken (" + cause + ") after " + place
        + ": CUDA variants are unavailable until restart";
}

std::string runPlace(const std::string& workload, const std::string& variant, std::uint64_t size)
{
    return workload + "/" + variant + " at " + std::to_string(size);
}

} // namespace ks
