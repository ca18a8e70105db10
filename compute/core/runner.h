#pragma once

#include "compute/core/clock_sampler.h"
#include "compute/core/observer.h"
#include "compute/core/params.h"
#include "compute/core/summary.h"
#include "compute/core/timing.h"
#include "compute/core/workload.h"
#include "compute/device/calibration.h"
#include "data/dataset.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace ks {

/// How a run is timed (NVBench's protocol): warm-ups, then repetitions until the relative standard error of the
/// mean is under the noise target (after a minimum count), or the maximum count, or the time limit.
struct RunOptions {
    int warmup = 1;
    int minRepetitions = 5;
    int maxRepetitions = 500;
    /// The stopping target: the relative standard error of the mean (0.005 = 0.5%), not the measured noise a
    /// Summary reports (the repetitions' relative standard deviation).
    double noiseTarget = 0.005;
    double timeLimitS = 5.0; ///< wall time per run, warm-ups included; at least one repetition always runs
    bool flushL2 = true; ///< evict inputs from the caches before each repetition
    int device = 0; ///< CUDA device ordinal
    /// The devices a multi-device variant (Variant::multiDevice) spreads over; empty: every device present.
    std::vector<int> devices;
    /// Keep results of any size in the Summary (the CLI's --output needs them); otherwise results over
    /// kKeptResultLimit values are dropped once compared, so a sweep does not hold gigabytes.
    bool keepFullResult = false;
    static constexpr std::size_t kKeptResultLimit = std::size_t(1) << 26;
    /// For runs that keep no state (no PreparedRun::stateDigest; those are replayed anyway): after the repetitions,
    /// prepare the variant afresh on the same input, run it once more untimed, and set Summary::deterministic to
    /// whether the two results are bit-identical (identicalBits). Costs one more prepare and run; the second result
    /// is compared and dropped.
    bool checkDeterminism = false;
};

/// The devices a multi-device run uses: `requested`, or every CUDA device present when it is empty. Throws
/// ParameterError for an ordinal that names no device or is named twice.
std::vector<int> resolveDevices(const std::vector<int>& requested);

/// Whether two results hold the same bits: every value by its bit pattern (so -0 and 0, or two NaN payloads, differ),
/// every count, every named array, and the same labels and names.
bool identicalBits(const Result& a, const Result& b);

/// The calibrated ceilings for a backend and device, or nullopt when none can be had.
using CeilingsProvider = std::function<std::optional<Ceilings>(Backend, int device)>;
/// Measures (or reads from the cache) the host's or the device's ceilings.
CeilingsProvider calibratedCeilings();

struct RunRequest {
    const Workload* workload = nullptr;
    const Variant* variant = nullptr;
    data::Dataset dataset;
    ParamSet params;
    RunOptions options;
    std::shared_ptr<const Result> reference; ///< the oracle's result; no Delta without it
    std::string runId;
};

/// Runs one variant on one dataset with the timing protocol, streams every Sample to the observer, and returns
/// (and reports) the Summary. Never throws for a failing variant: the outcome says what happened, and what was
/// measured before a failure or cancellation is kept.
class Runner {
public:
    explicit Runner(const Clock& clock = steadyClock());
    void setCeilingsProvider(CeilingsProvider provider) { m_ceilings = std::move(provider); }
    const Clock& clock() const { return *m_clock; }
    const CeilingsProvider& ceilingsProvider() const { return m_ceilings; }
    const ClockSamplerFactory& clockSamplers() const { return m_clockSamplers; }
    /// Where the clocks sampled around each repetition come from (defaultClockSamplers(); tests inject a fake).
    void setClockSamplers(ClockSamplerFactory factory) { m_clockSamplers = std::move(factory); }

    Summary run(const RunRequest& request, RunObserver& observer, std::stop_token stop = {}) const;

    /// The reference variant run once, untimed: what every variant is compared with. Throws RunCancelled (cancel.h)
    /// when `stop` is requested while it computes.
    std::shared_ptr<const Result> computeReference(const Workload& workload, const data::Dataset& dataset,
        const ParamSet& params, std::stop_token stop = {}) const;

private:
    const Clock* m_clock;
    CeilingsProvider m_ceilings;
    ClockSamplerFactory m_clockSamplers;
};

} // namespace ks
