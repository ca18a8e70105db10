#include "compute/core/compare.h"

#include "compute/core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace ks {

namespace {

/// The number of arrangements of n1 values from one sample among n2 from the other that give U = k, for every k:
/// c(i, j)[k] = c(i − 1, j)[k − j] + c(i, j − 1)[k] (the largest value comes from the first sample, above all j of the
/// second, or from the second). Doubles hold the counts exactly up to 2^53, far beyond C(40, 20).
std::vector<double> exactUCounts(std::size_t n1, std::size_t n2)
{
    std::vector<std::vector<std::vector<double>>> c(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
    for (std::size_t i = 0; i <= n1; ++i)
        for (std::size_t j = 0; j <= n2; ++j) {
            auto& counts = c[i][j];
            counts.assign(i * j + 1, 0.0);
            if (i == 0 || j == 0) {
                counts[0] = 1.0;
                continue;
            }
            const auto& withoutA = c[i - 1][j];
            const auto& withoutB = c[i][j - 1];
            for (std::size_t k = 0; k < withoutA.size(); ++k)
                counts[k + j] += withoutA[k];
            for (std::size_t k = 0; k < withoutB.size(); ++k)
                counts[k] += withoutB[k];
        }
    return c[n1][n2];
}

/// Above this many differences the Hodges–Lehmann order statistics are found without forming them.
constexpr std::size_t kFormedDifferencesLimit = std::size_t(1) << 20;

/// The `rank`-th smallest (0-based) of every b_j − a_i, for ascending a and b, in O((n1 + n2) · 64) without forming the
/// n1·n2 differences (a decision of 100,000 repetitions each would need 80 GB): bisection on the value, counting the
/// differences at most d with two pointers (as a_i grows, the b_j with b_j − a_i <= d only gain members), then the
/// smallest difference above the last bound that counted too few, which is exactly the one sought.
double rankedDifference(const std::vector<double>& a, const std::vector<double>& b, std::size_t rank)
{
    auto countAtMost = [&](double d) {
        std::size_t count = 0;
        std::size_t j = 0;
        for (double x : a) {
            while (j < b.size() && b[j] - x <= d)
                ++j;
            count += j;
        }
        return count;
    };
    double lo = b.front() - a.back(); // the smallest difference
    if (countAtMost(lo) > rank)
        return lo;
    double hi = b.back() - a.front(); // the largest: every difference is at most it
    for (int i = 0; i < 200; ++i) {
        const double mid = lo + (hi - lo) / 2.0;
        if (mid <= lo || mid >= hi)
            break;
        (countAtMost(mid) > rank ? hi : lo) = mid;
    }
    // count(lo) <= rank < count(hi): the sought difference is the smallest above lo. For each a_i it is the first b_j
    // with b_j − a_i > lo; as a_i grows that b_j only moves right.
    double best = std::numeric_limits<double>::infinity();
    std::size_t j = 0;
    for (double x : a) {
        while (j < b.size() && b[j] - x <= lo)
            ++j;
        if (j < b.size())
            best = std::min(best, b[j] - x);
    }
    return best;
}

std::string percentText(double fraction)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g%%", fraction * 100.0);
    return buffer;
}

std::optional<double> sampleMedian(const Summary& s)
{
    if (s.samplesMs.empty())
        return std::nullopt;
    return median(s.samplesMs);
}

RowComparison describe(const Summary& s)
{
    RowComparison row;
    row.workload = s.workload;
    row.variant = s.variant;
    row.size = s.size;
    row.params = s.params.toString();
    row.datasetHash = s.datasetHash;
    return row;
}

void judge(RowComparison& row, const Summary& before, const Summary& after, const CompareOptions& options)
{
    row.oldMedianMs = sampleMedian(before);
    row.newMedianMs = sampleMedian(after);
    row.verdict = Verdict::NotComparable;
    if (before.outcome != Outcome::Passed || after.outcome != Outcome::Passed) {
        row.reason = std::string("old ") + outcomeName(before.outcome) + ", new " + outcomeName(after.outcome);
        return;
    }
    const std::size_t n1 = before.samplesMs.size();
    const std::size_t n2 = after.samplesMs.size();
    if (n1 == 0 || n2 == 0) {
        row.reason = "no samples stored";
        return;
    }
    if (smallestMannWhitneyP(n1, n2) >= options.alpha) {
        char buffer[128];
        std::snprintf(
            buffer, sizeof buffer, "too few samples (%zu old, %zu new) to ever reach p < %g", n1, n2, options.alpha);
        row.reason = buffer;
        return;
    }
    if (!(*row.oldMedianMs > 0.0)) {
        row.reason = "old median is not above 0 ms";
        return;
    }
    row.ratio = *row.newMedianMs / *row.oldMedianMs;
    row.test = mannWhitneyU(before.samplesMs, after.samplesMs);
    const bool significant = row.test->pValue < options.alpha;
    if (significant && *row.ratio > 1.0 + options.margin)
        row.verdict = Verdict::Slower;
    else if (significant && *row.ratio < 1.0 - options.margin)
        row.verdict = Verdict::Faster;
    else
        row.verdict = Verdict::Unchanged;
    row.regression = row.verdict == Verdict::Slower && *row.ratio > 1.0 + options.threshold;
}

using RowKey = std::tuple<std::string, std::string, std::uint64_t, std::string, std::string>;

RowKey keyOf(const Summary& s)
{
    return {s.workload, s.variant, s.size, s.params.toString(), s.datasetHash};
}

} // namespace

