#pragma once

// linreg's user-kernel ABI: the host mirror of ks_linreg_args (the struct a user's entry points take by value).

#include "compute/core/user_kernel.h"

#include <cstdint>

namespace ks::linreg {

/// Filled by a run with the prepared device buffers; its bytes are the kernels' only parameter.
struct UserKernelArgs {
    const double* x; ///< n values
    const double* y; ///< n values
    std::uint64_t n;
    double* fit; ///< out: slope, intercept
    void* scratch; ///< the declared scratch bytes, zeroed before every repetition; null when none
    std::uint64_t scratchBytes;
};

/// linreg's ABI: header, template, size names ("n").
const UserKernelAbi& userKernelAbi();

} // namespace ks::linreg
