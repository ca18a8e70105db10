// The cnn workload descriptor and its variant list. A new cnn variant is its kernel file plus, here, one row in
// the list and its factory's declaration; the registry-wide test (tests/compute/test_variants.cpp) then checks it.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/device/device_info.h"
#include "compute/device/vendor_libraries.h"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks::cnn {

// Variant factories: each is defined in its kernel file and registered in the list below.
PrepareSignature prepareReference;
PrepareSignature prepareCpuOpenMp;
PrepareSignature prepareV2Atomics;
PrepareSignature prepareV3AtomicFree;
PrepareSignature prepareTensorCoreTf32;
PrepareSignature prepareGraphFused;
PrepareSignature prepareCudnn;

namespace {

/// The cudnn variant loads cuDNN and cuBLAS at run time: empty when both load, else why not.
std::string cudnnLibrariesUnavailableReason()
{
#if KS_HAVE_CUDA
    const std::string reason = device::cudnnUnavailableReason();
    return reason.empty() ? device::cublasUnavailableReason() : reason;
#else
    return "built without CUDA";
#endif
}

class CnnWorkload final : public Workload {
public:
    CnnWorkload()
    {
        Variant cudnn = gpuVariant("cudnn", "cuDNN + cuBLAS",
            "cuDNN convolutions in float32 without TF32 (forward fused with bias and ReLU, backward filter and data; "
            "the fastest deterministic algorithms, timed once) and max-pool forward; cuBLAS SGEMM for the FC layers "
            "and their gradients; both loaded at run time",
            Backend::Library, KS_GPU_PREPARE(prepareCudnn));
        cudnn.runtimeCheck = cudnnLibrariesUnavailableReason;
        m_variants = {
            cpuVariant("reference", "Reference (double loops)",
                "the network's plain loops in double: conv, ReLU, max-pool, FC, softmax cross-entropy, SGD with "
                "momentum",
                prepareReference),
            cpuVariant("cpu_openmp", "CPU float32 (OpenMP)",
                "the same loops in float32 over every core, each output owned by one thread: input gradients "
                "gathered, weight gradients one thread per output channel (atomic-free, deterministic)",
                prepareCpuOpenMp),
            gpuVariant("v2_atomics", "Shared-memory tiles, atomics (seed v2)",
                "the seed's GPU_v2_shared_mem: convolutions over shared-memory input tiles, atomicAdd in every "
                "backward kernel (FC, conv weights and inputs, max-pool)",
                Backend::Cuda, KS_GPU_PREPARE(prepareV2Atomics)),
            gpuVariant("v3_atomic_free", "Atomic-free backward (seed v3)",
                "the seed's GPU_v3: v2's forward; per-sample FC weight gradients then a reduction kernel, conv weight "
                "gradients a thread per weight, input gradients a thread per input element, max-pool backward a "
                "direct write",
                Backend::Cuda, KS_GPU_PREPARE(prepareV3AtomicFree)),
            gpuVariant("tensor_core_tf32", "Tensor cores, TF32 (mma.sync)",
                "every product on tensor cores (mma.sync m16n8k8, TF32 inputs, FP32 accumulation): implicit-GEMM "
                "convolutions and input gradients, weight gradients as GEMMs with a fixed-order split-K reduction "
                "on a second stream",
                Backend::Cuda, KS_GPU_PREPARE(prepareTensorCoreTf32)),
            gpuVariant("graph_fused", "One CUDA graph, fused epilogues",
                "the whole step one CUDA graph: register-tiled FP32 implicit GEMMs, conv+bias+ReLU+max-pool in one "
                "kernel, pool and ReLU backward fused into their neighbours, conv weight gradients by a deterministic "
                "split-K (slices added in a fixed order, no atomics)",
                Backend::Cuda, KS_GPU_PREPARE(prepareGraphFused)),
            cudnn,
        };
    }

    std::string id() const override { return "cnn"; }
    std::string name() const override { return "CNN training step"; }
    std::string description() const override
    {
        return "training steps of a small CNN (2 conv + pool, 2 FC, softmax cross-entropy, SGD with momentum) on "
               "labelled images; the first step's gradients against a double reference, the trained weights scored on "
               "held-out images (seed 004)";
    }
    std::string datasetKind() const override { return "images"; }
    std::string filePatterns() const override
    {
        return "*-idx3-ubyte *-idx3-ubyte.gz *-idx1-ubyte *-idx1-ubyte.gz *.bin";
    }

