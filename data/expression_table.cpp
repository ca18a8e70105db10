#include "data/expression_table.h"

#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/line_cursor.h"
#include "data/number_text.h"
#include "data/random.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

namespace ks::data {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// How many names a note or a message lists before "and N more".
constexpr std::size_t kNamesListed = 5;

/// The reader parameters of ReadOptions::params, checked.
struct ReaderSettings {
    bool featuresAsRows = false;
    bool replaceZeros = false;
    bool dropMissing = false;
};

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
        "'" + it->second + "' is not one of " + listing(std::vector<std::string>(allowed.begin(), allowed.end())));
}

ReaderSettings readerSettings(const ReadOptions& options, const std::string& file)
{
    ReaderSettings s;
    s.featuresAsRows
        = choiceParam(options, "orientation", {"samples-as-rows", "features-as-rows"}, file) == "features-as-rows";
    s.replaceZeros = choiceParam(options, "zeros", {"error", "replace"}, file) == "replace";
    s.dropMissing = choiceParam(options, "na", {"error", "drop"}, file) == "drop";
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

/// The first repeated name as (index of its first occurrence, index of the repeat).
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
    return "duplicate feature name '" + name + "' (also " + otherPlace + "); feature names must be unique";
}

std::uint64_t checkedProduct(std::uint64_t a, std::uint64_t b, const std::string& file, const std::string& place)
{
    if (a != 0 && b > UINT64_MAX / a)
        throw DatasetError(file, place, "the matrix extents overflow 64-bit sizes");
    return a * b;
}

/// A matrix as the file stores it (rows × cols, row-major), before the checks, the transpose and the drops.
struct RawMatrix {
    std::vector<double> cells;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<std::string> rowNames;
    std::vector<std::string> colNames;
};

/// Where a cell of the stored matrix is, for messages: "line 7, column 3" or "dataset /matrix, element [6, 1]".
using PlaceOf = std::function<std::string(std::size_t row, std::size_t col)>;

/// " (sample S6, feature GENE2)" for a cell of the stored matrix.
std::string cellNames(const RawMatrix& raw, bool featuresAsRows, std::size_t row, std::size_t col)
{
    const std::string& rowName = raw.rowNames[row];
    const std::string& colName = raw.colNames[col];
    return " (sample " + (featuresAsRows ? colName : rowName) + ", feature " + (featuresAsRows ? rowName : colName)
        + ")";
}

/// Checks the stored matrix (shape, missing values, infinities, negatives, zeros — the first offending cell in the
/// file's order is the one reported), drops features with missing values when asked, transposes to samples × features
/// and replaces zeros when asked. `missingToken` describes the first missing cell ("NA", "(empty cell)", "NaN").
ExpressionTable finishTable(RawMatrix raw, const std::string& file, const ReaderSettings& settings,
    const PlaceOf& placeOf, const std::string& missingToken, std::string storedType)
{
    const std::size_t samples = settings.featuresAsRows ? raw.cols : raw.rows;
    const std::size_t features = settings.featuresAsRows ? raw.rows : raw.cols;
    if (samples < 2)
        throw DatasetError(file, "",
            "the table has " + std::to_string(samples) + " sample" + (samples == 1 ? "" : "s")
                + "; lrv needs at least 2 (a variance over samples)"
                + (settings.featuresAsRows
                        ? ""
                        : "; if the file's rows are features, use --param orientation=features-as-rows"));
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
                    fail(r, c,
                        "zero value; log-ratios need strictly positive values (replace zeros with the smallest "
                        "positive value with --param zeros=replace)");
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

// --- text -------------------------------------------------------------------------------------------------------

/// NA and empty cells; NaN and nan parse as NaN and count as missing too.
bool isMissingToken(std::string_view field)
{
    const std::string_view s = trimmed(field);
    return s.empty() || s == "NA";
}

enum class FieldKind { Number, Missing, Text };

FieldKind classify(const std::string& field)
{
    if (isMissingToken(field))
        return FieldKind::Missing;
    try {
        parseNumberField(field, "", 0, 0);
        return FieldKind::Number;
    } catch (const DatasetError&) {
        return FieldKind::Text;
    }
}

/// Whitespace-separated files (R's write.table default) quote names but the whitespace parser keeps the quotes.
std::string unquoted(std::string name, Delimiter delimiter)
{
    if (delimiter != Delimiter::Whitespace || name.size() < 2 || name.front() != '"' || name.back() != '"')
        return name;
    std::string out;
    out.reserve(name.size() - 2);
    for (std::size_t i = 1; i + 1 < name.size(); ++i) {
        out += name[i];
        if (name[i] == '"' && name[i + 1] == '"')
            ++i;
    }
    return out;
}

std::string missingDescription(const std::string& field)
{
    const std::string_view s = trimmed(field);
    return s.empty() ? "(empty cell)" : std::string(s);
}
} // namespace

