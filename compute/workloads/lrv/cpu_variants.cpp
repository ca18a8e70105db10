// CPU variant, every mode in double with OpenMP loops over rows of the half matrix.
// Unweighted: each feature transformed once — log y, or y^a over the mean of Yfull^a, divided by a — and centred,
// then Σ(c_ik − c_jk)² / (N − 1) per pair (the deviations of a pair's difference from its mean are exactly the
// difference of centred features). Weighted: the pair weights W_i·W_j make the mean a pair's own, so each pair takes
// two passes over its samples (and, with alpha, one over Yfull for its scaling means).
#include "compute/core/cpu_run.h"
#include "compute/workloads/lrv/lrv.h"

#include <cmath>

namespace ks::lrv {

namespace {
class CpuOpenMpRun final : public HalfMatrixCpuRun {
public:
    CpuOpenMpRun(const data::ExpressionTable& table, const Mode& mode, const RunContext& context)
        : HalfMatrixCpuRun(table, context)
        , m_mode(mode)
    {
    }
    void run() override
    {
        if (m_mode.weighted)
            runWeighted();
        else
            runUnweighted();
    }

private:
    /// Feature-major (p × rows) copy of a rows × p table, each value through `f`; one stop check per feature.
    template <typename F>
    std::vector<double> featureMajor(const std::vector<double>& values, std::size_t rows, F f) const
    {
        const std::size_t p = m_table.features;
        const CancelPoint& cancel = cancelPoint();
        std::vector<double> out(rows * p);
#pragma omp parallel for schedule(static)
        for (std::int64_t si = 0; si < static_cast<std::int64_t>(p); ++si) {
            if (cancel.stopRequested())
                continue;
            const auto i = static_cast<std::size_t>(si);
            for (std::size_t k = 0; k < rows; ++k)
                out[i * rows + k] = f(values[k * p + i]);
        }
        cancel.throwIfStopped();
        return out;
    }

    /// Every pair of the half matrix through `pair(i, j)`, rows spread over the threads, a stop check every
    /// `checkEvery` pairs of a row (once stopped, the rest and the rows left are skipped).
    template <typename F> void forEachPair(std::size_t checkEvery, F pair)
    {
        const std::size_t p = m_table.features;
        const CancelPoint& cancel = cancelPoint();
        sizeValues(pairCount(p), cancel);
#pragma omp parallel for schedule(dynamic, 16)
        for (std::int64_t si = 1; si < static_cast<std::int64_t>(p); ++si) {
            const auto i = static_cast<std::size_t>(si);
            double* out = m_values.data() + pairIndex(i, 0);
            CancelCountdown countdown(checkEvery);
            for (std::size_t j = 0; j < i; ++j) {
                if (countdown.due() && cancel.stopRequested())
                    break;
                out[j] = pair(i, j);
            }
        }
        cancel.throwIfStopped();
    }

    void runUnweighted()
    {
        const std::size_t n = m_table.samples;
        const double a = m_mode.alpha;
        std::vector<double> centred;
        if (!m_mode.transformed()) {
            centred = featureMajor(m_table.values, n, [](double v) { return std::log(v); });
        } else {
            const auto power = [a](double v) { return std::pow(v, a); };
            const std::size_t nf = m_table.fullSamples();
            centred = featureMajor(m_table.values, n, power);
            // Yfull^a apart only for a reference; otherwise feature i is summed before it is scaled.
            const std::vector<double> full
                = m_table.reference.empty() ? std::vector<double>() : featureMajor(m_table.reference, nf, power);
            const std::vector<double>& source = m_table.reference.empty() ? centred : full;
            for (std::size_t i = 0; i < m_table.features; ++i) {
                double sum = 0.0;
                for (std::size_t k = 0; k < nf; ++k)
                    sum += source[i * nf + k];
                // Dividing by a here leaves the pair loop as the log-ratio's: Σ(c_i − c_j)² / (N − 1).
                const double scale = static_cast<double>(nf) / (sum * a);
                for (std::size_t k = 0; k < n; ++k)
                    centred[i * n + k] *= scale;
            }
        }
        for (std::size_t i = 0; i < m_table.features; ++i) {
            double* c = centred.data() + i * n;
            double sum = 0.0;
            for (std::size_t k = 0; k < n; ++k)
                sum += c[k];
            const double mean = sum / static_cast<double>(n);
            for (std::size_t k = 0; k < n; ++k)
                c[k] -= mean;
        }
        const double scale = 1.0 / static_cast<double>(n - 1);
        forEachPair(pairsPerCheck(n), [&](std::size_t i, std::size_t j) {
            const double* ci = centred.data() + i * n;
            const double* cj = centred.data() + j * n;
            double s = 0.0;
            for (std::size_t k = 0; k < n; ++k) {
                const double d = ci[k] - cj[k];
                s += d * d;
            }
            return s * scale;
        });
    }

