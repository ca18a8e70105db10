// The cnn view: one loss curve per variant (its latest run on the dataset), steps on x, live while a run streams,
// its step times beside it on an axis of their own, and a verdict table (final loss, held-out accuracy, median
// step, determinism, gradient error).
#include "gui/results_model.h"
#include "gui/views/cnn_runs.h"
#include "gui/views/cnn_view.h"
#include "gui/views/workload_view.h"

#include <QLocale>
#include <QTableWidget>
#include <gtest/gtest.h>
#include <qcustomplot.h>

using namespace ks;
using namespace ks::gui;

namespace {

Summary cnnRun(
    const std::string& runId, const std::string& variant, std::vector<double> losses, double delta, double stepMs = 2.5)
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
    s.medianMs = stepMs;
    s.samplesMs.assign(losses.size(), stepMs);
    s.sampleMetrics = std::move(losses);
    s.delta.kind = "max_rel_grad_err";
    s.delta.value = delta;
    s.delta.tolerance = 1e-4;
    s.delta.computed = true;
    s.params = ParamSet::fromString("steps=3;batch=64");
    return s;
}

data::Dataset datasetWithHash(const std::string& hash)
{
    data::DatasetMeta meta;
    meta.kind = "images";
    meta.contentHash = hash;
    return data::Dataset::make(std::move(meta), 0);
}

QString cellText(const QTableWidget* table, int row, int column)
{
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text() : QString();
}

/// The table row of `variant`, or -1.
int rowOf(const QTableWidget* table, const QString& variant)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (cellText(table, row, CnnView::VariantColumn) == variant)
            return row;
    return -1;
}

TEST(CnnView, ALossCurvePerVariantFromItsLatestRunBesideItsStepTimes)
{
    ResultsModel model;
    CnnView view(&model);
    view.setDataset(datasetWithHash("h"));
    model.addSummary(cnnRun("r1", "reference", {2.3, 2.0, 1.7}, 0.0));
    model.addSummary(cnnRun("r2", "cpu_openmp", {2.3, 2.1}, 2e-6));
    model.addSummary(cnnRun("r3", "cpu_openmp", {2.3, 1.9, 1.5, 1.2}, 3e-3, 3.0)); // the latest, over tolerance
    Summary other = cnnRun("r4", "reference", {9.0}, 0.0);
    other.datasetHash = "elsewhere";
    model.addSummary(other);
    view.rebuildNow();

    const QList<QCPGraph*> losses = view.plot()->axisRect()->graphs();
    const QList<QCPGraph*> times = view.stepTimeRect()->graphs();
    ASSERT_EQ(losses.size(), 2);
    ASSERT_EQ(times.size(), 2);
    EXPECT_EQ(view.title(), QStringLiteral("Training"));
    EXPECT_EQ(losses[0]->name(), QStringLiteral("reference"));
    EXPECT_EQ(losses[1]->name(), QStringLiteral("cpu_openmp (gradient over tolerance)"));
    EXPECT_EQ(losses[1]->data()->size(), 4);
    EXPECT_EQ(losses[1]->data()->at(3)->value, 1.2);
    EXPECT_EQ(losses[1]->data()->at(0)->key, 1.0); // steps count from 1
    EXPECT_EQ(losses[1]->pen().style(), Qt::DashLine);
    EXPECT_EQ(losses[0]->pen().style(), Qt::SolidLine);
    EXPECT_NE(losses[0]->pen().color(), losses[1]->pen().color());
    // The step times: one point per step, in the same style as the variant's loss, in no legend of their own.
    EXPECT_EQ(times[1]->data()->size(), 4);
    EXPECT_EQ(times[1]->data()->at(2)->value, 3.0);
    EXPECT_EQ(times[1]->pen(), losses[1]->pen());
    EXPECT_FALSE(view.plot()->legend->hasItemWithPlottable(times[0]));
    EXPECT_EQ(view.stepTimeRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLinear);
    // The x ranges move together: zooming one plot into some steps shows the same steps in the other.
    view.plot()->xAxis->setRange(2.0, 3.0);
    EXPECT_EQ(view.stepTimeRect()->axis(QCPAxis::atBottom)->range(), QCPRange(2.0, 3.0));
}

