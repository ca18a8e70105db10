#pragma once

// The lrv workload (seed 003): propr's log-ratio variance of every feature pair of an N × p expression matrix,
// var(log(Y[:, i] / Y[:, j])) with divisor N − 1, for i > j, as a half matrix in propr's order.

#include "compute/core/cpu_run.h"
#include "compute/core/host_device.h"
#include "compute/core/triangle.h"
#include "compute/core/variant.h"
#include "compute/core/workload.h"
#include "data/expression_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ks {
class Registry;
}

namespace ks::lrv {

/// Number of pairs of p features: p(p − 1)/2, in 64 bits (p beyond 46,341 overflows 32-bit products).
KS_HOST_DEVICE inline std::uint64_t pairCount(std::uint64_t p)
{
    return p * (p - 1) / 2;
}

/// propr's order: for i = 1 … p − 1, for j = 0 … i − 1, pair (i, j) is at i(i − 1)/2 + j.
KS_HOST_DEVICE inline std::uint64_t pairIndex(std::uint64_t i, std::uint64_t j)
{
    return i * (i - 1) / 2 + j;
}

/// The pair at index k: the inverse of pairIndex. Pairs i > j are the triangle below the diagonal, so pair (i, j)
/// is entry (i − 1, j) of triangleAt's triangle with its diagonal.
KS_HOST_DEVICE inline void pairAt(std::uint64_t k, std::uint64_t& i, std::uint64_t& j)
{
    triangleAt(k, i, j);
    ++i;
}

/// The first row i whose pairs start at or after pair index k (pairs of row i are [i(i−1)/2, i(i+1)/2)).
KS_HOST_DEVICE inline std::uint64_t rowStart(std::uint64_t i)
{
    return i * (i - 1) / 2;
}

/// The expansion lrv = (s_i + s_j − 2·g_ij)/(N − 1) rounds with an error of about N·eps·(s_i + s_j); a pair whose
/// numerator is under tau·(s_i + s_j) may have lost more than 1e-10 of its value and is recomputed directly.
inline double cancellationThreshold(std::uint64_t n)
{
    return static_cast<double>(n) * std::numeric_limits<double>::epsilon() * 1e10;
}

/// The tensor-core expansion's test for a cancelling pair, value < tau·terms (value its lrv, terms (s_i + s_j)/(N −
/// 1)), on the integer units instead of the FP64 ones (which run the mma): the high word of a positive double,
/// 2^20·(exponent + 1023 + mantissa fraction), tracks log2 within 0.0861, so comparing high words against a shift
/// of about 2^20·(−log2 tau) flags every pair with value < tau·terms, and perhaps a few up to 1.13·tau·terms (they
/// are recomputed directly, which costs time, not accuracy). The shift, from tau (0 < tau < 1):
inline int cancellationShift(double tau)
{
    return static_cast<int>(std::floor(std::ldexp(-std::log2(tau) - 0.0861, 20) - 1.0));
}

/// The high word of a double: its sign, exponent and first 20 mantissa bits.
KS_HOST_DEVICE inline int highWord(double value)
{
#ifdef __CUDA_ARCH__
    return __double2hiint(value);
#else
    std::int64_t bits = 0;
    std::memcpy(&bits, &value, sizeof value);
    return static_cast<int>(bits >> 32);
#endif
}

/// The test itself, with terms known; a negative value (a numerator cancelled below zero) is flagged whatever terms
/// is. The kernel runs cancelsByPartsHighWords below; this exact form is what the tests hold that one against.
inline bool cancelsByHighWords(double value, double terms, int shift)
{
    const int termsHigh = highWord(terms);
    return highWord(value) < (termsHigh - shift > 0 ? termsHigh - shift : 0);
}

/// The bound of cancelsByPartsHighWords below for a part of high word `high`, were it the larger part; worked out once
/// a row or column by the tensor-core kernel.
KS_HOST_DEVICE inline int cancellationBound(int high, int shift)
{
    // No overflow for an infinite or NaN part while shift > 2^20 (tau < 1/2: N below about 212,000).
    const int bound = high - shift + (1 << 20);
    return bound > 0 ? bound : 0;
}

/// The same test when terms = s_i + s_j is known only as its two parts' high words (s_i, s_j ≥ 0): s_i + s_j ≤
/// 2·max(s_i, s_j), whose high word is the larger one's plus 2^20, so this flags every pair cancelsByHighWords flags,
/// and perhaps some up to twice its bound (recomputed, which costs only time). The tensor-core kernel's accumulators
/// end as the lrv itself; it never forms s_i + s_j.
KS_HOST_DEVICE inline bool cancelsByPartsHighWords(double value, int highI, int highJ, int shift)
{
    return highWord(value) < cancellationBound(highI > highJ ? highI : highJ, shift);
}

/// cancelsByPartsHighWords from the two parts' bounds (the larger bound is the larger part's, clamped alike): two
/// integer compares a pair.
KS_HOST_DEVICE inline bool cancelsByBounds(double value, int boundI, int boundJ)
{
    const int high = highWord(value);
    return high < boundI || high < boundJ;
}

/// An lrv Result: quantity "lrv", the half matrix as values, the feature names.
Result makeResult(std::vector<double> values, const data::ExpressionTable& table);

/// Base of the CPU variants: the table, the half matrix being filled, and fetch().
/// Pairs of a row of the half matrix between two stop checks: about kCancelBlock samples' work (one pair at a
/// million samples, a few hundred at the default 80).
inline std::size_t pairsPerCheck(std::size_t samples)
{
    return std::max<std::size_t>(1, kCancelBlock / std::max<std::size_t>(1, samples));
}

class HalfMatrixCpuRun : public CpuPreparedRun {
public:
    HalfMatrixCpuRun(const data::ExpressionTable& table, const RunContext& context)
        : CpuPreparedRun(context)
        , m_table(table)
    {
    }
    Result fetch() override { return makeResult(m_values, m_table); }

protected:
    /// Makes m_values `count` long, growing it in steps with a stop check before each (first touching gigabytes of
    /// output takes seconds). Values already there are kept, not zeroed: every run writes all of them.
    void sizeValues(std::size_t count, const CancelPoint& cancel)
    {
        if (m_values.size() == count)
            return;
        m_values.clear();
        resizeCancellably(m_values, count, cancel);
    }

