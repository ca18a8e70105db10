#include "compute/workloads/cnn/network.h"

#include "data/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ks::cnn {

namespace {
std::size_t at(int b, int c, int y, int x, Shape s)
{
    return ((static_cast<std::size_t>(b) * static_cast<std::size_t>(s.c) + static_cast<std::size_t>(c))
                   * static_cast<std::size_t>(s.h)
               + static_cast<std::size_t>(y))
        * static_cast<std::size_t>(s.w)
        + static_cast<std::size_t>(x);
}

std::size_t u(int v)
{
    return static_cast<std::size_t>(v);
}
} // namespace

Layout::Layout(Shape input)
    : m_input(input)
{
    if (input.c < 1 || input.h < 4 || input.w < 4)
        throw std::invalid_argument("the cnn network needs images of at least 1 × 4 × 4 (got " + std::to_string(input.c)
            + " × " + std::to_string(input.h) + " × " + std::to_string(input.w) + ")");
    auto add = [&](std::string name, std::vector<int> dims, int fanIn) {
        std::size_t count = 1;
        for (int d : dims)
            count *= u(d);
        m_tensors.push_back({std::move(name), std::move(dims), m_count, count, fanIn});
        m_count += count;
    };
    add("conv1.weight", {kConv1, input.c, 3, 3}, input.c * 9);
    add("conv1.bias", {kConv1}, 0);
    add("conv2.weight", {kConv2, kConv1, 3, 3}, kConv1 * 9);
    add("conv2.bias", {kConv2}, 0);
    add("fc1.weight", {kHidden, flatFeatures()}, flatFeatures());
    add("fc1.bias", {kHidden}, 0);
    add("fc2.weight", {kClasses, kHidden}, kHidden);
    add("fc2.bias", {kClasses}, 0);
}

const Tensor& Layout::tensor(const std::string& name) const
{
    for (const auto& t : m_tensors)
        if (t.name == name)
            return t;
    throw std::invalid_argument("the cnn network has no tensor '" + name + "'");
}

std::vector<float> initialParameters(const Layout& layout, std::uint64_t seed)
{
    std::vector<float> p(layout.parameterCount(), 0.0f);
    const data::CounterRng rng(seed);
    for (std::size_t t = 0; t < layout.tensors().size(); ++t) {
        const Tensor& tensor = layout.tensors()[t];
        if (tensor.fanIn == 0)
            continue;
        const double scale = std::sqrt(2.0 / tensor.fanIn);
        for (std::size_t i = 0; i < tensor.count; ++i)
            p[tensor.offset + i] = static_cast<float>(scale * rng.normal(t, i));
    }
    return p;
}

// The loops below run over OpenMP threads, each output owned by one thread and summed in a fixed order: the results
// do not depend on the thread count, and two runs are bit-identical (the atomic-free decomposition of seed 004).

template <class T>
void convForward(std::span<const T> in, int batch, Shape s, std::span<const T> weight, std::span<const T> bias,
    int outChannels, std::span<T> out, const CancelPoint& cancel)
{
    const Shape o {outChannels, s.h, s.w};
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < batch; ++b)
        for (int oc = 0; oc < outChannels; ++oc) {
            if (cancel.stopRequested())
                continue; // one check per output plane; once stopped, the planes left are skipped
            for (int y = 0; y < s.h; ++y)
                for (int x = 0; x < s.w; ++x) {
                    T sum = bias[u(oc)];
                    for (int ic = 0; ic < s.c; ++ic)
                        for (int ky = 0; ky < 3; ++ky)
                            for (int kx = 0; kx < 3; ++kx) {
                                const int iy = y + ky - 1, ix = x + kx - 1;
                                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                                    continue;
                                sum += weight[((u(oc) * u(s.c) + u(ic)) * 3 + u(ky)) * 3 + u(kx)]
                                    * in[at(b, ic, iy, ix, s)];
                            }
                    out[at(b, oc, y, x, o)] = sum;
                }
        }
    cancel.throwIfStopped();
}

