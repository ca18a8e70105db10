// Error histograms: fixed bins, exact zero, one outlier among a million, NaN, r = 0, ULP steps in float and double.
#include "compute/core/error_histogram.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace ks {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ErrorHistogram, ExactEqualityFillsBinZeroOnly)
{
    ErrorHistogram h(ErrorBins::Log10, "rel_err");
    for (int i = 0; i < 10; ++i)
        h.add(relativeError(1.5, 1.5, 0.0));
    EXPECT_EQ(h.counts[0], 10u);
    EXPECT_EQ(h.compared(), 10u);
    EXPECT_EQ(h.nonFinite, 0u);
    EXPECT_EQ(h.highestBin(), std::optional<std::size_t>(0));
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::Log10, 0), "0");
}

TEST(ErrorHistogram, OneElementOffAmongAMillionStandsAlone)
{
    ErrorHistogram h(ErrorBins::Log10, "rel_err");
    h.elements = 1'000'001;
    for (int i = 0; i < 1'000'000; ++i)
        h.add(0.0);
    h.add(relativeError(1.0 + 1e-7, 1.0, 0.0));
    EXPECT_EQ(h.counts[0], 1'000'000u);
    EXPECT_EQ(h.compared(), h.elements);
    const std::size_t bin = *h.highestBin();
    EXPECT_EQ(h.counts[bin], 1u);
    // 1.0000001 − 1 is 1e-7 within rounding: the half-decade bin that starts at 1e-7 (or the one just below it).
    EXPECT_LE(ErrorHistogram::binLow(ErrorBins::Log10, bin), 1.0000001e-7);
    EXPECT_GT(ErrorHistogram::binHigh(ErrorBins::Log10, bin), 1e-7);
    EXPECT_EQ(ErrorHistogram::binOf(1e-7), bin);
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::Log10, bin), "1e-07");
}

TEST(ErrorHistogram, Log10EdgesAreHalfDecadesWithOpenEnds)
{
    EXPECT_EQ(ErrorHistogram::binCount(ErrorBins::Log10), 39u);
    EXPECT_EQ(ErrorHistogram::binOf(1e-300), 1u); // positive, below 1e-17
    EXPECT_EQ(ErrorHistogram::binOf(1e-17), 2u); // an edge opens its bin
    EXPECT_EQ(ErrorHistogram::binOf(2e-17), 2u);
    EXPECT_EQ(ErrorHistogram::binOf(4e-17), 3u); // past √10 · 1e-17
    EXPECT_EQ(ErrorHistogram::binOf(1e-16), 4u);
    EXPECT_EQ(ErrorHistogram::binOf(9.99), 37u);
    EXPECT_EQ(ErrorHistogram::binOf(10.0), 38u);
    EXPECT_EQ(ErrorHistogram::binOf(1e300), 38u);
    EXPECT_EQ(ErrorHistogram::binHigh(ErrorBins::Log10, 38), kInf);
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::Log10, 1), "<1e-17");
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::Log10, 38), "≥1e+01");
    for (std::size_t b = 2; b + 1 < ErrorHistogram::binCount(ErrorBins::Log10); ++b) {
        EXPECT_EQ(ErrorHistogram::binOf(ErrorHistogram::binLow(ErrorBins::Log10, b)), b);
        EXPECT_EQ(ErrorHistogram::binLow(ErrorBins::Log10, b + 1), ErrorHistogram::binHigh(ErrorBins::Log10, b));
    }
}

TEST(ErrorHistogram, NaNAndInfinityAreCountedApart)
{
    ErrorHistogram h(ErrorBins::Log10, "rel_err");
    h.add(relativeError(std::nan(""), 1.0, 0.0));
    h.add(relativeError(kInf, 1.0, 0.0));
    h.add(std::nan(""));
    h.add(relativeError(std::nan(""), std::nan(""), 0.0)); // NaN in both agrees
    EXPECT_EQ(h.nonFinite, 3u);
    EXPECT_EQ(h.counts[0], 1u);
    EXPECT_EQ(h.compared(), 4u);
    EXPECT_EQ(relativeError(kInf, kInf, 0.0), 0.0);
}

TEST(ErrorHistogram, ReferenceZeroIsMeasuredAgainstTheFloor)
{
    // |x − 0| / max(0, floor): a rounding-sized value where the reference is 0 is small against the data's scale…
    EXPECT_DOUBLE_EQ(relativeError(1e-20, 0.0, 1e-4), 1e-16);
    // …and without a floor only the smallest normal double keeps the quotient finite.
    EXPECT_TRUE(std::isfinite(relativeError(1e-20, 0.0, 0.0)));
    EXPECT_GT(relativeError(1e-20, 0.0, 0.0), 1e200);
    EXPECT_EQ(relativeError(0.0, 0.0, 0.0), 0.0);
    EXPECT_EQ(relativeError(-0.0, 0.0, 0.0), 0.0);
    // Above the floor the reference itself is the denominator.
    EXPECT_EQ(relativeError(2.5, 2.0, 1e-4), 0.25);
}

