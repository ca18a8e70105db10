#pragma once

#include "gui/views/cnn_runs.h"
#include "gui/views/workload_view.h"

#include <QStringList>
#include <string>
#include <utility>
#include <vector>

class QCheckBox;
class QCPBars;
class QCPTextElement;

namespace ks::gui {

/// The cnn workload's second view: where one training step's time goes. One stacked bar per variant (its latest
/// finished run on the current dataset), a segment per phase from the run's "time <phase>" facts, a hue per layer,
/// the backward phase lighter than the forward one; a run that measured no phases (a results file from before they
/// were measured) says so on its bar.
class CnnBreakdownView : public WorkloadView {
    Q_OBJECT
public:
    explicit CnnBreakdownView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Step breakdown".
    QString title() const override;
    void setDataset(const data::Dataset& dataset) override;

    /// Whether each segment shows its phase's share of the step (%) rather than its time (ms).
    bool showsShares() const;
    void setShowShares(bool shares);

    /// The stacked bar sets, one per phase, first at the base of the bars; each named by its phase.
    const std::vector<QCPBars*>& segments() const { return m_segments; }
    /// One line per bar, top to bottom: "variant: 12.3 ms" (the phases' sum), or "variant: not measured".
    QStringList barLabels() const;
    /// The tooltip at `pos` (pixels in plot()): the variant, the phase and its time; empty off every bar.
    QString toolTipAt(const QPointF& pos) const;

protected:
    void rebuild() override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// One variant's bar.
    struct Bar {
        QString variant;
        std::vector<cnn::Phase> phases;
        double totalMs = 0.0; ///< the phases' sum
        double stepMs = 0.0; ///< the run's median timed step
    };

    std::string m_datasetHash;
    QCheckBox* m_shares;
    QCPTextElement* m_caption;
    std::vector<QCPBars*> m_segments;
    std::vector<std::pair<QString, bool>> m_segmentPhases; ///< each segment's layer and whether it is the backward
    std::vector<Bar> m_bars;
};

} // namespace ks::gui
