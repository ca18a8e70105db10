#pragma once

// The spmv workload (seed 002): y = A·x for a sparse matrix A in CSR with 32-bit indices, in float64 or float32.

#include "compute/core/cpu_run.h"
#include "compute/core/precision.h"
#include "compute/core/variant.h"
#include "compute/core/workload.h"
#include "data/sparse_matrix.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ks {
class Registry;
}

namespace ks::spmv {

/// A spmv Result: quantity "y", one value per row.
Result makeResult(std::vector<double> y);

/// The values of A and x as a variant of precision T reads them: the dataset's doubles themselves, or copies
/// rounded to float. The reference reads the same values, so a float variant is judged on its arithmetic alone.
template <class T> class HostOperands {
public:
    explicit HostOperands(const data::SparseSystem& system);
    const data::CsrMatrix& matrix() const { return m_matrix; }
    std::span<const T> values() const { return m_values; }
    std::span<const T> x() const { return m_x; }

private:
    const data::CsrMatrix& m_matrix;
    std::vector<T> m_valueCopy, m_xCopy;
    std::span<const T> m_values, m_x;
};

/// Row pointers narrowed to 32 bits for the kernels and cuSPARSE; throws SkipRun when nnz does not fit.
std::vector<std::int32_t> rowPointers32(const data::CsrMatrix& matrix);

/// Mean non-zeros per row (0 for a matrix without rows).
double meanRowLength(const data::CsrMatrix& matrix);

/// Base of the CPU variants: fetch() returns m_y as doubles.
template <class T> class SpmvCpuRun : public CpuPreparedRun {
public:
    using Model = data::SparseSystem;

    SpmvCpuRun(const data::SparseSystem& system, const RunContext& context)
        : CpuPreparedRun(context)
        , m_in(system)
        , m_y(system.matrix.rows)
    {
    }
    Result fetch() override { return makeResult(std::vector<double>(m_y.begin(), m_y.end())); }

protected:
    HostOperands<T> m_in;
    std::vector<T> m_y;
};

/// Adds the spmv workload to the registry.
void registerSpmv(Registry& registry);

} // namespace ks::spmv