ExpressionTable readExpressionText(const std::string& path, const ReadOptions& options)
{
    const ReaderSettings settings = readerSettings(options, path);
    const std::string text = readTextFile(path);
    // No comment lines: a name may start with '#', and R's write.table never writes comments.
    DelimitedOptions parseOptions;
    parseOptions.commentChar = '\0';

    // Pass 1: the header and the first data row's width; only when those cannot tell whether the first column holds
    // names (as wide as the header, with a label in the corner), whether every data row's first field is a number.
    TextRow header;
    bool haveHeader = false;
    std::size_t dataRows = 0;
    std::size_t width = 0;
    std::size_t firstDataLine = 0;
    bool scanFirstColumn = false;
    bool firstColumnNumeric = true;
    bool firstColumnHasNumber = false;
    const Delimiter delimiter = parseDelimitedText(text, path, parseOptions, [&](TextRow& row) {
        if (!haveHeader) {
            header = std::move(row);
            haveHeader = true;
            return true;
        }
        if (dataRows++ == 0) {
            width = row.fields.size();
            firstDataLine = row.line;
            const std::string_view corner = trimmed(header.fields.front());
            scanFirstColumn = width == header.fields.size() && !corner.empty() && corner != "\"\"";
        }
        if (!scanFirstColumn)
            return false;
        const FieldKind kind = row.fields.empty() ? FieldKind::Missing : classify(row.fields.front());
        if (kind == FieldKind::Text) {
            firstColumnNumeric = false;
            return false;
        }
        firstColumnHasNumber = firstColumnHasNumber || kind == FieldKind::Number;
        return true;
    });
    if (!haveHeader)
        throw DatasetError(path, "", "empty file: no header and no data rows");
    if (dataRows == 0)
        throw DatasetError(path, linePlace(header.line), "header only: no data rows after it");

    const std::size_t headerWidth = header.fields.size();
    bool rowNamesInFile = true;
    std::size_t namesOffset = 0; // where the column names start in the header
    if (width == headerWidth + 1) {
        namesOffset = 0; // R's write.table: no corner cell
    } else if (width == headerWidth) {
        rowNamesInFile = !(scanFirstColumn && firstColumnNumeric && firstColumnHasNumber);
        namesOffset = rowNamesInFile ? 1 : 0;
    } else {
        throw DatasetError(path, linePlace(firstDataLine),
            "row has " + std::to_string(width) + " fields but the header has " + std::to_string(headerWidth)
                + "; expected " + std::to_string(headerWidth) + " (a corner cell in the header) or "
                + std::to_string(headerWidth + 1)
                + " (R's write.table form: a row name and one value per header field)");
    }
    const std::size_t fieldOffset = rowNamesInFile ? 1 : 0;
    const std::size_t dataCols = width - fieldOffset;
    if (dataCols == 0)
        throw DatasetError(path, linePlace(firstDataLine), "no value columns: each row holds only its name");

    RawMatrix raw;
    raw.cols = dataCols;
    for (std::size_t c = namesOffset; c < headerWidth; ++c)
        raw.colNames.push_back(unquoted(header.fields[c], delimiter));
    if (!settings.featuresAsRows)
        if (const auto dup = findDuplicate(raw.colNames))
            throw DatasetError(path, linePlace(header.line, namesOffset + dup->second + 1),
                duplicateProblem(raw.colNames[dup->second],
                    "column " + std::to_string(namesOffset + dup->first + 1) + " of the header"));

    // Every data row takes at least one line, so the line count bounds the rows before any are stored.
    const std::uint64_t rowBound = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    const std::uint64_t cellBound = checkedProduct(rowBound, dataCols, path, "");
    const bool secondCopy = settings.featuresAsRows || settings.dropMissing;
    requireHostMemory(checkedProduct(cellBound, sizeof(double) * (secondCopy ? 2 : 1), path, ""), path, "",
        "the matrix (up to " + std::to_string(rowBound) + " rows × " + std::to_string(dataCols) + " values)");
    raw.cells.reserve(static_cast<std::size_t>(cellBound));

    // Pass 2: the values. Structural problems (ragged rows, text in a value cell) stop the read here; the value
    // checks run afterwards over the whole matrix in finishTable.
    std::vector<std::size_t> rowLines;
    std::string firstMissing;
    bool sawMissing = false;
    bool inHeader = true;
    parseOptions.delimiter = delimiter;
    parseDelimitedText(text, path, parseOptions, [&](TextRow& row) {
        if (inHeader) {
            inHeader = false;
            return true;
        }
        if (row.fields.size() != width)
            throw DatasetError(path, linePlace(row.line),
                "row has " + std::to_string(row.fields.size()) + (row.fields.size() == 1 ? " field" : " fields")
                    + "; expected " + std::to_string(width) + " like the first data row (line "
                    + std::to_string(firstDataLine) + ")");
        const std::size_t r = rowLines.size();
        rowLines.push_back(row.line);
        std::string rowName = rowNamesInFile ? unquoted(std::move(row.fields.front()), delimiter)
                                             : (settings.featuresAsRows ? "F" : "S") + std::to_string(r + 1);
        for (std::size_t c = 0; c < dataCols; ++c) {
            const std::string& field = row.fields[c + fieldOffset];
            double value = kNaN;
            if (!isMissingToken(field)) {
                try {
                    value = parseNumberField(field, path, row.line, c + fieldOffset + 1);
                } catch (const DatasetError& error) {
                    const std::string& colName = raw.colNames[c];
                    throw DatasetError(path,
                        error.place() + " (sample " + (settings.featuresAsRows ? colName : rowName) + ", feature "
                            + (settings.featuresAsRows ? rowName : colName) + ")",
                        error.problem());
                }
            }
            if (std::isnan(value) && !sawMissing) {
                sawMissing = true;
                firstMissing = missingDescription(field);
            }
            raw.cells.push_back(value);
        }
        raw.rowNames.push_back(std::move(rowName));
        return true;
    });
    raw.rows = rowLines.size();
    raw.cells.shrink_to_fit();
    if (settings.featuresAsRows && rowNamesInFile)
        if (const auto dup = findDuplicate(raw.rowNames))
            throw DatasetError(path, linePlace(rowLines[dup->second], 1),
                duplicateProblem(raw.rowNames[dup->second], "line " + std::to_string(rowLines[dup->first])));

    const PlaceOf placeOf = [&](std::size_t r, std::size_t c) { return linePlace(rowLines[r], c + fieldOffset + 1); };
    return finishTable(std::move(raw), path, settings, placeOf, firstMissing, "float64");
}

