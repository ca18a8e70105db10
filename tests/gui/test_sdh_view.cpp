// Tests of the sdh workload's view: each variant's histogram as steps over the reference's (edges from the bucket
// width, counts), the L1 and total checks under the chart, only the newest dataset and bucket width, variants
// arriving one by one, a one-point cloud, the log axis, many buckets summed into steps, palettes, export, and a
// real CPU run of the reference and cpu_openmp.
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"
#include "compute/workloads/sdh/sdh.h"
#include "data/point_cloud.h"
#include "gui/results_model.h"
#include "gui/theme.h"
#include "gui/views/sdh_view.h"
#include "gui/views/workload_view.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <qcustomplot.h>
#include <string>
#include <utility>
#include <vector>

using namespace ks;
using namespace ks::gui;

namespace {

/// A finished sdh run of `variant` on dataset `hash` of `points` points at bucket width `width`.
Summary histogramRun(const std::string& runId, const std::string& variant, const std::string& hash,
    std::uint64_t points, const std::string& width, std::vector<std::uint64_t> counts)
{
    Summary s;
    s.runId = runId;
    s.workload = "sdh";
    s.variant = variant;
    s.variantName = variant;
    s.backend = "cpu";
    s.datasetHash = hash;
    s.datasetName = "cloud " + hash;
    s.size = points;
    s.params = ParamSet::fromString("bucket_width=" + width + ";frame=1");
    s.outcome = Outcome::Passed;
    s.repetitions = 3;
    s.medianMs = s.meanMs = s.minMs = s.maxMs = 1.0;
    s.samplesMs = {1.0, 1.0, 1.0};
    s.result = std::make_shared<Result>(sdh::makeResult(std::move(counts)));
    return s;
}

/// The Delta the sdh workload's comparison gives (l1_fraction with its three details).
void setDelta(Summary& s, double l1, double maxRel, double totalMinusPairs)
{
    const double pairs = static_cast<double>(sdh::pairCount(s.size));
    s.delta.kind = "l1_fraction";
    s.delta.tolerance = 1e-3;
    s.delta.value
        = totalMinusPairs != 0.0 ? std::numeric_limits<double>::infinity() : (pairs == 0.0 ? 0.0 : l1 / (2.0 * pairs));
    s.delta.details = {{"l1_pairs", l1}, {"max_rel_bucket_err", maxRel}, {"total_minus_pairs", totalMinusPairs}};
    s.delta.computed = true;
    if (!s.delta.withinTolerance())
        s.outcome = Outcome::Incorrect;
}

/// A point-cloud dataset whose only property the view reads is its content hash (the payload is never looked at).
data::Dataset cloudWithHash(const std::string& hash)
{
    data::DatasetMeta meta;
    meta.kind = "points";
    meta.name = "cloud " + hash;
    meta.contentHash = hash;
    return data::Dataset::make(meta, data::PointCloud {});
}

std::vector<double> keys(const QCPGraph* graph)
{
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.push_back(it->key);
    return out;
}

std::vector<double> values(const QCPGraph* graph)
{
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

QCPGraph* graphNamed(const ChartView& view, const QString& name)
{
    for (int i = 0; i < view.plot()->graphCount(); ++i)
        if (view.plot()->graph(i)->name() == name)
            return view.plot()->graph(i);
    return nullptr;
}

/// Every text the plot shows: its text elements (caption, checks) and its visible text items.
QString plotText(const ChartView& view)
{
    QStringList texts;
    for (QCPLayoutElement* element : view.plot()->plotLayout()->elements(true))
        if (auto* text = qobject_cast<QCPTextElement*>(element))
            texts << text->text();
    for (int i = 0; i < view.plot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(view.plot()->item(i)); text && text->visible())
            texts << text->text();
    return texts.join(QLatin1Char('\n'));
}

/// The text element under the chart that starts with "variant:".
QCPTextElement* checkElement(const ChartView& view, const QString& variant)
{
    for (QCPLayoutElement* element : view.plot()->plotLayout()->elements(true))
        if (auto* text = qobject_cast<QCPTextElement*>(element);
            text && text->text().startsWith(variant + QLatin1Char(':')))
            return text;
    return nullptr;
}

/// A count as the view writes it, in the user's locale (4,498,500 or 4498500).
QString grouped(std::uint64_t n)
{
    return QLocale().toString(static_cast<qulonglong>(n));
}

bool sameRgb(const QColor& a, const QColor& b)
{
    return a.rgb() == b.rgb();
}

const std::vector<double> kEdges {0.0, 2.5, 5.0, 7.5, 10.0};

} // namespace

TEST(SdhView, EachVariantsStepsOverTheReferenceWithEdgesFromTheWidth)
{
    ResultsModel model;
    model.setVariantOrder({"reference", "cpu_openmp", "tiled_f32"});
    SdhView view(&model);
    view.setDataset(cloudWithHash("h"));
    // Five points, ten pairs, in four buckets of 2.5.
    Summary ref = histogramRun("r", "reference", "h", 5, "2.5", {1, 4, 3, 2});
    setDelta(ref, 0, 0, 0);
    Summary omp = histogramRun("o", "cpu_openmp", "h", 5, "2.5", {1, 4, 3, 2});
    setDelta(omp, 0, 0, 0);
    Summary f32 = histogramRun("f", "tiled_f32", "h", 5, "2.5", {2, 3, 3, 2});
    setDelta(f32, 2, 0.25, 0);
    f32.delta.tolerance = 1.0; // within: drawn in its own colour
    f32.outcome = Outcome::Passed;
    model.addSummary(f32);
    model.addSummary(ref);
    model.addSummary(omp);
    view.rebuildNow();

    EXPECT_EQ(view.title(), QStringLiteral("Distance histogram"));
    ASSERT_EQ(view.plot()->graphCount(), 3);
    QCPGraph* reference = view.plot()->graph(0); // drawn first, under the others
    EXPECT_EQ(reference->name(), QStringLiteral("reference"));
    EXPECT_EQ(keys(reference), kEdges);
    EXPECT_EQ(values(reference), (std::vector<double> {1, 4, 3, 2, 2})); // the last step drawn to its right edge
    EXPECT_EQ(reference->lineStyle(), QCPGraph::lsStepLeft);
    EXPECT_NE(reference->brush().style(), Qt::NoBrush); // the reference's area
    EXPECT_TRUE(sameRgb(reference->pen().color(), seriesColor(model.variantIndex("reference"), false)));

    EXPECT_EQ(view.plot()->graph(1)->name(), QStringLiteral("cpu_openmp")); // then in the variants' order
    QCPGraph* fast = view.plot()->graph(2);
    EXPECT_EQ(fast->name(), QStringLiteral("tiled_f32"));
    EXPECT_EQ(keys(fast), kEdges);
    EXPECT_EQ(values(fast), (std::vector<double> {2, 3, 3, 2, 2}));
    EXPECT_EQ(fast->brush().style(), Qt::NoBrush);
    EXPECT_TRUE(sameRgb(fast->pen().color(), seriesColor(model.variantIndex("tiled_f32"), false)));
    EXPECT_EQ(view.plot()->legend->itemCount(), 3);
    EXPECT_EQ(view.pointCount(), 3 * 5);

    ASSERT_TRUE(view.shownBucketWidth().has_value());
    EXPECT_DOUBLE_EQ(*view.shownBucketWidth(), 2.5);
    EXPECT_DOUBLE_EQ(view.plot()->xAxis->range().upper, 10.0 * 1.01);
    EXPECT_DOUBLE_EQ(view.plot()->yAxis->range().lower, 0.0);
    EXPECT_TRUE(
        view.plot()->xAxis->label().contains(QStringLiteral("buckets of %1").arg(QLocale().toString(2.5, 'g', 6))));

    ASSERT_EQ(view.checks().size(), 3u);
    EXPECT_EQ(view.checks()[0].variant, "reference");
    EXPECT_EQ(view.checks()[2].l1Pairs, 2.0);
    EXPECT_EQ(view.checks()[2].maxRelBucketErr, 0.25);
    EXPECT_EQ(view.checks()[2].totalMinusPairs, 0.0);
    const QString text = plotText(view);
    EXPECT_TRUE(
        text.contains(QStringLiteral("reference: 10 pairs in 4 buckets (the oracle) · total = N(N−1)/2 = 10 ✓")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("cpu_openmp: L1 0 pairs from the reference · total = N(N−1)/2 = 10 ✓")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(
        QStringLiteral("tiled_f32: L1 2 pairs from the reference (worst bucket off by 25%) · total = N(N−1)/2 = 10 ✓")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("N = 5 points, 10 pairs · cloud h"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("no reference")));
}

TEST(SdhView, ATotalOtherThanAllPairsIsFlaggedInTheAlarmColour)
{
    ResultsModel model;
    SdhView view(&model);
    model.addSummary(histogramRun("r", "reference", "h", 5, "2.5", {1, 4, 3, 2}));
    Summary lost = histogramRun("b", "baseline", "h", 5, "2.5", {1, 4, 3, 1}); // a pair lost to a race
    setDelta(lost, 1, 0.5, -1);
    model.addSummary(lost);
    view.rebuildNow();

    QCPGraph* graph = graphNamed(view, QStringLiteral("baseline ✗ over tolerance"));
    ASSERT_NE(graph, nullptr);
    EXPECT_TRUE(sameRgb(graph->pen().color(), seriesColor(model.variantIndex("baseline"), false)));
    EXPECT_EQ(graph->pen().style(), Qt::DashLine);
    QCPTextElement* check = checkElement(view, QStringLiteral("baseline"));
    ASSERT_NE(check, nullptr);
    EXPECT_EQ(check->text(),
        QStringLiteral("baseline: L1 1 pair from the reference (worst bucket off by 50%) · total 9 ≠ N(N−1)/2 = 10 "
                       "(−1) ✗ · over tolerance"));
    EXPECT_TRUE(sameRgb(check->textColor(), alarmColor()));
    EXPECT_FALSE(sameRgb(checkElement(view, QStringLiteral("reference"))->textColor(), alarmColor()));
    EXPECT_EQ(view.checks()[1].totalMinusPairs, -1.0);
}

TEST(SdhView, OnlyTheNewestDatasetAndBucketWidthAreShown)
{
    ResultsModel model;
    SdhView view(&model);
    model.addSummary(histogramRun("r1", "reference", "h", 5, "2.5", {1, 4, 3, 2}));
    model.addSummary(histogramRun("a1", "a", "h", 5, "2.5", {1, 4, 3, 2}));
    model.addSummary(histogramRun("r2", "reference", "h", 5, "5", {5, 5}));
    view.rebuildNow();
    ASSERT_EQ(view.plot()->graphCount(), 1); // a ran at 2.5 only: not mixed into the 5-wide buckets
    EXPECT_EQ(keys(view.plot()->graph(0)), (std::vector<double> {0.0, 5.0, 10.0}));
    EXPECT_EQ(values(view.plot()->graph(0)), (std::vector<double> {5, 5, 5}));
    EXPECT_DOUBLE_EQ(*view.shownBucketWidth(), 5.0);
    EXPECT_TRUE(view.plot()->xAxis->label().contains(QStringLiteral("buckets of 5")));

    // Back to 2.5 (a width typed differently is the same width): a is drawn again, over the newer 2.5 reference.
    model.addSummary(histogramRun("r3", "reference", "h", 5, "2.50", {2, 3, 3, 2}));
    view.rebuildNow();
    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_EQ(values(view.plot()->graph(0)), (std::vector<double> {2, 3, 3, 2, 2})); // the newest reference
    EXPECT_EQ(keys(view.plot()->graph(1)), kEdges);
    EXPECT_DOUBLE_EQ(*view.shownBucketWidth(), 2.5);

    // A run on another cloud is newer: only that cloud is shown.
    model.addSummary(histogramRun("g1", "a", "g", 3, "1", {1, 2}));
    view.rebuildNow();
    ASSERT_EQ(view.plot()->graphCount(), 1);
    EXPECT_EQ(keys(view.plot()->graph(0)), (std::vector<double> {0.0, 1.0, 2.0}));
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("N = 3 points, 3 pairs")));
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("a: no reference at this bucket width to compare with")));
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("no reference run at this bucket width yet")));

    // The Dataset panel picks cloud h again: its newest width is shown.
    view.setDataset(cloudWithHash("h"));
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graphCount(), 2);
    EXPECT_DOUBLE_EQ(*view.shownBucketWidth(), 2.5);

    // A cloud nothing ran on yet.
    view.setDataset(cloudWithHash("new"));
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graphCount(), 0);
    EXPECT_TRUE(view.checks().empty());
    EXPECT_FALSE(view.shownBucketWidth().has_value());
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("No finished sdh run on this point cloud yet")));
}

