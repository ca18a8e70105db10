// sdh with a user's kernel: the cloud as three coordinate arrays on the built-in variants' base, the kernels launched
// as declared.
#include "compute/core/make_run.h"
#include "compute/device/user_module.cuh"
#include "compute/workloads/sdh/device_run.cuh"
#include "compute/workloads/sdh/sdh.h"
#include "compute/workloads/sdh/user_abi.h"

#include <limits>

namespace ks::sdh {

namespace {

/// On the base every built-in sdh variant shares: its histogram, poisoned when prepared, zeroed in every repetition
/// (no launch below two points: the zeroed histogram is the answer), fetched as counts.
class UserRun final : public gpu::SdhDeviceRun {
public:
    UserRun(const data::PointCloud& cloud, Buckets buckets, const UserKernelBuild& build)
        : SdhDeviceRun(cloud, checkedBuckets(buckets), 3 * cloud.size() * sizeof(double))
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
        m_args = {m_x.data(), m_y.data(), m_z.data(), n(), bucketCount(), width(), histogram(), m_launches.scratch(),
            m_launches.scratchBytes()};
    }

private:
    void launch() override { m_launches.enqueue(&m_args, stream()); }

    /// The ABI passes the bucket count as a 32-bit int (the base checks the point count).
    static Buckets checkedBuckets(Buckets buckets)
    {
        if (buckets.count > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
            throw SkipRun("more than 2^31 − 1 buckets");
        return buckets;
    }

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
