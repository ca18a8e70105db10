// tensor_core_tf32: the cnn training step with every convolution and fully connected product on tensor cores, as
// mma.sync m16n8k8 in TF32 (operands rounded to nearest with 10 mantissa bits) accumulating in FP32. Convolutions are
// implicit GEMMs, their 3 × 3 patches gathered on the fly into shared memory (Chetlur et al. 2014, "cuDNN: efficient
// primitives for deep learning"): the forward pass over output pixels, the input gradient over input pixels with the
// kernel flipped, the weight gradient over the batch's pixels cut into fixed chunks whose partial sums a second kernel
// adds in a fixed order (split-K without atomics, so the step is deterministic). conv2's k runs tap-major (tap·C +
// channel) so that a stage is one tap. The weight gradients run on a second stream beside the chain of input gradients.
// Pooling, masks, softmax and SGD are small element-wise kernels (the last two device_training.cu's).
#include "compute/device/cuda_check.cuh"
#include "compute/device/device_info.h"
#include "compute/device/launch.cuh"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/device_training.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ks::cnn::tc {

namespace {

/// A GEMM block's shape: kM × kN outputs over kK-deep stages, four warps of kWarpM × kWarpN, each a grid of m16n8k8
/// tiles.
template <int M, int N, int K, int WarpsM> struct Tile {
    static constexpr int kThreads = 128;
    static constexpr int kM = M, kN = N, kK = K;
    static constexpr int kWarpsM = WarpsM, kWarpsN = kThreads / 32 / WarpsM;
    static constexpr int kWarpM = kM / kWarpsM, kWarpN = kN / kWarpsN;
    static constexpr int kMmaM = kWarpM / 16, kMmaN = kWarpN / 8;
    static_assert(kWarpM % 16 == 0 && kWarpN % 8 == 0 && kK % 8 == 0, "whole m16n8k8 tiles per warp");
};

/// The variant's tunables.
struct Policy {
    static constexpr int kThreads = 128; ///< every GEMM block: four warps
    static constexpr int kElementwiseThreads = 256;
    /// Split-K aims at about this many blocks (four waves of an H100's 132 SMs). A constant rather than the device's
    /// SM count, so the partial sums are cut, and added, the same way on every GPU.
    static constexpr int kSplitTargetBlocks = 512;
    static constexpr int kReduceGroups = 16; ///< warps of a reduction block, warp g summing slices g, g + 16, …
    using ConvFirst = Tile<128, 32, 16, 4>; ///< conv1 forward: N = 32 channels, K = 9·C short
    using ConvSecond = Tile<64, 64, 32, 2>; ///< conv2 forward: N = 64 channels, K = 288
    using ConvInputGrad = Tile<64, 32, 32, 2>; ///< conv2 input gradient: N = 32 channels, K = 576
    using ConvWeightGrad = Tile<64, 32, 32, 2>; ///< conv2 weight gradient: all 64 channels × one tap of 32 inputs
    using Small = Tile<32, 32, 32, 2>; ///< conv1's weight gradient and the FC products
    using Narrow = Tile<32, 16, 32, 2>; ///< fc2 forward: N = 10 classes
    using ShortK = Tile<32, 32, 16, 2>; ///< fc2 input gradient: K = 10 classes
};

// ---- the tensor-core GEMM ---------------------------------------------------------------------------------------
// C[m][n] = Σ_k A(m, k)·B(n, k): both operands are read as rows × k through an operand type that knows the tensor
// behind it (a plain matrix, a convolution's patches), and the results go to an epilogue type that knows where they
// belong. An operand offers forTile(rowBase), itself specialised to a block's rows; fix(i), the part of an address that
// the index a thread keeps for a while determines (its row when kRowsContiguous, else its k of the stage); for
// rows-contiguous operands stage(fixed, k0), what is common to a stage, and at(fixed, stage, k), else at(fixed, row).
// They are called only inside the matrix and the block's k range; the loader fills zeros elsewhere. kTapGroup: the
// operand's k (rows-contiguous) or rows come in runs of this many per 3 × 3 tap, which a stage (or a tile's rows) must
// not straddle; 0 when nothing is grouped.

/// One operand's stage in shared memory: R rows × BK of k as TF32 bits. An operand contiguous along its rows in memory
/// is staged k-major ([k][row], stride R + 8), one contiguous along k row-major ([row][k], stride BK + 4). Either way a
/// warp's stores hit consecutive words and its mma fragment loads (row g, k t for lane 4g + t) 32 distinct banks.
template <int R, int BK, bool RowsContiguous> struct Stage {
    static constexpr int kRows = R, kDepth = BK;
    static constexpr int kStride = RowsContiguous ? R + 8 : BK + 4;
    static constexpr int kWords = RowsContiguous ? BK * kStride : R * kStride;
    static constexpr int kPerThread = R * BK / Policy::kThreads;
    static_assert(RowsContiguous ? Policy::kThreads % R == 0 : Policy::kThreads % BK == 0, "an even share per thread");
    static_assert(R * BK % Policy::kThreads == 0, "an even share per thread");

    __device__ static int at(int row, int k) { return RowsContiguous ? k * kStride + row : row * kStride + k; }
    /// The row and k of this thread's j-th element: rows-contiguous, one row (consecutive threads, consecutive rows)
    /// and every (threads / R)-th k; otherwise one k (consecutive threads, consecutive k) and every (threads / BK)-th
    /// row. Global reads are coalesced along the contiguous index.
    __device__ static int row(int j)
    {
        return RowsContiguous ? int(threadIdx.x) % R : int(threadIdx.x) / BK + j * (Policy::kThreads / BK);
    }
    __device__ static int k(int j)
    {
        return RowsContiguous ? int(threadIdx.x) / R + j * (Policy::kThreads / R) : int(threadIdx.x) % BK;
    }
};

__device__ __forceinline__ std::uint32_t toTf32(float x)
{
    std::uint32_t bits = 0;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
#else
    __trap(); // prepare refuses devices without TF32 tensor cores
#endif
    return bits;
}

/// d += a·b for one 16 × 8 × 8 TF32 tile. With g = lane / 4 and t = lane % 4: a = A(g, t), A(g + 8, t), A(g, t + 4),
/// A(g + 8, t + 4); b = B(k t, n g), B(k t + 4, n g); d = D(g, 2t…2t + 1), D(g + 8, 2t…2t + 1).
__device__ __forceinline__ void mmaTf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2])
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap(); // prepare refuses devices without TF32 tensor cores
#endif
}

