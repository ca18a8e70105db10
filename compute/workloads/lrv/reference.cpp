// The oracle: every pair's log-ratio variance in long double from inputs prepared once in long double — logs, or the
// alpha transform's powers — and two passes per pair (the weighted mean, then the weighted squared deviations):
// propr's formulas, evaluated wider than propr's double.
#include "compute/core/cpu_run.h"
#include "compute/core/errors.h"
#include "compute/workloads/lrv/lrv.h"
#include "data/number_text.h"

#include <cmath>

namespace ks::lrv {

std::string Mode::name() const
{
    return std::string(weighted ? "weighted " : "") + (transformed() ? "alpha " + data::formatNumber(alpha) + " " : "")
        + "lrv";
}

Mode requestedMode(const data::ExpressionTable& table, const ParamSet& params)
{
    Mode mode;
    mode.weighted = !table.weights.empty();
    mode.alpha = params.has("alpha") ? params.real("alpha") : 0.0;
    return mode;
}

Mode modeOf(const data::ExpressionTable& table, const ParamSet& params)
{
    const Mode mode = requestedMode(table, params);
    if (mode.weighted && mode.transformed() && !table.reference.empty() && table.referenceWeights.empty())
        throw ParameterError("weighted alpha with reference=FILE needs reference_weights=FILE: propr weights the "
                             "reference's feature means by the reference's own weights");
    return mode;
}

void skipMode(const Mode& mode, const std::string& computedBy)
{
    throw SkipRun(
        "this variant computes the unweighted log-ratio lrv only, not the " + mode.name() + " (" + computedBy + " do)");
}

namespace {
/// Feature-major long-double copy of a samples × p row-major table, each value through `f`.
template <typename F>
std::vector<long double> featureMajor(
    const std::vector<double>& values, std::size_t samples, std::size_t p, const CancelPoint& cancel, F f)
{
    std::vector<long double> out(samples * p);
#pragma omp parallel for schedule(static)
    for (std::int64_t si = 0; si < static_cast<std::int64_t>(p); ++si) {
        if (cancel.stopRequested())
            continue; // one check per feature's samples
        const auto i = static_cast<std::size_t>(si);
        for (std::size_t k = 0; k < samples; ++k)
            out[i * samples + k] = f(static_cast<long double>(values[k * p + i]));
    }
    cancel.throwIfStopped();
    return out;
}
} // namespace

ReferenceInputs referenceInputs(const data::ExpressionTable& t, const Mode& mode, const CancelPoint& cancel)
{
    ReferenceInputs in;
    in.mode = mode;
    in.samples = t.samples;
    const std::size_t p = t.features;
    const auto identity = [](long double v) { return v; };
    if (!mode.transformed()) {
        in.x = featureMajor(t.values, t.samples, p, cancel, [](long double v) { return std::log(v); });
    } else {
        const long double a = mode.alpha;
        const auto power = [a](long double v) { return std::pow(v, a); };
        in.x = featureMajor(t.values, t.samples, p, cancel, power);
        in.fullSamples = t.fullSamples();
        // Yfull^a apart only when a reference was given: otherwise it is x itself.
        std::vector<long double> full;
        if (!t.reference.empty())
            full = featureMajor(t.reference, in.fullSamples, p, cancel, power);
        if (mode.weighted) {
            in.xFull = std::move(full);
            if (!t.reference.empty())
                in.wFull = featureMajor(t.referenceWeights, in.fullSamples, p, cancel, identity);
        } else {
            // Each feature scaled by the mean of Yfull^a (propr's CUDA kernel and weighted path; its CPU code for
            // this mode divides by the mean of the untransformed Yfull instead). Feature i is summed before it is
            // scaled, so x can be its own Yfull.
            const std::size_t nf = in.fullSamples;
            const std::vector<long double>& source = t.reference.empty() ? in.x : full;
            for (std::size_t i = 0; i < p; ++i) {
                long double sum = 0.0L;
                for (std::size_t k = 0; k < nf; ++k)
                    sum += source[i * nf + k];
                const long double mean = sum / static_cast<long double>(nf);
                for (std::size_t k = 0; k < t.samples; ++k)
                    in.x[i * t.samples + k] /= mean;
            }
        }
    }
    if (mode.weighted)
        in.w = featureMajor(t.weights, t.samples, p, cancel, identity);
    return in;
}

double referencePair(const ReferenceInputs& in, std::size_t i, std::size_t j)
{
    const std::size_t n = in.samples;
    const long double* a = in.x.data() + i * n;
    const long double* b = in.x.data() + j * n;
    long double scaleA = 1.0L;
    long double scaleB = 1.0L;
    if (in.mode.weighted && in.mode.transformed()) {
        // The pair's scaling means: Yfull^a's, weighted by the pair's Wfull weights.
        const std::size_t nf = in.fullSamples;
        const std::vector<long double>& xFull = in.xFull.empty() ? in.x : in.xFull;
        const std::vector<long double>& wFull = in.wFull.empty() ? in.w : in.wFull;
        const long double* fa = xFull.data() + i * nf;
        const long double* fb = xFull.data() + j * nf;
        const long double* wa = wFull.data() + i * nf;
        const long double* wb = wFull.data() + j * nf;
        long double weight = 0.0L, sumA = 0.0L, sumB = 0.0L;
        for (std::size_t k = 0; k < nf; ++k) {
            const long double w = wa[k] * wb[k];
            weight += w;
            sumA += w * fa[k];
            sumB += w * fb[k];
        }
        scaleA = weight / sumA;
        scaleB = weight / sumB;
    }
    const auto d = [&](std::size_t k) { return a[k] * scaleA - b[k] * scaleB; };
    const long double aa = static_cast<long double>(in.mode.alpha) * static_cast<long double>(in.mode.alpha);
    const long double divisorAlpha = in.mode.transformed() ? aa : 1.0L;
    if (!in.mode.weighted) {
        long double sum = 0.0L;
        for (std::size_t k = 0; k < n; ++k)
            sum += d(k);
        const long double mean = sum / static_cast<long double>(n);
        long double squares = 0.0L;
        for (std::size_t k = 0; k < n; ++k) {
            const long double e = d(k) - mean;
            squares += e * e;
        }
        return static_cast<double>(squares / (static_cast<long double>(n - 1) * divisorAlpha));
    }
    const long double* wa = in.w.data() + i * n;
    const long double* wb = in.w.data() + j * n;
    long double weight = 0.0L, weight2 = 0.0L, sum = 0.0L;
    for (std::size_t k = 0; k < n; ++k) {
        const long double w = wa[k] * wb[k];
        weight += w;
        weight2 += w * w;
        sum += w * d(k);
    }
    const long double mean = sum / weight;
    long double squares = 0.0L;
    for (std::size_t k = 0; k < n; ++k) {
        const long double e = d(k) - mean;
        squares += wa[k] * wb[k] * e * e;
    }
    // propr's unbiased weighted variance: Σw·(x − x̄)² · Σw / ((Σw)² − Σw²).
    return static_cast<double>(squares * weight / ((weight * weight - weight2) * divisorAlpha));
}

namespace {
class ReferenceRun final : public HalfMatrixCpuRun {
public:
    ReferenceRun(const data::ExpressionTable& table, const Mode& mode, const RunContext& context)
        : HalfMatrixCpuRun(table, context)
        , m_mode(mode)
    {
    }
    void run() override
    {
        const CancelPoint& cancel = cancelPoint();
        const ReferenceInputs inputs = referenceInputs(m_table, m_mode, cancel);
        const std::size_t p = m_table.features;
        sizeValues(pairCount(p), cancel);
        const std::size_t checkEvery
            = pairsPerCheck(m_table.samples + (m_mode.weighted ? inputs.fullSamples : 0)); // a pass over Yfull too
        // Rows grow with i: dynamic scheduling keeps the threads evenly loaded. A stop check every checkEvery pairs
        // of a row; once stopped, the rest of the row and the rows left are skipped.
#pragma omp parallel for schedule(dynamic, 16)
        for (std::int64_t si = 1; si < static_cast<std::int64_t>(p); ++si) {
            const auto i = static_cast<std::size_t>(si);
            CancelCountdown countdown(checkEvery);
            for (std::size_t j = 0; j < i; ++j) {
                if (countdown.due() && cancel.stopRequested())
                    break;
                m_values[pairIndex(i, j)] = referencePair(inputs, i, j);
            }
        }
        cancel.throwIfStopped();
    }

private:
    Mode m_mode;
};
} // namespace

std::unique_ptr<PreparedRun> prepareReference(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    const auto& table = dataset.as<data::ExpressionTable>();
    return std::make_unique<ReferenceRun>(table, modeOf(table, params), context);
}

} // namespace ks::lrv
