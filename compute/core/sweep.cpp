#include "compute/core/sweep.h"

#include "compute/core/cancel.h"
#include "compute/core/clock_format.h"
#include "compute/core/errors.h"
#include "compute/core/version.h"
#include "data/dataset_error.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ks {

namespace {
std::vector<const Variant*> selectVariants(const SweepRequest& request)
{
    std::vector<const Variant*> selected;
    if (request.variantIds.empty()) {
        for (const auto& v : request.workload->variants())
            selected.push_back(&v);
        return selected;
    }
    for (const auto& id : request.variantIds) {
        const Variant* v = request.workload->findVariant(id);
        if (!v) {
            std::string known;
            for (const auto& k : request.workload->variants())
                known += (known.empty() ? "" : ", ") + k.id;
            throw ParameterError(
                "unknown variant '" + id + "' for workload " + request.workload->id() + " (known: " + known + ")");
        }
        selected.push_back(v);
    }
    return selected;
}

} // namespace

Summary failedSweepRow(
    const SweepPlan& plan, const Variant& variant, std::uint64_t size, const std::string& runId, const std::string& why)
{
    const SweepRequest& request = plan.request;
    Summary s;
    s.params = plan.params;
    s.runId = runId;
    s.timestamp = utcTimestamp();
    s.workload = request.workload->id();
    s.variant = variant.id;
    s.variantName = variant.name;
    s.backend = backendName(variant.backend);
    s.datasetName = request.dataset ? request.dataset->meta().name : "generated";
    s.size = size;
    s.outcome = Outcome::Failed;
    s.message = why;
    s.version = version();
    return s;
}

std::string sweepRunId(const std::string& prefix, int index)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "-%03d", index + 1);
    return prefix + buffer;
}

SizeInputs prepareSize(
    const SweepPlan& plan, std::size_t sizeIndex, const Runner& runner, RunObserver& observer, std::stop_token stop)
{
    const SweepRequest& request = plan.request;
    const Workload& workload = *request.workload;
    const std::uint64_t size = plan.sizes[sizeIndex];
    // The generator sees the stop request through this.
    const AmbientCancel ambient(stop);
    SizeInputs inputs;
    try {
        if (request.dataset) {
            if (size == request.dataset->meta().size) {
                inputs.dataset = *request.dataset;
            } else if (auto part = workload.subset(*request.dataset, size)) {
                inputs.dataset = std::move(*part);
            } else {
                throw ParameterError("workload " + workload.id() + " cannot sweep sizes over a loaded file");
            }
        } else {
            observer.onStatus("generating " + workload.sizeParameter() + "=" + std::to_string(size));
            inputs.dataset = workload.generate(plan.generators[sizeIndex]);
        }
        observer.onDataset(inputs.dataset);
        observer.onStatus("computing the reference for " + inputs.dataset.meta().name);
        inputs.reference = runner.computeReference(workload, inputs.dataset, plan.params, stop);
    } catch (const RunCancelled&) {
        inputs.problem = "cancelled";
    } catch (const data::DatasetError& e) {
        inputs.problem = std::string("dataset: ") + e.what();
    } catch (const std::bad_alloc&) {
        inputs.problem = "out of host memory preparing size " + std::to_string(size);
    } catch (const std::exception& e) {
        inputs.problem = std::string("reference: ") + e.what();
    }
    return inputs;
}

namespace {
/// One size: N, 2^K or a float form of an integer (1e6).
std::uint64_t parseOneSize(const std::string& text)
{
    const auto notASize = [&] { return ParameterError("'" + text + "' is not a size (use N, 2^K, 1e6 or A..B)"); };
    if (text.empty())
        throw notASize();
    if (auto caret = text.find('^'); caret != std::string::npos) {
        const std::string baseText = text.substr(0, caret);
        const std::string exponentText = text.substr(caret + 1);
        if (baseText.empty() || exponentText.empty() || baseText.find_first_not_of("0123456789") != std::string::npos
            || exponentText.find_first_not_of("0123456789") != std::string::npos || exponentText.size() > 2)
            throw notASize();
        const auto base = std::stoull(baseText);
        const auto exponent = std::stoull(exponentText);
        std::uint64_t value = 1;
        for (std::uint64_t i = 0; i < exponent; ++i) {
            if (base != 0 && value > UINT64_MAX / base)
                throw ParameterError("size '" + text + "' is too large");
            value *= base;
        }
        if (value == 0)
            throw notASize();
        return value;
    }
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !(value >= 1.0) || value != std::floor(value)
        || value > 1.8e19)
        throw notASize();
    return static_cast<std::uint64_t>(value);
}
} // namespace