/// A thread's share of one operand's stages: read from global memory into registers (zero outside the matrix and the
/// block's k range) while the tensor cores work on the previous stage, then stored to shared memory as TF32.
template <class S, class Op> class Loader {
public:
    __device__ Loader(const Op& op, int rowBase, int rows)
        : m_op(op.forTile(rowBase))
        , m_rowBase(rowBase)
        , m_rows(rows)
    {
        static_assert(
            Op::kTapGroup % (Op::kRowsContiguous ? S::kDepth : S::kRows) == 0, "a stage or tile within a tap");
        if constexpr (Op::kRowsContiguous) {
            const int row = rowBase + S::row(0);
            m_rowOk = row < rows;
            if (m_rowOk)
                m_fixed = op.fix(row);
        }
    }

    __device__ void load(int k0, int kEnd)
    {
        if constexpr (Op::kRowsContiguous) {
            if (!m_rowOk) {
#pragma unroll
                for (int j = 0; j < S::kPerThread; ++j)
                    m_values[j] = 0.0f;
                return;
            }
            const typename Op::Stage stage = m_op.stage(m_fixed, k0);
#pragma unroll
            for (int j = 0; j < S::kPerThread; ++j) {
                const int k = k0 + S::k(j);
                m_values[j] = k < kEnd ? m_op.at(m_fixed, stage, k) : 0.0f;
            }
        } else {
            const int k = k0 + S::k(0);
            const bool kOk = k < kEnd;
            const typename Op::Fixed fixed = kOk ? m_op.fix(k) : typename Op::Fixed {};
#pragma unroll
            for (int j = 0; j < S::kPerThread; ++j) {
                const int row = m_rowBase + S::row(j);
                m_values[j] = kOk && row < m_rows ? m_op.at(fixed, row) : 0.0f;
            }
        }
    }

    __device__ void store(std::uint32_t* stage) const
    {
#pragma unroll
        for (int j = 0; j < S::kPerThread; ++j)
            stage[S::at(S::row(j), S::k(j))] = toTf32(m_values[j]);
    }

    /// The j-th value of the last load, in FP32.
    __device__ float value(int j) const
    {
        return m_values[j];
    }

private:
    Op m_op;
    int m_rowBase;
    int m_rows;
    bool m_rowOk = false;
    typename Op::Fixed m_fixed {};
    float m_values[S::kPerThread];
};

/// The warp's products over one staged kK of k.
template <class T, class SA, class SB>
__device__ __forceinline__ void mmaStage(
    const std::uint32_t* sa, const std::uint32_t* sb, float (&acc)[T::kMmaM][T::kMmaN][4])
{
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
    const int wm = warp % T::kWarpsM * T::kWarpM, wn = warp / T::kWarpsM * T::kWarpN;
#pragma unroll
    for (int kk = 0; kk < T::kK; kk += 8) {
        std::uint32_t a[T::kMmaM][4], b[T::kMmaN][2];
#pragma unroll
        for (int i = 0; i < T::kMmaM; ++i) {
            const int r = wm + i * 16 + g;
            a[i][0] = sa[SA::at(r, kk + t)];
            a[i][1] = sa[SA::at(r + 8, kk + t)];
            a[i][2] = sa[SA::at(r, kk + t + 4)];
            a[i][3] = sa[SA::at(r + 8, kk + t + 4)];
        }
#pragma unroll
        for (int j = 0; j < T::kMmaN; ++j) {
            const int c = wn + j * 8 + g;
            b[j][0] = sb[SB::at(c, kk + t)];
            b[j][1] = sb[SB::at(c, kk + t + 4)];
        }
#pragma unroll
        for (int i = 0; i < T::kMmaM; ++i)
#pragma unroll
            for (int j = 0; j < T::kMmaN; ++j)
                mmaTf32(acc[i][j], a[i], b[j]);
    }
}

/// Sizes of one GEMM, and the k each split covers (a multiple of the tile's kK; one split when it covers all of k).
struct GemmShape {
    int m = 0;
    int n = 0;
    int k = 0;
    int kChunk = 0;
};

