#pragma once

#include "gui/charts/chart_view.h"

#include <cstdint>

namespace ks::gui {

/// One bar per variant at one size: achieved GB/s (or the workload's items per second when it moves no counted
/// bytes) against the calibrated ceiling, with each bar's % of that ceiling written above it.
class ThroughputChart : public ChartView {
    Q_OBJECT
public:
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

protected:
    void rebuild() override;

private:
    std::uint64_t m_size = 0;
    std::uint64_t m_shownSize = 0;
};

} // namespace ks::gui
