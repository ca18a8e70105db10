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

double RowStats::diaFill() const
{
    return nnz == 0 ? 1.0 : static_cast<double>(diagonals) * static_cast<double>(rows) / static_cast<double>(nnz);
}

std::vector<std::int64_t> diagonalOffsets(const data::CsrMatrix& a, std::size_t limit)
{
    std::vector<std::int64_t> found;
    const std::uint64_t rows = a.rowPtr.empty() ? 0 : std::min<std::uint64_t>(a.rows, a.rowPtr.size() - 1);
    for (std::uint64_t row = 0; row < rows; ++row) {
        std::size_t at = 0;
        const auto end = std::min<std::uint64_t>(static_cast<std::uint64_t>(a.rowPtr[row + 1]), a.colIdx.size());
        for (auto k = static_cast<std::uint64_t>(a.rowPtr[row]); k < end; ++k) {
            const std::int64_t offset = static_cast<std::int64_t>(a.colIdx[k]) - static_cast<std::int64_t>(row);
            while (at < found.size() && found[at] < offset)
                ++at;
            if (at == found.size() || found[at] != offset) {
                found.insert(found.begin() + static_cast<std::ptrdiff_t>(at), offset);
                if (found.size() > limit)
                    return found;
            }
        }
    }
    return found;
}

RowStats rowStats(const data::CsrMatrix& a, std::vector<std::int64_t>* offsets)
{
    bool complete = true;
    RowStats s = rowStats(
        a, [](std::uint64_t, std::uint64_t) { return true; }, complete);
    std::vector<std::int64_t> found = diagonalOffsets(a, DiaThresholds::kMaxDiagonals);
    s.diagonals = found.size();
    if (offsets)
        *offsets = std::move(found);
    return s;
}

AutoChoice chooseKernel(const RowStats& s)
{
    using A = AutoThresholds;
    char reason[240];
    const double longest = static_cast<double>(s.longest);
    if (longest > A::kSkewedLongest && longest > A::kSkewedRatio * s.mean) {
        std::snprintf(reason, sizeof reason,
            "skewed rows: the longest has %.0f non-zeros, %.0f× the mean of %.3g; tiles of whole rows, rows over %d "
            "non-zeros in blocks",
            longest, longest / std::max(s.mean, 1e-300), s.mean, RowTileThresholds::kCapacity);
        return {"row_tiles", reason};
    }
    if (s.nnz > 0 && s.diagonals > 0 && s.diagonals <= static_cast<std::uint64_t>(DiaThresholds::kMaxDiagonals)
        && s.diaFill() <= A::kDiaMaxFill && static_cast<double>(s.rows) >= A::kEllMinRows) {
        std::snprintf(reason, sizeof reason,
            "non-zeros on %llu diagonals: %.2f DIA slots per non-zero, no column indices to read; %.3g million rows",
            static_cast<unsigned long long>(s.diagonals), s.diaFill(), static_cast<double>(s.rows) / 1e6);
        return {"dia", reason};
    }
    const double padding = s.ellPadding();
    const bool ellShape = s.nnz > 0 && padding <= EllThresholds::kMaxPadding
        && static_cast<double>(s.rows) >= A::kEllMinRows && s.mean <= A::kEllMaxMean;
    if (ellShape && s.meanSpan <= A::kEllMaxSpan) {
        std::snprintf(reason, sizeof reason,
            "regular rows of nearby columns: %.2f ELL slots per non-zero, %.3g per row on average, %.3g million "
            "rows, each spanning %.2g%% of the columns",
            padding, s.mean, static_cast<double>(s.rows) / 1e6, 100.0 * s.meanSpan);
        return {"ell", reason};
    }
    if (s.mean >= A::kLongMean) {
        std::snprintf(reason, sizeof reason, "long rows: %.3g non-zeros per row on average, a block per %d of them",
            s.mean, LongRowThresholds::kChunk);
        return {"row_binning", reason};
    }
    // Row tiles; the reason says why ell was passed over.
    char why[120] = "no non-zeros";
    if (ellShape)
        std::snprintf(why, sizeof why, "rows spread over %.2g%% of the columns on average, too far for ell's gathers",
            100.0 * s.meanSpan);
    else if (s.nnz > 0 && padding > EllThresholds::kMaxPadding)
        std::snprintf(why, sizeof why, "ELL would pad to %.1f slots per non-zero", padding);
    else if (s.nnz > 0 && static_cast<double>(s.rows) < A::kEllMinRows)
        std::snprintf(why, sizeof why, "ell wants %.0f rows or more", A::kEllMinRows);
    else if (s.nnz > 0)
        std::snprintf(why, sizeof why, "ell wants at most %.0f per row", A::kEllMaxMean);
    std::snprintf(reason, sizeof reason, "%.3g non-zeros per row on average (longest %.0f); %s", s.mean, longest, why);
    return {"row_tiles", reason};
}

} // namespace ks::spmv
