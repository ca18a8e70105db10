#include "data/dataset.h"

#include <algorithm>
#include <cstdio>

namespace ks::data {

std::string formatRange(const std::vector<double>& values)
{
    if (values.empty())
        return "empty";
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "[%.6g, %.6g]", *lo, *hi);
    return buffer;
}

} // namespace ks::data
