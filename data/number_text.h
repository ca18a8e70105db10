#pragma once

// Numbers in text both ways: what the hand-written readers accept as a number (C++ from_chars syntax plus a leading
// '+'), and how messages and notes print one.

#include <cstdint>
#include <string>
#include <string_view>

namespace ks::data {

/// How a token parsed as a number.
enum class NumberStatus { Ok, NotANumber, OutOfRange, NotAnInteger };

/// `token` without a leading '+', which from_chars does not take; kept in front of a '-' ("+-1" is not a number).
std::string_view withoutPlus(std::string_view token);

/// A decimal real: the whole token (no blanks) or NotANumber; OutOfRange when it overflows a double. A value that
/// underflows is Ok, as its nearest double.
NumberStatus parseReal(std::string_view token, double& value);

/// A signed 64-bit integer: NotAnInteger for a real that is not one ("1.5", "1e3"), OutOfRange for a whole number
/// beyond 64 bits, NotANumber for anything else.
NumberStatus parseInteger(std::string_view token, std::int64_t& value);

/// A non-negative integer (a sign other than '+', junk or 2^64 and beyond fail: OutOfRange for the last).
NumberStatus parseUnsigned(std::string_view token, std::uint64_t& value);

/// `value` with ten significant digits ("%.10g"), as messages and notes print generator settings and values.
std::string formatNumber(double value);

} // namespace ks::data
