// cudnn: the cnn step on NVIDIA's libraries, loaded at run time. Convolutions through cuDNN in float32 with FMA math
// only (no tensor cores, so no TF32): the forward pass fused with its bias and ReLU, then the backward filter and data
// gradients; max-pool forward through cuDNN. The FC layers and their gradients through cuBLAS SGEMM in float32
// (default math: no TF32 either). Our own small kernels do the rest: the batch's gathering, the FC biases, softmax
// cross-entropy, max-pool backward, the convolutions' bias gradients and SGD.
//
// Each convolution's algorithms are chosen once, by timing them (cudnnFind*), among cuDNN's deterministic ones, as
// PyTorch does with torch.backends.cudnn.deterministic: a step then repeats bit for bit.
//
// Max-pool backward is ours rather than cudnnPoolingBackward followed by cudnnActivationBackward: one pass, a thread
// per input, that routes each window's gradient to its first maximum (as the CPU loops choose) through the ReLU mask
// and writes every input, odd edges too. The decisions fetch() reports come from the same first-maximum function, so
// they are by construction the choices the backward pass followed; that matters where a window's inputs are
// exactly equal, as a uniform background's convolutions are. (cuDNN 9.14 on an H100 also gave a tied window's gradient
// to its first maximum, in both max modes, but does not document it.)
#include "compute/device/cublas_loader.cuh"
#include "compute/device/cuda_check.cuh"
#include "compute/device/cudnn_loader.cuh"
#include "compute/device/launch.cuh"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/device_training.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <string>

namespace ks::cnn::vendor {

namespace {

/// Our kernels' tunables: threads per block for a thread per element (or a warp per bias gradient), and for a block
/// per image plane summing its gradients.
struct Policy {
    static constexpr int kThreads = 256;
    static constexpr int kPlaneThreads = 128;
};

/// Grid-stride loop over `count` items.
#define KS_CNN_FOR_EACH(i, count)                                                                                      \
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < (count);                              \
         i += std::size_t(gridDim.x) * blockDim.x)

/// out[b,o] += bias[o], then ReLU when asked (the GEMM before wrote the products).
__global__ void fcBiasKernel(float* out, const float* bias, int batch, int outputs, bool relu)
{
    KS_CNN_FOR_EACH(i, std::size_t(batch) * outputs)
    {
        const float v = out[i] + bias[i % outputs];
        out[i] = relu ? fmaxf(v, 0.0f) : v;
    }
}

/// The sum of a warp's values in lane 0, by a shuffle tree in a fixed order (so it repeats bit for bit).
__device__ float warpSum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(device::kFullWarpMask, value, offset);
    return value;
}

/// An FC layer's bias gradient, a warp per output: each lane sums every 32nd sample, then warpSum. A thread looping
/// over the whole batch alone waited out one load's latency per sample. With `reluOutput` (the layer's ReLU output) the
/// gradient is first masked in place, so the weight and input GEMMs after read the masked one.
__device__ void fcBiasGradWarp(
    float* __restrict__ dOut, const float* __restrict__ reluOutput, int batch, int outputs, int o, float* dBias)
{
    const int lane = int(threadIdx.x) % 32;
    float sum = 0.0f;
    for (int b = lane; b < batch; b += 32) {
        const std::size_t at = std::size_t(b) * outputs + o;
        float g = dOut[at];
        if (reluOutput && !(reluOutput[at] > 0.0f)) {
            g = 0.0f;
            dOut[at] = g;
        }
        sum += g;
    }
    sum = warpSum(sum);
    if (lane == 0)
        dBias[o] = sum;
}

