// The linreg workload descriptor and its variant list. A new linreg variant is its kernel file plus, here, one row in
// the list and its factory's declaration; the registry-wide test (tests/compute/test_variants.cpp) then checks it.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/workloads/linreg/linreg.h"
#include "data/dataset_error.h"
#include "data/number_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace ks::linreg {

Result makeResult(const Fit& fit)
{
    return Result {"fit", {"slope", "intercept"}, {fit.slope, fit.intercept}, {}, {}, {}, {}};
}

HostSeries::HostSeries(const data::Series2D& series, Precision precision)
    : m_precision(precision)
    , m_size(series.x.size())
    , m_xd(series.x)
    , m_yd(series.y)
{
    if (series.x.size() != series.y.size())
        throw ComputeError("linreg: x and y differ in length");
    if (precision == Precision::F32) {
        m_xf.assign(series.x.begin(), series.x.end());
        m_yf.assign(series.y.begin(), series.y.end());
    }
}

// Variant factories: each is defined in its kernel file and registered in the list below.
PrepareSignature prepareReference;
PrepareSignature prepareCpuFourSums;
PrepareSignature prepareCpuOpenMp;
PrepareSignature prepareAtomicGlobal;
PrepareSignature prepareSharedTree;
PrepareSignature prepareWarpShuffle;
PrepareSignature prepareWarpShuffleMulti;
PrepareSignature prepareFusedGrid;
PrepareSignature prepareChanStable;
PrepareSignature prepareCub;

namespace {
class LinregWorkload final : public Workload {
public:
    LinregWorkload()
    {
        m_variants = {
            cpuVariant("reference", "Reference (centered, long double)",
                "centered two-pass sums in long double with Neumaier compensation", prepareReference),
            cpuVariant(
                "cpu_four_sums", "CPU four sums", "the seed's four sums in double, one thread", prepareCpuFourSums)
                .mayLoseDigitsOn({"offset"}),
            cpuVariant("cpu_openmp", "CPU four sums (OpenMP)", "four sums with an OpenMP reduction over every core",
                prepareCpuOpenMp)
                .mayLoseDigitsOn({"offset"}),
            gpuVariant("atomic_global", "Global atomics", "atomicAdd of every element into four global counters",
                Backend::Cuda, KS_GPU_PREPARE(prepareAtomicGlobal))
                .mayLoseDigitsOn({"offset"}),
            gpuVariant("shared_tree", "Shared-memory tree reduction",
                "grid-stride sums, shared-memory tree per block, final sum of block partials on the CPU", Backend::Cuda,
                KS_GPU_PREPARE(prepareSharedTree))
                .mayLoseDigitsOn({"offset"}),
            gpuVariant("warp_shuffle", "Warp-shuffle reduction",
                "16-byte loads, __shfl_down_sync within warps, block partials reduced by a second kernel",
                Backend::Cuda, KS_GPU_PREPARE(prepareWarpShuffle))
                .mayLoseDigitsOn({"offset"}),
            multiDeviceVariant("warp_shuffle_multi", "Warp-shuffle reduction on several GPUs",
                "warp_shuffle on one slice of the series per GPU (split by count, a host thread per GPU); the four "
                "sums "
                "of every GPU gathered by one ncclAllGather and added in rank order, so the merge is the same every "
                "time",
                KS_GPU_PREPARE(prepareWarpShuffleMulti))
                .mayLoseDigitsOn({"offset"}),
            gpuVariant("fused_grid", "Fused single-pass grid reduction",
                "one launch: warp shuffles, block partials, the last block to finish sums them and fits", Backend::Cuda,
                KS_GPU_PREPARE(prepareFusedGrid))
                .mayLoseDigitsOn({"offset"}),
            gpuVariant("chan_stable", "Stable shifted sums (Chan)",
                "per-thread sums shifted by the thread's first point, merged with Chan's pairwise formula",
                Backend::Cuda, KS_GPU_PREPARE(prepareChanStable)),
            gpuVariant("cub", "CUB DeviceReduce",
                "cub::DeviceReduce::TransformReduce over a four-component sum, fit on the device", Backend::Library,
                KS_GPU_PREPARE(prepareCub))
                .mayLoseDigitsOn({"offset"}),
        };
    }

