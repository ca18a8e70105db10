#include "compute/device/cuda_check.cuh"
#include "compute/device/launch.cuh"
#include "compute/workloads/cnn/device_training.cuh"

#include <numeric>

namespace ks::cnn {

namespace {

constexpr int kElementwiseThreads = 256;

unsigned blocks(std::size_t items)
{
    return device::blocksFor(items, kElementwiseThreads, 65'535);
}

/// Grid-stride loop over `count` items.
#define KS_CNN_FOR_EACH(i, count)                                                                                      \
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < (count);                              \
         i += std::size_t(gridDim.x) * blockDim.x)

__global__ void gatherKernel(const float* images, const std::uint8_t* labels, std::size_t n, std::size_t imageSize,
    std::uint64_t first, int batch, float* outImages, int* outLabels)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * imageSize)
    {
        const std::size_t b = i / imageSize;
        const std::size_t which = (first + b) % n;
        outImages[i] = images[which * imageSize + i % imageSize];
        if (i % imageSize == 0)
            outLabels[b] = labels[which];
    }
}

__global__ void softmaxKernel(
    const float* logits, const int* labels, int batch, int classes, float* dLogits, float* losses)
{
    KS_CNN_FOR_EACH(b, std::size_t(batch))
    {
        const float* z = logits + b * classes;
        float largest = z[0];
        for (int k = 1; k < classes; ++k)
            largest = fmaxf(largest, z[k]);
        float sum = 0.0f;
        for (int k = 0; k < classes; ++k)
            sum += expf(z[k] - largest);
        const float logSum = largest + logf(sum);
        losses[b] = logSum - z[labels[b]];
        for (int k = 0; k < classes; ++k)
            dLogits[b * classes + k] = (expf(z[k] - logSum) - (k == labels[b] ? 1.0f : 0.0f)) / float(batch);
    }
}

__global__ void sgdKernel(
    float* parameters, float* velocity, const float* gradient, std::size_t count, float lr, float momentum)
{
    KS_CNN_FOR_EACH(i, count)
    {
        velocity[i] = momentum * velocity[i] + gradient[i];
        parameters[i] -= lr * velocity[i];
    }
}

#undef KS_CNN_FOR_EACH

} // namespace

void launchGather(const float* images, const std::uint8_t* labels, std::size_t n, std::size_t imageSize,
    std::uint64_t first, int batch, float* outImages, int* outLabels, cudaStream_t stream)
{
    gatherKernel<<<blocks(std::size_t(batch) * imageSize), kElementwiseThreads, 0, stream>>>(
        images, labels, n, imageSize, first, batch, outImages, outLabels);
    KS_CUDA_CHECK_LAUNCH("cnn gatherKernel");
}

void launchSoftmaxLoss(
    const float* logits, const int* labels, int batch, int classes, float* dLogits, float* losses, cudaStream_t stream)
{
    softmaxKernel<<<blocks(std::size_t(batch)), kElementwiseThreads, 0, stream>>>(
        logits, labels, batch, classes, dLogits, losses);
    KS_CUDA_CHECK_LAUNCH("cnn softmaxKernel");
}

