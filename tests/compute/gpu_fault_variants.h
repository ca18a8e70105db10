#pragma once

// Test-only GPU variants that fail on purpose (gpu_fault_variants.cu): compiled into ks_gpu_fault_tests alone, never
// registered in the product's registry.

#include "compute/core/variant.h"

#include <cstddef>
#include <string>

namespace ks::test {

/// spmv's `faulty`: uploads A and x as every spmv GPU variant does, then its kernel writes far past the end of y. The
/// store hits an address no allocation has, so the device raises a sticky error (cudaErrorIllegalAddress, or
/// cudaErrorLaunchFailure under compute-sanitizer) and the CUDA context is broken for the rest of the process.
PrepareSignature prepareFaulty;
/// spmv's `hungry`: its prepare asks for one buffer 1 GiB larger than the device's total memory.
PrepareSignature prepareHungry;

/// The CUDA runtime's last error, cleared: empty when there is none.
std::string takeLastCudaError();
/// The device's total memory in bytes (cudaMemGetInfo).
std::size_t deviceTotalBytes();

} // namespace ks::test
