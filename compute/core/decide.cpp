#include "compute/core/decide.h"

#include "compute/core/cancel.h"
#include "compute/core/clock_format.h"
#include "compute/core/clock_sampler.h"
#include "compute/core/compare.h"
#include "compute/core/device_fault.h"
#include "compute/core/errors.h"
#include "compute/core/results_io.h"
#include "compute/core/run_parts.h"
#include "compute/device/device_info.h"
#include "data/dataset_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

// The statistics, and why.
//
// The interval is the distribution-free one of the Hodges–Lehmann shift estimate on log times (Hodges & Lehmann 1963;
// Lehmann, Nonparametrics, 1975, §2.6), computed by hodgesLehmannShift in compare.cpp beside the Mann–Whitney test it
// inverts. On log times a shift is a ratio, so exp of the interval is an interval for B's time over A's. It assumes no
// distribution (kernel times are skewed, with a long right tail), is invariant to the monotone log, needs no
// resampling (a bootstrap would need a seed, thousands of resamples per look, and is anti-conservative at the small
// counts a quick decision stops at), and its estimate always lies inside its interval.
//
// Looking after every round and stopping at the first interval that excludes 1 would make the stated confidence a lie:
// repeated looks at accumulating data inflate the error far beyond α (Armitage, McPherson & Rowe 1969, "Repeated
// significance tests on accumulating data"). So decide() looks on a fixed schedule, from minRounds growing ~20 % per
// look to the maximum, and each look's interval is at level 1 − α/K for K looks (Bonferroni): the chance that any
// look's interval misses the true ratio stays under α, whatever the stopping. The schedule costs few looks (K is
// logarithmic in the maximum: 22 for 10..500), so the interval is only moderately wider than a single look's.
//
// The variants run in a random order in each round (a seeded generator: the same order on every run), so a drift of
// the machine (clocks settling, another process) falls on every variant alike instead of always on the one that
// runs second.

namespace ks {

namespace {
constexpr double kLookGrowth = 1.2;

/// Times below this are treated as this, so the log of a timer's 0 ms stays finite.
constexpr double kSmallestMs = 1e-9;

std::vector<double> logTimes(const std::vector<double>& ms)
{
    std::vector<double> out;
    out.reserve(ms.size());
    for (double v : ms)
        out.push_back(std::log(std::max(v, kSmallestMs)));
    return out;
}

/// One variant's state during a decision.
struct Contestant {
    RunRequest request;
    Summary summary;
    std::unique_ptr<PreparedRun> prepared;
    RunningStats stats;
    std::unique_ptr<ClockRecorder> clocks; ///< the device's clocks around each repetition, as the runner samples them
    bool live = false; ///< prepared and measuring; false once skipped or failed
    Outcome stoppedWith = Outcome::Passed; ///< why it is not live
    std::string message;
};

void fail(Contestant& c)
{
    auto [outcome, message] = detail::failureOfCurrentException("variant " + c.request.variant->id + ": ",
        runPlace(c.request.workload->id(), c.request.variant->id, c.request.dataset.meta().size));
    c.live = false;
    c.stoppedWith = outcome;
    c.message = std::move(message);
    c.prepared.reset();
}

/// The interval of B's times over A's at `confidence`, with the verdict it supports under `margin`.
Decision judgePair(const Contestant& a, const Contestant& b, double lookConfidence, const DecideOptions& options)
{
    Decision d;
    d.workload = a.summary.workload;
    d.size = a.summary.size;
    d.variantA = a.summary.variant;
    d.variantB = b.summary.variant;
    d.confidence = options.confidence;
    d.margin = options.margin;
    d.rounds = static_cast<int>(std::min(a.summary.samplesMs.size(), b.summary.samplesMs.size()));
    if (a.summary.samplesMs.empty() || b.summary.samplesMs.empty())
        return d;
    const ShiftInterval shift
        = hodgesLehmannShift(logTimes(a.summary.samplesMs), logTimes(b.summary.samplesMs), lookConfidence);
    d.ratio = std::exp(shift.estimate);
    d.low = std::exp(shift.low);
    d.high = std::exp(shift.high);
    // Equivalence first: an interval that excludes 1 yet lies inside the margin is a real difference too small to
    // matter, which is what the user asked to know.
    if (options.margin > 0.0 && d.low >= 1.0 - options.margin && d.high <= 1.0 + options.margin)
        d.verdict = DecisionVerdict::Equivalent;
    else if (d.high < 1.0)
        d.verdict = DecisionVerdict::Faster;
    else if (d.low > 1.0)
        d.verdict = DecisionVerdict::Slower;
    else
        d.verdict = DecisionVerdict::Undecided;
    return d;
}

std::string percent(double fraction)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g%%", fraction * 100.0);
    return buffer;
}

nlohmann::ordered_json finiteOrText(double v)
{
    if (std::isfinite(v))
        return v;
    return v > 0 ? "inf" : (v < 0 ? "-inf" : "nan");
}

double numberOrText(const nlohmann::ordered_json& j)
{
    if (j.is_number())
        return j.get<double>();
    const auto text = j.get<std::string>();
    if (text == "inf")
        return std::numeric_limits<double>::infinity();
    if (text == "-inf")
        return -std::numeric_limits<double>::infinity();
    if (text == "nan")
        return std::numeric_limits<double>::quiet_NaN();
    throw std::invalid_argument("'" + text + "' is not a number");
}
} // namespace

