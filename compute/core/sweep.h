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

/// One size of a plan: its dataset (generated, the loaded one, or a subset) and the reference computed on it, or the
/// problem that kept them from being made (then each variant's row is failed with it).
struct SizeInputs {
    data::Dataset dataset;
    std::shared_ptr<const Result> reference;
    std::string problem; ///< empty when the dataset and reference are ready
};
/// Makes the inputs of the plan's size `sizeIndex`, reporting the dataset and status to the observer; a failure
/// becomes `problem`, never an exception, and so does `stop` requested while the reference computes ("cancelled").
SizeInputs prepareSize(const SweepPlan& plan, std::size_t sizeIndex, const Runner& runner, RunObserver& observer,
    std::stop_token stop = {});
/// The row of a run that could not start because its size's inputs failed (SizeInputs::problem).
Summary failedSweepRow(const SweepPlan& plan, const Variant& variant, std::uint64_t size, const std::string& runId,
    const std::string& why);
/// The run id of a sweep's `index`-th run (0-based): the prefix and a 3-digit count.
std::string sweepRunId(const std::string& prefix, int index);

/// Runs every (size, variant) pair in order. Per size: the dataset (generated or a subset), the reference once,
/// then each variant. A failure at one size becomes failed rows, never an exception; cancellation stops after
/// the current repetition (a CPU repetition within milliseconds, cancel.h) and keeps every Summary so far. Throws
/// ParameterError only for an invalid request.
std::vector<Summary> runSweep(
    const SweepPlan& plan, const Runner& runner, RunObserver& observer, std::stop_token stop = {});
/// planSweep, then runSweep of the plan.
std::vector<Summary> runSweep(
    const SweepRequest& request, const Runner& runner, RunObserver& observer, std::stop_token stop = {});

} // namespace ks