MannWhitney mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.empty() || b.empty())
        throw std::invalid_argument("the Mann–Whitney test needs two non-empty samples");
    const std::size_t n1 = a.size();
    const std::size_t n2 = b.size();
    const std::size_t n = n1 + n2;

    // Ranks of the pooled values, tied values sharing the mean of their ranks.
    std::vector<std::pair<double, bool>> pooled; // value, from a
    pooled.reserve(n);
    for (double v : a)
        pooled.emplace_back(v, true);
    for (double v : b)
        pooled.emplace_back(v, false);
    std::sort(pooled.begin(), pooled.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    double rankSumA = 0.0;
    double tieSum = 0.0; // Σ (t³ − t) over groups of t tied values
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && pooled[j].first == pooled[i].first)
            ++j;
        const double t = static_cast<double>(j - i);
        const double midRank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k < j; ++k)
            if (pooled[k].second)
                rankSumA += midRank;
        tieSum += t * t * t - t;
        i = j;
    }

    MannWhitney result;
    const double dn1 = static_cast<double>(n1);
    const double dn2 = static_cast<double>(n2);
    const double dn = static_cast<double>(n);
    result.u = rankSumA - dn1 * (dn1 + 1.0) / 2.0;
    const double mean = dn1 * dn2 / 2.0;

    if (tieSum == 0.0 && n <= kExactMannWhitneyLimit) {
        const auto counts = exactUCounts(n1, n2);
        double total = 0.0;
        for (double c : counts)
            total += c;
        // Without ties U is a whole number; the distribution is symmetric about its mean, so the two-sided p-value is
        // twice the tail on the side U lies.
        const auto tail = static_cast<std::size_t>(std::llround(std::min(result.u, dn1 * dn2 - result.u)));
        double below = 0.0;
        for (std::size_t k = 0; k <= tail; ++k)
            below += counts[k];
        result.pValue = std::min(1.0, 2.0 * below / total);
        result.exact = true;
        return result;
    }

    const double variance = dn1 * dn2 / 12.0 * ((dn + 1.0) - tieSum / (dn * (dn - 1.0)));
    if (!(variance > 0.0)) {
        result.pValue = 1.0; // every value tied: nothing tells the samples apart
        return result;
    }
    const double z = std::max(0.0, std::abs(result.u - mean) - 0.5) / std::sqrt(variance);
    result.pValue = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
    return result;
}

double smallestMannWhitneyP(std::size_t n1, std::size_t n2)
{
    if (n1 == 0 || n2 == 0)
        return 1.0;
    // C(n1 + n2, n1) as a product of ratios, each step exact enough; it only grows, so stop once p is negligible.
    double arrangements = 1.0;
    const std::size_t k = std::min(n1, n2);
    const std::size_t n = n1 + n2;
    for (std::size_t i = 1; i <= k && arrangements < 1e300; ++i)
        arrangements = arrangements * static_cast<double>(n - k + i) / static_cast<double>(i);
    return std::min(1.0, 2.0 / arrangements);
}