/// One block: a kM × kN tile (blockIdx.x, m fastest) over one split of k (blockIdx.y), staged through two shared
/// buffers so that one barrier per stage suffices. An epilogue with kRowSums also gets the FP32 sums of A's rows over
/// the split (a bias gradient), from the blocks of the first column of tiles.
template <class T, class OpA, class OpB, class Epi>
__global__ void __launch_bounds__(Policy::kThreads) gemmKernel(OpA a, OpB b, Epi epi, GemmShape shape)
{
    using SA = Stage<T::kM, T::kK, OpA::kRowsContiguous>;
    using SB = Stage<T::kN, T::kK, OpB::kRowsContiguous>;
    __shared__ std::uint32_t sa[2][SA::kWords];
    __shared__ std::uint32_t sb[2][SB::kWords];
    const int mTiles = (shape.m + T::kM - 1) / T::kM;
    const int m0 = int(blockIdx.x % unsigned(mTiles)) * T::kM, n0 = int(blockIdx.x / unsigned(mTiles)) * T::kN;
    const int split = int(blockIdx.y);
    const int kBegin = split * shape.kChunk, kEnd = min(shape.k, kBegin + shape.kChunk);
    const int stages = (kEnd - kBegin + T::kK - 1) / T::kK;
    Loader<SA, OpA> la(a, m0, shape.m);
    Loader<SB, OpB> lb(b, n0, shape.n);
    [[maybe_unused]] float sums[SA::kPerThread] = {};
    [[maybe_unused]] const bool summing = Epi::kRowSums && n0 == 0;
    float acc[T::kMmaM][T::kMmaN][4] = {};

    la.load(kBegin, kEnd);
    lb.load(kBegin, kEnd);
    la.store(sa[0]);
    lb.store(sb[0]);
    __syncthreads();
    for (int s = 0; s < stages; ++s) {
        if constexpr (Epi::kRowSums) {
            if (summing)
#pragma unroll
                for (int j = 0; j < SA::kPerThread; ++j)
                    sums[j] += la.value(j);
        }
        const bool more = s + 1 < stages;
        if (more) {
            la.load(kBegin + (s + 1) * T::kK, kEnd);
            lb.load(kBegin + (s + 1) * T::kK, kEnd);
        }
        mmaStage<T, SA, SB>(sa[s & 1], sb[s & 1], acc);
        if (more) {
            la.store(sa[(s + 1) & 1]);
            lb.store(sb[(s + 1) & 1]);
        }
        __syncthreads();
    }

    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
    const int wm = m0 + warp % T::kWarpsM * T::kWarpM, wn = n0 + warp / T::kWarpsM * T::kWarpN;
#pragma unroll
    for (int i = 0; i < T::kMmaM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = wm + i * 16 + g + 8 * h;
            if (row >= shape.m)
                continue;
            const typename Epi::Row out = epi.row(split, row);
#pragma unroll
            for (int j = 0; j < T::kMmaN; ++j)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int col = wn + j * 8 + 2 * t + e;
                    if (col < shape.n)
                        epi.store(out, col, acc[i][j][2 * h + e]);
                }
        }

    if constexpr (Epi::kRowSums) {
        // A is staged k-contiguous with a warp's 32 lanes on 32 consecutive k of the same rows: a butterfly over the
        // warp (a fixed order) finishes each row's sum.
        static_assert(!OpA::kRowsContiguous && T::kK == 32, "row sums need a warp across k");
        if (summing)
#pragma unroll
            for (int j = 0; j < SA::kPerThread; ++j) {
                float sum = sums[j];
#pragma unroll
                for (int offset = 16; offset > 0; offset /= 2)
                    sum += __shfl_xor_sync(device::kFullWarpMask, sum, offset);
                const int row = m0 + SA::row(j);
                if (lane == 0 && row < shape.m)
                    epi.rowSum(split, row, sum);
            }
    }
}

// ---- operands ---------------------------------------------------------------------------------------------------

/// A row-major matrix read either way: element (row, k) at data[k·ld + row] (RowsContiguous) or data[row·ld + k].
template <bool RowsContiguous> struct Matrix {
    static constexpr bool kRowsContiguous = RowsContiguous;
    static constexpr int kTapGroup = 0;
    const float* data = nullptr;
    int ld = 0;
    struct Fixed {
        const float* line = nullptr;
    };
    struct Stage { };
    __device__ Matrix forTile(int) const { return *this; }
    __device__ Fixed fix(int i) const { return {data + i}; }
    __device__ Stage stage(const Fixed&, int) const { return {}; }
    __device__ float at(const Fixed& f, int j) const { return f.line[std::size_t(j) * ld]; }
    __device__ float at(const Fixed& f, const Stage&, int k) const { return at(f, k); }
};

/// The 3 × 3 patches (zero padding 1) of NCHW maps, im2col on the fly: one index a pixel (image, y, x), the other a
/// tap (channel, ky, kx) in the weights' order, reading (y + ky − 1, x + kx − 1), decoded element by element (conv1,
/// whose few channels make stages span taps). PixelRows: the pixels are the GEMM's rows (the forward convolution),
/// otherwise its k (the weight gradient, summed over pixels).
template <bool PixelRows> struct Patches {
    static constexpr bool kRowsContiguous = PixelRows;
    static constexpr int kTapGroup = 0;
    const float* data = nullptr;
    int channels = 0;
    int h = 0;
    int w = 0;
    struct Fixed {
        const float* image = nullptr;
        int y = 0;
        int x = 0;
    };
    struct Stage { };
    __device__ Patches forTile(int) const { return *this; }
    __device__ Stage stage(const Fixed&, int) const { return {}; }
    __device__ float at(const Fixed& f, const Stage&, int k) const { return at(f, k); }
    __device__ Fixed fix(int pixel) const
    {
        const int hw = h * w, b = pixel / hw, p = pixel - b * hw, y = p / w;
        return {data + std::size_t(b) * channels * hw, y, p - y * w};
    }
    __device__ float at(const Fixed& f, int tap) const
    {
        const int c = tap / 9, r = tap - 9 * c, dy = r / 3 - 1, dx = r % 3 - 1;
        const int y = f.y + dy, x = f.x + dx;
        return y >= 0 && y < h && x >= 0 && x < w ? f.image[(c * h + y) * w + x] : 0.0f;
    }
};

