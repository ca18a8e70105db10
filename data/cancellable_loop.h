#pragma once

// The generators' element loops: on every core, in blocks with the run's stop request checked before each. Kept out of
// data/cancel.h, which code built without OpenMP includes too.

#include "data/cancel.h"

#include <algorithm>
#include <cstdint>

namespace ks::data {

/// Calls body(i) for every i in [0, n) (OpenMP, static schedule) in blocks of kCancelBlock, `cancel` checked before
/// each: once stopped, the blocks left are skipped and RunCancelled is thrown after the loop.
template <class Body> void parallelForCancellable(std::int64_t n, const CancelPoint& cancel, Body&& body)
{
    const auto block = static_cast<std::int64_t>(kCancelBlock);
#pragma omp parallel for schedule(static)
    for (std::int64_t b = 0; b < (n + block - 1) / block; ++b) {
        if (cancel.stopRequested())
            continue;
        const std::int64_t end = std::min(n, (b + 1) * block);
        for (std::int64_t i = b * block; i < end; ++i)
            body(i);
    }
    cancel.throwIfStopped();
}

} // namespace ks::data
