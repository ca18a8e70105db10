// Hand-written CUDA variants of cnn, the seed's two, with one forward pass: convolutions over shared-memory input
// tiles. v2_atomics (GPU_v2_shared_mem): every backward kernel scatters its contributions with atomicAdd.
// v3_atomic_free (GPU_v3, "an atomic-free optimization of GPU_v2_shared_mem"): every backward kernel owns its outputs,
// so no atomics — per-sample FC weight gradients then a reduction kernel over the batch, conv weight gradients one
// thread per weight, conv input gradients one thread per input element, max-pool backward a direct write. v3's sums run
// in a fixed order, so its steps are bit-identical from run to run; v2's atomics add in whatever order the threads
// arrive. The same forward kernels also score a trained network after a GPU variant's run (scoreImagesOnGpu,
// gpu_scoring.h): held-out accuracy and the features file.
#include "compute/device/cuda_check.cuh"
#include "compute/device/device_info.h"
#include "compute/device/launch.cuh"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/device_training.cuh"
#include "compute/workloads/cnn/gpu_scoring.h"

#include <algorithm>
#include <cmath>

namespace ks::cnn::gpu {

namespace {

/// The element-wise kernels' tunables (every kernel but the tiled convolution): one thread per output element.
struct ElementwisePolicy {
    static constexpr int kThreads = 256;
};

/// The forward convolution's tile (both variants): kTile × kTile outputs of one image and channel per block, their
/// inputs and halo staged in shared memory one input channel at a time.
struct TilePolicy {
    static constexpr int kTile = 16;
};

/// Grid-stride loop over `count` items.
#define KS_CNN_FOR_EACH(i, count)                                                                                      \
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < (count);                              \
         i += std::size_t(gridDim.x) * blockDim.x)

/// 2×2 max-pool, stride 2; the first maximum wins ties, as on the CPU.
__global__ void poolKernel(const float* in, int batch, int c, int h, int w, float* out, std::uint32_t* argmax)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_FOR_EACH(i, std::size_t(batch) * c * oh * ow)
    {
        const int x = int(i % ow), y = int(i / ow % oh);
        const std::size_t plane = i / (std::size_t(ow) * oh);
        const float* p = in + plane * h * w;
        float best = -INFINITY;
        std::uint32_t where = 0;
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
                const int at = (2 * y + dy) * w + 2 * x + dx;
                if (p[at] > best) {
                    best = p[at];
                    where = std::uint32_t(at);
                }
            }
        out[i] = best;
        argmax[i] = where;
    }
}

__global__ void fcKernel(
    const float* in, int batch, int inputs, const float* weight, const float* bias, int outputs, bool relu, float* out)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * outputs)
    {
        const int o = int(i % outputs);
        const std::size_t b = i / outputs;
        float sum = bias[o];
        for (int k = 0; k < inputs; ++k)
            sum += weight[std::size_t(o) * inputs + k] * in[b * inputs + k];
        out[i] = relu ? fmaxf(sum, 0.0f) : sum;
    }
}

/// FC backward, step 1 of the seed's v3: every sample's weight gradient in its own slot (no two threads write one).
__global__ void fcPerSampleKernel(
    const float* in, const float* dOut, int batch, int inputs, int outputs, float* perSample)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * outputs * inputs)
    {
        const std::size_t k = i % inputs, o = i / inputs % outputs, b = i / (std::size_t(inputs) * outputs);
        perSample[i] = dOut[b * outputs + o] * in[b * inputs + k];
    }
}

/// Step 2: the reduction over the batch, in sample order; the bias gradient likewise.
__global__ void fcReduceKernel(
    const float* perSample, const float* dOut, int batch, int inputs, int outputs, float* dWeight, float* dBias)
{
    const std::size_t weights = std::size_t(outputs) * inputs;
    KS_CNN_FOR_EACH(i, weights + outputs)
    {
        float sum = 0.0f;
        if (i < weights) {
            for (int b = 0; b < batch; ++b)
                sum += perSample[b * weights + i];
            dWeight[i] = sum;
        } else {
            const std::size_t o = i - weights;
            for (int b = 0; b < batch; ++b)
                sum += dOut[b * outputs + o];
            dBias[o] = sum;
        }
    }
}

