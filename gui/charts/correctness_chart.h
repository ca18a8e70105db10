#pragma once

#include "gui/charts/chart_view.h"

namespace ks::gui {

/// How far each variant's latest finished result is from the reference (the workload's Delta), on a log scale
/// against the tolerance line; exact results sit on a floor labelled "exact", results over tolerance are red.
class CorrectnessChart : public ChartView {
    Q_OBJECT
public:
    /// A correctness chart of the runs in `model`.
    explicit CorrectnessChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Correctness".
    QString title() const override;

    /// Where a delta of exactly zero is drawn: below any rounding error a double can show.
    static constexpr double kExactFloor = 1e-17;

protected:
    void rebuild() override;
};

} // namespace ks::gui
