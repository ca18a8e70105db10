// Tests of the spmv workload's view: row-length bins (exact and powers of two) and the summary checked against
// hand-computed values, empty and 1×1 matrices, switching datasets, palettes, export, and large matrices counted
// on the thread pool without blocking the GUI thread.
#include "compute/core/registry.h"
#include "data/sparse_matrix.h"
#include "gui/results_model.h"
#include "gui/theme.h"
#include "gui/views/spmv_view.h"
#include "gui/views/workload_view.h"

#include <QElapsedTimer>
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <memory>
#include <qcustomplot.h>
#include <string>
#include <vector>

using namespace ks;
using namespace ks::gui;

namespace {

/// A generated spmv dataset through the registry, as the Dataset panel makes one.
data::Dataset generated(const std::map<std::string, std::string>& params)
{
    const Workload* spmv = defaultRegistry().find("spmv");
    if (!spmv)
        throw std::logic_error("no spmv workload registered");
    return spmv->generate(ParamSet::parse(spmv->generatorParameters(), params));
}

/// A rows × cols matrix whose row r holds lengths[r] entries in columns 0, 1, …
data::Dataset withRowLengths(std::uint64_t cols, const std::vector<std::uint64_t>& lengths)
{
    data::SparseSystem system;
    data::CsrMatrix& m = system.matrix;
    m.rows = lengths.size();
    m.cols = cols;
    m.rowPtr.reserve(lengths.size() + 1);
    m.rowPtr.push_back(0);
    for (const std::uint64_t length : lengths) {
        for (std::uint64_t c = 0; c < length; ++c) {
            m.colIdx.push_back(static_cast<std::int32_t>(c));
            m.values.push_back(1.0);
        }
        m.rowPtr.push_back(static_cast<std::int64_t>(m.colIdx.size()));
    }
    system.x.assign(cols, 1.0);
    system.vectorSource = "ones";
    return data::makeSparseDataset(std::move(system), "hand-made", "test");
}

/// Row lengths counted the plain way, for comparison with the view's one-pass profile.
std::vector<std::uint64_t> lengthsOf(const data::Dataset& dataset)
{
    const data::CsrMatrix& m = dataset.as<data::SparseSystem>().matrix;
    std::vector<std::uint64_t> lengths;
    for (std::uint64_t r = 0; r < m.rows; ++r)
        lengths.push_back(static_cast<std::uint64_t>(m.rowPtr[r + 1] - m.rowPtr[r]));
    return lengths;
}

QCPBars* barsNamed(const ChartView& view, const QString& name)
{
    for (int i = 0; i < view.plot()->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(view.plot()->plottable(i)); bars && bars->name() == name)
            return bars;
    return nullptr;
}

/// Bar heights by key.
std::map<int, double> heights(const QCPBars* bars)
{
    std::map<int, double> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        out[static_cast<int>(it->key)] = it->value;
    return out;
}

/// Every text the plot shows: its text elements and its visible text items.
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

QString tickLabel(const ChartView& view, double key)
{
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(view.plot()->xAxis->ticker());
    return ticker ? ticker->ticks().value(key) : QString();
}

QString decimal(double x)
{
    return QLocale().toString(x, 'g', 3);
}

} // namespace

