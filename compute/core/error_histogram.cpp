#include "compute/core/error_histogram.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

namespace ks {

namespace {

constexpr std::size_t kLogSteps = static_cast<std::size_t>(
    (ErrorHistogram::kHighExponent - ErrorHistogram::kLowExponent) * ErrorHistogram::kBinsPerDecade);
/// Log10: exact zero, below the lowest edge, the half-decades, at or above the highest edge.
constexpr std::size_t kLogBins = kLogSteps + 3;
/// PowersOfTwo: 0, 1, then (2^(k−2), 2^(k−1)] up to 2^64.
constexpr std::size_t kStepBins = 66;

/// The Log10 bin edges 10^(kLowExponent + i/2), i = 0 … kLogSteps, each the double nearest its decimal value (parsed
/// from text, locale-free, so 1e-7 is an edge exactly as the literal 1e-7 is and binning is the same on every run).
const std::array<double, kLogSteps + 1>& logEdges()
{
    static const std::array<double, kLogSteps + 1> edges = [] {
        std::array<double, kLogSteps + 1> e {};
        for (std::size_t i = 0; i <= kLogSteps; ++i) {
            const int exponent = ErrorHistogram::kLowExponent + static_cast<int>(i) / 2;
            // √10 to 21 digits: enough for from_chars to round to the nearest double of √10 · 10^k.
            char text[48];
            std::snprintf(text, sizeof text, "%se%d", i % 2 == 0 ? "1" : "3.16227766016837933200", exponent);
            std::from_chars(text, text + std::char_traits<char>::length(text), e[i]);
        }
        return e;
    }();
    return edges;
}

/// Doubles (or floats) as integers in the order of their values, −0 and +0 both 0, so the distance between two is
/// the count of representable values between them.
std::int64_t orderedBits(double v)
{
    const auto bits = std::bit_cast<std::int64_t>(v);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
}

std::int64_t orderedBits(float v)
{
    const auto bits = std::bit_cast<std::int32_t>(v);
    return bits < 0 ? static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::min()) - bits : bits;
}

template <class T> std::optional<std::uint64_t> stepsBetween(T value, T reference)
{
    if (std::isnan(value) || std::isnan(reference))
        return std::nullopt;
    if ((std::isinf(value) || std::isinf(reference)) && value != reference)
        return std::nullopt;
    const std::int64_t a = orderedBits(value);
    const std::int64_t b = orderedBits(reference);
    // Unsigned subtraction: the distance between the most negative and most positive finite doubles exceeds 2^63.
    return a >= b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)
                  : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

std::string compact(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0e", v);
    return text;
}

} // namespace

ErrorHistogram::ErrorHistogram(ErrorBins layout, std::string measureName)
    : bins(layout)
    , measure(std::move(measureName))
    , counts(binCount(layout), 0)
{
}

std::size_t ErrorHistogram::binCount(ErrorBins layout)
{
    return layout == ErrorBins::Log10 ? kLogBins : kStepBins;
}

std::size_t ErrorHistogram::binOf(double error)
{
    if (error == 0.0)
        return 0;
    const auto& edges = logEdges();
    // upper_bound: an error equal to an edge belongs to the bin that starts there.
    const auto above = std::upper_bound(edges.begin(), edges.end(), error);
    return static_cast<std::size_t>(above - edges.begin()) + 1;
}

std::size_t ErrorHistogram::binOfSteps(std::uint64_t steps)
{
    if (steps <= 1)
        return static_cast<std::size_t>(steps);
    // (2^(k−2), 2^(k−1)] → k: one more than the bits of steps − 1.
    return static_cast<std::size_t>(std::bit_width(steps - 1)) + 1;
}

double ErrorHistogram::binLow(ErrorBins layout, std::size_t bin)
{
    if (layout == ErrorBins::PowersOfTwo)
        return bin <= 1 ? static_cast<double>(bin) : std::ldexp(1.0, static_cast<int>(bin) - 2);
    if (bin <= 1)
        return 0.0;
    return logEdges()[std::min(bin - 2, kLogSteps)];
}

double ErrorHistogram::binHigh(ErrorBins layout, std::size_t bin)
{
    if (layout == ErrorBins::PowersOfTwo)
        return bin <= 1 ? static_cast<double>(bin) : std::ldexp(1.0, static_cast<int>(bin) - 1);
    if (bin == 0)
        return 0.0;
    if (bin - 1 > kLogSteps)
        return std::numeric_limits<double>::infinity();
    return logEdges()[bin - 1];
}

std::string ErrorHistogram::binLabel(ErrorBins layout, std::size_t bin)
{
    if (layout == ErrorBins::PowersOfTwo) {
        if (bin <= 2)
            return std::to_string(bin);
        const int high = static_cast<int>(bin) - 1;
        // Ranges while short ("513–1024"), powers of two beyond, so a chart's axis stays legible.
        if (high <= 10)
            return std::to_string((std::uint64_t {1} << (high - 1)) + 1) + "–"
                + std::to_string(std::uint64_t {1} << high);
        return "≤2^" + std::to_string(high);
    }
    if (bin == 0)
        return "0";
    if (bin == 1)
        return "<" + compact(binHigh(layout, bin));
    if (bin == kLogBins - 1)
        return "≥" + compact(binLow(layout, bin));
    return compact(binLow(layout, bin));
}

void ErrorHistogram::add(double error)
{
    if (!std::isfinite(error)) {
        ++nonFinite;
        return;
    }
    ++counts[binOf(std::fabs(error))];
}

void ErrorHistogram::addSteps(std::optional<std::uint64_t> steps)
{
    if (!steps) {
        ++nonFinite;
        return;
    }
    ++counts[binOfSteps(*steps)];
}

std::uint64_t ErrorHistogram::compared() const
{
    std::uint64_t total = nonFinite;
    for (auto c : counts)
        total += c;
    return total;
}

std::optional<std::size_t> ErrorHistogram::highestBin() const
{
    for (std::size_t b = counts.size(); b-- > 0;)
        if (counts[b] > 0)
            return b;
    return std::nullopt;
}

double relativeError(double value, double reference, double floor)
{
    if (std::isnan(reference) || std::isnan(value))
        return std::isnan(reference) && std::isnan(value) ? 0.0 : std::numeric_limits<double>::infinity();
    if (value == reference)
        return 0.0; // equal infinities too, whose difference is NaN
    const double denominator = std::max({std::fabs(reference), floor, std::numeric_limits<double>::min()});
    return std::fabs(value - reference) / denominator;
}

std::optional<std::uint64_t> ulpDistance(double value, double reference)
{
    return stepsBetween(value, reference);
}

std::optional<std::uint64_t> ulpDistanceFloat(double value, double reference)
{
    return stepsBetween(static_cast<float>(value), static_cast<float>(reference));
}

std::optional<std::uint64_t> ulpDistance(double value, double reference, Precision precision)
{
    return precision == Precision::F32 ? ulpDistanceFloat(value, reference) : ulpDistance(value, reference);
}

const char* ulpMeasure(Precision precision)
{
    return precision == Precision::F32 ? "ulp_f32" : "ulp_f64";
}

} // namespace ks
