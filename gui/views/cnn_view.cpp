#include "gui/views/cnn_view.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <map>
#include <qcustomplot.h>

namespace ks::gui {

CnnView::CnnView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
{
    plot()->xAxis->setLabel(tr("training step"));
    plot()->yAxis->setLabel(tr("loss (softmax cross-entropy, batch mean)"));
    plot()->legend->setFont(font());
}

QString CnnView::title() const
{
    return tr("Training loss");
}

void CnnView::setDataset(const data::Dataset& dataset)
{
    m_datasetHash = dataset.empty() ? std::string() : dataset.meta().contentHash;
    scheduleRebuild();
}

void CnnView::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();

    // The latest run of each variant on this dataset, running ones included: their losses arrive with each step.
    std::map<int, int> rowByVariant;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (s.workload != "cnn" || s.sampleMetrics.empty()
            || (!m_datasetHash.empty() && s.datasetHash != m_datasetHash))
            continue;
        rowByVariant[model()->variantIndex(QString::fromStdString(s.variant))] = row;
    }
    for (const auto& [index, row] : rowByVariant) {
        const Summary& s = model()->summary(row);
        QVector<double> steps, losses;
        for (std::size_t i = 0; i < s.sampleMetrics.size(); ++i) {
            steps.push_back(static_cast<double>(i + 1));
            losses.push_back(s.sampleMetrics[i]);
        }
        const QString variant = QString::fromStdString(s.variant);
        const bool over = s.delta.computed && !s.delta.withinTolerance();
        QCPGraph* graph = p->addGraph();
        graph->setData(steps, losses, true);
        // Each variant keeps its colour; one over tolerance is dashed and says so.
        graph->setPen(QPen(colorFor(variant), 2, over ? Qt::DashLine : Qt::SolidLine));
        if (steps.size() <= 64)
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colorFor(variant), 4));
        QString name = variant;
        if (model()->isRunning(row))
            name += tr(": running, step %1").arg(steps.size());
        else if (s.repetitions > 0)
            name += tr(": %1 ms/step").arg(QString::number(s.medianMs, 'g', 4));
        if (s.delta.computed)
            name += tr(", gradient error %1%2")
                        .arg(QString::number(s.delta.value, 'e', 1), over ? tr(" (over tolerance)") : QString());
        graph->setName(name);
    }
    rescaleWithMargin();
}

} // namespace ks::gui
