// sdh with a user's kernel: the cloud as three coordinate arrays, the 64-bit histogram poisoned when prepared and
// zeroed in every repetition (as for the built-in variants), the kernels launched as declared.
#include "compute/core/make_run.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/device_info.h"
#include "compute/device/user_module.cuh"
#include "compute/workloads/sdh/sdh.h"
#include "compute/workloads/sdh/user_abi.h"

#include <limits>

namespace ks::sdh {

namespace {

class UserRun final : public device::CudaPreparedRun {
public:
    using Model = data::PointCloud;

    UserRun(const data::PointCloud& cloud, Buckets buckets, const UserKernelBuild& build)
        : m_histogram(checkedBuckets(cloud, buckets))
        , m_launches(build,
              {{"n", static_cast<std::int64_t>(cloud.size())}, {"buckets", static_cast<std::int64_t>(buckets.count)}})
    {
        m_x = device::DeviceBuffer<double>(cloud.size());
        m_y = device::DeviceBuffer<double>(cloud.size());
        m_z = device::DeviceBuffer<double>(cloud.size());
        timedUpload([&] {
            m_x.uploadAsync(cloud.x, stream());
            m_y.uploadAsync(cloud.y, stream());
            m_z.uploadAsync(cloud.z, stream());
        });
        m_histogram.fillBytesAsync(0xff, stream()); // poisoned until a repetition zeroes and fills it
        m_args = {m_x.data(), m_y.data(), m_z.data(), static_cast<std::int32_t>(cloud.size()),
            static_cast<std::int32_t>(buckets.count), buckets.width, m_histogram.data(), m_launches.scratch(),
            m_launches.scratchBytes()};
    }
    void run() override
    {
        m_histogram.fillBytesAsync(0, stream());
        m_launches.enqueue(&m_args, stream());
    }
    Result fetch() override
    {
        std::vector<unsigned long long> counts(m_histogram.size());
        m_histogram.downloadAsync(counts, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return makeResult(std::vector<std::uint64_t>(counts.begin(), counts.end()));
    }

private:
    /// The ABI passes n and the bucket count as 32-bit ints; checks the memory for the cloud and the histogram.
    static std::size_t checkedBuckets(const data::PointCloud& cloud, Buckets buckets)
    {
        constexpr std::uint64_t kMax = std::numeric_limits<std::int32_t>::max();
        if (cloud.size() > kMax)
            throw SkipRun("more than 2^31 − 1 points");
        if (buckets.count > kMax)
            throw SkipRun("more than 2^31 − 1 buckets");
        device::requireDeviceMemory(3 * cloud.size() * sizeof(double) + buckets.count * sizeof(unsigned long long),
            "sdh on " + std::to_string(cloud.size()) + " points and " + std::to_string(buckets.count) + " buckets");
        return buckets.count;
    }

    device::DeviceBuffer<unsigned long long> m_histogram;
    device::DeviceBuffer<double> m_x;
    device::DeviceBuffer<double> m_y;
    device::DeviceBuffer<double> m_z;
    device::UserLaunches m_launches;
    UserKernelArgs m_args {};
};

} // namespace

std::unique_ptr<PreparedRun> prepareUserKernel(
    const data::Dataset& dataset, const ParamSet& params, const UserKernelBuild& build)
{
    const auto& cloud = dataset.as<data::PointCloud>();
    return makeRun<UserRun>(dataset, bucketsFor(cloud, bucketWidth(params)), build);
}

} // namespace ks::sdh