/// dIn[b,k] = Σ_o dOut[b,o]·w[o,k], times the ReLU mask of the input when `reluOutput` (the input's own values).
__global__ void fcInputGradKernel(
    const float* dOut, const float* weight, const float* reluOutput, int batch, int inputs, int outputs, float* dIn)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * inputs)
    {
        const std::size_t k = i % inputs, b = i / inputs;
        float sum = 0.0f;
        for (int o = 0; o < outputs; ++o)
            sum += dOut[b * outputs + o] * weight[std::size_t(o) * inputs + k];
        dIn[i] = reluOutput && !(reluOutput[i] > 0.0f) ? 0.0f : sum;
    }
}

/// Max-pool backward as a direct write (windows do not overlap): each output's gradient to its chosen input,
/// masked by that input's ReLU; the other inputs were zeroed before.
__global__ void poolBackwardKernel(
    const float* dOut, const std::uint32_t* argmax, const float* reluOutput, int batch, int c, int h, int w, float* dIn)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_FOR_EACH(i, std::size_t(batch) * c * oh * ow)
    {
        const std::size_t at = i / (std::size_t(ow) * oh) * h * w + argmax[i];
        dIn[at] = reluOutput[at] > 0.0f ? dOut[i] : 0.0f;
    }
}

/// Conv weight gradients, one thread per weight (and one per bias after them), summing over batch and plane.
__global__ void convWeightGradKernel(
    const float* in, const float* dOut, int batch, int c, int h, int w, int outC, float* dWeight, float* dBias)
{
    const std::size_t weights = std::size_t(outC) * c * 9;
    KS_CNN_FOR_EACH(i, weights + outC)
    {
        float sum = 0.0f;
        if (i < weights) {
            const int kx = int(i % 3), ky = int(i / 3 % 3), ic = int(i / 9 % c), o = int(i / (9 * std::size_t(c)));
            for (int b = 0; b < batch; ++b)
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const int iy = y + ky - 1, ix = x + kx - 1;
                        if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                            continue;
                        sum += dOut[((std::size_t(b) * outC + o) * h + y) * w + x]
                            * in[((std::size_t(b) * c + ic) * h + iy) * w + ix];
                    }
            dWeight[i] = sum;
        } else {
            const std::size_t o = i - weights;
            for (int b = 0; b < batch; ++b)
                for (int k = 0; k < h * w; ++k)
                    sum += dOut[(std::size_t(b) * outC + o) * h * w + k];
            dBias[o] = sum;
        }
    }
}

/// Conv input gradients, one thread per input element, gathering from every output that read it.
__global__ void convInputGradKernel(
    const float* dOut, const float* weight, int batch, int c, int h, int w, int outC, float* dIn)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * c * h * w)
    {
        const int ix = int(i % w), iy = int(i / w % h), ic = int(i / (std::size_t(w) * h) % c);
        const int b = int(i / (std::size_t(w) * h * c));
        float sum = 0.0f;
        for (int o = 0; o < outC; ++o)
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int y = iy - ky + 1, x = ix - kx + 1;
                    if (y < 0 || y >= h || x < 0 || x >= w)
                        continue;
                    sum += dOut[((std::size_t(b) * outC + o) * h + y) * w + x]
                        * weight[((o * c + ic) * 3 + ky) * 3 + kx];
                }
        dIn[i] = sum;
    }
}

// ---- v2_atomics ----------------------------------------------------------------------------------------------

