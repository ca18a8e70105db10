#include "gui/views/cnn_breakdown_view.h"

#include "gui/results_model.h"

#include <QBoxLayout>
#include <QCheckBox>
#include <QHelpEvent>
#include <QToolTip>
#include <algorithm>
#include <limits>
#include <qcustomplot.h>
#include <set>

namespace ks::gui {

namespace {
constexpr double kBarWidth = 0.62;
constexpr std::size_t kMinBarSlots = 3;
/// The plot layout's rows: the caption, the bars, the legend.
constexpr int kLegendRow = 2;
/// A bar shorter than this fraction of the longest is a few pixels long: its segments cannot be told apart.
constexpr double kUnreadableShare = 0.03;

/// The phases of all bars in stacking order: layer by layer in the network's order (the forward phase, then the
/// backward one), then layers this view does not know in the order first met.
std::vector<std::pair<QString, bool>> stackingOrder(const std::vector<std::vector<cnn::Phase>>& runs)
{
    std::vector<QString> layers = cnn::knownLayers();
    std::set<std::pair<QString, bool>> present;
    for (const auto& phases : runs) {
        for (const auto& p : phases) {
            present.emplace(p.layer, p.backward);
            if (std::find(layers.begin(), layers.end(), p.layer) == layers.end())
                layers.push_back(p.layer);
        }
    }
    std::vector<std::pair<QString, bool>> order;
    for (const QString& layer : layers)
        for (bool backward : {false, true})
            if (present.count({layer, backward}))
                order.emplace_back(layer, backward);
    return order;
}

QString formatMs(double ms)
{
    return QString::number(ms, 'g', 3) + QStringLiteral(" ms");
}
} // namespace

CnnBreakdownView::CnnBreakdownView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
    , m_shares(new QCheckBox(tr("Show each phase as a share of the step (%)"), this))
{
    QCustomPlot* p = plot();
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Bars lie along the value axis: drag and zoom that one only.
    p->axisRect()->setRangeDrag(Qt::Horizontal);
    p->axisRect()->setRangeZoom(Qt::Horizontal);
    p->yAxis->setRangeReversed(true); // the first variant at the top, as the table lists it
    p->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->yAxis->grid()->setVisible(false);
    p->yAxis->setTickLength(0, 0);
    p->yAxis->setSubTicks(false);

    p->plotLayout()->insertRow(0);
    m_caption = new QCPTextElement(p, QString(), font());
    p->plotLayout()->addElement(0, 0, m_caption);

    // The legend under the bars, a column per layer: its forward phase over its backward one.
    p->axisRect()->insetLayout()->take(p->legend);
    p->legend->setFillOrder(QCPLegend::foRowsFirst);
    p->legend->setWrap(2);
    p->legend->setFont(font());
    p->legend->setBorderPen(Qt::NoPen);
    p->legend->setMargins(QMargins(4, 2, 4, 2));
    p->legend->setIconSize(16, 12);

    m_shares->setObjectName(QStringLiteral("breakdownShares"));
    m_shares->setToolTip(tr("Compare where the time goes when the variants' steps differ by orders of magnitude"));
    connect(m_shares, &QCheckBox::toggled, this, &CnnBreakdownView::scheduleRebuild);
    if (auto* box = qobject_cast<QBoxLayout*>(layout())) {
        auto* row = new QHBoxLayout;
        row->setContentsMargins(6, 4, 6, 0);
        row->addWidget(m_shares);
        row->addStretch();
        box->insertLayout(0, row);
    }
    p->installEventFilter(this);
}

QString CnnBreakdownView::title() const
{
    return tr("Step breakdown");
}

void CnnBreakdownView::setDataset(const data::Dataset& dataset)
{
    m_datasetHash = dataset.empty() ? std::string() : dataset.meta().contentHash;
    scheduleRebuild();
}

bool CnnBreakdownView::showsShares() const
{
    return m_shares->isChecked();
}

void CnnBreakdownView::setShowShares(bool shares)
{
    m_shares->setChecked(shares);
}

void CnnBreakdownView::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    p->clearItems();
    m_segments.clear();
    m_segmentPhases.clear();
    m_bars.clear();
    const bool shares = showsShares();

