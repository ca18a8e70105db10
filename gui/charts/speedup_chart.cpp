#include "gui/charts/speedup_chart.h"

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

SpeedupChart::SpeedupChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
{
    QCustomPlot* p = plot();
    setLogAxis(p->xAxis);
    setLogAxis(p->yAxis, QStringLiteral("gb"));
    p->xAxis->setLabel(tr("size (elements)"));
    p->legend->setFont(font());
    // Speedups over a slow baseline fill the top of the chart, so the legend goes where they rarely are.
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    connect(p, &QCustomPlot::mouseMove, this, &SpeedupChart::showToolTip);
}

QString SpeedupChart::title() const
{
    return tr("Speedup");
}

void SpeedupChart::setBaseline(const QString& variant)
{
    m_baseline = variant;
    scheduleRebuild();
}

void SpeedupChart::setBaselineSource(const QString& source)
{
    m_baselineSource = source;
    scheduleRebuild();
}

QString SpeedupChart::baseline() const
{
    // While decisions are shown their A is the baseline, whatever the settings pin: a decision's interval is against
    // A, and a verdict drawn against another variant would be no verdict at all (a new run clears the decisions).
    if (!m_decisions.empty())
        return QString::fromStdString(m_decisions.front().variantA);
    if (!m_baseline.isEmpty())
        return m_baseline;
    QString first;
    int firstIndex = -1;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (!model()->inView(row) || model()->isRunning(row) || s.repetitions <= 0)
            continue;
        const QString variant = QString::fromStdString(s.variant);
        if (variant == QLatin1String("reference"))
            return variant;
        const int index = model()->variantIndex(variant);
        if (firstIndex < 0 || index < firstIndex) {
            firstIndex = index;
            first = variant;
        }
    }
    return first;
}

void SpeedupChart::setDecisions(std::vector<Decision> decisions)
{
    m_decisions = std::move(decisions);
    scheduleRebuild();
}

QStringList SpeedupChart::verdictLines() const
{
    QStringList lines;
    for (const auto& d : m_decisions) {
        const QString size = QString::number(static_cast<qulonglong>(d.size));
        lines << tr("n=%1: %2").arg(size, QString::fromStdString(d.text()));
    }
    return lines;
}

QStringList SpeedupChart::drawnVerdictLines() const
{
    if (m_decisions.size() <= static_cast<std::size_t>(kVerdictLinesDrawn))
        return verdictLines();
    // A sweep decided at every size gives a line per size: summarised per pair, they leave the curves readable.
    struct Pair {
        int sizes = 0;
        qsizetype first = 0; ///< the index of its first decision, whose own line stands for a pair of one size
        std::map<DecisionVerdict, int> verdicts;
        double lowest = INFINITY;
        double highest = -INFINITY;
    };
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, Pair> pairs;
    for (qsizetype i = 0; i < static_cast<qsizetype>(m_decisions.size()); ++i) {
        const Decision& d = m_decisions[static_cast<std::size_t>(i)];
        const auto key = std::make_pair(d.variantB, d.variantA);
        if (!pairs.contains(key)) {
            order.push_back(key);
            pairs[key].first = i;
        }
        Pair& pair = pairs[key];
        ++pair.sizes;
        ++pair.verdicts[d.verdict];
        if (d.ratio > 0.0) {
            pair.lowest = std::min(pair.lowest, d.ratio);
            pair.highest = std::max(pair.highest, d.ratio);
        }
    }
    const QStringList every = verdictLines();
    QStringList lines;
    for (const auto& key : order) {
        const Pair& pair = pairs[key];
        if (pair.sizes == 1) {
            lines << every[pair.first];
            continue;
        }
        QStringList counts;
        for (auto verdict :
            {DecisionVerdict::Faster, DecisionVerdict::Slower, DecisionVerdict::Equivalent, DecisionVerdict::Undecided})
            if (const auto it = pair.verdicts.find(verdict); it != pair.verdicts.end())
                counts << tr("%1 %2").arg(it->second).arg(QString::fromLatin1(decisionVerdictName(verdict)));
        QString line = tr("%1 vs %2 at %3 sizes: %4")
                           .arg(QString::fromStdString(key.first), QString::fromStdString(key.second))
                           .arg(pair.sizes)
                           .arg(counts.join(QStringLiteral(", ")));
        if (pair.highest >= pair.lowest)
            line += tr("; ratio %1× to %2×")
                        .arg(QString::number(pair.lowest, 'f', 3), QString::number(pair.highest, 'f', 3));
        lines << line;
    }
    lines << tr("(hover here for each size's verdict and interval)");
    return lines;
}

