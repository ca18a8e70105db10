// The spmv `auto` variant's decision (auto_choice.h).
#include "compute/workloads/spmv/auto_choice.h"

#include "compute/workloads/spmv/spmv_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ks::spmv {

double RowStats::ellPadding() const
{
    return nnz == 0 ? 1.0 : static_cast<double>(longest) * static_cast<double>(rows) / static_cast<double>(nnz);
}

RowStats rowStats(const data::CsrMatrix& a)
{
    bool complete = true;
    return rowStats(
        a, [](std::uint64_t, std::uint64_t) { return true; }, complete);
}

AutoChoice chooseKernel(const RowStats& s)
{
    using A = AutoThresholds;
    char reason[200];
    const double longest = static_cast<double>(s.longest);
    if (longest > A::kSkewedLongest && longest > A::kSkewedRatio * s.mean) {
        std::snprintf(reason, sizeof reason,
            "skewed rows: the longest has %.0f non-zeros, %.0f× the mean of %.3g; merge-path shares them evenly",
            longest, longest / std::max(s.mean, 1e-300), s.mean);
        return {"merge_path", reason};
    }
    const double padding = s.ellPadding();
    if (s.nnz > 0 && padding <= EllThresholds::kMaxPadding && static_cast<double>(s.rows) >= A::kEllMinRows
        && s.mean <= A::kEllMaxMean) {
        std::snprintf(reason, sizeof reason,
            "regular rows: %.2f ELL slots per non-zero, %.3g per row on average, %.3g million rows", padding, s.mean,
            static_cast<double>(s.rows) / 1e6);
        return {"ell", reason};
    }
    if (s.mean >= A::kLongMean) {
        std::snprintf(reason, sizeof reason, "long rows: %.3g non-zeros per row on average, a block per %d of them",
            s.mean, LongRowThresholds::kChunk);
        return {"row_binning", reason};
    }
    // Sub-warps sized to the mean; the reason says why ell was passed over.
    char why[96] = "no non-zeros";
    if (s.nnz > 0 && padding > EllThresholds::kMaxPadding)
        std::snprintf(why, sizeof why, "ELL would pad to %.1f slots per non-zero", padding);
    else if (s.nnz > 0 && static_cast<double>(s.rows) < A::kEllMinRows)
        std::snprintf(why, sizeof why, "ell wants %.0f rows or more", A::kEllMinRows);
    else if (s.nnz > 0)
        std::snprintf(why, sizeof why, "ell wants at most %.0f per row", A::kEllMaxMean);
    std::snprintf(reason, sizeof reason, "%.3g non-zeros per row on average (longest %.0f); %s", s.mean, longest, why);
    return {"subwarp", reason};
}

} // namespace ks::spmv
