// compare: the Mann–Whitney U test on hand-computed examples, the verdicts on synthetic samples with fixed seeds, and
// the matching of rows between two result files.
#include "compute/core/compare.h"

#include <gtest/gtest.h>
#include <numeric>
#include <random>
#include <stdexcept>

namespace ks {
namespace {

TEST(MannWhitney, ExactWhenOneSampleLiesWhollyBelowTheOther)
{
    // U = 0 is 1 of the C(6, 3) = 20 equally likely arrangements; two-sided p = 2/20.
    const auto below = mannWhitneyU({1, 2, 3}, {4, 5, 6});
    EXPECT_TRUE(below.exact);
    EXPECT_DOUBLE_EQ(below.u, 0.0);
    EXPECT_DOUBLE_EQ(below.pValue, 0.1);
    const auto above = mannWhitneyU({4, 5, 6}, {1, 2, 3});
    EXPECT_DOUBLE_EQ(above.u, 9.0);
    EXPECT_DOUBLE_EQ(above.pValue, 0.1);
}

TEST(MannWhitney, ExactOnASmallExampleWorkedByHand)
{
    // Pooled ranks: 1.1→1, 2.3→2, 3.0→3, 4.0→4, 5.2→5, 6.1→6, 7.4→7, 8.8→8, 9.5→9. The first sample holds ranks 1, 2,
    // 4, 5: R = 12, U = 12 − 4·5/2 = 2. Arrangements with U = k are the partitions of k into at most 4 parts of at most
    // 5: one each for k = 0 and 1, two for k = 2, so P(U ≤ 2) = 4/C(9, 4) = 4/126 and p = 8/126.
    const auto r = mannWhitneyU({1.1, 2.3, 4.0, 5.2}, {3.0, 6.1, 7.4, 8.8, 9.5});
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 2.0);
    EXPECT_NEAR(r.pValue, 8.0 / 126.0, 1e-15);
}

TEST(MannWhitney, NormalApproximationWithTieCorrection)
{
    // Pooled: 1(a) 2(a) 2(a) 2(b) 3(a) 3(b) 4(b) 5(b) 5(b); mid-ranks 1, 3, 3, 3, 5.5, 5.5, 7, 8.5, 8.5. R_a = 12.5,
    // U = 12.5 − 10 = 2.5 (pairs: 0 + 1 + 1 + 1.5). Ties 3, 2, 2: Σ(t³ − t) = 36. Var = 4·5/12 · (10 − 36/(9·8)) =
    // 15.8333; z = (|2.5 − 10| − 0.5)/√15.8333 = 1.759186; p = erfc(z/√2) = 0.0785459.
    const auto r = mannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 5, 5});
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 2.5);
    EXPECT_NEAR(r.pValue, 0.0785458509511907, 1e-12);
}

TEST(MannWhitney, NormalApproximationForLargeSamples)
{
    // 1..25 against 26..50: U = 0, mean 312.5, Var = 25·25·51/12 = 2656.25; z = 312/51.5388 = 6.053689,
    // p = 1.41566e-9.
    std::vector<double> a(25), b(25);
    std::iota(a.begin(), a.end(), 1.0);
    std::iota(b.begin(), b.end(), 26.0);
    const auto r = mannWhitneyU(a, b);
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 0.0);
    EXPECT_NEAR(r.pValue / 1.4156562248495634e-09, 1.0, 1e-9);
}

TEST(MannWhitney, IdenticalSamplesGiveOne)
{
    const auto r = mannWhitneyU({2, 2, 2}, {2, 2, 2, 2});
    EXPECT_DOUBLE_EQ(r.pValue, 1.0);
    EXPECT_DOUBLE_EQ(mannWhitneyU({1, 2, 3}, {1, 2, 3}).pValue, 1.0);
    EXPECT_THROW(mannWhitneyU({}, {1.0}), std::invalid_argument);
}

