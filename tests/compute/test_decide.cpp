// A/B decisions driven by a fake clock: the interval statistics, the verdicts, the interleaving, the limits and the
// JSON file.
#include "compute/core/compare.h"
#include "compute/core/decide.h"
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "fake_workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <random>

namespace ks::test {
namespace {

/// Durations around 1 ms with ± `spread` (a fixed pseudo-random cycle of 97), scaled by `factor`.
std::vector<double> noisyDurations(double factor, std::uint32_t seed = 7, double spread = 0.1)
{
    std::mt19937 random(seed);
    std::vector<double> out;
    for (int i = 0; i < 97; ++i)
        out.push_back(factor * 0.001 * (1.0 - spread + 2.0 * spread * static_cast<double>(random()) / 4294967296.0));
    return out;
}

struct Fixture {
    FakeClock clock;
    std::unique_ptr<FakeWorkload> workload;
    Runner runner {clock};
    data::Dataset dataset;
    ParamSet params;

    Fixture(Script b, Script a)
        : workload(std::make_unique<FakeWorkload>(clock, std::move(b), std::move(a)))
    {
        runner.setCeilingsProvider({});
        dataset = workload->generate(ParamSet::parse(workload->generatorParameters(), {}));
        params = ParamSet::parse(workload->parameters(), {});
    }

