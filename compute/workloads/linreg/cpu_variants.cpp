// CPU variants: the seed's four sums in double, single-threaded and with an OpenMP reduction.
#include "compute/core/cpu_run.h"
#include "compute/workloads/linreg/linreg.h"

#include <algorithm>

namespace ks::linreg {

namespace {
struct FourSums {
    double x = 0.0, y = 0.0, xx = 0.0, xy = 0.0;
};

template <class T> FourSums sequentialSums(std::span<const T> x, std::span<const T> y, const CancelPoint& cancel)
{
    FourSums s;
    for (std::size_t block = 0; block < x.size(); block += kCancelBlock) {
        cancel.throwIfStopped();
        const std::size_t end = std::min(x.size(), block + kCancelBlock);
        for (std::size_t i = block; i < end; ++i) {
            const double xi = x[i];
            const double yi = y[i];
            s.x += xi;
            s.y += yi;
            s.xx += xi * xi;
            s.xy += xi * yi;
        }
    }
    return s;
}

template <class T> FourSums parallelSums(std::span<const T> x, std::span<const T> y, const CancelPoint& cancel)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    const auto n = static_cast<std::int64_t>(x.size());
    const auto blocks = (n + static_cast<std::int64_t>(kCancelBlock) - 1) / static_cast<std::int64_t>(kCancelBlock);
    // Each thread takes a contiguous run of blocks (static schedule), as it took a contiguous run of elements.
#pragma omp parallel for reduction(+ : sx, sy, sxx, sxy) schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
        if (cancel.stopRequested())
            continue;
        const std::int64_t end = std::min(n, (b + 1) * static_cast<std::int64_t>(kCancelBlock));
        for (std::int64_t i = b * static_cast<std::int64_t>(kCancelBlock); i < end; ++i) {
            const double xi = x[static_cast<std::size_t>(i)];
            const double yi = y[static_cast<std::size_t>(i)];
            sx += xi;
            sy += yi;
            sxx += xi * xi;
            sxy += xi * yi;
        }
    }
    cancel.throwIfStopped();
    return {sx, sy, sxx, sxy};
}

template <bool Parallel> class FourSumsRun final : public CpuPreparedRun {
public:
    FourSumsRun(const data::Series2D& series, Precision precision, const RunContext& context)
        : CpuPreparedRun(context)
        , m_inputs(series, precision)
    {
    }
    void run() override
    {
        const FourSums s = m_inputs.precision() == Precision::F64 ? sums(m_inputs.xd(), m_inputs.yd())
                                                                  : sums(m_inputs.xf(), m_inputs.yf());
        m_fit = fitFromSums(static_cast<double>(m_inputs.size()), s.x, s.y, s.xx, s.xy);
    }
    Result fetch() override { return makeResult(m_fit); }

private:
    template <class T> FourSums sums(std::span<const T> x, std::span<const T> y) const
    {
        return Parallel ? parallelSums(x, y, cancelPoint()) : sequentialSums(x, y, cancelPoint());
    }
    HostSeries m_inputs;
    Fit m_fit;
};
} // namespace

std::unique_ptr<PreparedRun> prepareCpuFourSums(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    return std::make_unique<FourSumsRun<false>>(dataset.as<data::Series2D>(), precisionOf(params), context);
}

std::unique_ptr<PreparedRun> prepareCpuOpenMp(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    return std::make_unique<FourSumsRun<true>>(dataset.as<data::Series2D>(), precisionOf(params), context);
}

} // namespace ks::linreg
