#include "gui/views/linreg_view.h"

#include "data/series2d.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <qcustomplot.h>
#include <utility>

namespace ks::gui {

namespace {
/// "y = 2.5·x − 1.25": the sign folded into the operator, enough digits to tell variants apart.
QString formatFit(double slope, double intercept)
{
    const QString sign = intercept < 0.0 ? QStringLiteral("−") : QStringLiteral("+");
    return QStringLiteral("y = %1·x %2 %3")
        .arg(QString::number(slope, 'g', 7), sign, QString::number(std::abs(intercept), 'g', 7));
}
} // namespace

LinregView::LinregView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
{
    plot()->xAxis->setLabel(m_xName);
    plot()->yAxis->setLabel(m_yName);
    plot()->legend->setFont(font());
    plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
}

QString LinregView::title() const
{
    return tr("Regression fit");
}

void LinregView::setDataset(const data::Dataset& dataset)
{
    m_sampleX.clear();
    m_sampleY.clear();
    m_pointCount = 0;
    m_xMin = m_xMax = 0.0;
    m_yMin = m_yMax = 0.0;
    m_datasetHash.clear();
    if (dataset.holds<data::Series2D>()) {
        const data::Series2D& series = dataset.as<data::Series2D>();
        const std::size_t n = std::min(series.x.size(), series.y.size());
        m_pointCount = n;
        m_datasetHash = dataset.meta().contentHash;
        m_xName = QString::fromStdString(series.xName);
        m_yName = QString::fromStdString(series.yName);

        // Evenly spaced indices, so the sample keeps the data's shape whether it is sorted by x or not; taken
        // once here so a 2^28-point series costs nothing per redraw.
        const std::size_t shown = std::min<std::size_t>(n, static_cast<std::size_t>(kMaxScatterPoints));
        m_sampleX.reserve(static_cast<qsizetype>(shown));
        m_sampleY.reserve(static_cast<qsizetype>(shown));
        for (std::size_t k = 0; k < shown; ++k) {
            const std::size_t i = static_cast<std::size_t>(
                static_cast<double>(k) * static_cast<double>(n) / static_cast<double>(shown));
            if (std::isfinite(series.x[i]) && std::isfinite(series.y[i])) {
                m_sampleX.push_back(series.x[i]);
                m_sampleY.push_back(series.y[i]);
            }
        }
        if (!m_sampleY.isEmpty()) {
            const auto [lowY, highY] = std::minmax_element(m_sampleY.cbegin(), m_sampleY.cend());
            m_yMin = *lowY;
            m_yMax = *highY;
        }
        // The fitted lines span the whole data, not just the sample: one pass over x, once per dataset.
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (std::size_t i = 0; i < n; ++i) {
            const double x = series.x[i];
            if (std::isfinite(x)) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
        }
        if (lo <= hi) {
            m_xMin = lo;
            m_xMax = hi;
        }
    }
    plot()->xAxis->setLabel(m_xName);
    plot()->yAxis->setLabel(m_yName);
    scheduleRebuild();
}

void LinregView::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    if (m_datasetHash.empty())
        return;

    QColor dots = textColor();
    dots.setAlpha(darkTheme() ? 110 : 90);
    QCPGraph* scatter = p->addGraph();
    scatter->setData(m_sampleX, m_sampleY, false);
    scatter->setLineStyle(QCPGraph::lsNone);
    scatter->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dots, dots, 3));
    scatter->setPen(QPen(dots));
    scatter->setName(static_cast<std::uint64_t>(m_sampleX.size()) < m_pointCount
            ? tr("data (%1 of %2 points)").arg(m_sampleX.size()).arg(static_cast<qulonglong>(m_pointCount))
            : tr("data (%1 points)").arg(m_sampleX.size()));

    // The latest finished run of each (variant, parameters) on this very data: a float32 and a float64 run of
    // one variant are two different fits worth seeing side by side.
    std::map<std::pair<int, std::string>, int> rows; // keyed on the parameters' text: a stable, total order
    std::map<int, int> runsPerVariant;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (model()->isRunning(row) || s.datasetHash != m_datasetHash || !s.result || s.result->values.size() < 2)
            continue;
        const double slope = s.result->values[0], intercept = s.result->values[1];
        if (!std::isfinite(slope) || !std::isfinite(intercept))
            continue; // an all-equal x gives 0/0: there is no line to draw
        const int index = model()->variantIndex(QString::fromStdString(s.variant));
        const auto [it, inserted] = rows.try_emplace({index, s.params.toString()}, row);
        if (inserted)
            ++runsPerVariant[index];
        else
            it->second = row;
    }

    for (const auto& [key, row] : rows) {
        const Summary& s = model()->summary(row);
        const double slope = s.result->values[0], intercept = s.result->values[1];
        const QString variant = QString::fromStdString(s.variant);
        const bool over = s.delta.computed && !s.delta.withinTolerance();
        QCPGraph* line = p->addGraph();
        line->setData(QVector<double> {m_xMin, m_xMax},
            QVector<double> {slope * m_xMin + intercept, slope * m_xMax + intercept}, true);
        line->setPen(variantPen(variant, over, 2));
        QString name = QStringLiteral("%1: %2").arg(variant, formatFit(slope, intercept));
        if (runsPerVariant[key.first] > 1 && !s.params.empty())
            name += QStringLiteral(" [%1]").arg(QString::fromStdString(s.params.toString()));
        if (over)
            name += overToleranceSuffix();
        line->setName(name);
    }
    rescaleWithMargin();
    if (!m_sampleY.isEmpty()) {
        const double spread = m_yMax - m_yMin;
        const double reach = spread > 0.0 ? 0.5 * spread : std::max(0.1 * std::abs(m_yMax), 1.0);
        const QCPRange y = p->yAxis->range();
        p->yAxis->setRange(std::max(y.lower, m_yMin - reach), std::min(y.upper, m_yMax + reach));
        fitLinearTicks(p->yAxis);
    }
}

} // namespace ks::gui