TEST(CnnView, IdenticalCurvesStayDistinguishable)
{
    // The reference and cpu_openmp agree to float rounding: drawn alike, one would hide the other exactly.
    ResultsModel model;
    CnnView view(&model);
    view.setDataset(datasetWithHash("h"));
    model.addSummary(cnnRun("r1", "reference", {2.3, 2.0, 1.7}, 0.0));
    model.addSummary(cnnRun("r2", "cpu_openmp", {2.3, 2.0, 1.7}, 0.0));
    view.rebuildNow();
    const QList<QCPGraph*> losses = view.plot()->axisRect()->graphs();
    ASSERT_EQ(losses.size(), 2);
    // The one drawn first is wider, so a rim of it shows around the one drawn over it; the markers differ in shape.
    EXPECT_GT(losses[0]->pen().widthF(), losses[1]->pen().widthF() + 1.5);
    EXPECT_NE(losses[0]->scatterStyle().shape(), losses[1]->scatterStyle().shape());
    EXPECT_GT(losses[0]->scatterStyle().size(), losses[1]->scatterStyle().size());
    // And the legend says whose curve lies under the one drawn last.
    EXPECT_EQ(losses[0]->name(), QStringLiteral("reference"));
    EXPECT_EQ(losses[1]->name(), QStringLiteral("cpu_openmp (same curve as reference)"));
}

TEST(CnnView, VerdictsSayDeterminismAccuracyAndWhatWasNotMeasured)
{
    ResultsModel model;
    CnnView view(&model);
    view.setDataset(datasetWithHash("h"));
    Summary atomics = cnnRun("r1", "v2_atomics", {2.3, 1.9, 0.75}, 1e-6, 0.41);
    atomics.deterministic = false;
    atomics.facts = {{"time conv1 forward", 0.1}, {"accuracy", 87.14}, {"accuracy_images", 10000}};
    Summary atomicFree = cnnRun("r2", "v3_atomic_free", {2.3, 1.9, 0.7512}, 1e-6, 0.9);
    atomicFree.deterministic = true;
    atomicFree.facts = {{"accuracy", 84.0}};
    Summary old = cnnRun("r3", "reference", {2.3, 2.0}, 0.0, 256.8); // a results file from before facts
    model.addSummary(atomics);
    model.addSummary(atomicFree);
    model.addSummary(old);
    view.rebuildNow();

    const QTableWidget* table = view.verdictTable();
    ASSERT_EQ(table->rowCount(), 3);
    const int v2 = rowOf(table, QStringLiteral("v2_atomics"));
    const int v3 = rowOf(table, QStringLiteral("v3_atomic_free"));
    const int reference = rowOf(table, QStringLiteral("reference"));
    ASSERT_GE(v2, 0);
    ASSERT_GE(v3, 0);
    ASSERT_GE(reference, 0);

    EXPECT_EQ(cellText(table, v2, CnnView::DeterminismColumn), QStringLiteral("differs on replay"));
    EXPECT_EQ(cellText(table, v3, CnnView::DeterminismColumn), QStringLiteral("bit-identical on replay"));
    EXPECT_EQ(cellText(table, reference, CnnView::DeterminismColumn), QStringLiteral("not checked"));

    EXPECT_EQ(cellText(table, v2, CnnView::AccuracyColumn),
        QStringLiteral("87.1 % of %1 images").arg(QLocale().toString(10000)));
    EXPECT_EQ(cellText(table, v3, CnnView::AccuracyColumn), QStringLiteral("84.0 %"));
    EXPECT_EQ(cellText(table, reference, CnnView::AccuracyColumn), QStringLiteral("not measured"));

    EXPECT_EQ(cellText(table, v3, CnnView::FinalLossColumn), QStringLiteral("0.7512"));
    EXPECT_EQ(cellText(table, v2, CnnView::MedianStepColumn), QStringLiteral("0.41 ms"));
    EXPECT_EQ(cellText(table, reference, CnnView::MedianStepColumn), QStringLiteral("256.8 ms"));
    EXPECT_EQ(cellText(table, v2, CnnView::BatchColumn), QStringLiteral("64"));
    EXPECT_EQ(cellText(table, reference, CnnView::StepsColumn), QStringLiteral("2"));
    EXPECT_EQ(cellText(table, v2, CnnView::GradientErrorColumn), QStringLiteral("1.0e-06"));
    EXPECT_FALSE(table->item(v2, CnnView::VariantColumn)->icon().isNull()) << "the row shows the curve's style";

    // 256.8 ms beside 0.41 ms: the step times go on a log axis, or the GPU variants would lie flat on zero.
    EXPECT_EQ(view.stepTimeRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLogarithmic);
}

