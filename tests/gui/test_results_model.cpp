// The results model: live rows from Samples, completion by Summaries, and Qt's own model consistency checks.
#include "gui/results_model.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <gtest/gtest.h>

namespace ks::gui {
namespace {

Sample sampleOf(const std::string& run, const std::string& variant, int rep, double ms)
{
    return Sample {run, "linreg", variant, 1000, rep, ms, std::nullopt, std::nullopt};
}

Summary summaryOf(const std::string& run, const std::string& variant, Outcome outcome, double delta, double tolerance)
{
    Summary s;
    s.runId = run;
    s.workload = "linreg";
    s.variant = variant;
    s.size = 1000;
    s.outcome = outcome;
    s.repetitions = 3;
    s.samplesMs = {1.0, 2.0, 3.0};
    s.medianMs = 2.0;
    s.delta.kind = "max_rel_err";
    s.delta.value = delta;
    s.delta.tolerance = tolerance;
    s.delta.computed = true;
    return s;
}

TEST(ResultsModel, SamplesCreateALiveRowThatTheSummaryCompletes)
{
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy appended(&model, &ResultsModel::samplesAppended);
    model.addSample(sampleOf("r-1", "fused_grid", 0, 4.0));
    model.addSample(sampleOf("r-1", "fused_grid", 1, 2.0));
    model.addSample(sampleOf("r-1", "fused_grid", 2, 3.0));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_TRUE(model.isRunning(0));
    EXPECT_EQ(appended.count(), 3);
    EXPECT_EQ(model.summary(0).repetitions, 3);
    EXPECT_DOUBLE_EQ(model.summary(0).medianMs, 3.0);
    EXPECT_EQ(model.index(0, ResultsModel::OutcomeColumn).data().toString(), QStringLiteral("running"));
    EXPECT_TRUE(model.finishedSummaries().empty());

    model.addSummary(summaryOf("r-1", "fused_grid", Outcome::Passed, 1e-16, 1e-9));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_FALSE(model.isRunning(0));
    EXPECT_EQ(model.index(0, ResultsModel::OutcomeColumn).data().toString(), QStringLiteral("passed"));
    EXPECT_EQ(model.finishedSummaries().size(), 1u);
}

TEST(ResultsModel, RunsWithoutSamplesGetTheirOwnRows)
{
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    Summary skipped = summaryOf("r-2", "cub", Outcome::Skipped, 0, 0);
    skipped.delta.computed = false;
    skipped.repetitions = 0;
    skipped.message = "no CUDA device/driver";
    model.addSummary(skipped);
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.index(0, ResultsModel::MedianColumn).data().toString(), QStringLiteral("—"));
    EXPECT_EQ(model.index(0, ResultsModel::MessageColumn).data().toString(), QStringLiteral("no CUDA device/driver"));
}

TEST(ResultsModel, OverToleranceIsFlaggedAndRed)
{
    ResultsModel model;
    model.addSummary(summaryOf("r-3", "cpu_four_sums", Outcome::Incorrect, 0.5, 1e-9));
    const QModelIndex delta = model.index(0, ResultsModel::DeltaColumn);
    EXPECT_TRUE(delta.data(ResultsModel::OverToleranceRole).toBool());
    EXPECT_TRUE(delta.data(Qt::ForegroundRole).isValid());
    EXPECT_EQ(delta.data().toString(), QStringLiteral("5.00e-01"));
    EXPECT_DOUBLE_EQ(delta.data(ResultsModel::SortRole).toDouble(), 0.5);
}

TEST(ResultsModel, ThePercentOfCeilingNamesItsMetricAndMarksCacheResidentRuns)
{
    ResultsModel model;
    Summary flops = summaryOf("r-4", "tiled_f32", Outcome::Passed, 0.0, 1e-3);
    flops.peakKind = "fp32_fma";
    flops.peakValue = 60000.0;
    flops.pctOfPeak = 4.1;
    Summary cached = summaryOf("r-5", "cpu_four_sums", Outcome::Passed, 0.0, 1e-9);
    cached.peakKind = "read_bandwidth";
    cached.peakValue = 43.4;
    cached.pctOfPeak = 127.0;
    cached.bytes = 262144;
    cached.cacheBytes = 33554432;
    cached.cacheResident = true;
    model.addSummary(flops);
    model.addSummary(cached);
    const QModelIndex first = model.index(0, ResultsModel::PctOfPeakColumn);
    const QModelIndex second = model.index(1, ResultsModel::PctOfPeakColumn);
    EXPECT_EQ(first.data().toString(), QStringLiteral("4.1 of GFLOP/s"));
    EXPECT_EQ(second.data().toString(), QStringLiteral("127.0* of GB/s"));
    EXPECT_TRUE(first.data(Qt::ToolTipRole).toString().contains(QStringLiteral("fp32_fma ceiling (60000.0 GFLOP/s)")));
    EXPECT_FALSE(first.data(Qt::ToolTipRole).toString().contains(QStringLiteral("cache")));
    EXPECT_TRUE(second.data(Qt::ToolTipRole).toString().contains(QStringLiteral("fits in the last-level cache")));
    EXPECT_DOUBLE_EQ(second.data(ResultsModel::SortRole).toDouble(), 127.0);
}

TEST(ResultsModel, ANoisyRunIsMarkedOnItsNoiseWithWhatToDo)
{
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    Summary steady = summaryOf("r-6", "cpu_four_sums", Outcome::Passed, 0.0, 1e-9);
    steady.noisePct = 0.4;
    steady.medianRsePct = 0.3;
    steady.stopReason = StopReason::NoiseTarget;
    Summary timedOut = steady;
    timedOut.runId = "r-7";
    timedOut.noisePct = 153.2;
    timedOut.medianRsePct = 12.5;
    timedOut.stopReason = StopReason::TimeLimit;
    Summary fixed = timedOut;
    fixed.runId = "r-8";
    fixed.stopReason = StopReason::FixedCount;
    model.addSummary(steady);
    model.addSummary(timedOut);
    model.addSummary(fixed);

    const QModelIndex calm = model.index(0, ResultsModel::NoiseColumn);
    const QModelIndex noisy = model.index(1, ResultsModel::NoiseColumn);
    const QModelIndex counted = model.index(2, ResultsModel::NoiseColumn);
    EXPECT_EQ(calm.data().toString(), QStringLiteral("0.40"));
    EXPECT_EQ(noisy.data().toString(), QStringLiteral("153.20?"));
    EXPECT_EQ(counted.data().toString(), QStringLiteral("153.20")) << "a fixed count is never noisy";
    EXPECT_FALSE(calm.data(ResultsModel::NoisyRole).toBool());
    EXPECT_TRUE(noisy.data(ResultsModel::NoisyRole).toBool());
    EXPECT_FALSE(counted.data(ResultsModel::NoisyRole).toBool());
    EXPECT_TRUE(noisy.data(Qt::ForegroundRole).isValid());
    EXPECT_FALSE(calm.data(Qt::ForegroundRole).isValid());
    EXPECT_DOUBLE_EQ(noisy.data(ResultsModel::SortRole).toDouble(), 153.2);

    const QString tip = noisy.data(Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QStringLiteral("standard error of the median: 12.50 %"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("stopped on the time limit before the standard error reached the noise "
                                            "target")))
        << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("Raise the time limit"))) << tip.toStdString();
    EXPECT_TRUE(calm.data(Qt::ToolTipRole).toString().contains(QStringLiteral("noise target was reached")));
    EXPECT_FALSE(calm.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Noisy")));

    Summary single = steady;
    single.runId = "r-9";
    single.repetitions = 1;
    single.medianRsePct.reset();
    model.addSummary(single);
    EXPECT_TRUE(model.index(3, ResultsModel::NoiseColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("median: undefined")));
}

