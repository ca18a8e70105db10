#include "data/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ks::data {

std::string_view withoutPlus(std::string_view token)
{
    if (token.size() > 1 && token.front() == '+' && token[1] != '-')
        token.remove_prefix(1);
    return token;
}

NumberStatus parseReal(std::string_view token, double& value)
{
    token = withoutPlus(token);
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, value);
    if (ec == std::errc::result_out_of_range && ptr == end) {
        // from_chars reports underflow too; strtod tells it (a tiny value, kept as its nearest double) from overflow.
        const std::string copy(token);
        value = std::strtod(copy.c_str(), nullptr);
        return std::isinf(value) ? NumberStatus::OutOfRange : NumberStatus::Ok;
    }
    if (ec != std::errc() || ptr != end)
        return NumberStatus::NotANumber;
    return NumberStatus::Ok;
}

NumberStatus parseInteger(std::string_view token, std::int64_t& value)
{
    token = withoutPlus(token);
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, value);
    if (ec == std::errc() && ptr == end)
        return NumberStatus::Ok;
    double asReal = 0;
    if (parseReal(token, asReal) == NumberStatus::Ok)
        return ec == std::errc::result_out_of_range && ptr == end ? NumberStatus::OutOfRange
                                                                  : NumberStatus::NotAnInteger;
    return NumberStatus::NotANumber;
}

NumberStatus parseUnsigned(std::string_view token, std::uint64_t& value)
{
    token = withoutPlus(token);
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, value);
    if (ec == std::errc::result_out_of_range && ptr == end)
        return NumberStatus::OutOfRange;
    if (ec != std::errc() || ptr != end)
        return NumberStatus::NotANumber;
    return NumberStatus::Ok;
}

std::string formatNumber(double value)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.10g", value);
    return buffer;
}

} // namespace ks::data
