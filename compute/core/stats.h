#pragma once

#include <cstddef>
#include <vector>

namespace ks {

/// Running mean and variance (Welford 1962) with min and max.
class RunningStats {
public:
    void add(double x);
    std::size_t count() const { return m_count; }
    double mean() const { return m_mean; }
    double min() const { return m_min; }
    double max() const { return m_max; }
    /// Sample standard deviation (n − 1); 0 for fewer than two values.
    double stdev() const;
    /// Relative standard error of the mean, stdev / (sqrt(n) · mean); infinite while undefined.
    double relativeStandardError() const;

private:
    std::size_t m_count = 0;
    double m_mean = 0.0;
    double m_m2 = 0.0;
    double m_min = 0.0;
    double m_max = 0.0;
};

/// Median of the values (mean of the middle two for even counts); 0 for none.
double median(std::vector<double> values);

} // namespace ks
