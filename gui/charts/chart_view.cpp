#include "gui/charts/chart_view.h"

#include "compute/core/atomic_file.h"
#include "gui/loaded_results.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <QEvent>
#include <QFileInfo>
#include <QLocale>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <memory>
#include <qcustomplot.h>
#include <typeinfo>
#include <vector>
#if KS_HAVE_QT_SVG
#include <QSvgGenerator>
#endif

namespace ks::gui {

namespace {
/// A range at least this many times its lower end apart gets decade ticks on a log axis.
constexpr double kDecadeTicksFrom = 100.0;
/// A linear range this many times nearer its round offset than its width is labelled as offsets from it.
constexpr double kOffsetLabelsFrom = 100.0;

/// The labels of `ticks` with the fewest significant digits that give each tick its own label, each within a
/// thousandth of the tick step of its value (so 0.25 never reads "0.2"), or on a log axis (`relative`) within a
/// thousandth of the value itself (so a decade computed as 0.010000000000000002 still reads 10⁻²).
QVector<QString> distinctLabels(
    const QVector<double>& ticks, const QLocale& locale, QChar format, int least, bool relative = false)
{
    double step = 0.0;
    for (qsizetype i = 1; i < ticks.size(); ++i) {
        const double gap = std::abs(ticks[i] - ticks[i - 1]);
        if (gap > 0.0 && (step == 0.0 || gap < step))
            step = gap;
    }
    QVector<double> values = ticks;
    for (double& v : values)
        if (step > 0.0 && std::abs(v) < step * 1e-9)
            v = 0.0; // 1e-17 left of an offset or a sum of steps is zero
    // 'g' with fewer digits than a number has before its point writes it as a power ("8e+01" for 80): below a
    // million, plain numbers read better.
    double largest = 0.0;
    for (double v : values)
        largest = std::max(largest, std::abs(v));
    if (format == QLatin1Char('g') && largest >= 1.0 && largest < 1e6)
        least = std::max(least, static_cast<int>(std::floor(std::log10(largest))) + 1);
    QVector<QString> labels(values.size());
    for (int digits = std::max(least, 0); digits <= 17; ++digits) {
        bool good = true;
        for (qsizetype i = 0; i < values.size() && good; ++i) {
            labels[i] = locale.toString(values[i], format.toLatin1(), digits);
            bool ok = false;
            const double read = locale.toDouble(labels[i], &ok);
            const double tolerance = relative ? std::abs(values[i]) * 1e-3 : step * 1e-3;
            good = ok && (tolerance == 0.0 || std::abs(read - values[i]) <= tolerance);
            for (qsizetype j = 0; j < i && good; ++j)
                good = labels[j] != labels[i];
        }
        if (good)
            break;
    }
    return labels;
}

/// A linear ticker whose labels tell its ticks apart, optionally as offsets from a round value.
class DistinctTicker : public QCPAxisTicker {
public:
    double offset = 0.0;
    QString labelSuffix; ///< what fitLinearTicks appended to the axis label for the offset

protected:
    QVector<QString> createLabelVector(
        const QVector<double>& ticks, const QLocale& locale, QChar formatChar, int) override
    {
        QVector<double> shown = ticks;
        for (double& v : shown)
            v -= offset;
        return distinctLabels(shown, locale, formatChar, 1);
    }
};

/// Decades on a wide log range; on a narrow one (20 to 40 ms) 1-2-5 ticks, then 1…9, then plain linear ticks, so
/// an axis never shows one label ("2·10¹") three times.
class DistinctLogTicker : public QCPAxisTickerLog {
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override
    {
        m_narrow = range.lower > 0.0 && range.upper / range.lower < kDecadeTicksFrom;
        if (!m_narrow)
            return QCPAxisTickerLog::createTickVector(tickStep, range);
        static const std::vector<std::vector<double>> kMantissas
            = {{1.0, 2.0, 5.0}, {1.0, 2.0, 3.0, 5.0, 7.0}, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}};
        for (const auto& mantissas : kMantissas) {
            QVector<double> ticks;
            for (int k = static_cast<int>(std::floor(std::log10(range.lower)));
                 k <= static_cast<int>(std::ceil(std::log10(range.upper))); ++k)
                for (double m : mantissas) {
                    const double tick = m * std::pow(10.0, k);
                    if (tick >= range.lower && tick <= range.upper)
                        ticks.push_back(tick);
                }
            if (ticks.size() >= 3)
                return ticks;
        }
        return QCPAxisTicker::createTickVector(QCPAxisTicker::getTickStep(range), range);
    }
    int getSubTickCount(double tickStep) override { return m_narrow ? 0 : QCPAxisTickerLog::getSubTickCount(tickStep); }
    QVector<QString> createLabelVector(
        const QVector<double>& ticks, const QLocale& locale, QChar formatChar, int precision) override
    {
        // Narrow ranges read as plain numbers (20, 30, 50); decades keep the axis' own format (10^k).
        return m_narrow ? distinctLabels(ticks, locale, QLatin1Char('g'), 1, true)
                        : distinctLabels(ticks, locale, formatChar, precision, true);
    }

private:
    bool m_narrow = false;
};

/// "1 000 000", "0.001": an offset as the axis label shows it, digits grouped by thin spaces.
QString offsetText(double offset, int decimals)
{
    QString digits = QString::number(std::abs(offset), 'f', std::max(decimals, 0));
    const qsizetype point = digits.indexOf(QLatin1Char('.'));
    for (qsizetype i = (point < 0 ? digits.size() : point) - 3; i > 0; i -= 3)
        digits.insert(i, QChar(0x202f));
    return digits;
}
} // namespace

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
    rebuildAndTidy();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    ++m_replots;
    m_sinceReplot.restart();
}

