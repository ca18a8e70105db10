// Device query for builds without CUDA: no devices, and the reason says so.
#include "compute/core/errors.h"
#include "compute/device/device_info.h"

namespace ks::device {

bool cudaBuilt()
{
    return false;
}

std::vector<DeviceInfo> cudaDevices()
{
    return {};
}

std::string cudaUnavailableReason()
{
    // A context marked broken (only a test does it in a build without CUDA) is said as it would be with CUDA.
    if (std::string broken = cudaUnusableReason(); !broken.empty())
        return broken;
    return "built without CUDA (no nvcc at configure time)";
}

void selectDevice(int index)
{
    throw ComputeError("cannot select CUDA device " + std::to_string(index) + ": built without CUDA");
}

void requireDeviceMemory(std::size_t, const std::string& what)
{
    throw ComputeError(what + " needs a CUDA device: built without CUDA");
}

} // namespace ks::device
