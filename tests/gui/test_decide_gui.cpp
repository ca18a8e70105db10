// A/B decisions in the desktop app: the speedup chart's interval and verdict, and the Decide button running the
// checked variants interleaved on the worker thread.
#include "compute/core/results_io.h"
#include "gui/charts/speedup_chart.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>
#include <qcustomplot.h>

namespace ks::gui {
namespace {

Summary timedRun(const std::string& runId, const std::string& variant, double medianMs)
{
    Summary s;
    s.runId = runId;
    s.workload = "linreg";
    s.variant = variant;
    s.variantName = variant;
    s.backend = "cpu";
    s.size = 1024;
    s.outcome = Outcome::Passed;
    s.repetitions = 20;
    s.medianMs = medianMs;
    s.meanMs = medianMs;
    s.minMs = medianMs;
    s.maxMs = medianMs;
    s.samplesMs.assign(20, medianMs);
    return s;
}

Decision fasterDecision()
{
    Decision d;
    d.workload = "linreg";
    d.size = 1024;
    d.variantA = "scalar";
    d.variantB = "vector";
    d.ratio = 0.8;
    d.low = 0.75;
    d.high = 0.85;
    d.confidence = 0.99;
    d.verdict = DecisionVerdict::Faster;
    d.rounds = 37;
    d.stopReason = "decided";
    return d;
}

QStringList textsOf(QCustomPlot* plot)
{
    QStringList out;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)))
            out << text->text();
    return out;
}

QCPErrorBars* errorBarsOf(QCustomPlot* plot)
{
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPErrorBars*>(plot->plottable(i)))
            return bars;
    return nullptr;
}

TEST(SpeedupChartDecision, ShowsTheIntervalAsAnErrorBarAndTheVerdictAsText)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    model.addSummary(timedRun("a", "scalar", 10.0));
    model.addSummary(timedRun("b", "vector", 8.0));
    chart.setDecisions({fasterDecision()});
    chart.rebuildNow();

    EXPECT_EQ(chart.baseline(), QStringLiteral("scalar")) << "unpinned, the decision's A is the baseline";
    const QString verdict = textsOf(chart.plot()).join(QLatin1Char('\n'));
    EXPECT_TRUE(verdict.contains(QStringLiteral("vector vs scalar: 0.800× [0.750, 0.850] (99% CI) → vector faster, "
                                                "after 37 rounds")))
        << verdict.toStdString();
    ASSERT_EQ(chart.verdictLines().size(), 1);

    // The speedup is A's time over B's: 1/0.8 = 1.25, with the interval [1/0.85, 1/0.75].
    QCPErrorBars* bars = errorBarsOf(chart.plot());
    ASSERT_NE(bars, nullptr);
    ASSERT_EQ(bars->dataCount(), 1);
    auto* point = qobject_cast<QCPGraph*>(bars->dataPlottable());
    ASSERT_NE(point, nullptr);
    EXPECT_DOUBLE_EQ(point->data()->at(0)->value, 1.25);
    EXPECT_NEAR(point->data()->at(0)->value - bars->data()->at(0).errorMinus, 1.0 / 0.85, 1e-12);
    EXPECT_NEAR(point->data()->at(0)->value + bars->data()->at(0).errorPlus, 1.0 / 0.75, 1e-12);
    EXPECT_GE(chart.plot()->yAxis->range().upper, 1.0 / 0.75);

    // A baseline pinned in the settings gives way to the decision's A while the decision is shown (a verdict against
    // another variant would not be one), and comes back when the decisions go.
    chart.setBaseline(QStringLiteral("vector"));
    chart.rebuildNow();
    EXPECT_EQ(chart.baseline(), QStringLiteral("scalar"));
    EXPECT_NE(errorBarsOf(chart.plot()), nullptr);
    EXPECT_TRUE(textsOf(chart.plot()).join(QLatin1Char('\n')).contains(QStringLiteral("vector faster")));

    chart.setDecisions({});
    chart.rebuildNow();
    EXPECT_EQ(chart.baseline(), QStringLiteral("vector"));
    EXPECT_FALSE(textsOf(chart.plot()).join(QLatin1Char('\n')).contains(QStringLiteral("faster")));
}

