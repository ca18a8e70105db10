// The generator behind the built-in lrv data: Gamma–Poisson counts with planted nearly proportional feature pairs.

#include "data/cancel.h"
#include "data/cancellable_loop.h"
#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/expression_table/table.h"
#include "data/host_memory.h"
#include "data/random.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace ks::data {

using namespace expression;

namespace {

// CounterRng streams: each draw is a function of (seed, stream, index) only, so the table is the same for any
// thread count.
constexpr std::uint64_t kFeatureMeanStream = 1; // normal(): streams 2 and 3, index = feature
constexpr std::uint64_t kPlantedScaleStream = 4; // uniform, index = pair
constexpr std::uint64_t kPlantedNoiseStream = 3; // normal(): streams 6 and 7, index = pair · N + sample
constexpr std::uint64_t kWeightStream = 5; // normal(): streams 10 and 11, index = cell
constexpr std::uint64_t kCellStreamBase = 16; // the n-th draw of a cell is stream 16 + n, index = cell

/// Log-normal spread of the feature means around meanCount (σ of the log).
constexpr double kMeanLogSpread = 1.0;
/// Generated weights are log-normal: exp(this × a standard normal), a spread like limma-voom's precision weights.
constexpr double kWeightLogSpread = 0.5;
/// Above this mean a Poisson count is drawn from its normal approximation; below, by inversion (e^-λ stays normal).
constexpr double kPoissonNormalAbove = 500.0;
/// Marsaglia–Tsang accepts over 95% of its proposals; this many rejections in a row does not happen in practice.
constexpr int kGammaMaxTries = 64;

/// Gamma(shape, 1) by Marsaglia & Tsang (2000), with the U^(1/shape) boost for shape < 1.
double gammaDraw(double shape, DrawSequence& draws)
{
    const double boost = shape < 1.0 ? std::pow(draws.uniform(), 1.0 / shape) : 1.0;
    const double a = shape < 1.0 ? shape + 1.0 : shape;
    const double d = a - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (int attempt = 0; attempt < kGammaMaxTries; ++attempt) {
        const double x = draws.normal();
        const double t = 1.0 + c * x;
        if (t <= 0.0)
            continue;
        const double v = t * t * t;
        const double u = draws.uniform();
        if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
            return d * v * boost;
    }
    return d * boost;
}

double poissonDraw(double lambda, DrawSequence& draws)
{
    if (!(lambda > 0.0))
        return 0.0;
    if (lambda > kPoissonNormalAbove)
        return std::max(0.0, std::floor(lambda + std::sqrt(lambda) * draws.normal() + 0.5));
    // Inversion: walk the CDF from 0 (the loop ends at the latest when the pmf underflows, far in the tail).
    const double u = draws.uniform();
    double pmf = std::exp(-lambda);
    double cdf = pmf;
    double k = 0.0;
    while (u > cdf && pmf > 0.0) {
        k += 1.0;
        pmf *= lambda / k;
        cdf += pmf;
    }
    return k;
}

void checkGenerator(const ExpressionGenerator& g)
{
    if (g.samples < 2)
        throw DatasetError("generator", "samples", "must be at least 2 (a variance needs two samples)");
    if (g.features < 2)
        throw DatasetError("generator", "features", "must be at least 2 (a pair of features)");
    if (g.plantedPairs > g.features / 2)
        throw DatasetError("generator", "planted",
            std::to_string(g.plantedPairs) + " pairs do not fit in " + std::to_string(g.features)
                + " features (at most features / 2 = " + std::to_string(g.features / 2) + ")");
    if (!(g.meanCount > 0.0) || !std::isfinite(g.meanCount) || !(g.dispersion >= 0.0) || !std::isfinite(g.dispersion)
        || !(g.proportionalNoise >= 0.0) || !std::isfinite(g.proportionalNoise))
        throw DatasetError("generator", "parameters",
            "mean must be positive and finite; dispersion and noise non-negative and finite");
}

} // namespace

