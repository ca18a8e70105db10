#pragma once

#include "compute/core/errors.h"

#include <cuda_runtime.h>
#include <string>

namespace ks::device {

/// True for errors after which the CUDA context is unusable for the rest of the process.
bool isStickyError(cudaError_t error);

/// Throws ComputeError naming the expression, its place and CUDA's message when `error` is not cudaSuccess.
void throwOnCudaError(cudaError_t error, const char* expression, const char* file, int line);

} // namespace ks::device

/// Checks a CUDA runtime call: throws ComputeError with the expression, file, line and CUDA's message.
#define KS_CUDA_CHECK(expr) ::ks::device::throwOnCudaError((expr), #expr, __FILE__, __LINE__)
/// Checks the last error after a kernel launch (configuration errors are reported here).
#define KS_CUDA_CHECK_LAUNCH(kernelName)                                                                               \
    ::ks::device::throwOnCudaError(cudaGetLastError(), "launch of " kernelName, __FILE__, __LINE__)
