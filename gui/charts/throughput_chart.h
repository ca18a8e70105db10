#pragma once

#include "gui/charts/chart_view.h"

#include <QString>
#include <cstdint>
#include <vector>

class QMouseEvent;
class QPoint;

namespace ks::gui {

/// One bar per variant at one size, in the metric of the workload's roof: achieved GB/s against the calibrated
/// bandwidth ceiling, or GFLOP/s against the FLOP/s ceiling, with each bar's % of that ceiling written above it. A
/// workload without a roof (or runs whose roofs differ, from old files) shows bytes, then its own rate, with no %.
class ThroughputChart : public ChartView {
    Q_OBJECT
public:
    /// What one drawn bar stands for (tests and the tooltip read it).
    struct Bar {
        QString variant;
        double key = 0.0; ///< position on the x axis
        double value = 0.0; ///< height in the axis's unit
        double pctOfCeiling = -1.0; ///< of the drawn ceiling, in the drawn metric; negative: none shown
        bool aboveCeiling = false; ///< over 100 %: drawn hatched, the tooltip says why
        QString toolTip;
    };

    /// A throughput chart of the runs in `model`, at the latest size until setSize says otherwise.
    explicit ThroughputChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Throughput".
    QString title() const override;

    /// The size whose runs are shown; 0 follows the size of the latest finished run.
    void setSize(std::uint64_t size);
    /// The size set with setSize (0: the latest).
    std::uint64_t size() const { return m_size; }
    /// The size the bars show now (0 when nothing has finished).
    std::uint64_t shownSize() const { return m_shownSize; }

    /// The bars drawn now, left to right.
    const std::vector<Bar>& bars() const { return m_bars; }
    /// The tooltip of the bar (or its label) under `pixel`, in the plot's coordinates; empty over no bar.
    QString toolTipAt(const QPoint& pixel) const override;

protected:
    void rebuild() override;

private:
    std::uint64_t m_size = 0;
    std::uint64_t m_shownSize = 0;
    std::vector<Bar> m_bars;
};

} // namespace ks::gui
