#include "compute/core/sweep.h"

#include "compute/core/clock_format.h"
#include "compute/core/errors.h"
#include "compute/core/version.h"
#include "data/dataset_error.h"

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

/// A row for a run that could not start because its size's dataset or reference failed.
Summary failedRow(const SweepRequest& request, const Variant& variant, std::uint64_t size, const std::string& runId,
    const std::string& why)
{
    Summary s;
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

std::string runIdFor(const std::string& prefix, int index)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "-%03d", index + 1);
    return prefix + buffer;
}
} // namespace

void validateSweep(const SweepRequest& request)
{
    if (!request.workload)
        throw ParameterError("no workload chosen");
    selectVariants(request);
    ParamSet::parse(request.workload->parameters(), request.params);
    if (!request.dataset) {
        const auto generator = ParamSet::parse(request.workload->generatorParameters(), request.generator);
        for (auto size : request.sizes)
            generator.with(request.workload->sizeParameter(), std::to_string(size));
    } else {
        for (auto size : request.sizes)
            if (size == 0 || size > request.dataset->meta().size)
                throw ParameterError("size " + std::to_string(size) + " is outside the loaded dataset's 1.."
                    + std::to_string(request.dataset->meta().size));
    }
    const auto& o = request.options;
    if (o.warmup < 0 || o.minRepetitions < 1 || o.maxRepetitions < o.minRepetitions || !(o.noiseTarget > 0.0)
        || !(o.timeLimitS > 0.0))
        throw ParameterError("run options: need warmup >= 0, 1 <= min repetitions <= max repetitions, a positive "
                             "noise target and a positive time limit");
}

std::vector<Summary> runSweep(
    const SweepRequest& request, const Runner& runner, RunObserver& observer, std::stop_token stop)
{
    validateSweep(request);
    const Workload& workload = *request.workload;
    const auto variants = selectVariants(request);
    const ParamSet params = ParamSet::parse(workload.parameters(), request.params);
    const std::string prefix = request.runIdPrefix.empty() ? sessionStamp() : request.runIdPrefix;

    std::vector<std::uint64_t> sizes = request.sizes;
    ParamSet generator;
    if (!request.dataset) {
        generator = ParamSet::parse(workload.generatorParameters(), request.generator);
        if (sizes.empty())
            sizes.push_back(static_cast<std::uint64_t>(generator.integer(workload.sizeParameter())));
    } else if (sizes.empty()) {
        sizes.push_back(request.dataset->meta().size);
    }

    const int total = static_cast<int>(sizes.size() * variants.size());
    std::vector<Summary> summaries;
    const Clock& clock = steadyClock();
    const double started = clock.nowSeconds();
    int index = 0;
    for (auto size : sizes) {
        if (stop.stop_requested())
            break;
        data::Dataset dataset;
        std::shared_ptr<const Result> reference;
        std::string problem;
        try {
            if (request.dataset) {
                if (size == request.dataset->meta().size) {
                    dataset = *request.dataset;
                } else if (auto part = workload.subset(*request.dataset, size)) {
                    dataset = std::move(*part);
                } else {
                    throw ParameterError("workload " + workload.id() + " cannot sweep sizes over a loaded file");
                }
            } else {
                observer.onStatus("generating " + workload.sizeParameter() + "=" + std::to_string(size));
                dataset = workload.generate(generator.with(workload.sizeParameter(), std::to_string(size)));
            }
            observer.onStatus("computing the reference for " + dataset.meta().name);
            reference = runner.computeReference(workload, dataset, params);
        } catch (const data::DatasetError& e) {
            problem = std::string("dataset: ") + e.what();
        } catch (const std::bad_alloc&) {
            problem = "out of host memory preparing size " + std::to_string(size);
        } catch (const std::exception& e) {
            problem = std::string("reference: ") + e.what();
        }

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

            const std::string runId = runIdFor(prefix, index);
            if (!problem.empty()) {
                Summary s = failedRow(request, *variant, size, runId, problem);
                observer.onSummary(s);
                summaries.push_back(std::move(s));
            } else {
                RunRequest run {&workload, variant, dataset, params, request.options, reference, runId};
                summaries.push_back(runner.run(run, observer, stop));
            }
            ++index;
        }
    }
    return summaries;
}

} // namespace ks
