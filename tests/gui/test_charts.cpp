// Tests of the live charts and workload views: what each draws from a ResultsModel, the alarm colour for results
// over tolerance, log axes, the replot throttle, export to PNG/PDF/SVG and recolouring on a palette change.
#include "compute/workloads/linreg/linreg.h"
#include "data/series2d.h"
#include "gui/charts/correctness_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/sweep_chart.h"
#include "gui/charts/throughput_chart.h"
#include "gui/charts/timeline_chart.h"
#include "gui/loaded_results.h"
#include "gui/results_model.h"
#include "gui/theme.h"
#include "gui/views/linreg_view.h"
#include "gui/views/result_values_view.h"
#include "gui/views/workload_view.h"

#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <memory>
#include <qcustomplot.h>

using namespace ks;
using namespace ks::gui;

namespace {

/// A finished, passed run with `reps` repetitions around `medianMs` and a delta well within tolerance.
Summary makeRun(const std::string& runId, const std::string& variant, std::uint64_t size, double medianMs, int reps = 5)
{
    Summary s;
    s.runId = runId;
    s.workload = "linreg";
    s.variant = variant;
    s.variantName = variant;
    s.backend = "cpu";
    s.size = size;
    s.outcome = Outcome::Passed;
    s.repetitions = reps;
    s.medianMs = medianMs;
    s.meanMs = medianMs;
    s.minMs = medianMs;
    s.maxMs = medianMs;
    for (int i = 0; i < reps; ++i)
        s.samplesMs.push_back(medianMs);
    s.delta.kind = "max_rel_err";
    s.delta.value = 1e-15;
    s.delta.tolerance = 1e-12;
    s.delta.computed = true;
    return s;
}

void makeOverTolerance(Summary& s, double value = 1e-3)
{
    s.delta.value = value;
    s.outcome = Outcome::Incorrect;
}

Sample makeSample(const std::string& runId, const std::string& variant, int repetition, double ms)
{
    Sample sample;
    sample.runId = runId;
    sample.workload = "linreg";
    sample.variant = variant;
    sample.size = 1024;
    sample.repetition = repetition;
    sample.ms = ms;
    return sample;
}

QCPGraph* graphNamed(QCustomPlot* plot, const QString& prefix)
{
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name().startsWith(prefix))
            return plot->graph(i);
    return nullptr;
}

template <class Item> std::vector<Item*> itemsOf(QCustomPlot* plot)
{
    std::vector<Item*> out;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* item = qobject_cast<Item*>(plot->item(i)))
            out.push_back(item);
    return out;
}

QStringList texts(QCustomPlot* plot)
{
    QStringList out;
    for (auto* text : itemsOf<QCPItemText>(plot))
        out << text->text();
    return out;
}

std::vector<QCPBars*> barsOf(QCustomPlot* plot)
{
    std::vector<QCPBars*> out;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i)))
            out.push_back(bars);
    return out;
}

bool sameRgb(const QColor& a, const QColor& b)
{
    return a.rgb() == b.rgb();
}

bool isLog(QCPAxis* axis)
{
    return axis->scaleType() == QCPAxis::stLogarithmic
        && !qSharedPointerDynamicCast<QCPAxisTickerLog>(axis->ticker()).isNull();
}

QByteArray head(const QString& path, int bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.read(bytes);
}

} // namespace

// ---------------------------------------------------------------------------------------------------- timeline

TEST(TimelineChart, ShowsEveryRepetitionOfEachVariantsLatestRunWithMedianAndBand)
{
    ResultsModel model;
    TimelineChart chart(&model);
    for (int i = 0; i < 5; ++i)
        model.addSample(makeSample("a-old", "a", i, 9.0));
    const double latest[] = {3.0, 1.0, 2.0};
    for (int i = 0; i < 3; ++i)
        model.addSample(makeSample("a-new", "a", i, latest[i]));
    for (int i = 0; i < 4; ++i)
        model.addSample(makeSample("b-1", "b", i, 5.0 + i));
    chart.rebuildNow();

    // Per variant: samples, running median, band lower and upper edge, each one point per repetition.
    EXPECT_EQ(chart.pointCount(), 4 * (3 + 4));
    QCPGraph* samples = graphNamed(chart.plot(), QStringLiteral("a · "));
    ASSERT_NE(samples, nullptr);
    ASSERT_EQ(samples->data()->size(), 3);
    EXPECT_DOUBLE_EQ(samples->data()->at(1)->value, 1.0);
    EXPECT_EQ(samples->lineStyle(), QCPGraph::lsNone);

    QCPGraph* median = graphNamed(chart.plot(), QStringLiteral("a median"));
    ASSERT_NE(median, nullptr);
    ASSERT_EQ(median->data()->size(), 3);
    EXPECT_DOUBLE_EQ(median->data()->at(0)->value, 3.0); // {3}
    EXPECT_DOUBLE_EQ(median->data()->at(1)->value, 2.0); // {3, 1}
    EXPECT_DOUBLE_EQ(median->data()->at(2)->value, 2.0); // {3, 1, 2}
    EXPECT_TRUE(sameRgb(median->pen().color(), seriesColor(model.variantIndex("a"), false)));

    // The band is a channel fill between two graphs around the median, translucent in the variant's colour.
    int bands = 0;
    for (int i = 0; i < chart.plot()->graphCount(); ++i) {
        QCPGraph* g = chart.plot()->graph(i);
        if (g->channelFillGraph()) {
            ++bands;
            EXPECT_LT(g->brush().color().alpha(), 255);
            EXPECT_GT(g->data()->at(1)->value, g->channelFillGraph()->data()->at(1)->value);
        }
    }
    EXPECT_EQ(bands, 2);
    EXPECT_EQ(chart.plot()->xAxis->label(), QStringLiteral("repetition"));
    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("time (ms)"));
    EXPECT_TRUE(chart.plot()->legend->visible());
    EXPECT_EQ(chart.title(), QStringLiteral("Timeline"));
}

TEST(TimelineChart, TheBandIsTheInterquartileRangeAndNeverGoesBelowZero)
{
    ResultsModel model;
    TimelineChart chart(&model);
    // One slow outlier among fast repetitions: a ± stdev band around the median would reach far below 0 ms.
    const double times[] = {1.0, 1.2, 0.8, 100.0, 1.0, 1.1, 0.9};
    for (int i = 0; i < 7; ++i)
        model.addSample(makeSample("a-1", "a", i, times[i]));
    chart.rebuildNow();
    QCPGraph* upper = nullptr;
    for (int i = 0; i < chart.plot()->graphCount(); ++i)
        if (chart.plot()->graph(i)->channelFillGraph())
            upper = chart.plot()->graph(i);
    ASSERT_NE(upper, nullptr);
    QCPGraph* lower = upper->channelFillGraph();
    for (int i = 0; i < 7; ++i) {
        EXPECT_GE(lower->data()->at(i)->value, 0.0) << i;
        EXPECT_LE(lower->data()->at(i)->value, upper->data()->at(i)->value) << i;
    }
    // All seven sorted: 0.8 0.9 1.0 1.0 1.1 1.2 100; the quartiles at positions 1.5 and 4.5.
    EXPECT_DOUBLE_EQ(lower->data()->at(6)->value, 0.95);
    EXPECT_DOUBLE_EQ(upper->data()->at(6)->value, 1.15);
    EXPECT_NE(graphNamed(chart.plot(), QStringLiteral("running median, interquartile band")), nullptr);
}

TEST(TimelineChart, FinishedRunOverToleranceGetsADashedMedianInItsOwnColour)
{
    ResultsModel model;
    TimelineChart chart(&model);
    Summary s = makeRun("a-1", "a", 1024, 2.0, 6);
    makeOverTolerance(s);
    model.addSummary(s);
    chart.rebuildNow();
    QCPGraph* median = graphNamed(chart.plot(), QStringLiteral("a median ✗ over tolerance"));
    ASSERT_NE(median, nullptr);
    EXPECT_TRUE(sameRgb(median->pen().color(), seriesColor(model.variantIndex("a"), false)));
    EXPECT_EQ(median->pen().style(), Qt::DashLine);
    EXPECT_EQ(chart.pointCount(), 4 * 6);
}