    DecideOutcome decide(const DecideOptions& decideOptions, RunOptions options, Recorder& recorder,
        std::vector<std::string> ids = {"reference", "scripted"}, std::stop_token stop = {})
    {
        DecideRequest request;
        request.workload = workload.get();
        for (const auto& id : ids)
            request.variants.push_back(workload->findVariant(id));
        request.dataset = dataset;
        request.params = params;
        request.options = options;
        request.decide = decideOptions;
        request.reference = runner.computeReference(*workload, dataset, params);
        for (std::size_t i = 0; i < ids.size(); ++i)
            request.runIds.push_back("decide-00" + std::to_string(i + 1));
        return ks::decide(runner, request, recorder, stop);
    }
};

RunOptions quickOptions()
{
    RunOptions o;
    o.warmup = 1;
    o.maxRepetitions = 300;
    o.timeLimitS = 1000.0;
    o.flushL2 = false;
    return o;
}

TEST(HodgesLehmann, RecoversAnExactShiftInsideItsInterval)
{
    const std::vector<double> a {1.0, 2.5, 3.0, 4.2, 5.0, 6.1, 7.7, 8.0, 9.3, 10.0};
    std::vector<double> b;
    for (double v : a)
        b.push_back(v + 0.75);
    const ShiftInterval shift = hodgesLehmannShift(a, b, 0.95);
    EXPECT_DOUBLE_EQ(shift.estimate, 0.75);
    EXPECT_LT(shift.low, 0.75);
    EXPECT_GT(shift.high, 0.75);
}

TEST(HodgesLehmann, ExactIntervalOfTinySamplesIsTheRangeOfDifferences)
{
    // n1 = n2 = 4: C(8, 4) = 70 arrangements, P(U = 0) = 1/70 ≈ 0.014. At 95 % (α/2 = 0.025) k = 1: the interval is
    // the smallest and largest difference; at 99 % (α/2 = 0.005) no k qualifies and the interval is unbounded.
    const std::vector<double> a {1.0, 2.0, 3.0, 4.0};
    const std::vector<double> b {10.0, 20.0, 30.0, 40.0};
    const ShiftInterval at95 = hodgesLehmannShift(a, b, 0.95);
    EXPECT_DOUBLE_EQ(at95.low, 6.0);
    EXPECT_DOUBLE_EQ(at95.high, 39.0);
    const ShiftInterval at99 = hodgesLehmannShift(a, b, 0.99);
    EXPECT_TRUE(std::isinf(at99.low) && at99.low < 0);
    EXPECT_TRUE(std::isinf(at99.high) && at99.high > 0);
}

TEST(HodgesLehmann, CoversTheTrueShiftAtTheStatedRate)
{
    // Skewed (exponential) samples shifted by 0.3: the 90 % interval must cover 0.3 in about 90 % of 2000 trials,
    // with exact (n = 12) and normal (n = 40) quantiles alike.
    for (std::size_t n : {std::size_t(12), std::size_t(40)}) {
        std::mt19937_64 random(42 + n);
        std::exponential_distribution<double> exponential(1.0);
        int covered = 0;
        const int trials = 2000;
        for (int t = 0; t < trials; ++t) {
            std::vector<double> a(n), b(n);
            for (auto& v : a)
                v = exponential(random);
            for (auto& v : b)
                v = exponential(random) + 0.3;
            const ShiftInterval s = hodgesLehmannShift(a, b, 0.90);
            covered += s.low <= 0.3 && 0.3 <= s.high;
        }
        const double rate = static_cast<double>(covered) / trials;
        EXPECT_GT(rate, 0.88) << "n=" << n;
        EXPECT_LT(rate, 0.93) << "n=" << n;
    }
}

TEST(HodgesLehmann, LargeSamplesGiveTheSameOrderStatisticsWithoutFormingEveryDifference)
{
    // 1100 × 1000 differences pass the limit above which they are not formed; values rounded to 0.01 bring ties.
    std::mt19937_64 random(5);
    std::lognormal_distribution<double> times(0.0, 0.3);
    std::vector<double> a(1100), b(1000);
    for (auto& v : a)
        v = std::round(times(random) * 100.0) / 100.0;
    for (auto& v : b)
        v = std::round(times(random) * 104.0) / 100.0;
    std::vector<double> all;
    for (double x : a)
        for (double y : b)
            all.push_back(y - x);
    std::sort(all.begin(), all.end());
    const double m = static_cast<double>(all.size());
    const auto k = static_cast<std::size_t>(
        std::floor(m / 2.0 + 0.5 + normalQuantile(0.005) * std::sqrt(m * (1100.0 + 1000.0 + 1.0) / 12.0)));

    const ShiftInterval shift = hodgesLehmannShift(a, b, 0.99);
    EXPECT_EQ(shift.estimate, 0.5 * (all[all.size() / 2 - 1] + all[all.size() / 2]));
    EXPECT_EQ(shift.low, all[k - 1]);
    EXPECT_EQ(shift.high, all[all.size() - k]);
}

TEST(HodgesLehmann, NormalQuantileMatchesTables)
{
    EXPECT_NEAR(normalQuantile(0.975), 1.959964, 1e-6);
    EXPECT_NEAR(normalQuantile(0.005), -2.575829, 1e-6);
    EXPECT_NEAR(normalQuantile(0.5), 0.0, 1e-12);
    EXPECT_THROW(normalQuantile(1.0), std::invalid_argument);
}

TEST(Decide, LooksFromTheMinimumGrowingToTheMaximum)
{
    const std::vector<int> looks = lookSchedule(10, 500);
    ASSERT_FALSE(looks.empty());
    EXPECT_EQ(looks.front(), 10);
    EXPECT_EQ(looks.back(), 500);
    for (std::size_t i = 1; i < looks.size(); ++i) {
        EXPECT_GT(looks[i], looks[i - 1]);
        EXPECT_LE(looks[i], static_cast<int>(std::ceil(looks[i - 1] * 1.2)) + 1);
    }
    EXPECT_LT(looks.size(), 25u);
    EXPECT_EQ(lookSchedule(10, 5), std::vector<int>({5}));
}

TEST(Decide, IdenticalVariantsAreEquivalentWithinAMargin)
{
    // ±3 % noise: the 99 % interval narrows to ±1 % in well under 300 rounds.
    Fixture f(Script {noisyDurations(1.0, 7, 0.03)}, Script {noisyDurations(1.0, 7, 0.03)});
    Recorder recorder;
    DecideOptions options;
    options.margin = 0.01;
    const DecideOutcome out = f.decide(options, quickOptions(), recorder);
    ASSERT_EQ(out.decisions.size(), 1u);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Equivalent) << d.text();
    EXPECT_EQ(d.stopReason, "decided");
    EXPECT_GE(d.low, 0.99);
    EXPECT_LE(d.high, 1.01);
    EXPECT_NEAR(d.ratio, 1.0, 1e-9);
    EXPECT_LT(d.rounds, 300);
    EXPECT_EQ(d.variantA, "reference");
    EXPECT_EQ(d.variantB, "scripted");
    EXPECT_EQ(d.workload, "fake");
    EXPECT_EQ(d.size, 10u);
    // The verdict answered the question: both rows say so, and neither is noisy.
    ASSERT_EQ(out.summaries.size(), 2u);
    for (const auto& s : out.summaries) {
        EXPECT_EQ(s.stopReason, StopReason::Decided) << s.variant;
        EXPECT_FALSE(s.noisy()) << s.variant;
    }
}

TEST(Decide, IdenticalVariantsAreUndecidedWithoutAMargin)
{
    Fixture f(Script {noisyDurations(1.0)}, Script {noisyDurations(1.0)});
    Recorder recorder;
    const DecideOutcome out = f.decide(DecideOptions {}, quickOptions(), recorder);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Undecided) << d.text();
    EXPECT_EQ(d.stopReason, "max repetitions");
    EXPECT_EQ(d.rounds, 300);
    EXPECT_LE(d.low, 1.0);
    EXPECT_GE(d.high, 1.0);
    ASSERT_EQ(out.summaries.size(), 2u);
    for (const auto& s : out.summaries) {
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
        EXPECT_EQ(s.repetitions, 300);
        EXPECT_TRUE(s.delta.computed);
        EXPECT_EQ(s.stopReason, StopReason::MaxRepetitions);
        EXPECT_TRUE(s.noisy()) << "an undecided pair's rows are less certain than asked for";
    }
}

