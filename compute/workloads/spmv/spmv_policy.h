#pragma once

// The spmv variants' row-length thresholds: which rows a kernel gives a thread, a warp or a block, and when ell
// gives up. The row-length view (gui/views/spmv_view.cpp) and the README quote them, so they live here, in plain C++
// that the GUI can include; the variants' Policy structs in cuda_variants.cu take them from here.

namespace ks::spmv {

/// row_binning: rows of up to kShortMax non-zeros (empty ones included) a thread each, up to kMediumMax a warp
/// each, longer ones a block each.
struct RowBinningThresholds {
    static constexpr int kShortMax = 8;
    static constexpr int kMediumMax = 64;
};

/// adaptive: a row of up to kScalarMax non-zeros is summed by lane 0 alone, a longer one by the whole warp.
struct AdaptiveThresholds {
    static constexpr int kScalarMax = 32;
};

/// ell: skipped when padding every row to the longest would store more than kMaxPadding slots per non-zero.
struct EllThresholds {
    static constexpr double kMaxPadding = 3.0;
};

} // namespace ks::spmv
