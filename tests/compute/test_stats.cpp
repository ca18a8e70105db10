#include "compute/core/stats.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <numbers>
#include <random>

namespace ks {
namespace {

TEST(Stats, WelfordMatchesTheTwoPassFormulas)
{
    RunningStats s;
    const std::vector<double> values {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
    for (double v : values)
        s.add(v);
    EXPECT_EQ(s.count(), 4u);
    EXPECT_DOUBLE_EQ(s.mean(), 1e9 + 10);
    EXPECT_NEAR(s.stdev(), std::sqrt(30.0), 1e-6);
    EXPECT_DOUBLE_EQ(s.min(), 1e9 + 4);
    EXPECT_DOUBLE_EQ(s.max(), 1e9 + 16);
    EXPECT_NEAR(s.relativeStandardError(), std::sqrt(30.0) / 2.0 / (1e9 + 10), 1e-15);
}

TEST(Stats, UndefinedStandardErrorIsInfinite)
{
    RunningStats s;
    EXPECT_TRUE(std::isinf(s.relativeStandardError()));
    s.add(3.0);
    EXPECT_TRUE(std::isinf(s.relativeStandardError()));
    EXPECT_DOUBLE_EQ(s.stdev(), 0.0);
}

TEST(Stats, Median)
{
    EXPECT_DOUBLE_EQ(median({}), 0.0);
    EXPECT_DOUBLE_EQ(median({5.0}), 5.0);
    EXPECT_DOUBLE_EQ(median({9.0, 1.0, 5.0}), 5.0);
    EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

/// Samples from fixed seeds, drawn by hand from mt19937_64 (whose output the standard fixes) rather than through
/// std::*_distribution (whose algorithms differ between standard libraries), so every platform sees the same values.
class Draws {
public:
    explicit Draws(std::uint64_t seed)
        : m_engine(seed)
    {
    }
    /// In (0, 1): never 0, so the logarithms below are finite.
    double uniform() { return (static_cast<double>(m_engine() >> 11) + 0.5) * 0x1.0p-53; }
    /// Box-Muller.
    double normal(double mean, double sigma)
    {
        const double r = std::sqrt(-2.0 * std::log(uniform()));
        return mean + sigma * r * std::cos(2.0 * std::numbers::pi * uniform());
    }
    double exponential(double rate) { return -std::log(uniform()) / rate; }

private:
    std::mt19937_64 m_engine;
};

/// The estimate averaged over `seeds` samples of n values each, so one unlucky sample does not decide the test.
template <class Draw> double meanMedianStandardError(std::size_t n, int seeds, Draw draw)
{
    double sum = 0.0;
    for (int seed = 1; seed <= seeds; ++seed) {
        Draws draws(static_cast<std::uint64_t>(seed));
        std::vector<double> values(n);
        for (auto& v : values)
            v = draw(draws);
        sum += medianStandardError(values).value();
    }
    return sum / seeds;
}

/// The estimator is asymptotic: with a hundred values its interval's order statistics are a few % off the limit.
double toleranceAt(std::size_t n)
{
    return n < 1000 ? 0.12 : 0.04;
}

TEST(Stats, MedianStandardErrorOfNormalSamplesIsSqrtHalfPiSigmaOverSqrtN)
{
    // The asymptotic standard error of a normal sample's median: sqrt(pi/2)·σ/√n ≈ 1.2533·σ/√n.
    const double sigma = 3.0;
    for (std::size_t n : {100u, 1000u, 10000u}) {
        const double expected = std::sqrt(std::numbers::pi / 2.0) * sigma / std::sqrt(static_cast<double>(n));
        const double estimate = meanMedianStandardError(n, 40, [&](Draws& d) { return d.normal(50.0, sigma); });
        EXPECT_NEAR(estimate / expected, 1.0, toleranceAt(n)) << "n=" << n;
    }
}

TEST(Stats, MedianStandardErrorOfExponentialSamplesIsOneOverRateSqrtN)
{
    // 1 / (2·f(m)·√n) with the density at the median f(ln 2 / λ) = λ/2: 1/(λ√n), heavier on the right than a normal.
    const double rate = 4.0;
    for (std::size_t n : {100u, 1000u, 10000u}) {
        const double expected = 1.0 / (rate * std::sqrt(static_cast<double>(n)));
        const double estimate = meanMedianStandardError(n, 40, [&](Draws& d) { return d.exponential(rate); });
        EXPECT_NEAR(estimate / expected, 1.0, toleranceAt(n)) << "n=" << n;
    }
}

TEST(Stats, RelativeStandardErrorOfTheMedianIsTheErrorOverTheMedian)
{
    Draws draws(7);
    std::vector<double> values(2000);
    for (auto& v : values)
        v = draws.normal(10.0, 0.5);
    const double relative = medianRelativeStandardError(values).value();
    EXPECT_DOUBLE_EQ(relative, medianStandardError(values).value() / median(values));
    EXPECT_NEAR(relative, std::sqrt(std::numbers::pi / 2.0) * 0.5 / std::sqrt(2000.0) / 10.0, 0.002);
}

TEST(Stats, MedianStandardErrorUsesTheOrderStatisticsAndIgnoresOutliers)
{
    // n = 9: c = round(5 - 1.96·1.5) = 2, so X(2) and X(8) bound the interval whatever the extremes are.
    const double z = 1.959963984540054;
    std::vector<double> values {9.0, 1.0, 8.0, 2.0, 7.0, 3.0, 6.0, 4.0, 5.0};
    EXPECT_DOUBLE_EQ(medianStandardError(values).value(), (8.0 - 2.0) / (2.0 * z));
    values[0] = 1e6; // a 100000× outlier leaves the median's error where it was
    EXPECT_DOUBLE_EQ(medianStandardError(values).value(), (8.0 - 2.0) / (2.0 * z));
    // Identical times have no error at all.
    EXPECT_DOUBLE_EQ(medianStandardError(std::vector<double>(20, 1.5)).value(), 0.0);
    // Two values: the interval is their range.
    EXPECT_DOUBLE_EQ(medianStandardError({3.0, 1.0}).value(), 2.0 / (2.0 * z));
}

TEST(Stats, MedianStandardErrorIsUndefinedBelowTwoValues)
{
    // Undefined, not zero: one repetition says nothing about the spread. Summary::medianRsePct stays empty.
    EXPECT_FALSE(medianStandardError({}).has_value());
    EXPECT_FALSE(medianStandardError({4.0}).has_value());
    EXPECT_FALSE(medianRelativeStandardError({4.0}).has_value());
    // A median of zero has no relative error either.
    EXPECT_FALSE(medianRelativeStandardError({0.0, 0.0, 0.0}).has_value());
    EXPECT_TRUE(medianRelativeStandardError({1.0, 2.0}).has_value());
}

} // namespace
} // namespace ks