template <class T>
void convBackward(std::span<const T> in, int batch, Shape s, std::span<const T> weight, int outChannels,
    std::span<const T> dOut, std::span<T> dWeight, std::span<T> dBias, std::span<T> dIn, const CancelPoint& cancel)
{
    const Shape o {outChannels, s.h, s.w};
    // Weight and bias gradients: a thread per output channel, summing over the batch and the plane; a stop check per
    // (output, input) channel pair.
#pragma omp parallel for schedule(static)
    for (int oc = 0; oc < outChannels; ++oc) {
        T biasSum = 0;
        for (int ic = 0; ic < s.c; ++ic) {
            if (cancel.stopRequested())
                break;
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    T sum = 0;
                    for (int b = 0; b < batch; ++b)
                        for (int y = 0; y < s.h; ++y)
                            for (int x = 0; x < s.w; ++x) {
                                const int iy = y + ky - 1, ix = x + kx - 1;
                                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                                    continue;
                                sum += dOut[at(b, oc, y, x, o)] * in[at(b, ic, iy, ix, s)];
                            }
                    dWeight[((u(oc) * u(s.c) + u(ic)) * 3 + u(ky)) * 3 + u(kx)] = sum;
                }
        }
        for (int b = 0; b < batch; ++b)
            for (int y = 0; y < s.h; ++y)
                for (int x = 0; x < s.w; ++x)
                    biasSum += dOut[at(b, oc, y, x, o)];
        dBias[u(oc)] = biasSum;
    }
    cancel.throwIfStopped();
    if (dIn.empty())
        return;
        // Input gradients gathered, a thread per (image, input channel): every output that read an input adds to it.
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < batch; ++b)
        for (int ic = 0; ic < s.c; ++ic) {
            if (cancel.stopRequested())
                continue;
            for (int iy = 0; iy < s.h; ++iy)
                for (int ix = 0; ix < s.w; ++ix) {
                    T sum = 0;
                    for (int oc = 0; oc < outChannels; ++oc)
                        for (int ky = 0; ky < 3; ++ky)
                            for (int kx = 0; kx < 3; ++kx) {
                                const int y = iy - ky + 1, x = ix - kx + 1;
                                if (y < 0 || y >= s.h || x < 0 || x >= s.w)
                                    continue;
                                sum += dOut[at(b, oc, y, x, o)]
                                    * weight[((u(oc) * u(s.c) + u(ic)) * 3 + u(ky)) * 3 + u(kx)];
                            }
                    dIn[at(b, ic, iy, ix, s)] = sum;
                }
        }
    cancel.throwIfStopped();
}

template <class T>
void poolForward(std::span<const T> in, int batch, Shape s, std::span<T> out, std::span<std::uint32_t> argmax)
{
    const Shape o {s.c, s.h / 2, s.w / 2};
    for (int b = 0; b < batch; ++b)
        for (int c = 0; c < s.c; ++c)
            for (int y = 0; y < o.h; ++y)
                for (int x = 0; x < o.w; ++x) {
                    T best = -std::numeric_limits<T>::infinity();
                    std::uint32_t where = 0;
                    for (int dy = 0; dy < 2; ++dy)
                        for (int dx = 0; dx < 2; ++dx) {
                            const int iy = 2 * y + dy, ix = 2 * x + dx;
                            const T v = in[at(b, c, iy, ix, s)];
                            if (v > best) {
                                best = v;
                                where = static_cast<std::uint32_t>(iy * s.w + ix);
                            }
                        }
                    out[at(b, c, y, x, o)] = best;
                    argmax[at(b, c, y, x, o)] = where;
                }
}

