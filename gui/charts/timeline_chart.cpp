#include "gui/charts/timeline_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <QAction>
#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <qcustomplot.h>

namespace ks::gui {

namespace {
/// The band's fill is faint so the individual repetitions stay readable on top of it.
constexpr int kBandAlpha = 45;

/// The median of the first i + 1 values, for every i: two heaps (a max-heap of the lower half, a min-heap of
/// the upper half), O(n log n) for the whole run instead of a sort per repetition.
/// The running first quartile, median and third quartile of the repetitions so far (linear interpolation between
/// order statistics). Quantiles of times are times: unlike a ± stdev band, the band never goes below zero and a
/// few slow outliers do not widen it.
struct RunningQuartiles {
    QVector<double> lower, median, upper;
};

RunningQuartiles runningQuartiles(const std::vector<double>& values)
{
    RunningQuartiles out;
    const auto n = static_cast<qsizetype>(values.size());
    out.lower.reserve(n);
    out.median.reserve(n);
    out.upper.reserve(n);
    std::vector<double> sorted;
    sorted.reserve(values.size());
    auto quantile = [&](double q) {
        const double at = q * static_cast<double>(sorted.size() - 1);
        const auto below = static_cast<std::size_t>(at);
        const std::size_t above = std::min(below + 1, sorted.size() - 1);
        return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
    };
    for (double v : values) {
        sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), v), v);
        out.lower.push_back(quantile(0.25));
        out.median.push_back(quantile(0.5));
        out.upper.push_back(quantile(0.75));
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
    m_clockAction = new QAction(tr("Overlay clock"), this);
    m_clockAction->setCheckable(true);
    m_clockAction->setChecked(m_clockOverlay);
    connect(m_clockAction, &QAction::toggled, this, &TimelineChart::setClockOverlay);
    plot()->addAction(m_clockAction);
    plot()->setContextMenuPolicy(Qt::ActionsContextMenu);
}

void TimelineChart::setClockOverlay(bool on)
{
    if (on == m_clockOverlay)
        return;
    m_clockOverlay = on;
    m_clockAction->setChecked(on);
    scheduleRebuild();
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
    double clockLow = std::numeric_limits<double>::infinity();
    double clockHigh = -std::numeric_limits<double>::infinity();
    bool timedWithoutSamples = false; ///< a run in view that repeated but whose repetitions' times are not here
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (model()->inView(row) && !s.samplesMs.empty())
            latestRowByVariant[model()->variantIndex(QString::fromStdString(s.variant))] = row;
        else if (model()->inView(row) && s.repetitions > 0)
            timedWithoutSamples = true;
    }
    if (latestRowByVariant.empty() && timedWithoutSamples) {
        // Results opened from a CSV: say why the timeline is empty rather than leave the user looking for it.
        addNote(tr("These results carry no repetition times.\nA CSV keeps each run's summary (the table, the other "
                   "tabs); kernelscope-cli --json keeps every repetition."),
            0.5, 0.04, Qt::AlignHCenter | Qt::AlignTop, textColor());
    }

    for (const auto& [variantIndex, row] : latestRowByVariant) {
        const Summary& s = model()->summary(row);
        const QString variant = QString::fromStdString(s.variant);
        const QColor color = colorFor(variant);
        const bool over = !model()->isRunning(row) && s.delta.computed && !s.delta.withinTolerance();

        const auto n = static_cast<qsizetype>(s.samplesMs.size());
        QVector<double> keys(n), times(n);
        const RunningQuartiles quartiles = runningQuartiles(s.samplesMs);
        const QVector<double>& medians = quartiles.median;
        const QVector<double>& lowerBand = quartiles.lower;
        const QVector<double>& upperBand = quartiles.upper;
        for (qsizetype i = 0; i < n; ++i) {
            keys[i] = static_cast<double>(i);
            times[i] = s.samplesMs[static_cast<std::size_t>(i)];
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

        // A finished run over its tolerance keeps its timings and its colour, but its median is dashed and named so
        // in the legend: fast and wrong is the thing a reader must not miss.
        QCPGraph* median = p->addGraph();
        median->setData(keys, medians, true);
        median->setPen(QPen(color, 2, over ? Qt::DashLine : Qt::SolidLine));
        median->setName(over ? tr("%1 median").arg(variant) + overToleranceSuffix() : tr("%1 median").arg(variant));
        if (!over)
            median->removeFromLegend();

        // The clock goes in first so it is drawn under the times. A repetition whose reading failed (0) is left out.
        if (m_clockOverlay && !s.clockMHz.empty()) {
            QVector<double> clockKeys, clocks;
            for (qsizetype i = 0; i < n && i < static_cast<qsizetype>(s.clockMHz.size()); ++i) {
                const double mhz = s.clockMHz[static_cast<std::size_t>(i)];
                if (mhz > 0.0) {
                    clockKeys.push_back(keys[i]);
                    clocks.push_back(mhz);
                    clockLow = std::min(clockLow, mhz);
                    clockHigh = std::max(clockHigh, mhz);
                }
            }
            if (!clocks.isEmpty()) {
                QCPGraph* clock = p->addGraph(p->xAxis, p->yAxis2);
                clock->setData(clockKeys, clocks, true);
                clock->setPen(QPen(color, 1, Qt::DotLine));
                clock->setName(tr("%1 clock (MHz)").arg(variant));
            }
        }

        QCPGraph* samples = p->addGraph();
        samples->setData(keys, times, true);
        samples->setLineStyle(QCPGraph::lsNone);
        samples->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 4));
        samples->setPen(QPen(color));
        samples->setName(QStringLiteral("%1 · n=%2%3")
                             .arg(variant, formatSize(s.size), model()->isRunning(row) ? tr(" (running)") : QString()));

        // Throttled repetitions stay in the times and the statistics; the ring says their clock was pulled down.
        QVector<double> throttledKeys, throttledTimes;
        for (qsizetype i = 0; i < n && i < static_cast<qsizetype>(s.throttled.size()); ++i)
            if (s.throttled[static_cast<std::size_t>(i)]) {
                throttledKeys.push_back(keys[i]);
                throttledTimes.push_back(times[i]);
            }
        if (!throttledKeys.isEmpty()) {
            QCPGraph* marks = p->addGraph();
            marks->setData(throttledKeys, throttledTimes, true);
            marks->setLineStyle(QCPGraph::lsNone);
            marks->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(alarmColor(), 1.5), Qt::NoBrush, 10));
            marks->setPen(QPen(alarmColor()));
            marks->setName(tr("%1 throttled (%2)").arg(variant).arg(throttledKeys.size()));
        }
    }
    // One legend entry explains every variant's line and band, so the legend stays one line per variant. It is
    // an empty graph: it draws nothing and counts no points.
    if (!latestRowByVariant.empty()) {
        QColor band = textColor();
        band.setAlpha(kBandAlpha);
        QCPGraph* key = p->addGraph();
        key->setPen(QPen(textColor(), 2));
        key->setBrush(band);
        key->setName(tr("running median, interquartile band"));
    }
    rescaleWithMargin();
    // The clock's own axis on the right, padded so a flat clock is a line, not the axis edge.
    const bool clocked = clockHigh >= clockLow;
    p->yAxis2->setVisible(clocked);
    if (clocked) {
        styleAxis(p->yAxis2);
        p->yAxis2->setLabel(tr("clock (MHz)"));
        const double pad = std::max(0.1 * (clockHigh - clockLow), 50.0);
        p->yAxis2->setRange(std::max(clockLow - pad, 0.0), clockHigh + pad);
    }
}

} // namespace ks::gui