__global__ void fcBiasGradKernel(float* dOut, const float* reluOutput, int batch, int outputs, float* dBias)
{
    const int o = int(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
    if (o < outputs)
        fcBiasGradWarp(dOut, reluOutput, batch, outputs, o, dBias);
}

/// A convolution's bias gradient, step 1: a block per (image, channel) plane sums its gradients, threads striding over
/// the plane, then warpSum within and across the warps. Step 2 is fcBiasGradKernel over these [batch, channels] sums.
/// cudnnConvolutionBackwardBias runs a block per channel (32 or 64 blocks) over the whole batch: under Nsight Compute
/// on an H100 at batch 128 it took 124 and 68 µs, about a third of the step's kernel time.
__global__ void planeSumKernel(const float* values, int plane, float* sums)
{
    __shared__ float warpSums[Policy::kPlaneThreads / 32];
    const float* p = values + std::size_t(blockIdx.x) * plane;
    float sum = 0.0f;
    for (int i = int(threadIdx.x); i < plane; i += Policy::kPlaneThreads)
        sum += p[i];
    sum = warpSum(sum);
    if (threadIdx.x % 32 == 0)
        warpSums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = warpSum(threadIdx.x < Policy::kPlaneThreads / 32 ? warpSums[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0)
            sums[blockIdx.x] = sum;
    }
}

/// The input a 2×2 window (output y, x) takes within its plane: the first maximum, as the CPU loops choose.
__device__ std::uint32_t firstMaximum(const float* plane, int w, int y, int x)
{
    float best = -INFINITY;
    std::uint32_t where = std::uint32_t(2 * y * w + 2 * x);
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
            const int at = (2 * y + dy) * w + 2 * x + dx;
            if (plane[at] > best) {
                best = plane[at];
                where = std::uint32_t(at);
            }
        }
    return where;
}

/// Max-pool backward through the ReLU before it, a thread per input: the window's gradient where this input is the
/// window's first maximum and passed the ReLU, else zero (odd edges, outside every window, too).
__global__ void poolBackwardKernel(
    const float* dOut, const float* reluOutput, int batch, int c, int h, int w, float* dIn)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_FOR_EACH(i, std::size_t(batch) * c * h * w)
    {
        const int x = int(i % w), y = int(i / w % h);
        const std::size_t plane = i / (std::size_t(w) * h);
        const float* p = reluOutput + plane * h * w;
        float g = 0.0f;
        if (y / 2 < oh && x / 2 < ow && firstMaximum(p, w, y / 2, x / 2) == std::uint32_t(y * w + x)
            && p[y * w + x] > 0.0f)
            g = dOut[(plane * oh + y / 2) * ow + x / 2];
        dIn[i] = g;
    }
}

/// The decisions fetch() reports: 1 where a ReLU output passed.
__global__ void reluDecisionKernel(const float* reluOutput, std::size_t count, std::uint8_t* passed)
{
    KS_CNN_FOR_EACH(i, count)
    {
        passed[i] = reluOutput[i] > 0.0f;
    }
}

/// The decisions fetch() reports: each window's chosen input within its plane, as poolBackwardKernel routes it.
__global__ void poolDecisionKernel(const float* in, int batch, int c, int h, int w, std::uint32_t* chosen)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_FOR_EACH(i, std::size_t(batch) * c * oh * ow)
    {
        const int x = int(i % ow), y = int(i / ow % oh);
        const std::size_t plane = i / (std::size_t(ow) * oh);
        chosen[i] = firstMaximum(in + plane * h * w, w, y, x);
    }
}

#undef KS_CNN_FOR_EACH

