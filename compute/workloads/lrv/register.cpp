// The lrv workload descriptor and its variant list. A new lrv variant is its kernel file plus, here, one row in
// the list and its factory's declaration; the registry-wide test (tests/compute/test_variants.cpp) then checks it.
#include "compute/core/cancel.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/device/vendor_libraries.h"
#include "compute/workloads/lrv/lrv.h"
#include "data/host_memory.h"
#include "data/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace ks::lrv {

Result makeResult(std::vector<double> values, const data::ExpressionTable& table)
{
    return Result {"lrv", {}, std::move(values), {}, table.featureNames, {}, {}};
}

std::uint64_t deviceOutputCapBytes(const ParamSet& params)
{
    return static_cast<std::uint64_t>(params.integer("device_output_mb")) << 20;
}

#if !KS_HAVE_CUDA
std::vector<double> tableLogsOnDevice(const std::vector<double>&)
{
    return {};
}
#endif

// Variant factories: each is defined in its kernel file and registered in the list below.
PrepareSignature prepareReference;
PrepareSignature prepareCpuOpenMp;
PrepareSignature prepareBlockPerPair;
PrepareSignature prepareThreadPerPair;
PrepareSignature prepareLogsTiled;
PrepareSignature prepareDmmaRefined;
PrepareSignature prepareDmmaRefinedMulti;
PrepareSignature prepareCublasGemm;
PrepareSignature prepareCublasRefined;

