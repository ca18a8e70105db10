#pragma once

#include "gui/views/workload_view.h"

#include <string>

class QCPAxisRect;
class QTableWidget;

namespace ks::gui {

/// The cnn workload's training view, for the latest run of every variant on the current dataset, drawn live as the
/// steps arrive: each variant's loss against the step, beside its time per step, over a table of verdicts (final
/// loss, held-out accuracy, median step time, whether a replay is bit-identical, gradient error).
class CnnView : public WorkloadView {
    Q_OBJECT
public:
    explicit CnnView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Training".
    QString title() const override;
    void setDataset(const data::Dataset& dataset) override;

    /// The axis rect of the step times, right of the loss curves (plot()->axisRect()); its x range follows theirs.
    QCPAxisRect* stepTimeRect() const { return m_timeRect; }
    /// The verdicts, one row per variant drawn, in the order drawn.
    QTableWidget* verdictTable() const { return m_table; }

    enum VerdictColumn {
        VariantColumn,
        BatchColumn,
        StepsColumn,
        FinalLossColumn,
        AccuracyColumn,
        MedianStepColumn,
        DeterminismColumn,
        GradientErrorColumn,
        CudnnLossColumn,
        VerdictColumnCount
    };

    /// Step times spanning more than this ratio (a CPU reference beside a GPU kernel) are drawn on a log axis.
    static constexpr double kLogTimeRatio = 20.0;

protected:
    void rebuild() override;

private:
    /// Fits the table's height to its rows, so the plots get the rest.
    void fitTableHeight();

    std::string m_datasetHash;
    QCPAxisRect* m_timeRect;
    QTableWidget* m_table;
};

} // namespace ks::gui
