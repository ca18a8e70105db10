#pragma once

// A tiny workload for testing the runner: its "scripted" variant advances a fake clock by scripted durations.
// Every run's output starts poisoned (NaN) as a real variant's prepare poisons its outputs.

#include "compute/core/cpu_run.h"
#include "compute/core/errors.h"
#include "compute/core/observer.h"
#include "compute/core/workload.h"
#include "data/dataset_error.h"

#include <cmath>

#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <stop_token>
#include <vector>

namespace ks::test {

/// A clock tests move by hand.
class FakeClock final : public Clock {
public:
    double nowSeconds() const override { return m_now; }
    void advance(double seconds) { m_now += seconds; }

private:
    double m_now = 1000.0;
};

struct Script {
    std::vector<double> durationsS {0.001}; ///< cycled
    int throwOnCall = -1; ///< run() call index (warm-ups included) that throws a ComputeError
    bool throwSticky = false;
    double resultOffset = 0.0; ///< added to the correct sum
    bool skipInPrepare = false;
    /// Adds 0 to 3 ulps to the sum, by how many runs the workload has made so far (any prepared run's): a stand-in
    /// for atomics whose order of additions changes from run to run.
    bool nondeterministic = false;
    /// Only the workload's first run() anywhere writes the sum; later ones leave the output as they found it, so a
    /// run prepared afresh fetches its poison.
    bool writesOnlyOnce = false;
    int fixedRepetitions = 0; ///< Workload::fixedRepetitions (cnn's steps); 0 for none
    int failPrepareNumber = -1; ///< the prepare of "scripted" (0-based, counted by the workload) that throws
    std::optional<double> bytesMoved = std::nullopt; ///< PreparedRun::bytesMoved of "scripted"
};

/// Sums a vector of doubles; the reference sums exactly, "scripted" follows the Script.
class ScriptedRun final : public PreparedRun {
public:
    ScriptedRun(const std::vector<double>& values, FakeClock& clock, const Script& script, int& runsAnywhere)
        : m_values(values)
        , m_clock(clock)
        , m_script(script)
        , m_timer(clock)
        , m_runsAnywhere(runsAnywhere)
    {
    }
    void run() override
    {
        if (m_calls == m_script.throwOnCall)
            throw ComputeError("scripted failure", m_script.throwSticky);
        m_clock.advance(m_script.durationsS[static_cast<std::size_t>(m_calls) % m_script.durationsS.size()]);
        ++m_calls;
        if (m_script.writesOnlyOnce && m_runsAnywhere > 0)
            return;
        m_sum = std::accumulate(m_values.begin(), m_values.end(), 0.0) + m_script.resultOffset;
        if (m_script.nondeterministic)
            for (int ulp = 0; ulp < m_runsAnywhere % 4; ++ulp)
                m_sum = std::nextafter(m_sum, INFINITY);
        ++m_runsAnywhere;
    }
    Result fetch() override { return Result {"sum", {"sum"}, {m_sum}, {}, {}, {}, {}}; }
    RepTimer& timer() override { return m_timer; }
    std::optional<double> metric() override { return static_cast<double>(m_calls); }
    std::optional<double> bytesMoved() const override { return m_script.bytesMoved; }
    int calls() const { return m_calls; }

private:
    const std::vector<double>& m_values;
    FakeClock& m_clock;
    Script m_script;
    ClockTimer m_timer;
    int& m_runsAnywhere;
    int m_calls = 0;
    double m_sum = std::numeric_limits<double>::quiet_NaN(); ///< poisoned until a run writes it
};

class FakeWorkload final : public Workload {
public:
    /// `referenceScript` times the reference variant (its result stays exact unless the script offsets it).
    FakeWorkload(FakeClock& clock, Script script, Script referenceScript = {})
        : m_clock(clock)
        , m_script(std::move(script))
        , m_referenceScript(std::move(referenceScript))
    {
        m_variants.push_back(cpuVariant("reference", "Exact sum", "plain sum",
            [this](const data::Dataset& d, const ParamSet&, const RunContext&) -> std::unique_ptr<PreparedRun> {
                return std::make_unique<ScriptedRun>(
                    d.as<std::vector<double>>(), m_clock, m_referenceScript, m_referenceRuns);
            }));
        m_variants.push_back(cpuVariant("scripted", "Scripted", "follows a script",
            [this](const data::Dataset& d, const ParamSet&, const RunContext&) -> std::unique_ptr<PreparedRun> {
                if (m_script.skipInPrepare)
                    throw SkipRun("this combination is not supported");
                if (m_scriptedPrepares++ == m_script.failPrepareNumber)
                    throw ComputeError("scripted prepare failure", false);
                return std::make_unique<ScriptedRun>(d.as<std::vector<double>>(), m_clock, m_script, m_scriptedRuns);
            }));
        Variant unbuilt = gpuVariant("unbuilt", "Not built", "never built", Backend::Cuda, PrepareFn());
        m_variants.push_back(unbuilt);
    }