TEST(ErrorHistogram, StepBinsArePowersOfTwo)
{
    EXPECT_EQ(ErrorHistogram::binCount(ErrorBins::PowersOfTwo), 66u);
    const std::pair<std::uint64_t, std::size_t> cases[] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 3}, {5, 4}, {8, 4},
        {9, 5}, {1024, 11}, {1025, 12}, {~std::uint64_t {0}, 65}};
    for (auto [steps, bin] : cases) {
        EXPECT_EQ(ErrorHistogram::binOfSteps(steps), bin) << steps;
        EXPECT_GE(static_cast<double>(steps), ErrorHistogram::binLow(ErrorBins::PowersOfTwo, bin)) << steps;
        EXPECT_LE(static_cast<double>(steps), ErrorHistogram::binHigh(ErrorBins::PowersOfTwo, bin)) << steps;
    }
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::PowersOfTwo, 2), "2");
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::PowersOfTwo, 3), "3–4");
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::PowersOfTwo, 4), "5–8");
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::PowersOfTwo, 11), "513–1024");
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::PowersOfTwo, 12), "≤2^11");
    EXPECT_EQ(ErrorHistogram::binLabel(ErrorBins::PowersOfTwo, 40), "≤2^39");
}

TEST(ErrorHistogram, FloatUlpsOfResultsStoredAsDouble)
{
    const float one = 1.0f;
    const double next = std::nextafter(one, 2.0f);
    const double second = std::nextafter(static_cast<float>(next), 2.0f);
    EXPECT_EQ(ulpDistanceFloat(1.0, 1.0), std::optional<std::uint64_t>(0));
    EXPECT_EQ(ulpDistanceFloat(next, 1.0), std::optional<std::uint64_t>(1));
    EXPECT_EQ(ulpDistanceFloat(second, 1.0), std::optional<std::uint64_t>(2));
    EXPECT_EQ(ulpDistanceFloat(1.0, next), std::optional<std::uint64_t>(1)); // symmetric
    // The reference is rounded to float first: a double a hair above 1 is 0 float steps from 1.0f.
    EXPECT_EQ(ulpDistanceFloat(1.0, 1.0 + 1e-12), std::optional<std::uint64_t>(0));
    // Many steps: 1.0f to 2.0f is 2^23 floats.
    EXPECT_EQ(ulpDistanceFloat(2.0, 1.0), std::optional<std::uint64_t>(std::uint64_t {1} << 23));
    // Across zero: the smallest subnormals either side of ±0 are 2 steps apart, and −0 is +0.
    const double tiny = std::numeric_limits<float>::denorm_min();
    EXPECT_EQ(ulpDistanceFloat(tiny, -tiny), std::optional<std::uint64_t>(2));
    EXPECT_EQ(ulpDistanceFloat(-0.0, 0.0), std::optional<std::uint64_t>(0));
    EXPECT_EQ(ulpDistanceFloat(std::nan(""), 1.0), std::nullopt);
    EXPECT_EQ(ulpDistanceFloat(1e300, 1.0), std::nullopt); // rounds to float infinity
    EXPECT_EQ(ulpDistance(next, 1.0, Precision::F32), std::optional<std::uint64_t>(1));
}

TEST(ErrorHistogram, DoubleUlps)
{
    const double next = std::nextafter(1.0, 2.0);
    EXPECT_EQ(ulpDistance(1.0, 1.0), std::optional<std::uint64_t>(0));
    EXPECT_EQ(ulpDistance(next, 1.0), std::optional<std::uint64_t>(1));
    EXPECT_EQ(ulpDistance(std::nextafter(next, 2.0), 1.0), std::optional<std::uint64_t>(2));
    EXPECT_EQ(ulpDistance(2.0, 1.0), std::optional<std::uint64_t>(std::uint64_t {1} << 52));
    EXPECT_EQ(ulpDistance(-1.0, 1.0), std::optional<std::uint64_t>(2 * 0x3FF0000000000000ull));
    EXPECT_EQ(ulpDistance(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()),
        std::optional<std::uint64_t>(2 * 0x7FEFFFFFFFFFFFFFull));
    EXPECT_EQ(ulpDistance(kInf, kInf), std::optional<std::uint64_t>(0));
    EXPECT_EQ(ulpDistance(kInf, 1.0), std::nullopt);
    EXPECT_EQ(ulpDistance(1.0, std::nan("")), std::nullopt);
    EXPECT_EQ(ulpDistance(next, 1.0, Precision::F64), std::optional<std::uint64_t>(1));
    EXPECT_STREQ(ulpMeasure(Precision::F64), "ulp_f64");
    EXPECT_STREQ(ulpMeasure(Precision::F32), "ulp_f32");

    ErrorHistogram h(ErrorBins::PowersOfTwo, "ulp_f64");
    h.addSteps(ulpDistance(1.0, 1.0));
    h.addSteps(ulpDistance(next, 1.0));
    h.addSteps(ulpDistance(2.0, 1.0));
    h.addSteps(ulpDistance(kInf, 1.0));
    EXPECT_EQ(h.counts[0], 1u);
    EXPECT_EQ(h.counts[1], 1u);
    EXPECT_EQ(h.counts[ErrorHistogram::binOfSteps(std::uint64_t {1} << 52)], 1u);
    EXPECT_EQ(h.nonFinite, 1u);
    EXPECT_EQ(h.compared(), 4u);
}

} // namespace
} // namespace ks
