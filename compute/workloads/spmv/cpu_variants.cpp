// CPU variant: rows split over OpenMP threads in chunks of equal non-zero count, each row's sum in the value type.
#include "compute/core/make_run.h"
#include "compute/workloads/spmv/spmv.h"

#include <algorithm>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace ks::spmv {

namespace {
template <class T> class CpuOpenMpRun final : public SpmvCpuRun<T> {
public:
    CpuOpenMpRun(const data::SparseSystem& system, const RunContext& context)
        : SpmvCpuRun<T>(system, context)
    {
        // Row boundaries that give every thread about the same number of non-zeros (plus one unit per row, so
        // runs of empty rows are shared too): a power-law matrix's long rows do not land on one thread.
        const auto& a = system.matrix;
#ifdef _OPENMP
        const int threads = std::max(1, omp_get_max_threads());
#else
        const int threads = 1;
#endif
        const double work = static_cast<double>(a.nnz() + a.rows);
        m_bounds.push_back(0);
        std::uint64_t row = 0;
        for (int t = 1; t < threads; ++t) {
            const double target = work * t / threads;
            while (row < a.rows && static_cast<double>(a.rowPtr[row] + static_cast<std::int64_t>(row)) < target)
                ++row;
            m_bounds.push_back(row);
        }
        m_bounds.push_back(a.rows);
    }
    void run() override
    {
        const auto& a = this->m_in.matrix();
        const T* values = this->m_in.values().data();
        const T* x = this->m_in.x().data();
        const std::int32_t* cols = a.colIdx.data();
        const std::int64_t* ptr = a.rowPtr.data();
        T* y = this->m_y.data();
        const auto parts = static_cast<std::int64_t>(m_bounds.size() - 1);
        const CancelPoint& cancel = this->cancelPoint();
#pragma omp parallel for schedule(static, 1)
        for (std::int64_t part = 0; part < parts; ++part) {
            // A stop check after every kCancelBlock units of work (a non-zero or a row each), so a part of long
            // rows is checked as often as one of short rows; once stopped, the part's rows left are skipped.
            std::int64_t sinceCheck = 0;
            for (std::uint64_t i = m_bounds[static_cast<std::size_t>(part)];
                 i < m_bounds[static_cast<std::size_t>(part) + 1]; ++i) {
                sinceCheck += ptr[i + 1] - ptr[i] + 1;
                if (sinceCheck >= static_cast<std::int64_t>(kCancelBlock)) {
                    sinceCheck = 0;
                    if (cancel.stopRequested())
                        break;
                }
                T sum = 0;
                for (std::int64_t k = ptr[i]; k < ptr[i + 1]; ++k)
                    sum += values[k] * x[cols[k]];
                y[i] = sum;
            }
        }
        cancel.throwIfStopped();
    }

private:
    std::vector<std::uint64_t> m_bounds;
};
} // namespace

std::unique_ptr<PreparedRun> prepareCpuOpenMp(
    const data::Dataset& dataset, const ParamSet& params, const RunContext& context)
{
    return makeRun<CpuOpenMpRun>(dataset, params, context);
}

} // namespace ks::spmv
