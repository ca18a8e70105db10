// graph_fused: the whole cnn training step (the batch's gathering, forward, loss, backward, SGD) as one CUDA graph,
// instantiated once and launched once per step. The step number lives in device memory: the kernels that read the
// dataset compute the batch from it and the update kernel advances it, so the graph never changes and reset() only
// rewrites it.
//
// The layers are register-tiled float32 GEMMs (FFMA, no tensor cores) over shared-memory tiles, double-buffered
// through registers, each thread a TM × TN block of outputs:
// - conv + bias + ReLU + 2×2 max-pool in one kernel: an implicit GEMM whose rows are output pixels ordered window by
//   window, so that each thread holds whole pooling windows and writes only the pooled value and its choice (0–3);
// - conv weight gradients as a GEMM over K = batch·H·W with a deterministic split-K: each split writes its own slice,
//   the update kernel adds the slices in a fixed order before the SGD step (no atomics anywhere: reruns are
//   bit-identical);
// - max-pool backward and the ReLU masks fused into their neighbours: the FC1 input gradient kernel writes the
//   unpooled conv2 output gradient, the conv2 input gradient kernel masks by the pooled ReLU, and the conv1 weight
//   gradient reads only the chosen pixel of each window (a quarter of the dense products);
// - FC1 forward as a split-K GEMM; its reduction, bias, ReLU, FC2, softmax cross-entropy and the FC2 input gradient in
//   one kernel a sample per block; the batch reductions of the small gradients (FC2, the FC biases) in the update.
#include "compute/device/cuda_check.cuh"
#include "compute/device/device_info.h"
#include "compute/device/launch.cuh"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/device_training.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <tuple>
#include <utility>

namespace ks::cnn::graph_fused {

namespace {

/// A block's share of a GEMM: a BM × BN tile of C over K in steps of BK, each thread a TM × TN block of C in registers
/// (rows and columns in groups of 4, read from shared memory as float4); MinBlocks, blocks a multiprocessor should
/// hold at once (__launch_bounds__: fewer registers per thread for more warps to hide latency).
template <int BM, int BN, int BK, int TM, int TN, int MinBlocks = 1> struct Tile {
    static constexpr int kBM = BM, kBN = BN, kBK = BK, kTM = TM, kTN = TN, kMinBlocks = MinBlocks;
    static constexpr int kThreadCols = BN / TN;
    static constexpr int kThreads = (BM / TM) * (BN / TN);
    // Rows padded by 4 floats: stores whose k runs fastest across a warp spread over the banks, float4 reads stay
    // aligned.
    static constexpr int kStrideA = BM + 4;
    static constexpr int kStrideB = BN + 4;
    /// The C tile staged for the epilogue: an odd row stride, so that reads down a column spread over the banks.
    static constexpr int kStrideC = BN + 1;
    static constexpr int kPipelineFloats = 2 * BK * (kStrideA + kStrideB);
    static constexpr int kStagedFloats = BM * kStrideC;
    static constexpr int kSmemFloats = std::max(kPipelineFloats, kStagedFloats);
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BM % TM == 0 && BN % TN == 0, "whole float4 groups per thread");
};

/// graph_fused's tunables: each GEMM's tile, the conv1 weight gradient's staging, the split-K targets.
struct Policy {
    // Measured on an H100 at batch 128 against larger thread tiles (8×8, 8×4): these had the shortest kernels, their
    // registers leaving room for more warps.
    using Conv1Forward = Tile<128, 32, 9, 4, 8>;
    using Conv2Forward = Tile<64, 64, 18, 4, 8>;
    using Conv2InputGrad = Tile<64, 32, 36, 4, 4>;
    using Conv2WeightGrad = Tile<64, 64, 16, 4, 8>;
    using Fc1Forward = Tile<32, 32, 16, 4, 4>;
    using Fc1Backward = Tile<32, 32, 16, 4, 4>;
    /// Pooling windows staged in shared memory at a time by the conv1 weight gradient.
    static constexpr int kConv1GradStage = 32;
    /// The most input channels the conv1 weight gradient stages (the generator's largest).
    static constexpr int kMaxChannels = 16;
    /// Outputs per thread of the conv1 weight gradient: 32·(9·16 + 1) weights and biases over 1,024 threads.
    static constexpr int kConv1GradOutputs = 5;
    static constexpr int kConv1GradMaxThreads = 1024;
    /// Split-K: blocks aimed at per multiprocessor.
    static constexpr int kSplitBlocksPerSm = 4;
    static constexpr int kUpdateThreads = 256;
    /// The update's sums (over splits or samples) spread over enough lanes (up to a warp) that each adds at most this
    /// many terms: the loads of a lane in flight together, not one after another.
    static constexpr int kTermsPerLane = 8;
    /// The conv1 weight gradient's blocks aimed at per multiprocessor (a stage of windows each).
    static constexpr int kConv1GradBlocksPerSm = 16;
};

/// Where a convolution reads its input: `channels` planes of h × w per image. With `step`, image b of the batch is
/// dataset image (step·batch + b) mod images (the batch gathered on the fly); otherwise image b.
struct ConvSource {
    const float* data = nullptr;
    std::size_t imageStride = 0;
    int channels = 0;
    int h = 0;
    int w = 0;
    const std::uint64_t* step = nullptr;
    std::uint64_t images = 1;
    int batch = 0;
};

__device__ std::size_t imageOf(const ConvSource& s, int b)
{
    return s.step ? std::size_t((*s.step * std::uint64_t(s.batch) + std::uint64_t(b)) % s.images) : std::size_t(b);
}

/// Bit (sy + 1)·3 + (sx + 1) set where pixel (y + sy, x + sx) lies inside the h × w plane.
__device__ unsigned neighbours(int y, int x, int h, int w)
{
    unsigned valid = 0;
#pragma unroll
    for (int sy = -1; sy <= 1; ++sy)
#pragma unroll
        for (int sx = -1; sx <= 1; ++sx)
            if (y + sy >= 0 && y + sy < h && x + sx >= 0 && x + sx < w)
                valid |= 1u << ((sy + 1) * 3 + sx + 1);
    return valid;
}

// ---- operand loaders: each thread loads kCount elements of a BK-deep tile into registers, then stores them into the
// ---- shared tile [BK][rows + 4]

/// A row-major matrix: element (row, k) at p[row·ld + k] (KFast) or p[k·ld + row].
template <class P, int Rows, bool KFast> struct MatrixLoader {
    static constexpr int kStride = Rows + 4;
    static constexpr int kElements = Rows * P::kBK;
    static constexpr int kCount = (kElements + P::kThreads - 1) / P::kThreads;

    const float* p;
    int ld;
    int rowBegin;
    int rows;
    int kEnd;

    __device__ int rowOf(int e) const { return KFast ? e / P::kBK : e % Rows; }
    __device__ int kOf(int e) const { return KFast ? e % P::kBK : e / Rows; }
    __device__ void load(int k0, float (&r)[kCount]) const
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            const int e = int(threadIdx.x) + i * P::kThreads, row = rowBegin + rowOf(e), k = k0 + kOf(e);
            const bool inside = (kElements % P::kThreads == 0 || e < kElements) && row < rows && k < kEnd;
            r[i] = inside ? p[KFast ? std::size_t(row) * ld + k : std::size_t(k) * ld + row] : 0.0f;
        }
    }
    __device__ void store(const float (&r)[kCount], float* tile)
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            const int e = int(threadIdx.x) + i * P::kThreads;
            if (kElements % P::kThreads == 0 || e < kElements)
                tile[kOf(e) * kStride + rowOf(e)] = r[i];
        }
    }
};

