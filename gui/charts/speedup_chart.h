#pragma once

#include "gui/charts/chart_view.h"

#include <QString>

namespace ks::gui {

/// Speedup of every variant over a pinned baseline at each size (baseline median / variant median), a line per
/// variant over sizes on a log size axis, with the 1× line the baseline itself sits on.
class SpeedupChart : public ChartView {
    Q_OBJECT
public:
    /// A speedup chart of the runs in `model`.
    explicit SpeedupChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Speedup".
    QString title() const override;

    /// Pins the variant every other is compared with; empty picks `reference`, or else the first variant run.
    void setBaseline(const QString& variant);
    /// The variant the chart compares with now (the pinned one, or the one picked for an empty pin).
    QString baseline() const;

protected:
    void rebuild() override;

private:
    QString m_baseline;
};

} // namespace ks::gui