std::vector<std::uint64_t> parseSizeList(const std::string& text)
{
    std::vector<std::uint64_t> sizes;
    for (std::string item : splitList(text)) {
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (item.empty())
            continue;
        if (auto dots = item.find(".."); dots != std::string::npos) {
            std::uint64_t lo = parseOneSize(item.substr(0, dots));
            const std::uint64_t hi = parseOneSize(item.substr(dots + 2));
            if (lo > hi)
                throw ParameterError("size range '" + item + "' runs backwards");
            for (; lo <= hi; lo *= 2) {
                sizes.push_back(lo);
                if (lo > UINT64_MAX / 2)
                    break;
            }
        } else {
            sizes.push_back(parseOneSize(item));
        }
    }
    if (sizes.empty())
        throw ParameterError("no size given");
    return sizes;
}

SweepPlan planSweep(SweepRequest request)
{
    if (!request.workload)
        throw ParameterError("no workload chosen");
    const Workload& workload = *request.workload;
    SweepPlan plan;
    plan.variants = selectVariants(request);
    plan.params = ParamSet::parse(workload.parameters(), request.params);
    plan.sizes = request.sizes;
    if (!request.dataset) {
        const auto generator = ParamSet::parse(workload.generatorParameters(), request.generator);
        if (plan.sizes.empty())
            plan.sizes.push_back(static_cast<std::uint64_t>(generator.integer(workload.sizeParameter())));
        for (auto size : plan.sizes)
            plan.generators.push_back(generator.with(workload.sizeParameter(), std::to_string(size)));
    } else {
        if (plan.sizes.empty())
            plan.sizes.push_back(request.dataset->meta().size);
        for (auto size : plan.sizes)
            if (size == 0 || size > request.dataset->meta().size)
                throw ParameterError("size " + std::to_string(size) + " is outside the loaded dataset's 1.."
                    + std::to_string(request.dataset->meta().size));
    }
    for (std::size_t i = 0; i < plan.sizes.size(); ++i) {
        try {
            workload.checkRun(plan.params, request.dataset ? &*request.dataset : nullptr,
                plan.generators.empty() ? nullptr : &plan.generators[i], plan.sizes[i]);
        } catch (const ParameterError& e) {
            // A refusal that the loaded file's contents cause (its extent, its size) names the file, as a reader's
            // error would.
            const std::string source = request.dataset ? request.dataset->meta().source : std::string();
            const std::string name = request.dataset ? request.dataset->meta().name : std::string();
            const std::string message = e.what();
            if (source.empty() || source == "generator" || message.find(source) != std::string::npos
                || (!name.empty() && message.find(name) != std::string::npos))
                throw;
            throw ParameterError(source + ": " + message);
        }
    }
    const auto& o = request.options;
    if (o.warmup < 0 || o.minRepetitions < 1 || o.maxRepetitions < o.minRepetitions || !(o.noiseTarget > 0.0)
        || !(o.timeLimitS > 0.0))
        throw ParameterError("run options: need warmup >= 0, 1 <= min repetitions <= max repetitions, a positive "
                             "noise target and a positive time limit");
    if (request.runIdPrefix.empty())
        request.runIdPrefix = sessionStamp();
    plan.request = std::move(request);
    return plan;
}

void validateSweep(const SweepRequest& request)
{
    planSweep(request);
}

std::vector<Summary> runSweep(
    const SweepRequest& request, const Runner& runner, RunObserver& observer, std::stop_token stop)
{
    return runSweep(planSweep(request), runner, observer, stop);
}

std::vector<Summary> runSweep(const SweepPlan& plan, const Runner& runner, RunObserver& observer, std::stop_token stop)
{
    const SweepRequest& request = plan.request;
    const Workload& workload = *request.workload;
    const auto& variants = plan.variants;
    const ParamSet& params = plan.params;
    const std::string& prefix = request.runIdPrefix;
    const auto& sizes = plan.sizes;

    const int total = static_cast<int>(sizes.size() * variants.size());
    std::vector<Summary> summaries;
    const Clock& clock = steadyClock();
    const double started = clock.nowSeconds();
    int index = 0;
    for (std::size_t sizeIndex = 0; sizeIndex < sizes.size(); ++sizeIndex) {
        const std::uint64_t size = sizes[sizeIndex];
        if (stop.stop_requested())
            break;
        const SizeInputs inputs = prepareSize(plan, sizeIndex, runner, observer, stop);

        for (const Variant* variant : variants) {
            if (stop.stop_requested())
                break;
            SweepProgress progress;
            progress.runIndex = index;
            progress.runCount = total;
            progress.variant = variant->id;
            progress.size = size;
            progress.elapsedS = clock.nowSeconds() - started;
            progress.remainingS = index > 0 ? progress.elapsedS / index * (total - index) : -1.0;
            observer.onProgress(progress);

            const std::string runId = sweepRunId(prefix, index);
            if (!inputs.problem.empty()) {
                Summary s = failedSweepRow(plan, *variant, size, runId, inputs.problem);
                observer.onSummary(s);
                summaries.push_back(std::move(s));
            } else {
                RunRequest run {&workload, variant, inputs.dataset, params, request.options, inputs.reference, runId};
                summaries.push_back(runner.run(run, observer, stop));
            }
            ++index;
        }
    }
    return summaries;
}

} // namespace ks
