#pragma once

#include "gui/charts/chart_view.h"

namespace ks::gui {

/// Median time against problem size on log-log axes, one line per variant over its finished runs, so scaling
/// behaviour (linear, quadratic, a cache cliff) reads off the slope; results over tolerance get a red marker.
class SweepChart : public ChartView {
    Q_OBJECT
public:
    /// A sweep chart of the runs in `model`.
    explicit SweepChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Sweep".
    QString title() const override;

protected:
    void rebuild() override;
};

} // namespace ks::gui