const char* decisionVerdictName(DecisionVerdict verdict)
{
    switch (verdict) {
    case DecisionVerdict::Faster:
        return "faster";
    case DecisionVerdict::Slower:
        return "slower";
    case DecisionVerdict::Equivalent:
        return "equivalent";
    case DecisionVerdict::Undecided:
        return "undecided";
    }
    return "?";
}

DecisionVerdict decisionVerdictFromName(const std::string& name)
{
    for (auto v :
        {DecisionVerdict::Faster, DecisionVerdict::Slower, DecisionVerdict::Equivalent, DecisionVerdict::Undecided})
        if (name == decisionVerdictName(v))
            return v;
    throw std::invalid_argument("unknown verdict '" + name + "'");
}

std::string Decision::text() const
{
    char numbers[160];
    if (rounds == 0 || !(ratio > 0.0))
        std::snprintf(numbers, sizeof numbers, "no ratio");
    else if (std::isfinite(high) && low > 0.0)
        std::snprintf(
            numbers, sizeof numbers, "%.3f× [%.3f, %.3f] (%s CI)", ratio, low, high, percent(confidence).c_str());
    else
        std::snprintf(
            numbers, sizeof numbers, "%.3f× [too few rounds for a %s CI]", ratio, percent(confidence).c_str());
    std::string line = variantB + " vs " + variantA + ": " + numbers + " → ";
    switch (verdict) {
    case DecisionVerdict::Faster:
        line += variantB + " faster";
        break;
    case DecisionVerdict::Slower:
        line += variantB + " slower";
        break;
    case DecisionVerdict::Equivalent:
        line += "equivalent within ±" + percent(margin);
        break;
    case DecisionVerdict::Undecided:
        line += "undecided (" + stopReason + ")";
        break;
    }
    return line + ", after " + std::to_string(rounds) + (rounds == 1 ? " round" : " rounds");
}

std::vector<int> lookSchedule(int minRounds, int maxRounds)
{
    std::vector<int> looks;
    for (int n = std::max(1, minRounds); n < maxRounds;
         n = std::max(n + 1, static_cast<int>(std::ceil(n * kLookGrowth))))
        looks.push_back(n);
    looks.push_back(std::max(1, maxRounds));
    return looks;
}