unsigned blocks(std::size_t items)
{
    return device::blocksFor(items, Policy::kThreads, 65'535);
}

/// Blocks for a warp per item.
unsigned warpBlocks(int items)
{
    return device::blocksFor(std::size_t(items), Policy::kThreads / 32);
}

/// The fastest of cudnnFind*'s results that ran, is deterministic and uses no tensor cores (the descriptor's FMA math
/// should already exclude them; a result that says otherwise is not taken).
template <class Perf> Perf fastestDeterministic(const Perf* results, int count, const std::string& what)
{
    for (int i = 0; i < count; ++i) {
        const Perf& p = results[i];
        if (p.status == CUDNN_STATUS_SUCCESS && p.determinism == CUDNN_DETERMINISTIC
            && p.mathType != CUDNN_TENSOR_OP_MATH && p.mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
            return p;
    }
    throw ComputeError("cuDNN has no deterministic float32 algorithm without tensor cores for " + what + " here ("
        + std::to_string(count) + " tried)");
}

/// One 3×3 convolution (pad 1) of the network: its descriptors and the algorithms cuDNN timed fastest for them.
struct ConvLayer {
    ConvLayer(cudnnHandle_t handle, const std::string& name, int batch, Shape in, int outC, bool inputGradient)
        : input(batch, in.c, in.h, in.w)
        , output(batch, outC, in.h, in.w)
        , pooled(batch, outC, in.h / 2, in.w / 2)
        , bias(1, outC, 1, 1)
        , filter(outC, in.c, 3, 3)
        , convolution(1, 1)
        , channels(outC)
        , plane(in.h * in.w)
    {
        const device::CudnnApi& api = device::cudnn();
        int found = 0;
        cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        KS_CUDNN_CHECK(api.findForward(handle, input.get(), filter.get(), convolution.get(), output.get(),
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, fwd));
        const auto f = fastestDeterministic(fwd, found, name + " forward");
        forward = f.algo;
        workspace = f.memory;
        cudnnConvolutionBwdFilterAlgoPerf_t bwdFilter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        KS_CUDNN_CHECK(api.findBackwardFilter(handle, input.get(), output.get(), convolution.get(), filter.get(),
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, bwdFilter));
        const auto bf = fastestDeterministic(bwdFilter, found, name + " backward filter");
        backwardFilter = bf.algo;
        workspace = std::max(workspace, bf.memory);
        if (inputGradient) {
            cudnnConvolutionBwdDataAlgoPerf_t bwdData[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
            KS_CUDNN_CHECK(api.findBackwardData(handle, filter.get(), output.get(), convolution.get(), input.get(),
                CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, bwdData));
            const auto bd = fastestDeterministic(bwdData, found, name + " backward data");
            backwardData = bd.algo;
            workspace = std::max(workspace, bd.memory);
        }
    }

    device::CudnnTensor input, output, pooled, bias;
    device::CudnnFilter filter;
    device::CudnnConvolution convolution;
    int channels = 0; ///< output channels
    int plane = 0; ///< values in an output plane (pad 1 keeps the input's height and width)
    cudnnConvolutionFwdAlgo_t forward = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    cudnnConvolutionBwdFilterAlgo_t backwardFilter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    cudnnConvolutionBwdDataAlgo_t backwardData = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    std::size_t workspace = 0;
};

class CudnnTrainingRun final : public LayeredTrainingRun {
public:
    CudnnTrainingRun(const data::Dataset& dataset, const ParamSet& params)
        : LayeredTrainingRun(dataset, params, Arithmetic::Fp32)
        , m_cudnn(stream())
        , m_cublas(stream())
        , m_pool(CUDNN_POOLING_MAX_DETERMINISTIC, 2, 2)
        , m_relu(CUDNN_ACTIVATION_RELU)
    {
        if (m_set.size() == 0)
            throw SkipRun("no images");
        const std::size_t b = std::size_t(m_settings.batch);
        const Shape in = m_layout.input(), c1 = m_layout.conv1Out(), p1 = m_layout.pool1Out();
        // cuDNN's 4-d descriptors count a tensor's elements in int.
        if (b * std::max(in.size(), c1.size()) > std::size_t(INT_MAX))
            throw SkipRun("cuDNN tensors of at most 2³¹ − 1 elements: batch × " + std::to_string(c1.size()) + " here");
        // Float32 products and sums in FMA: TF32 would need CUBLAS_TF32_TENSOR_OP_MATH or a TF32 compute type.
        KS_CUBLAS_CHECK(device::cublas().setMathMode(m_cublas.get(), CUBLAS_DEFAULT_MATH));

        device::requireDeviceMemory(stateFloats() * sizeof(float) + m_set.labels.size(),
            "cnn cudnn on " + std::to_string(m_set.size()) + " images at batch " + std::to_string(b));
        allocateState();
        allocateLayers(PoolChoices::NotKept);
        m_planeSums = device::DeviceBuffer<float>(b * Layout::kConv2);

        // cudnnFind* times every algorithm on buffers of its own; done once, untimed.
        const int batch = m_settings.batch;
        m_conv1Layer = std::make_unique<ConvLayer>(m_cudnn.get(), "conv1", batch, in, Layout::kConv1, false);
        m_conv2Layer = std::make_unique<ConvLayer>(m_cudnn.get(), "conv2", batch, p1, Layout::kConv2, true);
        m_workspace = device::DeviceBuffer<unsigned char>(std::max(m_conv1Layer->workspace, m_conv2Layer->workspace));
        reset();
    }

    /// One step's time per layer, then the algorithms cuDNN chose (its enum values) and its version.
    Facts facts() override
    {
        Facts facts = trainingFacts(*this);
        facts.emplace_back("cudnn conv1 forward algo", double(m_conv1Layer->forward));
        facts.emplace_back("cudnn conv1 backward filter algo", double(m_conv1Layer->backwardFilter));
        facts.emplace_back("cudnn conv2 forward algo", double(m_conv2Layer->forward));
        facts.emplace_back("cudnn conv2 backward filter algo", double(m_conv2Layer->backwardFilter));
        facts.emplace_back("cudnn conv2 backward data algo", double(m_conv2Layer->backwardData));
        facts.emplace_back("cudnn workspace bytes", double(m_workspace.bytes()));
        facts.emplace_back("cudnn version", double(device::cudnn().getVersion()));
        return facts;
    }

private:
    void update() override
    {
        launchSgd(m_parameters.data(), m_velocity.data(), m_gradient.data(), m_parameters.size(), float(m_settings.lr),
            float(m_settings.momentum), stream());
    }

    /// The decisions the backward pass followed, from the same tests it made (reluDecisionKernel, firstMaximum).
    Decisions decisions() override
    {
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        return {.relu1 = reluDecisions(m_conv1),
            .relu2 = reluDecisions(m_conv2),
            .relu3 = reluDecisions(m_fc1),
            .pool1 = poolDecisions(m_conv1, Layout::kConv1, in.h, in.w),
            .pool2 = poolDecisions(m_conv2, Layout::kConv2, p1.h, p1.w)};
    }

    std::vector<std::uint8_t> reluDecisions(const device::DeviceBuffer<float>& values)
    {
        device::DeviceBuffer<std::uint8_t> flags(values.size());
        reluDecisionKernel<<<blocks(values.size()), Policy::kThreads, 0, stream()>>>(
            values.data(), values.size(), flags.data());
        KS_CUDA_CHECK_LAUNCH("cnn cudnn reluDecisionKernel");
        std::vector<std::uint8_t> host(values.size());
        flags.downloadAsync(host, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return host;
    }

    std::vector<std::uint32_t> poolDecisions(const device::DeviceBuffer<float>& in, int c, int h, int w)
    {
        const std::size_t windows = std::size_t(m_settings.batch) * c * (h / 2) * (w / 2);
        device::DeviceBuffer<std::uint32_t> chosen(windows);
        poolDecisionKernel<<<blocks(windows), Policy::kThreads, 0, stream()>>>(
            in.data(), m_settings.batch, c, h, w, chosen.data());
        KS_CUDA_CHECK_LAUNCH("cnn cudnn poolDecisionKernel");
        std::vector<std::uint32_t> host(windows);
        chosen.downloadAsync(host, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return host;
    }

    /// C (m × n, column-major, ldc = m) = op(A) · op(B) in cuBLAS's column-major view of our row-major arrays.
    void sgemm(cublasOperation_t opA, cublasOperation_t opB, int m, int n, int k, const float* a, int lda,
        const float* b, int ldb, float* c)
    {
        const float one = 1.0f, zero = 0.0f;
        KS_CUBLAS_CHECK(device::cublas().sgemm(m_cublas.get(), opA, opB, m, n, k, &one, a, lda, b, ldb, &zero, c, m));
    }

    /// conv3×3 + bias + ReLU in one cuDNN call.
    void convForward(const ConvLayer& layer, const float* input, const char* weight, const char* bias, float* out)
    {
        const float one = 1.0f, zero = 0.0f;
        // z (scaled by alpha2 = 0) is the output itself: cuDNN allows it, and nothing is added.
        KS_CUDNN_CHECK(device::cudnn().convolutionBiasActivationForward(m_cudnn.get(), &one, layer.input.get(), input,
            layer.filter.get(), param(weight), layer.convolution.get(), layer.forward, m_workspace.data(),
            m_workspace.bytes(), &zero, layer.output.get(), out, layer.bias.get(), param(bias), m_relu.get(),
            layer.output.get(), out));
    }

    void poolForward(const ConvLayer& layer, const float* in, float* out)
    {
        const float one = 1.0f, zero = 0.0f;
        KS_CUDNN_CHECK(device::cudnn().poolingForward(
            m_cudnn.get(), m_pool.get(), &one, layer.output.get(), in, &zero, layer.pooled.get(), out));
    }

    /// The weight and bias gradients of a convolution from dOut (its pre-ReLU gradient), and its input gradient
    /// when `dIn` is given: the weights' and the input's through cuDNN, the bias's in two small kernels of ours.
    void convBackward(const ConvLayer& layer, const float* input, const float* dOut, const char* name, float* dIn)
    {
        const device::CudnnApi& api = device::cudnn();
        const float one = 1.0f, zero = 0.0f;
        const std::string weight = std::string(name) + ".weight", bias = std::string(name) + ".bias";
        KS_CUDNN_CHECK(api.convolutionBackwardFilter(m_cudnn.get(), &one, layer.input.get(), input, layer.output.get(),
            dOut, layer.convolution.get(), layer.backwardFilter, m_workspace.data(), m_workspace.bytes(), &zero,
            layer.filter.get(), grad(weight.c_str())));
        const int batch = m_settings.batch;
        planeSumKernel<<<unsigned(batch * layer.channels), Policy::kPlaneThreads, 0, stream()>>>(
            dOut, layer.plane, m_planeSums.data());
        KS_CUDA_CHECK_LAUNCH("cnn cudnn planeSumKernel");
        fcBiasGradKernel<<<warpBlocks(layer.channels), Policy::kThreads, 0, stream()>>>(
            m_planeSums.data(), nullptr, batch, layer.channels, grad(bias.c_str()));
        KS_CUDA_CHECK_LAUNCH("cnn cudnn fcBiasGradKernel (conv bias)");
        if (dIn)
            KS_CUDNN_CHECK(api.convolutionBackwardData(m_cudnn.get(), &one, layer.filter.get(), param(weight.c_str()),
                layer.output.get(), dOut, layer.convolution.get(), layer.backwardData, m_workspace.data(),
                m_workspace.bytes(), &zero, layer.input.get(), dIn));
    }

    void poolBackward(const float* dOut, const float* reluOutput, int c, int h, int w, float* dIn)
    {
        poolBackwardKernel<<<blocks(std::size_t(m_settings.batch) * c * h * w), Policy::kThreads, 0, stream()>>>(
            dOut, reluOutput, m_settings.batch, c, h, w, dIn);
        KS_CUDA_CHECK_LAUNCH("cnn cudnn poolBackwardKernel");
    }

    void forwardBackward(std::uint64_t step) override
    {
        const int b = m_settings.batch, threads = Policy::kThreads;
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const int features = m_layout.flatFeatures(), hidden = Layout::kHidden, classes = Layout::kClasses;
        const std::size_t nb = std::size_t(b);
        cudaStream_t s = stream();

        launchGather(m_images.data(), m_labels.data(), m_set.size(), m_set.imageSize(), step * nb, b,
            m_batchImages.data(), m_batchLabels.data(), s);
        mark("update");
        convForward(*m_conv1Layer, m_batchImages.data(), "conv1.weight", "conv1.bias", m_conv1.data());
        mark("conv1 forward");
        poolForward(*m_conv1Layer, m_conv1.data(), m_pool1.data());
        mark("pool1 forward");
        convForward(*m_conv2Layer, m_pool1.data(), "conv2.weight", "conv2.bias", m_conv2.data());
        mark("conv2 forward");
        poolForward(*m_conv2Layer, m_conv2.data(), m_pool2.data());
        mark("pool2 forward");
        // Row-major X [B, K] is column-major Xᵀ (K × B), and W [O, K] column-major Wᵀ (K × O): Yᵀ = W · Xᵀ.
        sgemm(CUBLAS_OP_T, CUBLAS_OP_N, hidden, b, features, param("fc1.weight"), features, m_pool2.data(), features,
            m_fc1.data());
        fcBiasKernel<<<blocks(m_fc1.size()), threads, 0, s>>>(m_fc1.data(), param("fc1.bias"), b, hidden, true);
        KS_CUDA_CHECK_LAUNCH("cnn cudnn fcBiasKernel 1");
        mark("fc1 forward");
        sgemm(CUBLAS_OP_T, CUBLAS_OP_N, classes, b, hidden, param("fc2.weight"), hidden, m_fc1.data(), hidden,
            m_logits.data());
        fcBiasKernel<<<blocks(m_logits.size()), threads, 0, s>>>(m_logits.data(), param("fc2.bias"), b, classes, false);
        KS_CUDA_CHECK_LAUNCH("cnn cudnn fcBiasKernel 2");
        mark("fc2 forward");
        launchSoftmaxLoss(m_logits.data(), m_batchLabels.data(), b, classes, m_dLogits.data(), m_losses.data(), s);
        mark("loss");

        // dWᵀ (K × O) = Xᵀ · dY, dY [B, O] being column-major dYᵀ; dXᵀ (K × B) = Wᵀ · dYᵀ.
        sgemm(CUBLAS_OP_N, CUBLAS_OP_T, hidden, classes, b, m_fc1.data(), hidden, m_dLogits.data(), classes,
            grad("fc2.weight"));
        fcBiasGradKernel<<<warpBlocks(classes), threads, 0, s>>>(
            m_dLogits.data(), nullptr, b, classes, grad("fc2.bias"));
        KS_CUDA_CHECK_LAUNCH("cnn cudnn fcBiasGradKernel 2");
        sgemm(CUBLAS_OP_N, CUBLAS_OP_N, hidden, b, classes, param("fc2.weight"), hidden, m_dLogits.data(), classes,
            m_dFc1.data());
        mark("fc2 backward");
        fcBiasGradKernel<<<warpBlocks(hidden), threads, 0, s>>>(
            m_dFc1.data(), m_fc1.data(), b, hidden, grad("fc1.bias"));
        KS_CUDA_CHECK_LAUNCH("cnn cudnn fcBiasGradKernel 1");
        sgemm(CUBLAS_OP_N, CUBLAS_OP_T, features, hidden, b, m_pool2.data(), features, m_dFc1.data(), hidden,
            grad("fc1.weight"));
        sgemm(CUBLAS_OP_N, CUBLAS_OP_N, features, b, hidden, param("fc1.weight"), features, m_dFc1.data(), hidden,
            m_dPool2.data());
        mark("fc1 backward");
        poolBackward(m_dPool2.data(), m_conv2.data(), Layout::kConv2, p1.h, p1.w, m_dConv2.data());
        mark("pool2 backward");
        convBackward(*m_conv2Layer, m_pool1.data(), m_dConv2.data(), "conv2", m_dPool1.data());
        mark("conv2 backward");
        poolBackward(m_dPool1.data(), m_conv1.data(), Layout::kConv1, in.h, in.w, m_dConv1.data());
        mark("pool1 backward");
        convBackward(*m_conv1Layer, m_batchImages.data(), m_dConv1.data(), "conv1", nullptr);
        mark("conv1 backward");
    }

    device::CudnnHandle m_cudnn;
    device::CublasHandle m_cublas;
    device::CudnnPooling m_pool;
    device::CudnnActivation m_relu;
    std::unique_ptr<ConvLayer> m_conv1Layer, m_conv2Layer;
    device::DeviceBuffer<unsigned char> m_workspace;
    device::DeviceBuffer<float> m_planeSums; ///< a convolution's bias gradient per (image, channel), summed after
};

} // namespace
} // namespace ks::cnn::vendor

namespace ks::cnn {

std::unique_ptr<PreparedRun> prepareCudnn(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return std::make_unique<vendor::CudnnTrainingRun>(d, p);
}

} // namespace ks::cnn