    // Phases arrive with a run's Summary, when it ends: the latest finished run of each variant.
    std::set<std::string> batches;
    for (const auto& [index, row] : cnn::latestRuns(*model(), m_datasetHash, false)) {
        const Summary& s = model()->summary(row);
        Bar bar;
        bar.variant = QString::fromStdString(s.variant);
        bar.phases = cnn::stepPhases(s.facts);
        for (const auto& phase : bar.phases)
            bar.totalMs += phase.ms;
        bar.stepMs = s.medianMs;
        m_bars.push_back(std::move(bar));
        batches.insert(s.params.has("batch") ? s.params.text("batch") : std::string());
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QColor text = textColor();
    std::vector<std::vector<cnn::Phase>> phasesByBar;
    double longest = 0.0, shortest = std::numeric_limits<double>::infinity();
    for (std::size_t b = 0; b < m_bars.size(); ++b) {
        const Bar& bar = m_bars[b];
        const double key = static_cast<double>(b + 1);
        ticker->addTick(key, bar.variant);
        phasesByBar.push_back(bar.phases);
        const bool measured = !bar.phases.empty() && bar.totalMs > 0.0;
        const double length = measured ? (shares ? 100.0 : bar.totalMs) : 0.0;
        longest = std::max(longest, length);
        if (measured)
            shortest = std::min(shortest, length);

        auto* label = new QCPItemText(p);
        label->position->setCoords(length, key);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setPadding(QMargins(6, 0, 0, 0));
        label->setColor(text);
        label->setFont(font());
        label->setSelectable(false);
        label->setText(measured ? formatMs(bar.totalMs) : tr("not measured (the run reported no phase times)"));
    }
    p->yAxis->setTicker(ticker);

    for (const auto& [layer, backward] : stackingOrder(phasesByBar)) {
        auto* bars = new QCPBars(p->yAxis, p->xAxis);
        bars->setWidth(kBarWidth);
        bars->setStackingGap(1);
        bars->setPen(Qt::NoPen);
        bars->setBrush(cnn::phaseColor(layer, backward));
        bars->setSelectable(QCP::stNone);
        QString name = layer;
        if (layer != QLatin1String("loss") && layer != QLatin1String("update"))
            name += backward ? tr(" backward") : tr(" forward");
        bars->setName(name);
        for (std::size_t b = 0; b < m_bars.size(); ++b) {
            const Bar& bar = m_bars[b];
            for (const auto& phase : bar.phases)
                if (phase.layer == layer && phase.backward == backward && bar.totalMs > 0.0)
                    bars->addData(double(b + 1), shares ? 100.0 * phase.ms / bar.totalMs : phase.ms);
        }
        if (!m_segments.empty())
            bars->moveAbove(m_segments.back());
        m_segments.push_back(bars);
        m_segmentPhases.emplace_back(layer, backward);
    }
    // An empty legend in the layout would narrow the whole column to its own width: out of the layout while empty.
    QCPLayoutGrid* grid = p->plotLayout();
    const bool legendPlaced = grid->hasElement(kLegendRow, 0) && grid->element(kLegendRow, 0) == p->legend;
    if (m_segments.empty() && legendPlaced) {
        grid->take(p->legend);
        grid->simplify();
    } else if (!m_segments.empty() && !legendPlaced) {
        grid->addElement(kLegendRow, 0, p->legend);
        grid->setRowStretchFactor(kLegendRow, 0.001);
    }
    p->legend->setVisible(!m_segments.empty());

    QString caption;
    if (m_bars.empty()) {
        caption = tr("No finished cnn run on this dataset yet: each run times one step layer by layer when it ends");
    } else {
        caption = tr("One training step, layer by layer: the median of untimed replays of the first step");
        if (batches.size() == 1 && !batches.begin()->empty())
            caption += tr(", batch %1").arg(QString::fromStdString(*batches.begin()));
        // A GPU step beside a CPU one is a sliver on a shared ms axis; shares put every bar on the same footing.
        if (shortest < kUnreadableShare * longest)
            caption += tr("\nSome bars are too short to read beside the longest: show shares of the step to compare "
                          "where their time goes");
    }
    m_caption->setText(caption);
    m_caption->setTextColor(text);

    p->xAxis->setLabel(shares ? tr("share of the step (%)") : tr("time in one step (ms)"));
    // Room right of the longest bar for its label.
    p->xAxis->setRange(0.0, longest > 0.0 ? longest * 1.22 : 1.0);
    // Room for kMinBarSlots bars at least: one or two variants get bars of a sensible thickness, at the top.
    p->yAxis->setRange(0.4, static_cast<double>(std::max<std::size_t>(m_bars.size(), kMinBarSlots)) + 0.6);
}

QStringList CnnBreakdownView::barLabels() const
{
    QStringList labels;
    for (const Bar& bar : m_bars)
        labels << bar.variant + QStringLiteral(": ")
                + (bar.phases.empty() || !(bar.totalMs > 0.0) ? tr("not measured") : formatMs(bar.totalMs));
    return labels;
}

QString CnnBreakdownView::toolTipAt(const QPointF& pos) const
{
    for (std::size_t segment = 0; segment < m_segments.size(); ++segment) {
        QCPBars* bars = m_segments[segment];
        const auto& [layer, backward] = m_segmentPhases[segment];
        QVariant details;
        const double distance = bars->selectTest(pos, false, &details);
        if (distance < 0 || distance > plot()->selectionTolerance())
            continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty())
            continue;
        const double key = bars->data()->at(selection.dataRange().begin())->key;
        const auto b = static_cast<std::size_t>(std::lround(key)) - 1;
        if (b >= m_bars.size())
            continue;
        const Bar& bar = m_bars[b];
        for (const auto& phase : bar.phases) {
            if (phase.layer != layer || phase.backward != backward)
                continue;
            QString tip = tr("%1 · %2: %3, %4 % of the step (%5 in all phases)")
                              .arg(bar.variant, phase.name, formatMs(phase.ms),
                                  QString::number(100.0 * phase.ms / bar.totalMs, 'f', 1), formatMs(bar.totalMs));
            if (bar.stepMs > 0.0)
                tip += tr("\nmedian of the timed steps: %1").arg(formatMs(bar.stepMs));
            return tip;
        }
    }
    return {};
}

bool CnnBreakdownView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == plot() && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, plot());
        return true;
    }
    return WorkloadView::eventFilter(watched, event);
}

} // namespace ks::gui
