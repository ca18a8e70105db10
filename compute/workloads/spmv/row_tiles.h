#pragma once

// The layout of spmv's row_tiles variant, planned on the host at prepare (plain C++, so it is tested without a GPU):
// consecutive rows in tiles whose non-zeros a block stages in shared memory, and x's columns cut into panels so that
// each pass over the tiles gathers from a slice of x that stays in L2. Thresholds in spmv_policy.h.

#include "data/sparse_matrix.h"

#include <cstdint>
#include <vector>

namespace ks::spmv {

/// Column panels for a vector x of `xBytes` on a GPU whose L2 holds `l2Bytes`, for rows of `meanRowLength`
/// non-zeros on average: 1, 2 or kMaxPanels as x's size against L2 passes RowTileThresholds' limits; 1 when L2 is
/// unknown (0).
int rowTilePanels(std::uint64_t xBytes, std::uint64_t l2Bytes, double meanRowLength);

/// Tiles of consecutive rows and, per column panel, where each tile's non-zeros of that panel lie in the reordered
/// arrays. Rows longer than the capacity are in no tile (the variant sends them to its long-row blocks).
struct RowTilePlan {
    int panels = 1;
    std::uint64_t panelWidth = 0; ///< columns per panel; column c is in panel c / panelWidth
    /// Two entries a tile: its first row and the row after its last.
    std::vector<std::int32_t> tileRows;
    /// panels × (tiles + 1) entries: segmentStart[p·(tiles+1) + t] is where tile t's non-zeros of panel p begin in
    /// the reordered arrays (panel-major: every tile's panel-0 non-zeros, then panel 1, …; for one panel, A's own);
    /// a panel's last entry is where its last segment ends.
    std::vector<std::int32_t> segmentStart;
    /// panels × (rows + tiles) entries: for tile t of rows r0 … r1 − 1, offsets[p·(rows+tiles) + r0 + t + k] for
    /// k = 0 … r1 − r0 is where row r0 + k's non-zeros of panel p begin within the tile's segment (the last entry,
    /// the segment's length). Rows of no tile keep 0.
    std::vector<std::uint16_t> offsets;
    /// For every position of the reordered arrays, the position in A's colIdx and values it takes (empty for one
    /// panel: the tiles then read A's own arrays, in which each tile's non-zeros already lie together).
    std::vector<std::int32_t> order;

    int tiles() const { return static_cast<int>(tileRows.size() / 2); }
};

/// Plans the tiles of `a` for tiles of at most `capacity` non-zeros per panel and `maxRows` rows (capacity must fit
/// in 16 bits), with `panels` column panels. Needs A's row pointers and non-zero count within 32 bits.
RowTilePlan planRowTiles(const data::CsrMatrix& a, int capacity, int maxRows, int panels);

} // namespace ks::spmv
