#pragma once

// What every GPU cnn run shares: DeviceTrainingRun, a training run's state on the device and all that a run offers
// (PreparedRun, TrainingRun) but the step itself, which each variant enqueues; LayeredTrainingRun, the buffers of the
// variants that go layer by layer; the small kernels several variants launch alike; the trained state kept aside while
// the first step is replayed, and the events that time a replayed step phase by phase (TrainingRun::layerTimes).

#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/device_buffer.cuh"
#include "compute/device/stream.cuh"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/network.h"

#include <cstdint>
#include <cuda_runtime.h>
#include <functional>
#include <utility>
#include <vector>

namespace ks::cnn {

/// A run's parameters and velocity copied aside (for an untimed replay of the first step) until restore().
class SavedState {
public:
    SavedState(device::DeviceBuffer<float>& parameters, device::DeviceBuffer<float>& velocity, cudaStream_t stream);
    /// Puts the saved values back and waits for them.
    void restore();

private:
    device::DeviceBuffer<float>& m_parameters;
    device::DeviceBuffer<float>& m_velocity;
    cudaStream_t m_stream;
    device::DeviceBuffer<float> m_savedParameters, m_savedVelocity;
};

/// Events that end a step's phases while a replay is measured; mark() records nothing otherwise.
class PhaseEvents {
public:
    bool measuring() const { return m_measuring; }
    /// Ends the phase `name` (see LayerTimes for the names).
    void mark(const char* name, cudaStream_t stream);
    /// `replays` times on `stream`: `restart` (the initial state restored, untimed), then `step` (one step enqueued,
    /// calling mark() after every phase); each phase's time the median over the replays.
    LayerTimes measure(
        cudaStream_t stream, const std::function<void()>& restart, const std::function<void()>& step, int replays = 5);

private:
    bool m_measuring = false;
    std::vector<std::pair<const char*, device::Event>> m_events;
};

// The element-wise kernels that v2/v3, tensor_core_tf32 and cudnn launch alike: a thread per item (256 a block, at
// most 65,535 blocks, grid-stride), on `stream`.

/// The batch that starts at image `first` of the `n` images (wrapping around): its images and labels.
void launchGather(const float* images, const std::uint8_t* labels, std::size_t n, std::size_t imageSize,
    std::uint64_t first, int batch, float* outImages, int* outLabels, cudaStream_t stream);
/// Per sample: its softmax cross-entropy loss and dLogits = (softmax − one-hot) / batch.
void launchSoftmaxLoss(
    const float* logits, const int* labels, int batch, int classes, float* dLogits, float* losses, cudaStream_t stream);
/// SGD with momentum (PyTorch's form): velocity = momentum·velocity + gradient, parameters −= lr·velocity.
void launchSgd(float* parameters, float* velocity, const float* gradient, std::size_t count, float lr, float momentum,
    cudaStream_t stream);

/// A cnn training run on the device. It owns the images and labels, the parameters, their velocity and gradient, the
/// initial weights, the step's per-sample losses, the step count and the phase events, and implements reset, run,
/// metric, fetch, weights, layerTimes, stateDigest and facts over them; a variant enqueues the step itself
/// (forwardBackward, update) and reports its decisions. A variant's constructor checks what it supports and the
/// device memory it needs, calls allocateState(), allocates its own buffers, then calls reset().
class DeviceTrainingRun : public device::CudaPreparedRun, public TrainingRun {
public:
    void reset() override;
    void run() override;
    std::optional<double> metric() override;
    /// The first step's gradient and decisions, recomputed from the initial weights (untimed), then the trained state
    /// restored.
    Result fetch() override;
    std::optional<std::uint64_t> stateDigest() override { return weightsDigest(weights()); }
    Facts facts() override { return trainingFacts(*this); }
    std::vector<float> weights() override;
    /// The first step replayed from the initial weights with an event after every phase; the trained weights and
    /// velocity are put back after.
    LayerTimes layerTimes() override;

protected:
    /// How a step's loss reaches the host.
    enum class LossReport {
        PerSample, ///< the step's m_losses copied into m_hostLosses after it, averaged by metric()
        OwnMean, ///< the variant's own kernels write the mean to pinned memory; stepLoss() reads it
    };