/// One output tile of a 3×3 convolution (pad 1) with ReLU; the input tile and its halo come through shared memory.
__global__ void convReluTiledKernel(
    const float* in, int c, int h, int w, const float* weight, const float* bias, int outC, float* out)
{
    constexpr int kTile = TilePolicy::kTile, kHalo = kTile + 2;
    __shared__ float tile[kHalo][kHalo];
    __shared__ float kernel[9];
    const int b = int(blockIdx.z) / outC, o = int(blockIdx.z) % outC;
    const int x0 = int(blockIdx.x) * kTile, y0 = int(blockIdx.y) * kTile;
    const int x = x0 + int(threadIdx.x), y = y0 + int(threadIdx.y);
    const int lane = int(threadIdx.y) * kTile + int(threadIdx.x);
    float sum = bias[o];
    for (int ic = 0; ic < c; ++ic) {
        const float* plane = in + (std::size_t(b) * c + ic) * h * w;
        for (int i = lane; i < kHalo * kHalo; i += kTile * kTile) {
            const int iy = y0 + i / kHalo - 1, ix = x0 + i % kHalo - 1;
            tile[i / kHalo][i % kHalo] = iy >= 0 && iy < h && ix >= 0 && ix < w ? plane[iy * w + ix] : 0.0f;
        }
        if (lane < 9)
            kernel[lane] = weight[(o * c + ic) * 9 + lane];
        __syncthreads();
        for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx)
                sum += kernel[ky * 3 + kx] * tile[threadIdx.y + ky][threadIdx.x + kx];
        __syncthreads();
    }
    if (x < w && y < h)
        out[((std::size_t(b) * outC + o) * h + y) * w + x] = fmaxf(sum, 0.0f);
}

/// FC backward by atomics: a thread per (sample, output, input) adds its products to the weight and input gradients.
__global__ void fcBackwardAtomicKernel(const float* in, const float* dOut, const float* weight, int batch, int inputs,
    int outputs, float* dWeight, float* dBias, float* dIn)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * outputs * inputs)
    {
        const std::size_t k = i % inputs, o = i / inputs % outputs, b = i / (std::size_t(inputs) * outputs);
        const float g = dOut[b * outputs + o];
        atomicAdd(&dWeight[o * inputs + k], g * in[b * inputs + k]);
        atomicAdd(&dIn[b * inputs + k], g * weight[o * inputs + k]);
        if (k == 0)
            atomicAdd(&dBias[o], g);
    }
}

/// Zeroes gradients where the forward ReLU output was not positive.
__global__ void reluMaskKernel(float* grad, const float* reluOutput, std::size_t count)
{
    KS_CNN_FOR_EACH(i, count)
    {
        if (!(reluOutput[i] > 0.0f))
            grad[i] = 0.0f;
    }
}

/// Max-pool backward by atomics, masked by the ReLU before the pool.
__global__ void poolBackwardAtomicKernel(
    const float* dOut, const std::uint32_t* argmax, const float* reluOutput, int batch, int c, int h, int w, float* dIn)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_FOR_EACH(i, std::size_t(batch) * c * oh * ow)
    {
        const std::size_t at = i / (std::size_t(ow) * oh) * h * w + argmax[i];
        if (reluOutput[at] > 0.0f)
            atomicAdd(&dIn[at], dOut[i]);
    }
}

/// Conv backward by atomics: a thread per output scatters into the weight, bias and (when given) input gradients.
__global__ void convBackwardAtomicKernel(const float* in, const float* dOut, const float* weight, int batch, int c,
    int h, int w, int outC, float* dWeight, float* dBias, float* dIn)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * outC * h * w)
    {
        const int x = int(i % w), y = int(i / w % h), o = int(i / (std::size_t(w) * h) % outC);
        const int b = int(i / (std::size_t(w) * h * outC));
        const float g = dOut[i];
        if (g == 0.0f)
            continue;
        atomicAdd(&dBias[o], g);
        for (int ic = 0; ic < c; ++ic)
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int iy = y + ky - 1, ix = x + kx - 1;
                    if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                        continue;
                    const std::size_t wAt = ((std::size_t(o) * c + ic) * 3 + ky) * 3 + kx;
                    const std::size_t inAt = ((std::size_t(b) * c + ic) * h + iy) * w + ix;
                    atomicAdd(&dWeight[wAt], g * in[inAt]);
                    if (dIn)
                        atomicAdd(&dIn[inAt], g * weight[wAt]);
                }
    }
}

