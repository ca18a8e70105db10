// Charts that say what the data says (issue 13): tick labels that tell ticks apart on offset and narrow log axes, a
// speedup axis that never goes below zero, each variant in its own colour even over tolerance, a palette whose
// first colours stand apart, and no empty legend box.
#include "compute/workloads/linreg/linreg.h"
#include "data/series2d.h"
#include "gui/charts/correctness_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/sweep_chart.h"
#include "gui/charts/throughput_chart.h"
#include "gui/charts/timeline_chart.h"
#include "gui/results_model.h"
#include "gui/theme.h"
#include "gui/views/linreg_view.h"
#include "gui/views/result_values_view.h"

#include <QSet>
#include <cmath>
#include <gtest/gtest.h>
#include <numbers>
#include <qcustomplot.h>
#include <tuple>
#include <vector>

using namespace ks;
using namespace ks::gui;

namespace {

Summary timedRun(const std::string& runId, const std::string& variant, std::uint64_t size, double medianMs)
{
    Summary s;
    s.runId = runId;
    s.workload = "linreg";
    s.variant = variant;
    s.variantName = variant;
    s.backend = "cpu";
    s.size = size;
    s.outcome = Outcome::Passed;
    s.repetitions = 3;
    s.medianMs = s.meanMs = s.minMs = s.maxMs = medianMs;
    s.samplesMs = {medianMs, medianMs, medianMs};
    s.delta.kind = "max_rel_err";
    s.delta.value = 1e-15;
    s.delta.tolerance = 1e-12;
    s.delta.computed = true;
    s.bytes = 8.0 * static_cast<double>(size);
    s.gbPerS = s.bytes / (medianMs * 1e-3) / 1e9;
    s.itemsPerS = static_cast<double>(size) / (medianMs * 1e-3);
    s.itemName = "points";
    s.peakKind = "read_bandwidth";
    return s;
}

Summary overTolerance(Summary s)
{
    s.delta.value = 1e-3;
    s.outcome = Outcome::Incorrect;
    return s;
}

/// The tick labels the axis drew at its last replot.
QStringList tickLabels(QCPAxis* axis)
{
    QStringList labels;
    for (const QString& label : axis->tickVectorLabels())
        labels << label;
    return labels;
}

void expectDistinct(const QStringList& labels, const char* what)
{
    EXPECT_GE(labels.size(), 2) << what << ": " << labels.join(QStringLiteral(" | ")).toStdString();
    EXPECT_EQ(QSet<QString>(labels.begin(), labels.end()).size(), labels.size())
        << what << ": " << labels.join(QStringLiteral(" | ")).toStdString();
}

std::vector<QCPGraph*> graphsNamed(QCustomPlot* plot, const QString& prefix)
{
    std::vector<QCPGraph*> out;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name().startsWith(prefix))
            out.push_back(plot->graph(i));
    return out;
}

bool sameRgb(const QColor& a, const QColor& b)
{
    return a.rgb() == b.rgb();
}

data::Dataset offsetLine(std::size_t n)
{
    data::Series2D series;
    for (std::size_t i = 0; i < n; ++i) {
        series.x.push_back(1e6 + static_cast<double>(i));
        series.y.push_back(2e6 + 3.0 * static_cast<double>(i) + (i % 2 ? 0.5 : -0.5));
    }
    return data::makeSeriesDataset(std::move(series), "offset line", "test");
}

Summary fitRun(
    const std::string& runId, const std::string& variant, const data::Dataset& dataset, double slope, double intercept)
{
    Summary s = timedRun(runId, variant, dataset.meta().size, 1.0);
    s.datasetHash = dataset.meta().contentHash;
    s.result = std::make_shared<Result>(linreg::makeResult({slope, intercept}));
    return s;
}

// ------------------------------------------------------------------------------------ CIEDE2000 (Sharma et al. 2005)

struct Lab {
    double l, a, b;
};

Lab toLab(const QColor& color)
{
    const auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double r = linear(color.redF()), g = linear(color.greenF()), b = linear(color.blueF());
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    const auto f = [](double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; };
    return {116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))};
}