TEST(TimelineChart, OverlaysTheClockOnASecondAxisAndRingsThrottledRepetitions)
{
    ResultsModel model;
    TimelineChart chart(&model);
    // Streamed live: repetition 2's reading failed (no clock), repetition 3 was throttled by the power cap.
    const double mhz[] = {1980, 1965, 0, 1755};
    for (int i = 0; i < 4; ++i) {
        Sample sample = makeSample("a-1", "a", i, 1.0 + 0.1 * i);
        if (mhz[i] > 0) {
            ClockSample clock;
            clock.smClockMHz = mhz[i];
            clock.throttleReasons = i == 3 ? kThrottleSwPowerCap : kThrottleGpuIdle;
            clock.throttled = isThrottled(clock.throttleReasons);
            sample.clock = clock;
        }
        model.addSample(sample);
    }
    const Summary& live = model.summary(0);
    EXPECT_EQ(live.clockMHz, (std::vector<double> {1980, 1965, 0, 1755}));
    EXPECT_EQ(live.throttled, (std::vector<bool> {false, false, false, true}));
    chart.rebuildNow();

    QCPGraph* clock = graphNamed(chart.plot(), QStringLiteral("a clock (MHz)"));
    ASSERT_NE(clock, nullptr);
    EXPECT_EQ(clock->valueAxis(), chart.plot()->yAxis2);
    ASSERT_EQ(clock->data()->size(), 3); // the failed reading is left out, not drawn at 0 MHz
    EXPECT_DOUBLE_EQ(clock->data()->at(2)->key, 3.0);
    EXPECT_DOUBLE_EQ(clock->data()->at(2)->value, 1755.0);
    EXPECT_LE(clock->pen().widthF(), 1.0);
    EXPECT_TRUE(chart.plot()->yAxis2->visible());
    EXPECT_EQ(chart.plot()->yAxis2->label(), QStringLiteral("clock (MHz)"));
    EXPECT_TRUE(chart.plot()->yAxis2->range().contains(1755.0));
    EXPECT_TRUE(chart.plot()->yAxis2->range().contains(1980.0));

    // The throttled repetition keeps its time and gets a red ring on it.
    QCPGraph* rings = graphNamed(chart.plot(), QStringLiteral("a throttled (1)"));
    ASSERT_NE(rings, nullptr);
    ASSERT_EQ(rings->data()->size(), 1);
    EXPECT_DOUBLE_EQ(rings->data()->at(0)->key, 3.0);
    EXPECT_DOUBLE_EQ(rings->data()->at(0)->value, 1.3);
    EXPECT_EQ(rings->scatterStyle().shape(), QCPScatterStyle::ssCircle);
    EXPECT_TRUE(sameRgb(rings->scatterStyle().pen().color(), alarmColor()));
    QCPGraph* samples = graphNamed(chart.plot(), QStringLiteral("a · "));
    ASSERT_NE(samples, nullptr);
    EXPECT_EQ(samples->data()->size(), 4);

    // The context action turns the clock off (the rings stay: they are about the times) and back on.
    ASSERT_NE(chart.clockOverlayAction(), nullptr);
    EXPECT_TRUE(chart.plot()->actions().contains(chart.clockOverlayAction()));
    chart.clockOverlayAction()->trigger();
    EXPECT_FALSE(chart.clockOverlay());
    chart.rebuildNow();
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("a clock")), nullptr);
    EXPECT_FALSE(chart.plot()->yAxis2->visible());
    EXPECT_NE(graphNamed(chart.plot(), QStringLiteral("a throttled")), nullptr);
    chart.setClockOverlay(true);
    chart.rebuildNow();
    EXPECT_NE(graphNamed(chart.plot(), QStringLiteral("a clock")), nullptr);
}

TEST(TimelineChart, RunsWithoutClocksShowNoClockAxis)
{
    ResultsModel model;
    TimelineChart chart(&model);
    for (int i = 0; i < 3; ++i)
        model.addSample(makeSample("a-1", "a", i, 1.0));
    chart.rebuildNow();
    EXPECT_FALSE(chart.plot()->yAxis2->visible());
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("a clock")), nullptr);
    EXPECT_EQ(chart.pointCount(), 4 * 3);
}

TEST(TimelineChart, ResultsWithoutRepetitionTimesSayWhyTheTimelineIsEmpty)
{
    // A CSV keeps each run's summary, not its repetitions: the timeline has nothing to draw and says so.
    ResultsModel model;
    TimelineChart chart(&model);
    Summary fromCsv = makeRun("c-1", "a", 1000, 2.0);
    fromCsv.samplesMs.clear();
    model.addSummary(fromCsv);
    chart.rebuildNow();
    EXPECT_EQ(chart.pointCount(), 0);
    bool said = false;
    for (int i = 0; i < chart.plot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(chart.plot()->item(i)))
            said = said || text->text().contains(QStringLiteral("no repetition times"));
    EXPECT_TRUE(said);

    // With repetitions to draw, no such note.
    model.addSummary(makeRun("c-2", "b", 1000, 2.0));
    chart.rebuildNow();
    for (int i = 0; i < chart.plot()->itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(chart.plot()->item(i))) {
            EXPECT_FALSE(text->text().contains(QStringLiteral("no repetition times")));
        }
    }
}

TEST(ChartThrottle, ReplotsAtMostAboutThirtyTimesASecond)
{
    ResultsModel model;
    TimelineChart chart(&model);
    chart.resize(640, 400);
    // Hidden charts defer their rebuilds until shown, so the throttle is measured on a visible one.
    chart.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    QTest::qWait(2 * ChartView::kMinReplotIntervalMs);
    const int before = chart.replotCount();
    QElapsedTimer elapsed;
    elapsed.start();
    for (int i = 0; i < 1000; ++i)
        model.addSample(makeSample("run", "a", i, 1.0 + (i % 7) * 0.1));
    const qint64 fed = elapsed.elapsed();
    while (elapsed.elapsed() < fed + 200)
        QTest::qWait(5);
    const qint64 ms = elapsed.elapsed();
    const int replots = chart.replotCount() - before;
    EXPECT_GE(replots, 1);
    EXPECT_LE(replots, ms / ChartView::kMinReplotIntervalMs + 2);
    EXPECT_EQ(chart.pointCount(), 4 * 1000); // the coalesced rebuild saw every sample
}

// ---------------------------------------------------------------------------------------------------- sweep

TEST(SweepChart, OneLogLogLinePerVariantOverFinishedTimedRuns)
{
    ResultsModel model;
    SweepChart chart(&model);
    model.addSummary(makeRun("a1", "a", 1024, 1.0));
    model.addSummary(makeRun("a2", "a", 2048, 2.0));
    model.addSummary(makeRun("a3", "a", 4096, 4.0));
    model.addSummary(makeRun("b1", "b", 1024, 0.5));
    model.addSummary(makeRun("b2", "b", 4096, 1.5));
    Summary skipped = makeRun("b3", "b", 8192, 0.0, 0);
    skipped.outcome = Outcome::Skipped;
    model.addSummary(skipped);
    model.addSample(makeSample("a4", "a", 0, 7.0)); // still running: not on the sweep yet
    chart.rebuildNow();

    EXPECT_EQ(chart.pointCount(), 5);
    EXPECT_TRUE(isLog(chart.plot()->xAxis));
    EXPECT_TRUE(isLog(chart.plot()->yAxis));
    EXPECT_EQ(chart.plot()->xAxis->label(), QStringLiteral("size (elements)"));
    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("median time (ms)"));
    QCPGraph* a = graphNamed(chart.plot(), QStringLiteral("a"));
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->data()->size(), 3);
    EXPECT_DOUBLE_EQ(a->data()->at(2)->key, 4096.0);
    EXPECT_DOUBLE_EQ(a->data()->at(2)->value, 4.0);
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("a ✗ over tolerance")), nullptr);
}