namespace {
/// The smallest lrv whose relative error double precision can bring under the tolerance. Each log carries a
/// rounding error of about eps·L (L = the largest |log y| in the data), so a pair's deviations d_k = c_ik − c_jk
/// are known to eps·L and a computed lrv ≈ mean d² to about 2·eps·L·√lrv: below (eps·L / tolerance)² no
/// algorithm working in double — propr's own included — resolves it, and it is compared against that floor. With
/// the alpha transform the summed values are y^a / (m_i·a), m_i the mean of Yfull^a's feature i: L is their largest.
double resolutionFloor(const data::ExpressionTable& t, const Mode& mode, double tolerance)
{
    double largest = 0.0;
    if (!mode.transformed()) {
        for (double v : t.values)
            largest = std::max(largest, std::fabs(std::log(v)));
    } else {
        const std::size_t p = t.features;
        const std::size_t nf = t.fullSamples();
        std::vector<double> mean(p, 0.0);
        for (std::size_t k = 0; k < nf; ++k)
            for (std::size_t i = 0; i < p; ++i)
                mean[i] += std::pow(t.fullValues()[k * p + i], mode.alpha);
        for (std::size_t k = 0; k < t.samples; ++k)
            for (std::size_t i = 0; i < p; ++i)
                largest = std::max(
                    largest, std::fabs(std::pow(t.values[k * p + i], mode.alpha) * static_cast<double>(nf) / mean[i]));
        largest /= std::fabs(mode.alpha);
    }
    const double floor = std::numeric_limits<double>::epsilon() * std::max(largest, 1.0) / tolerance;
    return floor * floor;
}
/// The full reference costs about N × pairs long-double operations; beyond this it is sampled.
constexpr double kFullReferenceWork = 2e10;
/// Pairs checked in sampled mode: this many uniformly, plus up to this many of the most proportional ones.
constexpr std::size_t kSampledPairs = 200'000;

double relativeError(double value, double reference, double floor)
{
    if (std::isnan(value) || std::isnan(reference))
        return std::numeric_limits<double>::infinity();
    return std::fabs(value - reference) / std::max(std::fabs(reference), floor);
}

class LrvWorkload final : public Workload {
public:
    LrvWorkload()
    {
        Variant refined = gpuVariant("cublas_refined", "cuBLAS expansion, refined",
            "the cuBLAS expansion, then every pair whose sum cancels by more than the error bound allows is "
            "recomputed directly from centred logs",
            Backend::Library, KS_GPU_PREPARE(prepareCublasRefined));
        Variant gemm = gpuVariant("cublas_gemm", "cuBLAS expansion v_i + v_j − 2·cov_ij",
            "centred logs, Gram matrix by cublasDgemm in row panels, packing epilogue; loses digits on nearly "
            "proportional pairs",
            Backend::Library, KS_GPU_PREPARE(prepareCublasGemm))
                           // The expansion cancels on nearly proportional pairs, which tiny samples make by chance too.
                           .mayLoseDigitsOn();
#if KS_HAVE_CUDA
        gemm.runtimeCheck = device::cublasUnavailableReason;
        refined.runtimeCheck = device::cublasUnavailableReason;
#endif
        m_variants = {
            cpuVariant("reference", "Reference (long double, two-pass)",
                "logs once in long double, then mean and squared deviations of each log-ratio in long double",
                prepareReference),
            cpuVariant("cpu_openmp", "CPU centred logs (OpenMP)",
                "logs once, centred per feature, Σ(c_i − c_j)² per pair with an OpenMP loop over rows",
                prepareCpuOpenMp),
            gpuVariant("block_per_pair", "Block per pair (seed)",
                "the seed's plan: one block per pair, log-ratios per sample, shared-memory tree reductions for "
                "the mean and the variance",
                Backend::Cuda, KS_GPU_PREPARE(prepareBlockPerPair)),
            gpuVariant("thread_per_pair", "Thread per pair",
                "one thread per pair, two passes over the samples, coalesced along the pair's second feature",
                Backend::Cuda, KS_GPU_PREPARE(prepareThreadPerPair)),
            gpuVariant("logs_tiled", "Centred logs, register-tiled triangle",
                "logs once and centred per feature; 64×64 triangle tiles, 4×4 pairs per thread in registers, "
                "Σ(c_i − c_j)² accurate for nearly proportional pairs (weighted: two passes, mean then deviations)",
                Backend::Cuda, KS_GPU_PREPARE(prepareLogsTiled)),
            gpuVariant("dmma_refined", "Tensor-core expansion, refined",
                "centred logs; accumulators that start at (s_i + s_j)/(N − 1), from which FP64 tensor cores "
                "(mma.sync m16n8k8 on Hopper, m8n8k4 before) take 2·c_i·c_j/(N − 1), written from registers; "
                "cancelling pairs recomputed "
                "directly (weighted: Σw, Σw², Σw·x and Σw·x² as five tensor-core products over 32×32 tiles)",
                Backend::Cuda, KS_GPU_PREPARE(prepareDmmaRefined)),
            multiDeviceVariant("dmma_refined_multi", "Tensor-core expansion, refined, on several GPUs",
                "dmma_refined with the triangle's rows split in blocks of equal pair counts, one per GPU, a host "
                "thread "
                "per GPU; each GPU writes its rows of the propr-ordered half matrix (kept on the GPU when it fits, "
                "else streamed to the host); the refinement's fallback decided over every GPU by one ncclAllReduce; "
                "every pair's bits equal dmma_refined's",
                KS_GPU_PREPARE(prepareDmmaRefinedMulti)),
            gemm,
            refined,
        };
    }

    std::string id() const override
    {
        return "lrv";
    }
    std::string name() const override
    {
        return "Log-ratio variance (propr)";
    }
    std::string description() const override
    {
        return "propr's lrv: the variance of log(Y[:, i] / Y[:, j]) for every feature pair, as a half matrix "
               "(seed 003)";
    }
    std::string datasetKind() const override
    {
        return "expression";
    }
    std::string filePatterns() const override
    {
        return "*.tsv *.csv *.txt *.gz *.h5 *.hdf5";
    }

