#include "gui/charts/correctness_chart.h"

#include "gui/results_model.h"
#include "gui/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <set>

namespace ks::gui {

namespace {
constexpr double kMarkerSize = 11.0;
/// The share of a bin's width the bars of all variants fill together.
constexpr double kGroupWidth = 0.8;

/// Latest finished run with a computed Delta, per variant in the workload's order.
std::map<int, int> latestCheckedRuns(ResultsModel* model)
{
    std::map<int, int> rowByVariant;
    for (int row = 0; row < model->rowCount(); ++row) {
        const Summary& s = model->summary(row);
        if (model->inView(row) && !model->isRunning(row) && s.delta.computed)
            rowByVariant[model->variantIndex(QString::fromStdString(s.variant))] = row;
    }
    return rowByVariant;
}

/// Where a value falls along the Log10 bins' positions: inside its bin, by its log between the bin's edges, so a
/// tolerance of 1e-12 sits on the edge of the bin that starts there.
double logPosition(double value)
{
    const std::size_t bin = ErrorHistogram::binOf(value);
    const double low = ErrorHistogram::binLow(ErrorBins::Log10, bin);
    const double high = ErrorHistogram::binHigh(ErrorBins::Log10, bin);
    double fraction = 0.0;
    if (low > 0.0 && std::isfinite(high))
        fraction = (std::log10(value) - std::log10(low)) / (std::log10(high) - std::log10(low));
    return CorrectnessChart::binPosition(bin) - 0.5 + fraction;
}
} // namespace

CorrectnessChart::CorrectnessChart(ResultsModel* model, QWidget* parent)
    : ChartView(model, parent)
    , m_distributionBox(new QCheckBox(tr("Error distribution"), this))
    , m_measureBox(new QComboBox(this))
{
    m_distributionBox->setToolTip(tr("Each variant's histogram of per-element errors against the reference, instead "
                                     "of its largest error alone"));
    m_measureBox->addItem(tr("relative error"));
    m_measureBox->addItem(tr("ULPs (count difference for integer results)"));
    m_measureBox->setEnabled(false);
    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(6, 4, 6, 0);
    controls->addWidget(m_distributionBox);
    controls->addWidget(m_measureBox);
    controls->addStretch(1);
    static_cast<QVBoxLayout*>(layout())->insertLayout(0, controls);
    connect(m_distributionBox, &QCheckBox::toggled, this, [this](bool shown) {
        m_measureBox->setEnabled(shown);
        scheduleRebuild();
    });
    connect(m_measureBox, &QComboBox::currentIndexChanged, this, &CorrectnessChart::scheduleRebuild);

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

bool CorrectnessChart::distributionShown() const
{
    return m_distributionBox->isChecked();
}

CorrectnessChart::Distribution CorrectnessChart::distribution() const
{
    return m_measureBox->currentIndex() == 1 ? Distribution::Steps : Distribution::Relative;
}

void CorrectnessChart::setDistributionShown(bool shown)
{
    m_distributionBox->setChecked(shown);
}

void CorrectnessChart::setDistribution(Distribution distribution)
{
    m_measureBox->setCurrentIndex(distribution == Distribution::Steps ? 1 : 0);
}

void CorrectnessChart::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker())->clear();
    if (distributionShown())
        rebuildDistribution();
    else
        rebuildDeltas();
}

void CorrectnessChart::rebuildDeltas()
{
    QCustomPlot* p = plot();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
    p->legend->setVisible(false);
    setLogAxis(p->yAxis);
    p->xAxis->setLabel(tr("variant"));
    p->xAxis->setTickLabelRotation(0);
    const std::map<int, int> rowByVariant = latestCheckedRuns(model());

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

        // The variant's colour whatever its Delta: over tolerance it is a cross ("✗"), not a dot.
        const QColor color = colorFor(variant);
        QCPGraph* graph = p->addGraph();
        graph->addData(position, drawn);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(over ? overToleranceScatter(color, kMarkerSize + 3)
                                    : QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, kMarkerSize));
        graph->setPen(QPen(color));
        graph->setName(over ? variant + overToleranceSuffix() : variant);

        QString text;
        if (!finite)
            text = std::isnan(value) ? tr("NaN") : tr("infinite");
        else if (value <= 0.0)
            text = tr("exact");
        else
            text = QString::number(value, 'e', 2);
        if (over)
            text += tr("\n✗ over tolerance");
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

