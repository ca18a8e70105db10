#include "compute/core/runner.h"

#include "compute/core/run_parts.h"

#include "compute/core/cancel.h"
#include "compute/core/clock_format.h"
#include "compute/core/device_fault.h"
#include "compute/core/errors.h"
#include "compute/core/stats.h"
#include "compute/core/version.h"
#include "compute/device/device_info.h"
#include "data/dataset_error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

namespace ks {

namespace {
const DeviceInfo& cachedHostInfo()
{
    static const DeviceInfo info = device::hostInfo();
    return info;
}

DeviceInfo deviceFor(Backend backend, int index)
{
    if (backend == Backend::Cpu)
        return cachedHostInfo();
    const auto devices = device::cudaDevices();
    if (index >= 0 && index < static_cast<int>(devices.size()))
        return devices[static_cast<std::size_t>(index)];
    DeviceInfo none;
    none.kind = "cuda";
    none.index = index;
    return none;
}

/// The devices a run uses: RunOptions::device, or a multi-device variant's list (its first device when the list
/// names a device that does not exist: the run itself then fails with the reason).
std::vector<int> runDevices(const Variant& variant, const RunOptions& options)
{
    if (!variant.multiDevice)
        return {options.device};
    try {
        if (auto devices = resolveDevices(options.devices); !devices.empty())
            return devices;
    } catch (const std::exception&) {
    }
    return {options.device};
}

/// Where the run executes: one device as it is, or several as one entry ("2 × NVIDIA H200", its multiprocessors
/// and memory summed), so the result row says what the time was measured on.
DeviceInfo deviceFor(const Variant& variant, const RunOptions& options)
{
    std::vector<DeviceInfo> all;
    for (int d : runDevices(variant, options))
        all.push_back(deviceFor(variant.backend, d));
    DeviceInfo info = all.front();
    if (all.size() == 1)
        return info;
    std::string names = info.name;
    for (std::size_t k = 1; k < all.size(); ++k) {
        names += " + " + all[k].name;
        info.smCount += all[k].smCount;
        info.totalMemory += all[k].totalMemory;
    }
    const bool same = std::all_of(all.begin(), all.end(), [&](const DeviceInfo& d) { return d.name == info.name; });
    info.name = same ? std::to_string(all.size()) + " × " + info.name : names;
    return info;
}

/// The ceilings of a run's devices (runDevices): one device's, or their sum.
std::optional<Ceilings> ceilingsFor(const CeilingsProvider& provider, Backend backend, const std::vector<int>& devices)
{
    if (!provider)
        return std::nullopt;
    std::optional<Ceilings> total = provider(backend, devices.front());
    for (std::size_t k = 1; k < devices.size() && total; ++k) {
        const std::optional<Ceilings> more = provider(backend, devices[k]);
        if (!more)
            return std::nullopt;
        total->readGBs += more->readGBs;
        total->copyGBs += more->copyGBs;
        total->fp32Gflops += more->fp32Gflops;
        total->fp64Gflops += more->fp64Gflops;
        total->name += " + " + more->name;
    }
    return total;
}

} // namespace

std::vector<int> resolveDevices(const std::vector<int>& requested)
{
    const int present = static_cast<int>(device::cudaDevices().size());
    if (requested.empty()) {
        std::vector<int> all(static_cast<std::size_t>(present));
        for (int d = 0; d < present; ++d)
            all[static_cast<std::size_t>(d)] = d;
        return all;
    }
    std::vector<int> seen;
    for (int d : requested) {
        if (d < 0 || d >= present)
            throw ParameterError("device " + std::to_string(d) + " does not exist (" + std::to_string(present)
                + (present == 1 ? " CUDA device" : " CUDA devices") + " present)");
        if (std::find(seen.begin(), seen.end(), d) != seen.end())
            throw ParameterError("device " + std::to_string(d) + " is named twice");
        seen.push_back(d);
    }
    return seen;
}

namespace detail {
void fillTiming(Summary& s, const RunningStats& stats)
{
    s.repetitions = static_cast<int>(stats.count());
    if (stats.count() == 0)
        return;
    s.medianMs = median(s.samplesMs);
    s.meanMs = stats.mean();
    s.minMs = stats.min();
    s.maxMs = stats.max();
    s.stdevMs = stats.stdev();
    s.noisePct = stats.mean() > 0.0 ? 100.0 * stats.stdev() / stats.mean() : 0.0;
    if (const auto rse = medianRelativeStandardError(s.samplesMs))
        s.medianRsePct = 100.0 * *rse;
}

void fillRates(Summary& s, const Cost& cost, const std::optional<Ceilings>& ceilings)
{
    s.bytes = s.variantBytes.value_or(cost.bytes);
    s.flops = cost.flops;
    s.items = cost.items;
    s.itemName = cost.itemName;
    s.peakKind = roofName(cost.roof);
    s.cacheBytes = s.device.lastLevelCacheBytes;
    s.cacheResident = fitsInCache(s.bytes, s.cacheBytes);
    if (s.repetitions == 0 || s.medianMs <= 0.0)
        return;
    const double seconds = s.medianMs * 1e-3;
    s.gbPerS = s.bytes / seconds / 1e9;
    s.gflopPerS = cost.flops / seconds / 1e9;
    s.itemsPerS = cost.items / seconds;
    if (ceilings) {
        s.peakValue = ceilings->valueFor(cost.roof);
        const bool bandwidth = cost.roof == Roof::ReadBandwidth || cost.roof == Roof::CopyBandwidth;
        const double achieved = bandwidth ? s.gbPerS : s.gflopPerS;
        s.pctOfPeak = s.peakValue > 0.0 ? 100.0 * achieved / s.peakValue : 0.0;
    }
}

Summary describeRun(const RunRequest& request)
{
    const auto& meta = request.dataset.meta();
    Summary s;
    s.runId = request.runId;
    s.workload = request.workload->id();
    s.variant = request.variant->id;
    s.variantName = request.variant->name;
    s.backend = backendName(request.variant->backend);
    s.datasetName = meta.name;
    s.datasetHash = meta.contentHash;
    s.size = meta.size;
    s.params = request.params;
    s.version = version();
    s.device = deviceFor(*request.variant, request.options);
    return s;
}

std::shared_ptr<const Result> recordResult(Summary& s, PreparedRun& prepared, const RunRequest& request, bool cancelled)
{
    const Workload& workload = *request.workload;
    auto result = std::make_shared<const Result>(prepared.fetch());
    if (request.reference) {
        s.delta = workload.compare(*result, *request.reference, request.dataset, request.params);
        s.delta.computed = true;
    }
    if (!cancelled) {
        s.facts = prepared.facts();
        for (auto& fact : workload.resultFacts(*result, request.dataset, request.params, request.variant->backend))
            s.facts.push_back(std::move(fact));
    }
    if (request.options.keepFullResult || result->values.size() + result->counts.size() <= RunOptions::kKeptResultLimit)
        s.result = result;
    else
        s.resultDropped = true;
    return result;
}

std::pair<Outcome, std::string> failureOfCurrentException(const std::string& who, const std::string& place)
{
    try {
        throw;
    } catch (const SkipRun& e) {
        return {Outcome::Skipped, e.what()};
    } catch (const RunCancelled&) {
        return {Outcome::Cancelled, "cancelled"};
    } catch (const ComputeError& e) {
        if (e.sticky()) {
            // Said on the run that broke the context; every later CUDA variant is skipped with the same words, and a
            // run that was already under way (an interleaved decision's other variants) fails with them too rather
            // than naming itself as the cause.
            std::string report = device::cudaUnusableReason();
            if (report.empty()) {
                report = brokenContextReport(e.cause().empty() ? e.what() : e.cause(), place);
                device::markCudaUnusable(report);
            }
            return {Outcome::Failed, std::move(report)};
        }
        return {Outcome::Failed, who + e.what()};
    } catch (const data::DatasetError& e) {
        return {Outcome::Failed, who + e.what()};
    } catch (const std::bad_alloc&) {
        return {Outcome::Failed, who + "out of host memory"};
    } catch (const std::exception& e) {
        return {Outcome::Failed, who + e.what()};
    }
}
} // namespace detail

namespace {
/// Whether `repetitions` more repetitions from reset() leave the same state digest as the timed ones did: empty when
/// the run keeps no state, or when the replay was stopped.
std::optional<bool> replayMatches(PreparedRun& prepared, int repetitions, const std::stop_token& stop)
{
    const std::optional<std::uint64_t> timed = prepared.stateDigest();
    if (!timed)
        return std::nullopt;
    prepared.reset();
    for (int i = 0; i < repetitions; ++i) {
        if (stop.stop_requested())
            return std::nullopt;
        prepared.run();
    }
    return prepared.stateDigest() == timed;
}

template <class T> bool sameBits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// RunOptions::checkDeterminism: whether a second run of the variant on the same input gives `first`'s bits. The
/// second run is prepared afresh rather than repeated on `timed`: every variant's prepare poisons its outputs (NaN or
/// 0xff bytes on the device, newly made host buffers), so a run that leaves part of its output unwritten cannot pass
/// by finding the first result still there. `timed` is released first so two runs never hold device memory at once.
/// Empty when stopped.
std::optional<bool> rerunMatches(const Variant& variant, const RunRequest& request, const RunContext& context,
    std::unique_ptr<PreparedRun>& timed, const Result& first, const std::stop_token& stop)
{
    timed = nullptr;
    if (stop.stop_requested())
        return std::nullopt;
    const auto again = variant.prepare(request.dataset, request.params, context);
    again->run();
    return identicalBits(again->fetch(), first);
}
} // namespace

bool identicalBits(const Result& a, const Result& b)
{
    if (a.quantity != b.quantity || a.labels != b.labels || a.names != b.names || a.counts != b.counts
        || a.arraysQuantity != b.arraysQuantity || a.arrays.size() != b.arrays.size() || !sameBits(a.values, b.values))
        return false;
    for (std::size_t i = 0; i < a.arrays.size(); ++i) {
        const NamedArray& x = a.arrays[i];
        const NamedArray& y = b.arrays[i];
        if (x.name != y.name || x.dims != y.dims || !sameBits(x.values, y.values))
            return false;
    }
    return true;
}

CeilingsProvider calibratedCeilings()
{
    return [](Backend backend, int device) -> std::optional<Ceilings> {
        try {
            return backend == Backend::Cpu ? calibration::forHost() : calibration::forDevice(device);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    };
}

Runner::Runner(const Clock& clock)
    : m_clock(&clock)
    , m_ceilings(calibratedCeilings())
    , m_clockSamplers(defaultClockSamplers())
{
}

std::shared_ptr<const Result> Runner::computeReference(
    const Workload& workload, const data::Dataset& dataset, const ParamSet& params, std::stop_token stop) const
{
    const AmbientCancel ambient(stop);
    if (!workload.fullReferenceAffordable(dataset, params)) {
        Result deferred;
        deferred.quantity = "deferred";
        return std::make_shared<const Result>(std::move(deferred));
    }
    const RunContext context {0, m_clock, std::move(stop)};
    auto prepared = workload.referenceVariant().prepare(dataset, params, context);
    prepared->run();
    return std::make_shared<const Result>(prepared->fetch());
}

Summary Runner::run(const RunRequest& request, RunObserver& observer, std::stop_token stop) const
{
    // The comparison and the result facts, which no RunContext reaches, see the stop request through this.
    const AmbientCancel ambient(stop);
    const Workload& workload = *request.workload;
    const Variant& variant = *request.variant;
    const RunOptions& options = request.options;

    Summary s = detail::describeRun(request);
    const std::vector<int> devices = runDevices(variant, options);

    RunningStats stats;
    ClockRecorder clocks(m_clockSamplers ? m_clockSamplers(variant.backend, s.device) : nullptr);
    auto finish = [&](Outcome outcome, std::string message) {
        detail::fillTiming(s, stats);
        clocks.finish(s);
        if (s.repetitions > 0) {
            try {
                detail::fillRates(s, workload.cost(request.dataset, request.params),
                    ceilingsFor(m_ceilings, variant.backend, devices));
            } catch (const std::exception&) {
                // A cost model that cannot evaluate leaves the rates at zero; the timings stand.
            }
        }
        s.outcome = outcome;
        s.message = std::move(message);
        s.timestamp = utcTimestamp();
        observer.onSummary(s);
        return s;
    };

    if (const std::string reason = unavailableReason(variant); !reason.empty())
        return finish(Outcome::Skipped, reason);

    const std::string who = "variant " + variant.id + ": ";
    try {
        if (variant.backend != Backend::Cpu)
            device::selectDevice(options.device);
        RunContext context {options.device, m_clock, stop};
        if (variant.multiDevice) {
            context.devices = resolveDevices(options.devices);
            if (context.devices.empty())
                throw SkipRun("no CUDA device");
        }
        auto prepared = variant.prepare(request.dataset, request.params, context);
        s.transferMs = prepared->transferMs();
        s.variantBytes = prepared->bytesMoved();

        const double started = m_clock->nowSeconds();
        auto timeUp = [&] { return m_clock->nowSeconds() - started >= options.timeLimitS; };
        RepTimer& timer = prepared->timer();

        bool cancelled = false;
        // A repetition abandoned midway (RunCancelled out of a CPU variant's loops) is no sample, and its partial
        // result is neither fetched nor compared; the repetitions before it stand.
        bool abandoned = false;
        try {
            for (int w = 0; w < options.warmup && !stop.stop_requested() && !timeUp(); ++w) {
                timer.start();
                prepared->run();
                timer.stop();
                timer.elapsedMs();
            }
            prepared->reset();
            const std::optional<int> fixed = workload.fixedRepetitions(request.params);
            const int maxRepetitions = fixed ? *fixed : options.maxRepetitions;
            while (true) {
                if (stop.stop_requested()) {
                    cancelled = true;
                    s.stopReason = StopReason::Cancelled;
                    break;
                }
                // Clocks are read outside the timed window (before the flush, after the time was read), so the few NVML
                // calls cost no repetition any time.
                clocks.before();
                if (options.flushL2)
                    prepared->flushCaches();
                timer.start();
                prepared->run();
                timer.stop();
                const double ms = timer.elapsedMs();
                const std::optional<ClockSample> clock = clocks.after(s);
                stats.add(ms);
                s.samplesMs.push_back(ms);
                Sample sample {
                    s.runId, s.workload, s.variant, s.size, static_cast<int>(stats.count()) - 1, ms, {}, clock};
                if (auto m = prepared->metric()) {
                    sample.metric = m;
                    s.sampleMetrics.push_back(*m);
                }
                observer.onSample(sample);

                // The target is checked before the limits: a run that reaches it on its last allowed repetition is not
                // noisy.
                const auto n = static_cast<int>(stats.count());
                if (fixed) {
                    if (n >= maxRepetitions) {
                        s.stopReason = StopReason::FixedCount;
                        break;
                    }
                    continue;
                }
                if (n >= options.minRepetitions && stats.relativeStandardError() <= options.noiseTarget) {
                    s.stopReason = StopReason::NoiseTarget;
                    break;
                }
                if (n >= maxRepetitions) {
                    s.stopReason = StopReason::MaxRepetitions;
                    break;
                }
                if (timeUp()) {
                    s.stopReason = StopReason::TimeLimit;
                    break;
                }
            }

            if (!cancelled && stats.count() > 0)
                s.deterministic = replayMatches(*prepared, static_cast<int>(stats.count()), stop);
        } catch (const RunCancelled&) {
            cancelled = abandoned = true;
            s.stopReason = StopReason::Cancelled;
        }
        std::shared_ptr<const Result> result;
        if (stats.count() > 0 && !abandoned)
            result = detail::recordResult(s, *prepared, request, cancelled);
        // After the facts: a run may state in its note what it measured there (a multi-device run's scaling).
        std::string note = prepared->note();
        if (result) {
            // A run with state was replayed above already and has its verdict.
            if (options.checkDeterminism && !cancelled && !s.deterministic) {
                try {
                    s.deterministic = rerunMatches(variant, request, context, prepared, *result, stop);
                } catch (const RunCancelled&) {
                    cancelled = true;
                    note += (note.empty() ? "" : "; ") + std::string("determinism not checked");
                } catch (const std::exception& e) {
                    // What was measured stands; only a CUDA context lost on the way fails the run.
                    if (const auto* compute = dynamic_cast<const ComputeError*>(&e); compute && compute->sticky())
                        throw;
                    note += (note.empty() ? "" : "; ") + std::string("determinism not checked: ") + e.what();
                }
            }
        }
        if (abandoned)
            note = "the repetition under way was abandoned" + (note.empty() ? "" : "; " + note);
        if (cancelled)
            return finish(Outcome::Cancelled, note.empty() ? "cancelled" : "cancelled; " + note);
        if (s.delta.computed && !s.delta.withinTolerance())
            return finish(Outcome::Incorrect, note);
        return finish(Outcome::Passed, note);
    } catch (...) {
        auto [outcome, message] = detail::failureOfCurrentException(who, runPlace(workload.id(), variant.id, s.size));
        return finish(outcome, std::move(message));
    }
}
} // namespace ks