/// im2col of a 3×3, pad-1 convolution by whole channels: row m an output pixel (window by window when `pooledOrder`:
/// 4 consecutive rows are one 2×2 window), k = channel·9 + ky·3 + kx, element in[channel, y + ky − 1, x + kx − 1]; with
/// Flip in[channel, y + 1 − ky, x + 1 − kx] instead (the input gradient's im2col of an output gradient). Tiles are
/// whole channels deep and a thread loads whole channels of one fixed row, so each of its loads is a predicated load
/// at a tap offset fixed at compile time, from a pixel and neighbourhood worked out once.
template <class P, bool Flip> struct Im2colLoader {
    static constexpr int kRowCopies = P::kThreads / P::kBM;
    static constexpr int kCount = P::kBK / kRowCopies;
    static_assert(P::kThreads % P::kBM == 0 && P::kBK % kRowCopies == 0 && kCount % 9 == 0,
        "whole channels of a fixed row per thread");

    const float* base = nullptr; ///< channel 0 at this thread's pixel
    int plane = 0;
    int w = 0;
    int channels = 0;
    int kFirst = 0; ///< this thread's first k within a tile
    unsigned valid = 0;

    __device__ Im2colLoader(const ConvSource& s, int m, int rows, bool pooledOrder)
        : plane(s.h * s.w)
        , w(s.w)
        , channels(s.channels)
        , kFirst(int(threadIdx.x) / P::kBM * kCount)
    {
        base = s.data;
        if (m >= rows)
            return;
        int b = 0, y = 0, x = 0;
        if (pooledOrder) {
            const int oh = s.h / 2, ow = s.w / 2, window = m >> 2, d = m & 3;
            b = window / (oh * ow);
            const int r = window - b * oh * ow, py = r / ow;
            y = 2 * py + (d >> 1);
            x = 2 * (r - py * ow) + (d & 1);
        } else {
            b = m / plane;
            const int r = m - b * plane;
            y = r / s.w;
            x = r - y * s.w;
        }
        base = s.data + imageOf(s, b) * s.imageStride + std::size_t(y) * s.w + x;
        valid = neighbours(y, x, s.h, s.w);
    }
    static constexpr int tapY(int t) { return Flip ? 1 - t / 3 : t / 3 - 1; }
    static constexpr int tapX(int t) { return Flip ? 1 - t % 3 : t % 3 - 1; }
    __device__ void load(int k0, float (&r)[kCount]) const
    {
        const int ch0 = (k0 + kFirst) / 9;
#pragma unroll
        for (int c = 0; c < kCount / 9; ++c) {
            const bool inside = ch0 + c < channels;
            const float* at = base + std::ptrdiff_t(ch0 + c) * plane;
#pragma unroll
            for (int t = 0; t < 9; ++t) {
                const bool tap = (valid >> ((tapY(t) + 1) * 3 + tapX(t) + 1)) & 1u;
                r[9 * c + t] = inside && tap ? at[tapY(t) * w + tapX(t)] : 0.0f;
            }
        }
    }
    __device__ void store(const float (&r)[kCount], float* tile)
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i)
            tile[(kFirst + i) * P::kStrideA + int(threadIdx.x) % P::kBM] = r[i];
    }
};

/// The input gradient's weights: k = o·9 + ky·3 + kx, column n an input channel, element w[o, n, ky, kx].
template <class P> struct TransposedWeightLoader {
    static constexpr int kElements = P::kBN * P::kBK;
    static constexpr int kCount = (kElements + P::kThreads - 1) / P::kThreads;

    const float* weight;
    int inC;
    int nBegin;
    int kEnd;

    __device__ void load(int k0, float (&r)[kCount]) const
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            const int e = int(threadIdx.x) + i * P::kThreads, n = nBegin + e % P::kBN, k = k0 + e / P::kBN;
            const int o = k / 9;
            const bool inside = (kElements % P::kThreads == 0 || e < kElements) && n < inC && k < kEnd;
            r[i] = inside ? weight[(std::size_t(o) * inC + n) * 9 + (k - 9 * o)] : 0.0f;
        }
    }
    __device__ void store(const float (&r)[kCount], float* tile)
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            const int e = int(threadIdx.x) + i * P::kThreads;
            if (kElements % P::kThreads == 0 || e < kElements)
                tile[(e / P::kBN) * P::kStrideB + e % P::kBN] = r[i];
        }
    }
};

/// The weight gradient's A: row o an output channel, k = b·plane + pixel, element dOut[b, o, pixel]. A thread keeps
/// the sums of what it stored per row: the bias gradient's share of its k lane.
template <class P> struct OutputGradLoader {
    static constexpr int kCount = P::kBM * P::kBK / P::kThreads;
    static constexpr int kRowStep = P::kThreads / P::kBK;
    static_assert(P::kThreads % P::kBK == 0 && P::kBM * P::kBK % P::kThreads == 0, "a fixed k lane per thread");

    const float* dOut;
    int channels;
    int rowBegin;
    int plane;
    int kEnd;
    float rowSum[kCount] = {};

    __device__ void load(int k0, float (&r)[kCount]) const
    {
        const int k = k0 + int(threadIdx.x) % P::kBK;
        const int b = k / plane;
        const float* at = dOut + std::size_t(b) * channels * plane + (k - b * plane);
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            const int o = rowBegin + int(threadIdx.x) / P::kBK + i * kRowStep;
            r[i] = k < kEnd && o < channels ? at[std::size_t(o) * plane] : 0.0f;
        }
    }
    __device__ void store(const float (&r)[kCount], float* tile)
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            tile[(int(threadIdx.x) % P::kBK) * P::kStrideA + int(threadIdx.x) / P::kBK + i * kRowStep] = r[i];
            rowSum[i] += r[i];
        }
    }
};

/// One column of the weight gradient's B: where tap (ch, ky, kx) lies from a pixel of channel 0, and its bit in
/// neighbours().
struct PatchColumn {
    int offset;
    int tap;
};

/// The weight gradient's B: k = b·plane + y·w + x, column n = channel·9 + ky·3 + kx, element
/// in[b, channel, y + ky − 1, x + kx − 1]; the block's columns come from a table in shared memory.
template <class P> struct PatchLoader {
    static constexpr int kCount = P::kBN * P::kBK / P::kThreads;
    static constexpr int kColStep = P::kThreads / P::kBK;
    static_assert(P::kThreads % P::kBK == 0 && P::kBN * P::kBK % P::kThreads == 0, "a fixed k lane per thread");

    const float* in;
    const PatchColumn* columns;
    int channels;
    int h;
    int w;
    int kEnd;
    int nBegin;
    int nEnd;

    __device__ void load(int k0, float (&r)[kCount]) const
    {
        const int k = k0 + int(threadIdx.x) % P::kBK, plane = h * w;
        unsigned valid = 0;
        const float* at = in;
        if (k < kEnd) {
            const int b = k / plane, p = k - b * plane, y = p / w, x = p - y * w;
            at = in + std::size_t(b) * channels * plane + std::size_t(y) * w + x;
            valid = neighbours(y, x, h, w);
        }
#pragma unroll
        for (int i = 0; i < kCount; ++i) {
            const int n = nBegin + int(threadIdx.x) / P::kBK + i * kColStep;
            float v = 0.0f;
            if (n < nEnd) {
                const PatchColumn c = columns[n - nBegin];
                if ((valid >> c.tap) & 1u)
                    v = at[c.offset];
            }
            r[i] = v;
        }
    }
    __device__ void store(const float (&r)[kCount], float* tile)
    {
#pragma unroll
        for (int i = 0; i < kCount; ++i)
            tile[(int(threadIdx.x) % P::kBK) * P::kStrideB + int(threadIdx.x) / P::kBK + i * kColStep] = r[i];
    }
};

// ---- the block GEMM --------------------------------------------------------------------------------------------

/// Row (within the block's tile) of a thread's i-th accumulator row: TM / 4 groups of 4 consecutive rows.
template <class P> __device__ int tileRow(int i)
{
    return (i / 4) * (P::kBM / (P::kTM / 4)) + int(threadIdx.x) / P::kThreadCols * 4 + i % 4;
}

template <class P> __device__ int tileCol(int j)
{
    return (j / 4) * (P::kBN / (P::kTN / 4)) + int(threadIdx.x) % P::kThreadCols * 4 + j % 4;
}

