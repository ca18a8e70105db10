#include "gui/views/result_values_view.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <map>
#include <qcustomplot.h>

namespace ks::gui {

namespace {
/// Below this many values each one gets a marker; above it markers would merge into a smear.
constexpr std::size_t kMarkerLimit = 64;
/// The share of a named value's slot on the x axis that its variants' points spread over.
constexpr double kCategoryWidth = 0.6;

bool hasValues(const Summary& s)
{
    return s.result && (!s.result->values.empty() || !s.result->counts.empty());
}

std::size_t valueCount(const Result& r)
{
    return r.values.empty() ? r.counts.size() : r.values.size();
}
} // namespace

ResultValuesView::ResultValuesView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
{
    plot()->xAxis->setLabel(tr("index"));
    plot()->yAxis->setLabel(tr("value"));
    plot()->legend->setFont(font());
}

QString ResultValuesView::title() const
{
    return tr("Result");
}

void ResultValuesView::setDataset(const data::Dataset& dataset)
{
    m_datasetHash = dataset.empty() ? std::string() : dataset.meta().contentHash;
    scheduleRebuild();
}

void ResultValuesView::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();

    // Finished runs with a result; those on the current dataset when there are any.
    std::vector<int> candidates;
    bool anyOnDataset = false;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (model()->isRunning(row) || !hasValues(s))
            continue;
        candidates.push_back(row);
        anyOnDataset = anyOnDataset || (!m_datasetHash.empty() && s.datasetHash == m_datasetHash);
    }
    if (anyOnDataset)
        std::erase_if(candidates, [&](int row) { return model()->summary(row).datasetHash != m_datasetHash; });
    if (candidates.empty())
        return;

    // The latest size, and the latest run of each variant there.
    const std::uint64_t size = model()->summary(candidates.back()).size;
    std::map<int, int> rowByVariant;
    for (int row : candidates) {
        const Summary& s = model()->summary(row);
        if (s.size == size)
            rowByVariant[model()->variantIndex(QString::fromStdString(s.variant))] = row;
    }

    // Named values (a fit's slope and intercept) read better with their names than with an index.
    const Result& first = *model()->summary(rowByVariant.begin()->second).result;
    const bool named = !first.labels.empty() && first.labels.size() == valueCount(first)
        && first.labels.size() <= kMaxLabelledValues;
    if (named) {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (std::size_t i = 0; i < first.labels.size(); ++i)
            ticker->addTick(static_cast<double>(i), QString::fromStdString(first.labels[i]));
        p->xAxis->setTicker(ticker);
        p->xAxis->setSubTicks(false);
    } else if (qSharedPointerDynamicCast<QCPAxisTickerText>(p->xAxis->ticker())) {
        p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        p->xAxis->setSubTicks(true);
    }
    const bool counts = first.values.empty();
    const QString quantity = QString::fromStdString(first.quantity);
    p->xAxis->setLabel(named ? QString() : counts ? tr("bin") : tr("index"));
    p->yAxis->setLabel(quantity.isEmpty() ? (counts ? tr("count") : tr("value"))
            : counts                      ? tr("%1 (count)").arg(quantity)
                                          : quantity);

    // Named values are categories: each variant's points sit side by side within the category's slot instead of
    // on top of each other, so agreeing variants are all still visible.
    const double slot = named ? kCategoryWidth / static_cast<double>(rowByVariant.size()) : 0.0;
    double dodge = named ? -0.5 * kCategoryWidth + 0.5 * slot : 0.0;
    for (const auto& [index, row] : rowByVariant) {
        const Summary& s = model()->summary(row);
        const Result& r = *s.result;
        const bool rowCounts = r.values.empty();
        const std::size_t total = valueCount(r);
        const std::size_t n = std::min(total, kMaxValues);
        QVector<double> keys(static_cast<qsizetype>(n)), values(static_cast<qsizetype>(n));
        for (std::size_t i = 0; i < n; ++i) {
            keys[static_cast<qsizetype>(i)] = static_cast<double>(i) + dodge;
            values[static_cast<qsizetype>(i)] = rowCounts ? static_cast<double>(r.counts[i]) : r.values[i];
        }
        const QString variant = QString::fromStdString(s.variant);
        const bool over = s.delta.computed && !s.delta.withinTolerance();
        const QColor color = colorFor(variant);

        QCPGraph* graph = p->addGraph();
        graph->setData(keys, values, true);
        graph->setPen(variantPen(variant, over, 1.5));
        // Categories are not a curve; histogram bins are steps; anything else is a sequence of values.
        graph->setLineStyle(named ? QCPGraph::lsNone : rowCounts ? QCPGraph::lsStepCenter : QCPGraph::lsLine);
        if (n <= kMarkerLimit)
            graph->setScatterStyle(over ? overToleranceScatter(color, named ? 10 : 7)
                                        : QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, named ? 8 : 5));
        QString name = variant;
        if (n < total)
            name += tr(" (first %1 of %2)").arg(static_cast<qulonglong>(n)).arg(static_cast<qulonglong>(total));
        if (over)
            name += overToleranceSuffix();
        graph->setName(name);
        dodge += slot;
    }
    rescaleWithMargin();
    if (named)
        p->xAxis->setRange(-0.5, static_cast<double>(first.labels.size()) - 0.5);
}

} // namespace ks::gui