TEST(SpmvView, BandedMatrixHasExactBinsAndTheHandComputedSummary)
{
    ResultsModel model;
    SpmvView view(&model);
    EXPECT_EQ(view.title(), QStringLiteral("Row lengths"));
    // Bandwidth 2 over 10 rows: lengths 3, 4, 5, 5, 5, 5, 5, 5, 4, 3.
    view.setDataset(generated({{"pattern", "banded"}, {"rows", "10"}, {"bandwidth", "2"}}));
    view.rebuildNow();

    ASSERT_TRUE(view.profile().has_value());
    const SpmvView::Profile& p = *view.profile();
    EXPECT_EQ(p.rows, 10u);
    EXPECT_EQ(p.cols, 10u);
    EXPECT_EQ(p.nnz, 44u);
    EXPECT_EQ(p.shortest, 3u);
    EXPECT_EQ(p.longest, 5u);
    EXPECT_DOUBLE_EQ(p.mean, 4.4);
    // Deviations −1.4 (twice), −0.4 (twice), 0.6 (six times): Σd² = 6.4, variance 0.64.
    EXPECT_NEAR(p.stddev, 0.8, 1e-12);
    EXPECT_EQ(p.emptyRows, 0u);
    EXPECT_FALSE(p.logBins);
    ASSERT_EQ(p.bins.size(), 6u);
    const std::uint64_t expected[] = {0, 0, 0, 2, 2, 6};
    for (std::size_t b = 0; b < 6; ++b) {
        EXPECT_EQ(p.bins[b].first, b);
        EXPECT_EQ(p.bins[b].last, b);
        EXPECT_EQ(p.bins[b].rows, expected[b]) << "length " << b;
    }
    EXPECT_EQ(p.threadRows, 10u);
    EXPECT_EQ(p.warpRows, 0u);
    EXPECT_EQ(p.blockRows, 0u);
    EXPECT_EQ(p.adaptiveWarpRows, 0u);
    EXPECT_DOUBLE_EQ(p.ellSlotsPerNonZero(), 50.0 / 44.0);
    EXPECT_DOUBLE_EQ(p.warpBalance, 44.0 / 50.0); // one warp of 10 rows waiting for a row of 5
    EXPECT_DOUBLE_EQ(p.density(), 0.44);

    // The bars: rows by length, the empty rows apart at 0; a linear count axis with whole-number ticks.
    QCPBars* rows = barsNamed(view, QStringLiteral("rows"));
    QCPBars* empty = barsNamed(view, QStringLiteral("empty rows"));
    ASSERT_NE(rows, nullptr);
    ASSERT_NE(empty, nullptr);
    EXPECT_EQ(heights(rows), (std::map<int, double> {{1, 0.0}, {2, 0.0}, {3, 2.0}, {4, 2.0}, {5, 6.0}}));
    EXPECT_EQ(heights(empty), (std::map<int, double> {{0, 0.0}}));
    EXPECT_EQ(view.plot()->yAxis->scaleType(), QCPAxis::stLinear);
    EXPECT_EQ(tickLabel(view, 0.0), QStringLiteral("0\nempty"));
    EXPECT_EQ(tickLabel(view, 5.0), QStringLiteral("5"));
    EXPECT_FALSE(view.plot()->xAxis->label().isEmpty());
    EXPECT_FALSE(view.plot()->yAxis->label().isEmpty());

    const QString summary = view.summaryText();
    EXPECT_TRUE(summary.contains(QStringLiteral("Shape: 10 × 10"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("Non-zeros: 44 (density 44%)"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("min 3 · mean %1 · max 5").arg(decimal(4.4)))) << summary.toStdString();
    EXPECT_TRUE(
        summary.contains(QStringLiteral("Standard deviation: %1 (%2% of the mean)").arg(decimal(0.8), decimal(18.2))))
        << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("Empty rows: 0 (0%)"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("ELL would store %1 slots per non-zero").arg(decimal(1.14))))
        << summary.toStdString();
    EXPECT_FALSE(summary.contains(QStringLiteral("skips"))); // 1.14 is well under ell's limit of 3
    EXPECT_TRUE(summary.contains(QStringLiteral("Rows of 0–8 non-zeros: 10 (a thread each)")));
    EXPECT_TRUE(summary.contains(QStringLiteral("Rows longer than 64: 0 (the row-binning")));
    EXPECT_TRUE(summary.contains(QStringLiteral("lanes busy 88%")));
    // The summary is drawn in the plot itself, so that an export carries it.
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("Shape: 10 × 10")));
}