TEST(Decide, AFixedCountEndsUndecidedButNotNoisy)
{
    // As in the runner: a count the workload fixes (cnn's steps) is no limit a user could raise.
    Script fixedB {noisyDurations(1.0)};
    fixedB.fixedRepetitions = 20;
    Fixture f(fixedB, Script {noisyDurations(1.0)});
    Recorder recorder;
    const DecideOutcome out = f.decide(DecideOptions {}, quickOptions(), recorder);
    EXPECT_EQ(out.decisions.front().verdict, DecisionVerdict::Undecided);
    EXPECT_EQ(out.decisions.front().rounds, 20);
    for (const auto& s : out.summaries) {
        EXPECT_EQ(s.stopReason, StopReason::FixedCount) << s.variant;
        EXPECT_FALSE(s.noisy()) << s.variant;
    }
}

TEST(Decide, AFivePercentSlowerVariantIsSlowerWithAnIntervalExcludingOne)
{
    Fixture f(Script {noisyDurations(1.05, 11)}, Script {noisyDurations(1.0, 7)});
    Recorder recorder;
    DecideOptions options;
    options.margin = 0.01;
    const DecideOutcome out = f.decide(options, quickOptions(), recorder);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Slower) << d.text();
    EXPECT_GT(d.low, 1.0);
    EXPECT_GT(d.high, d.low);
    EXPECT_NEAR(d.ratio, 1.05, 0.03);
    EXPECT_LT(d.rounds, 300);
    EXPECT_EQ(d.confidence, 0.99);
    // The summaries keep every sample measured, the same count for both.
    ASSERT_EQ(out.summaries.size(), 2u);
    EXPECT_EQ(out.summaries[0].samplesMs.size(), static_cast<std::size_t>(d.rounds));
    EXPECT_EQ(out.summaries[1].samplesMs.size(), static_cast<std::size_t>(d.rounds));
    EXPECT_EQ(recorder.samples.size(), 2u * static_cast<std::size_t>(d.rounds));
    EXPECT_EQ(recorder.summaries.size(), 2u);
}

