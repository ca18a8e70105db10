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

/// Long rows, for the kernels that give each row a fixed number of lanes (scalar 1, sub-warp 2–32, vector 32,
/// adaptive 32, row_binning's warp 32): a row of more than kPerLane non-zeros per lane is cut into chunks of kChunk
/// non-zeros, a block each, and its partial sums added in order after.
struct LongRowThresholds {
    static constexpr int kPerLane = 64;
    static constexpr int kChunk = 2048;
};

/// ell: skipped when padding every row to the longest would store more than kMaxPadding slots per non-zero.
struct EllThresholds {
    static constexpr double kMaxPadding = 3.0;
};

/// auto (auto_choice.cpp), in this order: a matrix whose longest row exceeds kSkewedLongest non-zeros and
/// kSkewedRatio × the mean goes to merge_path (power-law rows); one ell accepts, with at least kEllMinRows rows (fewer
/// leave the GPU's threads idle while each walks its row) and at most kEllMaxMean per row, to ell; rows of kLongMean
/// or more on average to row_binning, whose long rows take a block per LongRowThresholds::kChunk non-zeros; the rest
/// to subwarp (whose width follows the mean). Measured on an H100 (docs/benchmarks/spmv/round2.md): for short rows
/// (3 per row) subwarp's 2 lanes beat row_binning by 7–15 %, and for 2,000 per row the blocks beat 32 lanes by 10 %.
struct AutoThresholds {
    static constexpr double kSkewedLongest = 2048;
    static constexpr double kSkewedRatio = 32.0;
    static constexpr double kEllMinRows = 500'000;
    static constexpr double kEllMaxMean = 64.0;
    static constexpr double kLongMean = 512.0;
};

} // namespace ks::spmv