    DeviceTrainingRun(const data::Dataset& dataset, const ParamSet& params, Arithmetic arithmetic);

    /// The images and labels uploaded (the run's timed upload), the parameters, velocity, gradient and losses
    /// allocated, the initial weights uploaded.
    void allocateState(LossReport report = LossReport::PerSample);

    /// Enqueues step `step`'s forward and backward passes: every sample's loss in m_losses, the gradient in m_gradient
    /// (unless update() finishes it: see firstStepForFetch); mark() after every phase.
    virtual void forwardBackward(std::uint64_t step) = 0;
    /// Enqueues the SGD step of the parameters and velocity.
    virtual void update() = 0;
    /// The decisions of the first step, after fetch() has enqueued it (firstStepForFetch).
    virtual Decisions decisions() = 0;

    /// One training step for run(): by default forwardBackward(step), update() and the losses copied to the host.
    virtual void enqueueStep(std::uint64_t step);
    /// The last step's mean loss, once the stream has finished it: by default the mean of m_hostLosses.
    virtual double stepLoss();
    /// Enqueues what fetch() needs of the first step, from the initial weights with a poisoned gradient: by default
    /// forwardBackward(0).
    virtual void firstStepForFetch() { forwardBackward(0); }
    /// A variant that keeps the step number on the device too sets it there (reset, before and after a replay).
    virtual void setDeviceStep(std::uint64_t) { }

    /// Ends the phase `name` with an event, when layerTimes() is measuring (otherwise nothing).
    void mark(const char* name) { m_phases.mark(name, stream()); }
    float* param(const char* name) { return m_parameters.data() + m_layout.tensor(name).offset; }
    float* grad(const char* name) { return m_gradient.data() + m_layout.tensor(name).offset; }
    /// 1 where a ReLU output passed (is positive), read back.
    std::vector<std::uint8_t> passed(const device::DeviceBuffer<float>& reluOutput);

    const data::ImageSet& m_set;
    Layout m_layout;
    TrainingSettings m_settings;
    std::vector<float> m_initial;
    device::DeviceBuffer<float> m_images;
    device::DeviceBuffer<std::uint8_t> m_labels;
    device::DeviceBuffer<float> m_parameters, m_velocity, m_gradient, m_initialDevice;
    device::DeviceBuffer<float> m_losses; ///< the step's loss per sample
    device::PinnedBuffer<float> m_hostLosses; ///< LossReport::PerSample: m_losses after the last step
    std::uint64_t m_step = 0; ///< steps run since reset()
    bool m_lossPending = false; ///< a step ran whose loss metric() has not read
    PhaseEvents m_phases; ///< records an event after every phase while layerTimes() measures

private:
    /// The initial weights in the parameters, no velocity, the step at 0 (the start of a replay of the first step).
    void restartFromInitial();

    Arithmetic m_arithmetic;
};

/// A DeviceTrainingRun whose step goes layer by layer, each layer's output and gradient in a buffer of its own (v2/v3,
/// tensor_core_tf32, cudnn). Its decisions are read from those outputs and the pools' choices.
class LayeredTrainingRun : public DeviceTrainingRun {
protected:
    /// Whether the forward pools keep their choices (m_arg1, m_arg2) for the backward pass and the decisions.
    enum class PoolChoices { Kept, NotKept };

    LayeredTrainingRun(const data::Dataset& dataset, const ParamSet& params, Arithmetic arithmetic);

    /// The floats allocateState() and allocateLayers() take, for a variant's requireDeviceMemory (its own buffers
    /// added).
    std::size_t stateFloats() const;
    /// The batch's buffers (after allocateState()).
    void allocateLayers(PoolChoices pools);

    /// The ReLU outputs' signs and the pools' choices, as the step left them.
    Decisions decisions() override;

    device::DeviceBuffer<float> m_batchImages;
    device::DeviceBuffer<int> m_batchLabels;
    device::DeviceBuffer<float> m_conv1, m_dConv1, m_pool1, m_dPool1, m_conv2, m_dConv2, m_pool2, m_dPool2;
    device::DeviceBuffer<std::uint32_t> m_arg1, m_arg2; ///< each pool window's chosen input, within its plane
    device::DeviceBuffer<float> m_fc1, m_dFc1, m_logits, m_dLogits;
};

} // namespace ks::cnn
