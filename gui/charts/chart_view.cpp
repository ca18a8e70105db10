#include "gui/charts/chart_view.h"

#include "gui/loaded_results.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <QEvent>
#include <QFileInfo>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>
#if KS_HAVE_QT_SVG
#include <QSvgGenerator>
#endif

namespace ks::gui {

ChartView::ChartView(ResultsModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectPlottables | QCP::iSelectLegend);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(Qt::NoBrush);
    m_plot->setMinimumSize(320, 220);

    m_throttle.setSingleShot(true);
    connect(&m_throttle, &QTimer::timeout, this, &ChartView::flush);
    m_sinceReplot.start();

    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ChartView::scheduleRebuild);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ChartView::scheduleRebuild);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ChartView::scheduleRebuild);
    connect(m_model, &ResultsModel::samplesAppended, this, &ChartView::scheduleRebuild);
    applyTheme();
}

ChartView::~ChartView() = default;

void ChartView::scheduleRebuild()
{
    m_dirty = true;
    if (m_throttle.isActive())
        return;
    const qint64 since = m_sinceReplot.elapsed();
    m_throttle.start(since >= kMinReplotIntervalMs ? 0 : static_cast<int>(kMinReplotIntervalMs - since));
}

void ChartView::flush()
{
    // A hidden chart (another tab) waits until it is shown: only what the user sees costs GUI-thread time.
    if (!m_dirty || !isVisible())
        return;
    m_dirty = false;
    rebuild();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    ++m_replots;
    m_sinceReplot.restart();
}

void ChartView::rebuildNow()
{
    m_throttle.stop();
    m_dirty = false;
    rebuild();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    ++m_replots;
    m_sinceReplot.restart();
}

bool ChartView::svgAvailable()
{
#if KS_HAVE_QT_SVG
    return true;
#else
    return false;
#endif
}

bool ChartView::exportTo(const QString& path, QString* error)
{
    rebuildNow();
    const QString suffix = QFileInfo(path).suffix().toLower();
    const int width = std::max(m_plot->width(), 960);
    const int height = std::max(m_plot->height(), 600);
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = m_plot->savePng(path, width, height, 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = m_plot->savePdf(path, width, height, QCP::epNoCosmetic, QStringLiteral("KernelScope"), title());
    } else if (suffix == QLatin1String("svg")) {
#if KS_HAVE_QT_SVG
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(QSize(width, height));
        generator.setViewBox(QRect(0, 0, width, height));
        generator.setTitle(title());
        generator.setDescription(QStringLiteral("KernelScope chart"));
        QCPPainter painter;
        ok = painter.begin(&generator);
        if (ok) {
            m_plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
#else
        if (error)
            *error = tr("SVG export needs Qt's SVG module, which this build does not have");
        return false;
#endif
    } else {
        if (error)
            *error = tr("unknown image format '%1' (use .png, .pdf or .svg)").arg(suffix);
        return false;
    }
    if (!ok && error)
        *error = tr("could not write %1").arg(path);
    return ok;
}

int ChartView::pointCount() const
{
    int count = 0;
    for (int i = 0; i < m_plot->plottableCount(); ++i) {
        QCPAbstractPlottable* p = m_plot->plottable(i);
        if (auto* graph = qobject_cast<QCPGraph*>(p))
            count += graph->data()->size();
        else if (auto* bars = qobject_cast<QCPBars*>(p))
            count += bars->data()->size();
        else if (auto* curve = qobject_cast<QCPCurve*>(p))
            count += curve->data()->size();
        else if (auto* box = qobject_cast<QCPStatisticalBox*>(p))
            count += box->data()->size();
    }
    return count;
}

QColor ChartView::colorFor(const QString& variant) const
{
    return seriesColor(m_model->variantIndex(variant), darkTheme());
}

QColor ChartView::textColor() const
{
    return palette().color(QPalette::WindowText);
}

QColor ChartView::backgroundColor() const
{
    return palette().color(QPalette::Base);
}

QColor ChartView::gridColor() const
{
    QColor c = textColor();
    c.setAlpha(darkTheme() ? 50 : 40);
    return c;
}

bool ChartView::darkTheme() const
{
    return isDark(palette());
}

void ChartView::styleAxis(QCPAxis* axis) const
{
    const QColor text = textColor();
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(gridColor(), 0, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(gridColor().lighter(120), 0, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

void ChartView::applyTheme()
{
    m_plot->setBackground(QBrush(backgroundColor()));
    for (auto* axis : m_plot->axisRect()->axes())
        styleAxis(axis);
    m_plot->legend->setTextColor(textColor());
    m_plot->legend->setBorderPen(QPen(gridColor()));
    m_plot->legend->setSelectedTextColor(palette().color(QPalette::Highlight));
}

void ChartView::rescaleWithMargin()
{
    m_plot->rescaleAxes(true);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        QCPRange r = axis->range();
        if (axis->scaleType() == QCPAxis::stLogarithmic) {
            if (r.lower <= 0)
                r.lower = std::max(r.upper * 1e-6, 1e-300);
            axis->setRange(r.lower / 1.4, r.upper * 1.4);
        } else {
            const double pad = r.size() > 0 ? r.size() * 0.06 : std::max(std::abs(r.center()) * 0.1, 1.0);
            axis->setRange(r.lower - pad, r.upper + pad);
        }
    }
}

QString ChartView::toolTipAt(const QPoint&) const
{
    return {};
}

void ChartView::showToolTip(QMouseEvent* event)
{
    const QString text = toolTipAt(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot());
}

QString ChartView::bytesText(double bytes)
{
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 4) {
        bytes /= 1024.0;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(QString::number(bytes, 'g', 3), QString::fromLatin1(kUnits[unit]));
}

void ChartView::setLogAxis(QCPAxis* axis, const QString& format)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    axis->setNumberFormat(format);
    axis->setNumberPrecision(0);
}

std::map<int, std::map<std::uint64_t, int>> ChartView::latestTimedRunsBySize(const QString& exceptSource) const
{
    std::map<int, std::map<std::uint64_t, int>> rows;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const Summary& s = m_model->summary(row);
        if (m_model->isRunning(row) || s.repetitions <= 0 || !(s.medianMs > 0.0) || s.size == 0)
            continue;
        if (!exceptSource.isEmpty() && loadedSource(s) == exceptSource)
            continue;
        rows[m_model->variantIndex(QString::fromStdString(s.variant))][s.size] = row;
    }
    return rows;
}

QCPGraph* ChartView::addVariantGraph(const QString& variant, const QVector<double>& keys, const QVector<double>& values)
{
    const QColor color = colorFor(variant);
    QCPGraph* graph = m_plot->addGraph();
    graph->setData(keys, values, true);
    graph->setPen(QPen(color, 2));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 7));
    graph->setLineStyle(keys.size() > 1 ? QCPGraph::lsLine : QCPGraph::lsNone);
    graph->setName(variant);
    return graph;
}

void ChartView::addOverToleranceMarkers(const QVector<double>& keys, const QVector<double>& values)
{
    if (keys.isEmpty())
        return;
    QCPGraph* alarms = m_plot->addGraph();
    alarms->setData(keys, values, false);
    alarms->setLineStyle(QCPGraph::lsNone);
    alarms->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, alarmColor(), alarmColor(), 10));
    alarms->setPen(QPen(alarmColor()));
    alarms->setName(tr("over tolerance"));
}

void ChartView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        scheduleRebuild();
}

void ChartView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        applyTheme();
        scheduleRebuild();
    }
}

} // namespace ks::gui
