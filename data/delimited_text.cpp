#include "data/delimited_text.h"

#include "data/dataset_error.h"
#include "data/line_cursor.h"
#include "data/number_text.h"
#include "data/quote.h"
#include "data/read_place.h"

#include <algorithm>
#include <charconv>
#include <csv.h>
#include <memory>

namespace ks::data {

namespace {
bool isBlankOrComment(std::string_view line, char commentChar)
{
    for (char c : line) {
        // The CSV path passes lines with their '\n', so it counts as blank too.
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            continue;
        return commentChar != '\0' && c == commentChar;
    }
    return true;
}

Delimiter detectDelimiter(std::string_view text, char commentChar)
{
    std::size_t commas = 0, tabs = 0, semicolons = 0;
    bool quoted = false;
    LineCursor lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (!quoted && isBlankOrComment(line, commentChar))
            continue;
        for (char c : line) {
            if (c == '"')
                quoted = !quoted;
            else if (!quoted) {
                commas += c == ',';
                tabs += c == '\t';
                semicolons += c == ';';
            }
        }
        // A quoted field with a line break: the first record goes on to the next line.
        if (quoted)
            continue;
        if (tabs > 0 && tabs >= commas && tabs >= semicolons)
            return Delimiter::Tab;
        if (commas > 0 && commas >= semicolons)
            return Delimiter::Comma;
        if (semicolons > 0)
            return Delimiter::Semicolon;
        return Delimiter::Whitespace;
    }
    return Delimiter::Comma;
}

struct ParseState {
    std::vector<std::string> fields;
    std::vector<TextRow> completed;
    std::size_t rowLine = 0;
    bool inRow = false;
};

void onField(void* s, std::size_t len, void* data)
{
    auto* state = static_cast<ParseState*>(data);
    state->fields.emplace_back(s ? static_cast<const char*>(s) : "", s ? len : 0);
}

void onRowEnd(int, void* data)
{
    auto* state = static_cast<ParseState*>(data);
    state->completed.push_back(TextRow {state->rowLine, std::move(state->fields)});
    state->fields.clear();
    state->inRow = false;
}

int spaceOnly(unsigned char c)
{
    return c == CSV_SPACE ? 1 : 0;
}

Delimiter parseWhitespace(
    std::string_view text, const DelimitedOptions& options, const std::function<bool(TextRow&)>& onRow)
{
    LineCursor lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (isBlankOrComment(line, options.commentChar))
            continue;
        TextRow row;
        row.line = lines.number();
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                ++i;
            const std::size_t start = i;
            while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
                ++i;
            if (i > start)
                row.fields.emplace_back(line.substr(start, i - start));
        }
        if (!onRow(row))
            break;
    }
    return Delimiter::Whitespace;
}
} // namespace

const char* delimiterName(Delimiter d)
{
    switch (d) {
    case Delimiter::Auto:
        return "auto";
    case Delimiter::Comma:
        return "comma";
    case Delimiter::Tab:
        return "tab";
    case Delimiter::Semicolon:
        return "semicolon";
    case Delimiter::Whitespace:
        return "whitespace";
    }
    return "?";
}

Delimiter parseDelimitedText(std::string_view text, const std::string& file, const DelimitedOptions& options,
    const std::function<bool(TextRow&)>& onRow)
{
    text = withoutBom(text);
    Delimiter delimiter = options.delimiter;
    if (delimiter == Delimiter::Auto)
        delimiter = detectDelimiter(text, options.commentChar);
    if (delimiter == Delimiter::Whitespace)
        return parseWhitespace(text, options, onRow);

    csv_parser parser;
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        throw DatasetError(file, "", "cannot initialise the CSV parser");
    std::unique_ptr<csv_parser, void (*)(csv_parser*)> guard(&parser, csv_free);
    csv_set_delim(&parser, delimiter == Delimiter::Tab ? CSV_TAB : delimiter == Delimiter::Semicolon ? ';' : CSV_COMMA);
    csv_set_space_func(&parser, spaceOnly);

    ParseState state;
    std::size_t pos = 0;
    std::size_t lineNumber = 0;
    bool stopped = false;
    auto flushRows = [&]() {
        for (auto& row : state.completed) {
            if (!stopped && !onRow(row))
                stopped = true;
        }
        state.completed.clear();
    };
    while (pos < text.size() && !stopped) {
        std::size_t end = text.find('\n', pos);
        end = end == std::string_view::npos ? text.size() : end + 1;
        std::string_view line = text.substr(pos, end - pos);
        pos = end;
        ++lineNumber;
        noteReadLine(lineNumber);
        if (!state.inRow && isBlankOrComment(line, options.commentChar))
            continue;
        if (!state.inRow) {
            state.inRow = true;
            state.rowLine = lineNumber;
        }
        if (csv_parse(&parser, line.data(), line.size(), onField, onRowEnd, &state) != line.size())
            throw DatasetError(file, linePlace(lineNumber),
                std::string("malformed CSV (") + csv_strerror(csv_error(&parser)) + "), e.g. a stray quote");
        flushRows();
    }
    if (!stopped) {
        if (csv_fini(&parser, onField, onRowEnd, &state) != 0)
            throw DatasetError(file, linePlace(state.rowLine), "unterminated quoted field");
        flushRows();
    }
    return delimiter;
}

double parseNumberField(std::string_view field, const std::string& file, std::size_t line, std::size_t column)
{
    const std::string_view s = trimmed(field);
    if (s.empty())
        throw DatasetError(file, linePlace(line, column), "empty cell where a number was expected");
    // Not parseReal: a cell whose value underflows a double is out of range here too.
    const std::string_view digits = withoutPlus(s);
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range)
        throw DatasetError(file, linePlace(line, column), quotedToken(s) + " is out of the range of a double");
    if (ec != std::errc() || ptr != digits.data() + digits.size())
        throw DatasetError(file, linePlace(line, column), quotedToken(s) + " is not a number");
    return value;
}

std::string csvField(std::string_view field)
{
    // Tabs and semicolons too: the reader's delimiter detection would split on them; a leading '#' would read as a
    // comment line.
    const bool needsQuotes = field.find_first_of(",;\t\"\r\n") != std::string_view::npos
        || (!field.empty() && (field.front() == ' ' || field.back() == ' ' || field.front() == '#'));
    if (!needsQuotes)
        return std::string(field);
    std::string out(field.size() * 2 + 2, '\0');
    const std::size_t written = csv_write(out.data(), out.size(), field.data(), field.size());
    out.resize(written);
    return out;
}

std::string csvLine(const std::vector<std::string>& fields)
{
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0)
            line += ',';
        line += csvField(fields[i]);
    }
    return line;
}

} // namespace ks::data
