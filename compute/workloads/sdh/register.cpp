// The sdh workload descriptor and its variant list. A new sdh variant is its kernel file plus, here, one row in
// the list and its factory's declaration; the registry-wide test (tests/compute/test_variants.cpp) then checks it.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/workloads/sdh/sdh.h"

#include <cmath>
#include <limits>

namespace ks::sdh {

// Variant factories: each is defined in its kernel file and registered in the list below.
PrepareSignature prepareReference;
PrepareSignature prepareCpuOpenMp;
PrepareSignature prepareBaseline;
PrepareSignature prepareSharedLr;
PrepareSignature prepareSharedLrLocal;
PrepareSignature prepareSharedLrCopies;
PrepareSignature prepareSharedLrSoa;
PrepareSignature prepareTiledF32;
PrepareSignature prepareTiledF32Multi;
PrepareSignature prepareTiledF64Exact;

namespace {

/// The brute-force reference costs about 10 ns a pair on one core: beyond this many pairs (about 63,000 points) it is
/// skipped and only the total of each histogram is checked.
constexpr std::uint64_t kFullReferencePairs = 2'000'000'000;

class SdhWorkload final : public Workload {
public:
    SdhWorkload()
    {
        m_variants = {
            cpuVariant("reference", "Reference (brute force, double)",
                "every pair's distance in double, rounded operation by operation, counted exactly", prepareReference)
                .exact("l1_pairs"),
            cpuVariant("cpu_openmp", "CPU pairs (OpenMP)",
                "the reference's arithmetic, rows of the pair triangle over threads, a histogram per thread",
                prepareCpuOpenMp)
                .exact("l1_pairs"),
            gpuVariant("baseline", "Baseline: global atomics (seed 1)",
                "the seed's first version: a thread per point, every later point, atomicAdd into the global "
                "histogram",
                Backend::Cuda, KS_GPU_PREPARE(prepareBaseline))
                .exact("l1_pairs"),
            gpuVariant("shared_lr", "Shared-memory LR block (seed 2)",
                "the seed's second: a block's points in registers, every later block staged in shared memory, "
                "global atomics",
                Backend::Cuda, KS_GPU_PREPARE(prepareSharedLr))
                .exact("l1_pairs"),
            gpuVariant("shared_lr_local", "Shared LR, one local copy (seed 3)",
                "the seed's third: as shared_lr with the histogram in shared memory, added to the global one at "
                "the end",
                Backend::Cuda, KS_GPU_PREPARE(prepareSharedLrLocal))
                .exact("l1_pairs"),
            gpuVariant("shared_lr_copies", "Shared LR, local copies (seed 4)",
                "the seed's fourth: several shared histogram copies chosen by the seed's table of bucket counts",
                Backend::Cuda, KS_GPU_PREPARE(prepareSharedLrCopies))
                .exact("l1_pairs"),
            gpuVariant("shared_lr_soa", "Shared LR, copies, coalesced (seed 5)",
                "the seed's fifth: the fourth on structure-of-arrays coordinates (three double arrays)", Backend::Cuda,
                KS_GPU_PREPARE(prepareSharedLrSoa))
                .exact("l1_pairs"),
            gpuVariant("tiled_f32", "Tiled float32 (fast)",
                "load-balanced tile pairs, eight points per thread in registers, per-lane, per-warp or per-block "
                "shared histograms; float arithmetic and an approximate square root",
                Backend::Cuda, KS_GPU_PREPARE(prepareTiledF32)),
            gpuVariant("tiled_f64_exact", "Tiled float64 (exact)",
                "the tiled kernel with a float screen: a pair is placed from float coordinates where its float "
                "distance is provably in the reference's bucket, the rest (near a bucket edge) queued and placed with "
                "the reference's double arithmetic; counts equal the reference's",
                Backend::Cuda, KS_GPU_PREPARE(prepareTiledF64Exact))
                .exact("l1_pairs"),
            multiDeviceVariant("tiled_f32_multi", "Tiled float32 on several GPUs",
                "tiled_f32's tile pairs dealt out in equal ranges over the run's GPUs, a host thread per GPU, each "
                "GPU's 64-bit histogram summed by one ncclAllReduce; counts equal tiled_f32's",
                KS_GPU_PREPARE(prepareTiledF32Multi)),
        };
    }

