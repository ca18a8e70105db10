#include "data/reader_messages.h"

#include "data/dataset_error.h"

#include <cmath>

namespace ks::data {

std::string plural(std::uint64_t n, std::string_view word)
{
    return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many)
{
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string listing(const std::vector<std::string>& names, std::size_t most)
{
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < most; ++i)
        text += (i == 0 ? "" : ", ") + shownName(names[i]);
    if (names.size() > most)
        text += " and " + std::to_string(names.size() - most) + " more";
    return text;
}

void checkFinite(double value, const std::string& file, const std::string& place, const ReadOptions& options)
{
    if (!options.allowNonFinite && !std::isfinite(value))
        throw DatasetError(file, place, std::string(std::isnan(value) ? "NaN" : "an infinite value") + kNonFiniteHint);
}

} // namespace ks::data