/// acc = A·B over k in [kBegin, kEnd) (uniform across the block): tiles double-buffered in `smem`
/// (Tile::kSmemFloats), the next tile's global loads in flight while the current one is multiplied. Ends with a
/// barrier, so the caller may reuse `smem`.
template <class P, class LoadA, class LoadB>
__device__ void accumulate(LoadA& a, LoadB& b, int kBegin, int kEnd, float* smem, float (&acc)[P::kTM][P::kTN])
{
#pragma unroll
    for (int i = 0; i < P::kTM; ++i)
#pragma unroll
        for (int j = 0; j < P::kTN; ++j)
            acc[i][j] = 0.0f;
    if (kBegin >= kEnd)
        return;
    constexpr int kTileA = P::kBK * P::kStrideA, kTileB = P::kBK * P::kStrideB;
    float* tileA = smem;
    float* tileB = smem + 2 * kTileA;
    const int rowBase = int(threadIdx.x) / P::kThreadCols * 4, colBase = int(threadIdx.x) % P::kThreadCols * 4;
    float ra[LoadA::kCount];
    float rb[LoadB::kCount];
    a.load(kBegin, ra);
    b.load(kBegin, rb);
    a.store(ra, tileA);
    b.store(rb, tileB);
    __syncthreads();
    int stage = 0;
    for (int k0 = kBegin; k0 < kEnd; k0 += P::kBK) {
        const bool more = k0 + P::kBK < kEnd;
        if (more) {
            a.load(k0 + P::kBK, ra);
            b.load(k0 + P::kBK, rb);
        }
        const float* as = tileA + stage * kTileA;
        const float* bs = tileB + stage * kTileB;
#pragma unroll
        for (int k = 0; k < P::kBK; ++k) {
            float av[P::kTM], bv[P::kTN];
#pragma unroll
            for (int g = 0; g < P::kTM / 4; ++g) {
                const float4 v
                    = *reinterpret_cast<const float4*>(as + k * P::kStrideA + g * (P::kBM / (P::kTM / 4)) + rowBase);
                av[4 * g] = v.x;
                av[4 * g + 1] = v.y;
                av[4 * g + 2] = v.z;
                av[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < P::kTN / 4; ++g) {
                const float4 v
                    = *reinterpret_cast<const float4*>(bs + k * P::kStrideB + g * (P::kBN / (P::kTN / 4)) + colBase);
                bv[4 * g] = v.x;
                bv[4 * g + 1] = v.y;
                bv[4 * g + 2] = v.z;
                bv[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < P::kTM; ++i)
#pragma unroll
                for (int j = 0; j < P::kTN; ++j)
                    acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        if (more) {
            a.store(ra, tileA + (stage ^ 1) * kTileA);
            b.store(rb, tileB + (stage ^ 1) * kTileB);
        }
        __syncthreads();
        stage ^= 1;
    }
}

/// The block's C tile into shared memory ([BM][kStrideC]), so that the epilogue can walk it in the order its outputs
/// lie in memory (coalesced) rather than in the order the threads hold it. Call after accumulate(); ends with a
/// barrier.
template <class P> __device__ void stageTile(const float (&acc)[P::kTM][P::kTN], float* smem)
{
#pragma unroll
    for (int i = 0; i < P::kTM; ++i)
#pragma unroll
        for (int j = 0; j < P::kTN; ++j)
            smem[tileRow<P>(i) * P::kStrideC + tileCol<P>(j)] = acc[i][j];
    __syncthreads();
}

/// Σ term(i) for i = first, first + stride, … below end, added in that order, the loads issued 8 at a time so that
/// their latencies overlap.
template <class F> __device__ float orderedSum(int first, int end, int stride, F term)
{
    float sum = 0.0f;
    int i = first;
    for (; i + 7 * stride < end; i += 8 * stride) {
        float v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u)
            v[u] = term(i + u * stride);
#pragma unroll
        for (int u = 0; u < 8; ++u)
            sum += v[u];
    }
    for (; i < end; i += stride)
        sum += term(i);
    return sum;
}

// ---- forward ---------------------------------------------------------------------------------------------------

/// conv 3×3 + bias + ReLU + 2×2 max-pool: the pooled value and its window's choice (0–3, row-major, the first maximum
/// on ties); with `full` (fetch only) every window pixel's ReLU output too.
template <class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks) convReluPoolKernel(
    ConvSource in, const float* weight, const float* bias, int outC, float* pooled, std::uint8_t* choice, float* full)
{
    __shared__ alignas(16) float smem[P::kSmemFloats];
    const int oh = in.h / 2, ow = in.w / 2, rows = in.batch * oh * ow * 4, k = in.channels * 9;
    const int m0 = int(blockIdx.x) * P::kBM, n0 = int(blockIdx.y) * P::kBN;
    Im2colLoader<P, false> a(in, m0 + int(threadIdx.x) % P::kBM, rows, true);
    MatrixLoader<P, P::kBN, true> b {weight, k, n0, outC, k};
    float acc[P::kTM][P::kTN];
    accumulate<P>(a, b, 0, k, smem, acc);
    stageTile<P>(acc, smem);

    // A thread per (window, channel), consecutive windows on consecutive threads.
    constexpr int kWindows = P::kBM / 4;
    for (int t = int(threadIdx.x); t < kWindows * P::kBN; t += P::kThreads) {
        const int local = t % kWindows, col = t / kWindows, m = m0 + 4 * local, n = n0 + col;
        if (m >= rows || n >= outC)
            continue;
        const int window = m >> 2, bi = window / (oh * ow), r = window - bi * oh * ow, py = r / ow, px = r - py * ow;
        const float bn = bias[n];
        float best = 0.0f;
        int where = 0;
#pragma unroll
        for (int d = 0; d < 4; ++d) {
            const float s = smem[(4 * local + d) * P::kStrideC + col] + bn;
            const float v = s > 0.0f ? s : 0.0f;
            if (d == 0 || v > best) {
                best = v;
                where = d;
            }
            if (full)
                full[((std::size_t(bi) * outC + n) * in.h + 2 * py + (d >> 1)) * in.w + 2 * px + (d & 1)] = v;
        }
        const std::size_t at = ((std::size_t(bi) * outC + n) * oh + py) * ow + px;
        pooled[at] = best;
        choice[at] = std::uint8_t(where);
    }
}

/// conv 3×3 + bias + ReLU at every pixel, odd edges included, a thread per output (fetch only: the ReLU decisions of
/// pixels no window covers; the fused kernel rewrites the others with its own values).
__global__ void convReluKernel(ConvSource in, const float* weight, const float* bias, int outC, float* out)
{
    const std::size_t count = std::size_t(in.batch) * outC * in.h * in.w;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int x = int(i % in.w), y = int(i / in.w % in.h), o = int(i / (std::size_t(in.w) * in.h) % outC);
        const int b = int(i / (std::size_t(in.w) * in.h * outC));
        const float* image = in.data + imageOf(in, b) * in.imageStride;
        float sum = bias[o];
        for (int ch = 0; ch < in.channels; ++ch)
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int iy = y + ky - 1, ix = x + kx - 1;
                    if (iy >= 0 && iy < in.h && ix >= 0 && ix < in.w)
                        sum += weight[((o * in.channels + ch) * 3 + ky) * 3 + kx]
                            * image[(std::size_t(ch) * in.h + iy) * in.w + ix];
                }
        out[i] = sum > 0.0f ? sum : 0.0f;
    }
}

/// FC1 forward, split s of K: partials[s][b][j] = Σ_{f in the split} in[b, f]·w[j, f].
template <class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks) fcForwardSplitKernel(
    const float* in, const float* weight, int batch, int inputs, int outputs, int chunk, float* partials)
{
    __shared__ alignas(16) float smem[P::kSmemFloats];
    const int m0 = int(blockIdx.x) * P::kBM, n0 = int(blockIdx.y) * P::kBN;
    const int kBegin = int(blockIdx.z) * chunk, kEnd = min(inputs, kBegin + chunk);
    MatrixLoader<P, P::kBM, true> a {in, inputs, m0, batch, kEnd};
    MatrixLoader<P, P::kBN, true> b {weight, inputs, n0, outputs, kEnd};
    float acc[P::kTM][P::kTN];
    accumulate<P>(a, b, kBegin, kEnd, smem, acc);
    float* slice = partials + std::size_t(blockIdx.z) * batch * outputs;
#pragma unroll
    for (int i = 0; i < P::kTM; ++i) {
        const int row = m0 + tileRow<P>(i);
#pragma unroll
        for (int j = 0; j < P::kTN; ++j) {
            const int col = n0 + tileCol<P>(j);
            if (row < batch && col < outputs)
                slice[std::size_t(row) * outputs + col] = acc[i][j];
        }
    }
}