double deltaE2000(const Lab& p, const Lab& q)
{
    constexpr double kPi = std::numbers::pi;
    const auto deg = [](double radians) { return radians * 180.0 / kPi; };
    const auto rad = [](double degrees) { return degrees * kPi / 180.0; };
    const double c1 = std::hypot(p.a, p.b), c2 = std::hypot(q.a, q.b), cMean = (c1 + c2) / 2.0;
    const double g = 0.5 * (1.0 - std::sqrt(std::pow(cMean, 7) / (std::pow(cMean, 7) + std::pow(25.0, 7))));
    const double a1 = (1.0 + g) * p.a, a2 = (1.0 + g) * q.a;
    const double c1p = std::hypot(a1, p.b), c2p = std::hypot(a2, q.b);
    const auto hue = [&](double b, double a) {
        const double h = deg(std::atan2(b, a));
        return h < 0.0 ? h + 360.0 : h;
    };
    const double h1 = hue(p.b, a1), h2 = hue(q.b, a2);
    double dh = 0.0;
    if (c1p * c2p != 0.0) {
        dh = h2 - h1;
        if (dh > 180.0)
            dh -= 360.0;
        else if (dh < -180.0)
            dh += 360.0;
    }
    const double dL = q.l - p.l, dC = c2p - c1p, dH = 2.0 * std::sqrt(c1p * c2p) * std::sin(rad(dh / 2.0));
    const double lMean = (p.l + q.l) / 2.0, cpMean = (c1p + c2p) / 2.0;
    double hMean = h1 + h2;
    if (c1p * c2p != 0.0)
        hMean = std::abs(h1 - h2) <= 180.0 ? (h1 + h2) / 2.0
            : h1 + h2 < 360.0              ? (h1 + h2 + 360.0) / 2.0
                                           : (h1 + h2 - 360.0) / 2.0;
    const double t = 1.0 - 0.17 * std::cos(rad(hMean - 30.0)) + 0.24 * std::cos(rad(2.0 * hMean))
        + 0.32 * std::cos(rad(3.0 * hMean + 6.0)) - 0.20 * std::cos(rad(4.0 * hMean - 63.0));
    const double dTheta = 30.0 * std::exp(-std::pow((hMean - 275.0) / 25.0, 2));
    const double rc = 2.0 * std::sqrt(std::pow(cpMean, 7) / (std::pow(cpMean, 7) + std::pow(25.0, 7)));
    const double sl = 1.0 + 0.015 * std::pow(lMean - 50.0, 2) / std::sqrt(20.0 + std::pow(lMean - 50.0, 2));
    const double sc = 1.0 + 0.045 * cpMean, sh = 1.0 + 0.015 * cpMean * t;
    const double rt = -std::sin(rad(2.0 * dTheta)) * rc;
    return std::sqrt(std::pow(dL / sl, 2) + std::pow(dC / sc, 2) + std::pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh));
}

} // namespace

// ---------------------------------------------------------------------------------------------------- palette

TEST(SeriesPalette, CieDe2000IsCorrectOnSharmasPairs)
{
    // Pairs 1 and 7 of Sharma, Wu & Dalal's test data, to four decimals.
    EXPECT_NEAR(deltaE2000({50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}), 2.0425, 1e-4);
    EXPECT_NEAR(deltaE2000({50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}), 2.3669, 1e-4);
}

TEST(SeriesPalette, TheFirstSixteenColoursStandApartOnBothThemes)
{
    constexpr double kMinDistance = 15.0; // CIEDE2000: about twice what a glance tells apart on a thin line
    constexpr int kColours = 16; // theme.h's kDistinctSeriesColors: an spmv sweep with user kernels
    for (bool dark : {false, true}) {
        const QColor background = (dark ? darkPalette() : lightPalette()).color(QPalette::Base);
        for (int i = 0; i < kColours; ++i) {
            const Lab a = toLab(seriesColor(i, dark));
            EXPECT_GE(deltaE2000(a, toLab(background)), 20.0) << "colour " << i << (dark ? " (dark)" : " (light)");
            for (int j = 0; j < i; ++j)
                EXPECT_GE(deltaE2000(a, toLab(seriesColor(j, dark))), kMinDistance)
                    << "colours " << j << " and " << i << (dark ? " (dark)" : " (light)") << ": "
                    << seriesColor(j, dark).name().toStdString() << " " << seriesColor(i, dark).name().toStdString();
        }
    }
}

