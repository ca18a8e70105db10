#pragma once

#include "gui/views/workload_view.h"

#include <string>

namespace ks::gui {

/// The view of workloads without one of their own: each variant's computed result (its values, or its counts
/// for histograms) against the index, for the latest size, so two variants that disagree are seen to disagree.
class ResultValuesView : public WorkloadView {
    Q_OBJECT
public:
    /// A result view of the runs in `model`.
    explicit ResultValuesView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Result".
    QString title() const override;
    /// Prefers runs on this dataset when there are any (a session may hold runs on several).
    void setDataset(const data::Dataset& dataset) override;

    /// Values drawn per variant: enough for any histogram or output vector to be inspected, bounded so a
    /// 2^28-element result does not stall the GUI thread.
    static constexpr std::size_t kMaxValues = 100000;
    /// Up to this many named values, the names become the x tick labels.
    static constexpr std::size_t kMaxLabelledValues = 32;

protected:
    void rebuild() override;

private:
    std::string m_datasetHash;
};

} // namespace ks::gui
