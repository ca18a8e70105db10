#pragma once

#include "compute/core/decide.h"
#include "gui/charts/chart_view.h"

#include <QPointer>
#include <QString>
#include <cstdint>
#include <map>
#include <vector>

class QCPItemText;
class QMouseEvent;

class QCPRange;

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

    /// Pins the variant every other is compared with (decisions, while shown, use their A instead); empty picks
    /// `reference`, or else the first variant run.
    void setBaseline(const QString& variant);
    /// The variant the chart compares with now: the first decision's A while decisions are shown, else the pinned one,
    /// or the one picked for an empty pin.
    QString baseline() const;

    /// The A/B decisions to show (run --decide, or the GUI's Decide): where A is the baseline, B's speedup over A
    /// (A's time over B's, the decision's ratio inverted) at its size with the interval as an error bar; every
    /// decision's verdict as a line of text in the corner. Replaces the ones shown before; empty shows none.
    void setDecisions(std::vector<Decision> decisions);
    const std::vector<Decision>& decisions() const { return m_decisions; }
    /// Every decision's verdict line, one per decision ("n=1024: B vs A: 0.912× [0.905, 0.919] (99% CI) → B
    /// faster, ...").
    QStringList verdictLines() const;
    /// The lines drawn in the corner: verdictLines() for up to kVerdictLinesDrawn decisions; past that, which would
    /// cover the curves, one line per pair of variants counting its verdicts and the range of its ratios (a pair
    /// decided at one size keeps its own line), and a pointer to the tooltip that holds every line.
    QStringList drawnVerdictLines() const;
    /// The tooltip at a pixel of the plot: every verdict line over the verdicts' box, else empty.
    QString toolTipAt(const QPoint& pixel) const override;
    static constexpr int kVerdictLinesDrawn = 4;
    /// The speedup axis reaches at least this far either side of 1× (1/1.25 to 1.25) however close the data.
    static constexpr double kMinSpeedupSpan = 1.25;
    /// The speedup axis' range (it is logarithmic) for speedups from `lowest` to `highest`: the data and 1×, never 0.
    static QCPRange speedupRange(double lowest, double highest);
    /// Pins the file (a loadedSource) whose own speedups, from its medians, are overlaid where it matches a plotted
    /// run; its own rows leave the variants' lines. Empty unpins.
    void setBaselineSource(const QString& source);
    QString baselineSource() const { return m_baselineSource; }

protected:
    void rebuild() override;

private:
    /// Draws m_decisions' intervals and verdicts; widens [lowest, highest] to the intervals drawn.
    void addDecisions(const QString& base, double& lowest, double& highest);

    /// The pinned file's speedups over `base` (its own medians of `base` and of each variant at a size), at the sizes
    /// where it matches a plotted run: a faded dashed line per variant in its colour, one legend entry naming the file.
    void addBaselineOverlay(const QString& base, const std::map<int, std::map<std::uint64_t, int>>& rows);

    QString m_baseline;
    QString m_baselineSource;
    std::vector<Decision> m_decisions;
    /// The verdicts' box of the last rebuild (the plot owns it and deletes it at the next).
    QPointer<QCPItemText> m_verdictItem;
};

} // namespace ks::gui