// ---------------------------------------------------------------------------------------------------- ticks

TEST(ChartTicks, AnOffsetRegressionLabelsItsAxesAsOffsetsAndShowsItsPoints)
{
    ResultsModel model;
    LinregView view(&model);
    view.resize(900, 600);
    const data::Dataset dataset = offsetLine(200);
    view.setDataset(dataset);
    model.addSummary(fitRun("f64", "shared_tree", dataset, 3.0, -1e6));
    // A float32 fit on such data can be far off: its line must not squash the points into one row of pixels.
    model.addSummary(overTolerance(fitRun("f32", "naive_f32", dataset, 0.0, 5e8)));
    view.rebuildNow();
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);

    for (QCPAxis* axis : {view.plot()->xAxis, view.plot()->yAxis}) {
        const QStringList labels = tickLabels(axis);
        expectDistinct(labels, "offset axis");
        for (const QString& label : labels)
            EXPECT_LE(label.size(), 5) << label.toStdString(); // offsets from 1 000 000, not 1000150
    }
    EXPECT_EQ(view.plot()->xAxis->label(), QStringLiteral("x − 1\u202f000\u202f000"));
    EXPECT_EQ(view.plot()->yAxis->label(), QStringLiteral("y − 2\u202f000\u202f000"));

    // The data fills half the plot's height at least: its 600-unit rise is half the y range or more.
    const QCPRange y = view.plot()->yAxis->range();
    EXPECT_GE(600.0 / y.size(), 0.45) << y.lower << " .. " << y.upper;
    EXPECT_LE(y.lower, 2e6 - 0.5);
    EXPECT_GE(y.upper, 2e6 + 3.0 * 199 + 0.5);
}

TEST(ChartTicks, ANarrowLogSweepGetsDistinctLabels)
{
    ResultsModel model;
    SweepChart chart(&model);
    chart.resize(900, 600);
    int run = 0;
    for (std::uint64_t size : {20u, 22u, 24u, 26u, 28u}) {
        ++run;
        model.addSummary(timedRun("r" + std::to_string(run), "a", size, 20.0 + 0.5 * static_cast<double>(run)));
    }
    chart.rebuildNow();
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    expectDistinct(tickLabels(chart.plot()->xAxis), "sweep x");
    expectDistinct(tickLabels(chart.plot()->yAxis), "sweep y");
}

TEST(ChartTicks, AWideLogSweepKeepsDecades)
{
    ResultsModel model;
    SweepChart chart(&model);
    chart.resize(900, 600);
    model.addSummary(timedRun("r1", "a", 1000, 0.01));
    model.addSummary(timedRun("r2", "a", 1000000, 10.0));
    chart.rebuildNow();
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QStringList labels = tickLabels(chart.plot()->xAxis);
    expectDistinct(labels, "sweep x");
    // The exponent's letter is the locale's ("1e+04" in C, "1E+04" in en_US).
    EXPECT_TRUE(labels.contains(QStringLiteral("1e+04"), Qt::CaseInsensitive))
        << labels.join(QLatin1Char(' ')).toStdString();
}

TEST(ChartTicks, ASweepOfOneSizeIsNotDecadesOfNothing)
{
    ResultsModel model;
    SweepChart sweep(&model);
    SpeedupChart speedup(&model);
    sweep.rebuildNow(); // an empty chart first: the axes keep QCustomPlot's default range
    speedup.rebuildNow();
    model.addSummary(timedRun("r1", "reference", 200000, 3.0));
    model.addSummary(timedRun("f1", "fast", 200000, 1.0));
    sweep.rebuildNow();
    speedup.rebuildNow();
    for (ChartView* chart : std::initializer_list<ChartView*> {&sweep, &speedup}) {
        const QCPRange x = chart->plot()->xAxis->range();
        EXPECT_LT(x.lower, 200000.0) << chart->title().toStdString();
        EXPECT_GT(x.upper, 200000.0) << chart->title().toStdString();
        EXPECT_LT(x.upper / x.lower, 10.0) << chart->title().toStdString() << ": " << x.lower << " .. " << x.upper;
    }
}

