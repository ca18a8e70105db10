#pragma once

#include "compute/core/variant.h"
#include "compute/device/device_buffer.cuh"
#include "compute/device/stream.cuh"

#include <memory>

namespace ks::device {

/// Base of every GPU variant's prepared state: its own stream, an event timer on it, an L2 flusher, and the
/// upload time measured with events.
class CudaPreparedRun : public PreparedRun {
public:
    RepTimer& timer() override { return m_timer; }
    void flushCaches() override
    {
        if (!m_flusher)
            m_flusher = std::make_unique<L2Flusher>();
        m_flusher->flush(m_stream.get());
    }
    double transferMs() const override { return m_transferMs; }
    /// The stream the run's work is enqueued on (a multi-device run joins its parts' streams with collectives).
    cudaStream_t workStream() const { return m_stream.get(); }

protected:
    CudaPreparedRun()
        : m_timer(m_stream.get())
    {
    }
    cudaStream_t stream() const { return m_stream.get(); }

    /// Runs `enqueue` (host-to-device copies on stream()) between two events and adds the time to transferMs.
    template <class F> void timedUpload(F&& enqueue)
    {
        Event begin;
        Event end;
        begin.record(stream());
        enqueue();
        end.record(stream());
        end.synchronize();
        m_transferMs += end.elapsedSince(begin);
    }

private:
    Stream m_stream;
    EventTimer m_timer;
    std::unique_ptr<L2Flusher> m_flusher;
    double m_transferMs = 0.0;
};

} // namespace ks::device