TEST(Decide, AFasterVariantIsFaster)
{
    Fixture f(Script {noisyDurations(0.9, 11)}, Script {noisyDurations(1.0, 7)});
    Recorder recorder;
    const DecideOutcome out = f.decide(DecideOptions {}, quickOptions(), recorder);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Faster) << d.text();
    EXPECT_LT(d.high, 1.0);
    EXPECT_NEAR(d.ratio, 0.9, 0.06); // a decision that stops early estimates loosely; the interval is what counts
}

TEST(Decide, InterleavesEveryRoundInASeededRandomOrder)
{
    auto orderOf = [](std::uint64_t seed) {
        Fixture f(Script {noisyDurations(1.0)}, Script {noisyDurations(1.0)});
        Recorder recorder;
        DecideOptions options;
        options.seed = seed;
        RunOptions run = quickOptions();
        run.maxRepetitions = 40;
        f.decide(options, run, recorder);
        std::string order;
        for (const auto& s : recorder.samples)
            order += s.variant == "reference" ? 'A' : 'B';
        return order;
    };
    const std::string order = orderOf(1);
    ASSERT_EQ(order.size(), 80u);
    int abFirst = 0;
    for (std::size_t round = 0; round < 40; ++round) {
        const std::string pair = order.substr(2 * round, 2);
        EXPECT_TRUE(pair == "AB" || pair == "BA") << "round " << round << ": " << pair;
        abFirst += pair == "AB";
    }
    // Both orders occur, neither overwhelmingly (40 fair coin flips: 10..30 holds with probability > 0.998).
    EXPECT_GE(abFirst, 10);
    EXPECT_LE(abFirst, 30);
    EXPECT_EQ(orderOf(1), order) << "the same seed gives the same order";
    EXPECT_NE(orderOf(2), order) << "another seed gives another order";
}

TEST(Decide, StopsAtTheTimeLimitOfAllVariants)
{
    // 1 s per repetition, 10 s per variant: about 20 rounds of two.
    Fixture f(Script {{1.0}}, Script {{1.0}});
    Recorder recorder;
    RunOptions run = quickOptions();
    run.timeLimitS = 10.0;
    run.warmup = 0;
    const DecideOutcome out = f.decide(DecideOptions {}, run, recorder);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Undecided);
    EXPECT_EQ(d.stopReason, "time limit");
    EXPECT_EQ(d.rounds, 10);
    for (const auto& s : out.summaries) {
        EXPECT_EQ(s.stopReason, StopReason::TimeLimit) << s.variant;
        EXPECT_TRUE(s.noisy()) << s.variant;
    }
}

TEST(Decide, AFailingVariantEndsItsPairUndecidedAndKeepsTheOthers)
{
    Script failing {noisyDurations(1.0)};
    failing.throwOnCall = 5;
    Fixture f(failing, Script {noisyDurations(1.0)});
    Recorder recorder;
    RunOptions run = quickOptions();
    run.maxRepetitions = 30;
    const DecideOutcome out = f.decide(DecideOptions {}, run, recorder);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Undecided);
    EXPECT_NE(d.stopReason.find("scripted failed"), std::string::npos) << d.stopReason;
    ASSERT_EQ(out.summaries.size(), 2u);
    EXPECT_EQ(out.summaries[0].outcome, Outcome::Passed);
    EXPECT_EQ(out.summaries[1].outcome, Outcome::Failed);
    EXPECT_NE(out.summaries[1].message.find("scripted failure"), std::string::npos);
    EXPECT_EQ(out.summaries[1].repetitions, 4); // one warm-up, then four timed calls before the fifth threw
    // A's only partner failed before a verdict: no limit and no verdict ended A's repetitions.
    EXPECT_EQ(out.summaries[0].stopReason, StopReason::None);
    EXPECT_EQ(out.summaries[1].stopReason, StopReason::None);
}

