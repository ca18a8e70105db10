#pragma once

#include "compute/core/errors.h"

#include <cstddef>
#include <cuda_runtime.h>
#include <string>

namespace ks::device {

/// True for errors after which the CUDA context is unusable for the rest of the process: those the CUDA Runtime API
/// documents as "this leaves the process in an inconsistent state and any further CUDA work will return the same
/// error", and cudaErrorUnknown when a trivial call after it fails too.
bool isStickyError(cudaError_t error);

/// Throws ComputeError naming the expression, its place and CUDA's message when `error` is not cudaSuccess; a
/// non-sticky error is cleared first (cudaGetLastError) so the next call does not see it. cudaErrorMemoryAllocation
/// throws DeviceOutOfMemory with the device's free and total memory.
void throwOnCudaError(cudaError_t error, const char* expression, const char* file, int line);

/// throwOnCudaError for an allocation of `bytes`: cudaErrorMemoryAllocation throws DeviceOutOfMemory saying what was
/// asked for and what the device has ("needs 93.10 GiB on the device, 79.20 GiB free of 79.60 GiB").
void throwOnAllocationError(cudaError_t error, std::size_t bytes, const char* expression, const char* file, int line);

/// After a vendor library's call failed (cuBLAS, cuSPARSE and cuDNN say only "execution failed"): CUDA's words for
/// the sticky error behind it, or empty when the context is still whole (a non-sticky error found is cleared).
std::string brokenContextCause();

/// Throws ComputeError for a vendor library's failed call: "`text` in `expression` at compute/….cu:`line`", sticky
/// with CUDA's cause when the context is broken (a library's status hides that behind "execution failed").
[[noreturn]] void throwLibraryError(const std::string& text, const char* expression, const char* file, int line);

} // namespace ks::device

/// Checks a CUDA runtime call: throws ComputeError with the expression, file, line and CUDA's message.
#define KS_CUDA_CHECK(expr) ::ks::device::throwOnCudaError((expr), #expr, __FILE__, __LINE__)
/// Checks a device allocation of `bytes` (cudaMalloc, cudaMallocAsync): running out of device memory is a
/// DeviceOutOfMemory with the bytes asked for and the device's free and total memory.
#define KS_CUDA_CHECK_ALLOC(expr, bytes)                                                                               \
    ::ks::device::throwOnAllocationError((expr), (bytes), #expr, __FILE__, __LINE__)
/// Checks the last error after a kernel launch (configuration errors are reported here).
#define KS_CUDA_CHECK_LAUNCH(kernelName)                                                                               \
    ::ks::device::throwOnCudaError(cudaGetLastError(), "launch of " kernelName, __FILE__, __LINE__)
