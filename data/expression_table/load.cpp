// The expression dataset with its metadata, and the choice of reader for a file (HDF5 by its signature, else text).

#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/expression_table/table.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/input_file.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace ks::data {

using namespace expression;

Dataset makeExpressionDataset(ExpressionTable table, std::string name, std::string source)
{
    checkShape(table, source);
    if (table.sampleNames.empty())
        table.sampleNames = generatedNames("S", table.samples);
    if (table.featureNames.empty())
        table.featureNames = generatedNames("F", table.features);
    DatasetMeta meta;
    meta.kind = "expression";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    // The shape too: a 2 × 6 and a 3 × 4 table of the same values are different data.
    const std::uint64_t shape[2] = {table.samples, table.features};
    hasher.add(shape, sizeof shape);
    hasher.addSpan(std::span<const double>(table.values));
    // The companions change what lrv computes: each is hashed after a tag, so none can pose as another.
    const auto addCompanion = [&hasher](std::uint64_t tag, std::uint64_t rows, const std::vector<double>& values) {
        if (values.empty())
            return;
        const std::uint64_t head[2] = {tag, rows};
        hasher.add(head, sizeof head);
        hasher.addSpan(std::span<const double>(values));
    };
    addCompanion(1, table.samples, table.weights);
    addCompanion(2, table.referenceSamples, table.reference);
    addCompanion(3, table.referenceSamples, table.referenceWeights);
    meta.contentHash = hasher.hex();
    meta.size = table.features;
    meta.properties = {
        {"samples", std::to_string(table.samples)},
        {"features", std::to_string(table.features)},
        {"value range", formatRange(table.values)},
        {"stored as", table.storedType},
    };
    const auto from = [](const std::string& file) { return file.empty() ? std::string("generated") : file; };
    if (!table.weights.empty())
        meta.properties.emplace_back("weights", from(table.weightsSource) + ", " + formatRange(table.weights));
    if (!table.reference.empty())
        meta.properties.emplace_back(
            "reference", from(table.referenceSource) + ", " + std::to_string(table.referenceSamples) + " samples");
    if (!table.referenceWeights.empty())
        meta.properties.emplace_back("reference weights", from(table.referenceWeightsSource));
    meta.notes = table.notes;
    return Dataset::make(std::move(meta), std::move(table));
}

namespace {

ExpressionTable readTable(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path);
    return h5::looksLikeHdf5(path) ? readExpressionHdf5(path, options) : readExpressionText(path, options);
}

/// Where each of `ours` is in `theirs`: in place when the lists agree (or `theirs` has the generated names of a file
/// that names nothing, and as many), else found by name. A DatasetError naming `file` for a name it lacks.
std::vector<std::size_t> matchNames(const std::vector<std::string>& ours, const std::vector<std::string>& theirs,
    const char* prefix, const char* what, const std::string& file)
{
    std::vector<std::size_t> at(ours.size());
    for (std::size_t i = 0; i < at.size(); ++i)
        at[i] = i;
    if (theirs == ours || (theirs.size() == ours.size() && theirs == generatedNames(prefix, theirs.size())))
        return at;
    std::unordered_map<std::string_view, std::size_t> index;
    index.reserve(theirs.size());
    for (std::size_t i = 0; i < theirs.size(); ++i)
        index.emplace(theirs[i], i);
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const auto it = index.find(ours[i]);
        if (it == index.end())
            throw DatasetError(file, "",
                std::string("no ") + what + " " + quotedToken(ours[i]) + " (the table's " + what + " "
                    + std::to_string(i + 1) + "; this file has " + plural(theirs.size(), what) + ")");
        at[i] = it->second;
    }
    return at;
}

/// The companion's values, rows × features, its features in the order of `features` (the table's names) and its
/// samples in the order of `samples` when given (else its own).
std::vector<double> aligned(const ExpressionTable& companion, const std::vector<std::string>& features,
    const std::vector<std::string>* samples, const std::string& file)
{
    const auto columns
        = matchNames(features, namesOf(companion.featureNames, "F", companion.features), "F", "feature", file);
    std::vector<std::size_t> rows(companion.samples);
    for (std::size_t k = 0; k < rows.size(); ++k)
        rows[k] = k;
    if (samples)
        rows = matchNames(*samples, namesOf(companion.sampleNames, "S", companion.samples), "S", "sample", file);
    const std::size_t p = features.size();
    std::vector<double> out(rows.size() * p);
    for (std::size_t k = 0; k < rows.size(); ++k)
        for (std::size_t i = 0; i < p; ++i)
            out[k * p + i] = companion.values[rows[k] * companion.features + columns[i]];
    return out;
}

std::string optionText(const ReadOptions& options, const std::string& key)
{
    const auto it = options.params.find(key);
    return it == options.params.end() ? std::string() : it->second;
}

/// Reads the weights, reference and reference weights that the reader options name, each aligned to the table.
void readCompanions(ExpressionTable& table, const ReadOptions& options)
{
    const std::string weights = optionText(options, "weights");
    const std::string reference = optionText(options, "reference");
    const std::string referenceWeights = optionText(options, "reference_weights");
    if (!referenceWeights.empty() && reference.empty())
        throw DatasetError(
            referenceWeights, "parameter reference_weights", "weights for a reference, but no reference=FILE is given");
    // A companion is read like the table (orientation; the reference also with its zeros and na), never by --h5-path.
    ReadOptions companionOptions = options;
    companionOptions.h5Path.clear();
    companionOptions.params.erase("weights");
    companionOptions.params.erase("reference");
    companionOptions.params.erase("reference_weights");
    ReadOptions weightsOptions = companionOptions;
    weightsOptions.params[kWeightsTableParam] = "yes";
    const std::vector<std::string> features = namesOf(table.featureNames, "F", table.features);
    if (!weights.empty()) {
        const ExpressionTable w = readTable(weights, weightsOptions);
        const std::vector<std::string> samples = namesOf(table.sampleNames, "S", table.samples);
        table.weights = aligned(w, features, &samples, weights);
        table.weightsSource = weights;
        table.notes.push_back("weights from " + baseName(weights));
    }
    if (!reference.empty()) {
        const ExpressionTable full = readTable(reference, companionOptions);
        table.reference = aligned(full, features, nullptr, reference);
        table.referenceSamples = full.samples;
        table.referenceSource = reference;
        table.notes.push_back("alpha reference from " + baseName(reference) + ", " + plural(full.samples, "sample"));
        for (const std::string& note : full.notes)
            table.notes.push_back(baseName(reference) + ": " + note);
        if (!referenceWeights.empty()) {
            // Wfull has the reference's samples: matched against the reference's names.
            const std::vector<std::string> samples = namesOf(full.sampleNames, "S", full.samples);
            table.referenceWeights
                = aligned(readTable(referenceWeights, weightsOptions), features, &samples, referenceWeights);
            table.referenceWeightsSource = referenceWeights;
        }
    }
}

} // namespace

Dataset loadExpressionTable(const std::string& path, const ReadOptions& options)
{
    ExpressionTable table = readTable(path, options);
    readCompanions(table, options);
    return makeExpressionDataset(std::move(table), baseName(path), path);
}

} // namespace ks::data
