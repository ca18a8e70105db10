#include "compute/device/cuda_check.cuh"
#include "compute/device/device_buffer.cuh"
#include "data/host_memory.h"

namespace ks::device {

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
    case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

void throwOnCudaError(cudaError_t error, const char* expression, const char* file, int line)
{
    if (error == cudaSuccess)
        return;
    // Clear a non-sticky error so the next call does not see it again.
    cudaGetLastError();
    std::string where = file;
    if (auto pos = where.rfind("/compute/"); pos != std::string::npos)
        where = where.substr(pos + 1);
    throw ComputeError(std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ") in " + expression
            + " at " + where + ":" + std::to_string(line),
        isStickyError(error));
}

void requireDeviceMemory(std::size_t bytes, const std::string& what)
{
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    KS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    if (bytes > freeBytes)
        throw ComputeError(what + " needs " + data::formatBytes(bytes) + " of device memory but only "
            + data::formatBytes(freeBytes) + " of " + data::formatBytes(totalBytes) + " is free");
}

} // namespace ks::device