template <class T>
void poolBackward(std::span<const T> dOut, int batch, Shape s, std::span<const std::uint32_t> argmax, std::span<T> dIn)
{
    const Shape o {s.c, s.h / 2, s.w / 2};
    std::fill(dIn.begin(), dIn.end(), T(0));
    for (int b = 0; b < batch; ++b)
        for (int c = 0; c < s.c; ++c)
            for (int y = 0; y < o.h; ++y)
                for (int x = 0; x < o.w; ++x) {
                    const std::uint32_t where = argmax[at(b, c, y, x, o)];
                    dIn[at(b, c, 0, 0, s) + where] = dOut[at(b, c, y, x, o)];
                }
}

template <class T>
void fcForward(std::span<const T> in, int batch, int inputs, std::span<const T> weight, std::span<const T> bias,
    int outputs, std::span<T> out, const CancelPoint& cancel)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < batch; ++b)
        for (int o = 0; o < outputs; ++o) {
            if (cancel.stopRequested())
                continue; // one check per output's `inputs` products
            T sum = bias[u(o)];
            for (int i = 0; i < inputs; ++i)
                sum += weight[u(o) * u(inputs) + u(i)] * in[u(b) * u(inputs) + u(i)];
            out[u(b) * u(outputs) + u(o)] = sum;
        }
    cancel.throwIfStopped();
}

template <class T>
void fcBackward(std::span<const T> in, int batch, int inputs, std::span<const T> weight, int outputs,
    std::span<const T> dOut, std::span<T> dWeight, std::span<T> dBias, std::span<T> dIn, const CancelPoint& cancel)
{
    // A thread per output: its weight row and bias, summed over the batch.
#pragma omp parallel for schedule(static)
    for (int o = 0; o < outputs; ++o) {
        if (cancel.stopRequested())
            continue; // one check per output's batch × inputs products
        T biasSum = 0;
        for (int i = 0; i < inputs; ++i)
            dWeight[u(o) * u(inputs) + u(i)] = 0;
        for (int b = 0; b < batch; ++b) {
            const T g = dOut[u(b) * u(outputs) + u(o)];
            biasSum += g;
            for (int i = 0; i < inputs; ++i)
                dWeight[u(o) * u(inputs) + u(i)] += g * in[u(b) * u(inputs) + u(i)];
        }
        dBias[u(o)] = biasSum;
    }
    cancel.throwIfStopped();
    if (dIn.empty())
        return;
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < inputs; ++i) {
            if (cancel.stopRequested())
                continue; // one check per input's `outputs` products
            T sum = 0;
            for (int o = 0; o < outputs; ++o)
                sum += dOut[u(b) * u(outputs) + u(o)] * weight[u(o) * u(inputs) + u(i)];
            dIn[u(b) * u(inputs) + u(i)] = sum;
        }
    cancel.throwIfStopped();
}

template <class T>
T softmaxCrossEntropy(
    std::span<const T> logits, int batch, int classes, std::span<const std::uint8_t> labels, std::span<T> dLogits)
{
    T total = 0;
    for (int b = 0; b < batch; ++b) {
        const T* z = logits.data() + u(b) * u(classes);
        const T largest = *std::max_element(z, z + classes);
        T sum = 0;
        for (int k = 0; k < classes; ++k)
            sum += std::exp(z[k] - largest);
        const T logSum = largest + std::log(sum);
        total += logSum - z[labels[u(b)]];
        for (int k = 0; k < classes; ++k) {
            const T p = std::exp(z[k] - logSum);
            dLogits[u(b) * u(classes) + u(k)] = (p - (k == labels[u(b)] ? T(1) : T(0))) / static_cast<T>(batch);
        }
    }
    return total / static_cast<T>(batch);
}

