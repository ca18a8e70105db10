// The cnn views. Training: one loss curve per variant (its latest run on the dataset), steps on x, live while a run
// streams, its step times beside it on an axis of their own, and a verdict table (final loss, held-out accuracy,
// median step, determinism, gradient error). Step breakdown: one stacked bar per variant from its run's
// "time <phase>" facts, a segment per phase; runs without those facts say "not measured".
#include "gui/results_model.h"
#include "gui/views/cnn_breakdown_view.h"
#include "gui/views/cnn_runs.h"
#include "gui/views/cnn_view.h"
#include "gui/views/workload_view.h"

#include <QLocale>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>
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

/// The phases of one step as a cnn run reports them, each `scale` ms times its position (1, 2, ...), with the update
/// last.
Facts phaseFacts(const std::vector<std::string>& phases, double scale)
{
    Facts facts;
    for (std::size_t i = 0; i < phases.size(); ++i)
        facts.emplace_back("time " + phases[i], scale * double(i + 1));
    return facts;
}

const std::vector<std::string> kAllPhases = {"conv1 forward", "pool1 forward", "conv2 forward", "pool2 forward",
    "fc1 forward", "fc2 forward", "loss", "fc2 backward", "fc1 backward", "pool2 backward", "conv2 backward",
    "pool1 backward", "conv1 backward", "update"};

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
    // Steps are whole: no tick between two of them, even on a range of four steps.
    ASSERT_FALSE(view.plot()->xAxis->tickVector().isEmpty());
    for (double tick : view.plot()->xAxis->tickVector())
        EXPECT_EQ(tick, std::round(tick));
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

TEST(CnnRuns, TheLossAfterKStepsAgainstCudnns)
{
    const Summary cudnn = cnnRun("a", "cudnn", {2.0, 1.0, 0.5, 0.4}, 1e-6);
    const Summary fused = cnnRun("b", "graph_fused", {2.0, 1.1, 0.505}, 1e-6);
    Summary otherBatch = fused;
    otherBatch.params = ParamSet::fromString("steps=3;batch=32");
    const std::vector<const Summary*> runs {&cudnn, &fused, &otherBatch};
    // The last step both ran: the third.
    EXPECT_EQ(cnn::lossAgainstCudnn(fused, runs), QStringLiteral("+1.00 % at step 3"));
    EXPECT_EQ(cnn::lossAgainstCudnn(cudnn, runs), QString());
    EXPECT_EQ(cnn::lossAgainstCudnn(otherBatch, runs), QString()); // another training: nothing to compare
    EXPECT_EQ(cnn::lossAgainstCudnn(fused, {&fused}), QString());
}