// --- HDF5 -------------------------------------------------------------------------------------------------------

namespace {
bool isMatrix(const h5::DatasetInfo& d)
{
    return d.dims.size() == 2 && (d.isFloat || d.isInteger);
}

/// The matrix to read: ReadOptions::h5Path when it names a dataset, else the only 2-D numeric dataset in the file
/// (or in the group h5Path names).
std::string chooseMatrix(const h5::File& file, const std::string& h5Path)
{
    const h5::DatasetSearch search = h5::searchDatasets(file, h5Path, isMatrix);
    if (!search.chosen.empty())
        return search.chosen;
    const std::string place = search.group == "/" ? "" : "group " + search.group;
    if (search.fitting.empty())
        file.fail(place,
            "no 2-D numeric dataset (an expression matrix) in " + search.where() + " (it has "
                + (search.all.empty() ? std::string("no datasets") : listing(h5::describe(search.all))) + ")");
    file.fail(place,
        "several 2-D numeric datasets in " + search.where() + " (" + listing(h5::describe(search.fitting))
            + "); choose one with --h5-path");
}

/// Names and the dataset they came from: the first of `candidates` (in the matrix's group) that is a 1-D string
/// dataset of `expected` names; generated (and no dataset) when none exists; an error naming the first candidate
/// that exists but does not fit when none fits.
std::pair<std::vector<std::string>, std::string> readNames(const h5::File& file, const std::string& matrixPath,
    std::initializer_list<const char*> candidates, std::size_t expected, std::size_t otherExtent, const char* what,
    const char* prefix, bool featuresAsRows)
{
    const std::string group = h5::parentPath(matrixPath);
    std::optional<std::pair<std::string, std::string>> misfit; // place, problem
    for (const char* name : candidates) {
        const std::string path = h5::childPath(group, name);
        if (path == matrixPath || !file.hasDataset(path))
            continue;
        const h5::DatasetInfo info = file.info(path);
        const std::string wanted = "expected a 1-D list of " + std::to_string(expected) + " " + what + " names";
        std::string problem;
        if (info.type != "string")
            problem = "holds " + info.type + " values; " + wanted + " (strings)";
        else if (info.dims.size() != 1)
            problem = "has rank " + std::to_string(info.dims.size()) + "; " + wanted;
        else if (info.dims[0] != expected) {
            problem = "has " + std::to_string(info.dims[0]) + " names but the matrix " + matrixPath + " has "
                + std::to_string(expected) + " " + what + "s";
            if (info.dims[0] == otherExtent && otherExtent != expected)
                problem += std::string("; is the matrix stored ")
                    + (featuresAsRows ? "samples × features" : "features × samples")
                    + "? read it with --param orientation=" + (featuresAsRows ? "samples-as-rows" : "features-as-rows");
        } else {
            return {file.readStrings(path), path};
        }
        if (!misfit)
            misfit.emplace("dataset " + path, problem);
    }
    if (misfit)
        file.fail(misfit->first, misfit->second);
    return {generatedNames(prefix, expected), std::string()};
}
} // namespace

