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

/// Entry k of the rows [firstRow, endRow) of that triangle (k counted from entry 0 of row 0, as triangleAt counts;
/// k below 2^32) in a grouped order instead: the rows in groups of `groupRows` from firstRow (the last group
/// shorter), each group the same entries as row by row, but column by column — column c's entries of the group's
/// rows in row order, then the next column. A kernel whose blocks take the entries in this order reads a column's
/// data for `groupRows` rows at once, and sweeps the columns once a group instead of once a row (a threadblock
/// swizzle, as GEMM libraries raster their tiles).
KS_HOST_DEVICE inline void triangleAtGrouped(std::uint32_t k, std::uint32_t firstRow, std::uint32_t endRow,
    std::uint32_t groupRows, std::uint64_t& r, std::uint64_t& c)
{
    triangleAtSmall(k, r, c); // the row, row by row: its group holds the same entries
    if (groupRows <= 1)
        return;
    // 32-bit arithmetic throughout (k < 2^32 bounds every count here): a kernel pays for 64-bit divisions.
    const auto row = static_cast<std::uint32_t>(r);
    const std::uint32_t group = firstRow + (row - firstRow) / groupRows * groupRows;
    const std::uint32_t rows = endRow - group < groupRows ? endRow - group : groupRows;
    std::uint32_t local = k - static_cast<std::uint32_t>(std::uint64_t {group} * (group + 1) / 2);
    if (local < rows * group) { // columns 0 … group − 1: every row of the group has them
        c = local / rows;
        r = group + local % rows;
        return;
    }
    local -= rows * group; // the group's own triangle: column group + m has rows − m entries
    std::uint32_t m = 0;
    while (local >= rows - m) {
        local -= rows - m;
        ++m;
    }
    c = group + m;
    r = group + m + local;
}
} // namespace ks