TEST(SweepChart, PointsOverToleranceGetACrossInTheVariantsColour)
{
    ResultsModel model;
    SweepChart chart(&model);
    model.addSummary(makeRun("a1", "a", 1024, 1.0));
    Summary bad = makeRun("a2", "a", 2048, 2.0);
    makeOverTolerance(bad);
    model.addSummary(bad);
    chart.rebuildNow();
    QCPGraph* alarms = graphNamed(chart.plot(), QStringLiteral("a ✗ over tolerance"));
    ASSERT_NE(alarms, nullptr);
    ASSERT_EQ(alarms->data()->size(), 1);
    EXPECT_DOUBLE_EQ(alarms->data()->at(0)->key, 2048.0);
    EXPECT_TRUE(sameRgb(alarms->scatterStyle().pen().color(), seriesColor(model.variantIndex("a"), false)));
    EXPECT_EQ(alarms->scatterStyle().shape(), QCPScatterStyle::ssCross);
    EXPECT_EQ(chart.pointCount(), 2 + 1);
}

namespace {
/// A row as File → Open Results adds it: loaded from `file`.
Summary loadedRun(const QString& file, const std::string& variant, std::uint64_t size, double medianMs)
{
    Summary s = makeRun(variant + std::to_string(size), variant, size, medianMs);
    s.runId = loadedRunId(file, s.runId, 0);
    return s;
}

int legendEntriesNamed(QCustomPlot* plot, const QString& prefix)
{
    int count = 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name().startsWith(prefix) && plot->legend->hasItemWithPlottable(plot->graph(i)))
            ++count;
    return count;
}

int pointsInGraphsNamed(QCustomPlot* plot, const QString& prefix)
{
    int count = 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name().startsWith(prefix))
            count += plot->graph(i)->data()->size();
    return count;
}
} // namespace

TEST(SweepChart, CacheResidentPointsAreMarkedAndExplained)
{
    ResultsModel model;
    SweepChart chart(&model);
    chart.resize(800, 500);
    chart.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    Summary inCache = makeRun("a1", "a", 1024, 0.01);
    inCache.bytes = 16.0 * 1024;
    inCache.cacheBytes = 32u * 1024 * 1024;
    inCache.cacheResident = true;
    Summary alsoInCache = makeRun("b1", "b", 1024, 0.02);
    alsoInCache.bytes = 16.0 * 1024;
    alsoInCache.cacheBytes = 32u * 1024 * 1024;
    alsoInCache.cacheResident = true;
    Summary spills = makeRun("a2", "a", 1u << 24, 40.0);
    spills.cacheResident = false;
    model.addSummary(inCache);
    model.addSummary(alsoInCache);
    model.addSummary(spills);
    model.addSummary(makeRun("a3", "a", 1u << 20, 2.0)); // unknown residency: an ordinary point
    chart.rebuildNow();

    ASSERT_EQ(chart.residentPoints().size(), 2u);
    const auto& point = chart.residentPoints()[0];
    EXPECT_DOUBLE_EQ(point.key, 1024.0);
    EXPECT_DOUBLE_EQ(point.value, 0.01);
    EXPECT_TRUE(point.toolTip.contains(QStringLiteral("the working set (16 KiB) fits in the CPU's last-level cache "
                                                      "(32 MiB)")))
        << point.toolTip.toStdString();
    EXPECT_TRUE(point.toolTip.contains(QStringLiteral("may exceed the DRAM bandwidth ceiling")));

    // A hollow crossed mark in the variant's colour over each resident point, and the legend says so once.
    QCustomPlot* p = chart.plot();
    EXPECT_EQ(pointsInGraphsNamed(p, QStringLiteral("fits in cache")), 2);
    EXPECT_EQ(legendEntriesNamed(p, QStringLiteral("fits in cache")), 1);
    QCPGraph* a = graphNamed(p, QStringLiteral("a"));
    ASSERT_NE(a, nullptr);
    bool markedInA = false;
    for (int i = 0; i < p->graphCount(); ++i) {
        const QCPScatterStyle style = p->graph(i)->scatterStyle();
        if (p->graph(i)->name() == QStringLiteral("fits in cache") && p->graph(i)->data()->size() == 1
            && p->graph(i)->data()->at(0)->value == 0.01) {
            markedInA = true;
            EXPECT_EQ(style.shape(), QCPScatterStyle::ssCrossCircle);
            EXPECT_TRUE(sameRgb(style.pen().color(), a->pen().color()));
            EXPECT_FALSE(sameRgb(style.brush().color(), a->pen().color())); // hollow
        }
    }
    EXPECT_TRUE(markedInA);

    // The pointer on the mark gets the reason; away from every mark, nothing.
    const QPoint at(
        static_cast<int>(p->xAxis->coordToPixel(point.key)), static_cast<int>(p->yAxis->coordToPixel(0.01)));
    EXPECT_EQ(chart.toolTipAt(at + QPoint(2, 1)), point.toolTip);
    EXPECT_TRUE(chart
                    .toolTipAt(QPoint(static_cast<int>(p->xAxis->coordToPixel(1u << 20)),
                        static_cast<int>(p->yAxis->coordToPixel(2.0))))
                    .isEmpty());

    // No resident run: no marks and no legend entry.
    model.clear();
    model.addSummary(spills);
    chart.rebuildNow();
    EXPECT_TRUE(chart.residentPoints().empty());
    EXPECT_EQ(graphNamed(p, QStringLiteral("fits in cache")), nullptr);
}

TEST(SweepChart, APinnedBaselineFileIsOverlaidWhereItMatchesAPlottedRun)
{
    ResultsModel model;
    SweepChart chart(&model);
    const QString file = QStringLiteral("/data/server/base.json");
    model.addSummary(makeRun("a1", "a", 1024, 1.0));
    model.addSummary(makeRun("a2", "a", 2048, 2.0));
    model.addSummary(makeRun("b1", "b", 1024, 0.5));
    model.addSummary(loadedRun(file, "a", 1024, 1.5));
    model.addSummary(loadedRun(file, "a", 2048, 3.0));
    model.addSummary(loadedRun(file, "a", 4096, 6.0)); // no run of ours at 4096: not drawn
    Summary otherParams = loadedRun(file, "b", 1024, 0.7);
    otherParams.params = ParamSet::fromString("precision=f32");
    model.addSummary(otherParams); // another parameter set: not the same run
    chart.rebuildNow();
    // Unpinned, the file's rows are runs like any other (the latest at a size wins).
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("baseline:")), nullptr);
    EXPECT_DOUBLE_EQ(graphNamed(chart.plot(), QStringLiteral("a"))->data()->at(0)->value, 1.5);

    chart.setBaselineSource(file);
    chart.rebuildNow();
    QCustomPlot* p = chart.plot();
    QCPGraph* overlay = graphNamed(p, QStringLiteral("baseline: base.json · a"));
    ASSERT_NE(overlay, nullptr);
    ASSERT_EQ(overlay->data()->size(), 2);
    EXPECT_DOUBLE_EQ(overlay->data()->at(0)->key, 1024.0);
    EXPECT_DOUBLE_EQ(overlay->data()->at(0)->value, 1.5);
    EXPECT_DOUBLE_EQ(overlay->data()->at(1)->key, 2048.0);
    EXPECT_DOUBLE_EQ(overlay->data()->at(1)->value, 3.0);
    EXPECT_EQ(overlay->pen().style(), Qt::DashLine);
    EXPECT_EQ(pointsInGraphsNamed(p, QStringLiteral("baseline:")), 2);
    EXPECT_EQ(legendEntriesNamed(p, QStringLiteral("baseline:")), 1);
    ASSERT_EQ(chart.baselinePoints().size(), 2u);
    EXPECT_EQ(chart.baselinePoints()[1].toolTip, QStringLiteral("baseline: base.json: a at 2048: median 3 ms"));
    // The pinned file's rows left the variants' own lines.
    QCPGraph* a = graphNamed(p, QStringLiteral("a"));
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->data()->size(), 2);
    EXPECT_DOUBLE_EQ(a->data()->at(0)->value, 1.0);
    EXPECT_DOUBLE_EQ(graphNamed(p, QStringLiteral("b"))->data()->at(0)->value, 0.5);
    EXPECT_TRUE(sameRgb(overlay->pen().color(), a->pen().color())); // the variant's colour, dashed

    chart.setBaselineSource({});
    chart.rebuildNow();
    EXPECT_EQ(graphNamed(p, QStringLiteral("baseline:")), nullptr);
    EXPECT_TRUE(chart.baselinePoints().empty());
}

