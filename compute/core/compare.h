#pragma once

#include "compute/core/summary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ks {

/// A two-sided Mann–Whitney U test (Wilcoxon rank-sum) of two samples.
struct MannWhitney {
    double u = 0.0; ///< U of the first sample: pairs where it is larger, plus half the ties
    double pValue = 1.0; ///< two-sided
    bool exact = false; ///< from U's exact distribution; otherwise the normal approximation
};

/// Samples up to this total count without ties get U's exact distribution; larger ones, or any with ties, the normal
/// approximation with the tie correction and the continuity correction (Mann & Whitney 1947; Lehmann,
/// Nonparametrics, 1975, ch. 1).
inline constexpr std::size_t kExactMannWhitneyLimit = 40;

/// The test of `a` against `b`. Throws std::invalid_argument when either sample is empty.
MannWhitney mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

/// The smallest two-sided p-value any samples of these sizes can reach: 2 / C(n1 + n2, n1), when one sample lies wholly
/// above the other. Below alpha or not, it says whether the sizes can ever give a significant difference.
double smallestMannWhitneyP(std::size_t n1, std::size_t n2);

/// A shift between two samples with its confidence interval.
struct ShiftInterval {
    double estimate = 0.0;
    double low = 0.0; ///< -infinity when the samples are too small for the confidence asked
    double high = 0.0; ///< +infinity likewise
};

/// The Hodges–Lehmann estimate of the shift of `b` against `a` (the median of every difference b_j − a_i) with its
/// distribution-free confidence interval: the differences of ranks k and n1·n2 + 1 − k, k from the Mann–Whitney U
/// distribution's α/2 quantile (exact below kExactMannWhitneyLimit values, else the normal approximation) (Hodges &
/// Lehmann 1963; Lehmann, Nonparametrics, 1975, §2.6; Hollander & Wolfe, Nonparametric Statistical Methods, 1999,
/// §4.3). Its coverage holds for any continuous distribution when the two differ by a shift. Throws
/// std::invalid_argument for an empty sample or a confidence outside (0, 1).
ShiftInterval hodgesLehmannShift(const std::vector<double>& a, const std::vector<double>& b, double confidence);

/// The standard normal quantile: z with Φ(z) = p, for p in (0, 1).
double normalQuantile(double p);

enum class Verdict { Faster, Slower, Unchanged, NotComparable, Added, Removed };
const char* verdictName(Verdict verdict);

struct CompareOptions {
    double alpha = 0.01; ///< significance level of the test
    double margin = 0.02; ///< a ratio of medians within 1 ± margin is unchanged however significant
    double threshold = 0.05; ///< a slower row whose ratio exceeds 1 + threshold is a regression
};

/// One row of the comparison: a pair of rows matched by workload, variant, size, parameters and dataset hash, or a
/// row found in only one of the files.
struct RowComparison {
    std::string workload;
    std::string variant;
    std::uint64_t size = 0;
    std::string params; ///< ParamSet::toString
    std::string datasetHash;
    std::optional<double> oldMedianMs; ///< absent when the row has no timed repetitions
    std::optional<double> newMedianMs;
    std::optional<double> ratio; ///< new median / old median
    std::optional<MannWhitney> test;
    Verdict verdict = Verdict::NotComparable;
    std::string reason; ///< why a row is not comparable
    bool regression = false; ///< slower, and the ratio beyond 1 + threshold
};

struct Comparison {
    std::vector<RowComparison> rows; ///< the old file's rows in order (matched or removed), then the added ones
    CompareOptions options;

    std::size_t count(Verdict verdict) const;
    bool anyRegression() const;
    /// "3 faster, 1 slower, 12 unchanged", followed by the not comparable, added and removed rows when there are any.
    std::string summaryLine() const;
};

/// Matches the rows of two result files and judges each pair from its stored samples (Summary::samplesMs): faster or
/// slower when the test is significant at alpha AND the ratio of medians is beyond the margin, unchanged otherwise;
/// not comparable when either row did not pass or has too few samples to ever be significant. Rows with the same key
/// in one file are matched in order of appearance. Throws std::invalid_argument for options out of range.
Comparison compareRuns(
    const std::vector<Summary>& oldRows, const std::vector<Summary>& newRows, const CompareOptions& options = {});

} // namespace ks