TEST(Decide, AFailingInItsWarmUpLeavesTheOthersUnmeasuredAndSaysWhy)
{
    Script failingA {noisyDurations(1.0)};
    failingA.throwOnCall = 0;
    Fixture f(failingA, Script {noisyDurations(1.0)});
    Recorder recorder;
    const DecideOutcome out = f.decide(DecideOptions {}, quickOptions(), recorder, {"scripted", "reference"});
    EXPECT_TRUE(recorder.samples.empty());
    ASSERT_EQ(out.summaries.size(), 2u);
    EXPECT_EQ(out.summaries[0].outcome, Outcome::Failed);
    EXPECT_EQ(out.summaries[1].outcome, Outcome::Skipped);
    EXPECT_EQ(out.summaries[1].repetitions, 0);
    const Decision& d = out.decisions.front();
    EXPECT_EQ(d.verdict, DecisionVerdict::Undecided);
    EXPECT_EQ(d.rounds, 0);
    EXPECT_NE(d.stopReason.find("scripted failed: variant scripted: scripted failure"), std::string::npos)
        << d.stopReason;
}

TEST(Decide, ComparesEveryVariantWithTheFirstAndSkipsTheUnavailable)
{
    Fixture f(Script {noisyDurations(1.1, 3)}, Script {noisyDurations(1.0)});
    Recorder recorder;
    const DecideOutcome out
        = f.decide(DecideOptions {}, quickOptions(), recorder, {"reference", "scripted", "unbuilt"});
    ASSERT_EQ(out.decisions.size(), 2u);
    EXPECT_EQ(out.decisions[0].variantB, "scripted");
    EXPECT_EQ(out.decisions[0].verdict, DecisionVerdict::Slower);
    EXPECT_EQ(out.decisions[1].variantB, "unbuilt");
    EXPECT_EQ(out.decisions[1].verdict, DecisionVerdict::Undecided);
    EXPECT_NE(out.decisions[1].stopReason.find("unbuilt skipped"), std::string::npos) << out.decisions[1].stopReason;
    ASSERT_EQ(out.summaries.size(), 3u);
    EXPECT_EQ(out.summaries[2].outcome, Outcome::Skipped);
    // A's pair with the skipped variant never ran: its one measured pair's verdict is why it stopped.
    EXPECT_EQ(out.summaries[0].stopReason, StopReason::Decided);
    EXPECT_EQ(out.summaries[1].stopReason, StopReason::Decided);
    EXPECT_EQ(out.summaries[2].stopReason, StopReason::None);
}

TEST(Decide, CancellingKeepsTheSamplesAndSaysSo)
{
    Fixture f(Script {noisyDurations(1.0)}, Script {noisyDurations(1.0)});
    Recorder recorder;
    std::stop_source stop;
    recorder.stopSource = &stop;
    recorder.stopAfterSamples = 8;
    const DecideOutcome out
        = f.decide(DecideOptions {}, quickOptions(), recorder, {"reference", "scripted"}, stop.get_token());
    EXPECT_EQ(out.decisions.front().stopReason, "cancelled");
    EXPECT_EQ(out.decisions.front().rounds, 4);
    for (const auto& s : out.summaries) {
        EXPECT_EQ(s.outcome, Outcome::Cancelled);
        EXPECT_EQ(s.repetitions, 4);
        EXPECT_EQ(s.stopReason, StopReason::Cancelled);
        EXPECT_FALSE(s.noisy());
    }
}

