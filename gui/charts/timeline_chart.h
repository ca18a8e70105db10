#pragma once

#include "gui/charts/chart_view.h"

class QAction;

namespace ks::gui {

/// Every repetition time as it arrives, one series per variant (its most recent run), with that run's running
/// median and interquartile band, so drift, warm-up effects and outliers show while the run goes on. Repetitions
/// sampled while the GPU was throttled carry a red ring; the clock sampled after each repetition can be overlaid as a
/// thin line on a second axis (context menu, on by default), so a slow stretch can be matched with a clock drop.
class TimelineChart : public ChartView {
    Q_OBJECT
public:
    /// A timeline of the runs in `model`.
    explicit TimelineChart(ResultsModel* model, QWidget* parent = nullptr);

    /// "Timeline".
    QString title() const override;

    /// Whether the clock line is drawn (where the runs sampled one).
    bool clockOverlay() const { return m_clockOverlay; }
    void setClockOverlay(bool on);
    /// The context-menu action that toggles the overlay.
    QAction* clockOverlayAction() const { return m_clockAction; }

protected:
    void rebuild() override;

private:
    bool m_clockOverlay = true;
    QAction* m_clockAction = nullptr;
};

} // namespace ks::gui
