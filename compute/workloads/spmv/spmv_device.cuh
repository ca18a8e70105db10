#pragma once

// Device-side state shared by the spmv CUDA and library variants: A in CSR with 32-bit indices, x, and y.

#include "compute/core/make_run.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/device_info.h"
#include "compute/workloads/spmv/spmv.h"

#include <string>
#include <vector>

namespace ks::spmv::gpu {

/// Base of every spmv GPU variant: A (row pointers, columns and values in T) and x uploaded once, y poisoned with
/// NaN (at prepare and by reset()) so a row no kernel writes shows; fetch() returns y as doubles.
template <class T> class SpmvDeviceRun : public device::CudaPreparedRun {
public:
    using Model = data::SparseSystem;

    /// `extraBytes`: what the variant allocates besides A, x and y (checked against free memory with them).
    SpmvDeviceRun(const data::SparseSystem& system, std::size_t extraBytes)
        : m_matrix(system.matrix)
        , m_rows(static_cast<int>(system.matrix.rows))
        , m_cols(static_cast<int>(system.matrix.cols))
        , m_nnz(static_cast<int>(rowPointers32Checked(system.matrix)))
    {
        const std::size_t bytes = (m_matrix.rows + 1) * sizeof(int) + m_matrix.nnz() * (sizeof(int) + sizeof(T))
            + (m_matrix.rows + m_matrix.cols) * sizeof(T) + extraBytes;
        device::requireDeviceMemory(bytes,
            "spmv on a " + std::to_string(m_matrix.rows) + " × " + std::to_string(m_matrix.cols) + " matrix with "
                + std::to_string(m_matrix.nnz()) + " non-zeros");
        const HostOperands<T> in(system);
        const std::vector<std::int32_t> rowPtr = rowPointers32(m_matrix);
        m_rowPtr = device::DeviceBuffer<int>(rowPtr.size());
        m_colIdx = device::DeviceBuffer<int>(m_matrix.colIdx.size());
        m_values = device::DeviceBuffer<T>(in.values().size());
        m_x = device::DeviceBuffer<T>(in.x().size());
        m_y = device::DeviceBuffer<T>(m_matrix.rows);
        timedUpload([&] {
            m_rowPtr.uploadAsync(rowPtr, stream());
            m_colIdx.uploadAsync(m_matrix.colIdx, stream());
            m_values.uploadAsync(in.values(), stream());
            m_x.uploadAsync(in.x(), stream());
        });
        m_y.fillBytesAsync(0xff, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }

    /// Poisons y again after the warm-ups, so that a timed repetition that leaves a row unwritten shows in the
    /// result instead of a warm-up's value.
    void reset() override { m_y.fillBytesAsync(0xff, stream()); }

    Result fetch() override
    {
        std::vector<T> y(m_y.size());
        m_y.downloadAsync(y, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return makeResult(std::vector<double>(y.begin(), y.end()));
    }

protected:
    static std::uint64_t rowPointers32Checked(const data::CsrMatrix& matrix)
    {
        if (matrix.nnz() > 0x7fffffffULL)
            rowPointers32(matrix); // throws SkipRun with the reason
        return matrix.nnz();
    }

    const data::CsrMatrix& m_matrix;
    int m_rows;
    int m_cols;
    int m_nnz;
    device::DeviceBuffer<int> m_rowPtr;
    device::DeviceBuffer<int> m_colIdx;
    device::DeviceBuffer<T> m_values;
    device::DeviceBuffer<T> m_x;
    device::DeviceBuffer<T> m_y;
};

} // namespace ks::spmv::gpu
