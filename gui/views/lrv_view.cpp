#include "gui/views/lrv_view.h"

#include "compute/workloads/lrv/lrv.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <QHeaderView>
#include <QLayout>
#include <QSplitter>
#include <QTableWidget>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace ks::gui {

namespace {
/// Per-cell minima of the mirrored lrv matrix over `block`×`block` blocks; NaN where a block has only NaNs.
struct BlockMinima {
    std::size_t block = 1;
    std::size_t cells = 0;
    std::vector<double> minima; ///< cells × cells, row (the larger feature index) major
};

/// Feature count of a half matrix: from the names when they fit, else solved from the pair count; 0 if neither fits.
std::size_t featureCount(const Result& r)
{
    const std::uint64_t pairs = r.values.size();
    if (r.names.size() >= 2 && lrv::pairCount(r.names.size()) == pairs)
        return r.names.size();
    const auto p = static_cast<std::uint64_t>(std::llround(0.5 * (1.0 + std::sqrt(1.0 + 8.0 * double(pairs)))));
    return p >= 2 && lrv::pairCount(p) == pairs ? static_cast<std::size_t>(p) : 0;
}

/// The minimum, not the mean, of each block: a single proportional pair among thousands must still colour its cell.
BlockMinima blockMinima(const std::vector<double>& values, std::size_t p, std::size_t maxCells)
{
    BlockMinima out;
    out.block = (p + maxCells - 1) / maxCells;
    out.cells = (p + out.block - 1) / out.block;
    const std::size_t k = out.block, cells = out.cells;
    out.minima.assign(cells * cells, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 1; i < p; ++i) {
        const double* row = values.data() + lrv::rowStart(i);
        double* cellRow = out.minima.data() + (i / k) * cells;
        for (std::size_t j0 = 0; j0 < i; j0 += k) {
            const std::size_t j1 = std::min(j0 + k, i);
            double m = std::numeric_limits<double>::infinity();
            bool seen = false;
            for (std::size_t j = j0; j < j1; ++j) {
                const double v = row[j];
                if (!std::isnan(v)) {
                    seen = true;
                    m = std::min(m, v);
                }
            }
            double& cell = cellRow[j0 / k];
            if (seen)
                cell = std::isnan(cell) ? m : std::min(cell, m);
        }
    }
    // A diagonal cell holding no pair (a block of one feature: a feature with itself) stays NaN, drawn as "no
    // value": its lrv of 0 says nothing, and painted at the proportional end it would drown the real hits.
    for (std::size_t a = 0; a < cells; ++a)
        for (std::size_t b = 0; b < a; ++b)
            out.minima[b * cells + a] = out.minima[a * cells + b];
    return out;
}

using Pair = LrvView::Pair;

/// The `count` smallest lrv values in one pass with a bounded max-heap, ties broken by propr's order.
std::vector<Pair> smallestPairs(const std::vector<double>& values, std::size_t p, std::size_t count)
{
    const auto before = [](const Pair& a, const Pair& b) {
        return a.lrv < b.lrv || (a.lrv == b.lrv && lrv::pairIndex(a.i, a.j) < lrv::pairIndex(b.i, b.j));
    };
    std::vector<Pair> heap;
    heap.reserve(count + 1);
    for (std::size_t i = 1; i < p; ++i) {
        const double* row = values.data() + lrv::rowStart(i);
        for (std::size_t j = 0; j < i; ++j) {
            const double v = row[j];
            if (std::isnan(v) || (heap.size() == count && !(v < heap.front().lrv)))
                continue;
            heap.push_back(Pair {v, i, j});
            std::push_heap(heap.begin(), heap.end(), before);
            if (heap.size() > count) {
                std::pop_heap(heap.begin(), heap.end(), before);
                heap.pop_back();
            }
        }
    }
    std::sort_heap(heap.begin(), heap.end(), before);
    return heap;
}

/// Small lrv (proportional) is the saturated, striking end; large lrv fades towards the background.
QCPColorGradient proportionalityGradient(bool dark)
{
    QCPColorGradient g;
    if (dark) {
        g.setColorStopAt(0.0, QColor(255, 236, 110));
        g.setColorStopAt(0.12, QColor(253, 141, 60));
        g.setColorStopAt(0.35, QColor(189, 0, 38));
        g.setColorStopAt(0.7, QColor(72, 30, 58));
        g.setColorStopAt(1.0, QColor(36, 36, 44));
    } else {
        g.setColorStopAt(0.0, QColor(128, 0, 38));
        g.setColorStopAt(0.12, QColor(227, 26, 28));
        g.setColorStopAt(0.35, QColor(253, 141, 60));
        g.setColorStopAt(0.7, QColor(254, 224, 178));
        g.setColorStopAt(1.0, QColor(247, 247, 247));
    }
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(dark ? QColor(90, 90, 90) : QColor(190, 190, 190));
    return g;
}

/// Both weak references name the same result object (owner equivalence survives the object being freed).
bool sameResult(const std::weak_ptr<const Result>& shown, const std::shared_ptr<const Result>& current)
{
    return !shown.owner_before(current) && !current.owner_before(shown);
}
} // namespace