TEST(SweepChart, ABaselineThatMatchesNothingSaysSo)
{
    ResultsModel model;
    SweepChart chart(&model);
    const QString file = QStringLiteral("/tmp/only.csv");
    model.addSummary(loadedRun(file, "a", 1024, 1.5));
    chart.setBaselineSource(file);
    chart.rebuildNow();
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("baseline:")), nullptr);
    EXPECT_TRUE(texts(chart.plot()).join('|').contains(QStringLiteral("baseline: only.csv: no plotted run")))
        << texts(chart.plot()).join('|').toStdString();
}

TEST(SpeedupChart, APinnedBaselineFileOverlaysItsOwnSpeedups)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    const QString file = QStringLiteral("/data/base.csv");
    model.addSummary(makeRun("r1", "ref", 1024, 10.0));
    model.addSummary(makeRun("f1", "fast", 1024, 2.0));
    model.addSummary(makeRun("r2", "ref", 2048, 20.0));
    model.addSummary(makeRun("f2", "fast", 2048, 4.0));
    model.addSummary(loadedRun(file, "ref", 1024, 12.0));
    model.addSummary(loadedRun(file, "fast", 1024, 4.0));
    model.addSummary(loadedRun(file, "fast", 2048, 5.0)); // the file has no ref at 2048: no speedup there
    chart.setBaseline(QStringLiteral("ref"));
    chart.setBaselineSource(file);
    chart.rebuildNow();

    QCPGraph* fast = graphNamed(chart.plot(), QStringLiteral("fast"));
    ASSERT_NE(fast, nullptr);
    EXPECT_DOUBLE_EQ(fast->data()->at(0)->value, 5.0); // ours, not the file's
    QCPGraph* overlay = graphNamed(chart.plot(), QStringLiteral("baseline: base.csv · fast"));
    ASSERT_NE(overlay, nullptr);
    ASSERT_EQ(overlay->data()->size(), 1);
    EXPECT_DOUBLE_EQ(overlay->data()->at(0)->key, 1024.0);
    EXPECT_DOUBLE_EQ(overlay->data()->at(0)->value, 3.0);
    EXPECT_EQ(overlay->pen().style(), Qt::DashLine);

    chart.setBaselineSource({});
    chart.rebuildNow();
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("baseline:")), nullptr);
}

// ---------------------------------------------------------------------------------------------------- throughput

TEST(ThroughputChart, ManyBarsAreLabelledWithTheShareAloneSoTheLabelsDoNotRunTogether)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    for (int k = 0; k < 6; ++k) {
        Summary s = makeRun("r" + std::to_string(k), "v" + std::to_string(k), 4096, 1.0);
        s.bytes = 8.0 * static_cast<double>(s.size);
        s.gbPerS = 100.0 * (k + 1);
        s.peakKind = "read_bandwidth";
        s.peakValue = 4000.0;
        s.pctOfPeak = 2.5 * (k + 1);
        model.addSummary(s);
    }
    chart.rebuildNow();
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.contains(QStringLiteral("2.5%"))) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("15.0%"))) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.filter(QStringLiteral("% of GB/s ceiling")).isEmpty()) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("measured read ceiling 4000 GB/s"))) << labels.join('|').toStdString();
}

TEST(ThroughputChart, BarsOfTheLatestSizeAgainstTheCeiling)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    const auto withRate = [](Summary s, double gbPerS, double pct) {
        s.bytes = 8.0 * static_cast<double>(s.size);
        s.gbPerS = gbPerS;
        s.peakKind = "read_bandwidth";
        s.peakValue = 4530.0;
        s.pctOfPeak = pct;
        return s;
    };
    model.addSummary(withRate(makeRun("a1", "a", 1024, 1.0), 100.0, 2.2));
    model.addSummary(withRate(makeRun("b1", "b", 1024, 1.0), 200.0, 4.4));
    model.addSummary(withRate(makeRun("a2", "a", 4096, 1.0), 3000.0, 66.2));
    Summary bad = withRate(makeRun("b2", "b", 4096, 1.0), 4000.0, 88.3);
    makeOverTolerance(bad);
    model.addSummary(bad);
    model.addSummary(withRate(makeRun("c2", "c", 4096, 1.0), 1000.0, 22.1));
    chart.rebuildNow();

    EXPECT_EQ(chart.shownSize(), 4096u);
    EXPECT_EQ(chart.pointCount(), 3);
    const auto bars = barsOf(chart.plot());
    ASSERT_EQ(bars.size(), 3u);
    for (QCPBars* b : bars) {
        // Over tolerance keeps the variant's colour, pale and outlined in dashes.
        const bool isBad = b->name().startsWith(QLatin1String("b"));
        const QString variant = b->name().section(QLatin1Char(' '), 0, 0);
        EXPECT_TRUE(sameRgb(b->brush().color(), seriesColor(model.variantIndex(variant), false)))
            << b->name().toStdString();
        EXPECT_EQ(b->pen().style() == Qt::DashLine, isBad) << b->name().toStdString();
        EXPECT_EQ(b->name().endsWith(QStringLiteral("✗ over tolerance")), isBad) << b->name().toStdString();
    }
    EXPECT_TRUE(chart.plot()->yAxis->label().contains(QStringLiteral("GB/s")));

    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(chart.plot()->xAxis->ticker());
    ASSERT_FALSE(ticker.isNull());
    EXPECT_EQ(ticker->ticks().values(), (QList<QString> {"a", "b", "c"}));

    const auto lines = itemsOf<QCPItemStraightLine>(chart.plot());
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_DOUBLE_EQ(lines[0]->point1->coords().y(), 4530.0);
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.contains(QStringLiteral("measured read ceiling 4530 GB/s"))) << labels.join('|').toStdString();
    EXPECT_EQ(labels.filter(QStringLiteral("% of GB/s ceiling")).size(), 3);
    EXPECT_TRUE(labels.contains(QStringLiteral("66.2% of GB/s ceiling")));
    EXPECT_GE(chart.plot()->yAxis->range().upper, 4530.0);

    chart.setSize(1024);
    chart.rebuildNow();
    EXPECT_EQ(chart.shownSize(), 1024u);
    EXPECT_EQ(chart.pointCount(), 2);
}

