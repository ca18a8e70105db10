#pragma once

// How a long CPU repetition sees the run's stop request (Ctrl-C, the app's Cancel) without waiting for its end: CPU
// variants and references check a CancelPoint once per block of work (a row, a tile, a chunk of about a millisecond),
// never per element, so the check costs one atomic load per block and a stop is seen within milliseconds.

#include <cstddef>
#include <exception>
#include <stop_token>
#include <utility>

namespace ks {

/// Elements between two checks in a loop of a few operations per element (a sum, a row of a sparse product): about
/// 0.1 ms of work, so the check is unmeasurable and a stop is seen far within the 50 ms allowed.
inline constexpr std::size_t kCancelBlock = std::size_t(1) << 16;

/// Thrown out of a repetition whose loops saw the run's stop request; the runner turns it into a cancelled run that
/// keeps the repetitions completed before it (the abandoned one is not a sample, and its partial result is not
/// compared).
class RunCancelled : public std::exception {
public:
    const char* what() const noexcept override { return "cancelled"; }
};

/// The run's stop request as CPU loops check it. Inside an OpenMP region an exception must not escape: there a loop
/// tests stopRequested() at the top of each block and skips the blocks left (`continue`, or `break` out of its own
/// inner loop), and throwIfStopped() runs after the region. A stop request is never withdrawn, so a block skipped
/// inside the region always makes the check after it throw.
class CancelPoint {
public:
    CancelPoint() = default;
    explicit CancelPoint(std::stop_token stop)
        : m_stop(std::move(stop))
    {
    }
    /// Whether the run was asked to stop: one atomic load (never true for a default-made point).
    bool stopRequested() const noexcept { return m_stop.stop_requested(); }
    /// Throws RunCancelled when the run was asked to stop; call outside any OpenMP region.
    void throwIfStopped() const
    {
        if (stopRequested())
            throw RunCancelled();
    }

private:
    std::stop_token m_stop;
};

} // namespace ks
