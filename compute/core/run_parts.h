#pragma once

// The pieces of one timed run that the Runner and the interleaved A/B decision (decide.h) share, so both fill a
// Summary the same way. Defined in runner.cpp.

#include "compute/core/runner.h"
#include "compute/core/stats.h"

#include <string>
#include <utility>

namespace ks::detail {

/// A Summary with what the request says: ids, names, dataset, size, parameters, version, device.
Summary describeRun(const RunRequest& request);
/// The repetition count and the timing statistics of the samples in `s.samplesMs`, accumulated in `stats`.
void fillTiming(Summary& s, const RunningStats& stats);
/// Bytes, rates, the share of the calibrated ceiling and the cache residency, from the median.
void fillRates(Summary& s, const Cost& cost, const std::optional<Ceilings>& ceilings);
/// Fetches the last repetition's result and checks it against the request's reference (the Delta), with the run's
/// facts when it was not cancelled; keeps the result in `s` unless too large (RunOptions::keepFullResult), and returns
/// it either way.
std::shared_ptr<const Result> recordResult(
    Summary& s, PreparedRun& prepared, const RunRequest& request, bool cancelled);
/// The outcome and message of the exception being handled (call inside a catch block); `who` prefixes the message.
/// A sticky CUDA error marks CUDA unusable for the process, and its message is the one report of that
/// (brokenContextReport) naming `place`, the run that broke the context ("spmv/faulty at 4096").
std::pair<Outcome, std::string> failureOfCurrentException(const std::string& who, const std::string& place);

} // namespace ks::detail