LrvView::LrvView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
    , m_table(new QTableWidget(0, 3, this))
{
    QCustomPlot* p = plot();
    p->legend->setVisible(false); // one colour map: the colour scale is its legend
    p->xAxis->setLabel(tr("feature"));
    p->yAxis->setLabel(tr("feature"));
    p->yAxis->setRangeReversed(true); // row 0 at the top, as a matrix is read

    p->plotLayout()->insertRow(0);
    m_caption = new QCPTextElement(p, QString(), font());
    p->plotLayout()->addElement(0, 0, m_caption);
    m_scale = new QCPColorScale(p);
    m_scale->setType(QCPAxis::atRight);
    m_scale->axis()->setLabel(QStringLiteral("log₁₀ lrv"));
    p->plotLayout()->addElement(1, 1, m_scale);
    auto* margins = new QCPMarginGroup(p);
    p->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    m_map = new QCPColorMap(p->xAxis, p->yAxis);
    m_map->removeFromLegend();
    m_map->setInterpolate(false); // each cell is one block: blending neighbours would invent values
    m_map->setTightBoundary(false);
    m_map->setColorScale(m_scale);

    for (QCPItemRect*& rect : m_highlight) {
        rect = new QCPItemRect(p);
        rect->setBrush(Qt::NoBrush);
        rect->setSelectable(false);
        rect->setVisible(false);
    }
    m_message = new QCPItemText(p);
    m_message->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_message->position->setCoords(0.5, 0.5);
    m_message->setPositionAlignment(Qt::AlignCenter);
    m_message->setTextAlignment(Qt::AlignCenter);
    m_message->setSelectable(false);

    m_table->setObjectName(QStringLiteral("proportionalPairs"));
    m_table->setHorizontalHeaderLabels({tr("feature i"), tr("feature j"), tr("lrv")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &LrvView::highlightSelectedPair);

    // The base lays the plot out alone; a splitter puts the pairs beside it without touching the base.
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    delete layout()->replaceWidget(p, splitter);
    splitter->addWidget(p);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({3000, 1000}); // scaled to the width available: the map gets three quarters from the start
    splitter->setChildrenCollapsible(false);
}

QString LrvView::title() const
{
    return tr("Proportionality");
}

void LrvView::setDataset(const data::Dataset& dataset)
{
    m_datasetHash = dataset.empty() ? std::string() : dataset.meta().contentHash;
    scheduleRebuild();
}

int LrvView::rowToShow(bool* dropped) const
{
    // Newest first. A run whose result the runner dropped (over RunOptions::kKeptResultLimit values) is remembered
    // so that, with nothing else to show, the view can say why instead of staying blank.
    int droppedRow = -1;
    for (int row = model()->rowCount() - 1; row >= 0; --row) {
        const Summary& s = model()->summary(row);
        if (model()->isRunning(row) || (!m_datasetHash.empty() && s.datasetHash != m_datasetHash))
            continue;
        if (s.result) {
            if (s.result->quantity == "lrv") {
                *dropped = false;
                return row;
            }
        } else if (droppedRow < 0 && s.workload == "lrv" && s.resultDropped) {
            droppedRow = row;
        }
    }
    *dropped = droppedRow >= 0;
    return droppedRow;
}

void LrvView::rebuild()
{
    applyColors();
    bool dropped = false;
    const int row = rowToShow(&dropped);
    if (row < 0) {
        showMessage(m_datasetHash.empty() ? tr("No finished lrv run with a result yet")
                                          : tr("No finished lrv run on this dataset yet"));
        return;
    }
    const Summary& s = model()->summary(row);
    if (dropped) {
        const auto features = static_cast<qulonglong>(s.size);
        showMessage(tr("The result of %1 on %2 features (%3 pairs) was too large to keep\n"
                       "(over 2^26 values); kernelscope-cli --output saves it for inspection")
                        .arg(QString::fromStdString(s.variant))
                        .arg(features)
                        .arg(static_cast<qulonglong>(lrv::pairCount(s.size))));
        return;
    }
    // The matrix and the table depend only on the result: a stream of samples redraws without recomputing them.
    if (row == m_shownRow && sameResult(m_shownResult, s.result))
        return;
    showResult(row, *s.result);
    m_shownRow = row;
    m_shownResult = s.result;
}

void LrvView::showMessage(const QString& message)
{
    m_shownRow = -1;
    m_shownResult.reset();
    m_pairs.clear();
    m_features = 0;
    m_overTolerance = false;
    m_map->data()->clear();
    m_table->setRowCount(0);
    m_caption->setText(QString());
    m_message->setText(message);
    m_message->setVisible(true);
    for (QCPItemRect* rect : m_highlight)
        rect->setVisible(false);
}

void LrvView::showResult(int row, const Result& result)
{
    const Summary& s = model()->summary(row);
    const std::size_t p = featureCount(result);
    if (p == 0) {
        showMessage(tr("The result of %1 has %2 values: not the half matrix of any feature count")
                        .arg(QString::fromStdString(s.variant))
                        .arg(static_cast<qulonglong>(result.values.size())));
        return;
    }
    m_message->setVisible(false);
    m_features = p;
    m_overTolerance = s.delta.computed && !s.delta.withinTolerance();
    const bool named = result.names.size() == p;
    const auto name = [&](std::size_t i) {
        return named ? QString::fromStdString(result.names[i]) : tr("feature %1").arg(static_cast<qulonglong>(i));
    };

    // Heat map: log₁₀ of the block minima. Zeros (exactly proportional pairs) and negatives (rounding in a
    // cancelling variant) have no logarithm; they take the scale's proportional end. The self-pair diagonal is NaN:
    // the gradient's neutral "no value" grey, outside the scale.
    const BlockMinima blocks = blockMinima(result.values, p, kMaxCells);
    m_block = blocks.block;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : blocks.minima) {
        if (v > 0.0 && std::isfinite(v)) {
            lo = std::min(lo, std::log10(v));
            hi = std::max(hi, std::log10(v));
        }
    }
    if (!(lo <= hi))
        lo = hi = 0.0;
    const QCPRange range = lo < hi ? QCPRange(lo, hi) : QCPRange(lo - 0.5, hi + 0.5);
    const int cells = static_cast<int>(blocks.cells);
    const double k = static_cast<double>(blocks.block);
    QCPColorMapData* mapData = m_map->data();
    mapData->setSize(cells, cells);
    const double firstCentre = 0.5 * (k - 1.0), lastCentre = firstCentre + k * (cells - 1);
    mapData->setRange(QCPRange(firstCentre, lastCentre), QCPRange(firstCentre, lastCentre));
    for (int a = 0; a < cells; ++a) {
        for (int b = 0; b < cells; ++b) {
            const double v = blocks.minima[static_cast<std::size_t>(a) * blocks.cells + static_cast<std::size_t>(b)];
            const double z = std::isnan(v) ? v : v <= 0.0 ? range.lower : std::clamp(std::log10(v), lo, hi);
            mapData->setCell(b, a, z);
        }
    }
    m_map->setDataRange(range);

    QCustomPlot* chart = plot();
    const bool namedTicks = named && p <= kMaxNamedTicks;
    for (QCPAxis* axis : {chart->xAxis, chart->yAxis}) {
        if (namedTicks) {
            auto ticker = QSharedPointer<QCPAxisTickerText>::create();
            for (std::size_t i = 0; i < p; ++i)
                ticker->addTick(static_cast<double>(i), name(i));
            axis->setTicker(ticker);
            axis->setSubTicks(false);
        } else if (qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker())) {
            axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
            axis->setSubTicks(true);
        }
        axis->setRange(-0.5, k * cells - 0.5);
    }
    // Long names would overlap side by side; short ones read better upright.
    std::size_t longest = 0;
    for (std::size_t i = 0; namedTicks && i < p; ++i)
        longest = std::max(longest, result.names[i].size());
    chart->xAxis->setTickLabelRotation(longest > 4 ? 90.0 : 0.0);

    QString caption = tr("%1 · %2 features").arg(QString::fromStdString(s.variant)).arg(static_cast<qulonglong>(p));
    if (!s.datasetName.empty())
        caption += QStringLiteral(" · ") + QString::fromStdString(s.datasetName);
    if (m_overTolerance)
        caption += tr(" (over tolerance)");
    if (blocks.block > 1)
        caption += QLatin1Char('\n')
            + tr("downsampled: each cell is the smallest lrv of a %1×%1 block")
                  .arg(static_cast<qulonglong>(blocks.block));
    m_caption->setText(caption);
    applyColors();

    // The most proportional pairs, by name.
    m_pairs = smallestPairs(result.values, p, kTopPairs);
    const QSignalBlocker quiet(m_table); // the old selection refers to the old pairs
    m_table->clearSelection();
    m_table->setRowCount(static_cast<int>(m_pairs.size()));
    for (int r = 0; r < static_cast<int>(m_pairs.size()); ++r) {
        const Pair& pair = m_pairs[static_cast<std::size_t>(r)];
        m_table->setItem(r, 0, new QTableWidgetItem(name(pair.i)));
        m_table->setItem(r, 1, new QTableWidgetItem(name(pair.j)));
        auto* value = new QTableWidgetItem(QString::number(pair.lrv, 'g', 4));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(r, 2, value);
    }
    for (QCPItemRect* rect : m_highlight)
        rect->setVisible(false);
}

