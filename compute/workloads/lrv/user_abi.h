#pragma once

// lrv's user-kernel ABI: the host mirror of ks_lrv_args (the struct a user's entry points take by value).

#include "compute/core/user_kernel.h"

#include <cstdint>

namespace ks::lrv {

/// Filled by a run with the prepared device buffers (LrvDeviceRun's Y and one output buffer for the whole half
/// matrix); its bytes are the kernels' only parameter.
struct UserKernelArgs {
    const double* y; ///< n × p, row-major
    std::uint64_t n; ///< samples
    std::uint64_t p; ///< features
    std::uint64_t pairs; ///< p(p − 1)/2
    double* out; ///< out: pairs values in pairIndex order
    void* scratch; ///< the declared scratch bytes, zeroed before every repetition; null when none
    std::uint64_t scratchBytes;
};

/// lrv's ABI: header, template, size names ("n", "p", "pairs").
const UserKernelAbi& userKernelAbi();

} // namespace ks::lrv
