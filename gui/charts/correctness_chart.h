#pragma once

#include "gui/charts/chart_view.h"

class QCheckBox;
class QComboBox;

namespace ks::gui {

/// How far each variant's latest finished result is from the reference (the workload's Delta), on a log scale
/// against the tolerance line; exact results sit on a floor labelled "exact", results over tolerance are red.
/// On demand ("Error distribution") it draws instead each variant's histogram of per-element errors (relative, or in
/// ULPs), counts on a log scale, so one element off by 1e-7 among a million exact ones shows as a bar of its own.
class CorrectnessChart : public ChartView {
    Q_OBJECT
public:
    /// Which of a Delta's histograms the distribution view draws.
    enum class Distribution { Relative, Steps };

    /// A correctness chart of the runs in `model`.
    explicit CorrectnessChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Correctness".
    QString title() const override;

    /// Where a delta of exactly zero is drawn: below any rounding error a double can show.
    static constexpr double kExactFloor = 1e-17;
    /// Where the distribution's bars start on the log count axis: below one, so a bin of a single element shows.
    static constexpr double kCountFloor = 0.5;

    bool distributionShown() const;
    Distribution distribution() const;
    /// The x position of a bin in the distribution view, and of the column of non-finite errors after the last bin
    /// drawn (tests read them).
    static double binPosition(std::size_t bin) { return static_cast<double>(bin); }
    double nonFinitePosition() const { return m_nonFinitePosition; }

public slots:
    /// Shows the per-element error histograms instead of the Deltas (the "Error distribution" check box).
    void setDistributionShown(bool shown);
    void setDistribution(Distribution distribution);

protected:
    void rebuild() override;

private:
    void rebuildDeltas();
    void rebuildDistribution();

    QCheckBox* m_distributionBox;
    QComboBox* m_measureBox;
    double m_nonFinitePosition = 0.0;
};

} // namespace ks::gui
