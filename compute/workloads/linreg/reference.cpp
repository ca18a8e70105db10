// The oracle: centered two-pass OLS in long double with compensated (Neumaier) sums.
#include "compute/core/cpu_run.h"
#include "compute/workloads/linreg/linreg.h"

#include <algorithm>
#include <cmath>

namespace ks::linreg {

namespace {
/// Neumaier's improved Kahan summation in long double.
class CompensatedSum {
public:
    void add(long double v)
    {
        const long double t = m_sum + v;
        if (std::fabs(m_sum) >= std::fabs(v))
            m_compensation += (m_sum - t) + v;
        else
            m_compensation += (v - t) + m_sum;
        m_sum = t;
    }
    long double value() const { return m_sum + m_compensation; }

private:
    long double m_sum = 0.0L;
    long double m_compensation = 0.0L;
};

template <class T> Fit centeredFit(std::span<const T> x, std::span<const T> y, const CancelPoint& cancel)
{
    const std::size_t n = x.size();
    // Both passes go in blocks of kCancelBlock points, a stop check before each.
    CompensatedSum sx, sy;
    for (std::size_t block = 0; block < n; block += kCancelBlock) {
        cancel.throwIfStopped();
        for (std::size_t i = block; i < std::min(n, block + kCancelBlock); ++i) {
            sx.add(static_cast<long double>(x[i]));
            sy.add(static_cast<long double>(y[i]));
        }
    }
    const long double meanX = sx.value() / static_cast<long double>(n);
    const long double meanY = sy.value() / static_cast<long double>(n);
    CompensatedSum m2x, cxy;
    for (std::size_t block = 0; block < n; block += kCancelBlock) {
        cancel.throwIfStopped();
        for (std::size_t i = block; i < std::min(n, block + kCancelBlock); ++i) {
            const long double dx = static_cast<long double>(x[i]) - meanX;
            const long double dy = static_cast<long double>(y[i]) - meanY;
            m2x.add(dx * dx);
            cxy.add(dx * dy);
        }
    }
    if (m2x.value() == 0.0L) {
        const double nan = std::nan("");
        return {nan, nan}; // every x equal: the line is not determined
    }
    const long double slope = cxy.value() / m2x.value();
    const long double intercept = meanY - slope * meanX;
    return {static_cast<double>(slope), static_cast<double>(intercept)};
}

class ReferenceRun final : public CpuPreparedRun {
public:
    ReferenceRun(const data::Series2D& series, Precision precision, const RunContext& context)
        : CpuPreparedRun(context)
        , m_inputs(series, precision)
    {
    }
    void run() override
    {
        m_fit = m_inputs.precision() == Precision::F64 ? centeredFit(m_inputs.xd(), m_inputs.yd(), cancelPoint())
                                                       : centeredFit(m_inputs.xf(), m_inputs.yf(), cancelPoint());
    }
    Result fetch() override { return makeResult(m_fit); }

private:
    HostSeries m_inputs;
    Fit m_fit;
};
} // namespace

std::unique_ptr<PreparedRun> prepareReference(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    return std::make_unique<ReferenceRun>(dataset.as<data::Series2D>(), precisionOf(params), context);
}

} // namespace ks::linreg
