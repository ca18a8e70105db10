#pragma once

// Launch shapes every GPU variant shares: the full-warp mask of the *_sync intrinsics, grid sizing, and the device's
// multiprocessor count that caps a grid-stride kernel's grid.

#include "compute/device/cuda_check.cuh"

#include <algorithm>
#include <cstdint>
#include <limits>

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