ExpressionTable readExpressionHdf5(const std::string& path, const ReadOptions& options)
{
    const ReaderSettings settings = readerSettings(options, path);
    const h5::File file = h5::File::open(path);
    const std::string matrixPath = chooseMatrix(file, options.h5Path);
    const h5::DatasetInfo info = file.info(matrixPath);
    const std::string place = "dataset " + matrixPath;
    const char* const layout = settings.featuresAsRows ? "features × samples" : "samples × features";
    if (info.dims.size() != 2)
        file.fail(place, "has rank " + std::to_string(info.dims.size()) + "; expected a 2-D matrix (" + layout + ")");
    if (!info.isFloat && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected numbers (float or integer)");
    if (info.dims[0] == 0 || info.dims[1] == 0)
        file.fail(place, "is empty (" + std::to_string(info.dims[0]) + "×" + std::to_string(info.dims[1]) + ")");

    RawMatrix raw;
    raw.rows = static_cast<std::size_t>(info.dims[0]);
    raw.cols = static_cast<std::size_t>(info.dims[1]);
    const bool secondCopy = settings.featuresAsRows || settings.dropMissing;
    requireHostMemory(checkedProduct(checkedProduct(raw.rows, raw.cols, path, place),
                          sizeof(double) * (secondCopy ? 2 : 1), path, place),
        path, place, "reading the " + std::to_string(raw.rows) + " × " + std::to_string(raw.cols) + " matrix");

    const std::size_t samples = settings.featuresAsRows ? raw.cols : raw.rows;
    const std::size_t features = settings.featuresAsRows ? raw.rows : raw.cols;
    // rownames/colnames name the stored matrix's rows and columns, so they swap with the orientation.
    auto [featureNames, featureSource] = readNames(file, matrixPath,
        {"feature_names", "features", "genes", "var_names", settings.featuresAsRows ? "rownames" : "colnames"},
        features, samples, "feature", "F", settings.featuresAsRows);
    auto [sampleNames, sampleSource] = readNames(file, matrixPath,
        {"sample_names", "samples", "obs_names", "barcodes", settings.featuresAsRows ? "colnames" : "rownames"},
        samples, features, "sample", "S", settings.featuresAsRows);
    if (const auto dup = findDuplicate(featureNames))
        file.fail("dataset " + featureSource,
            duplicateProblem(featureNames[dup->second],
                "element " + std::to_string(dup->first) + "; it repeats at element " + std::to_string(dup->second)));

    raw.cells = file.readDoubles(matrixPath, 2, false);
    raw.rowNames = std::move(settings.featuresAsRows ? featureNames : sampleNames);
    raw.colNames = std::move(settings.featuresAsRows ? sampleNames : featureNames);
    const PlaceOf placeOf = [&](std::size_t r, std::size_t c) {
        return place + ", element [" + std::to_string(r) + ", " + std::to_string(c) + "]";
    };
    return finishTable(std::move(raw), path, settings, placeOf, "NaN", info.type);
}

Dataset loadExpressionTable(const std::string& path, const ReadOptions& options)
{
    ExpressionTable table
        = h5::looksLikeHdf5(path) ? readExpressionHdf5(path, options) : readExpressionText(path, options);
    return makeExpressionDataset(std::move(table), baseName(path), path);
}

// --- writers ----------------------------------------------------------------------------------------------------

namespace {
/// The table's names, generated where a list is empty; a DatasetError when the shape does not hold together.
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
}

std::vector<std::string> namesOf(const std::vector<std::string>& names, const char* prefix, std::size_t count)
{
    return names.empty() ? generatedNames(prefix, count) : names;
}
} // namespace