std::vector<std::pair<std::size_t, std::size_t>> plantedPairs(const ExpressionGenerator& g)
{
    checkGenerator(g);
    const std::size_t m = g.plantedPairs;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    if (m == 0)
        return pairs;
    // j spread evenly over the lower half of the features, i over the upper half in a scrambled order (a stride
    // coprime to m near m/φ), so pairs are far apart and not nested or aligned.
    const std::size_t low = g.features / 2;
    const std::size_t high = g.features - low;
    std::size_t stride
        = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(0.618 * static_cast<double>(m))));
    while (std::gcd(stride, m) != 1)
        ++stride;
    pairs.reserve(m);
    for (std::size_t t = 0; t < m; ++t) {
        const std::size_t j = (2 * t + 1) * low / (2 * m);
        const std::size_t slot = (t * stride) % m;
        const std::size_t i = low + (2 * slot + 1) * high / (2 * m);
        pairs.emplace_back(i, j);
    }
    return pairs;
}

ExpressionTable generateExpression(const ExpressionGenerator& g)
{
    checkGenerator(g);
    // The reference's extra samples are drawn like Y's: Y is the first N samples of Yfull.
    const std::size_t all = g.samples + g.referenceSamples;
    const std::uint64_t cells = checkedProduct(all, g.features, "generator", "samples × features");
    const std::uint64_t copies = (g.referenceSamples > 0 ? 2 : 1) * (g.weights ? 2 : 1);
    requireHostMemory(checkedProduct(cells, copies * sizeof(double), "generator", "samples × features"), "generator",
        "samples=" + std::to_string(g.samples) + ", features=" + std::to_string(g.features)
            + (g.referenceSamples > 0 ? ", reference_samples=" + std::to_string(g.referenceSamples) : std::string())
            + (g.weights ? ", weights" : ""),
        "generating the expression table");
    const CounterRng rng(g.seed);
    ExpressionTable t;
    t.samples = g.samples;
    t.features = g.features;
    // A stop request (Ctrl-C, Cancel) is checked while the memory is first touched and before each block of cells.
    const CancelPoint cancel = ambientCancelPoint();
    std::vector<double> full;
    resizeCancellably(full, static_cast<std::size_t>(cells), cancel);
    t.sampleNames = generatedNames("S", g.samples);
    t.featureNames = generatedNames("F", g.features);

    std::vector<double> featureMean(g.features);
    for (std::size_t i = 0; i < g.features; ++i)
        featureMean[i] = g.meanCount * std::exp(kMeanLogSpread * rng.normal(kFeatureMeanStream, i));

    const double shape = g.dispersion > 0.0 ? 1.0 / g.dispersion : 0.0;
    const auto total = static_cast<std::int64_t>(cells);
    const std::size_t p = g.features;
    parallelForCancellable(total, cancel, [&](std::int64_t q) {
        const auto cell = static_cast<std::uint64_t>(q);
        DrawSequence draws(rng, kCellStreamBase, cell);
        // Gamma(1/dispersion, dispersion): mean 1, variance = dispersion; times Poisson, a negative binomial.
        const double multiplier = g.dispersion > 0.0 ? gammaDraw(shape, draws) * g.dispersion : 1.0;
        full[cell] = 1.0 + poissonDraw(featureMean[cell % p] * multiplier, draws);
    });

    const auto pairs = plantedPairs(g);
    for (std::size_t pair = 0; pair < pairs.size(); ++pair) {
        const auto [i, j] = pairs[pair];
        const double scale = 0.5 + 1.5 * rng.uniform(kPlantedScaleStream, pair);
        for (std::size_t k = 0; k < all; ++k) {
            const double z = rng.normal(kPlantedNoiseStream, pair * all + k);
            full[k * p + i] = scale * full[k * p + j] * std::exp(g.proportionalNoise * z);
        }
    }
    std::vector<double> weights;
    if (g.weights) {
        resizeCancellably(weights, static_cast<std::size_t>(cells), cancel);
        parallelForCancellable(total, cancel, [&](std::int64_t q) {
            const auto cell = static_cast<std::uint64_t>(q);
            weights[cell] = std::exp(kWeightLogSpread * rng.normal(kWeightStream, cell));
        });
    }
    const auto firstSamples = [&](const std::vector<double>& values) {
        return std::vector<double>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(g.samples * p));
    };
    if (g.referenceSamples > 0) {
        t.values = firstSamples(full);
        t.reference = std::move(full);
        t.referenceSamples = all;
        if (g.weights) {
            t.weights = firstSamples(weights);
            t.referenceWeights = std::move(weights);
        }
    } else {
        t.values = std::move(full);
        t.weights = std::move(weights);
    }
    return t;
}

} // namespace ks::data
