// The CPU training run shared by the reference (double) and cpu_openmp (float), and the workload's shared pieces.
#include "compute/workloads/cnn/cnn.h"

#include <algorithm>

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

Result makeResult(const Layout& layout, std::vector<double> gradient, const Decisions& decisions)
{
    Result r;
    r.quantity = "gradients";
    r.values = std::move(gradient);
    r.counts = decisions.pack();
    for (const auto& t : layout.tensors())
        r.names.push_back(t.name);
    return r;
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
        m_gradient, m_step == 0 ? &m_firstDecisions : nullptr));
    if (m_step == 0)
        m_firstGradient = m_gradient;
    sgdMomentum<T>(m_parameters, m_velocity, m_gradient, m_settings.lr, m_settings.momentum);
    ++m_step;
}

template <class T> Result CpuTrainingRun<T>::fetch()
{
    return makeResult(m_layout, std::vector<double>(m_firstGradient.begin(), m_firstGradient.end()), m_firstDecisions);
}

template class CpuTrainingRun<float>;
template class CpuTrainingRun<double>;

} // namespace ks::cnn
