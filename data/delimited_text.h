#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::data {

enum class Delimiter { Auto, Comma, Tab, Semicolon, Whitespace };

/// One parsed row and the physical line it started on (1-based).
struct TextRow {
    std::size_t line = 0;
    std::vector<std::string> fields;
};

struct DelimitedOptions {
    Delimiter delimiter = Delimiter::Auto;
    char commentChar = '#'; ///< lines starting with it are skipped; '\0' disables comments
};

/// Parses CSV/TSV (quoting per RFC 4180, through libcsv) or whitespace-separated text.
/// Strips a UTF-8 byte-order mark, accepts LF and CRLF, skips blank and comment lines.
/// `onRow` returns false to stop early. Returns the delimiter used (the detected one for Auto).
/// Throws DatasetError for malformed quoting, naming the line.
Delimiter parseDelimitedText(std::string_view text, const std::string& file, const DelimitedOptions& options,
    const std::function<bool(TextRow&)>& onRow);

/// Parses a decimal number (leading/trailing blanks allowed, "nan"/"inf" accepted); throws DatasetError naming
/// the file, line and column when the field is empty or not a number.
double parseNumberField(std::string_view field, const std::string& file, std::size_t line, std::size_t column);

/// The field as it must appear in a CSV file: quoted (through libcsv) only when it holds a delimiter (comma, tab,
/// semicolon), quote or line break, or starts with a blank or '#'.
std::string csvField(std::string_view field);

/// Joins fields into one CSV line (no trailing newline), quoting each as needed.
std::string csvLine(const std::vector<std::string>& fields);

const char* delimiterName(Delimiter d);

} // namespace ks::data