TEST(SdhView, VariantsArriveOneByOne)
{
    ResultsModel model;
    SdhView view(&model);
    view.resize(800, 500);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.rebuildNow();
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("No finished sdh run with a histogram yet")));

    // A variant before the reference (a GPU variant run alone): drawn, nothing to compare with.
    model.addSummary(histogramRun("a", "shared_lr", "h", 5, "2.5", {2, 3, 3, 2}));
    view.rebuildNow();
    ASSERT_EQ(view.plot()->graphCount(), 1);
    EXPECT_FALSE(view.checks()[0].l1Pairs.has_value());
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("shared_lr: no reference at this bucket width")));

    // The reference arrives: drawn first; a Delta without details is measured from the counts.
    model.addSummary(histogramRun("r", "reference", "h", 5, "2.5", {1, 4, 3, 2}));
    view.rebuildNow();
    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_EQ(view.plot()->graph(0)->name(), QStringLiteral("reference"));
    EXPECT_EQ(view.checks()[1].l1Pairs, 2.0);
    EXPECT_EQ(view.checks()[1].maxRelBucketErr, 1.0); // bucket 0: 2 against 1
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("shared_lr: L1 2 pairs from the reference")));
    EXPECT_FALSE(plotText(view).contains(QStringLiteral("no reference")));

    // A run still in progress is not drawn; its finished Summary is.
    Sample sample;
    sample.runId = "c";
    sample.workload = "sdh";
    sample.variant = "tiled_f64_exact";
    sample.size = 5;
    sample.ms = 1.0;
    model.addSample(sample);
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graphCount(), 2);
    Summary exact = histogramRun("c", "tiled_f64_exact", "h", 5, "2.5", {1, 4, 3, 2});
    setDelta(exact, 0, 0, 0);
    model.addSummary(exact);
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graphCount(), 3);
    EXPECT_EQ(view.checks()[2].l1Pairs, 0.0);

    // A newer run of a variant replaces its older one.
    Summary again = histogramRun("a2", "shared_lr", "h", 5, "2.5", {1, 4, 3, 2});
    setDelta(again, 0, 0, 0);
    model.addSummary(again);
    view.rebuildNow();
    EXPECT_EQ(view.plot()->graphCount(), 3);
    EXPECT_EQ(values(graphNamed(view, QStringLiteral("shared_lr"))), (std::vector<double> {1, 4, 3, 2, 2}));

    // Runs streaming in are redrawn through the throttle, coalesced: never more than one replot per interval.
    const int before = view.replotCount();
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < 50; ++i)
        model.addSummary(
            histogramRun("s" + std::to_string(i), "v" + std::to_string(i % 5), "h", 5, "2.5", {1, 4, 3, 2}));
    QTest::qWait(3 * ChartView::kMinReplotIntervalMs);
    const int replots = view.replotCount() - before;
    EXPECT_GE(replots, 1);
    EXPECT_LE(replots, 1 + static_cast<int>(clock.elapsed() / ChartView::kMinReplotIntervalMs));
    EXPECT_EQ(view.plot()->graphCount(), 3 + 5);
}

