#pragma once

// spmv's user-kernel ABI: the host mirror of ks_spmv_args (the struct a user's entry points take by value).

#include "compute/core/user_kernel.h"

#include <cstdint>

namespace ks::spmv {

/// Filled by a run with the prepared device buffers (SpmvDeviceRun<double>'s); its bytes are the kernels' only
/// parameter.
struct UserKernelArgs {
    std::int32_t rows;
    std::int32_t cols;
    std::int32_t nnz;
    const std::int32_t* rowPtr; ///< rows + 1 offsets (CSR, 32-bit)
    const std::int32_t* colIdx; ///< nnz column indices
    const double* values; ///< nnz values
    const double* x; ///< cols values
    double* y; ///< out: rows values
    void* scratch; ///< the declared scratch bytes, zeroed before every repetition; null when none
    std::uint64_t scratchBytes;
};

/// spmv's ABI: header, template, size names ("rows", "cols", "nnz").
const UserKernelAbi& userKernelAbi();

} // namespace ks::spmv
