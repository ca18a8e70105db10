// Cancelling inside a repetition: every CPU variant and reference of every workload checks the run's stop request in
// its loops (cancel.h), so a stop ends a long repetition within milliseconds of work instead of at its end; the runner
// keeps the repetitions before it, and a reference computation stops the same way.
#include "compute/core/cancel.h"
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <thread>

namespace ks {
namespace {

using Seconds = std::chrono::duration<double>;

/// Generator settings that make one repetition of every CPU variant of the workload last from tens of milliseconds
/// (the memory-bound sums and products) to about a second (the references), in well under a gigabyte.
const std::map<std::string, std::map<std::string, std::string>>& longInputs()
{
    static const std::map<std::string, std::map<std::string, std::string>> inputs {
        {"linreg", {{"n", "20000000"}}},
        {"spmv", {{"rows", "2000000"}, {"per_row", "12"}}},
        {"sdh", {{"points", "20000"}}},
        {"lrv", {{"features", "1500"}}},
        {"cnn", {{"images", "256"}, {"held_out", "0"}}},
    };
    return inputs;
}

/// The long dataset of a workload, made once for all its variants.
const data::Dataset& longDataset(const Workload& workload)
{
    static std::map<std::string, data::Dataset> made;
    auto found = made.find(workload.id());
    if (found == made.end())
        found = made.emplace(workload.id(),
                        workload.generate(
                            ParamSet::parse(workload.generatorParameters(), longInputs().at(workload.id()))))
                    .first;
    return found->second;
}

struct CpuCase {
    std::string workload;
    std::string variant;
};

std::vector<CpuCase> everyCpuVariant()
{
    std::vector<CpuCase> cases;
    for (const auto& w : defaultRegistry().workloads())
        for (const Variant& v : w->variants())
            if (v.backend == Backend::Cpu)
                cases.push_back({w->id(), v.id});
    return cases;
}

/// What one repetition did when a stop was requested `after` seconds into it (before it, at 0; never, when
/// negative): how long it ran, whether it threw RunCancelled, and how long after the request it ended.
struct Stopped {
    double runS = 0.0;
    bool cancelled = false;
    double afterRequestS = 0.0;
    bool requested = false; ///< the stop was requested while the repetition still ran
};

Stopped runAndStop(const Variant& variant, const data::Dataset& dataset, const ParamSet& params, double after)
{
    std::stop_source source;
    const RunContext context {0, &steadyClock(), source.get_token()};
    const auto prepared = variant.prepare(dataset, params, context);
    Stopped result;
    if (after == 0.0) {
        source.request_stop();
        result.requested = true;
    }
    const auto started = std::chrono::steady_clock::now();
    auto repetition = std::async(std::launch::async, [&] {
        try {
            prepared->run();
        } catch (const RunCancelled&) {
            result.cancelled = true;
        }
        return std::chrono::steady_clock::now();
    });
    auto requested = started;
    if (after > 0.0 && repetition.wait_for(Seconds(after)) == std::future_status::timeout) {
        requested = std::chrono::steady_clock::now();
        source.request_stop();
        result.requested = true;
    }
    const auto ended = repetition.get();
    result.runS = Seconds(ended - started).count();
    result.afterRequestS = Seconds(ended - requested).count();
    return result;
}

class CancelCpuVariant : public ::testing::TestWithParam<CpuCase> { };

TEST_P(CancelCpuVariant, AStopEndsTheRepetitionWithinMilliseconds)
{
    const Workload& workload = *defaultRegistry().find(GetParam().workload);
    const Variant& variant = *workload.findVariant(GetParam().variant);
    const data::Dataset& dataset = longDataset(workload);
    const ParamSet params = ParamSet::parse(workload.parameters(), {});

    const Stopped whole = runAndStop(variant, dataset, params, -1.0);
    ASSERT_FALSE(whole.cancelled);

    // Stopped before it starts: the first check, before any block of work, throws — within 50 ms, or a tenth of a
    // whole repetition where other work slows the machine down (under the sanitizers, beside a build on two cores,
    // starting the repetition's thread alone took 100 ms once).
    const Stopped early = runAndStop(variant, dataset, params, 0.0);
    EXPECT_TRUE(early.cancelled) << "a repetition whose run was stopped before it began did not throw RunCancelled";
    EXPECT_LT(early.runS, std::max(0.05, whole.runS / 10.0));

    // Stopped a third of the way through a whole repetition: it ends within 100 ms of the request. When the whole
    // repetition was slowed by other work on the machine, the next may end before its third: then a sixth, …
    Stopped midway;
    for (double share = 3.0; share <= 24.0 && !midway.requested; share *= 2.0)
        midway = runAndStop(variant, dataset, params, whole.runS / share);
    if (whole.runS > 0.1) {
        EXPECT_TRUE(midway.cancelled) << "a " << whole.runS << " s repetition ran to its end";
    }
    EXPECT_LT(midway.afterRequestS, 0.1) << "a whole repetition takes " << whole.runS << " s";
    std::cout << "  " << workload.id() << "/" << variant.id << ": a repetition takes " << whole.runS * 1e3
              << " ms; stopped a third of the way, it ended " << midway.afterRequestS * 1e3
              << " ms after the request\n";
}

INSTANTIATE_TEST_SUITE_P(EveryWorkload, CancelCpuVariant, ::testing::ValuesIn(everyCpuVariant()),
    [](const ::testing::TestParamInfo<CpuCase>& test) { return test.param.workload + "_" + test.param.variant; });

/// Collects the samples the runner reports.
struct Recorder : RunObserver {
    void onSample(const Sample& s) override { samples.push_back(s); }
    std::vector<Sample> samples;
};

/// Requests a stop half a repetition after the second sample: in the middle of the third repetition.
struct StopInTheThird : Recorder {
    void onSample(const Sample& s) override
    {
        Recorder::onSample(s);
        if (samples.size() == 2)
            stopper = std::thread([this] {
                std::this_thread::sleep_for(Seconds(repetitionS / 2.0));
                requested = std::chrono::steady_clock::now();
                source.request_stop();
            });
    }
    std::stop_source source;
    double repetitionS = 0.0;
    std::chrono::steady_clock::time_point requested;
    std::thread stopper;
};

TEST(CancelRunner, AStopInsideARepetitionKeepsTheOnesBeforeIt)
{
    const Workload& sdh = *defaultRegistry().find("sdh");
    const data::Dataset dataset = sdh.generate(ParamSet::parse(sdh.generatorParameters(), {{"points", "12000"}}));
    const ParamSet params = ParamSet::parse(sdh.parameters(), {});
    const Variant& variant = *sdh.findVariant("cpu_openmp");
    RunOptions options;
    options.warmup = 0;
    options.minRepetitions = 1000;
    options.maxRepetitions = 1000;
    options.timeLimitS = 600.0;
    options.flushL2 = false;
    Runner runner;
    runner.setCeilingsProvider({});
    const auto reference = runner.computeReference(sdh, dataset, params);
    const RunRequest request {&sdh, &variant, dataset, params, options, reference, "cancel-001"};

    StopInTheThird observer;
    {
        const auto prepared = variant.prepare(dataset, params, RunContext {0, &steadyClock()});
        const auto started = std::chrono::steady_clock::now();
        prepared->run();
        observer.repetitionS = Seconds(std::chrono::steady_clock::now() - started).count();
    }
    const Summary s = runner.run(request, observer, observer.source.get_token());
    const auto ended = std::chrono::steady_clock::now();
    observer.stopper.join();

    EXPECT_EQ(s.outcome, Outcome::Cancelled);
    EXPECT_EQ(s.stopReason, StopReason::Cancelled);
    EXPECT_EQ(s.repetitions, 2) << "the abandoned repetition is not a sample";
    EXPECT_EQ(s.samplesMs.size(), 2u);
    EXPECT_EQ(observer.samples.size(), 2u);
    EXPECT_GT(s.medianMs, 0.0);
    EXPECT_FALSE(s.delta.computed) << "the abandoned repetition's partial histogram was compared";
    EXPECT_NE(s.message.find("abandoned"), std::string::npos) << s.message;
    EXPECT_LT(Seconds(ended - observer.requested).count(), 0.1)
        << "a repetition takes " << observer.repetitionS << " s";
}

TEST(CancelRunner, AStopEndsTheReferenceComputation)
{
    const Workload& sdh = *defaultRegistry().find("sdh");
    const data::Dataset dataset = sdh.generate(ParamSet::parse(sdh.generatorParameters(), {{"points", "30000"}}));
    const ParamSet params = ParamSet::parse(sdh.parameters(), {});
    Runner runner;
    std::stop_source source;
    auto reference = std::async(std::launch::async, [&] {
        try {
            runner.computeReference(sdh, dataset, params, source.get_token());
            ADD_FAILURE() << "the reference ran to its end";
        } catch (const RunCancelled&) {
        }
        return std::chrono::steady_clock::now();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto requested = std::chrono::steady_clock::now();
    source.request_stop();
    EXPECT_LT(Seconds(reference.get() - requested).count(), 0.1);
}

TEST(CancelRunner, ASweepStoppedInItsReferenceEndsWithNoRows)
{
    SweepRequest request;
    request.workload = defaultRegistry().find("sdh");
    request.variantIds = {"cpu_openmp"};
    request.generator = {{"points", "30000"}};
    Runner runner;
    runner.setCeilingsProvider({});
    std::stop_source source;
    Recorder observer;
    auto sweep
        = std::async(std::launch::async, [&] { return runSweep(request, runner, observer, source.get_token()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto requested = std::chrono::steady_clock::now();
    source.request_stop();
    const std::vector<Summary> summaries = sweep.get();
    EXPECT_LT(Seconds(std::chrono::steady_clock::now() - requested).count(), 0.1);
    EXPECT_TRUE(summaries.empty());
    EXPECT_TRUE(observer.samples.empty());
}

} // namespace
} // namespace ks
