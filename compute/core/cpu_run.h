#pragma once

#include "compute/core/cancel.h"
#include "compute/core/variant.h"

#include <vector>

namespace ks {

/// Evicts the host's caches by writing a buffer twice the size of the last-level cache.
class HostCacheFlusher {
public:
    void flush();

private:
    std::vector<unsigned char> m_buffer;
};

/// Base of every CPU variant's prepared state: a clock timer, a cache flusher and the run's stop request.
class CpuPreparedRun : public PreparedRun {
public:
    explicit CpuPreparedRun(const RunContext& context)
        : m_timer(context.clock ? *context.clock : steadyClock())
        , m_cancel(context.stop)
    {
    }
    RepTimer& timer() override { return m_timer; }
    void flushCaches() override { m_flusher.flush(); }

protected:
    /// What run()'s loops check once per block of work (cancel.h): a repetition the run was asked to stop ends within
    /// milliseconds by throwing RunCancelled.
    const CancelPoint& cancelPoint() const { return m_cancel; }

private:
    ClockTimer m_timer;
    HostCacheFlusher m_flusher;
    CancelPoint m_cancel;
};

} // namespace ks
