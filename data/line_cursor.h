#pragma once

// Walking a text a line and a token at a time, and the small normalisations of a piece of text (blanks, a byte-order
// mark, letter case) that every reader of text shares.

#include "data/read_place.h"

#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace ks::data {

/// A text in memory, one line at a time (LF or CRLF; the line handed out has neither), lines numbered from 1: what
/// every hand-written text reader walks its file with (the CSV/TSV path goes through libcsv instead).
class LineCursor {
public:
    explicit LineCursor(std::string_view text)
        : m_text(text)
    {
    }

    /// The next line; false at the end of the text.
    bool next(std::string_view& line)
    {
        if (m_pos >= m_text.size())
            return false;
        const std::size_t end = m_text.find('\n', m_pos);
        const std::size_t stop = end == std::string_view::npos ? m_text.size() : end;
        line = m_text.substr(m_pos, stop - m_pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        m_pos = end == std::string_view::npos ? m_text.size() : end + 1;
        ++m_number;
        noteReadLine(m_number);
        return true;
    }

    std::size_t number() const { return m_number; } ///< the last line handed out
    std::size_t position() const { return m_pos; } ///< byte offset of the next line
    std::size_t remainingBytes() const { return m_text.size() - m_pos; }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    std::size_t m_number = 0;
};

/// Blanks that separate fields: space, tab, and the carriage return of CRLF files (and \v, \f).
inline constexpr std::array<bool, 256> kBlank = [] {
    std::array<bool, 256> table {};
    for (const unsigned char c : {' ', '\t', '\r', '\v', '\f'})
        table[c] = true;
    return table;
}();

inline bool isBlank(char c)
{
    return kBlank[static_cast<unsigned char>(c)];
}

/// The next blank-separated token of `line` from `pos` (empty at the end of the line).
inline std::string_view nextToken(std::string_view line, std::size_t& pos)
{
    while (pos < line.size() && isBlank(line[pos]))
        ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && !isBlank(line[pos]))
        ++pos;
    return line.substr(start, pos - start);
}

/// `s` without blanks at either end.
inline std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back()))
        s.remove_suffix(1);
    return s;
}

/// `text` without a leading UTF-8 byte-order mark.
inline std::string_view withoutBom(std::string_view text)
{
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    return text;
}

/// `s` in ASCII lower case (extensions, banner words, attribute values are compared so).
inline std::string lowerCase(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace ks::data