DecideOutcome decide(const Runner& runner, const DecideRequest& request, RunObserver& observer, std::stop_token stop)
{
    const AmbientCancel ambient(stop);
    const auto& variants = request.variants;
    const DecideOptions& options = request.decide;
    if (!request.workload || variants.size() < 2)
        throw std::invalid_argument("a decision needs a workload and at least two variants");
    if (request.runIds.size() != variants.size())
        throw std::invalid_argument("a decision needs one run id per variant");
    if (!(options.confidence > 0.0 && options.confidence < 1.0))
        throw std::invalid_argument("the confidence must lie between 0 and 1");
    if (!(options.margin >= 0.0 && options.margin < 1.0))
        throw std::invalid_argument("the margin must lie in [0 %, 100 %)");
    if (options.minRounds < 1)
        throw std::invalid_argument("a decision needs at least one round before it looks");

    const Workload& workload = *request.workload;
    const RunOptions& runOptions = request.options;
    const Clock& clock = runner.clock();
    const double started = clock.nowSeconds();
    const double limitS = runOptions.timeLimitS * static_cast<double>(variants.size());
    auto timeUp = [&] { return clock.nowSeconds() - started >= limitS; };

    std::vector<Contestant> contestants(variants.size());
    for (std::size_t i = 0; i < variants.size(); ++i) {
        Contestant& c = contestants[i];
        c.request = RunRequest {
            &workload, variants[i], request.dataset, request.params, runOptions, request.reference, request.runIds[i]};
        c.summary = detail::describeRun(c.request);
        const auto& samplers = runner.clockSamplers();
        c.clocks
            = std::make_unique<ClockRecorder>(samplers ? samplers(variants[i]->backend, c.summary.device) : nullptr);
        if (const std::string reason = unavailableReason(*variants[i]); !reason.empty()) {
            c.stoppedWith = Outcome::Skipped;
            c.message = reason;
            continue;
        }
        try {
            if (variants[i]->backend != Backend::Cpu)
                device::selectDevice(runOptions.device);
            c.prepared
                = variants[i]->prepare(request.dataset, request.params, RunContext {runOptions.device, &clock, stop});
            c.summary.transferMs = c.prepared->transferMs();
            c.summary.variantBytes = c.prepared->bytesMoved();
            c.live = true;
            RepTimer& timer = c.prepared->timer();
            for (int w = 0; w < runOptions.warmup && !stop.stop_requested(); ++w) {
                timer.start();
                c.prepared->run();
                timer.stop();
                timer.elapsedMs();
            }
            c.prepared->reset();
        } catch (...) {
            fail(c);
        }
    }

    const std::optional<int> fixed = workload.fixedRepetitions(request.params);
    const int maxRounds = fixed ? std::min(*fixed, runOptions.maxRepetitions) : runOptions.maxRepetitions;
    const std::vector<int> looks = lookSchedule(options.minRounds, maxRounds);
    const double lookConfidence = 1.0 - (1.0 - options.confidence) / static_cast<double>(looks.size());

    const std::size_t pairCount = variants.size() - 1;
    std::vector<Decision> decisions(pairCount);
    std::vector<bool> decided(pairCount, false);
    std::vector<std::size_t> order(variants.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::mt19937_64 random(options.seed);
    std::size_t nextLook = 0;
    int rounds = 0;
    bool cancelled = false;
    std::string stopReason;
    // Why the rounds ended with a pair still open, for the Summaries (the Decisions carry the text above).
    StopReason endReason = StopReason::None;

    auto undecidedLivePairs = [&] {
        std::size_t live = 0;
        for (std::size_t p = 0; p < pairCount; ++p)
            live += !decided[p] && contestants[0].live && contestants[p + 1].live;
        return live;
    };

    while (undecidedLivePairs() > 0) {
        if (stop.stop_requested()) {
            cancelled = true;
            stopReason = "cancelled";
            endReason = StopReason::Cancelled;
            break;
        }
        // Fisher–Yates with the generator's raw output (std::shuffle's distribution differs between standard
        // libraries, and the order must be the same everywhere).
        for (std::size_t i = order.size() - 1; i > 0; --i)
            std::swap(order[i], order[static_cast<std::size_t>(random() % (i + 1))]);
        for (std::size_t index : order) {
            Contestant& c = contestants[index];
            if (!c.live)
                continue;
            try {
                // As in the runner: clocks are read outside the timed window, before the flush and after the time.
                c.clocks->before();
                if (runOptions.flushL2)
                    c.prepared->flushCaches();
                RepTimer& timer = c.prepared->timer();
                timer.start();
                c.prepared->run();
                timer.stop();
                const double ms = timer.elapsedMs();
                const std::optional<ClockSample> clocksNow = c.clocks->after(c.summary);
                c.stats.add(ms);
                c.summary.samplesMs.push_back(ms);
                Sample sample {c.summary.runId, c.summary.workload, c.summary.variant, c.summary.size,
                    static_cast<int>(c.stats.count()) - 1, ms, {}, clocksNow};
                if (auto m = c.prepared->metric()) {
                    sample.metric = m;
                    c.summary.sampleMetrics.push_back(*m);
                }
                observer.onSample(sample);
            } catch (...) {
                fail(c);
            }
        }
        ++rounds;
        if (nextLook < looks.size() && rounds >= looks[nextLook]) {
            ++nextLook;
            for (std::size_t p = 0; p < pairCount; ++p) {
                if (decided[p] || !contestants[0].live || !contestants[p + 1].live)
                    continue;
                Decision d = judgePair(contestants[0], contestants[p + 1], lookConfidence, options);
                if (d.verdict != DecisionVerdict::Undecided) {
                    d.stopReason = "decided";
                    decisions[p] = std::move(d);
                    decided[p] = true;
                }
            }
        }
        if (undecidedLivePairs() == 0)
            break;
        if (rounds >= maxRounds) {
            stopReason = "max repetitions";
            // As in the runner, a count the workload fixes is no limit a user could raise: not noisy.
            endReason
                = fixed && *fixed <= runOptions.maxRepetitions ? StopReason::FixedCount : StopReason::MaxRepetitions;
            break;
        }
        if (timeUp()) {
            stopReason = "time limit";
            endReason = StopReason::TimeLimit;
            break;
        }
    }

    for (std::size_t p = 0; p < pairCount; ++p) {
        if (decided[p])
            continue;
        const Contestant& a = contestants[0];
        const Contestant& b = contestants[p + 1];
        // The interval of an undecided pair is reported at the per-look level too, so it reads like the decided ones.
        Decision d = judgePair(a, b, lookConfidence, options);
        d.verdict = DecisionVerdict::Undecided;
        if (!a.live || !b.live) {
            const Contestant& stopped = a.live ? b : a;
            d.stopReason = stopped.summary.variant + " " + outcomeName(stopped.stoppedWith) + ": " + stopped.message;
        } else {
            d.stopReason = stopReason.empty() ? "max repetitions" : stopReason;
        }
        decisions[p] = std::move(d);
    }

    // A variant's repetitions stopped on the limit that ended the rounds while one of its pairs with a measured
    // partner was still open (so an undecided pair's rows are noisy), else on the verdicts of its pairs; a variant
    // whose every partner failed before a verdict has none.
    auto variantStopReason = [&](std::size_t index) {
        if (cancelled)
            return StopReason::Cancelled;
        bool anyDecided = false;
        for (std::size_t p = 0; p < pairCount; ++p) {
            const std::size_t partner = index == 0 ? p + 1 : 0;
            if (index != 0 && index != p + 1)
                continue;
            if (decided[p])
                anyDecided = true;
            else if (contestants[partner].live)
                return endReason;
        }
        return anyDecided ? StopReason::Decided : StopReason::None;
    };
    std::vector<StopReason> stopReasons;
    for (std::size_t i = 0; i < contestants.size(); ++i)
        stopReasons.push_back(variantStopReason(i));

    DecideOutcome outcome;
    for (std::size_t index = 0; index < contestants.size(); ++index) {
        Contestant& c = contestants[index];
        Summary& s = c.summary;
        Outcome result = c.live ? Outcome::Passed : c.stoppedWith;
        std::string message = c.message;
        if (c.live && c.stats.count() > 0) {
            try {
                detail::recordResult(s, *c.prepared, c.request, cancelled);
                s.stopReason = stopReasons[index];
                message = c.prepared->note();
                if (cancelled) {
                    result = Outcome::Cancelled;
                    message = message.empty() ? "cancelled" : "cancelled; " + message;
                } else if (s.delta.computed && !s.delta.withinTolerance()) {
                    result = Outcome::Incorrect;
                }
            } catch (...) {
                fail(c);
                result = c.stoppedWith;
                message = c.message;
            }
        } else if (c.live) {
            // Prepared but never timed: cancelled, or the decision ended before its first round (A failed).
            result = cancelled ? Outcome::Cancelled : Outcome::Skipped;
            message = cancelled ? "cancelled" : "not measured: the decision stopped before its first round";
        }
        detail::fillTiming(s, c.stats);
        c.clocks->finish(s);
        if (s.repetitions > 0) {
            try {
                const auto& ceilings = runner.ceilingsProvider();
                detail::fillRates(s, workload.cost(request.dataset, request.params),
                    ceilings ? ceilings(c.request.variant->backend, runOptions.device) : std::nullopt);
            } catch (const std::exception&) {
                // As in the runner: a cost model that cannot evaluate leaves the rates at zero; the timings stand.
            }
        }
        s.outcome = result;
        s.message = std::move(message);
        s.timestamp = utcTimestamp();
        observer.onSummary(s);
        c.prepared.reset();
        outcome.summaries.push_back(std::move(s));
    }
    outcome.decisions = std::move(decisions);
    return outcome;
}

DecideOutcome decideSweep(const SweepPlan& plan, const DecideOptions& options, const Runner& runner,
    RunObserver& observer, std::stop_token stop)
{
    if (plan.variants.size() < 2)
        throw ParameterError("a decision needs at least two variants (the first is A)");
    DecideOutcome all;
    int index = 0;
    const int total = static_cast<int>(plan.sizes.size() * plan.variants.size());
    for (std::size_t sizeIndex = 0; sizeIndex < plan.sizes.size(); ++sizeIndex) {
        if (stop.stop_requested())
            break;
        const std::uint64_t size = plan.sizes[sizeIndex];
        SweepProgress progress;
        progress.runIndex = index;
        progress.runCount = total;
        progress.variant = plan.variants.front()->id + " vs " + std::to_string(plan.variants.size() - 1) + " more";
        progress.size = size;
        observer.onProgress(progress);
        const SizeInputs inputs = prepareSize(plan, sizeIndex, runner, observer, stop);
        if (stop.stop_requested())
            break; // the reference was cancelled (or is complete but nothing more may run): no rows for this size
        std::vector<std::string> runIds;
        for (std::size_t v = 0; v < plan.variants.size(); ++v)
            runIds.push_back(sweepRunId(plan.request.runIdPrefix, index++));
        if (!inputs.problem.empty()) {
            for (std::size_t v = 0; v < plan.variants.size(); ++v) {
                Summary s = failedSweepRow(plan, *plan.variants[v], size, runIds[v], inputs.problem);
                observer.onSummary(s);
                all.summaries.push_back(std::move(s));
                if (v == 0)
                    continue;
                Decision d;
                d.workload = plan.request.workload->id();
                d.size = size;
                d.variantA = plan.variants.front()->id;
                d.variantB = plan.variants[v]->id;
                d.confidence = options.confidence;
                d.margin = options.margin;
                d.stopReason = inputs.problem;
                all.decisions.push_back(std::move(d));
            }
            continue;
        }
        DecideRequest request {plan.request.workload, plan.variants, inputs.dataset, plan.params, plan.request.options,
            options, inputs.reference, runIds};
        DecideOutcome one = decide(runner, request, observer, stop);
        for (auto& s : one.summaries)
            all.summaries.push_back(std::move(s));
        for (auto& d : one.decisions)
            all.decisions.push_back(std::move(d));
    }
    return all;
}

nlohmann::ordered_json toJson(const Decision& d)
{
    nlohmann::ordered_json j;
    j["workload"] = d.workload;
    j["size"] = d.size;
    j["variant_a"] = d.variantA;
    j["variant_b"] = d.variantB;
    j["ratio"] = finiteOrText(d.ratio);
    j["low"] = finiteOrText(d.low);
    j["high"] = finiteOrText(d.high);
    j["confidence"] = d.confidence;
    j["margin"] = d.margin;
    j["verdict"] = decisionVerdictName(d.verdict);
    j["rounds"] = d.rounds;
    j["stop_reason"] = d.stopReason;
    return j;
}

Decision decisionFromJson(const nlohmann::ordered_json& j)
{
    Decision d;
    d.workload = j.at("workload").get<std::string>();
    d.size = j.at("size").get<std::uint64_t>();
    d.variantA = j.at("variant_a").get<std::string>();
    d.variantB = j.at("variant_b").get<std::string>();
    d.ratio = numberOrText(j.at("ratio"));
    d.low = numberOrText(j.at("low"));
    d.high = numberOrText(j.at("high"));
    d.confidence = j.at("confidence").get<double>();
    d.margin = j.at("margin").get<double>();
    d.verdict = decisionVerdictFromName(j.at("verdict").get<std::string>());
    d.rounds = j.at("rounds").get<int>();
    d.stopReason = j.at("stop_reason").get<std::string>();
    return d;
}

void writeJson(const std::string& path, const std::vector<Summary>& summaries, const std::vector<Decision>& decisions)
{
    nlohmann::ordered_json j = resultsDocument(summaries);
    j["decisions"] = nlohmann::ordered_json::array();
    for (const auto& d : decisions)
        j["decisions"].push_back(toJson(d));
    writeJsonDocument(path, j);
}

std::vector<Decision> readDecisions(const std::string& path)
{
    const nlohmann::ordered_json j = readJsonDocument(path);
    std::vector<Decision> out;
    if (!j.is_object() || !j.contains("decisions"))
        return out;
    if (!j["decisions"].is_array())
        throw data::DatasetError(path, "decisions", "not an array");
    std::size_t index = 0;
    for (const auto& item : j["decisions"]) {
        try {
            out.push_back(decisionFromJson(item));
        } catch (const std::exception& e) {
            throw data::DatasetError(path, "decisions[" + std::to_string(index) + "]", e.what());
        }
        ++index;
    }
    return out;
}

} // namespace ks