void launchSgd(float* parameters, float* velocity, const float* gradient, std::size_t count, float lr, float momentum,
    cudaStream_t stream)
{
    sgdKernel<<<blocks(count), kElementwiseThreads, 0, stream>>>(parameters, velocity, gradient, count, lr, momentum);
    KS_CUDA_CHECK_LAUNCH("cnn sgdKernel");
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

DeviceTrainingRun::DeviceTrainingRun(const data::Dataset& dataset, const ParamSet& params, Arithmetic arithmetic)
    : m_set(dataset.as<data::ImageSet>())
    , m_layout(layoutFor(m_set))
    , m_settings(trainingSettings(params))
    , m_initial(initialParameters(m_layout, m_settings.seed))
    , m_arithmetic(arithmetic)
{
}

void DeviceTrainingRun::allocateState(LossReport report)
{
    const std::size_t b = std::size_t(m_settings.batch), p = m_layout.parameterCount();
    m_images = device::DeviceBuffer<float>(m_set.pixels.size());
    m_labels = device::DeviceBuffer<std::uint8_t>(m_set.labels.size());
    timedUpload([&] {
        m_images.uploadAsync(m_set.pixels, stream());
        m_labels.uploadAsync(m_set.labels, stream());
    });
    m_parameters = device::DeviceBuffer<float>(p);
    m_velocity = device::DeviceBuffer<float>(p);
    m_gradient = device::DeviceBuffer<float>(p);
    m_initialDevice = device::DeviceBuffer<float>(p);
    m_initialDevice.uploadAsync(m_initial, stream());
    m_losses = device::DeviceBuffer<float>(b);
    if (report == LossReport::PerSample)
        m_hostLosses = device::PinnedBuffer<float>(b);
}

void DeviceTrainingRun::reset()
{
    KS_CUDA_CHECK(cudaMemcpyAsync(
        m_parameters.data(), m_initialDevice.data(), m_initialDevice.bytes(), cudaMemcpyDeviceToDevice, stream()));
    m_velocity.fillBytesAsync(0, stream());
    m_gradient.fillBytesAsync(0xff, stream()); // poisoned until a step computes it
    m_step = 0;
    setDeviceStep(0);
    m_lossPending = false;
}

void DeviceTrainingRun::restartFromInitial()
{
    KS_CUDA_CHECK(cudaMemcpyAsync(
        m_parameters.data(), m_initialDevice.data(), m_initialDevice.bytes(), cudaMemcpyDeviceToDevice, stream()));
    m_velocity.fillBytesAsync(0, stream());
    setDeviceStep(0);
}

void DeviceTrainingRun::run()
{
    enqueueStep(m_step);
    m_lossPending = true;
    ++m_step;
}

void DeviceTrainingRun::enqueueStep(std::uint64_t step)
{
    forwardBackward(step);
    update();
    m_losses.downloadAsync(std::span<float>(m_hostLosses.data(), m_hostLosses.size()), stream());
}

std::optional<double> DeviceTrainingRun::metric()
{
    if (!m_lossPending)
        return std::nullopt;
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    m_lossPending = false;
    return stepLoss();
}

double DeviceTrainingRun::stepLoss()
{
    return std::accumulate(m_hostLosses.data(), m_hostLosses.data() + m_hostLosses.size(), 0.0)
        / double(m_hostLosses.size());
}

std::vector<float> DeviceTrainingRun::weights()
{
    std::vector<float> host(m_parameters.size());
    m_parameters.downloadAsync(host, stream());
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    return host;
}

LayerTimes DeviceTrainingRun::layerTimes()
{
    SavedState saved(m_parameters, m_velocity, stream());
    const LayerTimes times = m_phases.measure(
        stream(), [&] { restartFromInitial(); },
        [&] {
            forwardBackward(0);
            update();
            mark("update");
        });
    saved.restore();
    setDeviceStep(m_step);
    return times;
}

Result DeviceTrainingRun::fetch()
{
    SavedState trained(m_parameters, m_velocity, stream());
    KS_CUDA_CHECK(cudaMemcpyAsync(
        m_parameters.data(), m_initialDevice.data(), m_initialDevice.bytes(), cudaMemcpyDeviceToDevice, stream()));
    m_gradient.fillBytesAsync(0xff, stream());
    firstStepForFetch();
    std::vector<float> gradient(m_gradient.size());
    m_gradient.downloadAsync(gradient, stream());
    const Decisions d = decisions();
    trained.restore();
    setDeviceStep(m_step);
    return makeResult(m_layout, std::vector<double>(gradient.begin(), gradient.end()), d, weights(), m_arithmetic);
}

std::vector<std::uint8_t> DeviceTrainingRun::passed(const device::DeviceBuffer<float>& reluOutput)
{
    std::vector<float> host(reluOutput.size());
    reluOutput.downloadAsync(host, stream());
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    std::vector<std::uint8_t> on(host.size());
    for (std::size_t i = 0; i < host.size(); ++i)
        on[i] = host[i] > 0.0f;
    return on;
}

LayeredTrainingRun::LayeredTrainingRun(const data::Dataset& dataset, const ParamSet& params, Arithmetic arithmetic)
    : DeviceTrainingRun(dataset, params, arithmetic)
{
}

std::size_t LayeredTrainingRun::stateFloats() const
{
    const std::size_t b = std::size_t(m_settings.batch);
    const Shape in = m_layout.input(), c1 = m_layout.conv1Out(), p1 = m_layout.pool1Out(), p2 = m_layout.pool2Out();
    const Shape c2 {Layout::kConv2, p1.h, p1.w};
    return m_set.pixels.size() + 4 * m_layout.parameterCount()
        + b
        * (in.size() + 2 * c1.size() + 2 * p1.size() + 2 * c2.size() + 2 * p2.size() + 2 * Layout::kHidden
            + 3 * Layout::kClasses);
}

void LayeredTrainingRun::allocateLayers(PoolChoices pools)
{
    const std::size_t b = std::size_t(m_settings.batch);
    const Shape in = m_layout.input(), c1 = m_layout.conv1Out(), p1 = m_layout.pool1Out(), p2 = m_layout.pool2Out();
    const Shape c2 {Layout::kConv2, p1.h, p1.w};
    const bool kept = pools == PoolChoices::Kept;
    m_batchImages = device::DeviceBuffer<float>(b * in.size());
    m_batchLabels = device::DeviceBuffer<int>(b);
    m_conv1 = device::DeviceBuffer<float>(b * c1.size());
    m_dConv1 = device::DeviceBuffer<float>(b * c1.size());
    m_pool1 = device::DeviceBuffer<float>(b * p1.size());
    m_dPool1 = device::DeviceBuffer<float>(b * p1.size());
    if (kept)
        m_arg1 = device::DeviceBuffer<std::uint32_t>(b * p1.size());
    m_conv2 = device::DeviceBuffer<float>(b * c2.size());
    m_dConv2 = device::DeviceBuffer<float>(b * c2.size());
    m_pool2 = device::DeviceBuffer<float>(b * p2.size());
    m_dPool2 = device::DeviceBuffer<float>(b * p2.size());
    if (kept)
        m_arg2 = device::DeviceBuffer<std::uint32_t>(b * p2.size());
    m_fc1 = device::DeviceBuffer<float>(b * Layout::kHidden);
    m_dFc1 = device::DeviceBuffer<float>(b * Layout::kHidden);
    m_logits = device::DeviceBuffer<float>(b * Layout::kClasses);
    m_dLogits = device::DeviceBuffer<float>(b * Layout::kClasses);
}

Decisions LayeredTrainingRun::decisions()
{
    Decisions d;
    d.relu1 = passed(m_conv1);
    d.relu2 = passed(m_conv2);
    d.relu3 = passed(m_fc1);
    d.pool1.resize(m_arg1.size());
    m_arg1.downloadAsync(d.pool1, stream());
    d.pool2.resize(m_arg2.size());
    m_arg2.downloadAsync(d.pool2, stream());
    KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    return d;
}

} // namespace ks::cnn