void writeExpressionCsv(const std::string& path, const ExpressionTable& table)
{
    checkShape(table, path);
    const auto features = namesOf(table.featureNames, "F", table.features);
    const auto samples = namesOf(table.sampleNames, "S", table.samples);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw DatasetError(path, "", "cannot open for writing");
    std::vector<std::string> headerFields;
    headerFields.reserve(features.size() + 1);
    headerFields.emplace_back(); // the empty corner cell
    headerFields.insert(headerFields.end(), features.begin(), features.end());
    out << csvLine(headerFields) << '\n';
    char buffer[40];
    std::string line;
    for (std::size_t k = 0; k < table.samples; ++k) {
        line = csvField(samples[k]);
        for (std::size_t i = 0; i < table.features; ++i) {
            // %.17g round-trips every double exactly.
            std::snprintf(buffer, sizeof buffer, ",%.17g", table.values[k * table.features + i]);
            line += buffer;
        }
        out << line << '\n';
    }
    if (!out)
        throw DatasetError(path, "", "write failed (disk full?)");
}

void writeExpressionHdf5(const std::string& path, const ExpressionTable& table)
{
    checkShape(table, path);
    h5::File file = h5::File::create(path);
    file.writeDoubles("/matrix", table.values, {table.samples, table.features}, true);
    file.writeStrings("/feature_names", namesOf(table.featureNames, "F", table.features));
    file.writeStrings("/sample_names", namesOf(table.sampleNames, "S", table.samples));
}

// --- the generator ----------------------------------------------------------------------------------------------

namespace {
// CounterRng streams: each draw is a function of (seed, stream, index) only, so the table is the same for any
// thread count.
constexpr std::uint64_t kFeatureMeanStream = 1; // normal(): streams 2 and 3, index = feature
constexpr std::uint64_t kPlantedScaleStream = 4; // uniform, index = pair
constexpr std::uint64_t kPlantedNoiseStream = 3; // normal(): streams 6 and 7, index = pair · N + sample
constexpr std::uint64_t kCellStreamBase = 16; // the n-th draw of a cell is stream 16 + n, index = cell

/// Log-normal spread of the feature means around meanCount (σ of the log).
constexpr double kMeanLogSpread = 1.0;
/// Above this mean a Poisson count is drawn from its normal approximation; below, by inversion (e^-λ stays normal).
constexpr double kPoissonNormalAbove = 500.0;
/// Marsaglia–Tsang accepts over 95% of its proposals; this many rejections in a row does not happen in practice.
constexpr int kGammaMaxTries = 64;

/// Gamma(shape, 1) by Marsaglia & Tsang (2000), with the U^(1/shape) boost for shape < 1.
double gammaDraw(double shape, DrawSequence& draws)
{
    const double boost = shape < 1.0 ? std::pow(draws.uniform(), 1.0 / shape) : 1.0;
    const double a = shape < 1.0 ? shape + 1.0 : shape;
    const double d = a - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (int attempt = 0; attempt < kGammaMaxTries; ++attempt) {
        const double x = draws.normal();
        const double t = 1.0 + c * x;
        if (t <= 0.0)
            continue;
        const double v = t * t * t;
        const double u = draws.uniform();
        if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
            return d * v * boost;
    }
    return d * boost;
}

double poissonDraw(double lambda, DrawSequence& draws)
{
    if (!(lambda > 0.0))
        return 0.0;
    if (lambda > kPoissonNormalAbove)
        return std::max(0.0, std::floor(lambda + std::sqrt(lambda) * draws.normal() + 0.5));
    // Inversion: walk the CDF from 0 (the loop ends at the latest when the pmf underflows, far in the tail).
    const double u = draws.uniform();
    double pmf = std::exp(-lambda);
    double cdf = pmf;
    double k = 0.0;
    while (u > cdf && pmf > 0.0) {
        k += 1.0;
        pmf *= lambda / k;
        cdf += pmf;
    }
    return k;
}

void checkGenerator(const ExpressionGenerator& g)
{
    if (g.samples < 2)
        throw DatasetError("generator", "samples", "must be at least 2 (a variance needs two samples)");
    if (g.features < 2)
        throw DatasetError("generator", "features", "must be at least 2 (a pair of features)");
    if (g.plantedPairs > g.features / 2)
        throw DatasetError("generator", "planted",
            std::to_string(g.plantedPairs) + " pairs do not fit in " + std::to_string(g.features)
                + " features (at most features / 2 = " + std::to_string(g.features / 2) + ")");
    if (!(g.meanCount > 0.0) || !std::isfinite(g.meanCount) || !(g.dispersion >= 0.0) || !std::isfinite(g.dispersion)
        || !(g.proportionalNoise >= 0.0) || !std::isfinite(g.proportionalNoise))
        throw DatasetError("generator", "parameters",
            "mean must be positive and finite; dispersion and noise non-negative and finite");
}
} // namespace

