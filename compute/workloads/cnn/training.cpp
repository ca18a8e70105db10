// The CPU training run shared by the reference (double) and cpu_openmp (float), and the workload's shared pieces.
#include "compute/workloads/cnn/cnn.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace ks::cnn {

TrainingSettings trainingSettings(const ParamSet& params)
{
    TrainingSettings s;
    s.batch = static_cast<int>(params.integer("batch"));
    s.lr = params.real("lr");
    s.momentum = params.real("momentum");
    s.seed = static_cast<std::uint64_t>(params.integer("seed"));
    return s;
}

Layout layoutFor(const data::ImageSet& set)
{
    return Layout({static_cast<int>(set.channels), static_cast<int>(set.height), static_cast<int>(set.width)});
}

template <class T>
void gatherBatch(
    const data::ImageSet& set, std::uint64_t step, int batch, std::vector<T>& images, std::vector<std::uint8_t>& labels)
{
    const std::size_t n = set.size(), imageSize = set.imageSize(), b = static_cast<std::size_t>(batch);
    images.resize(b * imageSize);
    labels.resize(b);
    for (std::size_t i = 0; i < b; ++i) {
        const std::size_t which = static_cast<std::size_t>((step * b + i) % n);
        std::copy_n(set.pixels.begin() + static_cast<std::ptrdiff_t>(which * imageSize), imageSize,
            images.begin() + static_cast<std::ptrdiff_t>(i * imageSize));
        labels[i] = set.labels[which];
    }
}

template void gatherBatch<float>(
    const data::ImageSet&, std::uint64_t, int, std::vector<float>&, std::vector<std::uint8_t>&);
template void gatherBatch<double>(
    const data::ImageSet&, std::uint64_t, int, std::vector<double>&, std::vector<std::uint8_t>&);

double gradientTolerance(Arithmetic arithmetic)
{
    // float32 gradients against double ones, relative to each tensor's largest gradient: rounding of sums over a
    // batch's pixels leaves about 1e-6; the bound leaves room for larger batches and images. TF32 rounds every
    // product's inputs to 11 significant bits (relative error up to 2^-11 ≈ 4.9e-4 each).
    return arithmetic == Arithmetic::Tf32 ? 1e-2 : 1e-4;
}

double decisionTolerance(Arithmetic arithmetic)
{
    // A piecewise choice may differ from the double reference's only between values this close, relative to the
    // layer's largest.
    return arithmetic == Arithmetic::Tf32 ? 1e-2 : 1e-4;
}

Result makeResult(const Layout& layout, std::vector<double> gradient, const Decisions& decisions,
    std::span<const float> trainedWeights, Arithmetic arithmetic)
{
    Result r;
    r.quantity = arithmetic == Arithmetic::Tf32 ? "gradients (tf32)" : "gradients";
    r.values = std::move(gradient);
    r.counts = decisions.pack();
    r.arraysQuantity = "trained weights";
    for (const auto& t : layout.tensors()) {
        r.names.push_back(t.name);
        NamedArray a;
        a.name = t.name;
        a.dims.assign(t.dims.begin(), t.dims.end());
        if (trainedWeights.size() == layout.parameterCount())
            a.values.assign(trainedWeights.begin() + static_cast<std::ptrdiff_t>(t.offset),
                trainedWeights.begin() + static_cast<std::ptrdiff_t>(t.offset + t.count));
        r.arrays.push_back(std::move(a));
    }
    if (trainedWeights.size() != layout.parameterCount())
        r.arrays.clear();
    return r;
}

Arithmetic resultArithmetic(const Result& result)
{
    return result.quantity == "gradients (tf32)" ? Arithmetic::Tf32 : Arithmetic::Fp32;
}

std::uint64_t weightsDigest(std::span<const float> weights)
{
    // FNV-1a over the bits: any differing weight changes it.
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (float w : weights) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &w, sizeof bits);
        for (int byte = 0; byte < 4; ++byte) {
            hash ^= (bits >> (8 * byte)) & 0xffu;
            hash *= 0x100000001b3ull;
        }
    }
    return hash;
}

