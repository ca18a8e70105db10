#pragma once

// Triangle-index inversion, shared by the pair loops of sdh and lrv: a flat index into a lower triangle numbered
// row by row back to its (row, column).

#include "compute/core/host_device.h"

#include <cmath>
#include <cstdint>

namespace ks {

/// Entry k's row from an estimate r that a rounding may have put one off, and its column.
KS_HOST_DEVICE inline void triangleFromEstimate(std::uint64_t k, std::uint64_t& r, std::uint64_t& c)
{
    while (r * (r + 1) / 2 > k)
        --r;
    while ((r + 1) * (r + 2) / 2 <= k)
        ++r;
    c = k - r * (r + 1) / 2;
}

/// Entry k of a lower triangle that includes its diagonal, numbered row by row (row r holds columns 0 … r and
/// starts at r(r + 1)/2): its row r and column c ≤ r. A square root estimates r, an exact integer correction fixes
/// the estimate's rounding.
KS_HOST_DEVICE inline void triangleAt(std::uint64_t k, std::uint64_t& r, std::uint64_t& c)
{
    r = static_cast<std::uint64_t>((sqrt(8.0 * static_cast<double>(k) + 1.0) - 1.0) * 0.5);
    triangleFromEstimate(k, r, c);
}

/// triangleAt for k below 2^32, estimated in single precision (exact after the same correction): for kernels whose
/// FP64 units are the bottleneck — the lrv tensor-core kernel's mma shares them with double arithmetic.
KS_HOST_DEVICE inline void triangleAtSmall(std::uint32_t k, std::uint64_t& r, std::uint64_t& c)
{
    r = static_cast<std::uint64_t>((sqrtf(8.0f * static_cast<float>(k) + 1.0f) - 1.0f) * 0.5f);
    triangleFromEstimate(k, r, c);
}

} // namespace ks
