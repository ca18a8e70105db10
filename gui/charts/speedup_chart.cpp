#include "gui/charts/speedup_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>

namespace ks::gui {

namespace {
/// Above this max/min ratio the speedup axis goes logarithmic (a GPU against a one-thread CPU reference is
/// routinely 1000×, and 0.5× must look as far from 1× as 2×); below it a linear axis reads more easily.
constexpr double kLogSpeedupRatio = 30.0;
} // namespace

SpeedupChart::SpeedupChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
{
    QCustomPlot* p = plot();
    setLogAxis(p->xAxis);
    p->xAxis->setLabel(tr("size (elements)"));
    p->legend->setFont(font());
    // Speedups over a slow baseline fill the top of the chart, so the legend goes where they rarely are.
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
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

QString SpeedupChart::baseline() const
{
    if (!m_baseline.isEmpty())
        return m_baseline;
    QString first;
    int firstIndex = -1;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (model()->isRunning(row) || s.repetitions <= 0)
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

void SpeedupChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    const QString base = baseline();
    p->yAxis->setLabel(base.isEmpty() ? tr("speedup (×)") : tr("speedup vs %1 (×)").arg(base));

    const auto rows = latestTimedRunsBySize();
    const int baseIndex = base.isEmpty() ? -1 : model()->variantIndex(base);
    const auto baseRows = rows.find(baseIndex);

    QVector<double> alarmKeys, alarmValues;
    double lowest = 1.0, highest = 1.0;
    if (baseRows != rows.end()) {
        for (const auto& [variantIndex, bySize] : rows) {
            if (variantIndex == baseIndex)
                continue;
            QString variant;
            QVector<double> keys, values;
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
                addVariantGraph(variant, keys, values);
        }
    }
    addOverToleranceMarkers(alarmKeys, alarmValues);

    const bool logY = highest / lowest > kLogSpeedupRatio;
    if (logY && p->yAxis->scaleType() != QCPAxis::stLogarithmic) {
        setLogAxis(p->yAxis, QStringLiteral("gb"));
    } else if (!logY && p->yAxis->scaleType() != QCPAxis::stLinear) {
        p->yAxis->setScaleType(QCPAxis::stLinear);
        p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        p->yAxis->setNumberFormat(QStringLiteral("gb"));
    }

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
    // The 1× line is the point of the chart: keep it in view even when every variant is far faster.
    QCPRange y = p->yAxis->range();
    if (logY) {
        y.lower = std::min(y.lower, lowest / 1.4);
        y.upper = std::max(y.upper, highest * 1.4);
    } else {
        y.lower = std::min(y.lower, 0.0);
        y.upper = std::max(y.upper, highest * 1.08);
    }
    p->yAxis->setRange(y);
}

} // namespace ks::gui
