// spmv row_tiles: the tiles and column panels planned at prepare (row_tiles.h).
#include "compute/workloads/spmv/row_tiles.h"

#include "compute/workloads/spmv/spmv_policy.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace ks::spmv {

int rowTilePanels(std::uint64_t xBytes, std::uint64_t l2Bytes, double meanRowLength)
{
    using T = RowTileThresholds;
    if (l2Bytes == 0)
        return 1;
    const double share = static_cast<double>(xBytes) / static_cast<double>(l2Bytes);
    if (share <= (meanRowLength < T::kShortRowsMean ? T::kShortRowsOnePanelMax : T::kOnePanelMax))
        return 1;
    return share <= T::kTwoPanelsMax ? 2 : T::kMaxPanels;
}

namespace {

/// Where each of the panels' columns begins within row `row`'s non-zeros (columns ascending): bounds[p] … bounds[p+1].
void panelBounds(const data::CsrMatrix& a, std::uint64_t row, int panels, std::uint64_t width,
    std::array<std::int64_t, RowTileThresholds::kMaxPanels + 1>& bounds)
{
    const auto* first = a.colIdx.data() + a.rowPtr[row];
    const auto* last = a.colIdx.data() + a.rowPtr[row + 1];
    bounds[0] = a.rowPtr[row];
    for (int p = 1; p < panels; ++p) {
        const auto limit = static_cast<std::int64_t>(static_cast<std::uint64_t>(p) * width);
        bounds[p] = a.rowPtr[row] + (std::lower_bound(first, last, limit) - first);
    }
    bounds[panels] = a.rowPtr[row + 1];
}

} // namespace

RowTilePlan planRowTiles(const data::CsrMatrix& a, int capacity, int maxRows, int panels)
{
    if (capacity <= 0 || capacity > 0xffff || maxRows <= 0 || panels < 1 || panels > RowTileThresholds::kMaxPanels)
        throw std::invalid_argument("planRowTiles: capacity, rows per tile or panels out of range");
    RowTilePlan plan;
    plan.panels = panels;
    plan.panelWidth = std::max<std::uint64_t>(1, (a.cols + static_cast<std::uint64_t>(panels) - 1) / panels);
    std::array<std::int64_t, RowTileThresholds::kMaxPanels + 1> bounds {};
    std::array<std::int64_t, RowTileThresholds::kMaxPanels> count {};
    std::uint64_t row = 0;
    while (row < a.rows) {
        if (a.rowPtr[row + 1] - a.rowPtr[row] > capacity) {
            ++row; // a long row: in no tile
            continue;
        }
        const std::uint64_t first = row;
        count.fill(0);
        while (row < a.rows && row - first < static_cast<std::uint64_t>(maxRows)) {
            if (a.rowPtr[row + 1] - a.rowPtr[row] > capacity)
                break;
            panelBounds(a, row, panels, plan.panelWidth, bounds);
            bool fits = true;
            for (int p = 0; p < panels; ++p)
                fits = fits && count[p] + (bounds[p + 1] - bounds[p]) <= capacity;
            if (!fits)
                break;
            for (int p = 0; p < panels; ++p)
                count[p] += bounds[p + 1] - bounds[p];
            ++row;
        }
        plan.tileRows.push_back(static_cast<std::int32_t>(first));
        plan.tileRows.push_back(static_cast<std::int32_t>(row));
    }
    const std::uint64_t tiles = plan.tileRows.size() / 2;
    const std::uint64_t stride = a.rows + tiles;
    plan.segmentStart.assign(static_cast<std::size_t>(panels) * (tiles + 1), 0);
    plan.offsets.assign(static_cast<std::size_t>(panels) * stride, 0);
    if (panels > 1)
        plan.order.reserve(a.nnz());
    std::int64_t position = 0; // in the reordered arrays (A's own for one panel)
    for (int p = 0; p < panels; ++p) {
        for (std::uint64_t t = 0; t < tiles; ++t) {
            const auto r0 = static_cast<std::uint64_t>(plan.tileRows[2 * t]);
            const auto r1 = static_cast<std::uint64_t>(plan.tileRows[2 * t + 1]);
            if (panels == 1)
                position = a.rowPtr[r0];
            const std::int64_t base = position;
            plan.segmentStart[p * (tiles + 1) + t] = static_cast<std::int32_t>(base);
            std::uint16_t* offsets = plan.offsets.data() + p * stride + r0 + t;
            for (std::uint64_t r = r0; r < r1; ++r) {
                offsets[r - r0] = static_cast<std::uint16_t>(position - base);
                panelBounds(a, r, panels, plan.panelWidth, bounds);
                if (panels > 1)
                    for (std::int64_t k = bounds[p]; k < bounds[p + 1]; ++k)
                        plan.order.push_back(static_cast<std::int32_t>(k));
                position += bounds[p + 1] - bounds[p];
            }
            offsets[r1 - r0] = static_cast<std::uint16_t>(position - base);
        }
        plan.segmentStart[p * (tiles + 1) + tiles] = static_cast<std::int32_t>(position);
    }
    return plan;
}

} // namespace ks::spmv
