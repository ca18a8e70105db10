#pragma once

#include <cstddef>
#include <optional>
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

/// Standard error of the sample median, distribution-free: McKean & Schrader (1984), "A comparison of methods for
/// studentizing the sample median", Commun. Statist. Simul. Comput. 13(6), 751-773. The order statistics
/// X(c) and X(n-c+1), c = round((n+1)/2 - z·sqrt(n/4)) with z = 1.959964 (the 95 % normal quantile), bound the
/// order-statistic (binomial) confidence interval of the median; its width over 2z estimates the standard error
/// without assuming a distribution or a density (1.2533·σ/√n for normal samples, 1/(λ√n) for exponential ones).
/// Deterministic (no resampling), O(n). Empty (undefined) for fewer than two values.
std::optional<double> medianStandardError(std::vector<double> values);

/// medianStandardError / median: the relative standard error of the median (0.01 = 1 %). Empty when undefined:
/// fewer than two values, or a median that is not positive.
std::optional<double> medianRelativeStandardError(const std::vector<double>& values);

} // namespace ks