TEST(SpmvView, AnAllEmptyMatrixIsOneBinOfEmptyRows)
{
    ResultsModel model;
    SpmvView view(&model);
    view.setDataset(withRowLengths(7, {0, 0, 0, 0, 0}));
    view.rebuildNow();

    ASSERT_TRUE(view.profile().has_value());
    const SpmvView::Profile& p = *view.profile();
    EXPECT_EQ(p.rows, 5u);
    EXPECT_EQ(p.nnz, 0u);
    EXPECT_EQ(p.emptyRows, 5u);
    EXPECT_EQ(p.shortest, 0u);
    EXPECT_EQ(p.longest, 0u);
    EXPECT_EQ(p.mean, 0.0);
    EXPECT_EQ(p.stddev, 0.0);
    ASSERT_EQ(p.bins.size(), 1u);
    EXPECT_EQ(p.bins[0].rows, 5u);
    EXPECT_EQ(p.ellSlotsPerNonZero(), 0.0);
    EXPECT_EQ(p.warpBalance, 0.0);
    EXPECT_EQ(heights(barsNamed(view, QStringLiteral("empty rows"))), (std::map<int, double> {{0, 5.0}}));
    EXPECT_TRUE(heights(barsNamed(view, QStringLiteral("rows"))).empty());

    const QString summary = view.summaryText();
    EXPECT_TRUE(summary.contains(QStringLiteral("Empty rows: 5 (100%)"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("No non-zeros"))) << summary.toStdString();
    EXPECT_FALSE(summary.contains(QStringLiteral("ELL")));
}

TEST(SpmvView, OneByOneMatrices)
{
    ResultsModel model;
    SpmvView view(&model);
    view.setDataset(withRowLengths(1, {1}));
    view.rebuildNow();
    ASSERT_TRUE(view.profile().has_value());
    {
        const SpmvView::Profile& p = *view.profile();
        EXPECT_EQ(p.rows, 1u);
        EXPECT_EQ(p.cols, 1u);
        EXPECT_EQ(p.nnz, 1u);
        EXPECT_EQ(p.shortest, 1u);
        EXPECT_EQ(p.longest, 1u);
        EXPECT_EQ(p.mean, 1.0);
        EXPECT_EQ(p.stddev, 0.0);
        ASSERT_EQ(p.bins.size(), 2u);
        EXPECT_EQ(p.bins[0].rows, 0u);
        EXPECT_EQ(p.bins[1].rows, 1u);
        EXPECT_EQ(p.ellSlotsPerNonZero(), 1.0);
        EXPECT_EQ(p.warpBalance, 1.0);
        EXPECT_EQ(p.density(), 1.0);
    }
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("Shape: 1 × 1")));
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("density 100%")));

    view.setDataset(withRowLengths(1, {0}));
    view.rebuildNow();
    ASSERT_TRUE(view.profile().has_value());
    EXPECT_EQ(view.profile()->emptyRows, 1u);
    EXPECT_EQ(view.profile()->bins.size(), 1u);
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("Empty rows: 1 (100%)")));
}

TEST(SpmvView, SixtyFourIsTheLongestExactLengthThenPowersOfTwo)
{
    ResultsModel model;
    SpmvView view(&model);
    view.setDataset(withRowLengths(100, {64, 0, 9, 8}));
    view.rebuildNow();
    ASSERT_TRUE(view.profile().has_value());
    EXPECT_FALSE(view.profile()->logBins);
    EXPECT_EQ(view.profile()->bins.size(), 65u);
    EXPECT_EQ(view.profile()->threadRows, 2u); // 0 and 8
    EXPECT_EQ(view.profile()->warpRows, 2u); // 9 and 64
    EXPECT_EQ(view.profile()->blockRows, 0u);
    EXPECT_EQ(view.profile()->adaptiveWarpRows, 1u); // 64 > 32
    EXPECT_EQ(tickLabel(view, 5.0), QStringLiteral("5")); // 65 bars: every fifth is named
    EXPECT_TRUE(tickLabel(view, 4.0).isEmpty());

    view.setDataset(withRowLengths(100, {65, 0, 9, 8, 1, 3}));
    view.rebuildNow();
    ASSERT_TRUE(view.profile().has_value());
    const SpmvView::Profile& p = *view.profile();
    EXPECT_TRUE(p.logBins);
    // 0 | 1 | 2–3 | 4–7 | 8–15 | 16–31 | 32–63 | 64–127
    ASSERT_EQ(p.bins.size(), 8u);
    const std::uint64_t rows[] = {1, 1, 1, 0, 2, 0, 0, 1};
    for (std::size_t b = 0; b < 8; ++b) {
        EXPECT_EQ(p.bins[b].first, b == 0 ? 0u : std::uint64_t(1) << (b - 1));
        EXPECT_EQ(p.bins[b].last, b == 0 ? 0u : (std::uint64_t(1) << b) - 1);
        EXPECT_EQ(p.bins[b].rows, rows[b]) << "bin " << b;
    }
    EXPECT_EQ(SpmvView::binLabel(p.bins[2]), QStringLiteral("2–3"));
    EXPECT_EQ(tickLabel(view, 7.0), QStringLiteral("64–127"));
    EXPECT_EQ(p.blockRows, 1u);
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("Rows longer than 64: 1 (the row-binning")));
    // 6 rows padded to 65 for 86 non-zeros: 4.53 slots each, over ell's limit.
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("ELL would store %1 slots").arg(decimal(390.0 / 86.0))));
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("the ell variant skips this matrix")));
}

