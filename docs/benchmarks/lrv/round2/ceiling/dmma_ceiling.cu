// SPDX-License-Identifier: GPL-3.0-or-later
// What the FP64 tensor cores and the output stores allow the unweighted lrv kernel at a given size, with nothing
// else in the way: no loads, no shared memory, no barriers, no epilogue arithmetic.
//
// The lrv triangle of p features over N samples is (p² / 2) / 1,024 warp tiles of 32 × 32 pairs, each N · 1,024
// multiply-adds (N/8 steps of eight m16n8k8 FP64 mma, the instruction dmma_refined runs) and 8 KiB of output. A
// persistent grid (4 blocks of 4 warps a multiprocessor, dmma_refined's shape) deals the warp tiles out; each warp
// accumulates its tile from operands held in registers and, in the "store" mode, writes it with 16-byte stores into
// an output buffer of the real output's size. Modes: "mma" (no stores), "store" (both), "write" (stores only).
// Reports the median of 20 timed runs after 3 warm-ups (CUDA events), the TFLOP/s reached and the SM clock the
// kernel ran at (clock64 against the global timer, block 0).
//
// Build: nvcc -O3 -arch=sm_90 -o dmma_ceiling dmma_ceiling.cu
// Run:   ./dmma_ceiling P N   (e.g. 10000 80, 30000 200)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

enum Mode { kMma = 0, kStore = 1, kWrite = 2 };

__device__ __forceinline__ void dmma1688(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}

struct Timing {
    long long cycles;
    unsigned long long nanoseconds;
};

template <int M>
__global__ void __launch_bounds__(128, 4)
    ceilingKernel(std::uint64_t tiles, int steps, double2* out, std::uint64_t outTiles, Timing* timing)
{
    long long c0 = clock64();
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const int lane = threadIdx.x & 31;
    const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * (blockDim.x / 32);
    const std::uint64_t warp = static_cast<std::uint64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    double a[2][4], b[4][2];
    for (int u = 0; u < 2; ++u)
        for (int e = 0; e < 4; ++e)
            a[u][e] = 1.0 + 1e-3 * (lane + 7 * u + e);
    for (int v = 0; v < 4; ++v)
        for (int e = 0; e < 2; ++e)
            b[v][e] = 1.0 - 1e-3 * (lane + 3 * v + e);
    for (std::uint64_t t = warp; t < tiles; t += warps) {
        double acc[2][4][4] = {};
        if (M != kWrite)
#pragma unroll 1
            for (int s = 0; s < steps; ++s) {
#pragma unroll
                for (int u = 0; u < 2; ++u)
#pragma unroll
                    for (int v = 0; v < 4; ++v)
                        dmma1688(acc[u][v], a[u], b[v]);
            }
        else
            acc[0][0][0] = static_cast<double>(t);
        if (M == kMma) {
            double s = 0;
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int v = 0; v < 4; ++v)
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        s += acc[u][v][e];
            if (s == -1.0) // never: keeps the products
                out[lane] = make_double2(s, s);
        } else {
            double2* tile = out + (t % outTiles) * 512; // 8 KiB: 16 warp-wide 16-byte stores
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int v = 0; v < 4; ++v)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        tile[((u * 4 + v) * 2 + h) * 32 + lane] = make_double2(acc[u][v][2 * h], acc[u][v][2 * h + 1]);
        }
    }
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        timing->cycles = clock64() - c0;
        timing->nanoseconds = t1 - t0;
    }
}

template <int M>
void measure(const char* name, std::uint64_t tiles, int steps, double2* out, std::uint64_t outTiles, Timing* timing,
    int sms, double flops)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    Timing last {};
    for (int r = 0; r < 23; ++r) {
        CHECK(cudaEventRecord(start));
        ceilingKernel<M><<<sms * 4, 128>>>(tiles, steps, out, outTiles, timing);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        if (r >= 3)
            ms.push_back(t);
        CHECK(cudaMemcpy(&last, timing, sizeof last, cudaMemcpyDeviceToHost));
    }
    std::sort(ms.begin(), ms.end());
    const double median = 0.5 * (ms[9] + ms[10]);
    const double mhz = last.nanoseconds ? 1e3 * static_cast<double>(last.cycles) / last.nanoseconds : 0.0;
    std::printf("%-6s median %.4f ms (min %.4f, max %.4f)  %.1f TFLOP/s  %.1f GB/s written  SM clock %.0f MHz\n", name,
        median, ms.front(), ms.back(), M == kWrite ? 0.0 : flops / median / 1e9,
        M == kMma ? 0.0 : tiles * 8192.0 / median / 1e6, mhz);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s P N\n", argv[0]);
        return 2;
    }
    const std::uint64_t p = std::strtoull(argv[1], nullptr, 10);
    const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const int steps = static_cast<int>((n + 7) / 8);
    const std::uint64_t pairs = p * (p - 1) / 2;
    const std::uint64_t tiles = (pairs + 1023) / 1024;
    const double flops = 2.0 * static_cast<double>(tiles) * 1024.0 * 8.0 * steps;
    cudaDeviceProp prop {};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf(
        "%s, %d SMs; p = %llu, N = %llu: %llu warp tiles of 32 x 32, %d k8 steps each, %.3g FLOP, %.3g GB out\n",
        prop.name, prop.multiProcessorCount, static_cast<unsigned long long>(p), static_cast<unsigned long long>(n),
        static_cast<unsigned long long>(tiles), steps, flops, tiles * 8192.0 / 1e9);
    double2* out = nullptr;
    CHECK(cudaMalloc(&out, tiles * 8192));
    Timing* timing = nullptr;
    CHECK(cudaMalloc(&timing, sizeof(Timing)));
    measure<kMma>("mma", tiles, steps, out, tiles, timing, prop.multiProcessorCount, flops);
    measure<kStore>("store", tiles, steps, out, tiles, timing, prop.multiProcessorCount, flops);
    measure<kWrite>("write", tiles, steps, out, tiles, timing, prop.multiProcessorCount, flops);
    CHECK(cudaFree(out));
    CHECK(cudaFree(timing));
    return 0;
}
