// The runner's timing protocol, driven by a fake clock: stopping rule, limits, streaming, cancellation, failures.
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/stats.h"
#include "compute/core/sweep.h"
#include "compute/device/device_info.h"
#include "fake_workload.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <iostream>

namespace ks::test {
namespace {

struct Fixture {
    FakeClock clock;
    std::unique_ptr<FakeWorkload> workload;
    Runner runner {clock};
    data::Dataset dataset;
    ParamSet params;

    explicit Fixture(Script script = {})
        : workload(std::make_unique<FakeWorkload>(clock, std::move(script)))
    {
        runner.setCeilingsProvider([](Backend, int) -> std::optional<Ceilings> {
            Ceilings c;
            c.readGBs = 100.0;
            return c;
        });
        dataset = workload->generate(ParamSet::parse(workload->generatorParameters(), {}));
        params = ParamSet::parse(workload->parameters(), {});
    }

    Summary run(const std::string& variant, RunOptions options, Recorder& recorder, std::stop_token stop = {})
    {
        RunRequest request {workload.get(), workload->findVariant(variant), dataset, params, options,
            runner.computeReference(*workload, dataset, params), "test-001"};
        return runner.run(request, recorder, stop);
    }
};

RunOptions quickOptions()
{
    RunOptions o;
    o.warmup = 1;
    o.minRepetitions = 5;
    o.maxRepetitions = 50;
    o.noiseTarget = 0.005;
    o.timeLimitS = 100.0;
    o.flushL2 = false;
    return o;
}

TEST(Runner, StopsAtMinimumCountWhenTheNoiseIsUnderTheTarget)
{
    Fixture f(Script {{0.002}});
    Recorder recorder;
    const Summary s = f.run("scripted", quickOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.repetitions, 5);
    EXPECT_NEAR(s.medianMs, 2.0, 1e-6);
    EXPECT_NEAR(s.noisePct, 0.0, 1e-6);
    EXPECT_EQ(s.stopReason, StopReason::NoiseTarget);
    EXPECT_FALSE(s.noisy());
    ASSERT_TRUE(s.medianRsePct.has_value());
    EXPECT_NEAR(*s.medianRsePct, 0.0, 1e-9);
}

TEST(Runner, RepeatsUntilTheStandardErrorFallsUnderTheTarget)
{
    // Alternating 1 and 3 ms: relative stdev ~0.5, so RSE < 5% needs about 100 samples.
    Fixture f(Script {{0.001, 0.003}});
    RunOptions o = quickOptions();
    o.noiseTarget = 0.05;
    o.maxRepetitions = 1000;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_GT(s.repetitions, 80);
    EXPECT_LT(s.repetitions, 130);
    RunningStats check;
    for (double ms : s.samplesMs)
        check.add(ms);
    EXPECT_LE(check.relativeStandardError(), 0.05);
    EXPECT_EQ(s.stopReason, StopReason::NoiseTarget);
    EXPECT_FALSE(s.noisy());
    // Half the samples are 1 ms, half 3 ms: the median sits between them and its error is the interval's spread.
    ASSERT_TRUE(s.medianRsePct.has_value());
    EXPECT_NEAR(*s.medianRsePct, 100.0 * medianRelativeStandardError(s.samplesMs).value(), 1e-12);
}

TEST(Runner, StopsAtTheMaximumCount)
{
    Fixture f(Script {{0.001, 0.003}});
    RunOptions o = quickOptions();
    o.noiseTarget = 1e-9;
    o.maxRepetitions = 17;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_EQ(s.repetitions, 17);
    EXPECT_EQ(s.stopReason, StopReason::MaxRepetitions);
    EXPECT_TRUE(s.noisy());
}

TEST(Runner, ReachingTheTargetOnTheLastAllowedRepetitionIsNotNoisy)
{
    Fixture f(Script {{0.002}});
    RunOptions o = quickOptions();
    o.minRepetitions = 5;
    o.maxRepetitions = 5;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_EQ(s.repetitions, 5);
    EXPECT_EQ(s.stopReason, StopReason::NoiseTarget);
    EXPECT_FALSE(s.noisy());
}

TEST(Runner, AFixedCountIsNeverNoisy)
{
    // cnn's steps: the count is the workload's, whatever the noise.
    Script script {{0.001, 0.003}};
    script.fixedRepetitions = 7;
    Fixture f(script);
    RunOptions o = quickOptions();
    o.noiseTarget = 1e-9;
    o.timeLimitS = 0.001;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_EQ(s.repetitions, 7);
    EXPECT_EQ(s.stopReason, StopReason::FixedCount);
    EXPECT_FALSE(s.noisy());
    EXPECT_GT(s.noisePct, 10.0);
}

TEST(Runner, StopsAtTheTimeLimitCountingWarmups)
{
    Fixture f(Script {{1.0, 1.5}});
    RunOptions o = quickOptions();
    o.minRepetitions = 10;
    o.timeLimitS = 3.6;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    // warm-up 1 s, then 1.5, 1.0, 1.5 s: the limit is crossed by the third timed repetition.
    EXPECT_EQ(s.repetitions, 3);
    EXPECT_EQ(s.outcome, Outcome::Passed);
    EXPECT_EQ(s.stopReason, StopReason::TimeLimit);
    EXPECT_TRUE(s.noisy());
    EXPECT_TRUE(s.medianRsePct.has_value());
}

TEST(Runner, AlwaysTimesAtLeastOneRepetitionEvenPastTheLimit)
{
    Fixture f(Script {{5.0}});
    RunOptions o = quickOptions();
    o.timeLimitS = 1.0;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_EQ(s.repetitions, 1);
    EXPECT_EQ(s.stopReason, StopReason::TimeLimit);
    EXPECT_TRUE(s.noisy());
    // One repetition says nothing about the median's error: undefined, not zero.
    EXPECT_FALSE(s.medianRsePct.has_value());
}

TEST(Runner, StreamsEverySampleInOrder)
{
    Fixture f(Script {{0.001, 0.002, 0.004}});
    RunOptions o = quickOptions();
    o.noiseTarget = 1e-9;
    o.maxRepetitions = 9;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    ASSERT_EQ(recorder.samples.size(), 9u);
    ASSERT_EQ(recorder.summaries.size(), 1u);
    for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(recorder.samples[static_cast<std::size_t>(i)].repetition, i);
        EXPECT_EQ(recorder.samples[static_cast<std::size_t>(i)].variant, "scripted");
        EXPECT_NEAR(recorder.samples[static_cast<std::size_t>(i)].ms, s.samplesMs[static_cast<std::size_t>(i)], 1e-6);
        EXPECT_TRUE(recorder.samples[static_cast<std::size_t>(i)].metric.has_value());
    }
    // The warm-up (call 0) ran 1 ms; timed calls continue the cycle at 2 ms.
    EXPECT_NEAR(s.samplesMs[0], 2.0, 1e-6);
    EXPECT_NEAR(s.samplesMs[1], 4.0, 1e-6);
    EXPECT_NEAR(s.samplesMs[2], 1.0, 1e-6);
    EXPECT_EQ(s.sampleMetrics.size(), 9u);
}

TEST(Runner, SummaryStatisticsAndRates)
{
    Fixture f(Script {{0.004, 0.001, 0.002, 0.003, 0.100}});
    RunOptions o = quickOptions();
    o.warmup = 0;
    o.noiseTarget = 1e-9;
    o.maxRepetitions = 5;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_NEAR(s.medianMs, 3.0, 1e-6);
    EXPECT_NEAR(s.minMs, 1.0, 1e-6);
    EXPECT_NEAR(s.maxMs, 100.0, 1e-6);
    EXPECT_NEAR(s.meanMs, 22.0, 1e-6);
    // 10 numbers of 8 bytes in 3 ms; ceiling 100 GB/s.
    EXPECT_DOUBLE_EQ(s.bytes, 80.0);
    EXPECT_NEAR(s.gbPerS, 80.0 / 3e-3 / 1e9, 1e-12);
    EXPECT_NEAR(s.itemsPerS, 10.0 / 3e-3, 1e-4);
    EXPECT_DOUBLE_EQ(s.peakValue, 100.0);
    EXPECT_NEAR(s.pctOfPeak, 100.0 * s.gbPerS / 100.0, 1e-12);
    EXPECT_EQ(s.peakKind, "read_bandwidth");
    EXPECT_EQ(s.workload, "fake");
    EXPECT_EQ(s.datasetHash, "fake10");
    EXPECT_EQ(s.size, 10u);
    EXPECT_EQ(s.device.kind, "host");
    EXPECT_FALSE(s.timestamp.empty());
}

TEST(Runner, AVariantsOwnBytesReplaceTheCostModelsInTheRates)
{
    // spmv's dia reads no column indices: its bytes are what it stores, not the CSR arrays the cost model counts.
    Script script {{0.002}};
    script.bytesMoved = 48.0;
    Fixture f(script);
    RunOptions o = quickOptions();
    o.warmup = 0;
    o.maxRepetitions = 5;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_DOUBLE_EQ(s.bytes, 48.0);
    EXPECT_NEAR(s.gbPerS, 48.0 / 2e-3 / 1e9, 1e-12);
    EXPECT_NEAR(s.pctOfPeak, 100.0 * s.gbPerS / 100.0, 1e-12);
    EXPECT_NEAR(s.itemsPerS, 10.0 / 2e-3, 1e-4); // the work done is the workload's still
    // The reference keeps the cost model's.
    const Summary reference = f.run("reference", o, recorder);
    EXPECT_DOUBLE_EQ(reference.bytes, 80.0);
}

TEST(Runner, CancellationKeepsWhatWasMeasured)
{
    Fixture f(Script {{0.001}});
    RunOptions o = quickOptions();
    o.noiseTarget = 1e-9;
    std::stop_source stop;
    Recorder recorder;
    recorder.stopSource = &stop;
    recorder.stopAfterSamples = 3;
    const Summary s = f.run("scripted", o, recorder, stop.get_token());
    EXPECT_EQ(s.outcome, Outcome::Cancelled);
    EXPECT_EQ(s.repetitions, 3);
    EXPECT_EQ(s.samplesMs.size(), 3u);
    EXPECT_TRUE(s.delta.computed);
    EXPECT_NE(s.result, nullptr);
    EXPECT_EQ(s.stopReason, StopReason::Cancelled);
    EXPECT_FALSE(s.noisy());
}

TEST(Runner, AFailureMidRunKeepsTheSamplesAndNamesTheVariant)
{
    Script script;
    script.throwOnCall = 3; // warm-up is call 0: two timed repetitions succeed
    Fixture f(script);
    RunOptions o = quickOptions();
    o.noiseTarget = 1e-9;
    Recorder recorder;
    const Summary s = f.run("scripted", o, recorder);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_EQ(s.repetitions, 2);
    EXPECT_NE(s.message.find("variant scripted"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("scripted failure"), std::string::npos) << s.message;
}

TEST(Runner, AStickyErrorMakesCudaUnavailable)
{
    // Marking CUDA unusable is process-wide and permanent: check it in a child process.
    EXPECT_EXIT(
        {
            Script script;
            script.throwOnCall = 0;
            script.throwSticky = true;
            Fixture f(script);
            Recorder recorder;
            const Summary s = f.run("scripted", quickOptions(), recorder);
            const bool marked = s.outcome == Outcome::Failed
                && device::cudaUnusableReason().find("scripted") != std::string::npos
                && !device::cudaUnavailableReason().empty();
            std::exit(marked ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(Runner, SkipRunBecomesSkippedWithTheReason)
{
    Script script;
    script.skipInPrepare = true;
    Fixture f(script);
    Recorder recorder;
    const Summary s = f.run("scripted", quickOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Skipped);
    EXPECT_EQ(s.message, "this combination is not supported");
    EXPECT_EQ(s.repetitions, 0);
    EXPECT_EQ(s.stopReason, StopReason::None);
    EXPECT_FALSE(s.noisy());
}

TEST(Runner, AVariantThatWasNotBuiltIsSkippedWithTheReason)
{
    Fixture f;
    Recorder recorder;
    const Summary s = f.run("unbuilt", quickOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Skipped);
    EXPECT_NE(s.message.find("built without CUDA"), std::string::npos);
}

TEST(Runner, AResultOverTheToleranceIsIncorrect)
{
    Script script;
    script.resultOffset = 1e-6;
    Fixture f(script);
    Recorder recorder;
    const Summary s = f.run("scripted", quickOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Incorrect);
    EXPECT_GT(s.delta.value, s.delta.tolerance);
}

RunOptions determinismOptions()
{
    RunOptions o = quickOptions();
    o.checkDeterminism = true;
    return o;
}

TEST(Runner, ADeterministicRunIsBitIdenticalOnASecondRun)
{
    Fixture f;
    Recorder recorder;
    const Summary s = f.run("scripted", determinismOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.deterministic, std::optional<bool>(true));
    // The second run is untimed: it streams no sample.
    EXPECT_EQ(recorder.samples.size(), static_cast<std::size_t>(s.repetitions));
}

TEST(Runner, ANondeterministicRunDiffersOnASecondRun)
{
    Script script;
    script.nondeterministic = true;
    Fixture f(script);
    Recorder recorder;
    const Summary s = f.run("scripted", determinismOptions(), recorder);
    // A few ulps are within the tolerance: correct, yet not reproducible.
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.deterministic, std::optional<bool>(false));
}

TEST(Runner, AStaleOutputCannotPassAsDeterministic)
{
    // The variant writes its output once; a second run on the same prepared state would fetch the first result
    // again. The check prepares afresh, with the output poisoned, so the unwritten output shows.
    Script script;
    script.writesOnlyOnce = true;
    Fixture f(script);
    Recorder recorder;
    const Summary s = f.run("scripted", determinismOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.deterministic, std::optional<bool>(false));
}

TEST(Runner, DeterminismIsCheckedOnlyWhenAsked)
{
    Script script;
    script.nondeterministic = true;
    Fixture f(script);
    Recorder recorder;
    EXPECT_FALSE(f.run("scripted", quickOptions(), recorder).deterministic.has_value());
}

TEST(Runner, ACancelledRunIsNotCheckedForDeterminism)
{
    Fixture f;
    std::stop_source stop;
    Recorder recorder;
    recorder.stopSource = &stop;
    recorder.stopAfterSamples = 2;
    RunOptions o = determinismOptions();
    o.noiseTarget = 1e-9;
    const Summary s = f.run("scripted", o, recorder, stop.get_token());
    EXPECT_EQ(s.outcome, Outcome::Cancelled);
    EXPECT_FALSE(s.deterministic.has_value());
}

TEST(Runner, AFailedSecondRunLeavesTheVerdictEmptyAndSaysWhy)
{
    Script script;
    script.failPrepareNumber = 1; // the determinism check's prepare
    Fixture f(script);
    Recorder recorder;
    const Summary s = f.run("scripted", determinismOptions(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_GT(s.repetitions, 0);
    EXPECT_FALSE(s.deterministic.has_value());
    EXPECT_NE(s.message.find("determinism not checked: scripted prepare failure"), std::string::npos) << s.message;
}

TEST(Runner, ChecksTheDeterminismOfEveryStatelessVariantInTheRegistry)
{
    // Real variants through the real prepare: the second run is prepared afresh (on a GPU, after the timed run's
    // buffers are freed) and compared. The verdicts are printed, not asserted: atomics may or may not reorder on a
    // given device and size. CUDA variants skip without a device.
    for (const auto& workload : defaultRegistry().workloads()) {
        const ParamSet params = ParamSet::parse(workload->parameters(), {});
        if (workload->fixedRepetitions(params))
            continue; // a run with state (cnn) is replayed instead
        const auto& sizes = workload->testPlan().sizes;
        const std::uint64_t size = *std::max_element(sizes.begin(), sizes.end());
        std::map<std::string, std::string> generator {{workload->sizeParameter(), std::to_string(size)}};
        if (const auto fit = workload->testPlan().fitToSize)
            fit(generator, size);
        const auto dataset = workload->generate(ParamSet::parse(workload->generatorParameters(), generator));
        Runner runner;
        runner.setCeilingsProvider({});
        const auto reference = runner.computeReference(*workload, dataset, params);
        for (const auto& variant : workload->variants()) {
            if (!unavailableReason(variant).empty())
                continue;
            RunOptions o;
            o.warmup = 0;
            o.minRepetitions = 1;
            o.maxRepetitions = 1;
            o.flushL2 = false;
            o.checkDeterminism = true;
            RunRequest request {workload.get(), &variant, dataset, params, o, reference, "determinism"};
            RunObserver none;
            const Summary s = runner.run(request, none);
            const std::string name = workload->id() + "/" + variant.id + " at " + std::to_string(size);
            if (s.outcome == Outcome::Skipped)
                continue;
            EXPECT_TRUE(s.deterministic.has_value()) << name << ": " << s.message;
            EXPECT_EQ(s.message.find("determinism not checked"), std::string::npos) << name << ": " << s.message;
            std::cout << name << ": "
                      << (s.deterministic ? (*s.deterministic ? "bit-identical" : "differs") : "not checked") << '\n';
        }
    }
}

TEST(IdenticalBits, ComparesEveryPartOfAResultByItsBits)
{
    const Result base {
        "fit", {"slope", "intercept"}, {1.5, -0.0}, {3, 4}, {"a"}, "weights", {NamedArray {"w", {2}, {1.0f, 2.0f}}}};
    EXPECT_TRUE(identicalBits(base, base));

    Result r = base;
    r.values[1] = 0.0; // -0 and +0 compare equal as numbers, not as bits
    EXPECT_FALSE(identicalBits(base, r));
    r = base;
    r.values[0] = std::nextafter(1.5, 2.0);
    EXPECT_FALSE(identicalBits(base, r));
    r = base;
    r.counts[1] = 5;
    EXPECT_FALSE(identicalBits(base, r));
    r = base;
    r.arrays[0].values[1] = std::nextafter(2.0f, 3.0f);
    EXPECT_FALSE(identicalBits(base, r));
    r = base;
    r.values.push_back(0.0);
    EXPECT_FALSE(identicalBits(base, r));

    // The same NaN is the same bits: a result that is NaN both times is reproducible (and incorrect).
    Result nan = base;
    nan.values[0] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(identicalBits(nan, nan));
}

TEST(Sweep, RunsEverySizeAndVariantWithProgress)
{
    Fixture f;
    SweepRequest request;
    request.workload = f.workload.get();
    request.variantIds = {"reference", "scripted"};
    request.sizes = {1, 31, 1000};
    request.options = quickOptions();
    request.runIdPrefix = "sweep";
    Recorder recorder;
    const auto summaries = runSweep(request, f.runner, recorder);
    ASSERT_EQ(summaries.size(), 6u);
    EXPECT_EQ(recorder.progress.size(), 6u);
    EXPECT_EQ(recorder.progress.back().runCount, 6);
    EXPECT_EQ(summaries[0].size, 1u);
    EXPECT_EQ(summaries[5].size, 1000u);
    EXPECT_EQ(summaries[5].runId, "sweep-006");
    for (const auto& s : summaries)
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.variant << " " << s.message;
}

TEST(Sweep, AFailingSizeBecomesFailedRowsAndTheSweepGoesOn)
{
    Fixture f;
    SweepRequest request;
    request.workload = f.workload.get();
    request.variantIds = {"scripted"};
    request.sizes = {5, 7, 9};
    request.generator = {{"fail_at", "7"}};
    request.options = quickOptions();
    Recorder recorder;
    const auto summaries = runSweep(request, f.runner, recorder);
    ASSERT_EQ(summaries.size(), 3u);
    EXPECT_EQ(summaries[0].outcome, Outcome::Passed);
    EXPECT_EQ(summaries[1].outcome, Outcome::Failed);
    EXPECT_NE(summaries[1].message.find("scripted generator failure"), std::string::npos);
    EXPECT_EQ(summaries[2].outcome, Outcome::Passed);
}

TEST(Sweep, CancellationStopsTheSweepAndKeepsEarlierRuns)
{
    Fixture f(Script {{0.001, 0.002}});
    SweepRequest request;
    request.workload = f.workload.get();
    request.variantIds = {"reference", "scripted"};
    request.sizes = {1, 2, 3};
    request.options = quickOptions();
    request.options.noiseTarget = 1e-9;
    request.options.minRepetitions = 1;
    request.options.maxRepetitions = 4;
    std::stop_source stop;
    Recorder recorder;
    recorder.stopSource = &stop;
    recorder.stopAfterSamples = 3; // the reference's timings are constant: it stops after two
    const auto summaries = runSweep(request, f.runner, recorder, stop.get_token());
    ASSERT_EQ(summaries.size(), 2u);
    EXPECT_EQ(summaries[0].outcome, Outcome::Passed);
    EXPECT_EQ(summaries[0].repetitions, 2);
    EXPECT_EQ(summaries[1].outcome, Outcome::Cancelled);
    EXPECT_EQ(summaries[1].repetitions, 1);
}

TEST(Sweep, RejectsUnknownVariantsAndParametersBeforeRunning)
{
    Fixture f;
    SweepRequest request;
    request.workload = f.workload.get();
    request.variantIds = {"nope"};
    Recorder recorder;
    EXPECT_THROW(runSweep(request, f.runner, recorder), ParameterError);
    request.variantIds = {};
    request.params = {{"mode", "c"}};
    EXPECT_THROW(runSweep(request, f.runner, recorder), ParameterError);
    request.params = {};
    request.generator = {{"n", "0"}};
    EXPECT_THROW(runSweep(request, f.runner, recorder), ParameterError);
    EXPECT_TRUE(recorder.summaries.empty());
}

} // namespace
} // namespace ks::test
