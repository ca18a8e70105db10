#include "compute/device/cuda_check.cuh"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/device_training.cuh"

namespace ks::cnn {

std::vector<float> downloadWeights(const device::DeviceBuffer<float>& parameters, cudaStream_t stream)
{
    std::vector<float> host(parameters.size());
    parameters.downloadAsync(host, stream);
    KS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

SavedState::SavedState(
    device::DeviceBuffer<float>& parameters, device::DeviceBuffer<float>& velocity, cudaStream_t stream)
    : m_parameters(parameters)
    , m_velocity(velocity)
    , m_stream(stream)
    , m_savedParameters(parameters.size())
    , m_savedVelocity(velocity.size())
{
    KS_CUDA_CHECK(cudaMemcpyAsync(
        m_savedParameters.data(), parameters.data(), parameters.bytes(), cudaMemcpyDeviceToDevice, stream));
    KS_CUDA_CHECK(
        cudaMemcpyAsync(m_savedVelocity.data(), velocity.data(), velocity.bytes(), cudaMemcpyDeviceToDevice, stream));
}

void SavedState::restore()
{
    KS_CUDA_CHECK(cudaMemcpyAsync(
        m_parameters.data(), m_savedParameters.data(), m_parameters.bytes(), cudaMemcpyDeviceToDevice, m_stream));
    KS_CUDA_CHECK(cudaMemcpyAsync(
        m_velocity.data(), m_savedVelocity.data(), m_velocity.bytes(), cudaMemcpyDeviceToDevice, m_stream));
    KS_CUDA_CHECK(cudaStreamSynchronize(m_stream));
}

void PhaseEvents::mark(const char* name, cudaStream_t stream)
{
    if (!m_measuring)
        return;
    m_events.emplace_back(name, device::Event());
    m_events.back().second.record(stream);
}

LayerTimes PhaseEvents::measure(
    cudaStream_t stream, const std::function<void()>& restart, const std::function<void()>& step, int replays)
{
    std::vector<LayerTimes> measured;
    m_measuring = true;
    for (int r = 0; r < replays; ++r) {
        restart();
        m_events.clear();
        mark("start", stream);
        step();
        KS_CUDA_CHECK(cudaStreamSynchronize(stream));
        LayerTimes times;
        for (std::size_t i = 1; i < m_events.size(); ++i)
            times.emplace_back(m_events[i].first, double(m_events[i].second.elapsedSince(m_events[i - 1].second)));
        measured.push_back(std::move(times));
    }
    m_events.clear();
    m_measuring = false;
    return medianLayerTimes(measured);
}

} // namespace ks::cnn