    std::string id() const override { return "linreg"; }
    std::string name() const override { return "Linear regression (OLS)"; }
    std::string description() const override
    {
        return "Ordinary least squares slope and intercept of y = m·x + c from Σx, Σy, Σx², Σxy (seed 000)";
    }
    std::string datasetKind() const override { return "series2d"; }
    std::string filePatterns() const override { return "*.csv *.tsv *.txt *.dat *.gz *.h5 *.hdf5"; }

    std::vector<Axis> parameters() const override
    {
        return {Axis::choice(
            "precision", "value type the variants read (sums are always in double or wider)", "f64", {"f64", "f32"})};
    }

    std::vector<Axis> generatorParameters() const override
    {
        return {
            Axis::integer("n", "number of points", 1'000'000, 1, std::int64_t(1) << 34),
            Axis::real("slope", "true slope m", 2.5, -1e12, 1e12),
            Axis::real("intercept", "true intercept c", -1.25, -1e12, 1e12),
            Axis::real("noise", "standard deviation of the Gaussian noise on y", 1.0, 0.0, 1e12),
            Axis::real(
                "x_offset", "smallest x; large offsets are where the four-sums formula loses digits", 0.0, -1e15, 1e15),
            Axis::real("x_span", "x is uniform in [x_offset, x_offset + x_span)", 100.0, 0.0, 1e15),
            Axis::integer("seed", "random seed", 1, 0, std::int64_t(1) << 62),
        };
    }

    std::string sizeParameter() const override { return "n"; }
    std::string demoSizes() const override { return "2^14..2^22"; }

    TestPlan testPlan() const override
    {
        // Four sums lose their digits on data far from the origin: the "offset" class is where they may.
        return {{1, 2, 31, 1000003}, {{"plain", {}}, {"offset", {{"x_offset", "1e6"}, {"x_span", "10"}}}}, {}, {}};
    }

    data::Dataset generate(const ParamSet& g) const override
    {
        data::SeriesGenerator generator;
        generator.n = static_cast<std::uint64_t>(g.integer("n"));
        generator.slope = g.real("slope");
        generator.intercept = g.real("intercept");
        generator.noise = g.real("noise");
        generator.xOffset = g.real("x_offset");
        generator.xSpan = g.real("x_span");
        generator.seed = static_cast<std::uint64_t>(g.integer("seed"));
        auto series = data::generateSeries(generator);
        const std::string name
            = "generated linreg n=" + g.text("n") + " x_offset=" + g.text("x_offset") + " seed=" + g.text("seed");
        return data::makeSeriesDataset(std::move(series), name, "generator: " + g.toString());
    }

    data::Dataset load(const std::string& path, const data::ReadOptions& options) const override
    {
        return data::loadSeries2D(path, options);
    }

    void checkRun(
        const ParamSet&, const data::Dataset* dataset, const ParamSet* generator, std::uint64_t size) const override
    {
        // With every x equal, Σ(x − x̄)² is 0 and the slope 0/0: every variant would "agree" on NaN.
        constexpr const char* kConstant = "x is constant: the slope is undefined";
        if (dataset) {
            const auto& x = dataset->as<data::Series2D>().x;
            const auto end = x.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(size, x.size()));
            if (x.begin() != end && std::all_of(x.begin(), end, [&](double v) { return v == x.front(); }))
                throw ParameterError(std::string(kConstant) + " (" + dataset->meta().name + ": "
                    + (end - x.begin() == 1 ? std::string("one point")
                                            : "x = " + data::formatNumber(x.front()) + " in every point"
                                + (size < x.size() ? " of the first " + std::to_string(size) : ""))
                    + ")");
        } else if (generator) {
            const double offset = generator->real("x_offset");
            if (generator->integer("n") < 2)
                throw ParameterError(std::string(kConstant) + " (n=" + generator->text("n") + ": one point)");
            // x = x_offset + x_span·u with u in [0, 1): a span below x_offset's last digit rounds every x to x_offset.
            if (offset + generator->real("x_span") == offset)
                throw ParameterError(std::string(kConstant) + " (x_span=" + generator->text("x_span")
                    + " leaves every x at x_offset=" + generator->text("x_offset") + ")");
        }
    }