    void runWeighted()
    {
        const std::size_t n = m_table.samples;
        const double a = m_mode.alpha;
        const bool transformed = m_mode.transformed();
        const auto transform = [a, transformed](double v) { return transformed ? std::pow(v, a) : std::log(v); };
        const std::vector<double> x = featureMajor(m_table.values, n, transform);
        const std::vector<double> w = featureMajor(m_table.weights, n, [](double v) { return v; });
        const std::size_t nf = transformed ? m_table.fullSamples() : 0;
        // Yfull^a and Wfull apart only for a reference; otherwise they are x and w.
        std::vector<double> xFullApart, wFullApart;
        if (transformed && !m_table.reference.empty()) {
            xFullApart = featureMajor(m_table.reference, nf, transform);
            wFullApart = featureMajor(m_table.referenceWeights, nf, [](double v) { return v; });
        }
        const std::vector<double>& xFull = xFullApart.empty() ? x : xFullApart;
        const std::vector<double>& wFull = wFullApart.empty() ? w : wFullApart;
        const double alphaSquared = transformed ? a * a : 1.0;
        forEachPair(pairsPerCheck(n + nf), [&](std::size_t i, std::size_t j) {
            double si = 1.0, sj = 1.0; // the pair's scaling: 1 / (its Wfull-weighted mean of Yfull^a)
            if (transformed) {
                const double *fi = xFull.data() + i * nf, *fj = xFull.data() + j * nf;
                const double *wi = wFull.data() + i * nf, *wj = wFull.data() + j * nf;
                double weight = 0.0, sumI = 0.0, sumJ = 0.0;
                for (std::size_t k = 0; k < nf; ++k) {
                    const double wk = wi[k] * wj[k];
                    weight += wk;
                    sumI += wk * fi[k];
                    sumJ += wk * fj[k];
                }
                si = weight / sumI;
                sj = weight / sumJ;
            }
            const double *xi = x.data() + i * n, *xj = x.data() + j * n;
            const double *wi = w.data() + i * n, *wj = w.data() + j * n;
            double weight = 0.0, weight2 = 0.0, sum = 0.0;
            for (std::size_t k = 0; k < n; ++k) {
                const double wk = wi[k] * wj[k];
                weight += wk;
                weight2 += wk * wk;
                sum += wk * (xi[k] * si - xj[k] * sj);
            }
            const double mean = sum / weight;
            double squares = 0.0;
            for (std::size_t k = 0; k < n; ++k) {
                const double e = xi[k] * si - xj[k] * sj - mean;
                squares += wi[k] * wj[k] * e * e;
            }
            return squares * weight / ((weight * weight - weight2) * alphaSquared);
        });
    }

    Mode m_mode;
};
} // namespace

std::unique_ptr<PreparedRun> prepareCpuOpenMp(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    const auto& table = dataset.as<data::ExpressionTable>();
    return std::make_unique<CpuOpenMpRun>(table, modeOf(table, params), context);
}

} // namespace ks::lrv
