#pragma once

#include "gui/views/workload_view.h"

#include <string>

namespace ks::gui {

/// The cnn workload's view: each variant's training loss against the step, drawn live as the steps arrive, for the
/// latest run of every variant on the current dataset, with its median step time and gradient Delta in the legend.
class CnnView : public WorkloadView {
    Q_OBJECT
public:
    explicit CnnView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Training loss".
    QString title() const override;
    void setDataset(const data::Dataset& dataset) override;

protected:
    void rebuild() override;

private:
    std::string m_datasetHash;
};

} // namespace ks::gui