    std::string id() const override { return "sdh"; }
    std::string name() const override { return "Spatial distance histogram"; }
    std::string description() const override
    {
        return "the histogram of all N(N−1)/2 pair distances of a point cloud, buckets of width W (seed 001)";
    }
    std::string datasetKind() const override { return "points"; }
    std::string filePatterns() const override { return "*.xyz *.pdb *.ent *.ply *.txt *.csv *.gz *.h5 *.hdf5"; }

    std::vector<Axis> parameters() const override
    {
        return {
            Axis::real("bucket_width", "width W of a bucket; the bucket count is ⌊bounding-box diagonal / W⌋ + 1",
                500.0, 1e-12, 1e12),
            Axis::integer("frame", "the frame (XYZ, HDF5) or model (PDB) to read, from 1 (read when a file is loaded)",
                1, 1, 1'000'000'000)
                .asReaderOption(),
        };
    }

    std::vector<Axis> generatorParameters() const override
    {
        return {
            Axis::choice("shape", "uniform in a box (the seed's setting) or Gaussian clusters", "uniform",
                {"uniform", "clusters"}),
            Axis::integer("points", "number of points N", 10'000, 1, 100'000'000),
            Axis::real("box", "edge of the box (the seed's project used 23,000)", 23'000.0, 1e-9, 1e12),
            Axis::integer("clusters", "clusters: number of Gaussian blobs", 8, 1, 1'000'000),
            Axis::real("spread", "clusters: standard deviation of a blob as a share of the box", 0.03, 0.0, 10.0),
            Axis::integer("seed", "random seed", 1, 0, std::int64_t(1) << 62),
        };
    }

    std::string sizeParameter() const override { return "points"; }
    std::string demoSizes() const override { return "1000..16000"; }

    TestPlan testPlan() const override
    {
        // Bucket widths giving about 1, 7, 512 and 4,000 buckets on clouds in the unit box (diagonal at most √3).
        return {{2, 3, 255, 257, 10007},
            {{"uniform", {{"box", "1"}}}, {"clusters", {{"shape", "clusters"}, {"box", "1"}, {"clusters", "3"}}}},
            {{"b1", {{"bucket_width", "2"}}}, {"b7", {{"bucket_width", "0.26"}}},
                {"b512", {{"bucket_width", "0.003386"}}}, {"b4000", {{"bucket_width", "0.000433"}}}},
            {}};
    }

    data::Dataset generate(const ParamSet& g) const override
    {
        data::CloudGenerator generator;
        generator.shape
            = g.text("shape") == "clusters" ? data::CloudShape::GaussianClusters : data::CloudShape::UniformBox;
        generator.points = static_cast<std::uint64_t>(g.integer("points"));
        generator.box = g.real("box");
        generator.clusters = static_cast<std::uint64_t>(g.integer("clusters"));
        generator.spread = g.real("spread");
        generator.seed = static_cast<std::uint64_t>(g.integer("seed"));
        const std::string name = "generated sdh " + g.text("shape") + " " + g.text("points")
            + " points box=" + g.text("box") + " seed=" + g.text("seed");
        return data::makePointDataset(data::generateCloud(generator), name, "generator: " + g.toString());
    }

    data::Dataset load(const std::string& path, const data::ReadOptions& options) const override
    {
        return data::loadPointCloud(path, options);
    }

    std::optional<data::Dataset> subset(const data::Dataset& dataset, std::uint64_t size) const override
    {
        const auto& cloud = dataset.as<data::PointCloud>();
        if (size == 0 || size > cloud.size())
            return std::nullopt;
        data::PointCloud part;
        const auto count = static_cast<std::ptrdiff_t>(size);
        part.x.assign(cloud.x.begin(), cloud.x.begin() + count);
        part.y.assign(cloud.y.begin(), cloud.y.begin() + count);
        part.z.assign(cloud.z.begin(), cloud.z.begin() + count);
        part.storedType = cloud.storedType;
        part.notes = cloud.notes;
        return data::makePointDataset(std::move(part),
            dataset.meta().name + " [first " + std::to_string(size) + " points]", dataset.meta().source);
    }

    Cost cost(const data::Dataset& dataset, const ParamSet&) const override
    {
        const double n = static_cast<double>(dataset.as<data::PointCloud>().size());
        const double pairs = static_cast<double>(pairCount(dataset.as<data::PointCloud>().size()));
        // Per pair: three differences, three multiply-adds, a square root and a scaling (counted as 10 flops);
        // the coordinates are read once.
        return Cost {24.0 * n, 10.0 * pairs, pairs, "pairs", Roof::Fp32};
    }

    void checkRun(const ParamSet& params, const data::Dataset* dataset, const ParamSet* generator,
        std::uint64_t size) const override
    {
        const double width = bucketWidth(params);
        if (dataset) {
            checkedBuckets(width, boundingDiagonal(dataset->as<data::PointCloud>(), size),
                size < dataset->meta().size ? "its first " + std::to_string(size) + " points" : "this cloud");
        } else if (generator) {
            // The cloud is not made yet: uniform points lie in the box, so its diagonal is at most box·√3; a
            // Gaussian cluster's points reach a few standard deviations past it, allowed for with 6σ a side.
            const double box = generator->real("box");
            const double margin = generator->text("shape") == "clusters" ? 12.0 * generator->real("spread") * box : 0.0;
            checkedBuckets(width, (box + margin) * std::sqrt(3.0), "about, for box=" + generator->text("box"));
        }
    }

    bool fullReferenceAffordable(const data::Dataset& dataset, const ParamSet&) const override
    {
        return pairCount(dataset.as<data::PointCloud>().size()) <= kFullReferencePairs;
    }

    double tolerance(const ParamSet&) const override
    {
        // A tenth of a percent of the pairs in a neighbouring bucket: what float32 rounding moves across bucket
        // edges at thousands of buckets, with room; the double variants are exact and say so in l1_pairs.
        return 1e-3;
    }

    Delta compare(const Result& result, const Result& reference, const data::Dataset& dataset,
        const ParamSet& params) const override
    {
        const auto& cloud = dataset.as<data::PointCloud>();
        const std::uint64_t pairs = pairCount(cloud.size());
        if (reference.counts.empty()) {
            // Beyond the reference's reach (hours of CPU time): every pair must still be counted exactly once.
            std::uint64_t total = 0;
            for (auto c : result.counts)
                total += c;
            Delta d;
            d.kind = "l1_fraction";
            d.tolerance = tolerance(params);
            d.value = total == pairs ? 0.0 : std::numeric_limits<double>::infinity();
            d.details = {{"total_minus_pairs", static_cast<double>(total) - static_cast<double>(pairs)},
                {"reference_skipped", 1.0}};
            d.computed = true;
            return d;
        }
        if (result.counts.size() != reference.counts.size())
            throw ComputeError("sdh: a histogram has " + std::to_string(result.counts.size()) + " buckets for "
                + std::to_string(reference.counts.size()));
        std::uint64_t total = 0;
        double l1 = 0.0;
        double worstRelative = 0.0;
        Delta d;
        // Per bucket: the count difference relative to the reference's count (at least 1, so an empty reference
        // bucket's stray pair counts 1, not infinitely), and the difference itself. Counts are integers, so no ULP
        // applies; the difference in pairs is their step distance. No per-bucket tolerance: the Delta's is on the L1
        // fraction over all buckets.
        d.relError = ErrorHistogram(ErrorBins::Log10, "bucket_rel_err");
        d.stepError = ErrorHistogram(ErrorBins::PowersOfTwo, "count_diff");
        d.relError->elements = d.stepError->elements = result.counts.size();
        for (std::size_t b = 0; b < result.counts.size(); ++b) {
            total += result.counts[b];
            const std::uint64_t got = result.counts[b];
            const std::uint64_t want = reference.counts[b];
            const double diff = std::fabs(static_cast<double>(got) - static_cast<double>(want));
            l1 += diff;
            const double relative = diff / std::max(1.0, static_cast<double>(want));
            if (diff > 0)
                worstRelative = std::max(worstRelative, relative);
            d.relError->add(relative);
            d.stepError->addSteps(got >= want ? got - want : want - got);
        }
        d.kind = "l1_fraction";
        d.tolerance = tolerance(params);
        // Every pair must be counted once: a total other than N(N−1)/2 is wrong whatever the buckets say.
        d.value = total != pairs ? std::numeric_limits<double>::infinity()
                                 : (pairs == 0 ? 0.0 : l1 / (2.0 * static_cast<double>(pairs)));
        d.details = {{"l1_pairs", l1}, {"max_rel_bucket_err", worstRelative},
            {"total_minus_pairs", static_cast<double>(total) - static_cast<double>(pairs)}};
        d.computed = true;
        return d;
    }
};
} // namespace

void registerSdh(Registry& registry)
{
    registry.add(std::make_unique<SdhWorkload>());
}

} // namespace ks::sdh