TEST(ChartTicks, DecadesReadAsPowersNotAsRoundingNoise)
{
    ResultsModel model;
    CorrectnessChart chart(&model);
    chart.resize(900, 600);
    model.addSummary(overTolerance(timedRun("a1", "a", 1024, 1.0)));
    Summary exact = timedRun("b1", "b", 1024, 1.0);
    exact.delta.value = 0.0;
    model.addSummary(exact);
    chart.rebuildNow();
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QStringList labels = tickLabels(chart.plot()->yAxis);
    expectDistinct(labels, "correctness y");
    for (const QString& label : labels) // "1e-02", not "1.0000000000000002e-02"
        EXPECT_LE(label.size(), 6) << label.toStdString();
}

// ---------------------------------------------------------------------------------------------------- speedup

TEST(SpeedupAxis, OnePointIsCentredOnOneAndNeverBelowZero)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    chart.resize(900, 600);
    model.addSummary(timedRun("r1", "reference", 1024, 3.0));
    model.addSummary(timedRun("f1", "fast", 1024, 1.0)); // speedup 3
    chart.setBaseline(QStringLiteral("reference"));
    chart.rebuildNow();
    chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPAxis* y = chart.plot()->yAxis;
    EXPECT_EQ(y->scaleType(), QCPAxis::stLogarithmic);
    EXPECT_GT(y->range().lower, 0.0);
    EXPECT_LT(y->range().lower, 1.0);
    EXPECT_GT(y->range().upper, 3.0);
    EXPECT_LT(y->range().upper, 4.5); // fits its data: no decades of nothing
    expectDistinct(tickLabels(y), "speedup y");
}

TEST(SpeedupAxis, SpansTheDataAndOneWithoutEmptyDecades)
{
    for (const auto& [fastMs, lowestShown, highestShown] : std::vector<std::tuple<double, double, double>> {
             {2.94, 0.6, 1.6}, // speedup 1.02: about 1× either side, not 0 to 1.1
             {300.0, 0.001, 1.6}, // 0.01×: far slower, still above zero
             {0.003, 0.6, 3000.0}}) { // 1000×
        ResultsModel model;
        SpeedupChart chart(&model);
        chart.resize(900, 600);
        model.addSummary(timedRun("r1", "reference", 1024, 3.0));
        model.addSummary(timedRun("f1", "fast", 1024, fastMs));
        chart.setBaseline(QStringLiteral("reference"));
        chart.rebuildNow();
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QCPRange y = chart.plot()->yAxis->range();
        const double speedup = 3.0 / fastMs;
        EXPECT_GT(y.lower, 0.0) << speedup;
        EXPECT_LT(y.lower, std::min(speedup, 1.0)) << speedup;
        EXPECT_GT(y.upper, std::max(speedup, 1.0)) << speedup;
        EXPECT_GE(y.lower, lowestShown * 0.5) << speedup;
        EXPECT_LE(y.upper, highestShown) << speedup;
        expectDistinct(tickLabels(chart.plot()->yAxis), "speedup y");
    }
}

// ---------------------------------------------------------------------------------------------------- tolerance

TEST(OverTolerance, EachVariantKeepsItsColourOnTheSweep)
{
    ResultsModel model;
    SweepChart chart(&model);
    model.addSummary(overTolerance(timedRun("a1", "a", 1024, 1.0)));
    model.addSummary(overTolerance(timedRun("b1", "b", 1024, 2.0)));
    model.addSummary(timedRun("b2", "b", 2048, 4.0));
    chart.rebuildNow();
    for (const char* variant : {"a", "b"}) {
        const QString name = QString::fromLatin1(variant);
        const QColor own = seriesColor(model.variantIndex(name), false);
        const auto marks = graphsNamed(chart.plot(), name + QStringLiteral(" ✗ over tolerance"));
        ASSERT_EQ(marks.size(), 1u) << variant;
        EXPECT_TRUE(sameRgb(marks[0]->scatterStyle().pen().color(), own)) << variant;
        EXPECT_EQ(marks[0]->scatterStyle().shape(), QCPScatterStyle::ssCross);
        EXPECT_TRUE(chart.plot()->legend->hasItemWithPlottable(marks[0]));
    }
    for (int i = 0; i < chart.plot()->graphCount(); ++i) {
        EXPECT_FALSE(sameRgb(chart.plot()->graph(i)->pen().color(), alarmColor()));
        EXPECT_FALSE(sameRgb(chart.plot()->graph(i)->scatterStyle().pen().color(), alarmColor()));
    }
}

