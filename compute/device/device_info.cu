// Device query for CUDA builds.
#include "compute/device/cuda_check.cuh"
#include "compute/device/device_info.h"

#include <cstdio>
#include <dlfcn.h>
#include <fstream>
#include <mutex>
#include <sstream>

namespace ks::device {

namespace {
std::string versionString(int v)
{
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

/// The kernel module's version ("580.159.04"), read where the NVIDIA driver publishes it.
std::string kernelDriverVersion()
{
    std::ifstream in("/proc/driver/nvidia/version");
    std::string word;
    std::string previous;
    while (in >> word) {
        if (previous == "Module" && !word.empty() && std::isdigit(static_cast<unsigned char>(word[0])))
            return word;
        if (previous == "Kernel" && word == "Module") {
            previous = "Module";
            continue;
        }
        previous = word;
    }
    return {};
}

/// The driver's version through NVML, which ships with every NVIDIA driver; loaded at run time so the binary does
/// not depend on it.
std::string nvmlDriverVersion()
{
    void* lib = nullptr;
    for (const char* name : {"libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1",
             "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"}) {
        if ((lib = dlopen(name, RTLD_LAZY | RTLD_LOCAL)) != nullptr)
            break;
    }
    if (!lib)
        return {};
    using Init = int (*)();
    using Version = int (*)(char*, unsigned);
    using Shutdown = int (*)();
    const auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
    const auto version = reinterpret_cast<Version>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    const auto shutdown = reinterpret_cast<Shutdown>(dlsym(lib, "nvmlShutdown"));
    std::string result;
    if (init && version && init() == 0) {
        char buffer[96] = {0};
        if (version(buffer, sizeof buffer) == 0)
            result = buffer;
        if (shutdown)
            shutdown();
    }
    dlclose(lib);
    return result;
}

std::string formatUuid(const cudaUUID_t& uuid)
{
    char buffer[64];
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    std::snprintf(buffer, sizeof buffer, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return buffer;
}

struct Query {
    std::vector<DeviceInfo> devices;
    std::string reason;
};

const Query& query()
{
    static const Query result = [] {
        Query q;
        int count = 0;
        const cudaError_t error = cudaGetDeviceCount(&count);
        if (error != cudaSuccess) {
            if (error == cudaErrorInsufficientDriver) {
                int runtime = 0;
                cudaRuntimeGetVersion(&runtime);
                q.reason = "no CUDA device/driver: the NVIDIA driver is missing or older than CUDA "
                    + versionString(runtime) + " needs";
            } else {
                q.reason = std::string("no CUDA device/driver: ") + cudaGetErrorString(error);
            }
            cudaGetLastError();
            return q;
        }
        if (count == 0) {
            q.reason = "no CUDA device/driver: no CUDA-capable device is present";
            return q;
        }
        int driver = 0;
        int runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        std::string driverRelease = kernelDriverVersion();
        if (driverRelease.empty())
            driverRelease = nvmlDriverVersion();
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp prop {};
            if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
                cudaGetLastError();
                continue;
            }
            DeviceInfo info;
            info.kind = "cuda";
            info.index = i;
            info.name = prop.name;
            info.uuid = formatUuid(prop.uuid);
            info.smCount = prop.multiProcessorCount;
            info.ccMajor = prop.major;
            info.ccMinor = prop.minor;
            int khz = 0;
            if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, i) == cudaSuccess)
                info.smClockMHz = khz / 1000;
            if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess)
                info.memClockMHz = khz / 1000;
            cudaGetLastError();
            info.memBusWidthBits = prop.memoryBusWidth;
            info.totalMemory = prop.totalGlobalMem;
            info.l2Bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
            info.lastLevelCacheBytes = info.l2Bytes;
            info.driverVersion = (driverRelease.empty() ? std::string() : driverRelease + " ") + "(CUDA "
                + versionString(driver) + ")";
            info.runtimeVersion = versionString(runtime);
            q.devices.push_back(std::move(info));
        }
        if (q.devices.empty())
            q.reason = "no CUDA device/driver: no device could be queried";
        return q;
    }();
    return result;
}
} // namespace

bool cudaBuilt()
{
    return true;
}

std::vector<DeviceInfo> cudaDevices()
{
    return query().devices;
}

std::string cudaUnavailableReason()
{
    // A broken context says most: it is why CUDA variants that ran a moment ago are skipped now.
    if (std::string broken = cudaUnusableReason(); !broken.empty())
        return broken;
    return query().reason;
}

void selectDevice(int index)
{
    const auto& devices = query().devices;
    if (index < 0 || index >= static_cast<int>(devices.size()))
        throw ComputeError("CUDA device " + std::to_string(index) + " does not exist (" + std::to_string(devices.size())
            + " present)");
    KS_CUDA_CHECK(cudaSetDevice(index));
}

} // namespace ks::device