/// The patches of C-channel maps with pixels as rows and k tap-major, k = tap·C + channel (a permutation of the sum,
/// matched by tap-major copies of the weights, tapMajorKernel): with C a multiple of the stage depth a stage is one
/// tap, so its shift and bounds are worked out once per pixel and stage, and each element is one load. A pixel reads (y
/// + ky − 1, x + kx − 1); Flipped reads (y + 1 − ky, x + 1 − kx), the output gradients that reached an input pixel
/// through each tap, for the input gradient.
template <int C, bool Flipped> struct TapPatches {
    static constexpr bool kRowsContiguous = true;
    static constexpr int kTapGroup = C;
    const float* data = nullptr;
    int h = 0;
    int w = 0;
    struct Fixed {
        const float* image = nullptr;
        int y = 0;
        int x = 0;
    };
    struct Stage {
        const float* at = nullptr; ///< the stage's first channel at the shifted pixel; null in the padding
        int k0 = 0;
    };
    __device__ TapPatches forTile(int) const { return *this; }
    __device__ Fixed fix(int pixel) const
    {
        const int hw = h * w, b = pixel / hw, p = pixel - b * hw, y = p / w;
        return {data + std::size_t(b) * C * hw, y, p - y * w};
    }
    __device__ Stage stage(const Fixed& f, int k0) const
    {
        const int tap = k0 / C, dy = tap / 3 - 1, dx = tap % 3 - 1;
        const int y = Flipped ? f.y - dy : f.y + dy, x = Flipped ? f.x - dx : f.x + dx;
        if (y < 0 || y >= h || x < 0 || x >= w)
            return {nullptr, k0};
        return {f.image + std::size_t(k0 - tap * C) * h * w + y * w + x, k0};
    }
    __device__ float at(const Fixed&, const Stage& s, int k) const
    {
        return s.at ? s.at[std::size_t(k - s.k0) * h * w] : 0.0f;
    }
};

/// The patches of C-channel maps with taps as rows, tap-major (row = tap·C + channel), and the pixel as k: the weight
/// gradient's B. A tile's rows (C a multiple of their count) are one tap, whose shift forTile works out.
template <int C> struct TapRows {
    static constexpr bool kRowsContiguous = false;
    static constexpr int kTapGroup = C;
    const float* data = nullptr;
    int h = 0;
    int w = 0;
    int rowBase = 0; ///< the tile's first row, and its tap's shift
    int dy = 0;
    int dx = 0;
    struct Fixed {
        const float* at = nullptr; ///< the tile's first channel at the shifted pixel; null in the padding
    };
    __device__ TapRows forTile(int first) const
    {
        TapRows t = *this;
        const int tap = first / C;
        t.rowBase = first;
        t.dy = tap / 3 - 1;
        t.dx = tap % 3 - 1;
        return t;
    }
    __device__ Fixed fix(int pixel) const
    {
        const int hw = h * w, b = pixel / hw, p = pixel - b * hw, y = p / w + dy, x = p % w + dx;
        if (y < 0 || y >= h || x < 0 || x >= w)
            return {nullptr};
        return {data + (std::size_t(b) * C + rowBase % C) * hw + y * w + x};
    }
    __device__ float at(const Fixed& f, int row) const
    {
        return f.at ? f.at[std::size_t(row - rowBase) * h * w] : 0.0f;
    }
};

/// NCHW maps with the channel as the row and the pixel (image, y, x) as k: the output gradient of a weight gradient.
struct ChannelsByPixel {
    static constexpr bool kRowsContiguous = false;
    static constexpr int kTapGroup = 0;
    const float* data = nullptr;
    int channels = 0;
    int hw = 0;
    struct Fixed {
        const float* pixel = nullptr;
    };
    __device__ ChannelsByPixel forTile(int) const { return *this; }
    __device__ Fixed fix(int pixel) const
    {
        const int b = pixel / hw;
        return {data + std::size_t(b) * channels * hw + (pixel - b * hw)};
    }
    __device__ float at(const Fixed& f, int channel) const { return f.pixel[std::size_t(channel) * hw]; }
};

// ---- epilogues --------------------------------------------------------------------------------------------------

/// NCHW maps with the GEMM's rows as pixels and its columns as channels: plus bias[channel] and ReLU when asked.
struct MapOutput {
    static constexpr bool kRowSums = false;
    float* data = nullptr;
    const float* bias = nullptr;
    int channels = 0;
    int hw = 0;
    bool relu = false;
    struct Row {
        float* pixel;
    };
    __device__ Row row(int, int pixel) const
    {
        const int b = pixel / hw;
        return {data + std::size_t(b) * channels * hw + (pixel - b * hw)};
    }
    __device__ void store(const Row& r, int channel, float v) const
    {
        v = bias ? v + bias[channel] : v;
        r.pixel[std::size_t(channel) * hw] = relu ? fmaxf(v, 0.0f) : v;
    }
};

