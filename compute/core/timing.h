#pragma once

#include <chrono>

namespace ks {

/// Seconds since an arbitrary origin. The runner reads its time limit from it; tests substitute a fake.
class Clock {
public:
    virtual ~Clock() = default;
    virtual double nowSeconds() const = 0;
};

class SteadyClock final : public Clock {
public:
    double nowSeconds() const override
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
};

/// The process-wide steady clock.
const Clock& steadyClock();

/// Times one repetition. CPU work uses a Clock; GPU work records CUDA events on the variant's stream.
class RepTimer {
public:
    virtual ~RepTimer() = default;
    virtual void start() = 0;
    virtual void stop() = 0;
    /// Milliseconds between start and stop; waits for GPU work to finish.
    virtual double elapsedMs() = 0;
};

class ClockTimer final : public RepTimer {
public:
    explicit ClockTimer(const Clock& clock = steadyClock())
        : m_clock(&clock)
    {
    }
    void start() override { m_start = m_clock->nowSeconds(); }
    void stop() override { m_stop = m_clock->nowSeconds(); }
    double elapsedMs() override { return (m_stop - m_start) * 1e3; }

private:
    const Clock* m_clock;
    double m_start = 0.0;
    double m_stop = 0.0;
};

} // namespace ks