TEST(Decide, SweepDecidesAtEverySize)
{
    FakeClock clock;
    FakeWorkload workload(clock, Script {noisyDurations(1.2, 5)}, Script {noisyDurations(1.0)});
    Runner runner(clock);
    runner.setCeilingsProvider({});
    SweepRequest request;
    request.workload = &workload;
    request.variantIds = {"reference", "scripted"};
    request.sizes = {10, 20};
    request.options = quickOptions();
    request.runIdPrefix = "sweep";
    Recorder recorder;
    const DecideOutcome out = decideSweep(planSweep(request), DecideOptions {}, runner, recorder);
    ASSERT_EQ(out.decisions.size(), 2u);
    EXPECT_EQ(out.decisions[0].size, 10u);
    EXPECT_EQ(out.decisions[1].size, 20u);
    ASSERT_EQ(out.summaries.size(), 4u);
    EXPECT_EQ(out.summaries[3].runId, "sweep-004");
    for (const auto& d : out.decisions)
        EXPECT_EQ(d.verdict, DecisionVerdict::Slower) << d.text();

    request.variantIds = {"reference"};
    EXPECT_THROW(decideSweep(planSweep(request), DecideOptions {}, runner, recorder), ParameterError);
}

TEST(Decide, PrintsOneLinePerPair)
{
    Decision d;
    d.variantA = "csr_scalar";
    d.variantB = "csr_vector";
    d.ratio = 0.912;
    d.low = 0.905;
    d.high = 0.919;
    d.confidence = 0.99;
    d.verdict = DecisionVerdict::Faster;
    d.rounds = 37;
    d.stopReason = "decided";
    EXPECT_EQ(
        d.text(), "csr_vector vs csr_scalar: 0.912× [0.905, 0.919] (99% CI) → csr_vector faster, after 37 rounds");
    d.verdict = DecisionVerdict::Equivalent;
    d.margin = 0.01;
    EXPECT_EQ(
        d.text(), "csr_vector vs csr_scalar: 0.912× [0.905, 0.919] (99% CI) → equivalent within ±1%, after 37 rounds");
    d.verdict = DecisionVerdict::Undecided;
    d.stopReason = "time limit";
    d.low = 0.0;
    d.high = INFINITY;
    d.rounds = 3;
    EXPECT_EQ(d.text(),
        "csr_vector vs csr_scalar: 0.912× [too few rounds for a 99% CI] → undecided (time limit), after 3 rounds");
}

TEST(Decide, JsonRoundTripsDecisionsBesideTheSummaries)
{
    Fixture f(Script {noisyDurations(1.05, 11)}, Script {noisyDurations(1.0)});
    Recorder recorder;
    DecideOutcome out = f.decide(DecideOptions {}, quickOptions(), recorder);
    Decision unbounded = out.decisions.front();
    unbounded.low = 0.0;
    unbounded.high = INFINITY;
    unbounded.verdict = DecisionVerdict::Undecided;
    unbounded.stopReason = "cancelled";
    out.decisions.push_back(unbounded);

    const auto path = (std::filesystem::temp_directory_path() / "ks_test_decide.json").string();
    writeJson(path, out.summaries, out.decisions);
    const auto summaries = readJson(path);
    ASSERT_EQ(summaries.size(), 2u);
    EXPECT_EQ(summaries[1].samplesMs, out.summaries[1].samplesMs);
    EXPECT_EQ(summaries[1].stopReason, StopReason::Decided);
    const auto decisions = readDecisions(path);
    ASSERT_EQ(decisions.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const Decision& a = out.decisions[i];
        const Decision& b = decisions[i];
        EXPECT_EQ(b.workload, a.workload);
        EXPECT_EQ(b.size, a.size);
        EXPECT_EQ(b.variantA, a.variantA);
        EXPECT_EQ(b.variantB, a.variantB);
        EXPECT_EQ(b.ratio, a.ratio);
        EXPECT_EQ(b.low, a.low);
        EXPECT_EQ(b.high, a.high);
        EXPECT_EQ(b.confidence, a.confidence);
        EXPECT_EQ(b.margin, a.margin);
        EXPECT_EQ(b.verdict, a.verdict);
        EXPECT_EQ(b.rounds, a.rounds);
        EXPECT_EQ(b.stopReason, a.stopReason);
    }

    // A file without decisions (every file writeJson(path, summaries) wrote) reads as none.
    writeJson(path, out.summaries);
    EXPECT_TRUE(readDecisions(path).empty());
    EXPECT_EQ(readJson(path).size(), 2u);
    std::filesystem::remove(path);
}