std::vector<std::uint64_t> Decisions::pack() const
{
    std::vector<std::uint64_t> words {relu1.size(), pool1.size(), relu2.size(), pool2.size(), relu3.size()};
    auto bits = [&](const std::vector<std::uint8_t>& mask) {
        for (std::size_t i = 0; i < mask.size(); i += 64) {
            std::uint64_t word = 0;
            for (std::size_t j = i; j < std::min(mask.size(), i + 64); ++j)
                word |= std::uint64_t(mask[j] != 0) << (j - i);
            words.push_back(word);
        }
    };
    auto pairs = [&](const std::vector<std::uint32_t>& index) {
        for (std::size_t i = 0; i < index.size(); i += 2)
            words.push_back(index[i] | (i + 1 < index.size() ? std::uint64_t(index[i + 1]) << 32 : 0));
    };
    bits(relu1);
    pairs(pool1);
    bits(relu2);
    pairs(pool2);
    bits(relu3);
    return words;
}

Decisions Decisions::unpack(std::span<const std::uint64_t> words)
{
    if (words.size() < 5)
        throw std::invalid_argument("cnn decisions: no header");
    std::size_t at = 5;
    auto take = [&](std::size_t count) {
        if (words.size() - at < count)
            throw std::invalid_argument("cnn decisions: shorter than their header says");
        const std::size_t first = at;
        at += count;
        return first;
    };
    auto bits = [&](std::size_t n, std::vector<std::uint8_t>& mask) {
        const std::size_t first = take((n + 63) / 64);
        mask.resize(n);
        for (std::size_t j = 0; j < n; ++j)
            mask[j] = static_cast<std::uint8_t>((words[first + j / 64] >> (j % 64)) & 1u);
    };
    auto pairs = [&](std::size_t n, std::vector<std::uint32_t>& index) {
        const std::size_t first = take((n + 1) / 2);
        index.resize(n);
        for (std::size_t j = 0; j < n; ++j)
            index[j] = static_cast<std::uint32_t>(words[first + j / 2] >> (32 * (j % 2)));
    };
    Decisions d;
    bits(static_cast<std::size_t>(words[0]), d.relu1);
    pairs(static_cast<std::size_t>(words[1]), d.pool1);
    bits(static_cast<std::size_t>(words[2]), d.relu2);
    pairs(static_cast<std::size_t>(words[3]), d.pool2);
    bits(static_cast<std::size_t>(words[4]), d.relu3);
    if (at != words.size())
        throw std::invalid_argument("cnn decisions: longer than their header says");
    return d;
}

namespace {
/// Times a pass's phases when asked: each mark() ends the phase it names.
class PhaseClock {
public:
    explicit PhaseClock(LayerTimes* out = nullptr)
        : m_out(out)
        , m_last(std::chrono::steady_clock::now())
    {
    }
    void mark(const char* phase)
    {
        if (!m_out)
            return;
        const auto now = std::chrono::steady_clock::now();
        m_out->emplace_back(phase, std::chrono::duration<double, std::milli>(now - m_last).count());
        m_last = now;
    }

private:
    LayerTimes* m_out;
    std::chrono::steady_clock::time_point m_last;
};

/// Every activation of one pass, and its decisions, kept for the backward pass.
template <class T> struct Activations {
    std::vector<T> conv1, pool1, conv2, pool2, fc1, logits;
    Decisions decisions;
};

template <class T> std::span<const T> slice(std::span<const T> p, const Tensor& t)
{
    return p.subspan(t.offset, t.count);
}

/// How a pass makes its piecewise choices: its own, or another pass's (checked against its own values).
struct Choices {
    const Decisions* replay = nullptr;
    double relativeTolerance = 0.0;
    ReplayCheck* check = nullptr;
};

template <class T> T largestMagnitude(std::span<const T> values)
{
    T largest = 0;
    for (T v : values)
        largest = std::max(largest, std::fabs(v));
    return largest;
}

/// ReLU in place, recording which units pass, or following `replay` (a contradiction beyond the tolerance counted).
template <class T>
void relu(std::span<T> values, std::vector<std::uint8_t>& mask, const std::vector<std::uint8_t>* replay,
    const Choices& choices)
{
    mask.resize(values.size());
    const T tolerance = static_cast<T>(choices.relativeTolerance) * largestMagnitude<T>(values);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const bool on = replay ? (*replay)[i] != 0 : values[i] > T(0);
        if (replay && ((on && values[i] < -tolerance) || (!on && values[i] > tolerance)))
            ++choices.check->violations;
        mask[i] = on;
        if (!on)
            values[i] = T(0);
    }
    if (replay)
        choices.check->decisions += values.size();
}