    std::vector<Axis> parameters() const override
    {
        return {
            Axis::choice("orientation", "how the file stores the matrix (read when a file is loaded)",
                "samples-as-rows", {"samples-as-rows", "features-as-rows"})
                .asReaderOption(),
            Axis::choice("zeros", "zeros in the data: an error, or replaced by the smallest positive value", "error",
                {"error", "replace"})
                .asReaderOption(),
            Axis::choice(
                "na", "missing values: an error, or the features holding them dropped", "error", {"error", "drop"})
                .asReaderOption(),
            Axis::text("weights",
                "propr's weights W: a table of Y's shape, finite and positive, matched by feature and sample names "
                "(read when a file is loaded; none: unweighted)")
                .asReaderOption(),
            Axis::text("reference",
                "Yfull for the alpha transform: a table of Y's features, its features' means of Yfull^a scale Y's "
                "(read when a file is loaded; none: Y itself)")
                .asReaderOption(),
            Axis::text("reference_weights",
                "Wfull, the reference's weights, for weighted alpha with a reference (read when a file is loaded)")
                .asReaderOption(),
            Axis::real("alpha",
                "the Box–Cox power a: lrv of Y^a scaled by Yfull^a's feature means, over a² (0: the log-ratio, its "
                "limit)",
                0.0, -4.0, 4.0),
            Axis::integer("device_output_mb",
                "cap on the GPU output buffer in MiB; a larger output streams to the host in row chunks while "
                "the next chunk computes (0: as much as fits)",
                0, 0, 1'000'000),
            Axis::integer("group_rows",
                "dmma_refined: the triangle's tile rows its blocks take together, each group swept column by column "
                "(1: row by row; 0: auto — row by row while its two centred copies fit in half of L2, else groups of "
                "2,048 features)",
                0, 0, 1 << 16)
                .readOnlyBy({"dmma_refined", "dmma_refined_multi"}),
        };
    }

    std::vector<Axis> generatorParameters() const override
    {
        return {
            Axis::integer("features", "number of features p (genes)", 1000, 2, 1'000'000),
            Axis::integer("samples", "number of samples N", 80, 2, 1'000'000),
            Axis::integer("planted", "nearly proportional pairs planted in the data", 10, 0, 1'000'000),
            Axis::real("mean", "typical count", 100.0, 1e-3, 1e9),
            Axis::real("dispersion", "negative-binomial dispersion of the counts", 0.5, 0.0, 100.0),
            Axis::real("noise", "log-scale noise of the planted pairs (their lrv is about noise²)", 1e-4, 0.0, 10.0),
            Axis::integer("seed", "random seed", 1, 0, std::int64_t(1) << 62),
            Axis::choice(
                "weights", "propr's weights W: none, or log-normal ones (spread 0.5)", "none", {"none", "random"}),
            Axis::integer("reference_samples",
                "samples of the alpha transform's reference Yfull beyond Y's (Y is its first N; 0: none)", 0, 0,
                1'000'000),
        };
    }

    std::string sizeParameter() const override
    {
        return "features";
    }
    std::string demoSizes() const override
    {
        return "128..1024";
    }

    TestPlan testPlan() const override
    {
        // propr's modes: weights, a reference beside Y (weighted or not), and the alpha transform on each.
        TestPlan plan {{2, 3, 65, 1001},
            {{"n2", {{"samples", "2"}, {"planted", "0"}}}, {"n3", {{"samples", "3"}, {"planted", "1"}}},
                {"n33planted", {{"samples", "33"}, {"planted", "5"}}},
                {"weighted", {{"samples", "9"}, {"planted", "2"}, {"weights", "random"}}},
                {"reference", {{"samples", "6"}, {"planted", "1"}, {"reference_samples", "7"}}},
                {"weighted_reference",
                    {{"samples", "7"}, {"planted", "3"}, {"weights", "random"}, {"reference_samples", "5"}}}},
            {{"log", {}}, {"alpha", {{"alpha", "0.5"}}}}, {}};
        // No feature is planted in two pairs: at most features / 2 planted pairs.
        plan.fitToSize = [](std::map<std::string, std::string>& generator, std::uint64_t features) {
            if (auto it = generator.find("planted"); it != generator.end())
                it->second = std::to_string(std::min<std::uint64_t>(std::stoull(it->second), features / 2));
        };
        return plan;
    }

