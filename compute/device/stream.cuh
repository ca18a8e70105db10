#pragma once

#include "compute/core/timing.h"
#include "compute/device/cuda_check.cuh"

#include <utility>

namespace ks::device {

/// A non-blocking CUDA stream owned RAII-style.
class Stream {
public:
    Stream();
    Stream(Stream&& o) noexcept
        : m_stream(std::exchange(o.m_stream, nullptr))
    {
    }
    Stream& operator=(Stream&& o) noexcept
    {
        std::swap(m_stream, o.m_stream);
        return *this;
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream();
    cudaStream_t get() const { return m_stream; }
    void synchronize() const;

private:
    cudaStream_t m_stream = nullptr;
};

/// A CUDA event owned RAII-style.
class Event {
public:
    Event();
    Event(Event&& o) noexcept
        : m_event(std::exchange(o.m_event, nullptr))
    {
    }
    Event& operator=(Event&& o) noexcept
    {
        std::swap(m_event, o.m_event);
        return *this;
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event();
    cudaEvent_t get() const { return m_event; }
    void record(cudaStream_t stream);
    void synchronize() const;
    /// Milliseconds from `start` to this event (both recorded and complete).
    float elapsedSince(const Event& start) const;

private:
    cudaEvent_t m_event = nullptr;
};

/// Times a repetition with a pair of CUDA events on the variant's stream.
class EventTimer final : public RepTimer {
public:
    explicit EventTimer(cudaStream_t stream)
        : m_stream(stream)
    {
    }
    void start() override { m_start.record(m_stream); }
    void stop() override { m_stop.record(m_stream); }
    double elapsedMs() override;

private:
    cudaStream_t m_stream;
    Event m_start;
    Event m_stop;
};

/// Evicts L2 between repetitions by writing a buffer twice the size of the device's L2 cache.
class L2Flusher {
public:
    L2Flusher();
    void flush(cudaStream_t stream);

private:
    void* m_buffer = nullptr;
    std::size_t m_bytes = 0;

public:
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    ~L2Flusher();
};

} // namespace ks::device
