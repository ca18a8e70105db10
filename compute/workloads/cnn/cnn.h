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

/// A cnn Result: quantity "gradients", the first step's gradient of every parameter in the layout's order, the
/// tensors' names in `names`, and in `counts` that step's decisions (Decisions::pack), so that the comparison can
/// follow the variant's own choices where two values tie within rounding.
Result makeResult(const Layout& layout, std::vector<double> gradient, const Decisions& decisions);

/// Training on the CPU with the network's loops in T (double: the reference; float: cpu_openmp).
template <class T> class CpuTrainingRun final : public CpuPreparedRun {
public:
    CpuTrainingRun(const data::Dataset& dataset, const ParamSet& params, const RunContext& context);
    void run() override;
    Result fetch() override;
    void reset() override;
    std::optional<double> metric() override { return m_loss; }

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