    data::Dataset generate(const ParamSet& g) const override
    {
        data::ExpressionGenerator generator;
        generator.features = static_cast<std::size_t>(g.integer("features"));
        generator.samples = static_cast<std::size_t>(g.integer("samples"));
        generator.plantedPairs = static_cast<std::size_t>(g.integer("planted"));
        generator.meanCount = g.real("mean");
        generator.dispersion = g.real("dispersion");
        generator.proportionalNoise = g.real("noise");
        generator.seed = static_cast<std::uint64_t>(g.integer("seed"));
        generator.weights = g.text("weights") == "random";
        generator.referenceSamples = static_cast<std::size_t>(g.integer("reference_samples"));
        auto table = data::generateExpression(generator);
        const std::string name = "generated lrv " + g.text("samples") + "×" + g.text("features")
            + " planted=" + g.text("planted") + " seed=" + g.text("seed") + (generator.weights ? " weighted" : "")
            + (generator.referenceSamples > 0 ? " reference+" + g.text("reference_samples") : "");
        return data::makeExpressionDataset(std::move(table), name, "generator: " + g.toString());
    }

    data::Dataset load(const std::string& path, const data::ReadOptions& options) const override
    {
        return data::loadExpressionTable(path, options);
    }

    std::optional<data::Dataset> subset(const data::Dataset& dataset, std::uint64_t size) const override
    {
        const auto& t = dataset.as<data::ExpressionTable>();
        if (size < 2 || size > t.features)
            return std::nullopt;
        data::ExpressionTable part;
        part.samples = t.samples;
        part.features = static_cast<std::size_t>(size);
        // The first `size` features of a rows × p table (Y, W, Yfull, Wfull alike).
        const auto firstFeatures = [&](const std::vector<double>& values, std::size_t rows) {
            std::vector<double> out;
            if (values.empty())
                return out;
            out.resize(rows * part.features);
            for (std::size_t k = 0; k < rows; ++k)
                std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(k * t.features), part.features,
                    out.begin() + static_cast<std::ptrdiff_t>(k * part.features));
            return out;
        };
        part.values = firstFeatures(t.values, t.samples);
        part.weights = firstFeatures(t.weights, t.samples);
        part.referenceSamples = t.referenceSamples;
        part.reference = firstFeatures(t.reference, t.referenceSamples);
        part.referenceWeights = firstFeatures(t.referenceWeights, t.referenceSamples);
        part.weightsSource = t.weightsSource;
        part.referenceSource = t.referenceSource;
        part.referenceWeightsSource = t.referenceWeightsSource;
        part.sampleNames = t.sampleNames;
        part.featureNames.assign(t.featureNames.begin(), t.featureNames.begin() + static_cast<std::ptrdiff_t>(size));
        part.storedType = t.storedType;
        part.notes = t.notes;
        return data::makeExpressionDataset(std::move(part),
            dataset.meta().name + " [first " + std::to_string(size) + " features]", dataset.meta().source);
    }

    Cost cost(const data::Dataset& dataset, const ParamSet& params) const override
    {
        const auto& t = dataset.as<data::ExpressionTable>();
        const Mode mode = requestedMode(t, params); // a mode prepare refuses still has a cost
        const double n = static_cast<double>(t.samples);
        const double p = static_cast<double>(t.features);
        const double pairs = static_cast<double>(pairCount(t.features));
        if (!mode.weighted) {
            // Read Y (and with alpha Yfull) once, write every pair once; a subtraction and a multiply-add per pair
            // and sample.
            const double full
                = mode.transformed() && !t.reference.empty() ? static_cast<double>(t.referenceSamples) : 0.0;
            return Cost {8.0 * (n + full) * p + 8.0 * pairs, 3.0 * n * pairs, pairs, "pairs", Roof::Fp64};
        }
        // Weighted: Y and W read once; per pair and sample a weight product, its square and the weighted sums of
        // the two passes (about 9 flops), and with alpha a pass over Yfull for the pair's means (5 per sample).
        const double full = mode.transformed() ? static_cast<double>(t.fullSamples()) : 0.0;
        const double fullRead = mode.transformed() && !t.reference.empty() ? 16.0 * full * p : 0.0;
        return Cost {16.0 * n * p + fullRead + 8.0 * pairs, (9.0 * n + 5.0 * full) * pairs, pairs, "pairs", Roof::Fp64};
    }

