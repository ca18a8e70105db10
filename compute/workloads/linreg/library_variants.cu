// The vendor-library reference: CUB's DeviceReduce::TransformReduce over a four-component sum.
#include "compute/workloads/linreg/linreg_device.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace ks::linreg::gpu {

namespace {
struct AddSums {
    __host__ __device__ Sums4 operator()(const Sums4& a, const Sums4& b) const { return a + b; }
};

/// Point i as its contribution to the four sums.
template <class T> struct PointSums {
    const T* x;
    const T* y;
    __host__ __device__ Sums4 operator()(std::int64_t i) const
    {
        const double xi = x[i];
        const double yi = y[i];
        return {xi, yi, xi * xi, xi * yi};
    }
};

template <class T> class CubRun final : public DeviceSeriesRun<T> {
public:
    explicit CubRun(const data::Series2D& series)
        : DeviceSeriesRun<T>(series, 0)
        , m_sums(1)
    {
        KS_CUDA_CHECK(reduce(nullptr));
        m_temp = device::DeviceBuffer<unsigned char>(std::max<std::size_t>(m_tempBytes, 1));
        m_sums.fillBytesAsync(0xff, this->stream());
    }
    void run() override
    {
        KS_CUDA_CHECK(reduce(m_temp.data()));
        launchFitFromSums(m_sums.data(), this->m_n, this->m_out.data(), this->stream());
    }

private:
    cudaError_t reduce(void* temp)
    {
        return cub::DeviceReduce::TransformReduce(temp, m_tempBytes, thrust::counting_iterator<std::int64_t>(0),
            m_sums.data(), static_cast<std::int64_t>(this->m_n), AddSums {},
            PointSums<T> {this->m_x.data(), this->m_y.data()}, Sums4 {0, 0, 0, 0}, this->stream());
    }

    device::DeviceBuffer<Sums4> m_sums;
    device::DeviceBuffer<unsigned char> m_temp;
    std::size_t m_tempBytes = 0;
};
} // namespace
} // namespace ks::linreg::gpu

namespace ks::linreg {

std::unique_ptr<PreparedRun> prepareCub(const data::Dataset& d, const ParamSet& p, const RunContext&)
{
    return makeRun<gpu::CubRun>(d, p);
}

} // namespace ks::linreg
