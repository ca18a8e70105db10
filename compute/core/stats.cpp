#include "compute/core/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

void RunningStats::add(double x)
{
    ++m_count;
    if (m_count == 1) {
        m_min = m_max = x;
    } else {
        m_min = std::min(m_min, x);
        m_max = std::max(m_max, x);
    }
    const double delta = x - m_mean;
    m_mean += delta / static_cast<double>(m_count);
    m_m2 += delta * (x - m_mean);
}

double RunningStats::stdev() const
{
    return m_count < 2 ? 0.0 : std::sqrt(std::max(0.0, m_m2 / static_cast<double>(m_count - 1)));
}

double RunningStats::relativeStandardError() const
{
    if (m_count < 2 || m_mean <= 0.0)
        return std::numeric_limits<double>::infinity();
    return stdev() / (std::sqrt(static_cast<double>(m_count)) * m_mean);
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2 == 1)
        return upper;
    const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
    return 0.5 * (lower + upper);
}

std::optional<double> medianStandardError(std::vector<double> values)
{
    const std::size_t n = values.size();
    if (n < 2)
        return std::nullopt;
    constexpr double kZ = 1.959963984540054;
    const double c = std::round((static_cast<double>(n) + 1.0) / 2.0 - kZ * std::sqrt(static_cast<double>(n) / 4.0));
    // For small n the 95 % interval reaches past the sample: the extremes are the widest bound there is.
    const auto lower = static_cast<std::size_t>(std::max(c, 1.0)) - 1; // 0-based X(c)
    const std::size_t upper = n - 1 - lower; // 0-based X(n-c+1)
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
    const double high = values[upper];
    // nth_element left every value below position `upper` no greater than it: X(c) is among them.
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lower),
        values.begin() + static_cast<std::ptrdiff_t>(upper));
    const double low = values[lower];
    return (high - low) / (2.0 * kZ);
}

std::optional<double> medianRelativeStandardError(const std::vector<double>& values)
{
    const std::optional<double> se = medianStandardError(values);
    const double m = median(values);
    if (!se || !(m > 0.0))
        return std::nullopt;
    return *se / m;
}

} // namespace ks
