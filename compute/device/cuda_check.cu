#include "compute/core/device_fault.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/device_buffer.cuh"
#include "data/host_memory.h"

namespace ks::device {

namespace {
std::string placeOf(const char* file, int line)
{
    std::string where = file;
    if (auto pos = where.rfind("/compute/"); pos != std::string::npos)
        where = where.substr(pos + 1);
    return where + ":" + std::to_string(line);
}

/// The device's free and total memory as cudaMemGetInfo says now, or empty when it cannot say.
std::string freeMemoryNow(std::size_t needed)
{
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        cudaGetLastError();
        return needed > 0 ? "needs " + data::formatBytes(needed) + " on the device" : std::string();
    }
    if (needed > 0)
        return deviceMemoryShortfall(needed, freeBytes, totalBytes);
    return data::formatBytes(freeBytes) + " free of " + data::formatBytes(totalBytes);
}

[[noreturn]] void throwOutOfMemory(std::size_t needed, const char* expression, const char* file, int line)
{
    // An allocation failure is not sticky: clear it before asking cudaMemGetInfo, so neither that call nor the next
    // run sees it.
    cudaGetLastError();
    const std::string figures = freeMemoryNow(needed);
    if (needed > 0)
        throw DeviceOutOfMemory("out of device memory: " + figures);
    // A call whose size is not known here (cudaMallocHost's pinned host memory among them): CUDA's words, and the
    // device's figures for what they may be worth.
    throw DeviceOutOfMemory("cudaErrorMemoryAllocation (out of memory) in " + std::string(expression) + " at "
        + placeOf(file, line) + (figures.empty() ? std::string() : " (the device has " + figures + ")"));
}
} // namespace

bool isStickyError(cudaError_t error)
{
    switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorTensorMemoryLeak:
        return true;
    case cudaErrorUnknown: {
        // Not documented either way: the context is broken when a trivial call that needs it fails as well.
        cudaGetLastError();
        const cudaError_t probe = cudaDeviceSynchronize();
        cudaGetLastError();
        return probe != cudaSuccess;
    }
    default:
        return false;
    }
}

void throwOnCudaError(cudaError_t error, const char* expression, const char* file, int line)
{
    if (error == cudaSuccess)
        return;
    if (error == cudaErrorMemoryAllocation)
        throwOutOfMemory(0, expression, file, line);
    const bool sticky = isStickyError(error);
    // Clear a non-sticky error so the next call does not see it again (a sticky one cannot be cleared).
    cudaGetLastError();
    throw ComputeError(std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ") in " + expression
            + " at " + placeOf(file, line),
        sticky, cudaGetErrorString(error));
}

void throwOnAllocationError(cudaError_t error, std::size_t bytes, const char* expression, const char* file, int line)
{
    if (error == cudaErrorMemoryAllocation)
        throwOutOfMemory(bytes, expression, file, line);
    throwOnCudaError(error, expression, file, line);
}

std::string brokenContextCause()
{
    const cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess)
        return {};
    const bool sticky = isStickyError(error);
    cudaGetLastError();
    return sticky ? cudaGetErrorString(error) : std::string();
}

void requireDeviceMemory(std::size_t bytes, const std::string& what)
{
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    KS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    if (bytes > freeBytes)
        throw DeviceOutOfMemory(what + ": " + deviceMemoryShortfall(bytes, freeBytes, totalBytes));
}

void throwLibraryError(const std::string& text, const char* expression, const char* file, int line)
{
    const std::string broken = brokenContextCause();
    throw ComputeError(text + " in " + expression + " at " + placeOf(file, line), !broken.empty(), broken);
}

} // namespace ks::device