/// Sum over the warp by a fixed butterfly: the same order every run.
__device__ float warpSum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(device::kFullWarpMask, v, offset);
    return v;
}

/// The network's head for one sample (a block of kHidden threads): FC1's split-K partials summed in split order,
/// bias, ReLU; FC2; softmax cross-entropy; dLogits = (softmax − one-hot) / batch; the hidden layer's gradient,
/// masked by its ReLU.
__device__ void headSample(const float* partials, int splits, int batch, const float* fc1Bias, const float* fc2Weight,
    const float* fc2Bias, const std::uint8_t* labels, const std::uint64_t* step, std::uint64_t images, float* hidden,
    float* dLogits, float* dHidden, float* losses)
{
    constexpr int kH = Layout::kHidden, kC = Layout::kClasses, kWarps = kH / 32;
    __shared__ float warpParts[kWarps][kC];
    __shared__ float gradient[kC];
    const int b = int(blockIdx.x), j = int(threadIdx.x), lane = j % 32, warp = j / 32;
    const float sum
        = fc1Bias[j] + orderedSum(0, splits, 1, [&](int s) { return partials[(std::size_t(s) * batch + b) * kH + j]; });
    const float h = sum > 0.0f ? sum : 0.0f;
    hidden[std::size_t(b) * kH + j] = h;
#pragma unroll
    for (int c = 0; c < kC; ++c) {
        const float v = warpSum(fc2Weight[c * kH + j] * h);
        if (lane == 0)
            warpParts[warp][c] = v;
    }
    __syncthreads();
    if (j == 0) {
        float z[kC];
        float largest = -INFINITY;
        for (int c = 0; c < kC; ++c) {
            float v = fc2Bias[c];
            for (int w = 0; w < kWarps; ++w)
                v += warpParts[w][c];
            z[c] = v;
            largest = fmaxf(largest, v);
        }
        float total = 0.0f;
        for (int c = 0; c < kC; ++c)
            total += expf(z[c] - largest);
        const float logSum = largest + logf(total);
        const int label = labels[(*step * std::uint64_t(batch) + std::uint64_t(b)) % images];
        losses[b] = logSum - z[label];
        for (int c = 0; c < kC; ++c) {
            gradient[c] = (expf(z[c] - logSum) - (c == label ? 1.0f : 0.0f)) / float(batch);
            dLogits[b * kC + c] = gradient[c];
        }
    }
    __syncthreads();
    float d = 0.0f;
#pragma unroll
    for (int c = 0; c < kC; ++c)
        d += gradient[c] * fc2Weight[c * kH + j];
    dHidden[std::size_t(b) * kH + j] = h > 0.0f ? d : 0.0f;
}

__global__ void __launch_bounds__(Layout::kHidden) headKernel(const float* partials, int splits, int batch,
    const float* fc1Bias, const float* fc2Weight, const float* fc2Bias, const std::uint8_t* labels,
    const std::uint64_t* step, std::uint64_t images, float* hidden, float* dLogits, float* dHidden, float* losses)
{
    headSample(
        partials, splits, batch, fc1Bias, fc2Weight, fc2Bias, labels, step, images, hidden, dLogits, dHidden, losses);
}

// ---- backward ---------------------------------------------------------------------------------------------------

/// The pooled conv2 layer's shape, for FC1's input gradient to unpool into.
struct PoolShape {
    int channels = 0;
    int h = 0; ///< the conv output's
    int w = 0;
};

/// FC1 backward in one launch: the first blocks compute dW[j, f] = Σ_b dHidden[b, j]·in[b, f] (written straight into
/// the gradient), the others dIn[b, f] = Σ_j dHidden[b, j]·w[j, f], masked by the pooled ReLU and written unpooled
/// into conv2's output gradient (the chosen pixel of each window; the other three 0).
template <class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    fcBackwardKernel(const float* dHidden, const float* in, const float* weight, const std::uint8_t* choice, int batch,
        int inputs, int hiddenUnits, PoolShape pool, float* dWeight, float* dConv)
{
    __shared__ alignas(16) float smem[P::kSmemFloats];
    const int colTiles = (inputs + P::kBN - 1) / P::kBN;
    const int weightTiles = (hiddenUnits + P::kBM - 1) / P::kBM * colTiles;
    float acc[P::kTM][P::kTN];
    if (int(blockIdx.x) < weightTiles) {
        const int m0 = int(blockIdx.x) / colTiles * P::kBM, n0 = int(blockIdx.x) % colTiles * P::kBN;
        MatrixLoader<P, P::kBM, false> a {dHidden, hiddenUnits, m0, hiddenUnits, batch};
        MatrixLoader<P, P::kBN, false> b {in, inputs, n0, inputs, batch};
        accumulate<P>(a, b, 0, batch, smem, acc);
        stageTile<P>(acc, smem);
        for (int t = int(threadIdx.x); t < P::kBM * P::kBN; t += P::kThreads) {
            const int row = m0 + t / P::kBN, col = n0 + t % P::kBN;
            if (row < hiddenUnits && col < inputs)
                dWeight[std::size_t(row) * inputs + col] = smem[(t / P::kBN) * P::kStrideC + t % P::kBN];
        }
        return;
    }
    const int tile = int(blockIdx.x) - weightTiles;
    const int m0 = tile / colTiles * P::kBM, n0 = tile % colTiles * P::kBN;
    MatrixLoader<P, P::kBM, true> a {dHidden, hiddenUnits, m0, batch, hiddenUnits};
    MatrixLoader<P, P::kBN, false> b {weight, inputs, n0, inputs, hiddenUnits};
    accumulate<P>(a, b, 0, hiddenUnits, smem, acc);
    stageTile<P>(acc, smem);
    const int oh = pool.h / 2, ow = pool.w / 2, q = oh * ow;
    // Consecutive features on consecutive threads: the windows they unpool into lie side by side.
    for (int t = int(threadIdx.x); t < P::kBM * P::kBN; t += P::kThreads) {
        const int row = m0 + t / P::kBN, col = n0 + t % P::kBN;
        if (row >= batch || col >= inputs)
            continue;
        const std::size_t at = std::size_t(row) * inputs + col;
        const float v = in[at] > 0.0f ? smem[(t / P::kBN) * P::kStrideC + t % P::kBN] : 0.0f;
        const int where = choice[at], o = col / q, r = col - o * q, py = r / ow, px = r - py * ow;
        float* window = dConv + ((std::size_t(row) * pool.channels + o) * pool.h + 2 * py) * pool.w + 2 * px;
        window[0] = where == 0 ? v : 0.0f;
        window[1] = where == 1 ? v : 0.0f;
        window[pool.w] = where == 2 ? v : 0.0f;
        window[pool.w + 1] = where == 3 ? v : 0.0f;
    }
}

/// conv2's input gradient as an implicit GEMM over the flipped im2col of its output gradient, masked by the ReLU
/// before pool1 (the pooled value is the ReLU output at the window's chosen pixel): the pooled layer's gradient,
/// ready for the conv1 weight gradient to read at each window's choice.
template <class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    convInputGradKernel(ConvSource dOut, const float* weight, int inC, const float* pooled, float* dIn)
{
    __shared__ alignas(16) float smem[P::kSmemFloats];
    const int plane = dOut.h * dOut.w, rows = dOut.batch * plane, k = dOut.channels * 9;
    const int m0 = int(blockIdx.x) * P::kBM, n0 = int(blockIdx.y) * P::kBN;
    Im2colLoader<P, true> a(dOut, m0 + int(threadIdx.x) % P::kBM, rows, false);
    TransposedWeightLoader<P> b {weight, inC, n0, k};
    float acc[P::kTM][P::kTN];
    accumulate<P>(a, b, 0, k, smem, acc);
    stageTile<P>(acc, smem);
    // Consecutive pixels on consecutive threads.
    for (int t = int(threadIdx.x); t < P::kBM * P::kBN; t += P::kThreads) {
        const int local = t % P::kBM, col = t / P::kBM, m = m0 + local, n = n0 + col;
        if (m >= rows || n >= inC)
            continue;
        const int bi = m / plane;
        const std::size_t at = (std::size_t(bi) * inC + n) * plane + (m - bi * plane);
        dIn[at] = pooled[at] > 0.0f ? smem[local * P::kStrideC + col] : 0.0f;
    }
}