TEST(CnnView, ARunningRunDrawsLiveStepByStep)
{
    // A running run's row has no dataset hash until its Summary arrives; it is the run on the current dataset.
    ResultsModel model;
    CnnView view(&model);
    view.setDataset(datasetWithHash("h"));
    QList<Sample> samples;
    for (int i = 0; i < 3; ++i) {
        Sample sample;
        sample.runId = "live";
        sample.workload = "cnn";
        sample.variant = "cpu_openmp";
        sample.size = 100;
        sample.repetition = i;
        sample.ms = 10.0 + i;
        sample.metric = 2.3 - 0.3 * i;
        samples << sample;
    }
    model.addSamples(samples);
    view.rebuildNow();

    const QList<QCPGraph*> losses = view.plot()->axisRect()->graphs();
    ASSERT_EQ(losses.size(), 1);
    EXPECT_EQ(losses[0]->data()->size(), 3);
    EXPECT_EQ(losses[0]->name(), QStringLiteral("cpu_openmp (running)"));
    ASSERT_EQ(view.stepTimeRect()->graphs().size(), 1);
    EXPECT_EQ(view.stepTimeRect()->graphs()[0]->data()->at(2)->value, 12.0);
    const QTableWidget* table = view.verdictTable();
    ASSERT_EQ(table->rowCount(), 1);
    EXPECT_EQ(cellText(table, 0, CnnView::MedianStepColumn), QStringLiteral("running, step 3"));
    EXPECT_EQ(cellText(table, 0, CnnView::DeterminismColumn), QStringLiteral("after the run"));
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
    EXPECT_EQ(view.verdictTable()->rowCount(), 0);
    EXPECT_EQ(view.plot()->itemCount(), 1) << "a line saying how the curves come";
}

TEST(CnnRuns, PhasesAreReadFromTimeFacts)
{
    const auto phases = cnn::stepPhases(
        {{"time conv1 forward", 1.5}, {"accuracy", 80.0}, {"time loss", 0.25}, {"time conv1+pool1 backward", 2.0}});
    ASSERT_EQ(phases.size(), 3u);
    EXPECT_EQ(phases[0].layer, QStringLiteral("conv1"));
    EXPECT_FALSE(phases[0].backward);
    EXPECT_EQ(phases[0].ms, 1.5);
    EXPECT_EQ(phases[1].layer, QStringLiteral("loss"));
    EXPECT_EQ(phases[1].name, QStringLiteral("loss"));
    EXPECT_EQ(phases[2].layer, QStringLiteral("conv1+pool1"));
    EXPECT_TRUE(phases[2].backward);
    EXPECT_TRUE(cnn::stepPhases({}).empty());

    // The backward phase: the forward one's hue, lighter.
    const QColor forward = cnn::phaseColor(QStringLiteral("conv2"), false);
    const QColor backward = cnn::phaseColor(QStringLiteral("conv2"), true);
    EXPECT_NEAR(forward.hueF(), backward.hueF(), 0.02);
    EXPECT_GT(backward.lightnessF(), forward.lightnessF() + 0.1);
    EXPECT_NE(cnn::phaseColor(QStringLiteral("conv1"), false), cnn::phaseColor(QStringLiteral("conv2"), false));
}

} // namespace