TEST(SdhView, OnePointHasNoPairsAndAnEmptyHistogram)
{
    ResultsModel model;
    SdhView view(&model);
    Summary ref = histogramRun("r", "reference", "p", 1, "500", {0});
    setDelta(ref, 0, 0, 0);
    Summary omp = histogramRun("o", "cpu_openmp", "p", 1, "500", {0});
    setDelta(omp, 0, 0, 0);
    model.addSummary(ref);
    model.addSummary(omp);
    view.rebuildNow();

    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_EQ(keys(view.plot()->graph(0)), (std::vector<double> {0.0, 500.0}));
    EXPECT_EQ(values(view.plot()->graph(1)), (std::vector<double> {0.0, 0.0}));
    EXPECT_DOUBLE_EQ(view.plot()->yAxis->range().upper, 1.0); // a visible axis for an all-zero histogram
    const QString text = plotText(view);
    EXPECT_TRUE(text.contains(QStringLiteral("N = 1 points, 0 pairs"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("no pairs, every bucket is empty")));
    EXPECT_TRUE(text.contains(QStringLiteral("cpu_openmp: L1 0 pairs from the reference · total = N(N−1)/2 = 0 ✓")));

    view.setLogScale(true);
    view.rebuildNow();
    EXPECT_EQ(view.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    EXPECT_EQ(values(view.plot()->graph(0)), (std::vector<double> {SdhView::kLogFloor, SdhView::kLogFloor}));
    EXPECT_DOUBLE_EQ(view.plot()->yAxis->range().lower, SdhView::kLogFloor);
}

TEST(SdhView, TheCheckboxSwitchesTheCountAxisToLog)
{
    ResultsModel model;
    SdhView view(&model);
    model.addSummary(histogramRun("r", "reference", "h", 1000, "100", {0, 1000, 498'000, 1000, 0, 1}));
    view.rebuildNow();
    auto* box = view.findChild<QCheckBox*>(QStringLiteral("logCounts"));
    ASSERT_NE(box, nullptr);
    EXPECT_FALSE(box->isChecked());
    EXPECT_FALSE(view.logScale());
    EXPECT_EQ(view.plot()->yAxis->scaleType(), QCPAxis::stLinear);
    EXPECT_EQ(view.plot()->yAxis->label(), QStringLiteral("pairs"));

    box->setChecked(true);
    EXPECT_TRUE(view.logScale());
    view.rebuildNow();
    EXPECT_EQ(view.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    EXPECT_EQ(view.plot()->yAxis->label(), QStringLiteral("pairs (log scale)"));
    // Empty buckets sit on the floor; the others keep their counts.
    EXPECT_EQ(values(view.plot()->graph(0)),
        (std::vector<double> {SdhView::kLogFloor, 1000, 498'000, 1000, SdhView::kLogFloor, 1, 1}));
    EXPECT_DOUBLE_EQ(view.plot()->yAxis->range().upper, 2.0 * 498'000);

    box->setChecked(false);
    view.rebuildNow();
    EXPECT_EQ(view.plot()->yAxis->scaleType(), QCPAxis::stLinear);
    EXPECT_EQ(values(view.plot()->graph(0)), (std::vector<double> {0, 1000, 498'000, 1000, 0, 1, 1}));
    EXPECT_NEAR(view.plot()->yAxis->range().upper, 1.08 * 498'000, 1e-6);
}

TEST(SdhView, ManyBucketsAreSummedIntoSteps)
{
    ResultsModel model;
    SdhView view(&model);
    // 10,000 buckets of one pair each: 5 buckets a step, 2,000 steps.
    model.addSummary(histogramRun("r", "reference", "h", 142, "0.5", std::vector<std::uint64_t>(10'000, 1)));
    view.rebuildNow();
    const QCPGraph* graph = view.plot()->graph(0);
    ASSERT_EQ(graph->data()->size(), 2001);
    EXPECT_DOUBLE_EQ(graph->data()->at(1)->key, 2.5);
    EXPECT_DOUBLE_EQ(graph->data()->at(1)->value, 5.0);
    EXPECT_DOUBLE_EQ(graph->data()->at(2000)->key, 5000.0);
    EXPECT_LE(static_cast<std::size_t>(graph->data()->size()), SdhView::kMaxSteps + 1);
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("each step sums 5 adjacent buckets")));

    // A partial last group ends at the last bucket's right edge.
    model.addSummary(histogramRun("r2", "reference", "h", 142, "1", std::vector<std::uint64_t>(4095, 1)));
    view.rebuildNow();
    graph = view.plot()->graph(0);
    ASSERT_EQ(graph->data()->size(), 2049); // ⌈4095 / 2⌉ steps of 2 buckets, and the closing point
    EXPECT_DOUBLE_EQ(graph->data()->at(2046)->value, 2.0);
    EXPECT_DOUBLE_EQ(graph->data()->at(2047)->key, 4094.0);
    EXPECT_DOUBLE_EQ(graph->data()->at(2047)->value, 1.0);
    EXPECT_DOUBLE_EQ(graph->data()->at(2048)->key, 4095.0);
}

TEST(SdhView, LightAndDarkPalettesRecolourTheHistogramsAndTexts)
{
    ResultsModel model;
    SdhView view(&model);
    model.addSummary(histogramRun("r", "reference", "h", 5, "2.5", {1, 4, 3, 2}));
    model.addSummary(histogramRun("o", "cpu_openmp", "h", 5, "2.5", {1, 4, 3, 2}));
    view.setPalette(lightPalette());
    view.rebuildNow();
    const QColor lightLine = graphNamed(view, QStringLiteral("cpu_openmp"))->pen().color();
    EXPECT_TRUE(sameRgb(lightLine, seriesColor(model.variantIndex("cpu_openmp"), false)));
    EXPECT_EQ(view.plot()->xAxis->tickLabelColor(), lightPalette().color(QPalette::WindowText));
    const QColor lightBackground = view.plot()->toPixmap(400, 300).toImage().pixelColor(1, 1);
    EXPECT_EQ(lightBackground.rgb(), lightPalette().color(QPalette::Base).rgb());

    view.setPalette(darkPalette());
    view.rebuildNow();
    const QColor darkLine = graphNamed(view, QStringLiteral("cpu_openmp"))->pen().color();
    EXPECT_TRUE(sameRgb(darkLine, seriesColor(model.variantIndex("cpu_openmp"), true)));
    EXPECT_FALSE(sameRgb(darkLine, lightLine));
    EXPECT_EQ(view.plot()->xAxis->tickLabelColor(), darkPalette().color(QPalette::WindowText));
    EXPECT_EQ(
        view.plot()->toPixmap(400, 300).toImage().pixelColor(1, 1).rgb(), darkPalette().color(QPalette::Base).rgb());
    for (QCPLayoutElement* element : view.plot()->plotLayout()->elements(true)) {
        if (auto* text = qobject_cast<QCPTextElement*>(element)) {
            EXPECT_EQ(text->textColor(), darkPalette().color(QPalette::WindowText)) << text->text().toStdString();
        }
    }
}

TEST(SdhView, ExportsTheChartWithItsChecks)
{
    ResultsModel model;
    SdhView view(&model);
    view.resize(900, 550);
    model.addSummary(histogramRun("r", "reference", "h", 5, "2.5", {1, 4, 3, 2}));
    model.addSummary(histogramRun("o", "cpu_openmp", "h", 5, "2.5", {1, 4, 3, 2}));
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    std::vector<const char*> names {"histogram.png", "histogram.pdf"};
    if (ChartView::svgAvailable())
        names.push_back("histogram.svg");
    for (const char* name : names) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QString error;
        EXPECT_TRUE(view.exportTo(path, &error)) << name << ": " << error.toStdString();
        EXPECT_GT(QFileInfo(path).size(), 1000) << name;
    }
    EXPECT_EQ(view.plot()->graphCount(), 2); // exporting rebuilt the chart
    EXPECT_NE(checkElement(view, QStringLiteral("cpu_openmp")), nullptr);
    QString error;
    EXPECT_FALSE(view.exportTo(dir.filePath(QStringLiteral("histogram.bmp")), &error));
}

TEST(SdhView, TheFactoryMakesItForSdh)
{
    ResultsModel model;
    std::unique_ptr<WorkloadView> view(createWorkloadView("sdh", &model, nullptr));
    EXPECT_NE(qobject_cast<SdhView*>(view.get()), nullptr);
}

namespace {
/// Hands what a sweep produces to a model and a view, as the GUI's run controller does (on one thread here).
class ViewFeeder final : public RunObserver {
public:
    ViewFeeder(ResultsModel& model, WorkloadView& view)
        : m_model(model)
        , m_view(view)
    {
    }
    void onSummary(const Summary& s) override { m_model.addSummary(s); }
    void onDataset(const data::Dataset& d) override { m_view.setDataset(d); }

private:
    ResultsModel& m_model;
    WorkloadView& m_view;
};
} // namespace

TEST(SdhView, RealCpuRunOfTheReferenceAndOpenMp)
{
    const Workload* sdhWorkload = defaultRegistry().find("sdh");
    ASSERT_NE(sdhWorkload, nullptr);
    ResultsModel model;
    SdhView view(&model);
    ViewFeeder feeder(model, view);

    SweepRequest request;
    request.workload = sdhWorkload;
    request.variantIds = {"reference", "cpu_openmp"};
    request.generator = {{"points", "300"}};
    request.options.warmup = 0;
    request.options.minRepetitions = 1;
    request.options.maxRepetitions = 3;
    request.options.timeLimitS = 0.5;
    request.options.flushL2 = false;
    request.runIdPrefix = "sdh-view-test";
    Runner runner;
    runner.setCeilingsProvider({});
    const std::vector<Summary> summaries = runSweep(request, runner, feeder);
    ASSERT_EQ(summaries.size(), 2u);
    for (const Summary& s : summaries)
        ASSERT_EQ(s.outcome, Outcome::Passed) << s.variant << ": " << s.message;
    view.rebuildNow();

    // The buckets the workload chose for this cloud at the default width.
    const data::Dataset dataset
        = sdhWorkload->generate(ParamSet::parse(sdhWorkload->generatorParameters(), {{"points", "300"}}));
    const sdh::Buckets buckets = sdh::bucketsFor(dataset.as<data::PointCloud>(), 500.0);

    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_EQ(view.plot()->graph(0)->name(), QStringLiteral("reference"));
    EXPECT_EQ(view.plot()->graph(1)->name(), QStringLiteral("cpu_openmp"));
    for (int g = 0; g < 2; ++g) {
        const QCPGraph* graph = view.plot()->graph(g);
        ASSERT_EQ(static_cast<std::uint64_t>(graph->data()->size()), buckets.count + 1);
        EXPECT_DOUBLE_EQ(graph->data()->at(graph->data()->size() - 1)->key, static_cast<double>(buckets.count) * 500.0);
        double total = 0.0;
        for (int i = 0; i + 1 < graph->data()->size(); ++i)
            total += graph->data()->at(i)->value;
        EXPECT_DOUBLE_EQ(total, 300.0 * 299.0 / 2.0);
    }
    EXPECT_EQ(values(view.plot()->graph(0)), values(view.plot()->graph(1))); // the same arithmetic: exact
    ASSERT_EQ(view.checks().size(), 2u);
    EXPECT_EQ(view.checks()[1].l1Pairs, 0.0);
    EXPECT_EQ(view.checks()[1].totalMinusPairs, 0.0);
    const QString text = plotText(view);
    EXPECT_TRUE(text.contains(
        QStringLiteral("cpu_openmp: L1 0 pairs from the reference · total = N(N−1)/2 = %1 ✓").arg(grouped(44'850))))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("N = 300 points, %1 pairs").arg(grouped(44'850)))) << text.toStdString();
}
