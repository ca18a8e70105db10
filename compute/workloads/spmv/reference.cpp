// The oracle: every row's dot product accumulated in long double, on exactly the values the variant reads.
#include "compute/core/errors.h"
#include "compute/core/make_run.h"
#include "compute/workloads/spmv/spmv.h"

namespace ks::spmv {

Result makeResult(std::vector<double> y)
{
    return Result {"y", {}, std::move(y), {}, {}, {}, {}};
}

template <class T>
HostOperands<T>::HostOperands(const data::SparseSystem& system)
    : m_matrix(system.matrix)
{
    if constexpr (std::is_same_v<T, double>) {
        m_values = system.matrix.values;
        m_x = system.x;
    } else {
        m_valueCopy.assign(system.matrix.values.begin(), system.matrix.values.end());
        m_xCopy.assign(system.x.begin(), system.x.end());
        m_values = m_valueCopy;
        m_x = m_xCopy;
    }
}
template class HostOperands<double>;
template class HostOperands<float>;

std::vector<std::int32_t> rowPointers32(const data::CsrMatrix& matrix)
{
    if (matrix.nnz() > 0x7fffffffULL)
        throw SkipRun("the matrix has " + std::to_string(matrix.nnz())
            + " non-zeros: more than 32-bit row pointers (2^31 − 1) can address");
    return std::vector<std::int32_t>(matrix.rowPtr.begin(), matrix.rowPtr.end());
}

double meanRowLength(const data::CsrMatrix& matrix)
{
    return matrix.rows == 0 ? 0.0 : static_cast<double>(matrix.nnz()) / static_cast<double>(matrix.rows);
}

namespace {
template <class T> class ReferenceRun final : public SpmvCpuRun<T> {
public:
    using SpmvCpuRun<T>::SpmvCpuRun;
    void run() override
    {
        const auto& a = this->m_in.matrix();
        const auto values = this->m_in.values();
        const auto x = this->m_in.x();
        m_wide.assign(a.rows, 0.0);
        std::int64_t sinceCheck = 0; // units of work (a non-zero or a row each) since the last stop check
        for (std::uint64_t i = 0; i < a.rows; ++i) {
            sinceCheck += a.rowPtr[i + 1] - a.rowPtr[i] + 1;
            if (sinceCheck >= static_cast<std::int64_t>(kCancelBlock)) {
                sinceCheck = 0;
                this->cancelPoint().throwIfStopped();
            }
            long double sum = 0.0L;
            for (auto k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) {
                const auto kk = static_cast<std::size_t>(k);
                sum += static_cast<long double>(values[kk])
                    * static_cast<long double>(x[static_cast<std::size_t>(a.colIdx[kk])]);
            }
            m_wide[i] = static_cast<double>(sum);
        }
    }
    // The long-double sums rounded once to double, whatever the precision the variants use.
    Result fetch() override { return makeResult(m_wide); }

private:
    std::vector<double> m_wide;
};
} // namespace

std::unique_ptr<PreparedRun> prepareReference(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    return makeRun<ReferenceRun>(dataset, params, context);
}

} // namespace ks::spmv