/// A row-major matrix out[row·ld + col]: plus bias[col] when given, zero where `mask` (same layout) is not positive
/// (the backward pass through a ReLU, read from its output).
struct DenseOutput {
    static constexpr bool kRowSums = false;
    float* data = nullptr;
    int ld = 0;
    const float* bias = nullptr;
    const float* mask = nullptr;
    struct Row {
        float* out;
        const float* mask;
    };
    __device__ Row row(int, int r) const
    {
        return {data + std::size_t(r) * ld, mask ? mask + std::size_t(r) * ld : nullptr};
    }
    __device__ void store(const Row& r, int col, float v) const
    {
        v = bias ? v + bias[col] : v;
        r.out[col] = r.mask && !(r.mask[col] > 0.0f) ? 0.0f : v;
    }
};

/// Split-K partial sums: split s's rows × ld results at data[s·length + row·ld + col], and with RowSums its rows' A
/// sums right after them (data[s·length + rows·ld + row]) — a weight gradient's slice followed by its bias's, the order
/// of the parameter layout. TapChannels: the columns come tap-major (tap·C + channel) and go to the weights' order
/// (channel·9 + tap).
template <bool RowSums, int TapChannels = 0> struct Partials {
    static constexpr bool kRowSums = RowSums;
    float* data = nullptr;
    int length = 0;
    int ld = 0;
    int rows = 0;
    struct Row {
        float* out;
    };
    __device__ Row row(int split, int r) const { return {data + std::size_t(split) * length + std::size_t(r) * ld}; }
    __device__ void store(const Row& r, int col, float v) const
    {
        r.out[TapChannels ? col % TapChannels * 9 + col / TapChannels : col] = v;
    }
    __device__ void rowSum(int split, int r, float v) const
    {
        data[std::size_t(split) * length + std::size_t(rows) * ld + r] = v;
    }
};

// ---- element-wise kernels ---------------------------------------------------------------------------------------

/// Grid-stride loop over `count` items. The run refuses batches of 2^31 values or more, so int indices suffice, and
/// their divisions cost a fraction of 64-bit ones.
#define KS_CNN_TC_FOR_EACH(i, count)                                                                                   \
    for (int i = int(blockIdx.x * blockDim.x + threadIdx.x); i < (count); i += int(gridDim.x * blockDim.x))

/// out[i] = Σ_s slices[s·length + i] over `count` slices in a fixed order (warp g sums slices g, g + groups, …, then
/// the groups are added in order), plus bias[i % period] when given, ReLU when asked. Coalesced along i.
__global__ void __launch_bounds__(32 * Policy::kReduceGroups)
    reduceKernel(const float* slices, int count, int length, const float* bias, int period, bool relu, float* out)
{
    __shared__ float partial[Policy::kReduceGroups][32];
    const int lane = int(threadIdx.x), group = int(threadIdx.y);
    const int i = int(blockIdx.x) * 32 + lane;
    float sum = 0.0f;
    if (i < length)
        for (int s = group; s < count; s += Policy::kReduceGroups)
            sum += slices[std::size_t(s) * length + i];
    partial[group][lane] = sum;
    __syncthreads();
    if (group == 0 && i < length) {
        float total = 0.0f;
        for (int q = 0; q < Policy::kReduceGroups; ++q)
            total += partial[q][lane];
        total = bias ? total + bias[i % period] : total;
        out[i] = relu ? fmaxf(total, 0.0f) : total;
    }
}

/// The step's batch: images first, first + 1, … of the set, wrapping around (`first` already reduced modulo n).
__global__ void gatherKernel(const float* images, const std::uint8_t* labels, unsigned n, int imageSize, unsigned first,
    int batch, float* outImages, int* outLabels)
{
    KS_CNN_TC_FOR_EACH(i, batch * imageSize)
    {
        const int b = i / imageSize, at = i - b * imageSize;
        const std::size_t which = (first + unsigned(b)) % n;
        outImages[i] = images[which * imageSize + at];
        if (at == 0)
            outLabels[b] = labels[which];
    }
}

