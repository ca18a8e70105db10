#include "gui/charts/sweep_chart.h"

#include "gui/loaded_results.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <tuple>
#include <vector>

namespace ks::gui {

namespace {
/// How near (in pixels) the pointer must come to a marked point for its tooltip.
constexpr double kToolTipReachPx = 9.0;

QString pointText(const Summary& s)
{
    return QObject::tr("%1 at %2: median %3 ms")
        .arg(QString::fromStdString(s.variant))
        .arg(static_cast<qulonglong>(s.size))
        .arg(QString::number(s.medianMs, 'g', 4));
}

QString residentReason(const Summary& s)
{
    const QString cache
        = s.device.kind == "cuda" ? QObject::tr("the GPU's L2 cache") : QObject::tr("the CPU's last-level cache");
    return QObject::tr("Fits in cache: the working set (%1) fits in %2 (%3), so after its first touch it is read from "
                       "cache even with flushing; its rate may exceed the DRAM bandwidth ceiling.")
        .arg(ChartView::bytesText(s.bytes), cache, ChartView::bytesText(static_cast<double>(s.cacheBytes)));
}
} // namespace

SweepChart::SweepChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
{
    QCustomPlot* p = plot();
    // Sizes are usually powers of two spanning many decades: 10^k labels stay short.
    setLogAxis(p->xAxis);
    setLogAxis(p->yAxis, QStringLiteral("gb"));
    p->xAxis->setLabel(tr("size (elements)"));
    p->yAxis->setLabel(tr("median time (ms)"));
    p->legend->setFont(font());
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    p->setMouseTracking(true);
    connect(p, &QCustomPlot::mouseMove, this, &SweepChart::showToolTip);
}

QString SweepChart::title() const
{
    return tr("Sweep");
}

void SweepChart::setBaselineSource(const QString& source)
{
    m_baselineSource = source;
    scheduleRebuild();
}

QString SweepChart::toolTipAt(const QPoint& pixel) const
{
    // Every marked point in reach, nearest first: a resident run and its baseline often sit on one spot.
    const QCustomPlot* p = plot();
    std::vector<std::pair<double, QString>> near;
    for (const auto* points : {&m_resident, &m_baseline})
        for (const MarkedPoint& point : *points) {
            const double dx = p->xAxis->coordToPixel(point.key) - pixel.x();
            const double dy = p->yAxis->coordToPixel(point.value) - pixel.y();
            if (const double distance = std::hypot(dx, dy); distance <= kToolTipReachPx)
                near.emplace_back(distance, point.toolTip);
        }
    std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    QStringList texts;
    for (const auto& [distance, text] : near)
        texts << text;
    return texts.join(QStringLiteral("\n\n"));
}

void SweepChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();

    const auto rows = latestTimedRunsBySize(m_baselineSource);

    // Each variant's crosses go on after every line, so no later line covers them.
    std::vector<std::tuple<QCPGraph*, QVector<double>, QVector<double>>> alarms;
    for (const auto& [variantIndex, bySize] : rows) {
        QString variant;
        QVector<double> keys, values, alarmKeys, alarmValues;
        for (const auto& [size, row] : bySize) {
            const Summary& s = model()->summary(row);
            variant = QString::fromStdString(s.variant);
            keys.push_back(static_cast<double>(size));
            values.push_back(s.medianMs);
            if (s.delta.computed && !s.delta.withinTolerance()) {
                alarmKeys.push_back(static_cast<double>(size));
                alarmValues.push_back(s.medianMs);
            }
        }
        alarms.emplace_back(addVariantGraph(variant, keys, values), alarmKeys, alarmValues);
    }
    addCacheResidentMarks(rows);
    addBaselineOverlay(rows);
    for (const auto& [graph, keys, values] : alarms)
        addOverToleranceMarkers(graph, keys, values);
    rescaleWithMargin();
}