/// conv2's weight gradient, split z of K = batch·plane: partials[z] holds dW[o, ch·9 + ky·3 + kx] over the split, then
/// (from the blocks of the first column tile) the bias gradient's share, the row sums of the output gradient.
template <class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks) convWeightGradSplitKernel(
    const float* dOut, const float* in, int batch, int inC, int outC, int h, int w, int chunk, float* partials)
{
    __shared__ alignas(16) float smem[P::kSmemFloats];
    __shared__ PatchColumn table[P::kBN];
    static_assert(P::kBM * (P::kBK + 1) <= P::kSmemFloats, "room for the bias rows");
    const int plane = h * w, total = batch * plane, columns = inC * 9;
    const int m0 = int(blockIdx.x) * P::kBM, n0 = int(blockIdx.y) * P::kBN;
    const int kBegin = int(blockIdx.z) * chunk, kEnd = min(total, kBegin + chunk);
    for (int c = int(threadIdx.x); c < P::kBN; c += P::kThreads) {
        const int n = n0 + c, ch = n / 9, ky = n % 9 / 3, kx = n % 3;
        table[c] = {ch * plane + (ky - 1) * w + kx - 1, ky * 3 + kx};
    }
    __syncthreads();
    OutputGradLoader<P> a {dOut, outC, m0, plane, kEnd};
    PatchLoader<P> b {in, table, inC, h, w, kEnd, n0, columns};
    float acc[P::kTM][P::kTN];
    accumulate<P>(a, b, kBegin, kEnd, smem, acc);
    float* slice = partials + std::size_t(blockIdx.z) * (std::size_t(outC) * columns + outC);
#pragma unroll
    for (int i = 0; i < P::kTM; ++i) {
        const int o = m0 + tileRow<P>(i);
#pragma unroll
        for (int j = 0; j < P::kTN; ++j) {
            const int n = n0 + tileCol<P>(j);
            if (o < outC && n < columns)
                slice[std::size_t(o) * columns + n] = acc[i][j];
        }
    }
    if (blockIdx.y != 0)
        return;
    // The bias: each thread's row sums over its k lane, then the lanes of a row added in lane order.
    constexpr int kLanes = P::kBK + 1;
#pragma unroll
    for (int i = 0; i < OutputGradLoader<P>::kCount; ++i)
        smem[(int(threadIdx.x) / P::kBK + i * OutputGradLoader<P>::kRowStep) * kLanes + int(threadIdx.x) % P::kBK]
            = a.rowSum[i];
    __syncthreads();
    const int o = m0 + int(threadIdx.x);
    if (int(threadIdx.x) < P::kBM && o < outC) {
        float sum = 0.0f;
        for (int lane = 0; lane < P::kBK; ++lane)
            sum += smem[int(threadIdx.x) * kLanes + lane];
        slice[std::size_t(outC) * columns + o] = sum;
    }
}

/// conv1's weight and bias gradients over block x's pooling windows, reading only each window's chosen pixel of the
/// output gradient (`dPooled`, already masked by the ReLU): dW[o, ch, ky, kx] = Σ g·in[ch, y + ky − 1, x + kx − 1]
/// at the chosen (y, x). Windows are staged kConv1GradStage at a time with the 4×4 input patches around them; each
/// thread owns up to kConv1GradOutputs weights, summed in window order into partials[x].
__global__ void conv1WeightGradKernel(
    ConvSource in, const float* dPooled, const std::uint8_t* choice, int outC, int chunk, float* partials)
{
    constexpr int kStage = Policy::kConv1GradStage, kOut = Layout::kConv1;
    __shared__ float gradient[kOut][kStage + 1];
    __shared__ std::uint8_t chosen[kOut][kStage + 4];
    __shared__ float patch[kStage * Policy::kMaxChannels * 16];
    __shared__ std::size_t windowImage[kStage]; ///< where the window's image starts in the dataset
    __shared__ int windowGrad[kStage]; ///< the window's output gradient in channel 0
    __shared__ int windowY[kStage]; ///< the top left corner of its 4×4 input patch
    __shared__ int windowX[kStage];
    const int oh = in.h / 2, ow = in.w / 2, q = oh * ow, windows = in.batch * q, c = in.channels;
    const int weights = outC * c * 9, total = weights + outC, threads = int(blockDim.x), t0 = int(threadIdx.x);
    const int begin = int(blockIdx.x) * chunk, end = min(windows, begin + chunk);
    float acc[Policy::kConv1GradOutputs] = {};
    for (int w0 = begin; w0 < end; w0 += kStage) {
        const int count = min(kStage, end - w0);
        for (int s = t0; s < count; s += threads) {
            const int window = w0 + s, b = window / q, r = window - b * q, py = r / ow;
            windowImage[s] = imageOf(in, b) * in.imageStride;
            windowGrad[s] = b * outC * q + r;
            windowY[s] = 2 * py - 1;
            windowX[s] = 2 * (r - py * ow) - 1;
        }
        __syncthreads();
        for (int t = t0; t < kStage * kOut; t += threads) {
            const int s = t % kStage, o = t / kStage;
            float g = 0.0f;
            std::uint8_t d = 0;
            if (s < count) {
                g = dPooled[windowGrad[s] + o * q];
                d = choice[windowGrad[s] + o * q];
            }
            gradient[o][s] = g;
            chosen[o][s] = d;
        }
        for (int t = t0; t < kStage * c * 16; t += threads) {
            const int s = t / (c * 16), rest = t - s * c * 16, ch = rest / 16, cell = rest % 16;
            float v = 0.0f;
            if (s < count) {
                const int y = windowY[s] + cell / 4, x = windowX[s] + cell % 4;
                if (y >= 0 && y < in.h && x >= 0 && x < in.w)
                    v = in.data[windowImage[s] + (std::size_t(ch) * in.h + y) * in.w + x];
            }
            patch[t] = v;
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < Policy::kConv1GradOutputs; ++r) {
            const int e = t0 + r * threads;
            if (e < weights) {
                const int o = e / (c * 9), rest = e - o * c * 9, ch = rest / 9, r9 = rest - 9 * ch;
                const int cell = r9 / 3 * 4 + r9 % 3;
                float sum = acc[r];
                for (int s = 0; s < count; ++s) {
                    const int d = chosen[o][s];
                    sum += gradient[o][s] * patch[(s * c + ch) * 16 + cell + (d >> 1) * 4 + (d & 1)];
                }
                acc[r] = sum;
            } else if (e < total) {
                float sum = acc[r];
                for (int s = 0; s < count; ++s)
                    sum += gradient[e - weights][s];
                acc[r] = sum;
            }
        }
        __syncthreads();
    }
    float* slice = partials + std::size_t(blockIdx.x) * total;
#pragma unroll
    for (int r = 0; r < Policy::kConv1GradOutputs; ++r) {
        const int e = t0 + r * threads;
        if (e < total)
            slice[e] = acc[r];
    }
}

// ---- update ------------------------------------------------------------------------------------------------------