QString SpeedupChart::toolTipAt(const QPoint& pixel) const
{
    if (!m_verdictItem || m_verdictItem->text().isEmpty())
        return {};
    const double distance = m_verdictItem->selectTest(QPointF(pixel), false);
    // Inside its box a text item answers just under the selection tolerance.
    if (distance < 0.0 || distance >= plot()->selectionTolerance())
        return {};
    return verdictLines().join(QLatin1Char('\n'));
}

void SpeedupChart::addDecisions(const QString& base, double& lowest, double& highest)
{
    if (m_decisions.empty())
        return;
    QCustomPlot* p = plot();
    // One error-bar set per B, in B's colour, so several decisions at one size stay apart by colour.
    std::map<QString, std::vector<const Decision*>> byVariant;
    for (const auto& d : m_decisions)
        if (QString::fromStdString(d.variantA) == base && d.ratio > 0.0)
            byVariant[QString::fromStdString(d.variantB)].push_back(&d);
    for (const auto& [variant, decisions] : byVariant) {
        QVector<double> keys, values, below, above;
        for (const Decision* d : decisions) {
            const double speedup = 1.0 / d->ratio;
            // Speedup is A's time over B's: the ratio's interval [low, high] inverts to [1/high, 1/low]. An
            // unbounded end (too few rounds) draws no bar on that side.
            const double upper = d->low > 0.0 ? 1.0 / d->low : speedup;
            const double lower = std::isfinite(d->high) ? 1.0 / d->high : speedup;
            keys.push_back(static_cast<double>(d->size));
            values.push_back(speedup);
            below.push_back(speedup - lower);
            above.push_back(upper - speedup);
            lowest = std::min(lowest, lower);
            highest = std::max(highest, upper);
        }
        auto* point = p->addGraph();
        point->setName(tr("%1 decision").arg(variant));
        point->setLineStyle(QCPGraph::lsNone);
        const QColor color = colorFor(variant);
        point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, color, color, 9));
        point->setData(keys, values);
        auto* bars = new QCPErrorBars(p->xAxis, p->yAxis);
        bars->setName(tr("%1 interval").arg(variant));
        bars->removeFromLegend();
        bars->setDataPlottable(point);
        bars->setData(below, above);
        bars->setPen(QPen(color, 2.0));
        bars->setWhiskerWidth(10);
    }
    auto* verdicts = new QCPItemText(p);
    verdicts->setObjectName(QStringLiteral("decisionVerdicts"));
    verdicts->position->setType(QCPItemPosition::ptAxisRectRatio);
    verdicts->position->setCoords(0.01, 0.01);
    verdicts->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    verdicts->setTextAlignment(Qt::AlignLeft);
    verdicts->setText(drawnVerdictLines().join(QLatin1Char('\n')));
    verdicts->setColor(textColor());
    verdicts->setFont(font());
    // Above the curves and error bars, on a nearly opaque box of the chart's background: the verdicts stay
    // readable wherever the data runs.
    verdicts->setLayer(QStringLiteral("legend"));
    QColor fill = backgroundColor();
    fill.setAlpha(230);
    verdicts->setBrush(QBrush(fill));
    verdicts->setPen(QPen(gridColor()));
    verdicts->setPadding(QMargins(6, 4, 6, 4));
    m_verdictItem = verdicts;
}

void SpeedupChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    const QString base = baseline();
    p->yAxis->setLabel(base.isEmpty() ? tr("speedup (×)") : tr("speedup vs %1 (×)").arg(base));

    const auto rows = latestTimedRunsBySize(m_baselineSource);
    const int baseIndex = base.isEmpty() ? -1 : model()->variantIndex(base);
    const auto baseRows = rows.find(baseIndex);

    std::vector<std::tuple<QCPGraph*, QVector<double>, QVector<double>>> alarms;
    double lowest = 1.0, highest = 1.0;
    if (baseRows != rows.end()) {
        for (const auto& [variantIndex, bySize] : rows) {
            if (variantIndex == baseIndex)
                continue;
            QString variant;
            QVector<double> keys, values, alarmKeys, alarmValues;
            for (const auto& [size, row] : bySize) {
                const Summary& s = model()->summary(row);
                variant = QString::fromStdString(s.variant);
                const auto baseRow = baseRows->second.find(size);
                if (baseRow == baseRows->second.end())
                    continue; // no baseline at this size: nothing to compare with
                const double speedup = model()->summary(baseRow->second).medianMs / s.medianMs;
                keys.push_back(static_cast<double>(size));
                values.push_back(speedup);
                lowest = std::min(lowest, speedup);
                highest = std::max(highest, speedup);
                if (s.delta.computed && !s.delta.withinTolerance()) {
                    alarmKeys.push_back(static_cast<double>(size));
                    alarmValues.push_back(speedup);
                }
            }
            if (!keys.isEmpty())
                alarms.emplace_back(addVariantGraph(variant, keys, values), alarmKeys, alarmValues);
        }
    }
    addBaselineOverlay(base, rows);
    for (const auto& [graph, keys, values] : alarms)
        addOverToleranceMarkers(graph, keys, values);
    addDecisions(base, lowest, highest);

    auto* one = new QCPItemStraightLine(p);
    one->point1->setCoords(0.0, 1.0);
    one->point2->setCoords(1.0, 1.0);
    one->setPen(QPen(textColor(), 1.5, Qt::DashLine));
    auto* label = new QCPItemText(p);
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(0.01, 1.0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setText(base.isEmpty() ? tr("1×") : tr("1× (%1)").arg(base));
    label->setColor(textColor());
    label->setFont(font());

    rescaleWithMargin();
    p->yAxis->setRange(speedupRange(lowest, highest));
}