TEST(SpeedupChartDecision, AnUnboundedIntervalDrawsNoBarOnThatSide)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    model.addSummary(timedRun("a", "scalar", 10.0));
    model.addSummary(timedRun("b", "vector", 8.0));
    Decision d = fasterDecision();
    d.low = 0.0;
    d.high = INFINITY;
    d.verdict = DecisionVerdict::Undecided;
    d.stopReason = "max repetitions";
    d.rounds = 3;
    chart.setDecisions({d});
    chart.rebuildNow();
    QCPErrorBars* bars = errorBarsOf(chart.plot());
    ASSERT_NE(bars, nullptr);
    EXPECT_EQ(bars->data()->at(0).errorMinus, 0.0);
    EXPECT_EQ(bars->data()->at(0).errorPlus, 0.0);
    EXPECT_TRUE(chart.verdictLines().front().contains(QStringLiteral("undecided (max repetitions)")));
}

QCPItemText* verdictBoxOf(QCustomPlot* plot)
{
    for (int i = 0; i < plot->itemCount(); ++i)
        if (plot->item(i)->objectName() == QLatin1String("decisionVerdicts"))
            return qobject_cast<QCPItemText*>(plot->item(i));
    return nullptr;
}

TEST(SpeedupChartDecision, ASweepOfDecisionsIsSummarisedPerPairOnABoxAboveTheCurves)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    chart.resize(800, 500);
    std::vector<Decision> decisions;
    for (int i = 0; i < 9; ++i) {
        Summary a = timedRun("a" + std::to_string(i), "scalar", 10.0);
        Summary b = timedRun("b" + std::to_string(i), "vector", 8.0);
        a.size = b.size = 1024u << i;
        model.addSummary(a);
        model.addSummary(b);
        Decision d = fasterDecision();
        d.size = a.size;
        d.ratio = 0.7 + 0.01 * i;
        if (i == 8)
            d.verdict = DecisionVerdict::Undecided;
        decisions.push_back(d);
    }
    chart.setDecisions(decisions);
    chart.rebuildNow();

    EXPECT_EQ(chart.verdictLines().size(), 9) << "every decision keeps its own line";
    const QStringList drawn = chart.drawnVerdictLines();
    ASSERT_EQ(drawn.size(), 2) << drawn.join(QLatin1Char('\n')).toStdString();
    EXPECT_EQ(
        drawn.front(), QStringLiteral("vector vs scalar at 9 sizes: 8 faster, 1 undecided; ratio 0.700× to 0.780×"));
    QCPItemText* box = verdictBoxOf(chart.plot());
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(box->text(), drawn.join(QLatin1Char('\n')));
    EXPECT_EQ(box->layer()->name(), QStringLiteral("legend")) << "drawn above the curves";
    EXPECT_EQ(box->brush().style(), Qt::SolidPattern);
    EXPECT_GT(box->brush().color().alpha(), 200) << "the curves under it do not show through";

    // Hovering the box shows every line; elsewhere nothing.
    chart.plot()->replot();
    const QPoint inside = box->position->pixelPosition().toPoint() + QPoint(20, 8);
    const QString tip = chart.toolTipAt(inside);
    EXPECT_EQ(tip, chart.verdictLines().join(QLatin1Char('\n')));
    const QRect axes = chart.plot()->axisRect()->rect();
    EXPECT_TRUE(chart.toolTipAt(axes.bottomRight() - QPoint(5, 5)).isEmpty());

    // A pair decided at one size keeps its own line among the summaries.
    Decision other = fasterDecision();
    other.variantB = "simd";
    decisions.push_back(other);
    chart.setDecisions(decisions);
    chart.rebuildNow();
    ASSERT_EQ(chart.drawnVerdictLines().size(), 3);
    EXPECT_EQ(chart.drawnVerdictLines()[1], chart.verdictLines().back());

    // A few decisions are drawn line by line, as before.
    decisions.resize(SpeedupChart::kVerdictLinesDrawn);
    chart.setDecisions(decisions);
    chart.rebuildNow();
    EXPECT_EQ(chart.drawnVerdictLines(), chart.verdictLines());
}