/// 2 × 2 max-pool, stride 2 (odd edges dropped); the first maximum wins ties, as on the CPU.
__global__ void poolKernel(const float* in, int planes, int h, int w, float* out, std::uint32_t* argmax)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_TC_FOR_EACH(i, planes * oh * ow)
    {
        const int plane = i / (oh * ow), q = i - plane * oh * ow, y = q / ow, x = q - y * ow;
        const float* p = in + std::size_t(plane) * h * w;
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

/// Max-pool backward, a thread per window writing its 2 × 2 inputs (and, in the last row or column of windows, the odd
/// edge the pool dropped): the window's gradient goes to its choice when that choice passed the ReLU before the pool
/// (the pooled value, the chosen ReLU output, is positive), zero everywhere else. Every input is written once, so no
/// clearing pass.
__global__ void poolBackwardKernel(
    const float* dPooled, const std::uint32_t* argmax, const float* pooled, int planes, int h, int w, float* dIn)
{
    const int oh = h / 2, ow = w / 2;
    KS_CNN_TC_FOR_EACH(i, planes * oh * ow)
    {
        const int plane = i / (oh * ow), q = i - plane * oh * ow, py = q / ow, px = q - py * ow;
        const float g = pooled[i] > 0.0f ? dPooled[i] : 0.0f;
        const int chosen = int(argmax[i]);
        float* out = dIn + std::size_t(plane) * h * w;
        const int yEnd = py == oh - 1 ? h : 2 * py + 2, xEnd = px == ow - 1 ? w : 2 * px + 2;
        for (int y = 2 * py; y < yEnd; ++y)
            for (int x = 2 * px; x < xEnd; ++x)
                out[y * w + x] = y * w + x == chosen ? g : 0.0f;
    }
}

/// conv2's weights [O][C][tap] copied tap-major for the two GEMMs that read them, so that both read along k:
/// forward[o][tap·C + c] (the forward convolution's B) and byInput[c][tap·O + o] (the input gradient's B).
__global__ void tapMajorKernel(const float* weight, int outputs, int inputs, float* forward, float* byInput)
{
    KS_CNN_TC_FOR_EACH(i, outputs * inputs * 9)
    {
        const int tap = i % 9, c = i / 9 % inputs, o = i / (9 * inputs);
        forward[(o * 9 + tap) * inputs + c] = weight[i];
        byInput[(c * 9 + tap) * outputs + o] = weight[i];
    }
}

#undef KS_CNN_TC_FOR_EACH

// ---- host side --------------------------------------------------------------------------------------------------

unsigned blocks(std::size_t items)
{
    return device::blocksFor(items, Policy::kElementwiseThreads, 65'535);
}

/// How a GEMM's k is cut: `splits` chunks of `kChunk`.
struct SplitK {
    int splits = 1;
    int kChunk = 0;
};

template <class T> int tiles(int m, int n)
{
    return ((m + T::kM - 1) / T::kM) * ((n + T::kN - 1) / T::kN);
}

/// All of k in one split.
template <class T> SplitK whole(int k)
{
    return {1, (k + T::kK - 1) / T::kK * T::kK};
}

/// k cut into equal whole stages so that tiles × splits comes near the target (never an empty split).
template <class T> SplitK splitK(int m, int n, int k)
{
    const int stages = (k + T::kK - 1) / T::kK;
    const int wanted = std::clamp(Policy::kSplitTargetBlocks / tiles<T>(m, n), 1, stages);
    const int perSplit = (stages + wanted - 1) / wanted;
    return {(stages + perSplit - 1) / perSplit, perSplit * T::kK};
}

template <class T, class OpA, class OpB, class Epi>
void gemm(const OpA& a, const OpB& b, const Epi& epi, int m, int n, int k, SplitK split, cudaStream_t stream)
{
    const GemmShape shape {m, n, k, split.kChunk};
    const dim3 grid(unsigned(tiles<T>(m, n)), unsigned(split.splits));
    gemmKernel<T, OpA, OpB, Epi><<<grid, Policy::kThreads, 0, stream>>>(a, b, epi, shape);
    KS_CUDA_CHECK_LAUNCH("cnn tensor-core gemmKernel");
}

/// Makes `to` wait for the work enqueued so far on `from` (nothing when they are one stream).
void handOver(device::Event& event, cudaStream_t from, cudaStream_t to)
{
    if (from == to)
        return;
    event.record(from);
    KS_CUDA_CHECK(cudaStreamWaitEvent(to, event.get(), 0));
}

void reduce(const float* slices, int count, int length, const float* bias, int period, bool relu, float* out,
    cudaStream_t stream)
{
    const dim3 block(32, Policy::kReduceGroups);
    reduceKernel<<<unsigned((length + 31) / 32), block, 0, stream>>>(slices, count, length, bias, period, relu, out);
    KS_CUDA_CHECK_LAUNCH("cnn tensor-core reduceKernel");
}

/// The whole training step on tensor cores.
class TensorCoreRun final : public LayeredTrainingRun {
public:
    TensorCoreRun(const data::Dataset& dataset, const ParamSet& params)
        : LayeredTrainingRun(dataset, params, Arithmetic::Tf32)
    {
        int device = 0, major = 0;
        KS_CUDA_CHECK(cudaGetDevice(&device));
        KS_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 8)
            throw SkipRun("needs TF32 tensor cores (compute capability 8.0 or newer)");
        if (m_set.size() == 0)
            throw SkipRun("no images");
        const Shape in = m_layout.input(), c1 = m_layout.conv1Out(), p1 = m_layout.pool1Out();
        const std::size_t b = std::size_t(m_settings.batch), p = m_layout.parameterCount();
        // The kernels index a batch's tensors, the parameters and the images with int (grid-stride loops step past the
        // end, hence half int's range): conv1's output (or the input, were it wider) is the largest activation.
        constexpr std::size_t kIndexable = std::size_t(1) << 30;
        if (b * std::max(c1.size(), in.size()) > kIndexable || p > kIndexable || m_set.size() > kIndexable)
            throw SkipRun("a batch's activations, the parameters or the images over 2^30 values");
        // The weight-gradient reductions write each bias right after its weights, where the layout keeps it.
        for (const char* conv : {"conv1", "conv2"}) {
            const Tensor& weight = m_layout.tensor(std::string(conv) + ".weight");
            if (m_layout.tensor(std::string(conv) + ".bias").offset != weight.offset + weight.count)
                throw ComputeError("cnn tensor_core_tf32: a conv bias does not follow its weights in the layout");
        }

        const int batch = m_settings.batch, taps1 = 9 * in.c, taps2 = 9 * Layout::kConv1;
        m_conv1Split = splitK<Policy::Small>(Layout::kConv1, taps1, batch * in.h * in.w);
        m_conv2Split = splitK<Policy::ConvWeightGrad>(Layout::kConv2, taps2, batch * p1.h * p1.w);
        m_fc1Split = splitK<Policy::Small>(batch, Layout::kHidden, m_layout.flatFeatures());
        const std::size_t workspace = std::max(std::size_t(m_conv1Split.splits) * (Layout::kConv1 * (taps1 + 1)),
            std::size_t(m_fc1Split.splits) * b * Layout::kHidden);
        const std::size_t sideWorkspace = std::size_t(m_conv2Split.splits) * (Layout::kConv2 * (taps2 + 1));
        const std::size_t floats = stateFloats() + workspace + sideWorkspace + 2 * std::size_t(taps2) * Layout::kConv2;
        device::requireDeviceMemory(floats * sizeof(float) + m_set.labels.size(),
            "cnn tensor_core_tf32 on " + std::to_string(m_set.size()) + " images at batch " + std::to_string(b));

        allocateState();
        allocateLayers(PoolChoices::Kept);
        m_workspace = device::DeviceBuffer<float>(workspace);
        m_sideWorkspace = device::DeviceBuffer<float>(sideWorkspace);
        m_w2Forward = device::DeviceBuffer<float>(m_layout.tensor("conv2.weight").count);
        m_w2ByInput = device::DeviceBuffer<float>(m_layout.tensor("conv2.weight").count);
        reset();
    }

private:
    void update() override
    {
        launchSgd(m_parameters.data(), m_velocity.data(), m_gradient.data(), m_parameters.size(), float(m_settings.lr),
            float(m_settings.momentum), stream());
    }

    void pool(const device::DeviceBuffer<float>& in, int channels, int h, int w, device::DeviceBuffer<float>& out,
        device::DeviceBuffer<std::uint32_t>& argmax)
    {
        const int planes = m_settings.batch * channels;
        poolKernel<<<blocks(out.size()), Policy::kElementwiseThreads, 0, stream()>>>(
            in.data(), planes, h, w, out.data(), argmax.data());
        KS_CUDA_CHECK_LAUNCH("cnn tensor-core poolKernel");
    }

    void poolBackward(const device::DeviceBuffer<float>& dPooled, const device::DeviceBuffer<std::uint32_t>& argmax,
        const device::DeviceBuffer<float>& pooled, int channels, int h, int w, device::DeviceBuffer<float>& dIn)
    {
        const int planes = m_settings.batch * channels;
        poolBackwardKernel<<<blocks(dPooled.size()), Policy::kElementwiseThreads, 0, stream()>>>(
            dPooled.data(), argmax.data(), pooled.data(), planes, h, w, dIn.data());
        KS_CUDA_CHECK_LAUNCH("cnn tensor-core poolBackwardKernel");
    }

    void forwardBackward(std::uint64_t step) override
    {
        const int b = m_settings.batch, features = m_layout.flatFeatures();
        const Shape in = m_layout.input(), p1 = m_layout.pool1Out();
        const int hw1 = in.h * in.w, hw2 = p1.h * p1.w, taps1 = 9 * in.c, taps2 = 9 * Layout::kConv1;
        constexpr int kC1 = Layout::kConv1, kC2 = Layout::kConv2, kHidden = Layout::kHidden;
        constexpr int kClasses = Layout::kClasses;
        const std::size_t nb = std::size_t(b);
        cudaStream_t s = stream();
        using Pol = Policy;

        const unsigned first = unsigned(step * nb % m_set.size());
        gatherKernel<<<blocks(nb * in.size()), Pol::kElementwiseThreads, 0, s>>>(m_images.data(), m_labels.data(),
            unsigned(m_set.size()), int(in.size()), first, b, m_batchImages.data(), m_batchLabels.data());
        KS_CUDA_CHECK_LAUNCH("cnn tensor-core gatherKernel");
        mark("update");

        // Forward: convolutions over output pixels (M = pixels, N = channels, K = taps), bias and ReLU in the epilogue.
        gemm<Pol::ConvFirst>(Patches<true> {m_batchImages.data(), in.c, in.h, in.w},
            Matrix<false> {param("conv1.weight"), taps1},
            MapOutput {m_conv1.data(), param("conv1.bias"), kC1, hw1, true}, b * hw1, kC1, taps1,
            whole<Pol::ConvFirst>(taps1), s);
        mark("conv1 forward");
        pool(m_conv1, kC1, in.h, in.w, m_pool1, m_arg1);
        mark("pool1 forward");
        tapMajorKernel<<<blocks(m_w2Forward.size()), Pol::kElementwiseThreads, 0, s>>>(
            param("conv2.weight"), kC2, kC1, m_w2Forward.data(), m_w2ByInput.data());
        KS_CUDA_CHECK_LAUNCH("cnn tensor-core tapMajorKernel");
        gemm<Pol::ConvSecond>(TapPatches<kC1, false> {m_pool1.data(), p1.h, p1.w},
            Matrix<false> {m_w2Forward.data(), taps2}, MapOutput {m_conv2.data(), param("conv2.bias"), kC2, hw2, true},
            b * hw2, kC2, taps2, whole<Pol::ConvSecond>(taps2), s);
        mark("conv2 forward");
        pool(m_conv2, kC2, p1.h, p1.w, m_pool2, m_arg2);
        mark("pool2 forward");
        // fc1's output is only batch × 128: its long k (the features) is split, the slices summed with bias and ReLU.
        gemm<Pol::Small>(Matrix<false> {m_pool2.data(), features}, Matrix<false> {param("fc1.weight"), features},
            Partials<false> {m_workspace.data(), b * kHidden, kHidden, b}, b, kHidden, features, m_fc1Split, s);
        reduce(m_workspace.data(), m_fc1Split.splits, b * kHidden, param("fc1.bias"), kHidden, true, m_fc1.data(), s);
        mark("fc1 forward");
        gemm<Pol::Narrow>(Matrix<false> {m_fc1.data(), kHidden}, Matrix<false> {param("fc2.weight"), kHidden},
            DenseOutput {m_logits.data(), kClasses, param("fc2.bias"), nullptr}, b, kClasses, kHidden,
            whole<Pol::Narrow>(kHidden), s);
        mark("fc2 forward");
        launchSoftmaxLoss(m_logits.data(), m_batchLabels.data(), b, kClasses, m_dLogits.data(), m_losses.data(), s);
        mark("loss");

        // Backward. The weight gradients (FC and conv2) run on a second stream beside the chain of input gradients
        // they do not feed (fc2 → fc1 → pool2 → conv2 → pool1 → conv1's weight gradient): alone, each leaves SMs idle.
        // The side stream waits for each input it reads; the step's end waits for it. While layerTimes() measures,
        // all runs on the one stream, so that each phase's events time it alone.
        const cudaStream_t side = m_phases.measuring() ? s : m_side.get();
        handOver(m_lossDone, s, side);
        // FC backward: dW = dOutᵀ·in (K = batch), dIn = dOut·W (K = outputs), the bias a sum over the batch.
        gemm<Pol::Small>(Matrix<true> {m_dLogits.data(), kClasses}, Matrix<true> {m_fc1.data(), kHidden},
            DenseOutput {grad("fc2.weight"), kHidden, nullptr, nullptr}, kClasses, kHidden, b, whole<Pol::Small>(b),
            side);
        reduce(m_dLogits.data(), b, kClasses, nullptr, 1, false, grad("fc2.bias"), side);
        gemm<Pol::ShortK>(Matrix<false> {m_dLogits.data(), kClasses}, Matrix<true> {param("fc2.weight"), kHidden},
            DenseOutput {m_dFc1.data(), kHidden, nullptr, m_fc1.data()}, b, kHidden, kClasses,
            whole<Pol::ShortK>(kClasses), s);
        mark("fc2 backward");
        handOver(m_dFc1Done, s, side);
        gemm<Pol::Small>(Matrix<true> {m_dFc1.data(), kHidden}, Matrix<true> {m_pool2.data(), features},
            DenseOutput {grad("fc1.weight"), features, nullptr, nullptr}, kHidden, features, b, whole<Pol::Small>(b),
            side);
        reduce(m_dFc1.data(), b, kHidden, nullptr, 1, false, grad("fc1.bias"), side);
        gemm<Pol::Small>(Matrix<false> {m_dFc1.data(), kHidden}, Matrix<true> {param("fc1.weight"), features},
            DenseOutput {m_dPool2.data(), features, nullptr, nullptr}, b, features, kHidden, whole<Pol::Small>(kHidden),
            s);
        mark("fc1 backward");
        poolBackward(m_dPool2, m_arg2, m_pool2, kC2, p1.h, p1.w, m_dConv2);
        mark("pool2 backward");

        // Conv backward: the weight gradient over the batch's pixels (M = out channels, N = taps, K = pixels) in fixed
        // splits, their bias sums alongside, reduced in order; the input gradient over input pixels, kernel flipped.
        handOver(m_dConv2Done, s, side);
        gemm<Pol::ConvWeightGrad>(ChannelsByPixel {m_dConv2.data(), kC2, hw2},
            TapRows<kC1> {m_pool1.data(), p1.h, p1.w},
            Partials<true, kC1> {m_sideWorkspace.data(), kC2 * (taps2 + 1), taps2, kC2}, kC2, taps2, b * hw2,
            m_conv2Split, side);
        reduce(m_sideWorkspace.data(), m_conv2Split.splits, kC2 * (taps2 + 1), nullptr, 1, false, grad("conv2.weight"),
            side);
        gemm<Pol::ConvInputGrad>(TapPatches<kC2, true> {m_dConv2.data(), p1.h, p1.w},
            Matrix<false> {m_w2ByInput.data(), 9 * kC2}, MapOutput {m_dPool1.data(), nullptr, kC1, hw2, false}, b * hw2,
            kC1, 9 * kC2, whole<Pol::ConvInputGrad>(9 * kC2), s);
        mark("conv2 backward");
        poolBackward(m_dPool1, m_arg1, m_pool1, kC1, in.h, in.w, m_dConv1);
        mark("pool1 backward");
        gemm<Pol::Small>(ChannelsByPixel {m_dConv1.data(), kC1, hw1},
            Patches<false> {m_batchImages.data(), in.c, in.h, in.w},
            Partials<true> {m_workspace.data(), kC1 * (taps1 + 1), taps1, kC1}, kC1, taps1, b * hw1, m_conv1Split, s);
        reduce(m_workspace.data(), m_conv1Split.splits, kC1 * (taps1 + 1), nullptr, 1, false, grad("conv1.weight"), s);
        handOver(m_sideDone, side, s);
        mark("conv1 backward");
    }

    SplitK m_conv1Split, m_conv2Split, m_fc1Split;
    device::DeviceBuffer<float> m_workspace, m_sideWorkspace; ///< split-K slices of each stream
    device::DeviceBuffer<float> m_w2Forward, m_w2ByInput; ///< conv2's weights tap-major (tapMajorKernel)
    device::Stream m_side; ///< the weight gradients, beside the input-gradient chain
    device::Event m_lossDone, m_dFc1Done, m_dConv2Done, m_sideDone; ///< hand-overs between the two streams
};

} // namespace
} // namespace ks::cnn::tc

namespace ks::cnn {

std::unique_ptr<PreparedRun> prepareTensorCoreTf32(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return std::make_unique<tc::TensorCoreRun>(d, p);
}

} // namespace ks::cnn
