#pragma once

// What every GPU cnn run shares: its weights on the host, its trained state kept aside while the first step is
// replayed, and the events that time a replayed step phase by phase (TrainingRun::layerTimes).

#include "compute/device/device_buffer.cuh"
#include "compute/device/stream.cuh"
#include "compute/workloads/cnn/network.h"

#include <cuda_runtime.h>
#include <functional>
#include <utility>
#include <vector>

namespace ks::cnn {

/// The parameters on the host (TrainingRun::weights).
std::vector<float> downloadWeights(const device::DeviceBuffer<float>& parameters, cudaStream_t stream);

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

} // namespace ks::cnn
