#include "gui/charts/sweep_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <map>
#include <qcustomplot.h>

namespace ks::gui {

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
}

QString SweepChart::title() const
{
    return tr("Sweep");
}

void SweepChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();

    const auto rows = latestTimedRunsBySize();

    QVector<double> alarmKeys, alarmValues;
    for (const auto& [variantIndex, bySize] : rows) {
        QString variant;
        QVector<double> keys, values;
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
        addVariantGraph(variant, keys, values);
    }
    addOverToleranceMarkers(alarmKeys, alarmValues);
    rescaleWithMargin();
}

} // namespace ks::gui
