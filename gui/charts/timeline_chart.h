#pragma once

#include "gui/charts/chart_view.h"

namespace ks::gui {

/// Every repetition time as it arrives, one series per variant (its most recent run), with that run's running
/// median and a median ± stdev noise band, so drift, warm-up effects and outliers show while the run goes on.
class TimelineChart : public ChartView {
    Q_OBJECT
public:
    /// A timeline of the runs in `model`.
    explicit TimelineChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Timeline".
    QString title() const override;

protected:
    void rebuild() override;
};

} // namespace ks::gui