    const data::ExpressionTable& m_table;
    std::vector<double> m_values;
};

/// Which of propr's lrv a run computes: weighted when the table has weights, the alpha (Box–Cox) transform when
/// alpha ≠ 0 (alpha = 0 is its limit, the log-ratio).
struct Mode {
    bool weighted = false;
    double alpha = 0.0;
    bool transformed() const { return alpha != 0.0; }
    /// "lrv", "weighted lrv", "alpha 0.5 lrv", "weighted alpha 0.5 lrv".
    std::string name() const;
};
/// The mode `table` and `params` ask for, whether or not it can run (the cost model's view).
Mode requestedMode(const data::ExpressionTable& table, const ParamSet& params);
/// The mode of a run on `table` with `params`: requestedMode, with a ParameterError for weighted alpha with a
/// reference but no reference weights (propr weights the reference's means by Wfull).
Mode modeOf(const data::ExpressionTable& table, const ParamSet& params);
/// SkipRun naming the mode, for a variant that computes only `supported` modes.
[[noreturn]] void skipMode(const Mode& mode, const std::string& computedBy);

/// What the reference computes pairs from, in long double and feature-major (feature i's samples contiguous).
struct ReferenceInputs {
    Mode mode;
    std::size_t samples = 0; ///< N
    std::size_t fullSamples = 0; ///< rows of Yfull (alpha)
    /// p × N: log Y (alpha 0); Y^a / m_i with m_i the mean of Yfull^a's feature i (unweighted alpha); Y^a (weighted
    /// alpha, whose means depend on the pair).
    std::vector<long double> x;
    std::vector<long double> w; ///< p × N: W (weighted)
    std::vector<long double> xFull; ///< p × Nfull: Yfull^a (weighted alpha with a reference; else x is Yfull^a)
    std::vector<long double> wFull; ///< p × Nfull: Wfull (weighted alpha with a reference; else w is Wfull)
};
/// Throws RunCancelled when `cancel` is stopped while it works.
ReferenceInputs referenceInputs(
    const data::ExpressionTable& table, const Mode& mode, const CancelPoint& cancel = CancelPoint());
/// The reference lrv of pair (i, j): two passes in long double (the weighted mean, then weighted squared deviations).
double referencePair(const ReferenceInputs& inputs, std::size_t i, std::size_t j);

/// The `device_output_mb` parameter: the device output buffer's cap in MiB (0: automatic). Outputs larger than
/// the buffer are streamed to the host in row chunks while the next chunk computes.
std::uint64_t deviceOutputCapBytes(const ParamSet& params);

/// The centring kernel's logarithm (tableLog, table_log.h) of each of `x`, computed on the current device, for the
/// tests: empty where there is no device, or no CUDA in the build.
std::vector<double> tableLogsOnDevice(const std::vector<double>& x);

/// Adds the lrv workload to the registry.
void registerLrv(Registry& registry);

} // namespace ks::lrv