TEST(SpmvView, PowerLawMatrixGetsLogBinsAndALogCountAxis)
{
    ResultsModel model;
    SpmvView view(&model);
    const data::Dataset dataset
        = generated({{"pattern", "powerlaw"}, {"rows", "20000"}, {"per_row", "8"}, {"exponent", "1.6"}, {"seed", "3"}});
    view.setDataset(dataset);
    view.rebuildNow();
    ASSERT_TRUE(view.profile().has_value());
    const SpmvView::Profile& p = *view.profile();

    // The same numbers counted the plain way.
    const std::vector<std::uint64_t> lengths = lengthsOf(dataset);
    ASSERT_EQ(p.rows, lengths.size());
    const std::uint64_t longest = *std::max_element(lengths.begin(), lengths.end());
    ASSERT_GT(longest, SpmvView::kMaxExactLength) << "the generator made no long tail";
    EXPECT_TRUE(p.logBins);
    EXPECT_EQ(p.longest, longest);
    EXPECT_EQ(p.shortest, *std::min_element(lengths.begin(), lengths.end()));
    double sum = 0.0;
    for (const std::uint64_t l : lengths)
        sum += static_cast<double>(l);
    const double mean = sum / static_cast<double>(lengths.size());
    double squares = 0.0;
    for (const std::uint64_t l : lengths)
        squares += (static_cast<double>(l) - mean) * (static_cast<double>(l) - mean);
    EXPECT_NEAR(p.mean, mean, 1e-12 * mean);
    EXPECT_NEAR(p.stddev, std::sqrt(squares / static_cast<double>(lengths.size())), 1e-9 * p.stddev);
    std::vector<std::uint64_t> bins(static_cast<std::size_t>(std::bit_width(longest)) + 1, 0);
    std::uint64_t empty = 0, block = 0, tileLong = 0;
    for (const std::uint64_t l : lengths) {
        ++bins[static_cast<std::size_t>(std::bit_width(l))];
        empty += l == 0;
        block += l > 64;
        tileLong += l > 4093;
    }
    ASSERT_EQ(p.bins.size(), bins.size());
    for (std::size_t b = 0; b < bins.size(); ++b)
        EXPECT_EQ(p.bins[b].rows, bins[b]) << "bin " << b;
    EXPECT_EQ(p.emptyRows, empty);
    EXPECT_EQ(p.blockRows, block);
    EXPECT_EQ(p.tileLongRows, tileLong);
    EXPECT_GT(tileLong, 0u) << "the generator made no row longer than row_tiles' tiles";
    EXPECT_TRUE(
        view.summaryText().contains(QStringLiteral("Rows longer than %1: %2 (row_tiles")
                                        .arg(QLocale().toString(4093), QLocale().toString(qulonglong(tileLong)))))
        << view.summaryText().toStdString();
    EXPECT_GT(p.stddev, p.mean); // the point of the pattern: the spread exceeds the mean
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("Standard deviation: %1 (%2 times the mean)")
                                                .arg(decimal(p.stddev), decimal(p.stddev / p.mean))))
        << view.summaryText().toStdString();

    // A log count axis reaching below one row, so the tail's single rows are bars too.
    EXPECT_EQ(view.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    EXPECT_LT(view.plot()->yAxis->range().lower, 1.0);
    EXPECT_GE(view.plot()->yAxis->range().upper, static_cast<double>(*std::max_element(bins.begin(), bins.end())));
    EXPECT_EQ(tickLabel(view, 3.0), QStringLiteral("4–7"));
    EXPECT_GE(view.plot()->xAxis->range().upper, static_cast<double>(bins.size() - 1));
    EXPECT_TRUE(view.summaryText().contains(
        QStringLiteral("Rows longer than 64: %1").arg(QLocale().toString(static_cast<qulonglong>(block)))));
}

TEST(SpmvView, TheBarsUseTheirPanel)
{
    ResultsModel model;
    SpmvView view(&model);
    view.resize(1000, 700);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.setDataset(
        generated({{"pattern", "powerlaw"}, {"rows", "20000"}, {"per_row", "8"}, {"exponent", "1.6"}, {"seed", "3"}}));
    view.rebuildNow();
    ASSERT_TRUE(view.profile().has_value());
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
    // The axis rect (bars, ticks and labels) takes the panel's height but for the caption: the summary's lines
    // beside it once held it to a third.
    const double share = static_cast<double>(view.plot()->axisRect()->outerRect().height()) / view.plot()->height();
    EXPECT_GE(share, 0.85) << view.plot()->axisRect()->outerRect().height() << " of " << view.plot()->height();
}

