#pragma once

#include "compute/core/clock_sampler.h"
#include "compute/core/params.h"
#include "compute/core/result.h"
#include "compute/device/device_info.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks {

/// One timed repetition, delivered to observers as it happens.
struct Sample {
    std::string runId;
    std::string workload;
    std::string variant;
    std::uint64_t size = 0;
    int repetition = 0; ///< 0-based, warm-ups excluded
    double ms = 0.0;
    std::optional<double> metric; ///< e.g. a training step's loss
    std::optional<ClockSample> clock; ///< the device's clocks around this repetition (ClockRecorder::after)
};

enum class Outcome { Passed, Incorrect, Failed, Skipped, Cancelled };
const char* outcomeName(Outcome outcome);
Outcome outcomeFromName(const std::string& name);

/// Why the runner stopped repeating a run.
enum class StopReason {
    None, ///< it timed nothing to the end: skipped, failed, a decision whose every partner failed, or an older file
    NoiseTarget, ///< the relative standard error of the mean reached the noise target
    TimeLimit, ///< the time limit came first
    MaxRepetitions, ///< the maximum count came first
    FixedCount, ///< the workload fixes the count (cnn's steps): no noise target applies
    Cancelled,
    /// An A/B decision (decide.h) reached a verdict on every pair the variant is in: the question was answered, so no
    /// noise target applies. Last, so the names before it keep their meaning in older files.
    Decided,
};

/// The CSV/JSON spelling: "", "noise_target", "time_limit", "max_repetitions", "fixed_count", "cancelled",
/// "decided".
inline const char* stopReasonName(StopReason reason)
{
    switch (reason) {
    case StopReason::NoiseTarget:
        return "noise_target";
    case StopReason::TimeLimit:
        return "time_limit";
    case StopReason::MaxRepetitions:
        return "max_repetitions";
    case StopReason::FixedCount:
        return "fixed_count";
    case StopReason::Cancelled:
        return "cancelled";
    case StopReason::Decided:
        return "decided";
    case StopReason::None:
        break;
    }
    return "";
}

/// The reason a name spells; None for an empty or unknown name.
inline StopReason stopReasonFromName(const std::string& name)
{
    for (auto reason : {StopReason::NoiseTarget, StopReason::TimeLimit, StopReason::MaxRepetitions,
             StopReason::FixedCount, StopReason::Cancelled, StopReason::Decided})
        if (name == stopReasonName(reason))
            return reason;
    return StopReason::None;
}

/// Everything known about one run of one variant on one dataset: one row of the results table and the CSV.
struct Summary {
    std::string runId;
    std::string timestamp; ///< ISO 8601 UTC, when the run finished
    std::string workload;
    std::string variant;
    std::string variantName;
    std::string backend;
    std::string datasetName;
    std::string datasetHash;
    std::uint64_t size = 0;
    ParamSet params; ///< the run parameters the variant computed with
    Outcome outcome = Outcome::Failed;
    std::string message; ///< reason for skipped/failed, or the variant's note

    int repetitions = 0;
    double medianMs = 0.0;
    double meanMs = 0.0;
    double minMs = 0.0;
    double maxMs = 0.0;
    double stdevMs = 0.0;
    double noisePct
        = 0.0; ///< measured noise: the repetitions' relative standard deviation, in % (not the stopping target)
    /// How far the median may be off: its relative standard error, in % (medianRelativeStandardError in stats.h,
    /// distribution-free). Empty while undefined: fewer than two repetitions, or a zero median.
    std::optional<double> medianRsePct;
    StopReason stopReason = StopReason::None;
    /// The repetitions stopped on the time limit or the maximum count before their standard error reached the noise
    /// target, or (in an A/B decision) before its pairs reached a verdict: the median is less certain than asked for
    /// (medianRsePct says by how much). Never for a fixed count.
    bool noisy() const { return stopReason == StopReason::TimeLimit || stopReason == StopReason::MaxRepetitions; }
    double transferMs = 0.0;

    double bytes = 0.0; ///< the cost model's, or the variant's own (variantBytes)
    /// PreparedRun::bytesMoved, set after prepare: where present, `bytes` (and the rates) are these.
    std::optional<double> variantBytes;
    double gbPerS = 0.0;
    double flops = 0.0;
    double gflopPerS = 0.0;
    double items = 0.0;
    std::string itemName;
    double itemsPerS = 0.0;
    std::string peakKind; ///< which calibrated ceiling pctOfPeak is against
    double peakValue = 0.0; ///< that ceiling, in GB/s or GFLOP/s
    double pctOfPeak = 0.0;
    /// Whether the working set (`bytes`, the cost model's) fits in the device's last-level cache (`cacheBytes`). A
    /// resident working set is served from that cache even when the runner flushes it before each repetition (the
    /// first touch reloads it, every later pass hits), so gbPerS can exceed a DRAM ceiling and pctOfPeak 100 %.
    /// Empty when the cache size or the bytes are unknown.
    std::optional<bool> cacheResident;
    std::uint64_t cacheBytes = 0; ///< the last-level cache compared against; 0 when unknown

    Delta delta;

    DeviceInfo device; ///< the GPU for cuda/library variants; the host CPU for cpu variants
    std::string version; ///< KernelScope version

    std::vector<double> samplesMs;
    std::vector<double> sampleMetrics;
    std::shared_ptr<const Result> result; ///< the fetched result, for views and --output; null when none was kept
    /// A result was computed and compared but not kept (too large to hold in a sweep, or to store in a JSON file):
    /// views say so instead of showing nothing.
    bool resultDropped = false;
    /// Whether a replay of the same repetitions from the same start left bit-identical state (PreparedRun::
    /// stateDigest); empty when the run has no state or the replay did not finish.
    std::optional<bool> deterministic;
    Facts facts; ///< PreparedRun::facts

    /// Clocks sampled around each repetition (ClockRecorder): one entry per repetition, in samplesMs's order, or none
    /// at all when nothing could be sampled (clockReason says why). Throttled repetitions are kept and marked, never
    /// dropped: the times stand, and the mark says why some may be slow.
    std::vector<double> clockMHz; ///< SM clock (GPU) or mean core frequency (host)
    std::vector<double> memClockMHz;
    std::vector<double> temperatureC;
    std::vector<double> powerW;
    std::vector<std::uint64_t> throttleReasons; ///< NVML reason bits, kThrottle… in clock_sampler.h
    std::vector<bool> throttled; ///< isThrottled(throttleReasons[i])
    double clockMinMHz = 0.0; ///< the SM clock's range over the repetitions; 0 when not sampled
    double clockMaxMHz = 0.0;
    int throttledSamples = 0; ///< repetitions marked throttled
    std::string clockSource; ///< "nvml", "cpufreq", or empty when not sampled
    std::string clockReason; ///< why no clocks were sampled; empty when they were
};

/// The residency rule of Summary::cacheResident: a working set of `bytes` fits when it is no larger than the cache;
/// empty when either size is unknown (zero or less).
inline std::optional<bool> fitsInCache(double bytes, std::uint64_t cacheBytes)
{
    if (!(bytes > 0.0) || cacheBytes == 0)
        return std::nullopt;
    return bytes <= static_cast<double>(cacheBytes);
}

} // namespace ks