TEST(ResultsModel, ANondeterministicResultIsMarkedOnItsDelta)
{
    ResultsModel model;
    Summary same = summaryOf("r-10", "cpu_four_sums", Outcome::Passed, 1e-16, 1e-9);
    same.deterministic = true;
    Summary differs = summaryOf("r-11", "atomic_grid", Outcome::Passed, 1e-16, 1e-9);
    differs.deterministic = false;
    Summary unchecked = summaryOf("r-12", "cpu_openmp", Outcome::Passed, 1e-16, 1e-9);
    model.addSummary(same);
    model.addSummary(differs);
    model.addSummary(unchecked);
    EXPECT_EQ(model.index(0, ResultsModel::DeltaColumn).data().toString(), QStringLiteral("1.00e-16"));
    EXPECT_EQ(model.index(1, ResultsModel::DeltaColumn).data().toString(), QStringLiteral("1.00e-16~"));
    EXPECT_EQ(model.index(2, ResultsModel::DeltaColumn).data().toString(), QStringLiteral("1.00e-16"));
    EXPECT_TRUE(model.index(0, ResultsModel::DeltaColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("Deterministic: a second run on the same input gave the same bits")));
    const QString tip = model.index(1, ResultsModel::DeltaColumn).data(Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QStringLiteral("max_rel_err = "))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("~ Not deterministic"))) << tip.toStdString();
    EXPECT_FALSE(model.index(2, ResultsModel::DeltaColumn)
                     .data(Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("eterministic")));
}