TEST(MannWhitney, SmallestReachablePValue)
{
    EXPECT_DOUBLE_EQ(smallestMannWhitneyP(3, 3), 0.1);
    EXPECT_NEAR(smallestMannWhitneyP(5, 5), 2.0 / 252.0, 1e-16);
    EXPECT_DOUBLE_EQ(smallestMannWhitneyP(1, 1), 1.0);
    EXPECT_DOUBLE_EQ(smallestMannWhitneyP(0, 7), 1.0);
    EXPECT_LT(smallestMannWhitneyP(500, 500), 1e-250);
}

std::vector<double> timings(double medianMs, double relativeNoise, std::size_t count, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, relativeNoise);
    std::vector<double> out;
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(medianMs * std::max(0.01, 1.0 + noise(rng)));
    return out;
}

Summary row(std::string variant, std::uint64_t size, std::vector<double> samples, std::string params = "n=100",
    std::string hash = "abc123")
{
    Summary s;
    s.workload = "linreg";
    s.variant = std::move(variant);
    s.size = size;
    s.params = ParamSet::fromString(params);
    s.datasetHash = std::move(hash);
    s.outcome = Outcome::Passed;
    s.repetitions = static_cast<int>(samples.size());
    s.samplesMs = std::move(samples);
    return s;
}

RowComparison judged(std::vector<double> before, std::vector<double> after, CompareOptions options = {})
{
    const auto c = compareRuns({row("v", 10, std::move(before))}, {row("v", 10, std::move(after))}, options);
    EXPECT_EQ(c.rows.size(), 1u);
    return c.rows.front();
}

TEST(Compare, IdenticalSamplesAreUnchanged)
{
    const auto samples = timings(1.0, 0.01, 30, 1);
    const auto r = judged(samples, samples);
    EXPECT_EQ(r.verdict, Verdict::Unchanged);
    EXPECT_DOUBLE_EQ(*r.ratio, 1.0);
    EXPECT_DOUBLE_EQ(r.test->pValue, 1.0);
    EXPECT_FALSE(r.regression);
}

TEST(Compare, FivePercentSlowerWithLowNoiseIsSlower)
{
    const auto before = timings(1.0, 0.005, 30, 1);
    const auto after = timings(1.05, 0.005, 30, 2);
    auto r = judged(before, after);
    EXPECT_EQ(r.verdict, Verdict::Slower);
    EXPECT_NEAR(*r.ratio, 1.05, 0.005);
    EXPECT_LT(r.test->pValue, 1e-9);

    CompareOptions strict;
    strict.threshold = 0.03;
    EXPECT_TRUE(judged(before, after, strict).regression);
    CompareOptions lenient;
    lenient.threshold = 0.10;
    r = judged(before, after, lenient);
    EXPECT_EQ(r.verdict, Verdict::Slower);
    EXPECT_FALSE(r.regression) << "slower, but within the threshold";

    EXPECT_EQ(judged(after, before).verdict, Verdict::Faster);
}

TEST(Compare, VeryNoisySamplesAreUnchanged)
{
    const auto r = judged(timings(1.0, 0.5, 10, 3), timings(1.05, 0.5, 10, 4));
    EXPECT_EQ(r.verdict, Verdict::Unchanged);
    EXPECT_GT(r.test->pValue, 0.01);
}

TEST(Compare, ASignificantChangeWithinTheMarginIsUnchanged)
{
    const auto before = timings(1.0, 0.001, 30, 5);
    const auto after = timings(1.01, 0.001, 30, 6);
    auto r = judged(before, after);
    EXPECT_LT(r.test->pValue, 1e-9);
    EXPECT_EQ(r.verdict, Verdict::Unchanged) << "1 % is inside the default 2 % margin";
    CompareOptions tight;
    tight.margin = 0.005;
    EXPECT_EQ(judged(before, after, tight).verdict, Verdict::Slower);
}