template <class T> void reluMaskBackward(const std::vector<std::uint8_t>& mask, std::span<T> grad)
{
    for (std::size_t i = 0; i < grad.size(); ++i)
        if (!mask[i])
            grad[i] = T(0);
}

/// Max-pooling, its own choices or `replay`'s (a choice clearly below its window's maximum counted).
template <class T>
void pool(std::span<const T> in, int batch, Shape s, std::span<T> out, std::vector<std::uint32_t>& argmax,
    const std::vector<std::uint32_t>* replay, const Choices& choices)
{
    argmax.resize(out.size());
    poolForward<T>(in, batch, s, out, argmax);
    if (!replay)
        return;
    const T tolerance = static_cast<T>(choices.relativeTolerance) * largestMagnitude<T>(in);
    const std::size_t plane = u(s.h) * u(s.w), outPlane = u(s.h / 2) * u(s.w / 2);
    for (std::size_t j = 0; j < out.size(); ++j) {
        const std::uint32_t chosen = (*replay)[j];
        const T value = chosen < plane ? in[(j / outPlane) * plane + chosen] : std::numeric_limits<T>::quiet_NaN();
        if (!(value >= out[j] - tolerance))
            ++choices.check->violations;
        argmax[j] = chosen < plane ? chosen : argmax[j];
        out[j] = value;
    }
    choices.check->decisions += out.size();
}

template <class T>
Activations<T> forward(const Layout& l, std::span<const T> p, std::span<const T> images, int batch,
    const Choices& choices = {}, PhaseClock clock = PhaseClock(), const CancelPoint& cancel = CancelPoint())
{
    const std::size_t n = u(batch);
    const Decisions* r = choices.replay;
    Activations<T> a;
    Decisions& d = a.decisions;
    const Shape c1 = l.conv1Out(), p1 = l.pool1Out(), c2 {Layout::kConv2, p1.h, p1.w}, p2 = l.pool2Out();
    a.conv1.resize(n * c1.size());
    convForward<T>(images, batch, l.input(), slice(p, l.tensor("conv1.weight")), slice(p, l.tensor("conv1.bias")),
        Layout::kConv1, a.conv1, cancel);
    relu<T>(a.conv1, d.relu1, r ? &r->relu1 : nullptr, choices);
    clock.mark("conv1 forward");
    a.pool1.resize(n * p1.size());
    pool<T>(a.conv1, batch, c1, a.pool1, d.pool1, r ? &r->pool1 : nullptr, choices);
    clock.mark("pool1 forward");
    a.conv2.resize(n * c2.size());
    convForward<T>(a.pool1, batch, p1, slice(p, l.tensor("conv2.weight")), slice(p, l.tensor("conv2.bias")),
        Layout::kConv2, a.conv2, cancel);
    relu<T>(a.conv2, d.relu2, r ? &r->relu2 : nullptr, choices);
    clock.mark("conv2 forward");
    a.pool2.resize(n * p2.size());
    pool<T>(a.conv2, batch, c2, a.pool2, d.pool2, r ? &r->pool2 : nullptr, choices);
    clock.mark("pool2 forward");
    a.fc1.resize(n * Layout::kHidden);
    fcForward<T>(a.pool2, batch, l.flatFeatures(), slice(p, l.tensor("fc1.weight")), slice(p, l.tensor("fc1.bias")),
        Layout::kHidden, a.fc1, cancel);
    relu<T>(a.fc1, d.relu3, r ? &r->relu3 : nullptr, choices);
    clock.mark("fc1 forward");
    a.logits.resize(n * Layout::kClasses);
    fcForward<T>(a.fc1, batch, Layout::kHidden, slice(p, l.tensor("fc2.weight")), slice(p, l.tensor("fc2.bias")),
        Layout::kClasses, a.logits, cancel);
    clock.mark("fc2 forward");
    return a;
}

