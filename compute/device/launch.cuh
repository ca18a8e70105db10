#pragma once

// Launch shapes every GPU variant shares: the full-warp mask of the *_sync intrinsics, grid sizing, and the device's
// multiprocessor count that caps a grid-stride kernel's grid.

#include "compute/device/cuda_check.cuh"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace ks::device {

/// Every lane of a warp: the member mask of a shuffle (or vote) that the whole warp reaches together.
constexpr unsigned kFullWarpMask = 0xffffffffu;

/// Blocks of `perBlock` items each that cover `items` (a thread per item, a warp per row, …): at least one, and at
/// most `maxBlocks` — a grid-stride kernel loops over what a capped grid leaves.
inline unsigned blocksFor(
    std::uint64_t items, std::uint64_t perBlock, std::uint64_t maxBlocks = std::numeric_limits<unsigned>::max())
{
    return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min((items + perBlock - 1) / perBlock, maxBlocks)));
}

/// Programmatic dependent launch (compute capability 9.0 and newer): a kernel launched by launchEarly may be scheduled
/// while the kernel before it in the stream still runs, as soon as every block of that kernel has called
/// allowEarlyLaunch() (or exited); it must call waitForPrerequisites() before it reads anything the kernel before it
/// writes, or writes anything that kernel reads or writes. Compiled for older devices both are no-ops, and after a
/// plain launch the wait returns at once.
__device__ __forceinline__ void allowEarlyLaunch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Waits until the kernel before this one in the stream has finished and its writes are visible (see
/// allowEarlyLaunch).
__device__ __forceinline__ void waitForPrerequisites()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Launches `kernel`, early (programmatic stream serialization, see allowEarlyLaunch) when `early` — which the caller
/// sets only on compute capability 9.0 or newer, with the kernels compiled for it (cudaFuncAttributes::ptxVersion ≥
/// 90) — else as <<<>>> does; a failed launch throws with `name`.
template <typename... Params, typename... Args>
void launchEarly(bool early, const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
    std::size_t sharedBytes, cudaStream_t stream, Args&&... args)
{
    cudaLaunchAttribute attribute {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = sharedBytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = early ? 1 : 0;
    throwOnCudaError(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), name, __FILE__, __LINE__);
    throwOnCudaError(cudaGetLastError(), name, __FILE__, __LINE__);
}

/// The current device's streaming multiprocessors.
inline int multiprocessorCount()
{
    int device = 0;
    KS_CUDA_CHECK(cudaGetDevice(&device));
    int sms = 0;
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

/// Blocks for a grid-stride kernel: as many as `items` need at `perBlock` each, at most `blocksPerSm` for each
/// multiprocessor of the current device, at least one.
inline unsigned gridFor(std::uint64_t items, std::uint64_t perBlock, int blocksPerSm)
{
    return blocksFor(items, perBlock, static_cast<std::uint64_t>(multiprocessorCount()) * blocksPerSm);
}

} // namespace ks::device
