#pragma once

// The spmv `auto` variant's decision: which hand-written kernel a matrix gets, from its row statistics. Plain C++,
// so the GUI's row-length view shows the same choice the variant makes.

#include "data/sparse_matrix.h"

#include <cstdint>
#include <string>

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

    /// Slots per non-zero if every row were padded to the longest (ELL).
    double ellPadding() const;
};

/// One pass over the row pointers and each row's first and last column.
RowStats rowStats(const data::CsrMatrix& matrix);

/// The variant `auto` runs and why, in a phrase that names the statistics it went by.
struct AutoChoice {
    std::string variant; ///< a hand-written CUDA variant's id
    std::string reason;
};

/// The choice for a matrix with these statistics (thresholds: AutoThresholds in spmv_policy.h).
AutoChoice chooseKernel(const RowStats& stats);

} // namespace ks::spmv