TEST(SpmvView, SwitchingDatasets)
{
    ResultsModel model;
    SpmvView view(&model);
    QSignalSpy ready(&view, &SpmvView::profileReady);
    EXPECT_FALSE(view.profile().has_value());
    view.rebuildNow();
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("No sparse matrix yet")));

    const data::Dataset banded = generated({{"pattern", "banded"}, {"rows", "10"}, {"bandwidth", "2"}});
    view.setDataset(banded);
    EXPECT_EQ(ready.count(), 1);
    EXPECT_EQ(view.profile()->nnz, 44u);

    // A 2-D Laplacian of a 4×4 grid: 4 corner rows of 3, 8 edge rows of 4, 4 inner rows of 5.
    view.setDataset(generated({{"pattern", "laplacian2d"}, {"rows", "16"}}));
    view.rebuildNow();
    EXPECT_EQ(ready.count(), 2);
    ASSERT_TRUE(view.profile().has_value());
    ASSERT_EQ(view.profile()->bins.size(), 6u);
    EXPECT_EQ(view.profile()->bins[3].rows, 4u);
    EXPECT_EQ(view.profile()->bins[4].rows, 8u);
    EXPECT_EQ(view.profile()->bins[5].rows, 4u);
    EXPECT_EQ(heights(barsNamed(view, QStringLiteral("rows"))).at(4), 8.0);

    // The same matrix announced again (each run of a sweep does) is not counted again.
    view.setDataset(banded);
    view.setDataset(banded);
    EXPECT_EQ(ready.count(), 3);
    EXPECT_EQ(view.profile()->nnz, 44u);

    // A dataset of another kind empties the view.
    view.setDataset(data::Dataset());
    view.rebuildNow();
    EXPECT_FALSE(view.profile().has_value());
    EXPECT_TRUE(view.summaryText().isEmpty());
    EXPECT_TRUE(heights(barsNamed(view, QStringLiteral("rows"))).empty());
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("No sparse matrix yet")));

    // Results streaming into the model redraw without recounting.
    view.setDataset(banded);
    const qsizetype before = ready.count();
    Summary s;
    s.runId = "r1";
    s.workload = "spmv";
    s.variant = "reference";
    s.outcome = Outcome::Passed;
    model.addSummary(s);
    view.rebuildNow();
    EXPECT_EQ(ready.count(), before);
    EXPECT_EQ(view.profile()->nnz, 44u);
}

namespace {
/// 4M rows (the brief's "large"): every 1024th row holds 100 non-zeros, every other even row one, odd rows none.
data::Dataset largeMatrix()
{
    constexpr std::uint64_t rows = std::uint64_t(1) << 22;
    std::vector<std::uint64_t> lengths(rows);
    for (std::uint64_t r = 0; r < rows; ++r)
        lengths[r] = r % 1024 == 0 ? 100 : r % 2 == 0 ? 1 : 0;
    return withRowLengths(128, lengths);
}
} // namespace