    double tolerance(const ParamSet&) const override
    {
        return 1e-9;
    }

    void checkRun(const ParamSet& params, const data::Dataset* dataset, const ParamSet* generator,
        std::uint64_t size) const override
    {
        // A run holds every pair's lrv on the host (the result, and the reference's where it is computed in full):
        // at 100,000 features that is 37 GiB a copy, refused here with the figure instead of failing each variant.
        double samples = 0.0;
        if (dataset) {
            (void)modeOf(dataset->as<data::ExpressionTable>(), params); // refuses weighted alpha lacking Wfull
            samples = static_cast<double>(dataset->as<data::ExpressionTable>().samples);
        } else if (generator)
            samples = static_cast<double>(generator->integer("samples"));
        else
            return;
        const double pairs = static_cast<double>(pairCount(size));
        const double copy = pairs * sizeof(double);
        const bool fullReference = samples * pairs <= kFullReferenceWork;
        // A generated table is made for the run as well.
        const double table = dataset ? 0.0 : samples * static_cast<double>(size) * sizeof(double);
        const double needed = copy * (fullReference ? 2.0 : 1.0) + table;
        const std::uint64_t available = data::availableHostMemory();
        if (needed > static_cast<double>(available)) {
            const std::string source = data::memoryBudgetSource();
            throw ParameterError("lrv at " + std::to_string(size) + " features has " + std::to_string(pairCount(size))
                + " pairs: " + data::formatBytes(static_cast<std::uint64_t>(copy)) + " a result"
                + (fullReference ? ", twice that with the reference's" : "")
                + (table > 0 ? " and " + data::formatBytes(static_cast<std::uint64_t>(table)) + " of generated table"
                             : std::string())
                + ", more than the " + data::formatBytes(available) + " of memory available"
                + (source.empty() ? std::string() : " (" + source + ")"));
        }
    }

    bool fullReferenceAffordable(const data::Dataset& dataset, const ParamSet&) const override
    {
        const auto& t = dataset.as<data::ExpressionTable>();
        return static_cast<double>(t.samples) * static_cast<double>(pairCount(t.features)) <= kFullReferenceWork;
    }

