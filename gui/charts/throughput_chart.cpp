#include "gui/charts/throughput_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <set>

namespace ks::gui {

namespace {
constexpr double kBarWidth = 0.6;
/// Head room above the tallest bar or ceiling for the labels written over them.
constexpr double kHeadRoom = 1.18;

enum class Metric { GbPerS, ItemsPerS, GflopPerS };

double metricValue(const Summary& s, Metric metric)
{
    switch (metric) {
    case Metric::GbPerS:
        return s.gbPerS;
    case Metric::ItemsPerS:
        return s.itemsPerS;
    case Metric::GflopPerS:
        return s.gflopPerS;
    }
    return 0.0;
}

bool bandwidthRoof(const std::string& peakKind)
{
    return peakKind == "read_bandwidth" || peakKind == "copy_bandwidth";
}

QString formatSize(std::uint64_t size)
{
    if (size >= 1024 && std::has_single_bit(size))
        return QStringLiteral("2^%1").arg(std::countr_zero(size));
    return QString::number(static_cast<qulonglong>(size));
}

QString formatCeiling(double v)
{
    return v >= 100.0 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
}
} // namespace

ThroughputChart::ThroughputChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
{
    QCustomPlot* p = plot();
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->xAxis->setSubTicks(false);
    p->xAxis->grid()->setVisible(false);
    // The variant names under the bars say what the legend would; it would only hide a bar.
    p->legend->setVisible(false);
    p->setInteraction(QCP::iRangeDrag, false);
    p->setInteraction(QCP::iRangeZoom, false);
}

QString ThroughputChart::title() const
{
    return tr("Throughput");
}

void ThroughputChart::setSize(std::uint64_t size)
{
    m_size = size;
    scheduleRebuild();
}

void ThroughputChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
    ticker->clear();

    const auto timed = [&](int row) {
        const Summary& s = model()->summary(row);
        return !model()->isRunning(row) && s.repetitions > 0 && s.medianMs > 0.0;
    };
    m_shownSize = m_size;
    if (m_shownSize == 0) {
        for (int row = model()->rowCount() - 1; row >= 0; --row) {
            if (timed(row)) {
                m_shownSize = model()->summary(row).size;
                break;
            }
        }
    }

    // Latest finished run of each variant at the shown size, in the workload's variant order.
    std::map<int, int> rowByVariant;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const Summary& s = model()->summary(row);
        if (timed(row) && s.size == m_shownSize)
            rowByVariant[model()->variantIndex(QString::fromStdString(s.variant))] = row;
    }

    // Bytes are what a memory-bound kernel is judged by; workloads without a byte count (or whose bytes are
    // not the point) fall back to their own unit of work, then to FLOP/s.
    bool anyBytes = false, anyItems = false;
    std::string itemName;
    for (const auto& [index, row] : rowByVariant) {
        const Summary& s = model()->summary(row);
        anyBytes = anyBytes || (s.bytes > 0.0 && s.gbPerS > 0.0);
        if (s.itemsPerS > 0.0) {
            anyItems = true;
            if (itemName.empty())
                itemName = s.itemName;
        }
    }
    const Metric metric = anyBytes ? Metric::GbPerS : anyItems ? Metric::ItemsPerS : Metric::GflopPerS;

    double maxValue = 0.0;
    for (const auto& [index, row] : rowByVariant)
        maxValue = std::max(maxValue, metricValue(model()->summary(row), metric));
    // Items per second span from thousands to trillions: scale to a prefix so the axis reads "G pairs/s".
    double scale = 1.0;
    QString unit = QStringLiteral("GB/s");
    if (metric == Metric::GflopPerS) {
        unit = QStringLiteral("GFLOP/s");
    } else if (metric == Metric::ItemsPerS) {
        static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P"};
        int prefix = 0;
        while (maxValue / scale >= 1000.0 && prefix < 5) {
            scale *= 1000.0;
            ++prefix;
        }
        const QString name = itemName.empty() ? tr("items") : QString::fromStdString(itemName);
        unit = QStringLiteral("%1%2/s").arg(
            QString::fromLatin1(kPrefixes[prefix]), prefix > 0 ? QLatin1String(" ") + name : name);
    }

    double top = maxValue / scale;
    double position = 0.0;
    for (const auto& [index, row] : rowByVariant) {
        const Summary& s = model()->summary(row);
        const double value = metricValue(s, metric) / scale;
        if (!(value > 0.0) || !std::isfinite(value))
            continue;
        position += 1.0;
        const QString variant = QString::fromStdString(s.variant);
        const bool over = s.delta.computed && !s.delta.withinTolerance();
        const QColor color = over ? alarmColor() : colorFor(variant);

        auto* bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setWidth(kBarWidth);
        bars->addData(position, value);
        bars->setPen(QPen(color.darker(115)));
        QColor fill = color;
        fill.setAlpha(over ? 230 : 200);
        bars->setBrush(fill);
        bars->setName(variant);
        ticker->addTick(position, variant);

        if (s.peakValue > 0.0) {
            auto* label = new QCPItemText(p);
            label->position->setCoords(position, value);
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setPadding(QMargins(0, 0, 0, 3));
            label->setText(over ? tr("%1% of ceiling\nover tolerance").arg(s.pctOfPeak, 0, 'f', 1)
                                : tr("%1% of ceiling").arg(s.pctOfPeak, 0, 'f', 1));
            label->setColor(over ? alarmColor() : textColor());
            label->setFont(font());
        }
    }

    // The calibrated ceilings the bars are a fraction of: one line per distinct ceiling (a CPU variant's host
    // bandwidth differs from the GPU's), only when the bars are in the ceiling's own unit.
    if (metric == Metric::GbPerS) {
        std::map<long long, const Summary*> ceilings;
        for (const auto& [index, row] : rowByVariant) {
            const Summary& s = model()->summary(row);
            if (s.peakValue > 0.0 && bandwidthRoof(s.peakKind))
                ceilings.emplace(std::llround(s.peakValue), &s);
        }
        for (const auto& [rounded, s] : ceilings) {
            top = std::max(top, s->peakValue);
            auto* line = new QCPItemStraightLine(p);
            line->point1->setCoords(0.0, s->peakValue);
            line->point2->setCoords(1.0, s->peakValue);
            line->setPen(QPen(textColor(), 1.5, Qt::DashLine));
            auto* label = new QCPItemText(p);
            label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
            label->position->setTypeY(QCPItemPosition::ptPlotCoords);
            label->position->setCoords(0.01, s->peakValue);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
            const QString kind = s->peakKind == "copy_bandwidth" ? tr("copy") : tr("read");
            QString text = tr("measured %1 ceiling %2 GB/s").arg(kind, formatCeiling(s->peakValue));
            if (ceilings.size() > 1 && !s->device.name.empty())
                text += QStringLiteral(" (%1)").arg(QString::fromStdString(s->device.name));
            label->setText(text);
            label->setColor(textColor());
            label->setFont(font());
        }
    }

    p->xAxis->setLabel(m_shownSize > 0 ? tr("variant (size %1)").arg(formatSize(m_shownSize)) : tr("variant"));
    p->yAxis->setLabel(tr("throughput (%1)").arg(unit));
    p->xAxis->setRange(0.4, std::max(position, 1.0) + 0.6);
    p->yAxis->setRange(0.0, top > 0.0 ? top * kHeadRoom : 1.0);
}

} // namespace ks::gui