template <class T>
T backward(const Layout& l, const Activations<T>& a, std::span<const T> p, std::span<const T> images,
    std::span<const std::uint8_t> labels, int batch, std::span<T> g, PhaseClock clock = PhaseClock(),
    const CancelPoint& cancel = CancelPoint())
{
    const Shape c1 = l.conv1Out(), p1 = l.pool1Out(), c2 {Layout::kConv2, p1.h, p1.w};
    auto grad = [&](const char* name) {
        const Tensor& t = l.tensor(name);
        return g.subspan(t.offset, t.count);
    };
    std::vector<T> dLogits(a.logits.size());
    const T loss = softmaxCrossEntropy<T>(a.logits, batch, Layout::kClasses, labels, dLogits);
    clock.mark("loss");

    std::vector<T> dFc1(a.fc1.size());
    fcBackward<T>(a.fc1, batch, Layout::kHidden, slice(p, l.tensor("fc2.weight")), Layout::kClasses, dLogits,
        grad("fc2.weight"), grad("fc2.bias"), dFc1, cancel);
    reluMaskBackward<T>(a.decisions.relu3, dFc1);
    clock.mark("fc2 backward");
    std::vector<T> dPool2(a.pool2.size());
    fcBackward<T>(a.pool2, batch, l.flatFeatures(), slice(p, l.tensor("fc1.weight")), Layout::kHidden, dFc1,
        grad("fc1.weight"), grad("fc1.bias"), dPool2, cancel);
    clock.mark("fc1 backward");
    std::vector<T> dConv2(a.conv2.size());
    poolBackward<T>(dPool2, batch, c2, a.decisions.pool2, dConv2);
    reluMaskBackward<T>(a.decisions.relu2, dConv2);
    clock.mark("pool2 backward");
    std::vector<T> dPool1(a.pool1.size());
    convBackward<T>(a.pool1, batch, p1, slice(p, l.tensor("conv2.weight")), Layout::kConv2, dConv2,
        grad("conv2.weight"), grad("conv2.bias"), dPool1, cancel);
    clock.mark("conv2 backward");
    std::vector<T> dConv1(a.conv1.size());
    poolBackward<T>(dPool1, batch, c1, a.decisions.pool1, dConv1);
    reluMaskBackward<T>(a.decisions.relu1, dConv1);
    clock.mark("pool1 backward");
    convBackward<T>(images, batch, l.input(), slice(p, l.tensor("conv1.weight")), Layout::kConv1, dConv1,
        grad("conv1.weight"), grad("conv1.bias"), std::span<T>(), cancel);
    clock.mark("conv1 backward");
    return loss;
}
} // namespace

template <class T>
T lossAndGradient(const Layout& l, std::span<const T> p, std::span<const T> images,
    std::span<const std::uint8_t> labels, int batch, std::span<T> g, Decisions* record, LayerTimes* times,
    const CancelPoint& cancel)
{
    Activations<T> a = forward(l, p, images, batch, {}, PhaseClock(times), cancel);
    const T loss = backward(l, a, p, images, labels, batch, g, PhaseClock(times), cancel);
    if (record)
        *record = std::move(a.decisions);
    return loss;
}

template <class T>
T replayLossAndGradient(const Layout& l, std::span<const T> p, std::span<const T> images,
    std::span<const std::uint8_t> labels, int batch, std::span<T> g, const Decisions& decisions,
    double relativeTolerance, ReplayCheck& check)
{
    const Shape c1 = l.conv1Out(), p1 = l.pool1Out(), c2 {Layout::kConv2, p1.h, p1.w}, p2 = l.pool2Out();
    const std::size_t n = u(batch);
    if (decisions.relu1.size() != n * c1.size() || decisions.pool1.size() != n * p1.size()
        || decisions.relu2.size() != n * c2.size() || decisions.pool2.size() != n * p2.size()
        || decisions.relu3.size() != n * u(Layout::kHidden))
        throw std::invalid_argument("cnn decisions were made for another batch or image shape");
    const Activations<T> a = forward(l, p, images, batch, Choices {&decisions, relativeTolerance, &check});
    return backward(l, a, p, images, labels, batch, g);
}

