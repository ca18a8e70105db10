#pragma once

#include "gui/charts/chart_view.h"

#include <QString>
#include <QVector>
#include <cstdint>
#include <map>
#include <vector>

class QMouseEvent;
class QPoint;

namespace ks::gui {

/// Median time against problem size on log-log axes, one line per variant over its finished runs, so scaling
/// behaviour (linear, quadratic, a cache cliff) reads off the slope; results over tolerance get a red marker, runs
/// whose working set fits in the last-level cache a hollow crossed one, and a pinned baseline file's medians a
/// dashed overlay.
class SweepChart : public ChartView {
    Q_OBJECT
public:
    /// A point with something to say when the pointer is over it.
    struct MarkedPoint {
        double key = 0.0; ///< size
        double value = 0.0; ///< median (ms)
        QString toolTip;
    };

    /// A sweep chart of the runs in `model`.
    explicit SweepChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Sweep".
    QString title() const override;

    /// Pins the file (a loadedSource) whose medians are overlaid where they match a plotted run; its own rows
    /// leave the variants' lines. Empty unpins.
    void setBaselineSource(const QString& source);
    QString baselineSource() const { return m_baselineSource; }

    /// The cache-resident points drawn now (hollow crossed marks).
    const std::vector<MarkedPoint>& residentPoints() const { return m_resident; }
    /// The baseline's points drawn now.
    const std::vector<MarkedPoint>& baselinePoints() const { return m_baseline; }
    /// The tooltip of the marked point under `pixel` (plot coordinates); empty over none.
    QString toolTipAt(const QPoint& pixel) const override;

protected:
    void rebuild() override;

private:
    using RowsBySize = std::map<int, std::map<std::uint64_t, int>>;
    /// Hollow crossed circles in each variant's colour over the runs whose working set fits in cache, and one
    /// legend entry saying what the mark means.
    void addCacheResidentMarks(const RowsBySize& rows);
    /// The pinned file's medians at the sizes it matches a plotted run: a faded dashed line per variant in its
    /// colour, one legend entry naming the file.
    void addBaselineOverlay(const RowsBySize& rows);
    /// One variant's part of the overlay ("baseline: FILE · variant"), kept out of the legend.
    QCPGraph* addBaselineGraph(const QString& variant, const QVector<double>& keys, const QVector<double>& values);
    /// The overlay's single legend entry, "baseline: FILE".
    void addBaselineLegend();

    QString m_baselineSource;
    std::vector<MarkedPoint> m_resident;
    std::vector<MarkedPoint> m_baseline;
};

} // namespace ks::gui
