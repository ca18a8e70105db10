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
/// non-zeros, a block each, and its partial sums added in order after. A row longer than kWideChunk is cut into
/// chunks of kWideChunk for blocks of twice the threads: on the power-law matrix of 2M rows (exponent 1.6), whose
/// 271 rows of more than 4,096 non-zeros take most of its time, those rows took 0.187 ms in float64 and 0.124 ms in
/// float32 in such blocks against 0.210 and 0.134 ms in blocks of 2,048 (H100, a standalone trial); rows of up to
/// 4,096 are faster in blocks of 2,048. row_tiles' long rows (longer than a tile holds) all take blocks of
/// kWideChunk, and the block that finishes a row adds its partial sums (cuda_variants.cu, LongRows).
struct LongRowThresholds {
    static constexpr int kPerLane = 64;
    static constexpr int kChunk = 2048;
    static constexpr int kWideChunk = 4096;
};

/// ell: skipped when padding every row to the longest would store more than kMaxPadding slots per non-zero.
struct EllThresholds {
    static constexpr double kMaxPadding = 3.0;
};

/// dia: skipped when the non-zeros lie on more than kMaxDiagonals diagonals (col − row), or when storing each
/// diagonal whole, zeros where it has no entry, would take more than kMaxFill slots per non-zero.
struct DiaThresholds {
    static constexpr int kMaxDiagonals = 128;
    static constexpr double kMaxFill = 3.0;
};

/// row_tiles: tiles of consecutive rows with at most kCapacity non-zeros in each column panel (a block of
/// kThreads threads stages kItems each with 16-byte loads, less three for the first load's alignment) and at most
/// kMaxRows rows; a row of up to kThreadRowMax non-zeros is summed by one thread, a longer one by a warp, and a row
/// longer than the capacity by the long-row blocks. x is cut into column panels, a pass over the tiles each: one
/// while x is at most kOnePanelMax of L2 (kShortRowsOnePanelMax for rows shorter than kShortRowsMean on average),
/// two up to kTwoPanelsMax, else kMaxPanels — a pass gathers from a slice of x that stays in L2, but each pass more
/// reads and writes y again, which costs most where rows are short. Measured (docs/benchmarks/spmv/round2.md): on an
/// H100 (L2 50 MB) in float64, 4M rows of 16 (x 32 MB) 0.79 ms in one pass, 0.64 ms in two, and 8M rows of 3 (x
/// 64 MB) 0.61 in one, 0.49 in three; on an H200 (L2 60 MB), in float64 4M rows of 16 0.585 / 0.546 / 0.576 ms in
/// one, two and three passes, 8M rows of 3 0.428 / 0.341 / 0.379 ms, the power-law rows of 4M (x 32 MB) 0.328 /
/// 0.319 / 0.366 ms; in float32 8M rows of 3 (x 32 MB) 0.233 ms in one pass, 0.265 in two.
struct RowTileThresholds {
    static constexpr int kThreads = 512;
    static constexpr int kItems = 8;
    static constexpr int kCapacity = kThreads * kItems - 3;
    static constexpr int kMaxRows = 4096;
    static constexpr int kThreadRowMax = 32;
    static constexpr double kOnePanelMax = 0.4;
    static constexpr double kShortRowsOnePanelMax = 0.8;
    static constexpr double kShortRowsMean = 8.0;
    static constexpr double kTwoPanelsMax = 1.2;
    static constexpr int kMaxPanels = 3;
};

/// auto (auto_choice.cpp), in this order: a matrix whose longest row exceeds kSkewedLongest non-zeros and
/// kSkewedRatio × the mean goes to row_tiles (power-law rows; their long rows take blocks); one whose non-zeros lie
/// on at most DiaThresholds::kMaxDiagonals diagonals, stored with at most kDiaMaxFill slots per non-zero, with at
/// least kEllMinRows rows, to dia (banded matrices, stencils: no column indices to read at all); one ell accepts, with
/// at least kEllMinRows rows (fewer leave the GPU's threads idle while each walks its row), at most kEllMaxMean per row
/// and rows spanning at most kEllMaxSpan of the columns on average (banded matrices, stencils: neighbouring threads'
/// gathers share lines), to ell; rows of kLongMean or more on average to row_binning, whose long rows take a block
/// per LongRowThresholds::kChunk non-zeros; the rest to row_tiles. Measured on an H100
/// (docs/benchmarks/spmv/round2.md): row_tiles beat ell on 4M random rows of 16 (0.64 against 0.85 ms in float64),
/// sub-warps on short rows (0.47 against 0.66 ms, 8M rows of 3) and merge_path on power-law rows (0.41 against
/// 0.53 ms, exponent 2.2); ell stayed ahead on the Laplacians and the banded matrix until dia, which on an H200
/// (2026-11-30, float32) took 0.135 against ell's 0.250 ms on the banded matrix of 61 diagonals, 0.149 against 0.211
/// on the 2-D Laplacian of 16M rows and 0.044 against 0.073 on the 3-D one of 4M.
struct AutoThresholds {
    static constexpr double kSkewedLongest = 2048;
    static constexpr double kSkewedRatio = 32.0;
    static constexpr double kEllMinRows = 500'000;
    static constexpr double kEllMaxMean = 64.0;
    static constexpr double kEllMaxSpan = 0.05;
    static constexpr double kDiaMaxFill = 1.25;
    static constexpr double kLongMean = 512.0;
};

} // namespace ks::spmv