/// Where one parameter tensor lives and where its gradient comes from.
struct Segment {
    enum Source : int {
        Direct, ///< already in the gradient (FC1's weights)
        Splits, ///< the sum of split-K slices: `parts` holds `splits` slices of `sliceSize`, this tensor at `first`
        HiddenBias, ///< Σ_b dHidden[b, j]
        OutWeight, ///< Σ_b dLogits[b, c]·hidden[b, j]
        OutBias, ///< Σ_b dLogits[b, c]
    };
    Source source = Direct;
    std::size_t offset = 0;
    int count = 0;
    const float* parts = nullptr;
    int splits = 0;
    int sliceSize = 0;
    int first = 0;
    /// Threads per parameter (1, 2, 4, … 32, a power of two): lane l adds terms l, l + lanes, … in order, then the
    /// lanes are combined by a fixed butterfly.
    int lanes = 1;
    int firstBlock = 0; ///< the update grid's blocks from here to the next segment's work on this tensor
};

struct UpdateArgs {
    static constexpr int kSegments = 8;
    Segment segments[kSegments];
    int blocks = 0; ///< the grid's blocks, all segments'

    float* parameters = nullptr;
    float* velocity = nullptr;
    float* gradient = nullptr;
    const float* hidden = nullptr;
    const float* dLogits = nullptr;
    const float* dHidden = nullptr;
    const float* losses = nullptr;
    int batch = 0;
    float lr = 0.0f;
    float momentum = 0.0f;
    std::uint64_t* step = nullptr;
    double* loss = nullptr; ///< pinned host memory: the step's mean loss
};

/// Lane `lane` of `lanes`' share of parameter e's gradient: the terms lane, lane + lanes, … in order.
__device__ float gradientShare(const UpdateArgs& u, const Segment& s, int e, int lane, int lanes)
{
    constexpr int kH = Layout::kHidden, kC = Layout::kClasses;
    switch (s.source) {
    case Segment::Direct:
        return lane == 0 ? u.gradient[s.offset + e] : 0.0f;
    case Segment::Splits:
        return orderedSum(
            lane, s.splits, lanes, [&](int z) { return s.parts[std::size_t(z) * s.sliceSize + s.first + e]; });
    case Segment::HiddenBias:
        return orderedSum(lane, u.batch, lanes, [&](int b) { return u.dHidden[b * kH + e]; });
    case Segment::OutWeight:
        return orderedSum(
            lane, u.batch, lanes, [&](int b) { return u.dLogits[b * kC + e / kH] * u.hidden[b * kH + e % kH]; });
    case Segment::OutBias:
        return orderedSum(lane, u.batch, lanes, [&](int b) { return u.dLogits[b * kC + e]; });
    }
    return 0.0f;
}

/// Every parameter's gradient finished (split slices added in split order, batch sums in sample order, each
/// parameter's lanes combined by a fixed butterfly), then SGD with momentum (PyTorch's form). Each tensor has its own
/// range of blocks. The first warp also writes the mean loss to the host and advances the step.
__global__ void __launch_bounds__(Policy::kUpdateThreads) updateKernel(UpdateArgs u)
{
    int y = 0;
    while (y + 1 < UpdateArgs::kSegments && int(blockIdx.x) >= u.segments[y + 1].firstBlock)
        ++y;
    const Segment& s = u.segments[y];
    const int end = y + 1 < UpdateArgs::kSegments ? u.segments[y + 1].firstBlock : u.blocks;
    const int lanes = s.lanes, perWarp = 32 / lanes, lane = int(threadIdx.x) % lanes;
    const int group = int(threadIdx.x) % 32 / lanes;
    const int warp = (int(blockIdx.x) - s.firstBlock) * Policy::kUpdateThreads / 32 + int(threadIdx.x) / 32;
    const int warps = (end - s.firstBlock) * Policy::kUpdateThreads / 32;
    // The loop runs alike for the whole warp, so that every lane of a butterfly is there.
    for (int first = warp * perWarp; first < s.count; first += warps * perWarp) {
        const int e = first + group;
        float g = e < s.count ? gradientShare(u, s, e, lane, lanes) : 0.0f;
        for (int offset = lanes / 2; offset > 0; offset /= 2)
            g += __shfl_xor_sync(device::kFullWarpMask, g, offset);
        if (lane == 0 && e < s.count) {
            const std::size_t i = s.offset + e;
            u.gradient[i] = g;
            const float v = u.momentum * u.velocity[i] + g;
            u.velocity[i] = v;
            u.parameters[i] -= u.lr * v;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        double total = 0.0;
        for (int b = int(threadIdx.x); b < u.batch; b += 32)
            total += u.losses[b];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            total += __shfl_xor_sync(device::kFullWarpMask, total, offset);
        if (threadIdx.x == 0) {
            *u.loss = total / u.batch;
            *u.step += 1;
        }
    }
}

// ---- the run -------------------------------------------------------------------------------------------------------

/// An instantiated CUDA graph, owned RAII-style.
class GraphExec {
public:
    GraphExec() = default;
    GraphExec(GraphExec&& o) noexcept
        : m_exec(std::exchange(o.m_exec, nullptr))
    {
    }
    GraphExec& operator=(GraphExec&& o) noexcept
    {
        std::swap(m_exec, o.m_exec);
        return *this;
    }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;
    ~GraphExec()
    {
        if (m_exec)
            cudaGraphExecDestroy(m_exec);
    }

    /// What `enqueue` puts on `stream` (and the streams it forks from it), captured and instantiated.
    template <class F> static GraphExec capture(cudaStream_t stream, F&& enqueue)
    {
        KS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        cudaGraph_t graph = nullptr;
        try {
            enqueue();
        } catch (...) {
            // Leave the stream usable: end the broken capture before reporting the error.
            if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph)
                cudaGraphDestroy(graph);
            throw;
        }
        KS_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        GraphExec exec;
        const cudaError_t instantiated = cudaGraphInstantiate(&exec.m_exec, graph, 0);
        cudaGraphDestroy(graph);
        KS_CUDA_CHECK(instantiated);
        return exec;
    }

    void launch(cudaStream_t stream) const { KS_CUDA_CHECK(cudaGraphLaunch(m_exec, stream)); }

private:
    cudaGraphExec_t m_exec = nullptr;
};

template <class P> dim3 gridFor(long long rows, long long cols, int splits = 1)
{
    return dim3(unsigned((rows + P::kBM - 1) / P::kBM), unsigned((cols + P::kBN - 1) / P::kBN), unsigned(splits));
}

/// A split of `total` into at most `wanted` chunks, each a multiple of `granule`: the chunk and the split count.
std::pair<int, int> splitK(long long total, long long wanted, int granule)
{
    const long long splits = std::max<long long>(1, std::min(wanted, (total + granule - 1) / granule));
    const long long chunk = ((total + splits - 1) / splits + granule - 1) / granule * granule;
    return {int(chunk), int((total + chunk - 1) / chunk)};
}