TEST(ResultsModel, ResetKeepsTheModelConsistent)
{
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.addSample(sampleOf("a", "x", 0, 1.0));
    model.setSummaries({summaryOf("b", "y", Outcome::Passed, 0, 1), summaryOf("c", "z", Outcome::Passed, 0, 1)});
    EXPECT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.rowForRun("c"), 1);
    EXPECT_EQ(model.rowForRun("a"), -1);
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(ResultsModel, VariantOrderGivesStableColours)
{
    ResultsModel model;
    model.setVariantOrder({"reference", "cpu_four_sums"});
    EXPECT_EQ(model.variantIndex("cpu_four_sums"), 1);
    EXPECT_EQ(model.variantIndex("new_one"), 2);
    EXPECT_EQ(model.variantIndex("new_one"), 2);
    model.setVariantOrder({"a", "reference"});
    EXPECT_EQ(model.variantIndex("a"), 0);
    EXPECT_EQ(model.variantIndex("new_one"), 3);
}

/// The column whose header reads `title`; -1 when there is none.
int columnTitled(const ResultsModel& model, const QString& title)
{
    for (int c = 0; c < model.columnCount(); ++c)
        if (model.headerData(c, Qt::Horizontal).toString() == title)
            return c;
    return -1;
}

TEST(ResultsModel, ARerunWithOtherParametersSaysWhichInItsOwnColumn)
{
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    Summary f64 = summaryOf("r-1", "shared_tree", Outcome::Passed, 1e-16, 1e-9);
    f64.params = ParamSet::fromString("precision=f64");
    Summary f32 = summaryOf("r-2", "shared_tree", Outcome::Passed, 1e-7, 1e-5);
    f32.params = ParamSet::fromString("precision=f32");
    Summary unknown = summaryOf("r-3", "shared_tree", Outcome::Passed, 1e-16, 1e-9);
    unknown.workload = "from_a_newer_build";
    unknown.params = ParamSet::fromString("tile=32;unroll=4");
    model.addSummary(f64);
    model.addSummary(f32);
    model.addSummary(unknown);
    const int column = columnTitled(model, QStringLiteral("Parameters"));
    ASSERT_GE(column, 0);
    EXPECT_EQ(model.index(0, column).data().toString(), QStringLiteral("defaults"));
    EXPECT_EQ(model.index(1, column).data().toString(), QStringLiteral("precision=f32"));
    EXPECT_EQ(model.index(2, column).data().toString(), QStringLiteral("tile=32, unroll=4"));
    EXPECT_EQ(model.index(0, column).data(Qt::ToolTipRole).toString(), QStringLiteral("precision=f64 (default)"));
    EXPECT_NE(model.index(0, column).data(), model.index(1, column).data());
}

