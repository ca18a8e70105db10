#pragma once

// The linreg workload (seed 000): ordinary least squares y = m·x + c from Σx, Σy, Σx², Σxy.

#include "compute/core/host_device.h"
#include "compute/core/precision.h"
#include "compute/core/variant.h"
#include "compute/core/workload.h"
#include "data/series2d.h"

#include <cmath>
#include <memory>
#include <span>
#include <vector>

namespace ks {
class Registry;
}

namespace ks::linreg {

struct Fit {
    double slope = 0.0;
    double intercept = 0.0;
};

/// The seed's closed form: m = (NΣxy − ΣxΣy) / (NΣx² − (Σx)²), c = (Σy − mΣx) / N. Loses digits when the
/// x values share a large offset; 0/0 (NaN) when every x is equal.
KS_HOST_DEVICE inline Fit fitFromSums(double n, double sx, double sy, double sxx, double sxy)
{
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    return {slope, (sy - slope * sx) / n};
}

/// The fit from centered moments: m = Cxy / M2x, c = ȳ − m·x̄.
KS_HOST_DEVICE inline Fit fitFromMoments(double meanX, double meanY, double m2x, double cxy)
{
    const double slope = cxy / m2x;
    return {slope, meanY - slope * meanX};
}

/// A linreg Result: quantity "fit", values {slope, intercept}.
Result makeResult(const Fit& fit);

/// The series' values as the variant reads them: the doubles themselves, or copies rounded to float.
class HostSeries {
public:
    HostSeries(const data::Series2D& series, Precision precision);
    std::size_t size() const { return m_size; }
    Precision precision() const { return m_precision; }
    std::span<const double> xd() const { return m_xd; }
    std::span<const double> yd() const { return m_yd; }
    std::span<const float> xf() const { return m_xf; }
    std::span<const float> yf() const { return m_yf; }

private:
    Precision m_precision;
    std::size_t m_size;
    std::span<const double> m_xd, m_yd;
    std::vector<float> m_xf, m_yf;
};

/// Adds the linreg workload to the registry.
void registerLinreg(Registry& registry);

} // namespace ks::linreg