TEST(CnnBreakdownView, AStackedBarPerVariantASegmentPerPhase)
{
    ResultsModel model;
    CnnBreakdownView view(&model);
    view.setDataset(datasetWithHash("h"));
    Summary full = cnnRun("r1", "cpu_openmp", {2.3, 2.0}, 0.0);
    full.facts = phaseFacts(kAllPhases, 1.0); // 1 + 2 + … + 14 = 105 ms
    full.facts.emplace_back("accuracy", 85.0);
    // A fused variant: pooling inside the convolutions' kernels, so no pool phases of its own.
    Summary fused = cnnRun("r2", "v3_atomic_free", {2.3, 2.0}, 0.0, 0.5);
    fused.facts = phaseFacts({"conv1 forward", "conv2 forward", "fc1 forward", "fc2 forward", "loss", "fc2 backward",
                                 "fc1 backward", "conv2 backward", "conv1 backward", "update"},
        0.01);
    Summary old = cnnRun("r3", "reference", {2.3, 2.0}, 0.0, 256.8); // from a file written before the phases
    model.addSummary(old);
    model.addSummary(full);
    model.addSummary(fused);
    view.resize(1000, 600);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.rebuildNow();

    EXPECT_EQ(view.title(), QStringLiteral("Step breakdown"));
    const auto& segments = view.segments();
    ASSERT_EQ(segments.size(), kAllPhases.size());
    // Layer by layer in the network's order, the forward phase under the backward one; each on the one below.
    EXPECT_EQ(segments.front()->name(), QStringLiteral("conv1 forward"));
    EXPECT_EQ(segments[1]->name(), QStringLiteral("conv1 backward"));
    EXPECT_EQ(segments[2]->name(), QStringLiteral("pool1 forward"));
    EXPECT_EQ(segments[12]->name(), QStringLiteral("loss"));
    EXPECT_EQ(segments.back()->name(), QStringLiteral("update"));
    EXPECT_EQ(segments.front()->barBelow(), nullptr);
    for (std::size_t i = 1; i < segments.size(); ++i)
        EXPECT_EQ(segments[i]->barBelow(), segments[i - 1]) << segments[i]->name().toStdString();
    EXPECT_EQ(segments[0]->brush().color(), cnn::phaseColor(QStringLiteral("conv1"), false));
    EXPECT_EQ(segments[1]->brush().color(), cnn::phaseColor(QStringLiteral("conv1"), true));
    EXPECT_EQ(view.plot()->legend->itemCount(), static_cast<int>(kAllPhases.size()));

    // Bars in the workload's variant order: reference (1), cpu_openmp (2), v3_atomic_free (3).
    model.setVariantOrder(
        {QStringLiteral("reference"), QStringLiteral("cpu_openmp"), QStringLiteral("v3_atomic_free")});
    view.rebuildNow();
    const QStringList labels = view.barLabels();
    ASSERT_EQ(labels.size(), 3);
    EXPECT_EQ(labels[0], QStringLiteral("reference: not measured"));
    EXPECT_EQ(labels[1], QStringLiteral("cpu_openmp: 105 ms"));
    EXPECT_EQ(labels[2], QStringLiteral("v3_atomic_free: 0.55 ms"));
    bool saysNotMeasured = false;
    for (int i = 0; i < view.plot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(view.plot()->item(i)))
            saysNotMeasured |= text->text().startsWith(QStringLiteral("not measured"));
    EXPECT_TRUE(saysNotMeasured) << "the old run's bar says why it is empty";
    // 0.55 ms beside 105 ms is a sliver: the caption points to the shares.
    auto* caption = qobject_cast<QCPTextElement*>(view.plot()->plotLayout()->element(0, 0));
    ASSERT_NE(caption, nullptr);
    EXPECT_TRUE(caption->text().contains(QStringLiteral("batch 64"))) << caption->text().toStdString();
    EXPECT_TRUE(caption->text().contains(QStringLiteral("shares of the step"))) << caption->text().toStdString();

    // conv2 backward of cpu_openmp: the 11th phase measured, 11 ms; the fused run has no pool1 segment.
    QCPBars* conv2Backward = segments[5];
    ASSERT_EQ(conv2Backward->name(), QStringLiteral("conv2 backward"));
    ASSERT_EQ(conv2Backward->data()->size(), 2);
    EXPECT_EQ(conv2Backward->data()->at(0)->key, 2.0);
    EXPECT_EQ(conv2Backward->data()->at(0)->value, 11.0);
    EXPECT_EQ(segments[2]->data()->size(), 1) << "pool1 forward: cpu_openmp only";

    // The tooltip names the variant, the phase and its time. conv2 backward of cpu_openmp starts after conv1's
    // (1 + 13), pool1's (2 + 12) and conv2 forward (3) and is 11 ms long.
    QCustomPlot* p = view.plot();
    const QPointF inside(p->xAxis->coordToPixel(31.0 + 5.5), p->yAxis->coordToPixel(2.0));
    const QString tip = view.toolTipAt(inside);
    EXPECT_TRUE(tip.startsWith(QStringLiteral("cpu_openmp · conv2 backward: 11 ms"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("10.5 %"))) << tip.toStdString();
    EXPECT_TRUE(view.toolTipAt(QPointF(p->xAxis->coordToPixel(50.0), p->yAxis->coordToPixel(2.5))).isEmpty());

    // As shares, every measured bar reaches 100 %.
    view.setShowShares(true);
    view.rebuildNow();
    double sum = 0.0;
    for (QCPBars* bars : view.segments())
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            if (it->key == 3.0)
                sum += it->value;
    EXPECT_NEAR(sum, 100.0, 1e-9);
    EXPECT_EQ(p->xAxis->label(), QStringLiteral("share of the step (%)"));
}

TEST(CnnBreakdownView, FinishedRunsOnTheDatasetOnly)
{
    ResultsModel model;
    CnnBreakdownView view(&model);
    view.setDataset(datasetWithHash("h"));
    Summary elsewhere = cnnRun("r1", "cpu_openmp", {2.3}, 0.0);
    elsewhere.datasetHash = "other";
    elsewhere.facts = phaseFacts(kAllPhases, 1.0);
    Summary skipped = cnnRun("r2", "v2_atomics", {}, 0.0);
    skipped.outcome = Outcome::Skipped;
    model.addSummary(elsewhere);
    model.addSummary(skipped);
    Sample sample;
    sample.runId = "live";
    sample.workload = "cnn";
    sample.variant = "reference";
    sample.ms = 200.0;
    sample.metric = 2.3;
    model.addSamples({sample});
    view.rebuildNow();
    EXPECT_TRUE(view.barLabels().isEmpty());
    EXPECT_TRUE(view.segments().empty());
}

TEST(CnnBreakdownView, TheCnnWorkloadHasBothTabs)
{
    ResultsModel model;
    const QList<WorkloadView*> cnnViews = createWorkloadViews("cnn", &model, nullptr);
    std::vector<std::unique_ptr<WorkloadView>> owned(cnnViews.begin(), cnnViews.end());
    ASSERT_EQ(cnnViews.size(), 2);
    EXPECT_EQ(cnnViews[0]->title(), QStringLiteral("Training"));
    EXPECT_EQ(cnnViews[1]->title(), QStringLiteral("Step breakdown"));
    const QList<WorkloadView*> linregViews = createWorkloadViews("linreg", &model, nullptr);
    std::vector<std::unique_ptr<WorkloadView>> ownedLinreg(linregViews.begin(), linregViews.end());
    EXPECT_EQ(linregViews.size(), 1);
}

} // namespace