    std::vector<Axis> parameters() const override
    {
        return {
            Axis::integer("steps", "training steps in a run, each a repetition with its loss", 20, 1, 10'000'000),
            Axis::integer("batch", "images per step (batches wrap around the dataset)", 64, 1, 65'536),
            Axis::real("lr", "SGD learning rate", 0.01, 0.0, 100.0),
            Axis::real("momentum", "SGD momentum (PyTorch's form)", 0.9, 0.0, 1.0),
            Axis::integer(
                "seed", "seed of the He-initialised weights every variant starts from", 1, 0, std::int64_t(1) << 62),
            Axis::integer("eval",
                "held-out images scored after training (the first ones; facts accuracy and accuracy_images); 0: none",
                1000, 0, 10'000'000),
            Axis::text("features",
                "after training, write the 128-d fc1 features of every training and held-out image with its label: "
                ".h5/.hdf5 (/train and /test groups) or LIBSVM text .libsvm/.svm/.txt (held-out rows in FILE.t)",
                "", featureFileSuffixes()),
            Axis::choice("split", "the split of an IDX pair or CIFAR-10 folder to read (read when a file is loaded)",
                "train", {"train", "test"})
                .asReaderOption(),
        };
    }

    std::vector<Axis> generatorParameters() const override
    {
        return {
            Axis::integer("images", "number of images N", 2048, 1, 10'000'000),
            Axis::integer("held_out", "held-out images generated beside them (scored after training); 0: none", 1000, 0,
                10'000'000),
            Axis::integer("channels", "channels C (1: Fashion-MNIST's shape, 3: CIFAR-10's)", 1, 1, 16),
            Axis::integer("height", "height H", 28, 4, 1024),
            Axis::integer("width", "width W", 28, 4, 1024),
            Axis::integer("seed", "random seed", 1, 0, std::int64_t(1) << 62),
        };
    }

    std::string sizeParameter() const override { return "images"; }

    TestPlan testPlan() const override
    {
        // Two steps each: the first step's gradients are compared, the second shows the update ran. Odd widths drop
        // pooling edges; batches larger than the dataset wrap around it.
        // A small held-out split keeps the scoring after each run cheap while every variant's trained weights are
        // scored.
        return {{5, 40},
            {{"gray12", {{"channels", "1"}, {"height", "12"}, {"width", "12"}, {"held_out", "30"}}},
                {"rgb8x10", {{"channels", "3"}, {"height", "8"}, {"width", "10"}, {"held_out", "30"}}}},
            {{"b4", {{"batch", "4"}, {"steps", "2"}}}, {"b16", {{"batch", "16"}, {"steps", "2"}}}}, {}};
    }

    data::Dataset generate(const ParamSet& g) const override
    {
        data::ImageGenerator generator;
        generator.count = static_cast<std::uint64_t>(g.integer("images"));
        generator.heldOut = static_cast<std::uint64_t>(g.integer("held_out"));
        generator.channels = static_cast<std::uint32_t>(g.integer("channels"));
        generator.height = static_cast<std::uint32_t>(g.integer("height"));
        generator.width = static_cast<std::uint32_t>(g.integer("width"));
        generator.seed = static_cast<std::uint64_t>(g.integer("seed"));
        const std::string name = "generated cnn " + g.text("images") + " images " + g.text("channels") + "×"
            + g.text("height") + "×" + g.text("width") + " seed=" + g.text("seed");
        return data::makeImageDataset(data::generateImages(generator), name, "generator: " + g.toString());
    }

    data::Dataset load(const std::string& path, const data::ReadOptions& options) const override
    {
        return data::loadImageSet(path, options);
    }

    std::optional<data::Dataset> subset(const data::Dataset& dataset, std::uint64_t size) const override
    {
        const auto& set = dataset.as<data::ImageSet>();
        if (size == 0 || size > set.size())
            return std::nullopt;
        // The held-out split stays whole: the first images of the training split are scored on the same images.
        data::ImageSet part = set;
        part.pixels.resize(static_cast<std::size_t>(size) * set.imageSize());
        part.labels.resize(static_cast<std::size_t>(size));
        return data::makeImageDataset(std::move(part),
            dataset.meta().name + " [first " + std::to_string(size) + " images]", dataset.meta().source);
    }

    std::optional<int> fixedRepetitions(const ParamSet& params) const override
    {
        return static_cast<int>(params.integer("steps"));
    }

    Cost cost(const data::Dataset& dataset, const ParamSet& params) const override
    {
        const Layout l = layoutFor(dataset.as<data::ImageSet>());
        const double b = static_cast<double>(params.integer("batch"));
        const Shape in = l.input(), p1 = l.pool1Out();
        // Multiply-adds of the forward pass; the backward pass costs about twice as many (weight and input
        // gradients), the first layer's input gradient excepted (not needed).
        const double conv1 = b * Layout::kConv1 * in.h * in.w * in.c * 9.0;
        const double conv2 = b * Layout::kConv2 * p1.h * p1.w * Layout::kConv1 * 9.0;
        const double fc = b * (Layout::kHidden * static_cast<double>(l.flatFeatures()) + 10.0 * Layout::kHidden);
        const double flops = 2.0 * (3.0 * (conv1 + conv2 + fc) - conv1);
        // The batch read once; every parameter read and written with its gradient and velocity.
        const double bytes = 4.0 * (b * static_cast<double>(in.size()) + 5.0 * static_cast<double>(l.parameterCount()));
        return Cost {bytes, flops, b, "images", Roof::Fp32};
    }

    double tolerance(const ParamSet&) const override { return gradientTolerance(Arithmetic::Fp32); }

    /// The trained weights scored on the held-out split and, when asked, the features file (evaluation.h); on the
    /// GPU with the variants' forward kernels where the variant ran there and CUDA is still usable.
    Facts resultFacts(
        const Result& result, const data::Dataset& dataset, const ParamSet& params, Backend backend) const override
    {
        const bool gpu = backend != Backend::Cpu && device::cudaUnavailableReason().empty();
        return evaluateTrained(result, dataset.as<data::ImageSet>(), evaluationSettings(params),
            gpu ? ScoringDevice::Gpu : ScoringDevice::Cpu);
    }

    Delta compare(const Result& result, const Result& reference, const data::Dataset& dataset,
        const ParamSet& params) const override
    {
        const Layout l = layoutFor(dataset.as<data::ImageSet>());
        if (result.values.size() != l.parameterCount() || reference.values.size() != l.parameterCount())
            throw ComputeError("cnn: a gradient has " + std::to_string(result.values.size()) + " values for "
                + std::to_string(l.parameterCount()) + " parameters");
        Delta d;
        d.kind = "max_rel_grad_err";
        const Arithmetic arithmetic = resultArithmetic(result);
        d.tolerance = gradientTolerance(arithmetic);
        // Where a float pass chose differently from the double reference between values equal within rounding
        // (a max-pool window's two largest, a ReLU input at zero), both gradients are right for their own choices:
        // the double pass is redone following the variant's choices, each checked to lie within rounding of the
        // reference's values.
        std::vector<double> expected = reference.values;
        if (!result.counts.empty()) {
            Decisions decisions;
            try {
                decisions = Decisions::unpack(result.counts);
            } catch (const std::invalid_argument& e) {
                throw ComputeError(std::string("cnn: ") + e.what());
            }
            const TrainingSettings settings = trainingSettings(params);
            const auto initial = initialParameters(l, settings.seed);
            const std::vector<double> weights(initial.begin(), initial.end());
            std::vector<double> images;
            std::vector<std::uint8_t> labels;
            gatherBatch(dataset.as<data::ImageSet>(), 0, settings.batch, images, labels);
            ReplayCheck check;
            replayLossAndGradient<double>(
                l, weights, images, labels, settings.batch, expected, decisions, decisionTolerance(arithmetic), check);
            d.details.emplace_back("decisions_contradicted", static_cast<double>(check.violations));
            if (check.violations > 0)
                d.value = std::numeric_limits<double>::infinity();
        }
        // Each gradient's error relative to its tensor's largest, as the Delta takes it; ULPs in float, what every
        // variant (TF32 ones too) stores its gradients in, against the expected gradient rounded to float.
        d.relError = ErrorHistogram(ErrorBins::Log10, "tensor_scaled_err");
        d.stepError = ErrorHistogram(ErrorBins::PowersOfTwo, ulpMeasure(Precision::F32));
        d.relError->elements = d.stepError->elements = result.values.size();
        d.relError->tolerance = d.tolerance;
        for (const auto& t : l.tensors()) {
            double scale = 0.0, worst = 0.0;
            for (std::size_t i = t.offset; i < t.offset + t.count; ++i)
                scale = std::max(scale, std::fabs(expected[i]));
            const double denominator = std::max(scale, std::numeric_limits<double>::min());
            for (std::size_t i = t.offset; i < t.offset + t.count; ++i) {
                const double diff = std::fabs(result.values[i] - expected[i]);
                worst = std::isnan(diff) ? std::numeric_limits<double>::infinity() : std::max(worst, diff);
                d.relError->add(diff / denominator);
                d.stepError->addSteps(ulpDistance(result.values[i], expected[i], Precision::F32));
            }
            const double error = worst / denominator;
            d.details.emplace_back(t.name, error);
            d.value = std::max(d.value, error);
        }
        d.computed = true;
        return d;
    }
};
} // namespace

void registerCnn(Registry& registry)
{
    registry.add(std::make_unique<CnnWorkload>());
}

} // namespace ks::cnn
