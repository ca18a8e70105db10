// Expression tables as TSV/CSV text (R's write.table forms among them): the reader and the CSV writer.

#include "data/atomic_file.h"
#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/expression_table.h"
#include "data/expression_table/table.h"
#include "data/host_memory.h"
#include "data/line_cursor.h"
#include "data/quote.h"
#include "data/text_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string_view>

namespace ks::data {

using namespace expression;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
                + std::to_string(headerWidth + 1) + " (R's write.table form)");
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
                    const std::string colName = shownName(raw.colNames[c], kPlaceNameChars);
                    const std::string shownRow = shownName(rowName, kPlaceNameChars);
                    throw DatasetError(path,
                        error.place() + " (sample " + (settings.featuresAsRows ? colName : shownRow) + ", feature "
                            + (settings.featuresAsRows ? shownRow : colName) + ")",
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

void writeExpressionCsv(const std::string& path, const ExpressionTable& table)
{
    checkShape(table, path);
    const auto features = namesOf(table.featureNames, "F", table.features);
    const auto samples = namesOf(table.sampleNames, "S", table.samples);
    writeFileAtomically(path, [&](AtomicFile& file) {
        std::ostream& out = file.stream();
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
    });
}

} // namespace ks::data