TEST(MainWindowDecision, TheDecideButtonRunsTheCheckedVariantsInterleavedAndShowsTheVerdict)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    MainWindow window;
    window.setAutosaveDirectory(dir.filePath(QStringLiteral("autosave")));
    window.controller()->setCalibrationEnabled(false);
    window.setWorkload(QStringLiteral("linreg"));
    window.variantPanel()->setCheckedVariants({QStringLiteral("reference")});
    auto* decide = window.variantPanel()->findChild<QPushButton*>(QStringLiteral("decideVariants"));
    ASSERT_NE(decide, nullptr);
    EXPECT_FALSE(decide->isEnabled()) << "one variant: nothing to decide";
    window.variantPanel()->setCheckedVariants({QStringLiteral("reference"), QStringLiteral("cpu_four_sums")});
    EXPECT_TRUE(decide->isEnabled());
    window.datasetPanel()->setSource(DatasetPanel::Source::Generator);
    window.datasetPanel()->setGenerator({{"n", "20000"}, {"seed", "3"}});
    RunSettings s;
    s.sizes = QStringLiteral("20000");
    s.options.timeLimitS = 0.5;
    s.options.maxRepetitions = 30;
    s.options.minRepetitions = 3;
    s.options.flushL2 = false;
    // The decision's A, so the chart draws its interval (settings another test saved may name another baseline).
    s.baseline = QStringLiteral("reference");
    window.runSettingsPanel()->setSettings(s);
    window.show();

    QSignalSpy decisions(window.controller(), &RunController::decisionsReady);
    QSignalSpy finished(&window, &MainWindow::runFinished);
    decide->click();
    ASSERT_TRUE(window.isRunning()) << window.statusText().toStdString();
    ASSERT_TRUE(finished.wait(120000)) << "the decision did not finish";
    ASSERT_EQ(decisions.count(), 1);

    ResultsModel* model = window.resultsModel();
    ASSERT_EQ(model->rowCount(), 2);
    EXPECT_EQ(model->summary(0).repetitions, model->summary(1).repetitions) << "interleaved: one each per round";
    auto* speedup = qobject_cast<SpeedupChart*>(window.chart(QStringLiteral("Speedup")));
    ASSERT_NE(speedup, nullptr);
    ASSERT_EQ(speedup->decisions().size(), 1u);
    EXPECT_EQ(speedup->decisions().front().variantA, "reference");
    EXPECT_EQ(speedup->decisions().front().margin, 0.01);
    speedup->rebuildNow();
    const QString verdict = textsOf(speedup->plot()).join(QLatin1Char('\n'));
    EXPECT_TRUE(verdict.contains(QStringLiteral("cpu_four_sums vs reference:"))) << verdict.toStdString();

    // The JSON export carries the decision beside the summaries, as the CLI's --json does.
    const QString json = dir.filePath(QStringLiteral("decision.json"));
    ASSERT_TRUE(window.exportResults(json));
    const auto saved = readDecisions(json.toStdString());
    ASSERT_EQ(saved.size(), 1u);
    EXPECT_EQ(saved.front().variantB, "cpu_four_sums");
    EXPECT_EQ(readJson(json.toStdString()).size(), 2u);

    // The autosaved workspace and a saved one reopen with the verdict on the speedup chart.
    const QString workspace = dir.filePath(QStringLiteral("decided.ksw"));
    ASSERT_TRUE(window.saveWorkspaceTo(workspace));
    for (const QString& file : {window.autosaveWorkspacePath(), workspace}) {
        MainWindow other;
        other.setAutosaveDirectory(dir.filePath(QStringLiteral("other")));
        QString error;
        ASSERT_TRUE(other.openWorkspaceFrom(file, &error)) << error.toStdString();
        auto* otherSpeedup = qobject_cast<SpeedupChart*>(other.chart(QStringLiteral("Speedup")));
        ASSERT_NE(otherSpeedup, nullptr);
        ASSERT_EQ(otherSpeedup->decisions().size(), 1u) << file.toStdString();
        EXPECT_EQ(otherSpeedup->verdictLines(), speedup->verdictLines());
        otherSpeedup->rebuildNow();
        EXPECT_NE(errorBarsOf(otherSpeedup->plot()), nullptr) << "the interval is drawn again";
    }
    // A workspace without decisions clears the ones shown.
    MainWindow fresh;
    const QString none = dir.filePath(QStringLiteral("none.ksw"));
    ASSERT_TRUE(fresh.saveWorkspaceTo(none));
    ASSERT_TRUE(window.openWorkspaceFrom(none));
    EXPECT_TRUE(speedup->decisions().empty());
}

} // namespace
} // namespace ks::gui
