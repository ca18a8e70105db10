#include "compute/core/work_split.h"

#include <algorithm>

namespace ks {

std::vector<std::uint64_t> equalWorkBounds(
    std::uint64_t total, int parts, std::uint64_t align, const std::function<double(std::uint64_t)>& weight)
{
    std::vector<std::uint64_t> bounds(static_cast<std::size_t>(parts) + 1, total);
    bounds[0] = 0;
    const double all = weight(total);
    const std::uint64_t units = (total + align - 1) / align;
    for (int k = 1; k < parts; ++k) {
        const double target = all * k / parts;
        std::uint64_t lo = bounds[static_cast<std::size_t>(k) - 1] / align;
        std::uint64_t hi = units;
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (weight(std::min(mid * align, total)) >= target)
                hi = mid;
            else
                lo = mid + 1;
        }
        bounds[static_cast<std::size_t>(k)] = std::min(lo * align, total);
    }
    return bounds;
}

} // namespace ks
