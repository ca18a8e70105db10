#pragma once

// How a long CPU repetition sees the run's stop request (Ctrl-C, the app's Cancel) without waiting for its end: CPU
// variants and references check a CancelPoint once per block of work (a row, a tile, a chunk of about a millisecond),
// never per element, so the check costs one atomic load per block and a stop is seen within milliseconds. Work that
// no RunContext reaches (data/'s generators, a workload's comparison and result facts) checks the ambient point that
// the runner and the sweep set for their thread (AmbientCancel). It lives in data/, the lowest layer with such loops.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <stop_token>
#include <utility>
#include <vector>

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

namespace detail {
inline thread_local CancelPoint t_ambientCancel;
}

/// The stop request of the run or sweep under way on this thread (a default point, never stopped, outside one). Copy
/// it before an OpenMP region: the region's other threads have their own, empty, ambient point.
inline const CancelPoint& ambientCancelPoint() noexcept
{
    return detail::t_ambientCancel;
}

/// Makes `stop` this thread's ambient stop request for the scope, restoring the one before it at the end.
class AmbientCancel {
public:
    explicit AmbientCancel(std::stop_token stop)
        : m_previous(std::exchange(detail::t_ambientCancel, CancelPoint(std::move(stop))))
    {
    }
    ~AmbientCancel() { detail::t_ambientCancel = std::move(m_previous); }
    AmbientCancel(const AmbientCancel&) = delete;
    AmbientCancel& operator=(const AmbientCancel&) = delete;

private:
    CancelPoint m_previous;
};

/// Resizes `values` to `count` elements (new ones value-initialised) in steps of 32 MiB, with a stop check before
/// each: first touching gigabytes takes seconds, which a stop request should not wait for. Reserves first, so no step
/// moves what is there.
template <class T> void resizeCancellably(std::vector<T>& values, std::size_t count, const CancelPoint& cancel)
{
    constexpr std::size_t kStep = std::max<std::size_t>(1, (std::size_t(32) << 20) / sizeof(T));
    if (count <= values.size()) {
        values.resize(count);
        return;
    }
    values.reserve(count);
    while (values.size() < count) {
        cancel.throwIfStopped();
        values.resize(values.size() + std::min(kStep, count - values.size()));
    }
}

/// For loops whose steps are too unequal for a fixed block (the pairs of a triangle's row, say): due() is true on the
/// first step and then once every `every` steps, so `if (countdown.due() && cancel.stopRequested()) break;` checks
/// once per `every` steps. One per thread (make it inside the parallel loop).
class CancelCountdown {
public:
    explicit CancelCountdown(std::size_t every) noexcept
        : m_every(every == 0 ? 1 : every)
    {
    }
    bool due() noexcept
    {
        if (m_left-- != 0)
            return false;
        m_left = m_every - 1;
        return true;
    }

private:
    std::size_t m_every;
    std::size_t m_left = 0;
};

} // namespace ks