std::vector<std::pair<std::size_t, std::size_t>> plantedPairs(const ExpressionGenerator& g)
{
    checkGenerator(g);
    const std::size_t m = g.plantedPairs;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    if (m == 0)
        return pairs;
    // j spread evenly over the lower half of the features, i over the upper half in a scrambled order (a stride
    // coprime to m near m/φ), so pairs are far apart and not nested or aligned.
    const std::size_t low = g.features / 2;
    const std::size_t high = g.features - low;
    std::size_t stride
        = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(0.618 * static_cast<double>(m))));
    while (std::gcd(stride, m) != 1)
        ++stride;
    pairs.reserve(m);
    for (std::size_t t = 0; t < m; ++t) {
        const std::size_t j = (2 * t + 1) * low / (2 * m);
        const std::size_t slot = (t * stride) % m;
        const std::size_t i = low + (2 * slot + 1) * high / (2 * m);
        pairs.emplace_back(i, j);
    }
    return pairs;
}

ExpressionTable generateExpression(const ExpressionGenerator& g)
{
    checkGenerator(g);
    const std::uint64_t cells = checkedProduct(g.samples, g.features, "generator", "samples × features");
    requireHostMemory(checkedProduct(cells, sizeof(double), "generator", "samples × features"), "generator",
        "samples=" + std::to_string(g.samples) + ", features=" + std::to_string(g.features),
        "generating the expression table");
    const CounterRng rng(g.seed);
    ExpressionTable t;
    t.samples = g.samples;
    t.features = g.features;
    t.values.resize(static_cast<std::size_t>(cells));
    t.sampleNames = generatedNames("S", g.samples);
    t.featureNames = generatedNames("F", g.features);

    std::vector<double> featureMean(g.features);
    for (std::size_t i = 0; i < g.features; ++i)
        featureMean[i] = g.meanCount * std::exp(kMeanLogSpread * rng.normal(kFeatureMeanStream, i));

    const double shape = g.dispersion > 0.0 ? 1.0 / g.dispersion : 0.0;
    const auto total = static_cast<std::int64_t>(cells);
    const std::size_t p = g.features;
#pragma omp parallel for schedule(static)
    for (std::int64_t q = 0; q < total; ++q) {
        const auto cell = static_cast<std::uint64_t>(q);
        DrawSequence draws(rng, kCellStreamBase, cell);
        // Gamma(1/dispersion, dispersion): mean 1, variance = dispersion; times Poisson, a negative binomial.
        const double multiplier = g.dispersion > 0.0 ? gammaDraw(shape, draws) * g.dispersion : 1.0;
        t.values[cell] = 1.0 + poissonDraw(featureMean[cell % p] * multiplier, draws);
    }

    const auto pairs = plantedPairs(g);
    for (std::size_t pair = 0; pair < pairs.size(); ++pair) {
        const auto [i, j] = pairs[pair];
        const double scale = 0.5 + 1.5 * rng.uniform(kPlantedScaleStream, pair);
        for (std::size_t k = 0; k < g.samples; ++k) {
            const double z = rng.normal(kPlantedNoiseStream, pair * g.samples + k);
            t.values[k * p + i] = scale * t.values[k * p + j] * std::exp(g.proportionalNoise * z);
        }
    }
    return t;
}

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
    meta.contentHash = hasher.hex();
    meta.size = table.features;
    meta.properties = {
        {"samples", std::to_string(table.samples)},
        {"features", std::to_string(table.features)},
        {"value range", formatRange(table.values)},
        {"stored as", table.storedType},
    };
    meta.notes = table.notes;
    return Dataset::make(std::move(meta), std::move(table));
}

} // namespace ks::data
