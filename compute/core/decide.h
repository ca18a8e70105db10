#pragma once

// A/B decisions: variants run interleaved, repetition by repetition, until the confidence interval of their time
// ratio says which is faster, or that they are equivalent within a margin, or a limit is reached.

#include "compute/core/observer.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <stop_token>
#include <string>
#include <vector>

namespace ks {

struct DecideOptions {
    /// The confidence of each pair's interval over the whole run, every look at the data included (see decide.cpp).
    double confidence = 0.99;
    /// An interval inside [1 − margin, 1 + margin] ends the pair as equivalent; 0 never does.
    double margin = 0.0;
    /// The first look at the data comes after this many rounds; fewer cannot give a useful interval at 99 %.
    int minRounds = 10;
    /// Seeds the order of the variants in each round, so a decision replays the same way.
    std::uint64_t seed = 0x6b73646563696465ULL;
};

enum class DecisionVerdict { Faster, Slower, Equivalent, Undecided };
/// "faster", "slower", "equivalent", "undecided".
const char* decisionVerdictName(DecisionVerdict verdict);
/// Throws std::invalid_argument for an unknown name.
DecisionVerdict decisionVerdictFromName(const std::string& name);

/// The verdict on B against A: the ratio of B's time to A's (below 1: B faster) and its confidence interval.
struct Decision {
    std::string workload;
    std::uint64_t size = 0;
    std::string variantA;
    std::string variantB;
    double ratio = 0.0; ///< the Hodges–Lehmann estimate: the median of every ratio b_j / a_i of B's to A's times
    double low = 0.0; ///< 0 when the samples were too few for any interval
    double high = 0.0; ///< +infinity likewise
    double confidence = 0.0;
    double margin = 0.0;
    DecisionVerdict verdict = DecisionVerdict::Undecided;
    int rounds = 0; ///< rounds measured when the verdict was reached (or when the run stopped)
    std::string stopReason; ///< "decided", "max repetitions", "time limit", "cancelled", or why a variant stopped

    /// "B vs A: 0.912× [0.905, 0.919] (99% CI) → B faster, after 37 rounds".
    std::string text() const;
};

/// Every variant of a decision with its Summary (samples, Delta, outcome) and the decision of each against the first.
struct DecideOutcome {
    std::vector<Summary> summaries;
    std::vector<Decision> decisions;
};

struct DecideRequest {
    const Workload* workload = nullptr;
    std::vector<const Variant*> variants; ///< the first is A, every other is compared with it
    data::Dataset dataset;
    ParamSet params;
    RunOptions options; ///< warm-ups, flushing and device; maxRepetitions and timeLimitS bound the rounds
    DecideOptions decide;
    std::shared_ptr<const Result> reference;
    std::vector<std::string> runIds; ///< one per variant
};

/// Prepares every variant once, warms each up, then runs rounds of one repetition per variant in a seeded random
/// order, streaming every Sample to the observer. Stops when every pair is decided, at RunOptions::maxRepetitions
/// rounds, after timeLimitS × the number of variants seconds, or when stopped. Each variant's Summary is reported as
/// after a normal run (checked against the reference). Throws std::invalid_argument for fewer than two variants or
/// options out of range; never for a failing variant.
DecideOutcome decide(
    const Runner& runner, const DecideRequest& request, RunObserver& observer, std::stop_token stop = {});

/// decide() at every size of a plan (the plan's variants, the first being A); a size whose inputs fail gives failed
/// rows and undecided pairs.
DecideOutcome decideSweep(const SweepPlan& plan, const DecideOptions& options, const Runner& runner,
    RunObserver& observer, std::stop_token stop = {});

/// The rounds after which decide() looks at the data: from minRounds, each about 20 % more than the last, and
/// maxRounds last.
std::vector<int> lookSchedule(int minRounds, int maxRounds);

nlohmann::ordered_json toJson(const Decision& decision);
Decision decisionFromJson(const nlohmann::ordered_json& json);
/// writeJson's file with a "decisions" array after "summaries" (readJson ignores it).
void writeJson(const std::string& path, const std::vector<Summary>& summaries, const std::vector<Decision>& decisions);
/// The "decisions" array of a results file; empty when the file has none. Throws data::DatasetError like readJson.
std::vector<Decision> readDecisions(const std::string& path);

} // namespace ks
