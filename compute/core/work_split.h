#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ks {

/// Splits [0, total) into `parts` ranges of (nearly) equal `weight`, each boundary a multiple of `align` (the last
/// one total): boundary k is the smallest aligned b with weight(b) ≥ k/parts · weight(total). `weight` is
/// non-decreasing, weight(0) = 0. A multi-device run's shares: rows of a triangle, points of a series.
std::vector<std::uint64_t> equalWorkBounds(
    std::uint64_t total, int parts, std::uint64_t align, const std::function<double(std::uint64_t)>& weight);

} // namespace ks
