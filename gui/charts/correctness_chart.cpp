#include "gui/charts/correctness_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <set>

namespace ks::gui {

namespace {
constexpr double kMarkerSize = 11.0;
} // namespace

CorrectnessChart::CorrectnessChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
{
    QCustomPlot* p = plot();
    setLogAxis(p->yAxis);
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->xAxis->setSubTicks(false);
    p->xAxis->grid()->setVisible(false);
    p->xAxis->setLabel(tr("variant"));
    // The variant names on the x axis and the value over each point say everything a legend would.
    p->legend->setVisible(false);
}

QString CorrectnessChart::title() const
{
    return tr("Correctness");
}

void CorrectnessChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
    ticker->clear();

    // Latest finished run with a computed Delta, per variant in the workload's order.
    std::map<int, int> rowByVariant;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (!model()->isRunning(row) && s.delta.computed)
            rowByVariant[model()->variantIndex(QString::fromStdString(s.variant))] = row;
    }

    std::set<double> tolerances;
    QStringList kinds;
    double lowest = kExactFloor, highest = kExactFloor;
    for (const auto& [index, row] : rowByVariant) {
        const Delta& d = model()->summary(row).delta;
        tolerances.insert(d.tolerance);
        if (!kinds.contains(QString::fromStdString(d.kind)))
            kinds.append(QString::fromStdString(d.kind));
        if (std::isfinite(d.value) && d.value > 0.0) {
            lowest = std::min(lowest, d.value);
            highest = std::max(highest, d.value);
        }
        if (d.tolerance > 0.0)
            highest = std::max(highest, d.tolerance);
    }
    // NaN and infinite deltas have no place on the axis: they go above everything, labelled for what they are.
    const double offScale = highest * 1e3;

    double position = 0.0;
    for (const auto& [index, row] : rowByVariant) {
        const Summary& s = model()->summary(row);
        const QString variant = QString::fromStdString(s.variant);
        const bool over = !s.delta.withinTolerance();
        const double value = s.delta.value;
        const bool finite = std::isfinite(value);
        const double drawn = !finite ? offScale : value <= 0.0 ? kExactFloor : value;
        position += 1.0;
        ticker->addTick(position, variant);

        const QColor color = over ? alarmColor() : colorFor(variant);
        QCPGraph* graph = p->addGraph();
        graph->addData(position, drawn);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, kMarkerSize));
        graph->setPen(QPen(color));
        graph->setName(variant);

        QString text;
        if (!finite)
            text = std::isnan(value) ? tr("NaN") : tr("infinite");
        else if (value <= 0.0)
            text = tr("exact");
        else
            text = QString::number(value, 'e', 2);
        if (over)
            text += tr("\nover tolerance");
        auto* label = new QCPItemText(p);
        label->position->setCoords(position, drawn);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setPadding(QMargins(0, 0, 0, static_cast<int>(kMarkerSize)));
        label->setText(text);
        label->setColor(over ? alarmColor() : textColor());
        label->setFont(font());
    }

    // The tolerance is the workload's (one value, unless runs used parameters with different tolerances).
    for (double tolerance : tolerances) {
        const double y = tolerance > 0.0 ? tolerance : kExactFloor;
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(0.0, y);
        line->point2->setCoords(1.0, y);
        line->setPen(QPen(alarmColor(), 1.5, Qt::DashLine));
        auto* label = new QCPItemText(p);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setTypeY(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(0.99, y);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        label->setText(
            tolerance > 0.0 ? tr("tolerance %1").arg(QString::number(tolerance, 'g', 3)) : tr("tolerance: exact"));
        label->setColor(alarmColor());
        label->setFont(font());
    }

    p->yAxis->setLabel(kinds.isEmpty() ? tr("delta vs reference")
                                       : tr("delta vs reference (%1)").arg(kinds.join(QStringLiteral(", "))));
    p->xAxis->setRange(0.4, std::max(position, 1.0) + 0.6);
    const bool anyOffScale = std::any_of(rowByVariant.begin(), rowByVariant.end(),
        [&](const auto& entry) { return !std::isfinite(model()->summary(entry.second).delta.value); });
    p->yAxis->setRange(std::min(lowest, kExactFloor) / 10.0, (anyOffScale ? offScale : highest) * 1e2);
}

} // namespace ks::gui