namespace {
/// A run of an sdh-like workload: few bytes, many flops, an FP32 FMA roof (sdh/register.cpp's cost model).
Summary flopRun(const std::string& runId, const std::string& variant, double gflopPerS)
{
    Summary s = makeRun(runId, variant, 1 << 16, 1.0);
    const double n = static_cast<double>(s.size);
    const double pairs = n * (n - 1.0) / 2.0;
    const double seconds = s.medianMs * 1e-3;
    s.bytes = 24.0 * n;
    s.gbPerS = s.bytes / seconds / 1e9;
    s.flops = gflopPerS * 1e9 * seconds;
    s.gflopPerS = gflopPerS;
    s.items = pairs;
    s.itemName = "pairs";
    s.itemsPerS = pairs / seconds;
    s.peakKind = "fp32_fma";
    s.peakValue = 60000.0;
    s.pctOfPeak = 100.0 * s.gflopPerS / s.peakValue;
    return s;
}

/// A run against a read-bandwidth roof at `gbPerS`, `l2Bytes` of L2 on a GPU.
Summary bandwidthRun(const std::string& runId, const std::string& variant, double gbPerS, double peak)
{
    Summary s = makeRun(runId, variant, 1 << 14, 1.0);
    s.bytes = 8.0 * static_cast<double>(s.size);
    s.gbPerS = gbPerS;
    s.flops = 2.0 * static_cast<double>(s.size);
    s.gflopPerS = s.flops / (s.medianMs * 1e6);
    s.peakKind = "read_bandwidth";
    s.peakValue = peak;
    s.pctOfPeak = 100.0 * gbPerS / peak;
    s.device.kind = "cuda";
    s.device.l2Bytes = 50u << 20;
    return s;
}
} // namespace

TEST(ThroughputChart, AFlopRoofDrawsGflopsAgainstTheFlopCeiling)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    chart.rebuildNow();
    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("throughput"));
    const std::vector<Summary> runs {flopRun("a1", "a", 18000.0), flopRun("b1", "b", 4500.0)};
    for (const Summary& s : runs)
        model.addSummary(s);
    chart.rebuildNow();

    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("throughput (GFLOP/s)"));
    const auto bars = barsOf(chart.plot());
    ASSERT_EQ(bars.size(), 2u);
    ASSERT_EQ(chart.bars().size(), 2u);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        EXPECT_DOUBLE_EQ(bars[i]->data()->at(0)->value, runs[i].gflopPerS);
        EXPECT_NEAR(chart.bars()[i].pctOfCeiling, 100.0 * runs[i].gflopPerS / runs[i].peakValue, 1e-9);
        EXPECT_NEAR(chart.bars()[i].pctOfCeiling, runs[i].pctOfPeak, 1e-9);
        EXPECT_FALSE(chart.bars()[i].aboveCeiling);
    }

    const auto lines = itemsOf<QCPItemStraightLine>(chart.plot());
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_DOUBLE_EQ(lines[0]->point1->coords().y(), 60000.0);
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.contains(QStringLiteral("measured FP32 FMA ceiling 60000 GFLOP/s")))
        << labels.join('|').toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("30.0% of GFLOP/s ceiling"))) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("7.5% of GFLOP/s ceiling"))) << labels.join('|').toStdString();
    // Nothing on the chart speaks of bytes: the few GB/s an sdh run moves are not what its % is of.
    EXPECT_TRUE(labels.filter(QStringLiteral("GB/s")).isEmpty()) << labels.join('|').toStdString();
}

TEST(ThroughputChart, ABandwidthRoofDrawsGbPerSecond)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    const Summary s = bandwidthRun("a1", "a", 900.0, 3000.0);
    model.addSummary(s);
    chart.rebuildNow();

    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("throughput (GB/s)"));
    const auto bars = barsOf(chart.plot());
    ASSERT_EQ(bars.size(), 1u);
    EXPECT_DOUBLE_EQ(bars[0]->data()->at(0)->value, 900.0);
    EXPECT_EQ(bars[0]->brush().style(), Qt::SolidPattern);
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.contains(QStringLiteral("measured read ceiling 3000 GB/s"))) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("30.0% of GB/s ceiling"))) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.filter(QStringLiteral("FLOP")).isEmpty()) << labels.join('|').toStdString();
}

TEST(ThroughputChart, AboveTheCeilingIsHatchedAndExplained)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    chart.resize(640, 400);
    chart.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    model.addSummary(bandwidthRun("a1", "a", 1270.0, 1000.0));
    model.addSummary(bandwidthRun("b1", "b", 500.0, 1000.0));
    // Resident below the ceiling: not hatched, but starred as in the table, with the reason in its tooltip.
    Summary resident = bandwidthRun("c1", "c", 400.0, 1000.0);
    resident.cacheResident = true;
    resident.cacheBytes = 50u * 1024 * 1024;
    model.addSummary(resident);
    chart.rebuildNow();

    const auto bars = barsOf(chart.plot());
    ASSERT_EQ(bars.size(), 3u);
    ASSERT_EQ(chart.bars().size(), 3u);
    EXPECT_FALSE(chart.bars()[2].aboveCeiling);
    EXPECT_EQ(bars[2]->brush().style(), Qt::SolidPattern);
    EXPECT_TRUE(texts(chart.plot()).contains(QStringLiteral("40.0%* of GB/s ceiling")))
        << texts(chart.plot()).join('|').toStdString();
    EXPECT_TRUE(chart.bars()[2].toolTip.contains(QStringLiteral("fits in the last-level cache (50 MiB)")))
        << chart.bars()[2].toolTip.toStdString();
    const ThroughputChart::Bar& above = chart.bars()[0];
    const ThroughputChart::Bar& below = chart.bars()[1];
    EXPECT_TRUE(above.aboveCeiling);
    EXPECT_NEAR(above.pctOfCeiling, 127.0, 1e-9);
    EXPECT_FALSE(below.aboveCeiling);
    EXPECT_EQ(bars[0]->brush().style(), Qt::BDiagPattern);
    EXPECT_GE(bars[0]->pen().widthF(), 2.5);
    EXPECT_EQ(bars[1]->brush().style(), Qt::SolidPattern);
    EXPECT_TRUE(texts(chart.plot()).contains(QStringLiteral("127.0% of GB/s ceiling\nabove ceiling: in cache?")))
        << texts(chart.plot()).join('|').toStdString();

    EXPECT_TRUE(above.toolTip.contains(QStringLiteral("likely fits in the GPU's L2 cache (50 MiB)")))
        << above.toolTip.toStdString();
    EXPECT_TRUE(above.toolTip.contains(QStringLiteral("DRAM bandwidth ceiling does not bound")));
    EXPECT_FALSE(below.toolTip.contains(QStringLiteral("cache")));

    // The pointer over the bar, and over its label just above it, gets the bar's tooltip; beside the bars, none.
    QCustomPlot* p = chart.plot();
    const int x = static_cast<int>(p->xAxis->coordToPixel(above.key));
    EXPECT_EQ(chart.toolTipAt(QPoint(x, static_cast<int>(p->yAxis->coordToPixel(above.value / 2.0)))), above.toolTip);
    EXPECT_EQ(chart.toolTipAt(QPoint(x, static_cast<int>(p->yAxis->coordToPixel(above.value)) - 10)), above.toolTip);
    const int between = static_cast<int>(p->xAxis->coordToPixel((above.key + below.key) / 2.0));
    EXPECT_TRUE(chart.toolTipAt(QPoint(between, static_cast<int>(p->yAxis->coordToPixel(100.0)))).isEmpty());
}

TEST(ThroughputChart, AFlopRoofWithoutFlopsShowsTheItemRateWithoutAPercent)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    Summary s = makeRun("a1", "a", 1 << 16, 1.0);
    s.items = 2e6;
    s.itemName = "pairs";
    s.itemsPerS = 2e9;
    s.peakKind = "fp32_fma";
    s.peakValue = 60000.0;
    s.pctOfPeak = 12.0;
    model.addSummary(s);
    chart.rebuildNow();
    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("throughput (G pairs/s)"));
    const auto bars = barsOf(chart.plot());
    ASSERT_EQ(bars.size(), 1u);
    EXPECT_DOUBLE_EQ(bars[0]->data()->at(0)->value, 2.0);
    // A FLOP ceiling is neither drawn against a rate of pairs nor its % written over one.
    EXPECT_TRUE(itemsOf<QCPItemStraightLine>(chart.plot()).empty());
    EXPECT_TRUE(texts(chart.plot()).filter(QStringLiteral("ceiling")).isEmpty());
}