TEST(ResultsModel, AParameterOnlySomeVariantsReadShowsOnTheirRowsOnly)
{
    ResultsModel model;
    Summary scalar = summaryOf("r-1", "scalar", Outcome::Passed, 1e-16, 1e-12);
    scalar.workload = "spmv";
    scalar.params = ParamSet::fromString("precision=f64;panels=2");
    Summary tiles = scalar;
    tiles.runId = "r-2";
    tiles.variant = "row_tiles";
    model.addSummary(scalar);
    model.addSummary(tiles);
    const int column = columnTitled(model, QStringLiteral("Parameters"));
    ASSERT_GE(column, 0);
    // Rows in the model's order: find each by its variant.
    for (int row = 0; row < model.rowCount(); ++row) {
        const QString text = model.index(row, column).data().toString();
        const QString tip = model.index(row, column).data(Qt::ToolTipRole).toString();
        if (tip.contains(QStringLiteral("not read by scalar"))) {
            EXPECT_EQ(text, QStringLiteral("defaults"));
            EXPECT_TRUE(tip.contains(QStringLiteral("panels=2 (not read by scalar)"))) << tip.toStdString();
        } else {
            EXPECT_EQ(text, QStringLiteral("panels=2"));
            EXPECT_FALSE(tip.contains(QStringLiteral("not read"))) << tip.toStdString();
        }
    }
    int unread = 0;
    for (int row = 0; row < model.rowCount(); ++row)
        unread += model.index(row, column).data(Qt::ToolTipRole).toString().contains(QStringLiteral("not read"));
    EXPECT_EQ(unread, 1);
}

TEST(ResultsModel, AComputeBoundRunShowsItsOwnRateNotAFakeZeroGbPerS)
{
    ResultsModel model;
    Summary sdh = summaryOf("r-1", "tiled_f32", Outcome::Passed, 0.0, 0.0);
    sdh.workload = "sdh";
    sdh.bytes = 12.0 * 660; // 660 atoms' coordinates: kilobytes, moved in milliseconds
    sdh.gbPerS = sdh.bytes / 2e-3 / 1e9;
    sdh.itemsPerS = 660.0 * 659.0 / 2.0 / 2e-3;
    sdh.itemName = "pairs";
    sdh.peakKind = "fp32_fma";
    Summary slowCopy = summaryOf("r-2", "reference", Outcome::Passed, 0.0, 0.0);
    slowCopy.gbPerS = 0.0123;
    slowCopy.peakKind = "read_bandwidth";
    model.addSummary(sdh);
    model.addSummary(slowCopy);
    const QString gb = model.index(0, ResultsModel::GbPerSColumn).data().toString();
    EXPECT_NE(gb, QStringLiteral("0.0"));
    EXPECT_TRUE(gb.isEmpty()) << gb.toStdString();
    EXPECT_TRUE(model.index(0, ResultsModel::GbPerSColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("pairs/s")));
    EXPECT_EQ(model.index(0, ResultsModel::ItemRateColumn).data().toString(), QStringLiteral("109 Mpairs/s"));
    EXPECT_EQ(model.index(1, ResultsModel::GbPerSColumn).data().toString(), QStringLiteral("0.0123"));
}

TEST(ResultsModel, TheTableShowsEveryHeaderAndValueWhole)
{
    ResultsModel model;
    QTableView table;
    table.setModel(&model);
    table.resize(1400, 300);
    fitResultsColumns(&table);
    table.show();
    Summary s = summaryOf("r-1", "shared_tree", Outcome::Passed, 1e-16, 1e-9);
    s.itemsPerS = 123456789.0;
    s.itemName = "points";
    s.gbPerS = 987.6;
    s.params = ParamSet::fromString("precision=f32");
    model.addSummary(s);
    QTest::qWait(400);
    const QFontMetrics metrics(table.font());
    const QFontMetrics headerMetrics(table.horizontalHeader()->font());
    for (int c = 0; c < model.columnCount() - 1; ++c) { // the last one stretches
        const QString header = model.headerData(c, Qt::Horizontal).toString();
        const QString value = model.index(0, c).data().toString();
        EXPECT_GE(table.columnWidth(c), headerMetrics.horizontalAdvance(header)) << header.toStdString();
        EXPECT_GE(table.columnWidth(c), metrics.horizontalAdvance(value))
            << header.toStdString() << ": " << value.toStdString();
    }
}

} // namespace
} // namespace ks::gui
