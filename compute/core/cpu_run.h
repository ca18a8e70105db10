#pragma once

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

/// Base of every CPU variant's prepared state: a clock timer and a cache flusher.
class CpuPreparedRun : public PreparedRun {
public:
    explicit CpuPreparedRun(const RunContext& context)
        : m_timer(context.clock ? *context.clock : steadyClock())
    {
    }
    RepTimer& timer() override { return m_timer; }
    void flushCaches() override { m_flusher.flush(); }

private:
    ClockTimer m_timer;
    HostCacheFlusher m_flusher;
};

} // namespace ks
