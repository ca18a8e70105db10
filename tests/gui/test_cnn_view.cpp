// The cnn view: one loss curve per variant (its latest run on the dataset), steps on x, live while a run streams,
// the step time and the gradient error in the legend, each variant in its own colour.
#include "gui/results_model.h"
#include "gui/views/cnn_view.h"
#include "gui/views/workload_view.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>

using namespace ks;
using namespace ks::gui;

namespace {

Summary cnnRun(const std::string& runId, const std::string& variant, std::vector<double> losses, double delta)
{
    Summary s;
    s.runId = runId;
    s.workload = "cnn";
    s.variant = variant;
    s.backend = "cpu";
    s.datasetHash = "h";
    s.size = 100;
    s.outcome = delta <= 1e-4 ? Outcome::Passed : Outcome::Incorrect;
    s.repetitions = static_cast<int>(losses.size());
    s.medianMs = 2.5;
    s.samplesMs.assign(losses.size(), 2.5);
    s.sampleMetrics = std::move(losses);
    s.delta.kind = "max_rel_grad_err";
    s.delta.value = delta;
    s.delta.tolerance = 1e-4;
    s.delta.computed = true;
    return s;
}

data::Dataset datasetWithHash(const std::string& hash)
{
    data::DatasetMeta meta;
    meta.kind = "images";
    meta.contentHash = hash;
    return data::Dataset::make(std::move(meta), 0);
}

TEST(CnnView, ALossCurvePerVariantFromItsLatestRun)
{
    ResultsModel model;
    CnnView view(&model);
    view.setDataset(datasetWithHash("h"));
    model.addSummary(cnnRun("r1", "reference", {2.3, 2.0, 1.7}, 0.0));
    model.addSummary(cnnRun("r2", "cpu_openmp", {2.3, 2.1}, 2e-6));
    model.addSummary(cnnRun("r3", "cpu_openmp", {2.3, 1.9, 1.5, 1.2}, 3e-3)); // the latest, over tolerance
    Summary other = cnnRun("r4", "reference", {9.0}, 0.0);
    other.datasetHash = "elsewhere";
    model.addSummary(other);
    view.rebuildNow();

    QCustomPlot* p = view.plot();
    ASSERT_EQ(p->graphCount(), 2);
    QStringList names;
    for (int g = 0; g < p->graphCount(); ++g)
        names << p->graph(g)->name();
    const QString all = names.join(QLatin1Char('|'));
    EXPECT_TRUE(all.contains(QStringLiteral("reference: 2.5 ms/step"))) << all.toStdString();
    EXPECT_TRUE(all.contains(QStringLiteral("over tolerance"))) << all.toStdString();
    int fourSteps = 0;
    for (int g = 0; g < p->graphCount(); ++g) {
        if (p->graph(g)->data()->size() == 4) {
            ++fourSteps;
            EXPECT_EQ(p->graph(g)->data()->at(3)->value, 1.2);
            EXPECT_EQ(p->graph(g)->data()->at(0)->key, 1.0); // steps count from 1
            EXPECT_EQ(p->graph(g)->pen().style(), Qt::DashLine);
        }
    }
    EXPECT_EQ(fourSteps, 1);
    EXPECT_NE(p->graph(0)->pen().color(), p->graph(1)->pen().color());
}

TEST(CnnView, EmptyUntilACnnRunHasSteps)
{
    ResultsModel model;
    CnnView view(&model);
    view.setDataset(datasetWithHash("h"));
    Summary none = cnnRun("r1", "reference", {}, 0.0);
    model.addSummary(none);
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graphCount(), 0);
    EXPECT_EQ(view.title(), QStringLiteral("Training loss"));
}

} // namespace