/// The run, its GEMM tiles and split targets from `Tiles` (a Policy).
template <class Tiles> class GraphFusedRun final : public DeviceTrainingRun {
public:
    GraphFusedRun(const data::Dataset& dataset, const ParamSet& params)
        : DeviceTrainingRun(dataset, params, Arithmetic::Fp32)
    {
        if (m_set.size() == 0)
            throw SkipRun("no images");
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        if (in.c > Policy::kMaxChannels)
            throw SkipRun("at most " + std::to_string(Policy::kMaxChannels) + " input channels");
        const long long b = m_settings.batch;
        if (b * Layout::kConv1 * in.h * in.w >= INT_MAX || b * Layout::kConv2 * p1.h * p1.w * 9 >= INT_MAX)
            throw SkipRun("a batch's activations past 2^31 elements");
        const Shape c2 {Layout::kConv2, p1.h, p1.w}, p2 = m_layout.pool2Out();
        const int sms = device::multiprocessorCount(), features = m_layout.flatFeatures();
        const long long wantedBlocks = static_cast<long long>(sms) * Tiles::kSplitBlocksPerSm;

        using Fc1 = typename Tiles::Fc1Forward;
        const long long fcTiles = (b + Fc1::kBM - 1) / Fc1::kBM * ((Layout::kHidden + Fc1::kBN - 1) / Fc1::kBN);
        std::tie(m_fcChunk, m_fcSplits) = splitK(features, std::max(1LL, wantedBlocks / fcTiles), Fc1::kBK);
        using W2 = typename Tiles::Conv2WeightGrad;
        const long long w2Tiles = (Layout::kConv1 * 9 + W2::kBN - 1) / W2::kBN;
        std::tie(m_w2Chunk, m_w2Splits) = splitK(b * c2.h * c2.w, std::max(1LL, wantedBlocks / w2Tiles), W2::kBK);
        std::tie(m_w1Chunk, m_w1Splits) = splitK(
            b * p1.h * p1.w, static_cast<long long>(sms) * Tiles::kConv1GradBlocksPerSm, Policy::kConv1GradStage);
        m_w1Slice = Layout::kConv1 * (in.c * 9 + 1);
        m_w2Slice = Layout::kConv2 * (Layout::kConv1 * 9 + 1);

        const std::size_t nb = std::size_t(b), p = m_layout.parameterCount();
        const std::size_t floats = m_set.pixels.size() + 4 * p
            + nb * (2 * p1.size() + c2.size() + p2.size() + 3 * Layout::kHidden + Layout::kClasses + 1)
            + std::size_t(m_fcSplits) * nb * Layout::kHidden + std::size_t(m_w2Splits) * m_w2Slice
            + std::size_t(m_w1Splits) * m_w1Slice;
        device::requireDeviceMemory(floats * sizeof(float) + m_set.labels.size() + nb * (p1.size() + p2.size()),
            "cnn graph_fused on " + std::to_string(m_set.size()) + " images at batch " + std::to_string(b));
        allocateState(LossReport::OwnMean);
        m_deviceStep = device::DeviceBuffer<std::uint64_t>(1);
        m_pool1 = device::DeviceBuffer<float>(nb * p1.size());
        m_choice1 = device::DeviceBuffer<std::uint8_t>(nb * p1.size());
        m_dPool1 = device::DeviceBuffer<float>(nb * p1.size());
        m_dConv2 = device::DeviceBuffer<float>(nb * c2.size());
        // Pixels no pooling window covers (odd edges) keep a zero gradient: FC1's backward writes only the windows.
        m_dConv2.fillBytesAsync(0, stream());
        m_pool2 = device::DeviceBuffer<float>(nb * p2.size());
        m_choice2 = device::DeviceBuffer<std::uint8_t>(nb * p2.size());
        m_fcPartials = device::DeviceBuffer<float>(std::size_t(m_fcSplits) * nb * Layout::kHidden);
        m_hidden = device::DeviceBuffer<float>(nb * Layout::kHidden);
        m_dHidden = device::DeviceBuffer<float>(nb * Layout::kHidden);
        m_dLogits = device::DeviceBuffer<float>(nb * Layout::kClasses);
        m_w2Partials = device::DeviceBuffer<float>(std::size_t(m_w2Splits) * m_w2Slice);
        m_w1Partials = device::DeviceBuffer<float>(std::size_t(m_w1Splits) * m_w1Slice);
        m_hostLoss = device::PinnedBuffer<double>(1);
        reset();
        m_graph = GraphExec::capture(stream(), [&] {
            forwardBackward(0);
            update();
        });
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }

private:
    /// How a step is enqueued: for capture (the weight gradient of conv2 on a forked branch beside its input
    /// gradient), measured (one stream, an event after every phase) or for fetch (also every ReLU output).
    enum class Mode { Graph, Measure, Fetch };

    Mode currentMode() const { return m_fetching ? Mode::Fetch : m_phases.measuring() ? Mode::Measure : Mode::Graph; }

    /// The whole step, graph and all: the update kernel also advances the step on the device and writes the mean loss.
    void enqueueStep(std::uint64_t) override { m_graph.launch(stream()); }
    double stepLoss() override { return m_hostLoss[0]; }

    /// The kernels read the step from the device, where the update kernel advances it, so that the graph never
    /// changes: reset() and a replay's restart clear it, and after a replay it comes back from the host's count.
    void setDeviceStep(std::uint64_t step) override
    {
        if (step == 0) {
            KS_CUDA_CHECK(cudaMemsetAsync(m_deviceStep.data(), 0, sizeof(std::uint64_t), stream()));
            return;
        }
        KS_CUDA_CHECK(cudaMemcpyAsync(m_deviceStep.data(), &step, sizeof step, cudaMemcpyHostToDevice, stream()));
        KS_CUDA_CHECK(cudaStreamSynchronize(stream())); // `step` is on this stack
    }

    /// The first step with every ReLU output kept for the decisions: the gradient is finished by the update kernel.
    void firstStepForFetch() override
    {
        const Shape p1 = m_layout.pool1Out();
        const std::size_t nb = std::size_t(m_settings.batch);
        if (m_full1.size() == 0) {
            m_full1 = device::DeviceBuffer<float>(nb * m_layout.conv1Out().size());
            m_full2 = device::DeviceBuffer<float>(nb * Layout::kConv2 * p1.h * p1.w);
        }
        m_velocity.fillBytesAsync(0, stream());
        setDeviceStep(0);
        m_fetching = true;
        forwardBackward(0);
        update();
        m_fetching = false;
    }

    Decisions decisions() override
    {
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        return {.relu1 = passed(m_full1),
            .relu2 = passed(m_full2),
            .relu3 = passed(m_hidden),
            .pool1 = chosenPixels(m_choice1, in.w, p1.h, p1.w),
            .pool2 = chosenPixels(m_choice2, p1.w, p1.h / 2, p1.w / 2)};
    }

    ConvSource imageSource()
    {
        const Shape in = m_layout.input();
        return {m_images.data(), in.size(), in.c, in.h, in.w, m_deviceStep.data(), m_set.size(), m_settings.batch};
    }

    /// The step up to its update; the device's step chooses the batch.
    void forwardBackward(std::uint64_t) override
    {
        const Mode mode = currentMode();
        const int b = m_settings.batch, features = m_layout.flatFeatures();
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const Shape c2 {Layout::kConv2, p1.h, p1.w};
        cudaStream_t s = stream();
        cudaStream_t branch = mode == Mode::Graph ? m_branch.get() : s;
        const ConvSource images = imageSource();
        const ConvSource pool1 {m_pool1.data(), p1.size(), Layout::kConv1, p1.h, p1.w, nullptr, 1, b};
        const ConvSource dConv2 {m_dConv2.data(), c2.size(), Layout::kConv2, c2.h, c2.w, nullptr, 1, b};
        const unsigned elementwise = device::gridFor(std::size_t(b) * in.size() * Layout::kConv1, 256, 8);

        if (mode == Mode::Fetch) {
            convReluKernel<<<elementwise, 256, 0, s>>>(
                images, param("conv1.weight"), param("conv1.bias"), Layout::kConv1, m_full1.data());
            KS_CUDA_CHECK_LAUNCH("cnn graph_fused convReluKernel 1");
        }
        using C1 = typename Tiles::Conv1Forward;
        convReluPoolKernel<C1><<<gridFor<C1>(4LL * b * p1.h * p1.w, Layout::kConv1), C1::kThreads, 0, s>>>(images,
            param("conv1.weight"), param("conv1.bias"), Layout::kConv1, m_pool1.data(), m_choice1.data(),
            mode == Mode::Fetch ? m_full1.data() : nullptr);
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused convReluPoolKernel 1");
        mark("conv1 forward");

        if (mode == Mode::Fetch) {
            convReluKernel<<<elementwise, 256, 0, s>>>(
                pool1, param("conv2.weight"), param("conv2.bias"), Layout::kConv2, m_full2.data());
            KS_CUDA_CHECK_LAUNCH("cnn graph_fused convReluKernel 2");
        }
        using C2 = typename Tiles::Conv2Forward;
        convReluPoolKernel<C2><<<gridFor<C2>(4LL * b * (c2.h / 2) * (c2.w / 2), Layout::kConv2), C2::kThreads, 0, s>>>(
            pool1, param("conv2.weight"), param("conv2.bias"), Layout::kConv2, m_pool2.data(), m_choice2.data(),
            mode == Mode::Fetch ? m_full2.data() : nullptr);
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused convReluPoolKernel 2");
        mark("conv2 forward");

        using F1 = typename Tiles::Fc1Forward;
        fcForwardSplitKernel<F1><<<gridFor<F1>(b, Layout::kHidden, m_fcSplits), F1::kThreads, 0, s>>>(
            m_pool2.data(), param("fc1.weight"), b, features, Layout::kHidden, m_fcChunk, m_fcPartials.data());
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused fcForwardSplitKernel");
        headKernel<<<unsigned(b), Layout::kHidden, 0, s>>>(m_fcPartials.data(), m_fcSplits, b, param("fc1.bias"),
            param("fc2.weight"), param("fc2.bias"), m_labels.data(), m_deviceStep.data(), m_set.size(), m_hidden.data(),
            m_dLogits.data(), m_dHidden.data(), m_losses.data());
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused headKernel");
        mark("fc1 forward");

        using FB = typename Tiles::Fc1Backward;
        const long long colTiles = (features + FB::kBN - 1) / FB::kBN;
        const unsigned fcBlocks
            = unsigned(((Layout::kHidden + FB::kBM - 1) / FB::kBM + (b + FB::kBM - 1) / FB::kBM) * colTiles);
        fcBackwardKernel<FB><<<fcBlocks, FB::kThreads, 0, s>>>(m_dHidden.data(), m_pool2.data(), param("fc1.weight"),
            m_choice2.data(), b, features, Layout::kHidden, PoolShape {Layout::kConv2, c2.h, c2.w},
            m_gradient.data() + m_layout.tensor("fc1.weight").offset, m_dConv2.data());
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused fcBackwardKernel");
        mark("fc1 backward");

        if (mode == Mode::Graph) {
            m_fork.record(s);
            KS_CUDA_CHECK(cudaStreamWaitEvent(branch, m_fork.get(), 0));
        }
        using W2 = typename Tiles::Conv2WeightGrad;
        convWeightGradSplitKernel<W2>
            <<<gridFor<W2>(Layout::kConv2, Layout::kConv1 * 9, m_w2Splits), W2::kThreads, 0, branch>>>(m_dConv2.data(),
                m_pool1.data(), b, Layout::kConv1, Layout::kConv2, c2.h, c2.w, m_w2Chunk, m_w2Partials.data());
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused convWeightGradSplitKernel");
        using D2 = typename Tiles::Conv2InputGrad;
        convInputGradKernel<D2><<<gridFor<D2>(1LL * b * p1.h * p1.w, Layout::kConv1), D2::kThreads, 0, s>>>(
            dConv2, param("conv2.weight"), Layout::kConv1, m_pool1.data(), m_dPool1.data());
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused convInputGradKernel");
        mark("conv2 backward");

        const int threads = std::min(Policy::kConv1GradMaxThreads, (m_w1Slice + 31) / 32 * 32);
        conv1WeightGradKernel<<<unsigned(m_w1Splits), unsigned(threads), 0, s>>>(
            images, m_dPool1.data(), m_choice1.data(), Layout::kConv1, m_w1Chunk, m_w1Partials.data());
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused conv1WeightGradKernel");
        mark("conv1 backward");

        if (mode == Mode::Graph) {
            m_join.record(branch);
            KS_CUDA_CHECK(cudaStreamWaitEvent(s, m_join.get(), 0));
        }
    }

    /// The gradients finished, the SGD step, the mean loss to the host and the step advanced on the device.
    void update() override
    {
        const UpdateArgs args = updateArgs();
        updateKernel<<<unsigned(args.blocks), Policy::kUpdateThreads, 0, stream()>>>(args);
        KS_CUDA_CHECK_LAUNCH("cnn graph_fused updateKernel");
    }

    UpdateArgs updateArgs()
    {
        UpdateArgs u;
        const int w1 = m_w1Slice - Layout::kConv1, w2 = m_w2Slice - Layout::kConv2;
        const auto segment = [&](const char* name, Segment::Source source, const float* parts = nullptr, int splits = 0,
                                 int sliceSize = 0, int first = 0) {
            const Tensor& t = m_layout.tensor(name);
            const int terms = source == Segment::Direct ? 1 : source == Segment::Splits ? splits : m_settings.batch;
            int lanes = 1;
            while (lanes < 32 && lanes * Policy::kTermsPerLane < terms)
                lanes *= 2;
            Segment segment {source, t.offset, int(t.count), parts, splits, sliceSize, first, lanes, u.blocks};
            u.blocks += int((std::int64_t(t.count) * lanes + Policy::kUpdateThreads - 1) / Policy::kUpdateThreads);
            return segment;
        };
        u.segments[0] = segment("conv1.weight", Segment::Splits, m_w1Partials.data(), m_w1Splits, m_w1Slice, 0);
        u.segments[1] = segment("conv1.bias", Segment::Splits, m_w1Partials.data(), m_w1Splits, m_w1Slice, w1);
        u.segments[2] = segment("conv2.weight", Segment::Splits, m_w2Partials.data(), m_w2Splits, m_w2Slice, 0);
        u.segments[3] = segment("conv2.bias", Segment::Splits, m_w2Partials.data(), m_w2Splits, m_w2Slice, w2);
        u.segments[4] = segment("fc1.weight", Segment::Direct);
        u.segments[5] = segment("fc1.bias", Segment::HiddenBias);
        u.segments[6] = segment("fc2.weight", Segment::OutWeight);
        u.segments[7] = segment("fc2.bias", Segment::OutBias);
        u.parameters = m_parameters.data();
        u.velocity = m_velocity.data();
        u.gradient = m_gradient.data();
        u.hidden = m_hidden.data();
        u.dLogits = m_dLogits.data();
        u.dHidden = m_dHidden.data();
        u.losses = m_losses.data();
        u.batch = m_settings.batch;
        u.lr = float(m_settings.lr);
        u.momentum = float(m_settings.momentum);
        u.step = m_deviceStep.data();
        u.loss = m_hostLoss.data();
        return u;
    }

    /// Each window's choice (0–3) as the chosen pixel's index in its conv output plane of width `w`, for `oh` × `ow`
    /// windows per plane.
    std::vector<std::uint32_t> chosenPixels(const device::DeviceBuffer<std::uint8_t>& choice, int w, int oh, int ow)
    {
        std::vector<std::uint8_t> host(choice.size());
        choice.downloadAsync(host, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        const std::size_t plane = std::size_t(oh) * std::size_t(ow);
        std::vector<std::uint32_t> at(host.size());
        for (std::size_t i = 0; i < host.size(); ++i) {
            const std::size_t r = i % plane, py = r / std::size_t(ow), px = r % std::size_t(ow);
            at[i] = std::uint32_t((2 * py + host[i] / 2) * std::size_t(w) + 2 * px + host[i] % 2);
        }
        return at;
    }

    int m_fcChunk = 0, m_fcSplits = 0, m_w2Chunk = 0, m_w2Splits = 0, m_w1Chunk = 0, m_w1Splits = 0;
    int m_w1Slice = 0, m_w2Slice = 0;
    device::DeviceBuffer<std::uint64_t> m_deviceStep; ///< the step the graph runs, which its update kernel advances
    device::DeviceBuffer<float> m_pool1, m_dPool1, m_dConv2, m_pool2;
    device::DeviceBuffer<std::uint8_t> m_choice1, m_choice2;
    device::DeviceBuffer<float> m_fcPartials, m_hidden, m_dHidden, m_dLogits, m_w2Partials, m_w1Partials;
    device::DeviceBuffer<float> m_full1, m_full2; ///< fetch only: every ReLU output of conv1 and conv2
    device::PinnedBuffer<double> m_hostLoss; ///< the step's mean loss, which the update kernel writes
    device::Stream m_branch;
    device::Event m_fork, m_join;
    GraphExec m_graph;
    bool m_fetching = false; ///< fetch() is enqueueing the first step
};

} // namespace
} // namespace ks::cnn::graph_fused

namespace ks::cnn {

std::unique_ptr<PreparedRun> prepareGraphFused(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return std::make_unique<graph_fused::GraphFusedRun<graph_fused::Policy>>(d, p);
}

} // namespace ks::cnn
