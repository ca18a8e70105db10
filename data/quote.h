#pragma once

// Text from a file, made safe to put in a message: a hostile file must not be able to send terminal escape sequences
// or a flood of bytes through an error line. Every reader quotes file content with quotedToken, and DatasetError
// passes its file name, place and problem through escapedText as a last line of defence.

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace ks::data {

/// How many characters of a file's token a message shows before cutting it with "…".
inline constexpr std::size_t kQuotedChars = 40;

/// `text` with everything a terminal would act on escaped: tab, newline and carriage return as \t, \n, \r; other
/// C0 controls, DEL and bytes that are not valid UTF-8 as \xHH; C1 controls and the bidirectional overrides
/// (U+202A..U+202E, U+2066..U+2069) as \uHHHH. Valid UTF-8 and the backslash are kept as they are. When the result
/// would be longer than `maxChars` characters (an escape counts its written length, a UTF-8 sequence one), it stops
/// at the last whole escape or code point that fits and ends with "…".
std::string escapedText(std::string_view text, std::size_t maxChars = std::numeric_limits<std::size_t>::max());

/// How many characters of a name from the file a place shows ("line 3, column 4 (sample S2, feature G3)").
inline constexpr std::size_t kPlaceNameChars = 16;

/// A name from the file (a PLY element, an HDF5 dataset) for prose, unquoted: escaped and cut at `maxChars`.
std::string shownName(std::string_view name, std::size_t maxChars = kQuotedChars);

/// "'token'": the token escaped and cut at kQuotedChars characters, so a binary or hostile file cannot flood or
/// steer a message.
std::string quotedToken(std::string_view token);

} // namespace ks::data
