// spmv with a user's kernel: the CSR matrix (32-bit indices) and x as every double variant has them, y poisoned, the
// kernels launched as declared.
#include "compute/device/user_module.cuh"
#include "compute/workloads/spmv/spmv_device.cuh"
#include "compute/workloads/spmv/user_abi.h"

namespace ks::spmv {

namespace {

class UserRun final : public gpu::SpmvDeviceRun<double> {
public:
    UserRun(const data::SparseSystem& system, const UserKernelBuild& build)
        : SpmvDeviceRun<double>(system, 0)
        , m_launches(build, {{"rows", m_rows}, {"cols", m_cols}, {"nnz", m_nnz}})
    {
        m_args = {m_rows, m_cols, m_nnz, m_rowPtr.data(), m_colIdx.data(), m_values.data(), m_x.data(), m_y.data(),
            m_launches.scratch(), m_launches.scratchBytes()};
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

} // namespace ks::spmv
