#include "gui/charts/timeline_chart.h"

#include "compute/core/stats.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <qcustomplot.h>
#include <queue>

namespace ks::gui {

namespace {
/// The band's fill is faint so the individual repetitions stay readable on top of it.
constexpr int kBandAlpha = 45;

/// The median of the first i + 1 values, for every i: two heaps (a max-heap of the lower half, a min-heap of
/// the upper half), O(n log n) for the whole run instead of a sort per repetition.
QVector<double> runningMedians(const std::vector<double>& values)
{
    std::priority_queue<double> lower;
    std::priority_queue<double, std::vector<double>, std::greater<>> upper;
    QVector<double> out;
    out.reserve(static_cast<qsizetype>(values.size()));
    for (double v : values) {
        if (lower.empty() || v <= lower.top())
            lower.push(v);
        else
            upper.push(v);
        if (lower.size() > upper.size() + 1) {
            upper.push(lower.top());
            lower.pop();
        } else if (upper.size() > lower.size()) {
            lower.push(upper.top());
            upper.pop();
        }
        out.push_back(lower.size() > upper.size() ? lower.top() : 0.5 * (lower.top() + upper.top()));
    }
    return out;
}

QString formatSize(std::uint64_t size)
{
    if (size >= 1024 && std::has_single_bit(size))
        return QStringLiteral("2^%1").arg(std::countr_zero(size));
    return QString::number(static_cast<qulonglong>(size));
}
} // namespace

TimelineChart::TimelineChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
{
    plot()->xAxis->setLabel(tr("repetition"));
    plot()->yAxis->setLabel(tr("time (ms)"));
    plot()->legend->setFont(font());
}

QString TimelineChart::title() const
{
    return tr("Timeline");
}

void TimelineChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();

    // The most recent run of each variant that has timed something (a skipped run has no repetitions to show).
    std::map<int, int> latestRowByVariant;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (!s.samplesMs.empty())
            latestRowByVariant[model()->variantIndex(QString::fromStdString(s.variant))] = row;
    }

    for (const auto& [variantIndex, row] : latestRowByVariant) {
        const Summary& s = model()->summary(row);
        const QString variant = QString::fromStdString(s.variant);
        const QColor color = colorFor(variant);
        const bool over = !model()->isRunning(row) && s.delta.computed && !s.delta.withinTolerance();

        const auto n = static_cast<qsizetype>(s.samplesMs.size());
        QVector<double> keys(n), times(n), lowerBand(n), upperBand(n);
        const QVector<double> medians = runningMedians(s.samplesMs);
        RunningStats stats;
        for (qsizetype i = 0; i < n; ++i) {
            const double ms = s.samplesMs[static_cast<std::size_t>(i)];
            stats.add(ms);
            keys[i] = static_cast<double>(i);
            times[i] = ms;
            lowerBand[i] = medians[i] - stats.stdev();
            upperBand[i] = medians[i] + stats.stdev();
        }

        QColor fill = color;
        fill.setAlpha(kBandAlpha);
        QCPGraph* lower = p->addGraph();
        lower->setData(keys, lowerBand, true);
        lower->setPen(Qt::NoPen);
        lower->removeFromLegend();
        QCPGraph* upper = p->addGraph();
        upper->setData(keys, upperBand, true);
        upper->setPen(Qt::NoPen);
        upper->setBrush(fill);
        upper->setChannelFillGraph(lower);
        upper->removeFromLegend();

        // A finished run over its tolerance keeps its timings but its median turns the alarm colour: fast and
        // wrong is the thing a reader must not miss.
        QCPGraph* median = p->addGraph();
        median->setData(keys, medians, true);
        median->setPen(over ? QPen(alarmColor(), 2, Qt::DashLine) : QPen(color, 2));
        median->setName(over ? tr("%1 median (over tolerance)").arg(variant) : tr("%1 median").arg(variant));
        if (!over)
            median->removeFromLegend();

        QCPGraph* samples = p->addGraph();
        samples->setData(keys, times, true);
        samples->setLineStyle(QCPGraph::lsNone);
        samples->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 4));
        samples->setPen(QPen(color));
        samples->setName(QStringLiteral("%1 · n=%2%3")
                             .arg(variant, formatSize(s.size), model()->isRunning(row) ? tr(" (running)") : QString()));
    }
    // One legend entry explains every variant's line and band, so the legend stays one line per variant. It is
    // an empty graph: it draws nothing and counts no points.
    if (!latestRowByVariant.empty()) {
        QColor band = textColor();
        band.setAlpha(kBandAlpha);
        QCPGraph* key = p->addGraph();
        key->setPen(QPen(textColor(), 2));
        key->setBrush(band);
        key->setName(tr("running median, ± stdev band"));
    }
    rescaleWithMargin();
}

} // namespace ks::gui