template <class T>
void inferenceForward(const Layout& l, std::span<const T> p, std::span<const T> images, int batch, std::span<T> logits,
    std::span<T> features)
{
    const std::size_t n = u(batch);
    if (images.size() != n * l.input().size() || logits.size() != n * u(Layout::kClasses)
        || features.size() != n * u(Layout::kHidden))
        throw std::invalid_argument("inferenceForward: buffers of another batch or image shape");
    const Activations<T> a = forward(l, p, images, batch);
    std::copy(a.logits.begin(), a.logits.end(), logits.begin());
    std::copy(a.fc1.begin(), a.fc1.end(), features.begin());
}

std::vector<std::uint8_t> predictedClasses(std::span<const float> logits, int batch, int classes)
{
    std::vector<std::uint8_t> predicted(u(batch));
    for (std::size_t b = 0; b < u(batch); ++b) {
        const float* z = logits.data() + b * u(classes);
        predicted[b] = static_cast<std::uint8_t>(std::max_element(z, z + classes) - z);
    }
    return predicted;
}

template <class T>
void sgdMomentum(
    std::span<T> parameters, std::span<T> velocity, std::span<const T> gradient, double lr, double momentum)
{
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        velocity[i] = static_cast<T>(momentum) * velocity[i] + gradient[i];
        parameters[i] -= static_cast<T>(lr) * velocity[i];
    }
}

#define KS_CNN_INSTANTIATE(T)                                                                                          \
    template void convForward<T>(std::span<const T>, int, Shape, std::span<const T>, std::span<const T>, int,          \
        std::span<T>, const CancelPoint&);                                                                             \
    template void convBackward<T>(std::span<const T>, int, Shape, std::span<const T>, int, std::span<const T>,         \
        std::span<T>, std::span<T>, std::span<T>, const CancelPoint&);                                                 \
    template void poolForward<T>(std::span<const T>, int, Shape, std::span<T>, std::span<std::uint32_t>);              \
    template void poolBackward<T>(std::span<const T>, int, Shape, std::span<const std::uint32_t>, std::span<T>);       \
    template void fcForward<T>(                                                                                        \
        std::span<const T>, int, int, std::span<const T>, std::span<const T>, int, std::span<T>, const CancelPoint&);  \
    template void fcBackward<T>(std::span<const T>, int, int, std::span<const T>, int, std::span<const T>,             \
        std::span<T>, std::span<T>, std::span<T>, const CancelPoint&);                                                 \
    template T softmaxCrossEntropy<T>(std::span<const T>, int, int, std::span<const std::uint8_t>, std::span<T>);      \
    template T lossAndGradient<T>(const Layout&, std::span<const T>, std::span<const T>,                               \
        std::span<const std::uint8_t>, int, std::span<T>, Decisions*, LayerTimes*, const CancelPoint&);                \
    template T replayLossAndGradient<T>(const Layout&, std::span<const T>, std::span<const T>,                         \
        std::span<const std::uint8_t>, int, std::span<T>, const Decisions&, double, ReplayCheck&);                     \
    template void sgdMomentum<T>(std::span<T>, std::span<T>, std::span<const T>, double, double);                      \
    template void inferenceForward<T>(                                                                                 \
        const Layout&, std::span<const T>, std::span<const T>, int, std::span<T>, std::span<T>);

KS_CNN_INSTANTIATE(float)
KS_CNN_INSTANTIATE(double)

} // namespace ks::cnn