LayerTimes medianLayerTimes(const std::vector<LayerTimes>& replays)
{
    if (replays.empty())
        return {};
    LayerTimes median = replays.front();
    for (std::size_t phase = 0; phase < median.size(); ++phase) {
        std::vector<double> ms;
        for (const auto& r : replays)
            if (phase < r.size())
                ms.push_back(r[phase].second);
        std::sort(ms.begin(), ms.end());
        median[phase].second = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
    }
    return median;
}

Facts trainingFacts(TrainingRun& run)
{
    // A phase met twice (the update: a batch's gathering before the layers, the SGD step after) is summed.
    Facts facts;
    for (const auto& [phase, ms] : run.layerTimes()) {
        const std::string name = "time " + phase;
        auto same = std::find_if(facts.begin(), facts.end(), [&](const auto& f) { return f.first == name; });
        if (same == facts.end())
            facts.emplace_back(name, ms);
        else
            same->second += ms;
    }
    return facts;
}

template <class T>
CpuTrainingRun<T>::CpuTrainingRun(const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
    : CpuPreparedRun(context)
    , m_set(dataset.as<data::ImageSet>())
    , m_layout(layoutFor(m_set))
    , m_settings(trainingSettings(params))
{
    const std::vector<float> initial = initialParameters(m_layout, m_settings.seed);
    m_initial.assign(initial.begin(), initial.end());
    m_gradient.resize(m_initial.size());
    reset();
}

template <class T> void CpuTrainingRun<T>::reset()
{
    m_parameters = m_initial;
    m_velocity.assign(m_initial.size(), T(0));
    m_firstGradient.clear();
    m_step = 0;
    m_loss.reset();
}

template <class T> void CpuTrainingRun<T>::run()
{
    gatherBatch(m_set, m_step, m_settings.batch, m_images, m_labels);
    m_loss = static_cast<double>(lossAndGradient<T>(m_layout, m_parameters, m_images, m_labels, m_settings.batch,
        m_gradient, m_step == 0 ? &m_firstDecisions : nullptr, nullptr, cancelPoint()));
    if (m_step == 0)
        m_firstGradient = m_gradient;
    sgdMomentum<T>(m_parameters, m_velocity, m_gradient, m_settings.lr, m_settings.momentum);
    ++m_step;
}

template <class T> Result CpuTrainingRun<T>::fetch()
{
    return makeResult(
        m_layout, std::vector<double>(m_firstGradient.begin(), m_firstGradient.end()), m_firstDecisions, weights());
}

template <class T> std::vector<float> CpuTrainingRun<T>::weights()
{
    return std::vector<float>(m_parameters.begin(), m_parameters.end());
}

template <class T> LayerTimes CpuTrainingRun<T>::layerTimes()
{
    // The median of a few replays of the first step from the initial weights, each phase apart.
    constexpr int kReplays = 3;
    std::vector<T> images, gradient(m_initial.size()), parameters = m_initial, velocity(m_initial.size(), T(0));
    std::vector<std::uint8_t> labels;
    std::vector<LayerTimes> replays;
    for (int r = 0; r < kReplays; ++r) {
        LayerTimes times;
        const auto started = std::chrono::steady_clock::now();
        gatherBatch(m_set, 0, m_settings.batch, images, labels);
        const auto gathered = std::chrono::steady_clock::now();
        lossAndGradient<T>(
            m_layout, m_initial, images, labels, m_settings.batch, gradient, nullptr, &times, cancelPoint());
        const auto computed = std::chrono::steady_clock::now();
        sgdMomentum<T>(parameters, velocity, gradient, m_settings.lr, m_settings.momentum);
        const auto updated = std::chrono::steady_clock::now();
        times.emplace_back(
            "update", std::chrono::duration<double, std::milli>((gathered - started) + (updated - computed)).count());
        replays.push_back(std::move(times));
    }
    return medianLayerTimes(replays);
}

template class CpuTrainingRun<float>;
template class CpuTrainingRun<double>;

} // namespace ks::cnn