    std::string id() const override { return "fake"; }
    std::string name() const override { return "Fake"; }
    std::string description() const override { return "sums numbers"; }
    std::string datasetKind() const override { return "numbers"; }
    std::string filePatterns() const override { return "*"; }
    std::vector<Axis> parameters() const override { return {Axis::choice("mode", "a choice", "a", {"a", "b"})}; }
    std::vector<Axis> generatorParameters() const override
    {
        return {Axis::integer("n", "count", 10, 1, 1000000), Axis::integer("fail_at", "n that fails", 0, 0, 1000000)};
    }
    std::string sizeParameter() const override { return "n"; }
    std::optional<int> fixedRepetitions(const ParamSet&) const override
    {
        return m_script.fixedRepetitions > 0 ? std::optional<int>(m_script.fixedRepetitions) : std::nullopt;
    }
    TestPlan testPlan() const override { return {{1, 7}, {{"plain", {}}}, {}, {}}; }
    data::Dataset generate(const ParamSet& g) const override
    {
        const auto n = static_cast<std::size_t>(g.integer("n"));
        if (static_cast<std::int64_t>(n) == g.integer("fail_at"))
            throw data::DatasetError("generator", "n", "scripted generator failure");
        std::vector<double> values(n);
        std::iota(values.begin(), values.end(), 1.0);
        data::DatasetMeta meta;
        meta.kind = "numbers";
        meta.name = "numbers n=" + std::to_string(n);
        meta.size = n;
        meta.contentHash = "fake" + std::to_string(n);
        return data::Dataset::make(std::move(meta), std::move(values));
    }
    data::Dataset load(const std::string& path, const data::ReadOptions&) const override
    {
        throw data::DatasetError(path, "", "the fake workload reads no files");
    }
    Cost cost(const data::Dataset& d, const ParamSet&) const override
    {
        const double n = static_cast<double>(d.meta().size);
        return Cost {8.0 * n, n, n, "numbers", Roof::ReadBandwidth};
    }
    double tolerance(const ParamSet&) const override { return 1e-12; }
    Delta compare(const Result& r, const Result& ref, const data::Dataset&, const ParamSet& p) const override
    {
        Delta d;
        d.kind = "rel_err";
        d.tolerance = tolerance(p);
        d.value = std::fabs(r.values.at(0) - ref.values.at(0)) / std::fabs(ref.values.at(0));
        d.computed = true;
        return d;
    }

private:
    FakeClock& m_clock;
    Script m_script;
    int m_referenceRuns = 0; ///< run() calls of every prepared reference run
    int m_scriptedRuns = 0; ///< run() calls of every prepared scripted run
    int m_scriptedPrepares = 0;
    Script m_referenceScript;
};

/// Records everything an observer sees; optionally requests a stop after a number of samples.
class Recorder final : public RunObserver {
public:
    std::vector<Sample> samples;
    std::vector<Summary> summaries;
    std::vector<SweepProgress> progress;
    std::stop_source* stopSource = nullptr;
    std::size_t stopAfterSamples = 0;

    void onSample(const Sample& s) override
    {
        samples.push_back(s);
        if (stopSource && samples.size() == stopAfterSamples)
            stopSource->request_stop();
    }
    void onSummary(const Summary& s) override { summaries.push_back(s); }
    void onProgress(const SweepProgress& p) override { progress.push_back(p); }
};

} // namespace ks::test
