#pragma once

// sdh's user-kernel ABI: the host mirror of ks_sdh_args (the struct a user's entry points take by value).

#include "compute/core/user_kernel.h"

#include <cstdint>

namespace ks::sdh {

/// Filled by a run with the prepared device buffers (the cloud as structure of arrays, the 64-bit histogram); its
/// bytes are the kernels' only parameter.
struct UserKernelArgs {
    const double* x; ///< n coordinates each
    const double* y;
    const double* z;
    std::int32_t n;
    std::int32_t buckets; ///< Buckets::count
    double width; ///< Buckets::width
    unsigned long long* histogram; ///< out: buckets counts, zeroed before every repetition
    void* scratch; ///< the declared scratch bytes, zeroed before every repetition; null when none
    std::uint64_t scratchBytes;
};

/// sdh's ABI: header, template, size names ("n", "buckets").
const UserKernelAbi& userKernelAbi();

} // namespace ks::sdh
