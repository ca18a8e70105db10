#include "data/expression_table/table.h"

#include "data/dataset_error.h"
#include "data/number_text.h"
#include "data/reader_messages.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace ks::data::expression {

namespace {

/// How many names a note or a message lists before "and N more".
constexpr std::size_t kNamesListed = 5;

std::string choiceParam(const ReadOptions& options, const std::string& key, std::initializer_list<const char*> allowed,
    const std::string& file)
{
    const auto it = options.params.find(key);
    if (it == options.params.end())
        return *allowed.begin();
    for (const char* value : allowed)
        if (it->second == value)
            return value;
    throw DatasetError(file, "parameter " + key,
        quotedToken(it->second) + " is not one of "
            + listing(std::vector<std::string>(allowed.begin(), allowed.end())));
}

/// " (sample S6, feature GENE2)" for a cell of the stored matrix.
std::string cellNames(const RawMatrix& raw, bool featuresAsRows, std::size_t row, std::size_t col)
{
    const std::string rowName = shownName(raw.rowNames[row], kPlaceNameChars);
    const std::string colName = shownName(raw.colNames[col], kPlaceNameChars);
    return " (sample " + (featuresAsRows ? colName : rowName) + ", feature " + (featuresAsRows ? rowName : colName)
        + ")";
}

} // namespace

ReaderSettings readerSettings(const ReadOptions& options, const std::string& file)
{
    ReaderSettings s;
    s.featuresAsRows
        = choiceParam(options, "orientation", {"samples-as-rows", "features-as-rows"}, file) == "features-as-rows";
    s.replaceZeros = choiceParam(options, "zeros", {"error", "replace"}, file) == "replace";
    s.dropMissing = choiceParam(options, "na", {"error", "drop"}, file) == "drop";
    if (options.params.contains(kWeightsTableParam)) {
        s.weights = true;
        s.replaceZeros = false;
        s.dropMissing = false;
    }
    return s;
}

std::vector<std::string> generatedNames(const char* prefix, std::size_t count)
{
    std::vector<std::string> names;
    names.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        names.push_back(prefix + std::to_string(i + 1));
    return names;
}

std::vector<std::string> namesOf(const std::vector<std::string>& names, const char* prefix, std::size_t count)
{
    return names.empty() ? generatedNames(prefix, count) : names;
}

std::optional<std::pair<std::size_t, std::size_t>> findDuplicate(const std::vector<std::string>& names)
{
    std::unordered_map<std::string_view, std::size_t> seen;
    seen.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto [it, inserted] = seen.emplace(names[i], i);
        if (!inserted)
            return std::make_pair(it->second, i);
    }
    return std::nullopt;
}

std::string duplicateProblem(const std::string& name, const std::string& otherPlace)
{
    return "duplicate feature name " + quotedToken(name) + " (also " + otherPlace + ")";
}

std::uint64_t checkedProduct(std::uint64_t a, std::uint64_t b, const std::string& file, const std::string& place)
{
    if (a != 0 && b > UINT64_MAX / a)
        throw DatasetError(file, place, "the matrix extents overflow 64-bit sizes");
    return a * b;
}