    Delta compare(const Result& result, const Result& reference, const data::Dataset& dataset,
        const ParamSet& params) const override
    {
        const auto& t = dataset.as<data::ExpressionTable>();
        const std::uint64_t pairs = pairCount(t.features);
        if (result.values.size() != pairs)
            throw ComputeError("lrv: the result has " + std::to_string(result.values.size()) + " values for "
                + std::to_string(pairs) + " pairs");
        Delta d;
        d.kind = "max_rel_err";
        d.tolerance = tolerance(params);
        d.computed = true;
        const Mode mode = modeOf(t, params);
        const double floor = resolutionFloor(t, mode, d.tolerance);
        // A stop request (Ctrl-C, Cancel) is seen once every kCancelBlock pairs of the loops over all pairs.
        const CancelPoint& cancel = ambientCancelPoint();
        double worst = 0.0;
        double worstProportional = 0.0;
        double compared = 0.0;
        // Every variant computes in double (the tensor-core ones in FP64 DMMA): ULPs are double's.
        d.relError = ErrorHistogram(ErrorBins::Log10, "rel_err");
        d.stepError = ErrorHistogram(ErrorBins::PowersOfTwo, ulpMeasure(Precision::F64));
        d.relError->elements = d.stepError->elements = pairs;
        d.relError->tolerance = d.tolerance;
        if (!reference.values.empty()) {
            // The 1% most proportional pairs (smallest lrv) are the ones propr users look at.
            std::vector<double> sorted = reference.values;
            const std::size_t cut = std::max<std::size_t>(1, sorted.size() / 100);
            std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(cut - 1), sorted.end());
            const double threshold = sorted[cut - 1];
            for (std::size_t k = 0; k < reference.values.size(); ++k) {
                if (k % kCancelBlock == 0)
                    cancel.throwIfStopped();
                const double e = relativeError(result.values[k], reference.values[k], floor);
                d.relError->add(e);
                d.stepError->addSteps(ulpDistance(result.values[k], reference.values[k]));
                worst = std::max(worst, e);
                if (reference.values[k] <= threshold)
                    worstProportional = std::max(worstProportional, e);
            }
            compared = static_cast<double>(pairs);
        } else {
            // Sampled check: uniformly drawn pairs, plus the 1% this result ranks most proportional (up to a
            // cap), each against its reference value computed here.
            const auto& inputs = inputsFor(dataset, mode);
            data::CounterRng rng(std::hash<std::string> {}(dataset.meta().contentHash));
            std::vector<std::uint64_t> sample;
            const std::size_t uniform = static_cast<std::size_t>(std::min<std::uint64_t>(pairs, kSampledPairs));
            for (std::size_t s = 0; s < uniform; ++s)
                sample.push_back(rng.bits(7, s) % pairs);
            const std::size_t top
                = std::min<std::size_t>(kSampledPairs, std::max<std::size_t>(1, static_cast<std::size_t>(pairs / 100)));
            std::vector<std::pair<double, std::uint64_t>> smallest;
            smallest.reserve(top + 1);
            for (std::uint64_t k = 0; k < pairs; ++k) {
                if (k % kCancelBlock == 0)
                    cancel.throwIfStopped();
                smallest.emplace_back(result.values[k], k);
                if (smallest.size() > 2 * top) {
                    std::nth_element(
                        smallest.begin(), smallest.begin() + static_cast<std::ptrdiff_t>(top), smallest.end());
                    smallest.resize(top);
                }
            }
            std::sort(smallest.begin(), smallest.end());
            smallest.resize(std::min(smallest.size(), top));
            std::vector<double> errors(sample.size() + smallest.size());
            std::vector<std::optional<std::uint64_t>> ulps(errors.size());
#pragma omp parallel for schedule(dynamic, 256)
            for (std::int64_t s = 0; s < static_cast<std::int64_t>(errors.size()); ++s) {
                const auto idx = static_cast<std::size_t>(s);
                const std::uint64_t k = idx < sample.size() ? sample[idx] : smallest[idx - sample.size()].second;
                std::uint64_t i = 0, j = 0;
                pairAt(k, i, j);
                const double expected = referencePair(inputs, i, j);
                errors[idx] = relativeError(result.values[k], expected, floor);
                ulps[idx] = ulpDistance(result.values[k], expected);
            }
            // The histograms describe the sample (a pair drawn twice counts twice).
            d.relError->sampled = d.stepError->sampled = true;
            for (std::size_t s = 0; s < errors.size(); ++s) {
                d.relError->add(errors[s]);
                d.stepError->addSteps(ulps[s]);
                worst = std::max(worst, errors[s]);
                if (s >= sample.size())
                    worstProportional = std::max(worstProportional, errors[s]);
            }
            compared = static_cast<double>(errors.size());
        }
        d.value = worst;
        d.details = {{"max_rel_err_all", worst}, {"max_rel_err_most_proportional_1pct", worstProportional},
            {"pairs_compared", compared}, {"resolution_floor", floor}};
        return d;
    }

private:
    /// referenceInputs of the last dataset and mode compared in sampled mode (a sweep compares many variants on one).
    const ReferenceInputs& inputsFor(const data::Dataset& dataset, const Mode& mode) const
    {
        std::lock_guard lock(m_inputsMutex);
        if (m_inputsHash != dataset.meta().contentHash || m_inputsHash.empty() || m_inputs.mode.alpha != mode.alpha) {
            m_inputs = referenceInputs(dataset.as<data::ExpressionTable>(), mode, ambientCancelPoint());
            m_inputsHash = dataset.meta().contentHash;
        }
        return m_inputs;
    }

    mutable std::mutex m_inputsMutex;
    mutable std::string m_inputsHash;
    mutable ReferenceInputs m_inputs;
};
} // namespace

void registerLrv(Registry& registry)
{
    registry.add(std::make_unique<LrvWorkload>());
}

} // namespace ks::lrv