TEST(ThroughputChart, MixedRoofsAreSaidNotMixed)
{
    ResultsModel model;
    ThroughputChart chart(&model);
    model.addSummary(flopRun("a1", "a", 18000.0));
    Summary b = bandwidthRun("b1", "b", 900.0, 3000.0);
    b.size = 1 << 16;
    model.addSummary(b);
    chart.rebuildNow();

    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("throughput (GB/s)"));
    EXPECT_EQ(barsOf(chart.plot()).size(), 2u);
    EXPECT_TRUE(itemsOf<QCPItemStraightLine>(chart.plot()).empty());
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.filter(QStringLiteral("% of GB/s")).isEmpty()) << labels.join('|').toStdString();
    EXPECT_TRUE(labels.filter(QStringLiteral("% of GFLOP/s")).isEmpty()) << labels.join('|').toStdString();
    EXPECT_EQ(labels.filter(QStringLiteral("different ceilings")).size(), 1) << labels.join('|').toStdString();
    for (const ThroughputChart::Bar& bar : chart.bars())
        EXPECT_LT(bar.pctOfCeiling, 0.0);
}

// ---------------------------------------------------------------------------------------------------- correctness

TEST(CorrectnessChart, DeltasOnALogScaleAgainstTheTolerance)
{
    ResultsModel model;
    CorrectnessChart chart(&model);
    Summary exact = makeRun("a1", "a", 1024, 1.0);
    exact.delta.value = 0.0;
    model.addSummary(exact);
    model.addSummary(makeRun("b1", "b", 1024, 1.0));
    Summary bad = makeRun("c1", "c", 1024, 1.0);
    makeOverTolerance(bad, 1e-3);
    model.addSummary(bad);
    Summary nan = makeRun("d1", "d", 1024, 1.0);
    nan.delta.value = std::numeric_limits<double>::quiet_NaN();
    model.addSummary(nan);
    chart.rebuildNow();

    EXPECT_EQ(chart.pointCount(), 4);
    EXPECT_TRUE(isLog(chart.plot()->yAxis));
    QCPGraph* a = graphNamed(chart.plot(), QStringLiteral("a"));
    ASSERT_NE(a, nullptr);
    EXPECT_DOUBLE_EQ(a->data()->at(0)->value, CorrectnessChart::kExactFloor);
    EXPECT_GE(a->data()->at(0)->value, chart.plot()->yAxis->range().lower);
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.contains(QStringLiteral("exact")));
    EXPECT_TRUE(labels.contains(QStringLiteral("tolerance 1e-12")));
    EXPECT_TRUE(labels.filter(QStringLiteral("NaN")).size() == 1);

    for (const char* name : {"c", "d"}) {
        QCPGraph* g = graphNamed(chart.plot(), QString::fromLatin1(name));
        ASSERT_NE(g, nullptr);
        EXPECT_TRUE(sameRgb(g->scatterStyle().pen().color(), seriesColor(model.variantIndex(name), false))) << name;
        EXPECT_EQ(g->scatterStyle().shape(), QCPScatterStyle::ssCross) << name;
        EXPECT_TRUE(g->name().endsWith(QStringLiteral("✗ over tolerance"))) << name;
        EXPECT_LE(g->data()->at(0)->value, chart.plot()->yAxis->range().upper) << name;
    }
    EXPECT_EQ(graphNamed(chart.plot(), QStringLiteral("b"))->scatterStyle().shape(), QCPScatterStyle::ssDisc);

    const auto lines = itemsOf<QCPItemStraightLine>(chart.plot());
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_DOUBLE_EQ(lines[0]->point1->coords().y(), 1e-12);
    EXPECT_EQ(lines[0]->pen().style(), Qt::DashLine);
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(chart.plot()->xAxis->ticker());
    ASSERT_FALSE(ticker.isNull());
    EXPECT_EQ(ticker->ticks().size(), 4);
}

TEST(CorrectnessChart, ErrorDistributionOnDemandShowsALoneOutlier)
{
    ResultsModel model;
    CorrectnessChart chart(&model);
    // "a": a million exact elements; "b": the same but one element off by 1e-7, one NaN, and sampled.
    Summary a = makeRun("a1", "a", 1024, 1.0);
    a.delta.relError = ErrorHistogram(ErrorBins::Log10, "rel_err");
    a.delta.relError->tolerance = 1e-12;
    a.delta.relError->elements = 1'000'000;
    a.delta.relError->counts[0] = 1'000'000;
    a.delta.stepError = ErrorHistogram(ErrorBins::PowersOfTwo, "ulp_f64");
    a.delta.stepError->elements = 1'000'000;
    a.delta.stepError->counts[0] = 999'999;
    a.delta.stepError->counts[1] = 1;
    Summary b = makeRun("b1", "b", 1024, 1.0);
    // Built apart and then moved in: copying one engaged optional into another trips GCC 12's maybe-uninitialized.
    ErrorHistogram sampled = *a.delta.relError;
    sampled.counts[0] = 999'998;
    sampled.add(1e-7);
    sampled.add(std::nan(""));
    sampled.elements = 2'000'000;
    sampled.sampled = true;
    b.delta.relError = std::move(sampled);
    model.addSummary(a);
    model.addSummary(b);
    model.addSummary(makeRun("c1", "c", 1024, 1.0)); // a run without histograms (an older file): not drawn

    chart.rebuildNow();
    EXPECT_FALSE(chart.distributionShown());
    EXPECT_TRUE(barsOf(chart.plot()).empty());

    chart.setDistributionShown(true);
    chart.rebuildNow();
    const auto bars = barsOf(chart.plot());
    ASSERT_EQ(bars.size(), 2u);
    EXPECT_TRUE(isLog(chart.plot()->yAxis));
    EXPECT_TRUE(chart.plot()->legend->visible());
    // a: one bar (exact); b: exact, the outlier's bin, and the NaN column.
    EXPECT_EQ(bars[0]->data()->size(), 1);
    ASSERT_EQ(bars[1]->data()->size(), 3);
    const double outlierBin = CorrectnessChart::binPosition(ErrorHistogram::binOf(1e-7));
    bool outlierDrawn = false;
    for (auto it = bars[1]->data()->constBegin(); it != bars[1]->data()->constEnd(); ++it)
        if (std::fabs(it->key - outlierBin) < 0.5 && it->value == 1.0)
            outlierDrawn = true;
    EXPECT_TRUE(outlierDrawn);
    // A bar of one element rises above the axis floor, and the NaN column lies right of every bin.
    EXPECT_LT(chart.plot()->yAxis->range().lower, 1.0);
    EXPECT_EQ(bars[1]->baseValue(), CorrectnessChart::kCountFloor);
    EXPECT_GT(chart.nonFinitePosition(), outlierBin);
    EXPECT_GE(chart.plot()->xAxis->range().upper, chart.nonFinitePosition());

    // The tolerance is a vertical line at the lower edge of the bin that starts at 1e-12.
    const auto lines = itemsOf<QCPItemStraightLine>(chart.plot());
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_DOUBLE_EQ(lines[0]->point1->coords().x(), lines[0]->point2->coords().x());
    EXPECT_DOUBLE_EQ(lines[0]->point1->coords().x(), CorrectnessChart::binPosition(ErrorHistogram::binOf(1e-12)) - 0.5);
    const QStringList labels = texts(chart.plot());
    EXPECT_TRUE(labels.contains(QStringLiteral("tolerance 1e-12"))) << labels.join('|').toStdString();
    EXPECT_EQ(labels.filter(QStringLiteral("a sample of 1000000 of 2000000")).size(), 1)
        << labels.join('|').toStdString();

    // ULPs: only "a" has them; no tolerance line (the tolerance is a relative one).
    chart.setDistribution(CorrectnessChart::Distribution::Steps);
    chart.rebuildNow();
    const auto stepBars = barsOf(chart.plot());
    ASSERT_EQ(stepBars.size(), 1u);
    EXPECT_EQ(stepBars[0]->data()->size(), 2);
    EXPECT_TRUE(itemsOf<QCPItemStraightLine>(chart.plot()).empty());

    chart.setDistributionShown(false);
    chart.rebuildNow();
    EXPECT_TRUE(barsOf(chart.plot()).empty());
    EXPECT_EQ(chart.pointCount(), 3);
}