TEST(SpmvView, LargeMatricesAreCountedOffTheGuiThread)
{
    const data::Dataset big = largeMatrix();
    const data::CsrMatrix& matrix = big.as<data::SparseSystem>().matrix;
    ASSERT_GT(matrix.rows, SpmvView::kSynchronousRows);
    QElapsedTimer clock;
    clock.start();
    const SpmvView::Profile direct = SpmvView::profileOf(matrix);
    const qint64 directNs = clock.nsecsElapsed();
    std::cout << "[ info     ] one pass over " << matrix.rows << " rows: " << static_cast<double>(directNs) / 1e6
              << " ms (" << static_cast<double>(directNs) / static_cast<double>(matrix.rows) << " ns a row)\n";
    EXPECT_EQ(direct.emptyRows, matrix.rows / 2);
    EXPECT_EQ(direct.longest, 100u);
    EXPECT_EQ(direct.blockRows, matrix.rows / 1024);

    ResultsModel model;
    SpmvView view(&model);
    QSignalSpy ready(&view, &SpmvView::profileReady);
    clock.restart();
    view.setDataset(big);
    const qint64 setNs = clock.nsecsElapsed();
    // The count is delivered through the event loop, so it cannot have arrived yet, however fast the pool was.
    EXPECT_TRUE(view.computing());
    EXPECT_FALSE(view.profile().has_value());
    EXPECT_EQ(ready.count(), 0);
    EXPECT_LT(setNs, 50'000'000) << "setDataset took " << setNs / 1000 << " µs";
    view.rebuildNow();
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("Counting the lengths of"))) << plotText(view).toStdString();

    // The event loop turns while the pool counts: a 0 ms timer fires over and over.
    int ticks = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&ticks] { ++ticks; });
    ticker.start(0);
    ASSERT_TRUE(ready.wait(10'000));
    ticker.stop();
    EXPECT_GT(ticks, 0);
    EXPECT_FALSE(view.computing());
    ASSERT_TRUE(view.profile().has_value());
    const SpmvView::Profile& p = *view.profile();
    EXPECT_EQ(p.rows, direct.rows);
    EXPECT_EQ(p.nnz, direct.nnz);
    EXPECT_EQ(p.emptyRows, direct.emptyRows);
    EXPECT_DOUBLE_EQ(p.stddev, direct.stddev);
    ASSERT_EQ(p.bins.size(), direct.bins.size());
    for (std::size_t b = 0; b < p.bins.size(); ++b)
        EXPECT_EQ(p.bins[b].rows, direct.bins[b].rows);
    view.rebuildNow();
    EXPECT_FALSE(plotText(view).contains(QStringLiteral("Counting")));
    EXPECT_EQ(heights(barsNamed(view, QStringLiteral("empty rows"))).at(0), static_cast<double>(matrix.rows / 2));

    // Switching away while a large matrix is being counted: its count, when it ends, is not shown.
    const data::Dataset small = withRowLengths(4, {1, 2, 3});
    view.setDataset(largeMatrix());
    view.setDataset(small);
    EXPECT_FALSE(view.computing());
    const qsizetype shown = ready.count();
    QThreadPool::globalInstance()->waitForDone(10'000);
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    EXPECT_EQ(ready.count(), shown);
    ASSERT_TRUE(view.profile().has_value());
    EXPECT_EQ(view.profile()->rows, 3u);

    // A view destroyed while counting leaves the pool to finish on its own copy of the matrix.
    {
        SpmvView doomed(&model);
        doomed.setDataset(largeMatrix());
        EXPECT_TRUE(doomed.computing());
    }
    QThreadPool::globalInstance()->waitForDone(10'000);
    QCoreApplication::processEvents();
}

TEST(SpmvView, LightAndDarkPalettesRecolourTheBarsAndTexts)
{
    ResultsModel model;
    SpmvView view(&model);
    view.setDataset(withRowLengths(8, {0, 1, 2, 2}));
    view.setPalette(lightPalette());
    view.rebuildNow();
    QCPBars* rows = barsNamed(view, QStringLiteral("rows"));
    const QColor light = rows->brush().color();
    const QColor lightEmpty = barsNamed(view, QStringLiteral("empty rows"))->brush().color();
    EXPECT_NE(light, lightEmpty); // the empty rows stand apart
    EXPECT_EQ(view.plot()->xAxis->tickLabelColor(), lightPalette().color(QPalette::WindowText));

    view.setPalette(darkPalette());
    view.rebuildNow();
    EXPECT_NE(rows->brush().color(), light);
    EXPECT_GT(rows->brush().color().lightness(), light.lightness()); // lighter bars on a dark background
    EXPECT_EQ(view.plot()->xAxis->tickLabelColor(), darkPalette().color(QPalette::WindowText));
    for (QCPLayoutElement* element : view.plot()->plotLayout()->elements(true)) {
        if (auto* text = qobject_cast<QCPTextElement*>(element)) {
            EXPECT_EQ(text->textColor(), darkPalette().color(QPalette::WindowText));
        }
    }
}

TEST(SpmvView, ExportsTheChartWithItsSummary)
{
    ResultsModel model;
    SpmvView view(&model);
    view.resize(900, 500);
    view.setDataset(generated({{"pattern", "powerlaw"}, {"rows", "5000"}, {"per_row", "6"}, {"exponent", "1.6"}}));
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    for (const char* name : {"rows.png", "rows.pdf"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QString error;
        EXPECT_TRUE(view.exportTo(path, &error)) << error.toStdString();
        EXPECT_GT(QFileInfo(path).size(), 1000) << name;
    }
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("ELL would store")));
}

TEST(SpmvView, TheFactoryMakesItForSpmv)
{
    ResultsModel model;
    std::unique_ptr<WorkloadView> view(createWorkloadView("spmv", &model, nullptr));
    EXPECT_NE(qobject_cast<SpmvView*>(view.get()), nullptr);
}
