#pragma once

// The cnn workload's network (seed 004), fixed and documented: for an input of C × H × W,
//   conv C→32 3×3 pad 1, ReLU, maxpool 2×2; conv 32→64 3×3 pad 1, ReLU, maxpool 2×2;
//   FC 64·⌊H/4⌋·⌊W/4⌋ → 128, ReLU; FC 128 → 10; softmax cross-entropy (mean over the batch);
//   SGD with momentum (PyTorch's form: v ← μ·v + g, w ← w − lr·v).
// Tensors are NCHW, weights [out, in, kh, kw] and [out, in], all parameters in one flat vector so that a step's
// gradients, a Delta per tensor and an HDF5 file of the weights all share one layout.
//
// The layer functions here are plain loops over a value type T: the reference runs them in double, the CPU variant
// in float. They are the oracle's building blocks, so they are written to be obviously right, not fast: spread over
// OpenMP threads, each output owned by one thread and summed in a fixed order, so a result is bit-identical whatever
// the thread count.

#include "compute/core/cancel.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ks::cnn {

/// Channels, height and width of one image (or one feature map).
struct Shape {
    int c = 0;
    int h = 0;
    int w = 0;
    std::size_t size() const
    {
        return static_cast<std::size_t>(c) * static_cast<std::size_t>(h) * static_cast<std::size_t>(w);
    }
};

/// One parameter tensor of the network: its name ("conv1.weight"), dimensions, and place in the flat vector.
struct Tensor {
    std::string name;
    std::vector<int> dims;
    std::size_t offset = 0;
    std::size_t count = 0;
    int fanIn = 0; ///< inputs per output (He initialisation); 0 for biases
};

/// Where every parameter tensor lives for an input shape. Throws std::invalid_argument when the input is smaller than
/// 4 × 4 (two 2 × 2 poolings would leave nothing).
class Layout {
public:
    static constexpr int kConv1 = 32;
    static constexpr int kConv2 = 64;
    static constexpr int kHidden = 128;
    static constexpr int kClasses = 10;

    explicit Layout(Shape input);

    Shape input() const { return m_input; }
    Shape conv1Out() const { return {kConv1, m_input.h, m_input.w}; }
    Shape pool1Out() const { return {kConv1, m_input.h / 2, m_input.w / 2}; }
    Shape pool2Out() const { return {kConv2, m_input.h / 2 / 2, m_input.w / 2 / 2}; }
    int flatFeatures() const { return static_cast<int>(pool2Out().size()); }

    const std::vector<Tensor>& tensors() const { return m_tensors; }
    const Tensor& tensor(const std::string& name) const;
    std::size_t parameterCount() const { return m_count; }

private:
    Shape m_input;
    std::vector<Tensor> m_tensors;
    std::size_t m_count = 0;
};

/// He-initialised weights (normal, std √(2 / fan-in)) and zero biases, a function of the seed only: every variant
/// starts from the same parameters.
std::vector<float> initialParameters(const Layout& layout, std::uint64_t seed);

// ---- layers (batch-first; `in`/`out` hold batch × shape values) -------------------------------------------------

/// 3 × 3 convolution, zero padding 1, stride 1: out[b,o,y,x] = bias[o] + Σ w[o,i,ky,kx]·in[b,i,y+ky−1,x+kx−1].
template <class T>
void convForward(std::span<const T> in, int batch, Shape inShape, std::span<const T> weight, std::span<const T> bias,
    int outChannels, std::span<T> out, const CancelPoint& cancel = CancelPoint());
/// Its gradients from dOut: dWeight and dBias (overwritten), and dIn when not empty (overwritten).
template <class T>
void convBackward(std::span<const T> in, int batch, Shape inShape, std::span<const T> weight, int outChannels,
    std::span<const T> dOut, std::span<T> dWeight, std::span<T> dBias, std::span<T> dIn,
    const CancelPoint& cancel = CancelPoint());

/// 2 × 2 max pooling, stride 2 (odd edges dropped); `argmax` records each output's input index within its image
/// plane for the backward pass (the first maximum on ties, as PyTorch).
template <class T>
void poolForward(std::span<const T> in, int batch, Shape inShape, std::span<T> out, std::span<std::uint32_t> argmax);
/// dIn (overwritten, zero except at each window's maximum) from dOut.
template <class T>
void poolBackward(
    std::span<const T> dOut, int batch, Shape inShape, std::span<const std::uint32_t> argmax, std::span<T> dIn);

