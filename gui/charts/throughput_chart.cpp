#include "gui/charts/throughput_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <qcustomplot.h>
#include <set>

namespace ks::gui {

namespace {
constexpr double kBarWidth = 0.6;
/// Up to this many bars, each is labelled "12.3% of GB/s ceiling"; beyond, "12.3%" (the long labels overlap).
constexpr std::size_t kLongLabelBars = 4;
/// Head room above the tallest bar or ceiling for the labels written over them.
constexpr double kHeadRoom = 1.18;
/// How far above a bar's top the pointer still reaches the bar's tooltip: the % label written there.
constexpr double kLabelReachPx = 40.0;

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

/// The metric a roof's ceiling is measured in (runner.cpp fillRates takes pctOfPeak in it); empty for a roof this
/// chart does not know (old files, no cost model).
std::optional<Metric> roofMetric(const std::string& peakKind)
{
    if (peakKind == "read_bandwidth" || peakKind == "copy_bandwidth")
        return Metric::GbPerS;
    if (peakKind == "fp32_fma" || peakKind == "fp64_fma")
        return Metric::GflopPerS;
    return std::nullopt;
}

QString roofLabel(const std::string& peakKind)
{
    if (peakKind == "read_bandwidth")
        return QObject::tr("read");
    if (peakKind == "copy_bandwidth")
        return QObject::tr("copy");
    if (peakKind == "fp32_fma")
        return QObject::tr("FP32 FMA");
    if (peakKind == "fp64_fma")
        return QObject::tr("FP64 FMA");
    return QString::fromStdString(peakKind);
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

/// Why a bar can stand above its measured ceiling, for its tooltip.
QString aboveCeilingReason(const Summary& s, Metric metric)
{
    if (metric == Metric::GbPerS) {
        const bool gpu = s.device.kind == "cuda";
        QString cache = gpu ? QObject::tr("the GPU's L2 cache") : QObject::tr("the CPU's last-level cache");
        if (gpu && s.device.l2Bytes > 0)
            cache += QStringLiteral(" (%1)").arg(ChartView::bytesText(static_cast<double>(s.device.l2Bytes)));
        return QObject::tr("Above the ceiling: the working set (%1) likely fits in %2, so the DRAM bandwidth "
                           "ceiling does not bound this run.")
            .arg(ChartView::bytesText(s.bytes), cache);
    }
    return QObject::tr("Above the ceiling: the calibration kernel did not reach this rate (a higher clock during "
                       "this run, or a cost model that counts more flops than the variant executes).");
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
    p->setMouseTracking(true);
    connect(p, &QCustomPlot::mouseMove, this, &ThroughputChart::showToolTip);
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

QString ThroughputChart::toolTipAt(const QPoint& pixel) const
{
    const QCustomPlot* p = plot();
    const double key = p->xAxis->pixelToCoord(pixel.x());
    for (const Bar& bar : m_bars) {
        if (std::abs(key - bar.key) > kBarWidth / 2.0)
            continue;
        const double bottom = p->yAxis->coordToPixel(0.0);
        const double top = p->yAxis->coordToPixel(bar.value) - kLabelReachPx;
        if (pixel.y() >= top && pixel.y() <= bottom)
            return bar.toolTip;
    }
    return {};
}

void ThroughputChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    m_bars.clear();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
    ticker->clear();

    const auto timed = [&](int row) {
        const Summary& s = model()->summary(row);
        return model()->inView(row) && !model()->isRunning(row) && s.repetitions > 0 && s.medianMs > 0.0;
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

    // The bars are drawn in the metric of the workload's roof, the one its % of ceiling is taken in: GB/s for a
    // memory-bound kernel, GFLOP/s for a compute-bound one. Runs whose roofs differ (old files) cannot share one
    // ceiling; they, and runs without a roof, fall back to bytes, then the workload's own rate, with no %.
    std::set<Metric> roofMetrics;
    bool anyBytes = false, anyItems = false;
    std::string itemName;
    for (const auto& [index, row] : rowByVariant) {
        const Summary& s = model()->summary(row);
        if (const auto m = roofMetric(s.peakKind))
            roofMetrics.insert(*m);
        anyBytes = anyBytes || (s.bytes > 0.0 && s.gbPerS > 0.0);
        if (s.itemsPerS > 0.0) {
            anyItems = true;
            if (itemName.empty())
                itemName = s.itemName;
        }
    }
    const bool mixedRoofs = roofMetrics.size() > 1;
    bool againstCeiling = false;
    Metric metric = anyBytes ? Metric::GbPerS : anyItems ? Metric::ItemsPerS : Metric::GflopPerS;
    if (roofMetrics.size() == 1) {
        const Metric roof = *roofMetrics.begin();
        const bool drawable = std::any_of(rowByVariant.begin(), rowByVariant.end(),
            [&](const auto& entry) { return metricValue(model()->summary(entry.second), roof) > 0.0; });
        if (drawable) {
            metric = roof;
            againstCeiling = true;
        }
    }

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
        // Over tolerance keeps the variant's colour: pale with a dashed outline and "✗" on its label.
        const QColor color = colorFor(variant);

        Bar bar;
        bar.variant = variant;
        bar.key = position;
        bar.value = value;
        // The % is taken here from the drawn value, so it belongs to the bar even where a file's pctOfPeak was
        // computed against something else.
        if (againstCeiling && s.peakValue > 0.0 && roofMetric(s.peakKind) == metric)
            bar.pctOfCeiling = 100.0 * value / s.peakValue;
        bar.aboveCeiling = bar.pctOfCeiling > 100.0;

        auto* bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setWidth(kBarWidth);
        bars->addData(position, value);
        QColor fill = color;
        fill.setAlpha(over ? 90 : 200);
        const Qt::PenStyle outline = over ? Qt::DashLine : Qt::SolidLine;
        if (bar.aboveCeiling) {
            // Hatched with a heavy outline: a bar no ceiling bounds must not read as an ordinary one.
            bars->setPen(QPen(color.darker(150), 2.5, outline));
            bars->setBrush(QBrush(fill, Qt::BDiagPattern));
        } else {
            bars->setPen(QPen(over ? color : color.darker(115), over ? 2.5 : 1.0, outline));
            bars->setBrush(fill);
        }
        bars->setName(over ? variant + overToleranceSuffix() : variant);
        ticker->addTick(position, variant);

        const QString valueText = QStringLiteral("%1 %2").arg(QString::number(value, 'g', 4), unit);
        bar.toolTip = QStringLiteral("%1: %2").arg(variant, valueText);
        if (bar.pctOfCeiling >= 0.0) {
            auto* label = new QCPItemText(p);
            label->position->setCoords(position, value);
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setPadding(QMargins(0, 0, 0, 3));
            // A cache-resident bandwidth run is starred as in the results table and the CLI, under 100 % too: its
            // share is of a DRAM ceiling it was not bound by.
            const bool resident = metric == Metric::GbPerS && s.cacheResident.value_or(false);
            // Beyond a few bars the long form runs into its neighbours: the share alone, the unit being on the axis
            // and the ceiling's line (and in the tooltip).
            QString text = rowByVariant.size() > kLongLabelBars
                ? tr("%1%%2").arg(bar.pctOfCeiling, 0, 'f', 1).arg(resident ? QStringLiteral("*") : QString())
                : tr("%1%%2 of %3 ceiling")
                      .arg(bar.pctOfCeiling, 0, 'f', 1)
                      .arg(resident ? QStringLiteral("*") : QString())
                      .arg(unit);
            if (bar.aboveCeiling)
                text += QLatin1Char('\n') + tr("above ceiling: in cache?");
            if (over)
                text += QLatin1Char('\n') + tr("✗ over tolerance");
            label->setText(text);
            label->setColor(over ? alarmColor() : textColor());
            label->setFont(font());
            bar.toolTip += QLatin1Char('\n')
                + tr("%1% of the measured %2 ceiling, %3 %4")
                      .arg(bar.pctOfCeiling, 0, 'f', 1)
                      .arg(roofLabel(s.peakKind), formatCeiling(s.peakValue), unit);
            if (bar.aboveCeiling)
                bar.toolTip += QLatin1Char('\n') + aboveCeilingReason(s, metric);
            else if (resident)
                bar.toolTip += QLatin1Char('\n')
                    + tr("* The working set (%1) fits in the last-level cache (%2): after the first touch it is read "
                         "from cache, so this is not a DRAM figure.")
                          .arg(ChartView::bytesText(s.bytes), ChartView::bytesText(static_cast<double>(s.cacheBytes)));
        }
        if (over)
            bar.toolTip += QLatin1Char('\n') + tr("Result over tolerance.");
        m_bars.push_back(bar);
    }

    // The calibrated ceilings the bars are a fraction of: one line per distinct ceiling (a CPU variant's host
    // bandwidth differs from the GPU's), all in the bars' metric.
    if (againstCeiling) {
        std::map<std::pair<std::string, long long>, const Summary*> ceilings;
        for (const auto& [index, row] : rowByVariant) {
            const Summary& s = model()->summary(row);
            if (s.peakValue > 0.0 && roofMetric(s.peakKind) == metric)
                ceilings.emplace(std::pair {s.peakKind, std::llround(s.peakValue)}, &s);
        }
        for (const auto& [key, s] : ceilings) {
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
            QString text
                = tr("measured %1 ceiling %2 %3").arg(roofLabel(s->peakKind), formatCeiling(s->peakValue), unit);
            if (ceilings.size() > 1 && !s->device.name.empty())
                text += QStringLiteral(" (%1)").arg(QString::fromStdString(s->device.name));
            label->setText(text);
            label->setColor(textColor());
            label->setFont(font());
        }
    }

    if (mixedRoofs && position > 0.0) {
        addNote(tr("these runs are measured against different ceilings (GB/s and GFLOP/s): no % of ceiling is shown"),
            0.01, 0.01, Qt::AlignLeft | Qt::AlignTop, alarmColor());
    }

    p->xAxis->setLabel(m_shownSize > 0 ? tr("variant (size %1)").arg(formatSize(m_shownSize)) : tr("variant"));
    // With nothing drawn there is no metric to name: any unit would claim one the next run may not have.
    p->yAxis->setLabel(position > 0.0 ? tr("throughput (%1)").arg(unit) : tr("throughput"));
    p->xAxis->setRange(0.4, std::max(position, 1.0) + 0.6);
    p->yAxis->setRange(0.0, top > 0.0 ? top * kHeadRoom : 1.0);
}

} // namespace ks::gui
