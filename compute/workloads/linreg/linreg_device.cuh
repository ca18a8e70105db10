#pragma once

// Device-side pieces shared by the linreg CUDA and library variants: sum and moment types, warp and block
// reductions, vectorised loads, and the prepared state that holds the inputs on the device.

#include "compute/core/make_run.h"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/launch.cuh"
#include "compute/workloads/linreg/linreg.h"

#include <algorithm>
#include <cstdint>

namespace ks::linreg::gpu {

/// Σx, Σy, Σx², Σxy in double.
struct Sums4 {
    double x, y, xx, xy;
};

__host__ __device__ inline Sums4 operator+(const Sums4& a, const Sums4& b)
{
    return {a.x + b.x, a.y + b.y, a.xx + b.xx, a.xy + b.xy};
}

__device__ inline void accumulate(Sums4& s, double x, double y)
{
    s.x += x;
    s.y += y;
    s.xx = fma(x, x, s.xx);
    s.xy = fma(x, y, s.xy);
}

__device__ inline Sums4 warpReduce(Sums4 s)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        s.x += __shfl_down_sync(device::kFullWarpMask, s.x, offset);
        s.y += __shfl_down_sync(device::kFullWarpMask, s.y, offset);
        s.xx += __shfl_down_sync(device::kFullWarpMask, s.xx, offset);
        s.xy += __shfl_down_sync(device::kFullWarpMask, s.xy, offset);
    }
    return s;
}

/// Block-wide sum: shuffles within warps, warp totals through shared memory, warp 0 adds them.
/// The result is valid in thread 0. `scratch` holds one Sums4 per warp (at most 32).
__device__ inline Sums4 blockReduce(Sums4 s, Sums4* scratch)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    s = warpReduce(s);
    __syncthreads(); // scratch may still be read by an earlier reduction
    if (lane == 0)
        scratch[warp] = s;
    __syncthreads();
    const int warps = (blockDim.x + 31) >> 5;
    if (warp == 0) {
        s = lane < warps ? scratch[lane] : Sums4 {0, 0, 0, 0};
        s = warpReduce(s);
    }
    return s;
}

/// Reads a Sums4 that another block wrote in this launch: through L2, never a stale L1 line.
__device__ inline Sums4 loadCoherent(const Sums4* p)
{
    return {__ldcg(&p->x), __ldcg(&p->y), __ldcg(&p->xx), __ldcg(&p->xy)};
}

/// 16-byte vectors: two doubles or four floats.
template <class T> struct Vec;
template <> struct Vec<double> {
    using type = double2;
    static constexpr int kWidth = 2;
    __device__ static double get(const double2& v, int k) { return k == 0 ? v.x : v.y; }
};
template <> struct Vec<float> {
    using type = float4;
    static constexpr int kWidth = 4;
    __device__ static double get(const float4& v, int k) { return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }
};

/// Visits this thread's share of the points in a grid-stride loop over 16-byte vectors, kUnroll vectors of x
/// and of y in flight, then the scalar tail. Calls visit(x, y) in double.
template <class T, int kUnroll, class Visit>
__device__ void forEachPoint(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, Visit&& visit)
{
    using V = typename Vec<T>::type;
    constexpr int kWidth = Vec<T>::kWidth;
    const std::size_t vectors = n / kWidth;
    const auto* xv = reinterpret_cast<const V*>(x);
    const auto* yv = reinterpret_cast<const V*>(y);
    const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = tid;
    for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
        V a[kUnroll], b[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            a[u] = xv[i + u * stride];
            b[u] = yv[i + u * stride];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
#pragma unroll
            for (int k = 0; k < kWidth; ++k)
                visit(Vec<T>::get(a[u], k), Vec<T>::get(b[u], k));
    }
    for (; i < vectors; i += stride) {
        const V a = xv[i];
        const V b = yv[i];
#pragma unroll
        for (int k = 0; k < kWidth; ++k)
            visit(Vec<T>::get(a, k), Vec<T>::get(b, k));
    }
    const std::size_t tail = vectors * kWidth + tid;
    if (tail < n)
        visit(static_cast<double>(x[tail]), static_cast<double>(y[tail]));
}

/// Enqueues one thread that writes slope and intercept from the four sums (the seed's closed form) to out[0..1].
void launchFitFromSums(const Sums4* sums, std::size_t n, double* out, cudaStream_t stream);

/// The points a run holds: all of them, or a multi-device run's part.
struct SeriesSlice {
    std::size_t begin = 0;
    std::size_t count = ~std::size_t(0); ///< to the end
};

/// Prepared state every linreg GPU variant shares: x and y on the device (as T), a two-double result buffer
/// poisoned with NaN so an unwritten result shows, and the upload time.
template <class T> class DeviceSeriesRun : public device::CudaPreparedRun {
public:
    using Model = data::Series2D;

    DeviceSeriesRun(const data::Series2D& series, std::size_t extraDeviceBytes, SeriesSlice slice = {})
        : m_host(series, kPrecisionOf<T>)
        , m_n(std::min(slice.count, m_host.size() - std::min(slice.begin, m_host.size())))
    {
        const std::size_t first = std::min(slice.begin, m_host.size());
        device::requireDeviceMemory(2 * m_n * sizeof(T) + extraDeviceBytes + 4096, "linreg inputs");
        m_x = device::DeviceBuffer<T>(m_n);
        m_y = device::DeviceBuffer<T>(m_n);
        m_out = device::DeviceBuffer<double>(2);
        m_outHost = device::PinnedBuffer<double>(2);
        timedUpload([&] {
            if constexpr (std::is_same_v<T, double>) {
                m_x.uploadAsync(m_host.xd().subspan(first, m_n), stream());
                m_y.uploadAsync(m_host.yd().subspan(first, m_n), stream());
            } else {
                m_x.uploadAsync(m_host.xf().subspan(first, m_n), stream());
                m_y.uploadAsync(m_host.yf().subspan(first, m_n), stream());
            }
        });
        m_out.fillBytesAsync(0xff, stream());
    }

    /// Copies the device result (slope, intercept) back.
    Result fetch() override
    {
        KS_CUDA_CHECK(
            cudaMemcpyAsync(m_outHost.data(), m_out.data(), 2 * sizeof(double), cudaMemcpyDeviceToHost, stream()));
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return makeResult(Fit {m_outHost[0], m_outHost[1]});
    }

protected:
    HostSeries m_host;
    std::size_t m_n;
    device::DeviceBuffer<T> m_x;
    device::DeviceBuffer<T> m_y;
    device::DeviceBuffer<double> m_out;
    device::PinnedBuffer<double> m_outHost;
};

} // namespace ks::linreg::gpu
