#include "gui/views/cnn_breakdown_view.h"
#include "gui/views/cnn_view.h"
#include "gui/views/linreg_view.h"
#include "gui/views/lrv_view.h"
#include "gui/views/result_values_view.h"
#include "gui/views/sdh_view.h"
#include "gui/views/spmv_view.h"
#include "gui/views/workload_view.h"

namespace ks::gui {

WorkloadView* createWorkloadView(const std::string& workloadId, ResultsModel* model, QWidget* parent)
{
    if (workloadId == "linreg")
        return new LinregView(model, parent);
    if (workloadId == "lrv")
        return new LrvView(model, parent);
    if (workloadId == "sdh")
        return new SdhView(model, parent);
    if (workloadId == "spmv")
        return new SpmvView(model, parent);
    if (workloadId == "cnn")
        return new CnnView(model, parent);
    return new ResultValuesView(model, parent);
}

QList<WorkloadView*> createWorkloadViews(const std::string& workloadId, ResultsModel* model, QWidget* parent)
{
    QList<WorkloadView*> views {createWorkloadView(workloadId, model, parent)};
    if (workloadId == "cnn")
        views << new CnnBreakdownView(model, parent);
    return views;
}

} // namespace ks::gui

// workload_view.h declares a Q_OBJECT class but has no .cpp of its own for AUTOMOC to pair it with: its moc output
// is compiled here.
