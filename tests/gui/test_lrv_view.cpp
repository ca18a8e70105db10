// Tests of the lrv workload's view: the mirrored log₁₀ heat map, the most proportional pairs by name, block-minimum
// downsampling of large matrices, the per-result cache, and a result too large to have been kept.
#include "compute/workloads/lrv/lrv.h"
#include "gui/results_model.h"
#include "gui/views/lrv_view.h"
#include "gui/views/workload_view.h"

#include <QTableWidget>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <qcustomplot.h>
#include <string>
#include <tuple>
#include <vector>

using namespace ks;
using namespace ks::gui;

namespace {

/// A half matrix over `p` features named by `name`, every pair at 1 + (i + j)/p except the planted ones.
std::shared_ptr<Result> lrvResult(std::size_t p,
    const std::vector<std::tuple<std::size_t, std::size_t, double>>& planted,
    const std::function<std::string(std::size_t)>& name)
{
    auto r = std::make_shared<Result>();
    r->quantity = "lrv";
    r->values.resize(lrv::pairCount(p));
    for (std::size_t i = 1; i < p; ++i)
        for (std::size_t j = 0; j < i; ++j)
            r->values[lrv::pairIndex(i, j)] = 1.0 + static_cast<double>(i + j) / static_cast<double>(p);
    for (const auto& [i, j, v] : planted)
        r->values[lrv::pairIndex(i, j)] = v;
    for (std::size_t i = 0; i < p; ++i)
        r->names.push_back(name(i));
    return r;
}

/// A finished, passed lrv run on dataset "h".
Summary lrvRun(const std::string& runId, std::uint64_t features, std::shared_ptr<const Result> result)
{
    Summary s;
    s.runId = runId;
    s.workload = "lrv";
    s.variant = "cpu_openmp";
    s.backend = "cpu";
    s.datasetHash = "h";
    s.datasetName = "test table";
    s.size = features;
    s.outcome = Outcome::Passed;
    s.repetitions = 3;
    s.medianMs = s.meanMs = s.minMs = s.maxMs = 1.0;
    s.samplesMs = {1.0, 1.0, 1.0};
    s.result = std::move(result);
    return s;
}

/// A dataset whose only property the view reads: its content hash.
data::Dataset datasetWithHash(const std::string& hash)
{
    data::DatasetMeta meta;
    meta.kind = "expression";
    meta.name = "test table";
    meta.contentHash = hash;
    return data::Dataset::make(meta, 0);
}

QCPColorMap* colorMap(const ChartView& view)
{
    for (int i = 0; i < view.plot()->plottableCount(); ++i)
        if (auto* map = qobject_cast<QCPColorMap*>(view.plot()->plottable(i)))
            return map;
    return nullptr;
}

/// Every text the plot shows: its caption elements and its text items.
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

QTableWidget* pairsTable(const LrvView& view)
{
    return view.findChild<QTableWidget*>(QStringLiteral("proportionalPairs"));
}

const std::string kLetters = "ABCDE";
std::string letter(std::size_t i)
{
    return std::string(1, kLetters[i]);
}

} // namespace

TEST(LrvView, MirroredLogHeatMapAndTheMostProportionalPairsByName)
{
    ResultsModel model;
    LrvView view(&model);
    view.setDataset(datasetWithHash("h"));
    model.addSummary(lrvRun("a1", 5, lrvResult(5, {{3, 1, 0.001}, {4, 0, 0.02}}, letter)));
    view.rebuildNow();

    EXPECT_EQ(view.title(), QStringLiteral("Proportionality"));
    QCPColorMap* map = colorMap(view);
    ASSERT_NE(map, nullptr);
    EXPECT_EQ(map->data()->keySize(), 5);
    EXPECT_EQ(map->data()->valueSize(), 5);
    EXPECT_DOUBLE_EQ(map->data()->cell(1, 3), std::log10(0.001));
    EXPECT_DOUBLE_EQ(map->data()->cell(3, 1), std::log10(0.001)); // the mirror image
    EXPECT_DOUBLE_EQ(map->data()->cell(0, 2), std::log10(1.0 + 2.0 / 5.0));
    // The self-pair diagonal is "no value" (the gradient's neutral grey), not the proportional end of the scale.
    for (int i = 0; i < 5; ++i)
        EXPECT_TRUE(std::isnan(map->data()->cell(i, i))) << i;
    EXPECT_EQ(map->gradient().nanHandling(), QCPColorGradient::nhNanColor);
    const QColor proportional = map->gradient().color(map->dataRange().lower, map->dataRange());
    EXPECT_NE(map->gradient().nanColor().rgb(), proportional.rgb());
    EXPECT_DOUBLE_EQ(map->dataRange().lower, std::log10(0.001));
    EXPECT_EQ(map->colorScale()->axis()->label(), QStringLiteral("log₁₀ lrv"));
    EXPECT_FALSE(plotText(view).contains(QStringLiteral("downsampled")));

    QTableWidget* table = pairsTable(view);
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), 10); // all ten pairs of five features: fewer than kTopPairs
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("D"));
    EXPECT_EQ(table->item(0, 1)->text(), QStringLiteral("B"));
    EXPECT_DOUBLE_EQ(table->item(0, 2)->text().toDouble(), 0.001);
    EXPECT_EQ(table->item(1, 0)->text(), QStringLiteral("E"));
    EXPECT_EQ(table->item(1, 1)->text(), QStringLiteral("A"));

    // Selecting a pair frames its cell and the mirror cell.
    table->selectRow(0);
    int framed = 0;
    for (int i = 0; i < view.plot()->itemCount(); ++i)
        if (auto* rect = qobject_cast<QCPItemRect*>(view.plot()->item(i)); rect && rect->visible())
            ++framed;
    EXPECT_EQ(framed, 2);
}

