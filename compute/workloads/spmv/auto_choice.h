#pragma once

// The spmv `auto` variant's decision: which hand-written kernel a matrix gets, from its row statistics. Plain C++,
// so the GUI's row-length view shows the same choice the variant makes.

#include "data/sparse_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ks::spmv {

/// What the choice reads of a matrix: its row lengths and how far each row's columns spread.
struct RowStats {
    std::uint64_t rows = 0;
    std::uint64_t cols = 0;
    std::uint64_t nnz = 0;
    double mean = 0.0; ///< non-zeros per row
    double stddev = 0.0; ///< of the row lengths
    std::uint64_t longest = 0;
    std::uint64_t emptyRows = 0;
    double meanSpan = 0.0; ///< mean over non-empty rows of (last column − first column + 1) / cols
    /// Diagonals (distinct col − row) holding the non-zeros, counted up to DiaThresholds::kMaxDiagonals + 1 (that
    /// value: more); 0 when not counted (rowStats with a visitor does not count them).
    std::uint64_t diagonals = 0;

    /// Slots per non-zero if every row were padded to the longest (ELL).
    double ellPadding() const;
    /// Slots per non-zero if every diagonal were stored whole (DIA; needs `diagonals`).
    double diaFill() const;
};

/// The distinct diagonals (col − row) of the non-zeros of `a`, ascending; when there are more than `limit`, the
/// first limit + 1 found (the caller tests size() > limit). Columns ascend within a row, so each row is one merge
/// with the list so far: a banded matrix costs a pass over its columns, a scattered one ends after a few rows.
std::vector<std::int64_t> diagonalOffsets(const data::CsrMatrix& a, std::size_t limit);

/// One pass over the row pointers and each row's first and last column; visit(row, length) is called for every row
/// in order, and the pass ends early, `complete` false, when it returns false. Rows beyond the row pointers (a
/// matrix still being checked) are not counted.
template <class Visit> RowStats rowStats(const data::CsrMatrix& a, Visit&& visit, bool& complete)
{
    RowStats s;
    complete = true;
    const std::uint64_t rows = a.rowPtr.empty() ? 0 : std::min<std::uint64_t>(a.rows, a.rowPtr.size() - 1);
    s.rows = rows;
    s.cols = a.cols;
    if (rows == 0)
        return s;
    s.nnz = static_cast<std::uint64_t>(a.rowPtr[rows] - a.rowPtr[0]);
    s.mean = static_cast<double>(s.nnz) / static_cast<double>(rows);
    // The squared deviations from the mean, known beforehand: no running-mean cancellation.
    double squares = 0.0;
    double spans = 0.0;
    const bool haveColumns = a.colIdx.size() >= static_cast<std::uint64_t>(a.rowPtr[rows]);
    for (std::uint64_t row = 0; row < rows; ++row) {
        const auto begin = a.rowPtr[row];
        const auto end = a.rowPtr[row + 1];
        const auto length = static_cast<std::uint64_t>(end - begin);
        if (!visit(row, length)) {
            complete = false;
            return s;
        }
        const double deviation = static_cast<double>(length) - s.mean;
        squares += deviation * deviation;
        s.longest = std::max(s.longest, length);
        if (length == 0) {
            ++s.emptyRows;
            continue;
        }
        // Columns ascend within a row (CsrMatrix's invariant).
        if (haveColumns)
            spans += static_cast<double>(
                a.colIdx[static_cast<std::size_t>(end - 1)] - a.colIdx[static_cast<std::size_t>(begin)] + 1);
    }
    s.stddev = std::sqrt(squares / static_cast<double>(rows));
    const std::uint64_t filled = rows - s.emptyRows;
    if (filled > 0 && a.cols > 0)
        s.meanSpan = spans / static_cast<double>(filled) / static_cast<double>(a.cols);
    return s;
}

/// The whole pass, without a visitor, and the diagonals counted (diagonalOffsets, which go to `offsets` when given).
RowStats rowStats(const data::CsrMatrix& matrix, std::vector<std::int64_t>* offsets = nullptr);

/// The variant `auto` runs and why, in a phrase that names the statistics it went by.
struct AutoChoice {
    std::string variant; ///< a hand-written CUDA variant's id
    std::string reason;
};

/// The choice for a matrix with these statistics (thresholds: AutoThresholds in spmv_policy.h).
AutoChoice chooseKernel(const RowStats& stats);

} // namespace ks::spmv
