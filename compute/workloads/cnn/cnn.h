#pragma once

// The cnn workload (seed 004): training steps of a small CNN (compute/workloads/cnn/network.h) on labelled images.
// A run is `steps` training steps at batch size `batch`, each a repetition whose Sample carries its loss. Every
// variant starts from the same He-initialised weights (`seed`) and sees the same batches: step k trains on images
// k·B … k·B + B − 1 of the dataset, wrapping around. A variant's result is the gradient of its first timed step
// (initial weights, the first batch), compared tensor by tensor with the double reference's.

#include "compute/core/cpu_run.h"
#include "compute/core/variant.h"
#include "compute/core/workload.h"
#include "compute/workloads/cnn/network.h"
#include "data/image_set.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ks {
class Registry;
}

namespace ks::cnn {

/// What every variant's run reads from the parameters.
struct TrainingSettings {
    int batch = 64;
    double lr = 0.01;
    double momentum = 0.9;
    std::uint64_t seed = 1;
};
TrainingSettings trainingSettings(const ParamSet& params);

/// The network's input shape for an image set.
Layout layoutFor(const data::ImageSet& set);

/// The images and labels of step `step`'s batch (wrapping around the set), as T.
template <class T>
void gatherBatch(const data::ImageSet& set, std::uint64_t step, int batch, std::vector<T>& images,
    std::vector<std::uint8_t>& labels);

/// The arithmetic a variant's products are rounded to: the comparison allows each its own error.
enum class Arithmetic {
    Fp32, ///< float32 products and sums (and double, the reference)
    Tf32, ///< tensor-core TF32 products (10-bit mantissa inputs) with float32 accumulation
};
/// A Delta tolerance for a variant of that arithmetic (relative to each tensor's largest gradient), and how far from a
/// tie two values may be for the variant to choose otherwise than the double reference (see Decisions).
double gradientTolerance(Arithmetic arithmetic);
double decisionTolerance(Arithmetic arithmetic);

/// A cnn Result: quantity "gradients" ("gradients (tf32)" for TF32 arithmetic), the first step's gradient of every
/// parameter in the layout's order, the tensors' names in `names`, and in `counts` that step's decisions
/// (Decisions::pack), so that the comparison can follow the variant's own choices where two values tie within
/// rounding; and the trained weights, one array per tensor (what --output saves).
Result makeResult(const Layout& layout, std::vector<double> gradient, const Decisions& decisions,
    std::span<const float> trainedWeights, Arithmetic arithmetic = Arithmetic::Fp32);
/// The arithmetic a result declares (its quantity).
Arithmetic resultArithmetic(const Result& result);

/// What every cnn run offers besides PreparedRun (each variant's run class derives from both): the trained weights,
/// from which the determinism digest, --output, the held-out accuracy and the features are all made, and one step's
/// time per layer.
class TrainingRun {
public:
    virtual ~TrainingRun() = default;
    /// The parameters after the steps run so far (since reset()), in the layout's order, on the host.
    virtual std::vector<float> weights() = 0;
    /// One step's time per phase, measured on untimed replays of the first step from the initial weights (the median
    /// of a few), leaving the run's trained state as it was.
    virtual LayerTimes layerTimes() = 0;
};

/// A digest of the trained weights' bits (the determinism check compares two runs' digests).
std::uint64_t weightsDigest(std::span<const float> weights);

/// Each phase's median over several measurements of the same step (phases matched by position, named as the first).
LayerTimes medianLayerTimes(const std::vector<LayerTimes>& replays);

/// What a cnn run reports after its steps (every variant's PreparedRun::facts is this): one step's time per phase as
/// "time <phase>" facts (ms), from run.layerTimes().
Facts trainingFacts(TrainingRun& run);

/// Training on the CPU with the network's loops in T (double: the reference; float: cpu_openmp).
template <class T> class CpuTrainingRun final : public CpuPreparedRun, public TrainingRun {
public:
    CpuTrainingRun(const data::Dataset& dataset, const ParamSet& params, const RunContext& context);
    void run() override;
    Result fetch() override;
    void reset() override;
    std::optional<double> metric() override { return m_loss; }
    std::optional<std::uint64_t> stateDigest() override { return weightsDigest(weights()); }
    Facts facts() override { return trainingFacts(*this); }
    std::vector<float> weights() override;
    LayerTimes layerTimes() override;

private:
    const data::ImageSet& m_set;
    Layout m_layout;
    TrainingSettings m_settings;
    std::vector<T> m_initial, m_parameters, m_velocity, m_gradient, m_firstGradient;
    std::vector<T> m_images;
    std::vector<std::uint8_t> m_labels;
    Decisions m_firstDecisions;
    std::uint64_t m_step = 0;
    std::optional<double> m_loss;
};

/// Adds the cnn workload to the registry.
void registerCnn(Registry& registry);

} // namespace ks::cnn
