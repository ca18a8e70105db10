#pragma once

// The wording the readers share in their DatasetError messages and notes: a token from the file quoted, a count with
// its noun, a list of names, and the rejection of NaN and infinity.

#include "data/quote.h"
#include "data/read_options.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace ks::data {

/// Said after every rejected NaN or infinity: how to keep them.
inline constexpr const char* kNonFiniteHint = " (non-finite values are rejected; allow them with --allow-nonfinite)";

/// "1 point", "3 points": `word` and an "s" unless n is 1.
std::string plural(std::uint64_t n, std::string_view word);
/// "1 vertex", "3 vertices": for nouns that do not take an "s".
std::string plural(std::uint64_t n, std::string_view one, std::string_view many);

/// The names joined with ", ", each as shownName shows it (names often come from the file); past `most` of them, the
/// first `most` and "and N more".
std::string listing(const std::vector<std::string>& names, std::size_t most = std::numeric_limits<std::size_t>::max());

/// Throws a DatasetError naming `file` and `place` ("NaN" or "an infinite value", with kNonFiniteHint) when `value`
/// is not finite and ReadOptions::allowNonFinite is off.
void checkFinite(double value, const std::string& file, const std::string& place, const ReadOptions& options);

} // namespace ks::data