TEST(OverTolerance, EachVariantKeepsItsColourOnTheSpeedupChart)
{
    ResultsModel model;
    SpeedupChart chart(&model);
    model.addSummary(timedRun("r1", "reference", 1024, 3.0));
    model.addSummary(overTolerance(timedRun("f1", "fast", 1024, 1.0)));
    chart.setBaseline(QStringLiteral("reference"));
    chart.rebuildNow();
    const auto marks = graphsNamed(chart.plot(), QStringLiteral("fast ✗ over tolerance"));
    ASSERT_EQ(marks.size(), 1u);
    EXPECT_TRUE(sameRgb(marks[0]->scatterStyle().pen().color(), seriesColor(model.variantIndex("fast"), false)));
}

TEST(OverTolerance, BarsAndDeltasKeepTheVariantsColour)
{
    ResultsModel model;
    ThroughputChart throughput(&model);
    CorrectnessChart correctness(&model);
    model.addSummary(overTolerance(timedRun("a1", "a", 1024, 1.0)));
    model.addSummary(timedRun("b1", "b", 1024, 2.0));
    throughput.rebuildNow();
    correctness.rebuildNow();
    const QColor a = seriesColor(model.variantIndex("a"), false);
    bool sawBar = false;
    for (int i = 0; i < throughput.plot()->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(throughput.plot()->plottable(i));
            bars && bars->name().startsWith(QLatin1String("a"))) {
            sawBar = true;
            EXPECT_TRUE(sameRgb(bars->brush().color(), a));
            EXPECT_EQ(bars->pen().style(), Qt::DashLine);
            EXPECT_TRUE(bars->name().endsWith(QStringLiteral("✗ over tolerance")));
        }
    EXPECT_TRUE(sawBar);
    const auto deltas = graphsNamed(correctness.plot(), QStringLiteral("a"));
    ASSERT_EQ(deltas.size(), 1u);
    EXPECT_TRUE(sameRgb(deltas[0]->scatterStyle().pen().color(), a));
    EXPECT_EQ(deltas[0]->scatterStyle().shape(), QCPScatterStyle::ssCross);
}

TEST(OverTolerance, LinesKeepTheVariantsColourDashed)
{
    ResultsModel model;
    LinregView linreg(&model);
    ResultValuesView values(&model);
    TimelineChart timeline(&model);
    const data::Dataset dataset = offsetLine(20);
    linreg.setDataset(dataset);
    values.setDataset(dataset);
    model.addSummary(overTolerance(fitRun("a1", "a", dataset, 2.9, -1e6)));
    model.addSummary(fitRun("b1", "b", dataset, 3.0, -1e6));
    linreg.rebuildNow();
    values.rebuildNow();
    timeline.rebuildNow();
    const QColor a = seriesColor(model.variantIndex("a"), false);
    for (ChartView* chart : std::initializer_list<ChartView*> {&linreg, &values, &timeline}) {
        const auto lines = graphsNamed(chart->plot(), QStringLiteral("a"));
        ASSERT_FALSE(lines.empty()) << chart->title().toStdString();
        bool dashed = false;
        for (QCPGraph* line : lines) {
            if (line->pen().style() != Qt::DashLine)
                continue;
            dashed = true;
            EXPECT_TRUE(sameRgb(line->pen().color(), a)) << chart->title().toStdString();
            EXPECT_TRUE(line->name().contains(QStringLiteral("✗ over tolerance"))) << line->name().toStdString();
        }
        EXPECT_TRUE(dashed) << chart->title().toStdString();
    }
}

// ---------------------------------------------------------------------------------------------------- legend

TEST(ChartLegend, AnEmptyLegendIsHiddenAndComesBackWithData)
{
    ResultsModel model;
    SweepChart sweep(&model);
    SpeedupChart speedup(&model);
    sweep.rebuildNow();
    speedup.rebuildNow();
    EXPECT_FALSE(sweep.plot()->legend->visible());
    EXPECT_FALSE(speedup.plot()->legend->visible());
    model.addSummary(timedRun("a1", "a", 1024, 1.0));
    sweep.rebuildNow();
    EXPECT_TRUE(sweep.plot()->legend->visible());
}