void LrvView::applyColors()
{
    const bool dark = darkTheme();
    if (!m_gradientSet || dark != m_darkGradient) {
        m_map->setGradient(proportionalityGradient(dark));
        m_darkGradient = dark;
        m_gradientSet = true;
    }
    styleAxis(m_scale->axis());
    m_caption->setTextColor(m_overTolerance ? alarmColor() : textColor());
    m_message->setColor(textColor());
    for (QCPItemRect* rect : m_highlight)
        rect->setPen(QPen(textColor(), 2));
}

void LrvView::highlightSelectedPair()
{
    const QModelIndexList selected = m_table->selectionModel()->selectedRows();
    const int r = selected.isEmpty() ? -1 : selected.first().row();
    const bool show = r >= 0 && r < static_cast<int>(m_pairs.size());
    if (show) {
        // The pair's block and its mirror image across the diagonal.
        const Pair& pair = m_pairs[static_cast<std::size_t>(r)];
        const double k = static_cast<double>(m_block);
        const double bi = static_cast<double>(pair.i / m_block) * k;
        const double bj = static_cast<double>(pair.j / m_block) * k;
        m_highlight[0]->topLeft->setCoords(bj - 0.5, bi - 0.5);
        m_highlight[0]->bottomRight->setCoords(bj + k - 0.5, bi + k - 0.5);
        m_highlight[1]->topLeft->setCoords(bi - 0.5, bj - 0.5);
        m_highlight[1]->bottomRight->setCoords(bi + k - 0.5, bj + k - 0.5);
    }
    for (QCPItemRect* rect : m_highlight)
        rect->setVisible(show);
    scheduleRebuild(); // the rebuild finds the result unchanged and only replots
}

} // namespace ks::gui