TEST(Compare, FailedRowsAndTooFewSamplesAreNotComparable)
{
    auto failed = row("v", 10, {});
    failed.outcome = Outcome::Failed;
    auto c = compareRuns({row("v", 10, timings(1.0, 0.01, 10, 7))}, {failed});
    EXPECT_EQ(c.rows.front().verdict, Verdict::NotComparable);
    EXPECT_EQ(c.rows.front().reason, "old passed, new failed");
    EXPECT_FALSE(c.rows.front().ratio);

    const auto r = judged({1.0, 1.1, 1.2}, {2.0, 2.1, 2.2});
    EXPECT_EQ(r.verdict, Verdict::NotComparable);
    EXPECT_EQ(r.reason, "too few samples (3 old, 3 new) to ever reach p < 0.01");
    EXPECT_DOUBLE_EQ(*r.oldMedianMs, 1.1);
    EXPECT_DOUBLE_EQ(*r.newMedianMs, 2.1);
    // Five each can: 2/252 < 0.01.
    EXPECT_EQ(judged({1.0, 1.1, 1.2, 1.3, 1.4}, {2.0, 2.1, 2.2, 2.3, 2.4}).verdict, Verdict::Slower);
}

TEST(Compare, MatchesByWorkloadVariantSizeParamsAndDataset)
{
    const auto fast = timings(1.0, 0.005, 20, 8);
    const auto slow = timings(1.2, 0.005, 20, 9);
    const std::vector<Summary> before {
        row("a", 10, fast), row("a", 20, fast), row("b", 10, fast, "n=1"), row("c", 10, fast, "n=100", "old_hash")};
    const std::vector<Summary> after {row("d", 10, fast), row("a", 20, slow), row("b", 10, fast, "n=2"),
        row("a", 10, slow), row("c", 10, fast, "n=100", "new_hash")};
    const auto c = compareRuns(before, after);
    ASSERT_EQ(c.rows.size(), 7u);
    EXPECT_EQ(c.rows[0].variant, "a");
    EXPECT_EQ(c.rows[0].size, 10u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
    EXPECT_TRUE(c.rows[0].regression);
    EXPECT_EQ(c.rows[1].size, 20u);
    EXPECT_EQ(c.rows[1].verdict, Verdict::Slower);
    EXPECT_EQ(c.rows[2].verdict, Verdict::Removed) << "b with other parameters";
    EXPECT_EQ(c.rows[2].params, "n=1");
    EXPECT_TRUE(c.rows[2].oldMedianMs);
    EXPECT_EQ(c.rows[3].verdict, Verdict::Removed) << "c on another dataset";
    EXPECT_EQ(c.rows[4].variant, "d");
    EXPECT_EQ(c.rows[4].verdict, Verdict::Added);
    EXPECT_FALSE(c.rows[4].oldMedianMs);
    EXPECT_TRUE(c.rows[4].newMedianMs);
    EXPECT_EQ(c.rows[5].params, "n=2");
    EXPECT_EQ(c.rows[5].verdict, Verdict::Added);
    EXPECT_EQ(c.rows[6].datasetHash, "new_hash");
    EXPECT_EQ(c.rows[6].verdict, Verdict::Added);
    EXPECT_TRUE(c.anyRegression());
    EXPECT_EQ(
        c.summaryLine(), "0 faster, 2 slower, 0 unchanged, 3 added, 2 removed (2 slower beyond the 5% threshold)");
}

TEST(Compare, RepeatedRowsMatchInOrder)
{
    const auto fast = timings(1.0, 0.005, 20, 10);
    const auto slow = timings(1.2, 0.005, 20, 11);
    const auto c = compareRuns({row("a", 10, fast), row("a", 10, slow)}, {row("a", 10, slow), row("a", 10, fast)});
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
    EXPECT_EQ(c.rows[1].verdict, Verdict::Faster);
    EXPECT_EQ(c.summaryLine(), "1 faster, 1 slower, 0 unchanged (1 slower beyond the 5% threshold)");
}

TEST(Compare, RejectsOptionsOutOfRange)
{
    CompareOptions o;
    o.alpha = 0.0;
    EXPECT_THROW(compareRuns({}, {}, o), std::invalid_argument);
    o = {};
    o.margin = 1.0;
    EXPECT_THROW(compareRuns({}, {}, o), std::invalid_argument);
    o = {};
    o.threshold = -0.01;
    EXPECT_THROW(compareRuns({}, {}, o), std::invalid_argument);
    EXPECT_EQ(compareRuns({}, {}).summaryLine(), "0 faster, 0 slower, 0 unchanged");
}

} // namespace
} // namespace ks