TEST(Decide, CsvSaysWhyEachRowStoppedAndReadsItBack)
{
    // Five rounds at most: the pair stays undecided and both rows are noisy; a decided pair's rows are not.
    Fixture f(Script {noisyDurations(1.0)}, Script {noisyDurations(1.0)});
    Recorder recorder;
    RunOptions run = quickOptions();
    run.maxRepetitions = 5;
    std::vector<Summary> rows = f.decide(DecideOptions {}, run, recorder).summaries;
    Fixture slower(Script {noisyDurations(1.2, 5)}, Script {noisyDurations(1.0)});
    for (Summary& s : slower.decide(DecideOptions {}, quickOptions(), recorder).summaries)
        rows.push_back(std::move(s));
    ASSERT_EQ(rows.size(), 4u);

    const auto& columns = csvColumns();
    const auto at = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
    };
    const std::vector<std::string> reasons {"max_repetitions", "max_repetitions", "decided", "decided"};
    const std::vector<std::string> noisy {"yes", "yes", "no", "no"};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(csvRow(rows[i])[at("stop_reason")], reasons[i]) << i;
        EXPECT_EQ(csvRow(rows[i])[at("noisy")], noisy[i]) << i;
    }
    const auto path = (std::filesystem::temp_directory_path() / "ks_test_decide.csv").string();
    writeCsv(path, rows);
    const auto back = readCsv(path);
    ASSERT_EQ(back.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(back[i].stopReason, rows[i].stopReason) << i;
        EXPECT_EQ(back[i].noisy(), rows[i].noisy()) << i;
    }
    std::filesystem::remove(path);
}

TEST(DecideOnGpu, TwoSpmvCudaVariantsAreTimedWithEventsCheckedAndDecided)
{
    // What the lead's `kernelscope-cli run -w spmv --decide scalar,vector` does, in-process: CUDA variants prepared
    // once, interleaved, each repetition timed with the variant's own events (PreparedRun::timer), both checked.
    const Workload& spmv = *defaultRegistry().find("spmv");
    for (const char* id : {"scalar", "vector"})
        if (const auto reason = unavailableReason(*spmv.findVariant(id)); !reason.empty())
            GTEST_SKIP() << reason;
    SweepRequest request;
    request.workload = &spmv;
    request.variantIds = {"scalar", "vector"};
    request.generator = {{"pattern", "powerlaw"}, {"rows", "200000"}, {"per_row", "16"}};
    request.options.maxRepetitions = 200;
    request.options.timeLimitS = 10.0;
    Runner runner;
    runner.setCeilingsProvider({});
    Recorder recorder;
    DecideOptions options;
    options.margin = 0.01;
    const DecideOutcome out = decideSweep(planSweep(request), options, runner, recorder);
    ASSERT_EQ(out.summaries.size(), 2u);
    for (const auto& s : out.summaries) {
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.variant << ": " << s.message;
        EXPECT_TRUE(s.delta.computed && s.delta.withinTolerance()) << s.variant;
        EXPECT_GT(s.medianMs, 0.0);
        EXPECT_EQ(s.device.kind, "cuda");
    }
    ASSERT_EQ(out.decisions.size(), 1u);
    const Decision& d = out.decisions.front();
    std::cout << d.text() << '\n';
    EXPECT_GE(d.rounds, 10);
    EXPECT_GT(d.ratio, 0.0);
    EXPECT_TRUE(std::isfinite(d.high) && d.low > 0.0) << d.text();
    EXPECT_EQ(out.summaries[0].samplesMs.size(), out.summaries[1].samplesMs.size());
}

} // namespace
} // namespace ks::test
