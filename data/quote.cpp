#include "data/quote.h"

namespace ks::data {

namespace {
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";

/// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong forms, no surrogates,
/// nothing past U+10FFFF), or 0 when it is not one; `codePoint` receives its value.
std::size_t utf8Sequence(std::string_view s, char32_t& codePoint)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = byte(0);
    std::size_t length = 0;
    char32_t min = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        codePoint = lead & 0x1Fu;
        min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        codePoint = lead & 0x0Fu;
        min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        codePoint = lead & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    if (s.size() < length)
        return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0u) != 0x80u)
            return 0;
        codePoint = (codePoint << 6) | (byte(i) & 0x3Fu);
    }
    if (codePoint < min || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
        return 0;
    return length;
}

std::string hexEscape(const char* prefix, unsigned value, int digits)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out(prefix);
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        out += kHex[(value >> shift) & 0xFu];
    return out;
}

/// Terminals act on C1 controls (U+009B is a one-character CSI) and the bidirectional controls reorder what follows.
bool isInvisibleControl(char32_t c)
{
    return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}
} // namespace

std::string escapedText(std::string_view text, std::size_t maxChars)
{
    std::string out;
    out.reserve(text.size() < 256 ? text.size() + 8 : 256);
    std::size_t chars = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::string_view unit;
        std::string escape;
        std::size_t consumed = 1;
        bool codePointKept = false;
        if (c == '\t')
            unit = "\\t";
        else if (c == '\n')
            unit = "\\n";
        else if (c == '\r')
            unit = "\\r";
        else if (c < 0x20 || c == 0x7F)
            escape = hexEscape("\\x", c, 2);
        else if (c < 0x80)
            unit = text.substr(i, 1);
        else {
            char32_t codePoint = 0;
            consumed = utf8Sequence(text.substr(i), codePoint);
            if (consumed == 0) {
                consumed = 1;
                escape = hexEscape("\\x", c, 2);
            } else if (isInvisibleControl(codePoint)) {
                escape = hexEscape("\\u", static_cast<unsigned>(codePoint), 4);
            } else {
                unit = text.substr(i, consumed);
                codePointKept = true;
            }
        }
        if (!escape.empty())
            unit = escape;
        // A code point is one character on screen; an escape is as wide as it is written.
        const std::size_t width = codePointKept ? 1 : unit.size();
        if (chars + width > maxChars) {
            out.append(kEllipsis);
            return out;
        }
        out.append(unit);
        chars += width;
        i += consumed;
    }
    return out;
}

std::string shownName(std::string_view name, std::size_t maxChars)
{
    return escapedText(name, maxChars);
}

std::string quotedToken(std::string_view token)
{
    return "'" + escapedText(token, kQuotedChars) + "'";
}

} // namespace ks::data