QCPRange SpeedupChart::speedupRange(double lowest, double highest)
{
    // A ratio's axis is logarithmic (2× faster and 2× slower sit as far from 1×), so it never reaches 0 or below;
    // it spans the data and the 1× line with a margin of a tenth of that span in log terms, and at least
    // kMinSpeedupSpan either side of 1×, so one point is not a whole chart of empty decades.
    const double lo = std::min(lowest, 1.0), hi = std::max(highest, 1.0);
    const double margin = std::pow(hi / lo, 0.1);
    return QCPRange(std::min(lo / margin, 1.0 / kMinSpeedupSpan), std::max(hi * margin, kMinSpeedupSpan));
}

void SpeedupChart::addBaselineOverlay(const QString& base, const std::map<int, std::map<std::uint64_t, int>>& rows)
{
    if (m_baselineSource.isEmpty() || base.isEmpty())
        return;
    std::vector<int> shown;
    for (const auto& [variantIndex, bySize] : rows)
        for (const auto& [size, row] : bySize)
            shown.push_back(row);
    const std::vector<int> matched = matchedBaselineRows(*model(), m_baselineSource, shown);
    // The file's own median of the base variant at each size, parameters and dataset its other rows ran with.
    auto sameRun = [](const Summary& a, const Summary& b) {
        return a.workload == b.workload && a.size == b.size && a.params.toString() == b.params.toString()
            && a.datasetHash == b.datasetHash;
    };
    std::vector<int> baseRows;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (model()->inView(row) && !model()->isRunning(row) && s.medianMs > 0.0 && s.variant == base.toStdString()
            && loadedSource(s) == m_baselineSource)
            baseRows.push_back(row);
    }
    std::map<int, std::map<double, double>> byVariant; // variant index → size → the file's speedup
    std::map<int, QString> names;
    for (int row : matched) {
        const Summary& s = model()->summary(row);
        if (s.variant == base.toStdString())
            continue;
        for (int baseRow : baseRows) {
            const Summary& b = model()->summary(baseRow);
            if (!sameRun(b, s))
                continue;
            const QString variant = QString::fromStdString(s.variant);
            const int index = model()->variantIndex(variant);
            byVariant[index][static_cast<double>(s.size)] = b.medianMs / s.medianMs;
            names[index] = variant;
            break;
        }
    }
    if (byVariant.empty())
        return;
    const QString label = baselineLabel(m_baselineSource);
    for (const auto& [variantIndex, points] : byVariant) {
        QVector<double> keys, values;
        for (const auto& [size, speedup] : points) {
            keys.push_back(size);
            values.push_back(speedup);
        }
        // The variant's colour, faded and dashed, with hollow diamonds, as in the sweep chart.
        const QString& variant = names[variantIndex];
        const QColor color = colorFor(variant);
        QColor faded = color;
        faded.setAlpha(170);
        QCPGraph* graph = plot()->addGraph();
        graph->setData(keys, values, true);
        graph->setPen(QPen(faded, 1.5, Qt::DashLine));
        graph->setLineStyle(keys.size() > 1 ? QCPGraph::lsLine : QCPGraph::lsNone);
        graph->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(color, 1.5), QBrush(backgroundColor()), 8));
        graph->setName(label + QStringLiteral(" · ") + variant);
        graph->removeFromLegend();
    }
    QCPGraph* legend = plot()->addGraph();
    legend->setPen(QPen(textColor(), 1.5, Qt::DashLine));
    legend->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(textColor(), 1.5), QBrush(backgroundColor()), 8));
    legend->setName(label);
}

} // namespace ks::gui