double normalQuantile(double p)
{
    if (!(p > 0.0 && p < 1.0))
        throw std::invalid_argument("a normal quantile needs a probability in (0, 1)");
    // Bisection on Φ(z) = erfc(−z/√2)/2: 200 halvings of [−40, 40] reach the doubles' resolution; speed is no concern
    // for a few calls per decision.
    double lo = -40.0, hi = 40.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

ShiftInterval hodgesLehmannShift(const std::vector<double>& a, const std::vector<double>& b, double confidence)
{
    if (a.empty() || b.empty())
        throw std::invalid_argument("the Hodges–Lehmann interval needs two non-empty samples");
    if (!(confidence > 0.0 && confidence < 1.0))
        throw std::invalid_argument("the confidence must lie between 0 and 1");
    const std::size_t n1 = a.size();
    const std::size_t n2 = b.size();
    const std::size_t count = n1 * n2;

    // k: the number of differences cut off each side, the largest with P(U < k) <= α/2 under no shift.
    const double halfAlpha = (1.0 - confidence) / 2.0;
    std::size_t k = 0;
    if (n1 + n2 <= kExactMannWhitneyLimit) {
        const auto counts = exactUCounts(n1, n2);
        double total = 0.0;
        for (double c : counts)
            total += c;
        double below = 0.0;
        while (k < counts.size() && (below + counts[k]) / total <= halfAlpha)
            below += counts[k++];
    } else {
        const double m = static_cast<double>(n1) * static_cast<double>(n2);
        const double sd = std::sqrt(m * static_cast<double>(n1 + n2 + 1) / 12.0);
        // U's normal approximation with the continuity correction: P(U <= k − 1) ≈ Φ((k − 1 + 0.5 − m/2) / sd).
        const double cut = std::floor(m / 2.0 + 0.5 + normalQuantile(halfAlpha) * sd);
        k = cut > 0.0 ? static_cast<std::size_t>(cut) : 0;
    }
    k = std::min(k, count / 2);

    ShiftInterval interval;
    std::vector<double> differences; // formed when few enough
    std::vector<double> sortedA, sortedB; // otherwise
    if (count <= kFormedDifferencesLimit) {
        differences.reserve(count);
        for (double x : a)
            for (double y : b)
                differences.push_back(y - x);
    } else {
        sortedA = a;
        sortedB = b;
        std::sort(sortedA.begin(), sortedA.end());
        std::sort(sortedB.begin(), sortedB.end());
    }
    auto at = [&](std::size_t rank) { // the rank-th smallest difference, 0-based
        if (differences.empty())
            return rankedDifference(sortedA, sortedB, rank);
        std::nth_element(
            differences.begin(), differences.begin() + static_cast<std::ptrdiff_t>(rank), differences.end());
        return differences[rank];
    };
    interval.estimate = count % 2 == 1 ? at(count / 2) : 0.5 * (at(count / 2 - 1) + at(count / 2));
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    interval.low = k == 0 ? -kInfinity : at(k - 1);
    interval.high = k == 0 ? kInfinity : at(count - k);
    return interval;
}

const char* verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Faster:
        return "faster";
    case Verdict::Slower:
        return "slower";
    case Verdict::Unchanged:
        return "unchanged";
    case Verdict::NotComparable:
        return "not comparable";
    case Verdict::Added:
        return "added";
    case Verdict::Removed:
        return "removed";
    }
    return "?";
}

std::size_t Comparison::count(Verdict verdict) const
{
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [&](const RowComparison& r) { return r.verdict == verdict; }));
}

bool Comparison::anyRegression() const
{
    return std::any_of(rows.begin(), rows.end(), [](const RowComparison& r) { return r.regression; });
}

std::string Comparison::summaryLine() const
{
    std::string line = std::to_string(count(Verdict::Faster)) + " faster, " + std::to_string(count(Verdict::Slower))
        + " slower, " + std::to_string(count(Verdict::Unchanged)) + " unchanged";
    for (Verdict v : {Verdict::NotComparable, Verdict::Added, Verdict::Removed})
        if (const std::size_t c = count(v); c > 0)
            line += ", " + std::to_string(c) + " " + verdictName(v);
    const auto regressions = static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const RowComparison& r) { return r.regression; }));
    if (regressions > 0)
        line += " (" + std::to_string(regressions) + " slower beyond the " + percentText(options.threshold)
            + " threshold)";
    return line;
}

Comparison compareRuns(
    const std::vector<Summary>& oldRows, const std::vector<Summary>& newRows, const CompareOptions& options)
{
    if (!(options.alpha > 0.0 && options.alpha < 1.0))
        throw std::invalid_argument("alpha must lie between 0 and 1");
    if (!(options.margin >= 0.0 && options.margin < 1.0))
        throw std::invalid_argument("the margin must lie in [0 %, 100 %)");
    if (!(options.threshold >= 0.0 && std::isfinite(options.threshold)))
        throw std::invalid_argument("the threshold must be a percentage of at least 0");

    std::map<RowKey, std::deque<std::size_t>> unmatched;
    for (std::size_t i = 0; i < newRows.size(); ++i)
        unmatched[keyOf(newRows[i])].push_back(i);
    std::vector<bool> used(newRows.size(), false);

    Comparison comparison;
    comparison.options = options;
    for (const auto& before : oldRows) {
        RowComparison row = describe(before);
        auto found = unmatched.find(keyOf(before));
        if (found == unmatched.end() || found->second.empty()) {
            row.verdict = Verdict::Removed;
            row.oldMedianMs = sampleMedian(before);
        } else {
            const std::size_t index = found->second.front();
            found->second.pop_front();
            used[index] = true;
            judge(row, before, newRows[index], options);
        }
        comparison.rows.push_back(std::move(row));
    }
    for (std::size_t i = 0; i < newRows.size(); ++i)
        if (!used[i]) {
            RowComparison row = describe(newRows[i]);
            row.verdict = Verdict::Added;
            row.newMedianMs = sampleMedian(newRows[i]);
            comparison.rows.push_back(std::move(row));
        }
    return comparison;
}

} // namespace ks
