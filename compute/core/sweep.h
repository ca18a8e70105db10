#pragma once

#include "compute/core/observer.h"
#include "compute/core/runner.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace ks {

/// A sweep over sizes and variants: what the CLI's `run` and the GUI's Run button both execute.
struct SweepRequest {
    const Workload* workload = nullptr;
    std::vector<std::string> variantIds; ///< in order; empty means every variant
    std::optional<data::Dataset> dataset; ///< a loaded dataset; without one the generator makes one per size
    std::map<std::string, std::string> generator; ///< generator parameters (the size parameter is set per size)
    std::vector<std::uint64_t> sizes; ///< empty: one size, the dataset's or the generator's own
    std::map<std::string, std::string> params; ///< run parameters
    RunOptions options;
    std::string runIdPrefix; ///< empty: a session stamp
};

/// A sweep request checked and parsed once: the variants it names, its typed parameters and, per size, the
/// generator's parameters. What runSweep executes.
struct SweepPlan {
    SweepRequest request;
    std::vector<const Variant*> variants;
    ParamSet params;
    std::vector<std::uint64_t> sizes; ///< resolved: never empty
    std::vector<ParamSet> generators; ///< one per size when there is no loaded dataset
};

/// Parses a list of sizes: "1000,2^20,1e6" and "2^16..2^20" (every power of two from the first to the last).
/// Throws ParameterError naming the item that is not a size.
std::vector<std::uint64_t> parseSizeList(const std::string& text);

/// Checks and parses everything a sweep needs before any work: the workload, variant ids, parameters, generator
/// values and sizes. Throws ParameterError naming what is wrong.
SweepPlan planSweep(SweepRequest request);
/// planSweep for its error alone.
void validateSweep(const SweepRequest& request);

/// Runs every (size, variant) pair in order. Per size: the dataset (generated or a subset), the reference once,
/// then each variant. A failure at one size becomes failed rows, never an exception; cancellation stops after
/// the current repetition and keeps every Summary so far. Throws ParameterError only for an invalid request.
std::vector<Summary> runSweep(
    const SweepPlan& plan, const Runner& runner, RunObserver& observer, std::stop_token stop = {});
/// planSweep, then runSweep of the plan.
std::vector<Summary> runSweep(
    const SweepRequest& request, const Runner& runner, RunObserver& observer, std::stop_token stop = {});

} // namespace ks