void SweepChart::addCacheResidentMarks(const RowsBySize& rows)
{
    m_resident.clear();
    constexpr double kMarkSize = 11.0;
    for (const auto& [variantIndex, bySize] : rows) {
        QVector<double> keys, values;
        QString variant;
        for (const auto& [size, row] : bySize) {
            const Summary& s = model()->summary(row);
            if (!s.cacheResident.value_or(false))
                continue;
            variant = QString::fromStdString(s.variant);
            keys.push_back(static_cast<double>(size));
            values.push_back(s.medianMs);
            m_resident.push_back({keys.back(), values.back(), pointText(s) + QLatin1Char('\n') + residentReason(s)});
        }
        if (keys.isEmpty())
            continue;
        // Hollow over the variant's filled dot, crossed: reads as "not an ordinary point" in any colour.
        const QColor color = colorFor(variant);
        QCPGraph* marks = plot()->addGraph();
        marks->setData(keys, values, true);
        marks->setLineStyle(QCPGraph::lsNone);
        marks->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(color, 2), QBrush(backgroundColor()), kMarkSize));
        marks->setName(tr("fits in cache"));
        marks->removeFromLegend();
    }
    if (m_resident.empty())
        return;
    // One legend entry for every variant's marks, in the text colour: the mark's shape is what it explains.
    QCPGraph* legend = plot()->addGraph();
    legend->setLineStyle(QCPGraph::lsNone);
    legend->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(textColor(), 2), QBrush(backgroundColor()), kMarkSize));
    legend->setName(tr("fits in cache (may pass the DRAM ceiling)"));
}

void SweepChart::addBaselineOverlay(const RowsBySize& rows)
{
    m_baseline.clear();
    if (m_baselineSource.isEmpty())
        return;
    std::vector<int> shown;
    for (const auto& [variantIndex, bySize] : rows)
        for (const auto& [size, row] : bySize)
            shown.push_back(row);
    std::map<int, std::map<double, double>> byVariant; // variant index → size → baseline median
    std::map<int, QString> names;
    for (int row : matchedBaselineRows(*model(), m_baselineSource, shown)) {
        const Summary& s = model()->summary(row);
        const QString variant = QString::fromStdString(s.variant);
        const int index = model()->variantIndex(variant);
        byVariant[index][static_cast<double>(s.size)] = s.medianMs;
        names[index] = variant;
        m_baseline.push_back(
            {static_cast<double>(s.size), s.medianMs, tr("%1: %2").arg(baselineLabel(m_baselineSource), pointText(s))});
    }
    const QString label = baselineLabel(m_baselineSource);
    if (byVariant.empty()) {
        // Pinned but drawn nowhere: say why rather than leave the user looking for it.
        addNote(tr("%1: no plotted run has its workload, variant, size, parameters and dataset").arg(label), 0.5, 0.04,
            Qt::AlignHCenter | Qt::AlignTop, textColor());
        return;
    }
    for (const auto& [variantIndex, points] : byVariant) {
        QVector<double> keys, values;
        for (const auto& [size, median] : points) {
            keys.push_back(size);
            values.push_back(median);
        }
        addBaselineGraph(names[variantIndex], keys, values);
    }
    addBaselineLegend();
}

QCPGraph* SweepChart::addBaselineGraph(
    const QString& variant, const QVector<double>& keys, const QVector<double>& values)
{
    // The variant's colour, faded and dashed, with hollow diamonds: beside the variant's own solid line it reads as
    // "the same variant, then".
    const QColor color = colorFor(variant);
    QColor faded = color;
    faded.setAlpha(170);
    QCPGraph* graph = plot()->addGraph();
    graph->setData(keys, values, true);
    graph->setPen(QPen(faded, 1.5, Qt::DashLine));
    graph->setLineStyle(keys.size() > 1 ? QCPGraph::lsLine : QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(color, 1.5), QBrush(backgroundColor()), 8));
    graph->setName(baselineLabel(m_baselineSource) + QStringLiteral(" · ") + variant);
    graph->removeFromLegend();
    return graph;
}

void SweepChart::addBaselineLegend()
{
    // One entry for every variant's overlay, in the text colour: the dashes are what it explains.
    QCPGraph* legend = plot()->addGraph();
    legend->setPen(QPen(textColor(), 1.5, Qt::DashLine));
    legend->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(textColor(), 1.5), QBrush(backgroundColor()), 8));
    legend->setName(baselineLabel(m_baselineSource));
}

} // namespace ks::gui
