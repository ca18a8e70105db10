#include "compute/core/make_run.h"
#include "compute/device/device_buffer.cuh"
#include "compute/workloads/spmv/spmv_device.cuh"
#include "gpu_fault_variants.h"

#include <cstdint>

namespace ks::test {

namespace {

/// A store `beyond` elements past the last row of y. 2^42 floats (16 TiB) past any allocation lands where nothing of
/// the process is mapped, whatever address the allocation got.
constexpr std::uint64_t kBeyond = std::uint64_t(1) << 42;

__global__ void writePastTheEnd(float* y, int rows, std::uint64_t beyond)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        y[static_cast<std::uint64_t>(rows) + beyond] = 1.0f;
}

class FaultyRun final : public spmv::gpu::SpmvDeviceRun<float> {
public:
    explicit FaultyRun(const data::SparseSystem& system)
        : SpmvDeviceRun<float>(system, 0)
    {
    }
    void run() override
    {
        writePastTheEnd<<<1, 32, 0, stream()>>>(m_y.data(), m_rows, kBeyond);
        KS_CUDA_CHECK_LAUNCH("writePastTheEnd");
    }
};

/// Never gets past its constructor: the buffer it asks for is larger than the device.
class HungryRun final : public device::CudaPreparedRun {
public:
    using Model = data::SparseSystem;
    explicit HungryRun(const data::SparseSystem&)
        : m_buffer(deviceTotalBytes() + (std::size_t(1) << 30))
    {
    }
    void run() override { }
    Result fetch() override { return {}; }

private:
    device::DeviceBuffer<char> m_buffer;
};

} // namespace

std::unique_ptr<PreparedRun> prepareFaulty(const data::Dataset& dataset, const ParamSet&, const RunContext&)
{
    return makeRun<FaultyRun>(dataset);
}

std::unique_ptr<PreparedRun> prepareHungry(const data::Dataset& dataset, const ParamSet&, const RunContext&)
{
    return makeRun<HungryRun>(dataset);
}

std::string takeLastCudaError()
{
    const cudaError_t error = cudaGetLastError();
    return error == cudaSuccess ? std::string() : cudaGetErrorName(error);
}

std::size_t deviceTotalBytes()
{
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    KS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    return totalBytes;
}

} // namespace ks::test