void CorrectnessChart::rebuildDistribution()
{
    QCustomPlot* p = plot();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
    const bool relative = distribution() == Distribution::Relative;
    const ErrorBins layout = relative ? ErrorBins::Log10 : ErrorBins::PowersOfTwo;
    const std::size_t binCount = ErrorHistogram::binCount(layout);

    struct Shown {
        QString variant;
        const ErrorHistogram* histogram;
    };
    std::vector<Shown> shown;
    for (const auto& [index, row] : latestCheckedRuns(model())) {
        const Delta& d = model()->summary(row).delta;
        const auto& histogram = relative ? d.relError : d.stepError;
        if (histogram && histogram->bins == layout && histogram->counts.size() == binCount)
            shown.push_back({QString::fromStdString(model()->summary(row).variant), &*histogram});
    }

    // The bins drawn: from exact (0) up to one past the highest filled bin or tolerance, then a column of non-finite
    // errors when any variant has one.
    std::size_t last = 0;
    bool anyNonFinite = false;
    std::uint64_t largestCount = 1;
    std::set<double> tolerances;
    QStringList measures, sampleNotes;
    for (const Shown& entry : shown) {
        const ErrorHistogram& h = *entry.histogram;
        last = std::max(last, h.highestBin().value_or(0));
        anyNonFinite = anyNonFinite || h.nonFinite > 0;
        largestCount = std::max({largestCount, h.nonFinite, *std::max_element(h.counts.begin(), h.counts.end())});
        if (relative && h.tolerance && *h.tolerance > 0.0 && std::isfinite(*h.tolerance)) {
            tolerances.insert(*h.tolerance);
            last = std::max(last, ErrorHistogram::binOf(*h.tolerance));
        }
        if (!measures.contains(QString::fromStdString(h.measure)))
            measures.append(QString::fromStdString(h.measure));
        if (h.sampled)
            sampleNotes.append(
                tr("%1: a sample of %2 of %3 elements").arg(entry.variant).arg(h.compared()).arg(h.elements));
    }
    last = std::min(last + 1, binCount - 1);
    m_nonFinitePosition = binPosition(last) + 1.0;

    for (std::size_t bin = 0; bin <= last; ++bin) {
        // Log10: exact (0) and every decade labelled; the half-decades between, and the "below 1e-17" bin squeezed
        // between 0 and 1e-17, are unlabelled ticks, or the rotated labels would run into each other.
        const bool labelled = layout == ErrorBins::PowersOfTwo || bin == 0 || bin == binCount - 1 || bin % 2 == 0;
        ticker->addTick(
            binPosition(bin), labelled ? QString::fromStdString(ErrorHistogram::binLabel(layout, bin)) : QString());
    }
    if (anyNonFinite)
        ticker->addTick(m_nonFinitePosition, tr("NaN/inf"));

    const double width = kGroupWidth / static_cast<double>(std::max<std::size_t>(shown.size(), 1));
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const ErrorHistogram& h = *shown[k].histogram;
        // Side by side within each bin, the variants in the workload's order.
        const double offset = (static_cast<double>(k) + 0.5) * width - kGroupWidth / 2.0;
        auto* bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setWidth(width);
        bars->setBaseValue(kCountFloor);
        for (std::size_t bin = 0; bin < h.counts.size(); ++bin)
            if (h.counts[bin] > 0)
                bars->addData(binPosition(bin) + offset, static_cast<double>(h.counts[bin]));
        if (h.nonFinite > 0)
            bars->addData(m_nonFinitePosition + offset, static_cast<double>(h.nonFinite));
        const QColor color = colorFor(shown[k].variant);
        QColor fill = color;
        fill.setAlpha(210);
        bars->setPen(QPen(color.darker(120)));
        bars->setBrush(fill);
        bars->setName(h.sampled ? tr("%1 (sample)").arg(shown[k].variant) : shown[k].variant);
    }

    // The tolerance across the bins: elements right of it are over tolerance.
    for (double tolerance : tolerances) {
        const double x = logPosition(tolerance);
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(x, 1.0);
        line->point2->setCoords(x, 2.0);
        line->setPen(QPen(alarmColor(), 1.5, Qt::DashLine));
        auto* label = new QCPItemText(p);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        // Halfway up, right of the line, where bars are over tolerance and usually absent (the legend is at the top).
        label->position->setCoords(x, 0.5);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setPadding(QMargins(4, 0, 0, 0));
        label->setText(tr("tolerance %1").arg(QString::number(tolerance, 'g', 3)));
        label->setColor(alarmColor());
        label->setFont(font());
    }

    if (shown.empty() || !sampleNotes.isEmpty()) {
        QCPItemText* note = addNote(shown.empty() ? tr("No per-element errors recorded for these runs (files from "
                                                       "before they were kept, or checks without reference values).")
                                                  : sampleNotes.join(QLatin1Char('\n')),
            0.01, shown.empty() ? 0.5 : 0.02, Qt::AlignLeft | (shown.empty() ? Qt::AlignVCenter : Qt::AlignTop),
            textColor());
        note->setTextAlignment(Qt::AlignLeft);
    }

    p->legend->setVisible(!shown.empty());
    p->xAxis->setTickLabelRotation(-45);
    p->xAxis->setLabel(relative ? tr("error per element (%1)").arg(measures.join(QStringLiteral(", ")))
                                : tr("distance per element (%1)").arg(measures.join(QStringLiteral(", "))));
    p->yAxis->setLabel(tr("elements"));
    // Counts are whole numbers: plain "1, 2, 5, 100" rather than "2·10⁰".
    setLogAxis(p->yAxis, QStringLiteral("g"));
    p->yAxis->setNumberPrecision(7);
    p->xAxis->setRange(-0.7, (anyNonFinite ? m_nonFinitePosition : binPosition(last)) + 0.7);
    p->yAxis->setRange(kCountFloor, static_cast<double>(largestCount) * 4.0);
}

} // namespace ks::gui
