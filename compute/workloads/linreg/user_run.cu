// linreg with a user's kernel: the inputs as every double variant has them, the kernels launched as declared.
#include "compute/device/user_module.cuh"
#include "compute/workloads/linreg/linreg_device.cuh"
#include "compute/workloads/linreg/user_abi.h"

namespace ks::linreg {

namespace {

class UserRun final : public gpu::DeviceSeriesRun<double> {
public:
    UserRun(const data::Series2D& series, const UserKernelBuild& build)
        : DeviceSeriesRun<double>(series, 0)
        , m_launches(build, {{"n", static_cast<std::int64_t>(m_n)}})
    {
        m_args = {m_x.data(), m_y.data(), m_n, m_out.data(), m_launches.scratch(), m_launches.scratchBytes()};
    }
    void run() override { m_launches.enqueue(&m_args, stream()); }

private:
    device::UserLaunches m_launches;
    UserKernelArgs m_args {};
};

} // namespace

std::unique_ptr<PreparedRun> prepareUserKernel(
    const data::Dataset& dataset, const ParamSet&, const UserKernelBuild& build)
{
    return makeRun<UserRun>(dataset, build);
}

} // namespace ks::linreg
