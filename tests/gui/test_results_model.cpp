// The results model: live rows from Samples, completion by Summaries, and Qt's own model consistency checks.
#include "gui/results_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
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

} // namespace
} // namespace ks::gui
