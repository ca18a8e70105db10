#pragma once

#include "compute/core/summary.h"
#include "data/dataset.h"

#include <cstdint>
#include <string>

namespace ks {

/// Where a sweep stands, for progress bars and time-left estimates.
struct SweepProgress {
    int runIndex = 0; ///< 0-based index of the run starting now
    int runCount = 0;
    std::string variant;
    std::uint64_t size = 0;
    double elapsedS = 0.0;
    double remainingS = -1.0; ///< estimate; negative while unknown
};

/// A sink for what runs produce: the CLI's table and files, the GUI's signal adapter, tests' recorders, autosave.
/// Called on the thread that runs the work.
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void onProgress(const SweepProgress&) { }
    virtual void onSample(const Sample&) { }
    virtual void onSummary(const Summary&) { }
    /// Free-form status ("generating n=1000000", "computing the reference").
    virtual void onStatus(const std::string&) { }
    /// The dataset the next runs use (generated for a size, or a subset of a file), before they start.
    virtual void onDataset(const data::Dataset&) { }
};

/// Forwards to several observers in order.
class ObserverFanout final : public RunObserver {
public:
    void add(RunObserver* observer) { m_observers.push_back(observer); }
    void onProgress(const SweepProgress& p) override
    {
        for (auto* o : m_observers)
            o->onProgress(p);
    }
    void onSample(const Sample& s) override
    {
        for (auto* o : m_observers)
            o->onSample(s);
    }
    void onSummary(const Summary& s) override
    {
        for (auto* o : m_observers)
            o->onSummary(s);
    }
    void onStatus(const std::string& s) override
    {
        for (auto* o : m_observers)
            o->onStatus(s);
    }
    void onDataset(const data::Dataset& d) override
    {
        for (auto* o : m_observers)
            o->onDataset(d);
    }

private:
    std::vector<RunObserver*> m_observers;
};

} // namespace ks
