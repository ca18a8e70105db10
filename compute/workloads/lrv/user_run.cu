// lrv with a user's kernel: Y uploaded once, the whole half matrix in one output buffer poisoned with NaN when
// prepared (a user kernel sees every pair at once: no chunks), the kernels launched as declared.
#include "compute/core/make_run.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/device_info.h"
#include "compute/device/user_module.cuh"
#include "compute/workloads/lrv/lrv.h"
#include "compute/workloads/lrv/user_abi.h"

namespace ks::lrv {

namespace {

class UserRun final : public device::CudaPreparedRun {
public:
    using Model = data::ExpressionTable;

    UserRun(const data::ExpressionTable& table, const UserKernelBuild& build)
        : m_table(table)
        , m_n(table.samples)
        , m_p(table.features)
        , m_pairs(pairCount(m_p))
        , m_launches(build,
              {{"n", static_cast<std::int64_t>(m_n)}, {"p", static_cast<std::int64_t>(m_p)},
                  {"pairs", static_cast<std::int64_t>(m_pairs)}})
    {
        device::requireDeviceMemory((m_n * m_p + m_pairs) * sizeof(double),
            "lrv on " + std::to_string(m_n) + " samples × " + std::to_string(m_p) + " features");
        m_y = device::DeviceBuffer<double>(m_n * m_p);
        m_out = device::DeviceBuffer<double>(m_pairs);
        timedUpload([&] { m_y.uploadAsync(table.values, stream()); });
        m_out.fillBytesAsync(0xff, stream()); // NaN: an unwritten pair shows
        m_args = {m_y.data(), m_n, m_p, m_pairs, m_out.data(), m_launches.scratch(), m_launches.scratchBytes()};
    }
    void run() override { m_launches.enqueue(&m_args, stream()); }
    Result fetch() override
    {
        std::vector<double> values(m_pairs);
        m_out.downloadAsync(values, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return makeResult(std::move(values), m_table);
    }

private:
    const data::ExpressionTable& m_table;
    std::uint64_t m_n;
    std::uint64_t m_p;
    std::uint64_t m_pairs;
    device::UserLaunches m_launches;
    device::DeviceBuffer<double> m_y;
    device::DeviceBuffer<double> m_out;
    UserKernelArgs m_args {};
};

} // namespace

std::unique_ptr<PreparedRun> prepareUserKernel(
    const data::Dataset& dataset, const ParamSet& params, const UserKernelBuild& build)
{
    // The kernel ABI hands over Y only: no weights, no alpha.
    if (const Mode mode = modeOf(dataset.as<data::ExpressionTable>(), params); mode.weighted || mode.transformed())
        skipMode(mode, "reference and cpu_openmp");
    return makeRun<UserRun>(dataset, build);
}

} // namespace ks::lrv
