#pragma once

#include "gui/charts/chart_view.h"

#include "data/dataset.h"

#include <QList>
#include <string>

namespace ks::gui {

/// A workload's own chart (linreg: the data and each variant's fitted line). One per workload, created by
/// createWorkloadView; it also sees the dataset the latest runs used.
class WorkloadView : public ChartView {
    Q_OBJECT
public:
    using ChartView::ChartView;
    /// The dataset of the runs being measured now (a generated size, a loaded file or a subset of it).
    virtual void setDataset(const data::Dataset& dataset) = 0;
};

/// The view for `workloadId`; workloads without their own view get a plot of their result values.
WorkloadView* createWorkloadView(const std::string& workloadId, ResultsModel* model, QWidget* parent);
/// Every view of `workloadId`, a tab each: createWorkloadView's first, then any further ones (cnn: the step
/// breakdown). The caller owns them and gives each the datasets.
QList<WorkloadView*> createWorkloadViews(const std::string& workloadId, ResultsModel* model, QWidget* parent);

} // namespace ks::gui