// ---------------------------------------------------------------------------------------------------- speedup

TEST(SpeedupChart, BaselineMedianOverVariantMedianAtEachSize)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    model.addSummary(makeRun("r1", "ref", 1024, 10.0));
    model.addSummary(makeRun("r2", "ref", 2048, 20.0));
    model.addSummary(makeRun("f1", "fast", 1024, 2.0));
    model.addSummary(makeRun("f2", "fast", 2048, 4.0));
    model.addSummary(makeRun("f3", "fast", 4096, 8.0)); // no baseline at 4096: no point
    model.addSummary(makeRun("s1", "slow", 1024, 20.0));
    chart.setBaseline(QStringLiteral("ref"));
    chart.rebuildNow();

    EXPECT_EQ(chart.baseline(), QStringLiteral("ref"));
    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("speedup vs ref (×)"));
    EXPECT_TRUE(isLog(chart.plot()->xAxis));
    EXPECT_EQ(chart.pointCount(), 3);
    QCPGraph* fast = graphNamed(chart.plot(), QStringLiteral("fast"));
    ASSERT_NE(fast, nullptr);
    ASSERT_EQ(fast->data()->size(), 2);
    EXPECT_DOUBLE_EQ(fast->data()->at(0)->value, 5.0);
    EXPECT_DOUBLE_EQ(fast->data()->at(1)->value, 5.0);
    QCPGraph* slow = graphNamed(chart.plot(), QStringLiteral("slow"));
    ASSERT_NE(slow, nullptr);
    ASSERT_EQ(slow->data()->size(), 1);
    EXPECT_DOUBLE_EQ(slow->data()->at(0)->value, 0.5);
    EXPECT_EQ(slow->lineStyle(), QCPGraph::lsNone); // a single size is a point, not a line

    const auto lines = itemsOf<QCPItemStraightLine>(chart.plot());
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_DOUBLE_EQ(lines[0]->point1->coords().y(), 1.0);
    EXPECT_LE(chart.plot()->yAxis->range().lower, 0.5);
    EXPECT_GE(chart.plot()->yAxis->range().upper, 5.0);

    chart.setBaseline(QStringLiteral("fast"));
    chart.rebuildNow();
    EXPECT_EQ(chart.plot()->yAxis->label(), QStringLiteral("speedup vs fast (×)"));
    QCPGraph* ref = graphNamed(chart.plot(), QStringLiteral("ref"));
    ASSERT_NE(ref, nullptr);
    EXPECT_DOUBLE_EQ(ref->data()->at(0)->value, 0.2);
    EXPECT_EQ(chart.pointCount(), 2 + 1);
}

TEST(SpeedupChart, DefaultBaselineIsTheReferenceAndWideRangesGoLog)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    model.addSummary(makeRun("g1", "gpu", 1024, 0.01));
    model.addSummary(makeRun("r1", "reference", 1024, 100.0));
    Summary bad = makeRun("w1", "wrong", 1024, 0.005);
    makeOverTolerance(bad);
    model.addSummary(bad);
    chart.rebuildNow();
    EXPECT_EQ(chart.baseline(), QStringLiteral("reference"));
    EXPECT_TRUE(isLog(chart.plot()->yAxis));
    QCPGraph* alarms = graphNamed(chart.plot(), QStringLiteral("wrong ✗ over tolerance"));
    ASSERT_NE(alarms, nullptr);
    EXPECT_DOUBLE_EQ(alarms->data()->at(0)->value, 20000.0);
    EXPECT_TRUE(sameRgb(alarms->scatterStyle().pen().color(), seriesColor(model.variantIndex("wrong"), false)));
}

// ---------------------------------------------------------------------------------------------------- views

namespace {
data::Dataset smallLine(std::size_t n = 10)
{
    data::Series2D series;
    for (std::size_t i = 0; i < n; ++i) {
        series.x.push_back(static_cast<double>(i));
        series.y.push_back(2.0 * static_cast<double>(i) + 1.0);
    }
    return data::makeSeriesDataset(std::move(series), "line", "test");
}

Summary fitRun(
    const std::string& runId, const std::string& variant, const data::Dataset& dataset, double slope, double intercept)
{
    Summary s = makeRun(runId, variant, dataset.meta().size, 1.0);
    s.datasetHash = dataset.meta().contentHash;
    s.result = std::make_shared<Result>(linreg::makeResult({slope, intercept}));
    return s;
}
} // namespace

TEST(LinregView, ScatterAndTheFittedLineOfRunsOnThatData)
{
    ResultsModel model;
    LinregView view(&model);
    const data::Dataset dataset = smallLine();
    view.setDataset(dataset);
    model.addSummary(fitRun("a1", "a", dataset, 2.0, 1.0));
    Summary other = fitRun("b1", "b", dataset, 3.0, 0.0);
    other.datasetHash = "another dataset";
    model.addSummary(other);
    model.addSummary(fitRun("c1", "c", dataset, std::nan(""), std::nan("")));
    view.rebuildNow();

    EXPECT_EQ(view.pointCount(), 10 + 2);
    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_EQ(view.plot()->graph(0)->data()->size(), 10);
    EXPECT_EQ(view.plot()->graph(0)->lineStyle(), QCPGraph::lsNone);
    QCPGraph* line = view.plot()->graph(1);
    EXPECT_EQ(line->name(), QStringLiteral("a: y = 2·x + 1"));
    ASSERT_EQ(line->data()->size(), 2);
    EXPECT_DOUBLE_EQ(line->data()->at(0)->key, 0.0);
    EXPECT_DOUBLE_EQ(line->data()->at(1)->key, 9.0);
    EXPECT_DOUBLE_EQ(line->data()->at(1)->value, 19.0);
    EXPECT_TRUE(sameRgb(line->pen().color(), seriesColor(model.variantIndex("a"), false)));
    EXPECT_EQ(view.title(), QStringLiteral("Regression fit"));
}

TEST(LinregView, FitsOverToleranceAreDashedInTheirOwnColour)
{
    ResultsModel model;
    LinregView view(&model);
    const data::Dataset dataset = smallLine();
    view.setDataset(dataset);
    Summary bad = fitRun("a1", "a", dataset, 1.5, -4.0);
    makeOverTolerance(bad);
    model.addSummary(bad);
    view.rebuildNow();
    ASSERT_EQ(view.plot()->graphCount(), 2);
    QCPGraph* line = view.plot()->graph(1);
    EXPECT_TRUE(sameRgb(line->pen().color(), seriesColor(model.variantIndex("a"), false)));
    EXPECT_EQ(line->pen().style(), Qt::DashLine);
    EXPECT_TRUE(line->name().startsWith(QStringLiteral("a: y = 1.5·x − 4")));
    EXPECT_TRUE(line->name().endsWith(QStringLiteral("✗ over tolerance")));
}

TEST(LinregView, LargeDatasetsAreSampled)
{
    ResultsModel model;
    LinregView view(&model);
    const data::Dataset dataset = smallLine(100000);
    view.setDataset(dataset);
    model.addSummary(fitRun("a1", "a", dataset, 2.0, 1.0));
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graph(0)->data()->size(), LinregView::kMaxScatterPoints);
    // The line still spans the full data, not just the sample.
    EXPECT_DOUBLE_EQ(view.plot()->graph(1)->data()->at(1)->key, 99999.0);
}