TEST(LrvView, RecomputesOnlyForANewResult)
{
    ResultsModel model;
    LrvView view(&model);
    model.addSummary(lrvRun("a1", 5, lrvResult(5, {{3, 1, 0.001}}, letter)));
    view.rebuildNow();
    QTableWidget* table = pairsTable(view);
    QTableWidgetItem* first = table->item(0, 0);
    view.rebuildNow();
    EXPECT_EQ(table->item(0, 0), first); // the same result: the table was not rebuilt

    model.addSummary(lrvRun("a2", 5, lrvResult(5, {{2, 0, 0.0001}}, letter)));
    view.rebuildNow();
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("C"));
    EXPECT_EQ(table->item(0, 1)->text(), QStringLiteral("A"));

    // Runs on another dataset are not shown.
    view.setDataset(datasetWithHash("another"));
    view.rebuildNow();
    EXPECT_EQ(table->rowCount(), 0);
    EXPECT_EQ(colorMap(view)->data()->keySize(), 0);
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("No finished lrv run on this dataset")));
}

TEST(LrvView, LargeMatricesKeepTheSmallestLrvOfEachBlock)
{
    constexpr std::size_t p = 2000;
    ResultsModel model;
    LrvView view(&model);
    model.addSummary(
        lrvRun("a1", p, lrvResult(p, {{1500, 700, 1e-9}}, [](std::size_t i) { return "f" + std::to_string(i); })));
    view.rebuildNow();

    QCPColorMap* map = colorMap(view);
    ASSERT_NE(map, nullptr);
    EXPECT_LE(map->data()->keySize(), static_cast<int>(LrvView::kMaxCells));
    EXPECT_EQ(map->data()->keySize(), 500); // blocks of 4 features
    EXPECT_EQ(map->data()->valueSize(), 500);
    EXPECT_DOUBLE_EQ(map->data()->cell(700 / 4, 1500 / 4), -9.0);
    EXPECT_DOUBLE_EQ(map->data()->cell(1500 / 4, 700 / 4), -9.0);
    // Its neighbours hold ordinary values: the planted pair did not smear.
    EXPECT_GT(map->data()->cell(700 / 4 + 1, 1500 / 4), 0.0);
    EXPECT_TRUE(plotText(view).contains(QStringLiteral("downsampled: each cell is the smallest lrv of a 4×4 block")));

    QTableWidget* table = pairsTable(view);
    ASSERT_EQ(table->rowCount(), static_cast<int>(LrvView::kTopPairs));
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("f1500"));
    EXPECT_EQ(table->item(0, 1)->text(), QStringLiteral("f700"));
    // After the planted pair, the smallest of 1 + (i + j)/p: (1, 0), then (2, 0).
    EXPECT_EQ(table->item(1, 0)->text(), QStringLiteral("f1"));
    EXPECT_EQ(table->item(1, 1)->text(), QStringLiteral("f0"));
    EXPECT_EQ(table->item(2, 0)->text(), QStringLiteral("f2"));
}

TEST(LrvView, AResultTooLargeToKeepIsSaidSo)
{
    ResultsModel model;
    LrvView view(&model);
    view.setDataset(datasetWithHash("h"));
    Summary big = lrvRun("big", 20000, nullptr);
    big.resultDropped = true;
    model.addSummary(big);
    view.rebuildNow();

    EXPECT_TRUE(plotText(view).contains(QStringLiteral("too large to keep")));
    EXPECT_EQ(colorMap(view)->data()->keySize(), 0);
    EXPECT_EQ(pairsTable(view)->rowCount(), 0);
}

TEST(LrvView, ARunWithoutAResultIsNotCalledTooLarge)
{
    ResultsModel model;
    LrvView view(&model);
    view.setDataset(datasetWithHash("h"));
    model.addSummary(lrvRun("none", 200, nullptr)); // measured, but no result: not "dropped"
    view.rebuildNow();

    EXPECT_FALSE(plotText(view).contains(QStringLiteral("too large to keep")));
}

TEST(LrvView, TheFactoryMakesItForLrv)
{
    ResultsModel model;
    std::unique_ptr<WorkloadView> view(createWorkloadView("lrv", &model, nullptr));
    EXPECT_NE(qobject_cast<LrvView*>(view.get()), nullptr);
}