#undef KS_CNN_FOR_EACH

unsigned blocks(std::size_t items)
{
    return device::blocksFor(items, ElementwisePolicy::kThreads, 65'535);
}

/// conv3×3 + bias + ReLU of `batch` images over shared-memory tiles: the forward convolution of both variants and of
/// the scoring pass. The grid's z axis holds batch × outC (image, channel) pairs.
void launchConvRelu(const float* input, int batch, int c, int h, int w, const float* weight, const float* bias,
    int outC, float* out, cudaStream_t stream)
{
    constexpr int kTile = TilePolicy::kTile;
    const dim3 grid(unsigned((w + kTile - 1) / kTile), unsigned((h + kTile - 1) / kTile), unsigned(batch * outC));
    convReluTiledKernel<<<grid, dim3(kTile, kTile), 0, stream>>>(input, c, h, w, weight, bias, outC, out);
    KS_CUDA_CHECK_LAUNCH("cnn convReluTiledKernel");
}

/// The whole step on the device, in the seed's v2 (atomics) or v3 (atomic-free) decomposition.
enum class Scheme { Atomics, AtomicFree };

class SeedRun final : public LayeredTrainingRun {
public:
    SeedRun(const data::Dataset& dataset, const ParamSet& params, Scheme scheme)
        : LayeredTrainingRun(dataset, params, Arithmetic::Fp32)
        , m_scheme(scheme)
    {
        if (m_set.size() == 0)
            throw SkipRun("no images");
        // The tiled convolution puts (image, channel) pairs on the grid's z axis.
        if (std::int64_t(m_settings.batch) * Layout::kConv2 > 65'535)
            throw SkipRun("batches of at most 1,023 images (batch × 64 channels on the grid's z axis, at most "
                          "65,535)");
        const std::size_t b = std::size_t(m_settings.batch);
        const std::size_t perSample
            = b * std::max<std::size_t>(std::size_t(Layout::kHidden) * m_layout.flatFeatures(), 10 * Layout::kHidden);
        const std::size_t floats = stateFloats() + perSample;
        device::requireDeviceMemory(floats * sizeof(float) + m_set.labels.size(),
            std::string(scheme == Scheme::Atomics ? "cnn v2_atomics" : "cnn v3_atomic_free") + " on "
                + std::to_string(m_set.size()) + " images at batch " + std::to_string(b));
        allocateState();
        allocateLayers(PoolChoices::Kept);
        m_perSample = device::DeviceBuffer<float>(perSample);
        reset();
    }

private:
    void update() override
    {
        launchSgd(m_parameters.data(), m_velocity.data(), m_gradient.data(), m_parameters.size(), float(m_settings.lr),
            float(m_settings.momentum), stream());
    }

    void forwardBackward(std::uint64_t step) override
    {
        const int b = m_settings.batch, threads = ElementwisePolicy::kThreads;
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const int h2 = p1.h, w2 = p1.w, features = m_layout.flatFeatures();
        const std::size_t nb = std::size_t(b);
        cudaStream_t s = stream();

        launchGather(m_images.data(), m_labels.data(), m_set.size(), m_set.imageSize(), step * nb, b,
            m_batchImages.data(), m_batchLabels.data(), s);
        mark("update");
        convRelu(m_batchImages.data(), in.c, in.h, in.w, "conv1", Layout::kConv1, m_conv1.data());
        mark("conv1 forward");
        poolKernel<<<blocks(m_pool1.size()), threads, 0, s>>>(
            m_conv1.data(), b, Layout::kConv1, in.h, in.w, m_pool1.data(), m_arg1.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolKernel 1");
        mark("pool1 forward");
        convRelu(m_pool1.data(), Layout::kConv1, h2, w2, "conv2", Layout::kConv2, m_conv2.data());
        mark("conv2 forward");
        poolKernel<<<blocks(m_pool2.size()), threads, 0, s>>>(
            m_conv2.data(), b, Layout::kConv2, h2, w2, m_pool2.data(), m_arg2.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolKernel 2");
        mark("pool2 forward");
        fcKernel<<<blocks(m_fc1.size()), threads, 0, s>>>(
            m_pool2.data(), b, features, param("fc1.weight"), param("fc1.bias"), Layout::kHidden, true, m_fc1.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcKernel 1");
        mark("fc1 forward");
        fcKernel<<<blocks(m_logits.size()), threads, 0, s>>>(m_fc1.data(), b, Layout::kHidden, param("fc2.weight"),
            param("fc2.bias"), Layout::kClasses, false, m_logits.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcKernel 2");
        mark("fc2 forward");
        launchSoftmaxLoss(
            m_logits.data(), m_batchLabels.data(), b, Layout::kClasses, m_dLogits.data(), m_losses.data(), s);
        mark("loss");

        if (m_scheme == Scheme::Atomics)
            backwardAtomics();
        else
            backwardAtomicFree();
    }

    /// conv3×3 + bias + ReLU of `name` ("conv1") over shared-memory tiles: the seed's v3 is v2 with another
    /// backward pass, so both share this forward convolution.
    void convRelu(const float* input, int c, int h, int w, const std::string& name, int outC, float* out)
    {
        launchConvRelu(input, m_settings.batch, c, h, w, param((name + ".weight").c_str()),
            param((name + ".bias").c_str()), outC, out, stream());
    }

    /// The seed's v2 backward: every kernel scatters with atomicAdd into zeroed gradients.
    void backwardAtomics()
    {
        const int b = m_settings.batch, threads = ElementwisePolicy::kThreads;
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const int h2 = p1.h, w2 = p1.w, features = m_layout.flatFeatures();
        cudaStream_t s = stream();
        m_gradient.fillBytesAsync(0, s);
        m_dFc1.fillBytesAsync(0, s);
        fcBackwardAtomicKernel<<<blocks(std::size_t(b) * Layout::kClasses * Layout::kHidden), threads, 0, s>>>(
            m_fc1.data(), m_dLogits.data(), param("fc2.weight"), b, Layout::kHidden, Layout::kClasses,
            grad("fc2.weight"), grad("fc2.bias"), m_dFc1.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcBackwardAtomicKernel 2");
        reluMaskKernel<<<blocks(m_dFc1.size()), threads, 0, s>>>(m_dFc1.data(), m_fc1.data(), m_dFc1.size());
        KS_CUDA_CHECK_LAUNCH("cnn reluMaskKernel");
        mark("fc2 backward");
        m_dPool2.fillBytesAsync(0, s);
        fcBackwardAtomicKernel<<<blocks(std::size_t(b) * Layout::kHidden * features), threads, 0, s>>>(m_pool2.data(),
            m_dFc1.data(), param("fc1.weight"), b, features, Layout::kHidden, grad("fc1.weight"), grad("fc1.bias"),
            m_dPool2.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcBackwardAtomicKernel 1");
        mark("fc1 backward");
        m_dConv2.fillBytesAsync(0, s);
        poolBackwardAtomicKernel<<<blocks(m_dPool2.size()), threads, 0, s>>>(
            m_dPool2.data(), m_arg2.data(), m_conv2.data(), b, Layout::kConv2, h2, w2, m_dConv2.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolBackwardAtomicKernel 2");
        mark("pool2 backward");
        m_dPool1.fillBytesAsync(0, s);
        convBackwardAtomicKernel<<<blocks(m_dConv2.size()), threads, 0, s>>>(m_pool1.data(), m_dConv2.data(),
            param("conv2.weight"), b, Layout::kConv1, h2, w2, Layout::kConv2, grad("conv2.weight"), grad("conv2.bias"),
            m_dPool1.data());
        KS_CUDA_CHECK_LAUNCH("cnn convBackwardAtomicKernel 2");
        mark("conv2 backward");
        m_dConv1.fillBytesAsync(0, s);
        poolBackwardAtomicKernel<<<blocks(m_dPool1.size()), threads, 0, s>>>(
            m_dPool1.data(), m_arg1.data(), m_conv1.data(), b, Layout::kConv1, in.h, in.w, m_dConv1.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolBackwardAtomicKernel 1");
        mark("pool1 backward");
        convBackwardAtomicKernel<<<blocks(m_dConv1.size()), threads, 0, s>>>(m_batchImages.data(), m_dConv1.data(),
            param("conv1.weight"), b, in.c, in.h, in.w, Layout::kConv1, grad("conv1.weight"), grad("conv1.bias"),
            nullptr);
        KS_CUDA_CHECK_LAUNCH("cnn convBackwardAtomicKernel 1");
        mark("conv1 backward");
    }

    /// The seed's v3 backward: every kernel owns its outputs.
    void backwardAtomicFree()
    {
        const int b = m_settings.batch, threads = ElementwisePolicy::kThreads;
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const int h2 = p1.h, w2 = p1.w, features = m_layout.flatFeatures();
        cudaStream_t s = stream();
        fcBackward(m_fc1.data(), m_dLogits.data(), Layout::kHidden, Layout::kClasses, "fc2.weight", "fc2.bias");
        fcInputGradKernel<<<blocks(m_dFc1.size()), threads, 0, s>>>(
            m_dLogits.data(), param("fc2.weight"), m_fc1.data(), b, Layout::kHidden, Layout::kClasses, m_dFc1.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcInputGradKernel 2");
        mark("fc2 backward");
        fcBackward(m_pool2.data(), m_dFc1.data(), features, Layout::kHidden, "fc1.weight", "fc1.bias");
        fcInputGradKernel<<<blocks(m_dPool2.size()), threads, 0, s>>>(
            m_dFc1.data(), param("fc1.weight"), nullptr, b, features, Layout::kHidden, m_dPool2.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcInputGradKernel 1");
        mark("fc1 backward");
        m_dConv2.fillBytesAsync(0, s);
        poolBackwardKernel<<<blocks(m_dPool2.size()), threads, 0, s>>>(
            m_dPool2.data(), m_arg2.data(), m_conv2.data(), b, Layout::kConv2, h2, w2, m_dConv2.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolBackwardKernel 2");
        mark("pool2 backward");
        convWeightGradKernel<<<blocks(m_layout.tensor("conv2.weight").count + Layout::kConv2), threads, 0, s>>>(
            m_pool1.data(), m_dConv2.data(), b, Layout::kConv1, h2, w2, Layout::kConv2, grad("conv2.weight"),
            grad("conv2.bias"));
        KS_CUDA_CHECK_LAUNCH("cnn convWeightGradKernel 2");
        convInputGradKernel<<<blocks(m_dPool1.size()), threads, 0, s>>>(
            m_dConv2.data(), param("conv2.weight"), b, Layout::kConv1, h2, w2, Layout::kConv2, m_dPool1.data());
        KS_CUDA_CHECK_LAUNCH("cnn convInputGradKernel 2");
        mark("conv2 backward");
        m_dConv1.fillBytesAsync(0, s);
        poolBackwardKernel<<<blocks(m_dPool1.size()), threads, 0, s>>>(
            m_dPool1.data(), m_arg1.data(), m_conv1.data(), b, Layout::kConv1, in.h, in.w, m_dConv1.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolBackwardKernel 1");
        mark("pool1 backward");
        convWeightGradKernel<<<blocks(m_layout.tensor("conv1.weight").count + Layout::kConv1), threads, 0, s>>>(
            m_batchImages.data(), m_dConv1.data(), b, in.c, in.h, in.w, Layout::kConv1, grad("conv1.weight"),
            grad("conv1.bias"));
        KS_CUDA_CHECK_LAUNCH("cnn convWeightGradKernel 1");
        mark("conv1 backward");
    }

    /// The seed's v3 FC weight gradient: per-sample products, then the reduction over the batch.
    void fcBackward(const float* in, const float* dOut, int inputs, int outputs, const char* weight, const char* bias)
    {
        const int b = m_settings.batch;
        const std::size_t products = std::size_t(b) * outputs * inputs;
        fcPerSampleKernel<<<blocks(products), ElementwisePolicy::kThreads, 0, stream()>>>(
            in, dOut, b, inputs, outputs, m_perSample.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcPerSampleKernel");
        fcReduceKernel<<<blocks(std::size_t(outputs) * inputs + outputs), ElementwisePolicy::kThreads, 0, stream()>>>(
            m_perSample.data(), dOut, b, inputs, outputs, grad(weight), grad(bias));
        KS_CUDA_CHECK_LAUNCH("cnn fcReduceKernel");
    }

    Scheme m_scheme;
    device::DeviceBuffer<float> m_perSample; ///< v3's FC weight gradient per sample, before the reduction
};

/// The variants' forward pass alone, for scoring a trained network: batches of normalised images uploaded from the
/// host, each image's logits and fc1 features brought back.
class DeviceScorer {
public:
    DeviceScorer(const Layout& layout, std::span<const float> weights, int batch)
        : m_layout(layout)
        , m_batch(batch)
    {
        const std::size_t b = std::size_t(batch);
        const Shape in = layout.input(), c1 = layout.conv1Out(), p1 = layout.pool1Out(), p2 = layout.pool2Out();
        const Shape c2 {Layout::kConv2, p1.h, p1.w};
        device::requireDeviceMemory(sizeof(float)
                * (weights.size()
                    + b
                        * (in.size() + c1.size() + 2 * p1.size() + c2.size() + 2 * p2.size() + Layout::kHidden
                            + Layout::kClasses)),
            "cnn scoring at batch " + std::to_string(b));
        m_parameters = device::DeviceBuffer<float>(weights.size());
        m_parameters.uploadAsync(weights, m_stream.get());
        m_images = device::DeviceBuffer<float>(b * in.size());
        m_conv1 = device::DeviceBuffer<float>(b * c1.size());
        m_pool1 = device::DeviceBuffer<float>(b * p1.size());
        m_arg1 = device::DeviceBuffer<std::uint32_t>(b * p1.size());
        m_conv2 = device::DeviceBuffer<float>(b * c2.size());
        m_pool2 = device::DeviceBuffer<float>(b * p2.size());
        m_arg2 = device::DeviceBuffer<std::uint32_t>(b * p2.size());
        m_fc1 = device::DeviceBuffer<float>(b * Layout::kHidden);
        m_logits = device::DeviceBuffer<float>(b * Layout::kClasses);
    }

    /// `batch` (at most the constructor's) images through the network: their logits and features on the host.
    void run(std::span<const float> images, int batch, std::span<float> logits, std::span<float> features)
    {
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const std::size_t b = std::size_t(batch);
        if (batch > m_batch || images.size() != b * in.size() || logits.size() != b * Layout::kClasses
            || features.size() != b * Layout::kHidden)
            throw ComputeError("cnn scoring: buffers of another batch or image shape");
        const int threads = ElementwisePolicy::kThreads;
        cudaStream_t s = m_stream.get();
        KS_CUDA_CHECK(cudaMemcpyAsync(m_images.data(), images.data(), images.size_bytes(), cudaMemcpyHostToDevice, s));
        launchConvRelu(m_images.data(), batch, in.c, in.h, in.w, param("conv1.weight"), param("conv1.bias"),
            Layout::kConv1, m_conv1.data(), s);
        poolKernel<<<blocks(b * p1.size()), threads, 0, s>>>(
            m_conv1.data(), batch, Layout::kConv1, in.h, in.w, m_pool1.data(), m_arg1.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolKernel 1 (scoring)");
        launchConvRelu(m_pool1.data(), batch, Layout::kConv1, p1.h, p1.w, param("conv2.weight"), param("conv2.bias"),
            Layout::kConv2, m_conv2.data(), s);
        poolKernel<<<blocks(b * m_layout.pool2Out().size()), threads, 0, s>>>(
            m_conv2.data(), batch, Layout::kConv2, p1.h, p1.w, m_pool2.data(), m_arg2.data());
        KS_CUDA_CHECK_LAUNCH("cnn poolKernel 2 (scoring)");
        fcKernel<<<blocks(b * Layout::kHidden), threads, 0, s>>>(m_pool2.data(), batch, m_layout.flatFeatures(),
            param("fc1.weight"), param("fc1.bias"), Layout::kHidden, true, m_fc1.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcKernel 1 (scoring)");
        fcKernel<<<blocks(b * Layout::kClasses), threads, 0, s>>>(m_fc1.data(), batch, Layout::kHidden,
            param("fc2.weight"), param("fc2.bias"), Layout::kClasses, false, m_logits.data());
        KS_CUDA_CHECK_LAUNCH("cnn fcKernel 2 (scoring)");
        KS_CUDA_CHECK(cudaMemcpyAsync(logits.data(), m_logits.data(), logits.size_bytes(), cudaMemcpyDeviceToHost, s));
        KS_CUDA_CHECK(cudaMemcpyAsync(features.data(), m_fc1.data(), features.size_bytes(), cudaMemcpyDeviceToHost, s));
        m_stream.synchronize();
    }

private:
    const float* param(const char* name) const { return m_parameters.data() + m_layout.tensor(name).offset; }

    Layout m_layout;
    int m_batch;
    device::Stream m_stream;
    device::DeviceBuffer<float> m_parameters, m_images, m_conv1, m_pool1, m_conv2, m_pool2, m_fc1, m_logits;
    device::DeviceBuffer<std::uint32_t> m_arg1, m_arg2;
};

} // namespace
} // namespace ks::cnn::gpu

namespace ks::cnn {

std::unique_ptr<PreparedRun> prepareV2Atomics(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return std::make_unique<gpu::SeedRun>(d, p, gpu::Scheme::Atomics);
}

std::unique_ptr<PreparedRun> prepareV3AtomicFree(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return std::make_unique<gpu::SeedRun>(d, p, gpu::Scheme::AtomicFree);
}

void scoreImagesOnGpu(const Layout& layout, std::span<const float> weights, const data::ImageSet& set,
    std::size_t count, int batch, std::span<std::uint8_t> predicted, std::span<float> features)
{
    if (count == 0)
        return;
    const int most = int(std::min<std::size_t>(std::size_t(batch), count));
    gpu::DeviceScorer scorer(layout, weights, most);
    const std::size_t imageSize = set.imageSize();
    std::vector<float> logits, batchFeatures;
    for (std::size_t first = 0; first < count; first += std::size_t(most)) {
        const int n = int(std::min<std::size_t>(std::size_t(most), count - first));
        logits.resize(std::size_t(n) * Layout::kClasses);
        batchFeatures.resize(std::size_t(n) * Layout::kHidden);
        scorer.run(std::span<const float>(set.pixels.data() + first * imageSize, std::size_t(n) * imageSize), n, logits,
            batchFeatures);
        const std::vector<std::uint8_t> classes = predictedClasses(logits, n, Layout::kClasses);
        std::copy(classes.begin(), classes.end(), predicted.begin() + std::ptrdiff_t(first));
        if (!features.empty())
            std::copy(
                batchFeatures.begin(), batchFeatures.end(), features.begin() + std::ptrdiff_t(first * Layout::kHidden));
    }
}

} // namespace ks::cnn