ExpressionTable finishTable(RawMatrix raw, const std::string& file, const ReaderSettings& settings,
    const PlaceOf& placeOf, const std::string& missingToken, std::string storedType)
{
    const std::size_t samples = settings.featuresAsRows ? raw.cols : raw.rows;
    const std::size_t features = settings.featuresAsRows ? raw.rows : raw.cols;
    if (samples < 2)
        throw DatasetError(file, "",
            "the table has " + std::to_string(samples) + " sample" + (samples == 1 ? "" : "s")
                + "; lrv needs at least 2 (a variance over samples)"
                + (settings.featuresAsRows ? "" : "; rows are features? use --param orientation=features-as-rows"));
    if (features < 2)
        throw DatasetError(file, "",
            "the table has " + std::to_string(features) + " feature" + (features == 1 ? "" : "s")
                + "; lrv needs at least 2 (a pair of features)");

    auto featureOf = [&](std::size_t r, std::size_t c) { return settings.featuresAsRows ? r : c; };
    auto fail = [&](std::size_t r, std::size_t c, const std::string& problem) {
        throw DatasetError(file, placeOf(r, c) + cellNames(raw, settings.featuresAsRows, r, c), problem);
    };

    // With na=drop the missing values decide first which features the other checks look at.
    std::vector<char> dropped(features, 0);
    if (settings.dropMissing)
        for (std::size_t r = 0; r < raw.rows; ++r)
            for (std::size_t c = 0; c < raw.cols; ++c)
                if (std::isnan(raw.cells[r * raw.cols + c]))
                    dropped[featureOf(r, c)] = 1;

    double smallestPositive = std::numeric_limits<double>::infinity();
    std::size_t zeros = 0;
    for (std::size_t r = 0; r < raw.rows; ++r) {
        for (std::size_t c = 0; c < raw.cols; ++c) {
            if (dropped[featureOf(r, c)])
                continue;
            const double v = raw.cells[r * raw.cols + c];
            if (settings.weights) {
                if (std::isnan(v))
                    fail(r, c, "missing weight " + missingToken + "; every weight must be given");
                if (!(v > 0) || std::isinf(v))
                    fail(r, c, "weight " + formatNumber(v) + "; propr's weights must be finite and positive");
                continue;
            }
            if (std::isnan(v))
                fail(r, c, "missing value " + missingToken + "; drop the feature with --param na=drop");
            if (std::isinf(v))
                fail(r, c,
                    std::string(v > 0 ? "an infinite" : "a negative infinite")
                        + " value; log-ratios need finite, strictly positive values");
            if (v < 0)
                fail(r, c, "negative value " + formatNumber(v) + "; log-ratios need strictly positive values");
            if (v == 0) {
                if (!settings.replaceZeros)
                    fail(r, c, "zero value; log-ratios need strictly positive values (or --param zeros=replace)");
                ++zeros;
            } else {
                smallestPositive = std::min(smallestPositive, v);
            }
        }
    }

    const std::vector<std::string>& allFeatureNames = settings.featuresAsRows ? raw.rowNames : raw.colNames;
    std::vector<std::size_t> newIndex(features, 0);
    std::vector<std::string> droppedNames;
    ExpressionTable table;
    table.samples = samples;
    table.sampleNames = settings.featuresAsRows ? raw.colNames : raw.rowNames;
    for (std::size_t i = 0; i < features; ++i) {
        if (dropped[i]) {
            droppedNames.push_back(allFeatureNames[i]);
        } else {
            newIndex[i] = table.featureNames.size();
            table.featureNames.push_back(allFeatureNames[i]);
        }
    }
    table.features = table.featureNames.size();
    if (!droppedNames.empty()) {
        if (table.features < 2)
            throw DatasetError(file, "",
                std::to_string(droppedNames.size()) + " of " + std::to_string(features)
                    + " features hold missing values; after dropping them " + std::to_string(table.features)
                    + " feature" + (table.features == 1 ? " is" : "s are") + " left, and lrv needs at least 2");
        table.notes.push_back("dropped " + std::to_string(droppedNames.size()) + " of " + std::to_string(features)
            + " features holding missing values (NA, NaN or empty cells): " + listing(droppedNames, kNamesListed));
    }
    if (zeros > 0 && !std::isfinite(smallestPositive))
        throw DatasetError(file, "", "every value is zero: there is no positive value to replace the zeros with");

    if (!settings.featuresAsRows && droppedNames.empty()) {
        table.values = std::move(raw.cells);
    } else {
        table.values.resize(table.samples * table.features);
        for (std::size_t r = 0; r < raw.rows; ++r)
            for (std::size_t c = 0; c < raw.cols; ++c) {
                const std::size_t feature = featureOf(r, c);
                if (dropped[feature])
                    continue;
                const std::size_t sample = settings.featuresAsRows ? c : r;
                table.values[sample * table.features + newIndex[feature]] = raw.cells[r * raw.cols + c];
            }
        raw.cells = {};
    }
    if (zeros > 0) {
        std::size_t replaced = 0;
        for (double& v : table.values)
            if (v == 0) {
                v = smallestPositive;
                ++replaced;
            }
        table.notes.push_back("replaced " + std::to_string(replaced) + (replaced == 1 ? " zero" : " zeros") + " with "
            + formatNumber(smallestPositive) + ", the smallest positive value");
    }
    table.storedType = std::move(storedType);
    return table;
}

void checkShape(const ExpressionTable& t, const std::string& file)
{
    if (t.samples != 0 && t.features > SIZE_MAX / t.samples)
        throw DatasetError(file, "", "the table's extents overflow");
    if (t.values.size() != t.samples * t.features)
        throw DatasetError(file, "",
            "the table holds " + std::to_string(t.values.size()) + " values but its shape is "
                + std::to_string(t.samples) + " × " + std::to_string(t.features));
    if (!t.sampleNames.empty() && t.sampleNames.size() != t.samples)
        throw DatasetError(file, "",
            "the table has " + std::to_string(t.sampleNames.size()) + " sample names for " + std::to_string(t.samples)
                + " samples");
    if (!t.featureNames.empty() && t.featureNames.size() != t.features)
        throw DatasetError(file, "",
            "the table has " + std::to_string(t.featureNames.size()) + " feature names for "
                + std::to_string(t.features) + " features");
    if (!t.weights.empty() && t.weights.size() != t.values.size())
        throw DatasetError(file, "",
            "the weights hold " + std::to_string(t.weights.size()) + " values for a table of "
                + std::to_string(t.values.size()));
    if (t.reference.size() != t.referenceSamples * t.features || (!t.reference.empty() && t.referenceSamples < 2))
        throw DatasetError(file, "",
            "the reference holds " + std::to_string(t.reference.size()) + " values for "
                + std::to_string(t.referenceSamples) + " samples × " + std::to_string(t.features)
                + " features (at least 2 samples)");
    if (!t.referenceWeights.empty() && t.referenceWeights.size() != t.reference.size())
        throw DatasetError(file, "",
            "the reference weights hold " + std::to_string(t.referenceWeights.size()) + " values for a reference of "
                + std::to_string(t.reference.size()));
}

} // namespace ks::data::expression