void ChartView::rebuildNow()
{
    m_throttle.stop();
    m_dirty = false;
    rebuildAndTidy();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    ++m_replots;
    m_sinceReplot.restart();
}

void ChartView::rebuildAndTidy()
{
    if (m_legendHiddenEmpty) {
        m_plot->legend->setVisible(true);
        m_legendHiddenEmpty = false;
    }
    rebuild();
    if (m_plot->legend->visible() && m_plot->legend->itemCount() == 0) {
        m_plot->legend->setVisible(false);
        m_legendHiddenEmpty = true;
    }
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
    // Drawn into a temporary file beside `path`, renamed over it when complete (AtomicFile): a failed export leaves an
    // old image as it was, and a device, FIFO or folder at `path` is refused.
    std::unique_ptr<AtomicFile> file;
    try {
        file = std::make_unique<AtomicFile>(path.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    const QString target = QString::fromStdString(file->temporaryPath());
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = m_plot->savePng(target, width, height, 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = m_plot->savePdf(target, width, height, QCP::epNoCosmetic, QStringLiteral("KernelScope"), title());
    } else if (suffix == QLatin1String("svg")) {
#if KS_HAVE_QT_SVG
        QSvgGenerator generator;
        generator.setFileName(target);
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
    try {
        if (ok)
            file->commit();
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
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
        // One value (a sweep of one size) leaves QCustomPlot's rescale at the axis' old width, decades of nothing
        // around one point: the data's own extent is taken instead, and widened below.
        const bool log = axis->scaleType() == QCPAxis::stLogarithmic;
        bool any = false;
        QCPRange extent;
        for (QCPAbstractPlottable* plottable : axis->plottables()) {
            if (!plottable->visible())
                continue;
            bool found = false;
            const QCP::SignDomain domain = log ? QCP::sdPositive : QCP::sdBoth;
            const QCPRange part = plottable->keyAxis() == axis ? plottable->getKeyRange(found, domain)
                                                               : plottable->getValueRange(found, domain);
            if (!found)
                continue;
            extent = any ? QCPRange(std::min(extent.lower, part.lower), std::max(extent.upper, part.upper)) : part;
            any = true;
        }
        if (any && extent.lower == extent.upper)
            r = log ? QCPRange(extent.lower / 1.5, extent.upper * 1.5) : extent;
        if (log) {
            if (r.lower <= 0)
                r.lower = std::max(r.upper * 1e-6, 1e-300);
            axis->setRange(r.lower / 1.4, r.upper * 1.4);
        } else {
            const double pad = r.size() > 0 ? r.size() * 0.06 : std::max(std::abs(r.center()) * 0.1, 1.0);
            axis->setRange(r.lower - pad, r.upper + pad);
            fitLinearTicks(axis);
        }
    }
}

void ChartView::fitLinearTicks(QCPAxis* axis)
{
    if (axis->scaleType() != QCPAxis::stLinear)
        return;
    auto ticker = qSharedPointerDynamicCast<DistinctTicker>(axis->ticker());
    if (!ticker) {
        // Only the plain ticker is replaced: text, date and the charts' own tickers label themselves.
        const QCPAxisTicker& current = *axis->ticker();
        if (typeid(current) != typeid(QCPAxisTicker))
            return;
        ticker = QSharedPointer<DistinctTicker>::create();
        ticker->setTickCount(axis->ticker()->tickCount());
        axis->setTicker(ticker);
    }
    QString label = axis->label();
    if (!ticker->labelSuffix.isEmpty() && label.endsWith(ticker->labelSuffix))
        label.chop(ticker->labelSuffix.size());
    ticker->offset = 0.0;
    ticker->labelSuffix.clear();
    const QCPRange r = axis->range();
    const double span = r.size();
    if (span > 0.0 && std::isfinite(span) && std::isfinite(r.lower)) {
        // The roundest value in the range (most trailing zeros): 1 000 000 for 999 988..1 000 211.
        for (int order = static_cast<int>(std::floor(std::log10(std::max(std::abs(r.lower), std::abs(r.upper)))));
             order >= static_cast<int>(std::floor(std::log10(span))) - 1; --order) {
            const double unit = std::pow(10.0, order);
            const double offset = std::ceil(r.lower / unit) * unit;
            if (offset > r.upper)
                continue;
            if (offset != 0.0 && std::abs(offset) / span >= kOffsetLabelsFrom) {
                ticker->offset = offset;
                ticker->labelSuffix
                    = (offset > 0 ? QStringLiteral(" − ") : QStringLiteral(" + ")) + offsetText(offset, -order);
            }
            break;
        }
    }
    axis->setLabel(label + ticker->labelSuffix);
}

QPen ChartView::variantPen(const QString& variant, bool overTolerance, double width) const
{
    return QPen(colorFor(variant), width, overTolerance ? Qt::DashLine : Qt::SolidLine);
}

QCPScatterStyle ChartView::overToleranceScatter(const QColor& color, double size)
{
    return QCPScatterStyle(QCPScatterStyle::ssCross, QPen(color, 2.5), Qt::NoBrush, size);
}

QString ChartView::overToleranceSuffix()
{
    return tr(" ✗ over tolerance");
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
    axis->setTicker(QSharedPointer<DistinctLogTicker>::create());
    axis->setNumberFormat(format);
    axis->setNumberPrecision(0);
}

std::map<int, std::map<std::uint64_t, int>> ChartView::latestTimedRunsBySize(const QString& exceptSource) const
{
    std::map<int, std::map<std::uint64_t, int>> rows;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const Summary& s = m_model->summary(row);
        if (!m_model->inView(row) || m_model->isRunning(row) || s.repetitions <= 0 || !(s.medianMs > 0.0)
            || s.size == 0)
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

QCPItemText* ChartView::addNote(const QString& text, double x, double y, Qt::Alignment alignment, const QColor& color)
{
    auto* note = new QCPItemText(plot());
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(x, y);
    note->setPositionAlignment(alignment);
    note->setText(text);
    note->setColor(color);
    note->setFont(font());
    return note;
}

void ChartView::addOverToleranceMarkers(
    QCPGraph* variantGraph, const QVector<double>& keys, const QVector<double>& values)
{
    if (keys.isEmpty() || !variantGraph)
        return;
    const QColor color = variantGraph->pen().color();
    QCPGraph* marks = m_plot->addGraph();
    marks->setData(keys, values, false);
    marks->setLineStyle(QCPGraph::lsNone);
    marks->setScatterStyle(overToleranceScatter(color));
    marks->setPen(QPen(color));
    // Its own legend entry beside the variant's: the colour says which variant, the cross says over tolerance.
    marks->setName(variantGraph->name() + overToleranceSuffix());
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