TEST(ResultValuesView, LatestResultOfEachVariantAtTheLatestSize)
{
    ResultsModel model;
    ResultValuesView view(&model);
    const auto histogram
        = [](const std::string& runId, const std::string& variant, std::uint64_t size, std::size_t bins) {
              Summary s = makeRun(runId, variant, size, 1.0);
              s.workload = "sdh";
              auto r = std::make_shared<Result>();
              r->quantity = "histogram";
              for (std::size_t i = 0; i < bins; ++i)
                  r->counts.push_back(i * 3);
              s.result = r;
              return s;
          };
    model.addSummary(histogram("a1", "a", 1000, 16));
    model.addSummary(histogram("a2", "a", 2000, 32));
    Summary bad = histogram("b2", "b", 2000, 32);
    makeOverTolerance(bad, 5.0);
    model.addSummary(bad);
    view.rebuildNow();

    EXPECT_EQ(view.pointCount(), 2 * 32);
    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_DOUBLE_EQ(view.plot()->graph(0)->data()->at(31)->value, 93.0);
    EXPECT_EQ(view.plot()->graph(0)->lineStyle(), QCPGraph::lsStepCenter);
    EXPECT_EQ(view.plot()->xAxis->label(), QStringLiteral("bin"));
    EXPECT_TRUE(sameRgb(view.plot()->graph(1)->pen().color(), seriesColor(model.variantIndex("b"), false)));
    EXPECT_EQ(view.plot()->graph(1)->pen().style(), Qt::DashLine);
    EXPECT_EQ(view.title(), QStringLiteral("Result"));
}

TEST(ResultValuesView, LongResultsShowTheirFirstValuesAndNamedValuesTheirNames)
{
    ResultsModel model;
    ResultValuesView view(&model);
    Summary s = makeRun("a1", "a", 1 << 18, 1.0);
    auto r = std::make_shared<Result>();
    r->quantity = "y";
    r->values.assign(150000, 0.25);
    s.result = r;
    model.addSummary(s);
    view.rebuildNow();
    EXPECT_EQ(view.pointCount(), static_cast<int>(ResultValuesView::kMaxValues));
    EXPECT_TRUE(view.plot()->graph(0)->name().contains(QStringLiteral("first 100000 of 150000")));

    const data::Dataset dataset = smallLine();
    model.addSummary(fitRun("f1", "fit", dataset, 2.0, 1.0));
    view.setDataset(dataset);
    view.rebuildNow();
    EXPECT_EQ(view.pointCount(), 2);
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(view.plot()->xAxis->ticker());
    ASSERT_FALSE(ticker.isNull());
    EXPECT_EQ(ticker->ticks().values(), (QList<QString> {"slope", "intercept"}));
}

TEST(WorkloadViewFactory, LinregHasItsOwnViewOthersTheResultValues)
{
    ResultsModel model;
    std::unique_ptr<WorkloadView> linregView(createWorkloadView("linreg", &model, nullptr));
    std::unique_ptr<WorkloadView> otherView(createWorkloadView("unknown", &model, nullptr)); // no view of its own
    EXPECT_NE(qobject_cast<LinregView*>(linregView.get()), nullptr);
    EXPECT_NE(qobject_cast<ResultValuesView*>(otherView.get()), nullptr);
}

// ---------------------------------------------------------------------------------------------------- all charts

namespace {
/// A model with something for every chart to draw, and every chart over it.
struct AllCharts {
    ResultsModel model;
    data::Dataset dataset = smallLine();
    std::vector<std::unique_ptr<ChartView>> charts;

    AllCharts()
    {
        for (const auto& [variant, median] : {std::pair {"reference", 10.0}, std::pair {"fast", 1.0}}) {
            for (std::uint64_t size : {1024u, 4096u}) {
                Summary s = fitRun(std::string(variant) + std::to_string(size), variant, dataset, 2.0, 1.0);
                s.size = size;
                s.medianMs = median * static_cast<double>(size) / 1024.0;
                s.bytes = 16.0 * static_cast<double>(size);
                s.gbPerS = s.bytes / (s.medianMs * 1e6);
                s.peakKind = "read_bandwidth";
                s.peakValue = 100.0;
                s.pctOfPeak = s.gbPerS;
                model.addSummary(s);
            }
        }
        charts.push_back(std::make_unique<TimelineChart>(&model));
        charts.push_back(std::make_unique<SweepChart>(&model));
        charts.push_back(std::make_unique<ThroughputChart>(&model));
        charts.push_back(std::make_unique<CorrectnessChart>(&model));
        charts.push_back(std::make_unique<SpeedupChart>(&model));
        auto linreg = std::make_unique<LinregView>(&model);
        linreg->setDataset(dataset);
        charts.push_back(std::move(linreg));
        auto values = std::make_unique<ResultValuesView>(&model);
        values->setDataset(dataset);
        charts.push_back(std::move(values));
    }
};
} // namespace

TEST(ChartExport, EveryChartWritesPngPdfAndSvg)
{
    AllCharts all;
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    for (const auto& chart : all.charts) {
        const std::string name = chart->title().toStdString();
        chart->rebuildNow();
        EXPECT_GT(chart->pointCount(), 0) << name;
        const QString base = dir.filePath(chart->title().replace(QLatin1Char(' '), QLatin1Char('_')));
        QString error;
        ASSERT_TRUE(chart->exportTo(base + ".png", &error)) << name << ": " << error.toStdString();
        EXPECT_EQ(head(base + ".png", 8), QByteArray("\x89PNG\r\n\x1a\n", 8)) << name;
        ASSERT_TRUE(chart->exportTo(base + ".pdf", &error)) << name << ": " << error.toStdString();
        EXPECT_EQ(head(base + ".pdf", 4), QByteArray("%PDF")) << name;
        if (ChartView::svgAvailable()) {
            ASSERT_TRUE(chart->exportTo(base + ".svg", &error)) << name << ": " << error.toStdString();
            EXPECT_TRUE(head(base + ".svg", 4096).contains("<svg")) << name;
        } else {
            EXPECT_FALSE(chart->exportTo(base + ".svg", &error)) << name;
        }
        EXPECT_FALSE(chart->exportTo(base + ".bmp", &error)) << name;
    }
}

TEST(ChartTheme, PaletteChangeRecoloursEveryChart)
{
    AllCharts all;
    for (const auto& chart : all.charts) {
        const std::string name = chart->title().toStdString();
        chart->setPalette(lightPalette());
        chart->rebuildNow();
        // toPixmap fills with the plot's background brush, so a corner pixel is that brush's colour.
        const QColor lightBackground = chart->plot()->toPixmap(400, 300).toImage().pixelColor(1, 1);
        EXPECT_EQ(lightBackground.rgb(), lightPalette().color(QPalette::Base).rgb()) << name;

        chart->setPalette(darkPalette());
        chart->rebuildNow();
        const QColor darkBackground = chart->plot()->toPixmap(400, 300).toImage().pixelColor(1, 1);
        EXPECT_NE(darkBackground.rgb(), lightBackground.rgb()) << name;
        EXPECT_EQ(darkBackground.rgb(), darkPalette().color(QPalette::Base).rgb()) << name;
        EXPECT_EQ(chart->plot()->xAxis->tickLabelColor().rgb(), darkPalette().color(QPalette::WindowText).rgb())
            << name;
    }
}

TEST(ChartTheme, VariantColoursFollowTheTheme)
{
    ResultsModel model;
    SweepChart chart(&model);
    model.addSummary(makeRun("a1", "a", 1024, 1.0));
    chart.setPalette(darkPalette());
    chart.rebuildNow();
    QCPGraph* a = graphNamed(chart.plot(), QStringLiteral("a"));
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(sameRgb(a->pen().color(), seriesColor(model.variantIndex("a"), true)));
}