    std::optional<data::Dataset> subset(const data::Dataset& dataset, std::uint64_t size) const override
    {
        const auto& series = dataset.as<data::Series2D>();
        if (size == 0 || size > series.x.size())
            return std::nullopt;
        data::Series2D part = series;
        part.x.resize(size);
        part.y.resize(size);
        return data::makeSeriesDataset(
            std::move(part), dataset.meta().name + " [first " + std::to_string(size) + "]", dataset.meta().source);
    }

    Cost cost(const data::Dataset& dataset, const ParamSet& params) const override
    {
        const double n = static_cast<double>(dataset.as<data::Series2D>().x.size());
        const double bytesPerValue = precisionOf(params) == Precision::F64 ? 8.0 : 4.0;
        // Two adds and two multiply-adds per point; reads x and y once.
        return Cost {2.0 * n * bytesPerValue, 6.0 * n, n, "points", Roof::ReadBandwidth};
    }

    double tolerance(const ParamSet& params) const override
    {
        return precisionOf(params) == Precision::F64 ? 1e-9 : 1e-6;
    }

    Delta compare(const Result& result, const Result& reference, const data::Dataset& dataset,
        const ParamSet& params) const override
    {
        if (result.values.size() != 2 || reference.values.size() != 2)
            throw ComputeError("linreg: a fit has two values (slope, intercept)");
        const double m = reference.values[0];
        const double c = reference.values[1];
        // The intercept is c = ȳ − m·x̄: its error is measured against the scale of the terms it is made of,
        // so a far-from-zero x̄ does not turn a 1-ulp slope error into a huge "relative" intercept error.
        const double interceptScale = std::fabs(c) + std::fabs(m * meanX(dataset));
        Delta d;
        d.kind = "max_rel_err";
        d.tolerance = tolerance(params);
        // NaN in both counts as agreement (an undetermined line), NaN in one as infinitely wrong.
        const double slopeError = relativeError(result.values[0], m, std::fabs(m));
        const double interceptError = relativeError(result.values[1], c, interceptScale);
        d.details = {{"slope_rel_err", slopeError}, {"intercept_rel_err", interceptError}};
        d.value = std::max(slopeError, interceptError);
        d.computed = true;
        // Two elements: the distribution says whether both are off or one is exact. ULPs are counted in the input
        // precision: an f32 variant's fit is summed in double but can be no closer than its float inputs allow.
        d.relError = ErrorHistogram(ErrorBins::Log10, "rel_err");
        d.relError->elements = 2;
        d.relError->tolerance = d.tolerance;
        d.relError->add(slopeError);
        d.relError->add(interceptError);
        const Precision precision = precisionOf(params);
        d.stepError = ErrorHistogram(ErrorBins::PowersOfTwo, ulpMeasure(precision));
        d.stepError->elements = 2;
        for (std::size_t k = 0; k < 2; ++k)
            d.stepError->addSteps(ulpDistance(result.values[k], reference.values[k], precision));
        return d;
    }

private:
    /// x̄ of a dataset, remembered for the last dataset seen (a sweep compares many variants on one).
    double meanX(const data::Dataset& dataset) const
    {
        std::lock_guard lock(m_meanMutex);
        if (dataset.meta().contentHash == m_meanHash && !m_meanHash.empty())
            return m_mean;
        const auto& x = dataset.as<data::Series2D>().x;
        double sum = 0.0;
        const auto n = static_cast<std::int64_t>(x.size());
#pragma omp parallel for reduction(+ : sum) schedule(static)
        for (std::int64_t i = 0; i < n; ++i)
            sum += x[static_cast<std::size_t>(i)];
        m_mean = x.empty() ? 0.0 : sum / static_cast<double>(x.size());
        m_meanHash = dataset.meta().contentHash;
        return m_mean;
    }

    mutable std::mutex m_meanMutex;
    mutable std::string m_meanHash;
    mutable double m_mean = 0.0;
};
} // namespace

void registerLinreg(Registry& registry)
{
    registry.add(std::make_unique<LinregWorkload>());
}

} // namespace ks::linreg