/// Fully connected: out[b,o] = bias[o] + Σ_i w[o,i]·in[b,i].
template <class T>
void fcForward(std::span<const T> in, int batch, int inputs, std::span<const T> weight, std::span<const T> bias,
    int outputs, std::span<T> out, const CancelPoint& cancel = CancelPoint());
/// dWeight, dBias (overwritten) and dIn when not empty (overwritten).
template <class T>
void fcBackward(std::span<const T> in, int batch, int inputs, std::span<const T> weight, int outputs,
    std::span<const T> dOut, std::span<T> dWeight, std::span<T> dBias, std::span<T> dIn,
    const CancelPoint& cancel = CancelPoint());

/// Mean softmax cross-entropy of the logits against the labels; dLogits (overwritten) is its gradient.
template <class T>
T softmaxCrossEntropy(
    std::span<const T> logits, int batch, int classes, std::span<const std::uint8_t> labels, std::span<T> dLogits);

// ---- the whole network's decisions ------------------------------------------------------------------------------

/// The piecewise choices of one forward pass: which units each ReLU passed and which input each max-pool window
/// took. A float pass and a double pass can choose differently where two values lie within rounding of each other;
/// both gradients are then right for their own choices. Comparing a variant's gradient with the double reference's
/// under the variant's own choices (checked to be within rounding) makes the comparison exact there.
struct Decisions {
    std::vector<std::uint8_t> relu1, relu2, relu3; ///< after conv1, conv2, fc1: 1 where the unit passed
    std::vector<std::uint32_t> pool1, pool2; ///< each window's chosen input, as an index within its image plane

    /// As 64-bit words (ReLU masks as bits, pool choices two to a word) behind a header of the five lengths.
    std::vector<std::uint64_t> pack() const;
    /// Reads what pack wrote; throws std::invalid_argument when the words are not such a record.
    static Decisions unpack(std::span<const std::uint64_t> words);
};

/// What replaying another pass's decisions found: how many of them this pass's values contradict by more than the
/// tolerance (a unit passed whose input is clearly negative, a window's choice clearly below its maximum).
struct ReplayCheck {
    std::size_t violations = 0;
    std::size_t decisions = 0;
};

// ---- the whole network ------------------------------------------------------------------------------------------

/// One step's time split into phases, in ms, in the order the step runs them. Phase names are "<layer> forward" and
/// "<layer> backward" for the layers conv1, pool1, conv2, pool2, fc1, fc2 (a ReLU counts with the layer before it),
/// "loss" (softmax cross-entropy and its gradient) and "update" (the SGD step, and a batch's gathering). A kernel that
/// fuses layers reports its time under the first layer it covers and leaves the others out.
using LayerTimes = std::vector<std::pair<std::string, double>>;

/// One forward and backward pass over a batch: the mean loss, and the gradient of every parameter in `gradient`
/// (the parameters' layout). `images` are batch × input-shape values. `times`, when given, gets each phase's time.
/// The convolutions and fully connected layers check `cancel` once per output plane or row (a fraction of a
/// millisecond) and throw RunCancelled when it is stopped.
template <class T>
T lossAndGradient(const Layout& layout, std::span<const T> parameters, std::span<const T> images,
    std::span<const std::uint8_t> labels, int batch, std::span<T> gradient, Decisions* record = nullptr,
    LayerTimes* times = nullptr, const CancelPoint& cancel = CancelPoint());

/// The same pass following `decisions` made by another pass instead of its own; a decision this pass's values
/// contradict by more than `relativeTolerance` of the layer's largest value is counted in `check`.
template <class T>
T replayLossAndGradient(const Layout& layout, std::span<const T> parameters, std::span<const T> images,
    std::span<const std::uint8_t> labels, int batch, std::span<T> gradient, const Decisions& decisions,
    double relativeTolerance, ReplayCheck& check);

/// The forward pass alone, for scoring a trained network: each image's logits (batch × 10) and its features, fc1's
/// ReLU output (batch × 128), from the same layer functions a training step runs (OpenMP, bit-identical whatever the
/// thread count).
template <class T>
void inferenceForward(const Layout& layout, std::span<const T> parameters, std::span<const T> images, int batch,
    std::span<T> logits, std::span<T> features);

/// Each image's predicted class from its logits (batch × classes): the first largest logit, as argmax does.
std::vector<std::uint8_t> predictedClasses(std::span<const float> logits, int batch, int classes);

/// SGD with momentum, PyTorch's form: velocity ← momentum·velocity + gradient; parameters ← parameters − lr·velocity.
template <class T>
void sgdMomentum(
    std::span<T> parameters, std::span<T> velocity, std::span<const T> gradient, double lr, double momentum);

} // namespace ks::cnn
