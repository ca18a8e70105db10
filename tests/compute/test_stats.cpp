#include "compute/core/stats.h"

#include <cmath>
#include <gtest/gtest.h>

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

} // namespace
} // namespace ks
