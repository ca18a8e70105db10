#include "gui/views/cnn_view.h"

#include "gui/results_model.h"
#include "gui/theme.h"
#include "gui/views/cnn_runs.h"

#include <QBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableWidget>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace ks::gui {

namespace {
/// Markers drawn hollow, so that where two variants' curves coincide (the reference and cpu_openmp agree to float
/// rounding) both shapes stay visible, one around the other.
constexpr std::array<QCPScatterStyle::ScatterShape, 8> kShapes = {QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare,
    QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted,
    QCPScatterStyle::ssCrossSquare, QCPScatterStyle::ssPlusCircle, QCPScatterStyle::ssStar};

/// Markers on a curve at most: enough to tell the shape, few enough not to hide the line.
constexpr int kMarkersPerCurve = 24;
/// Table rows shown before it scrolls: the plots keep most of the height.
constexpr int kMaxVisibleRows = 6;

/// Curves closer than this fraction of the losses' span are one curve on screen (a pixel of a 300-pixel plot).
constexpr double kSameCurveFraction = 0.003;

/// Whether two loss curves coincide within `tolerance` over the steps both have (none: they do not).
bool sameCurve(const std::vector<double>& a, const std::vector<double>& b, double tolerance)
{
    const std::size_t common = std::min(a.size(), b.size());
    if (common == 0)
        return false;
    for (std::size_t i = 0; i < common; ++i)
        if (!(std::abs(a[i] - b[i]) <= tolerance))
            return false;
    return true;
}

/// Ticks on whole steps: QCustomPlot's nice steps include 2.5, which would put ticks between two steps.
class StepTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override
    {
        const double step = QCPAxisTicker::getTickStep(range);
        if (step >= 10.0)
            return step;
        return step <= 1.0 ? 1.0 : (step <= 2.5 ? 2.0 : 5.0);
    }
};

/// How one variant is drawn in both plots and in its table row.
struct CurveStyle {
    QPen pen;
    QCPScatterStyle markers;
};

/// The variant's colour and marker shape, with a line that is wider the earlier it is drawn: a curve drawn later
/// over an identical one leaves a rim of the first in view.
CurveStyle curveStyle(
    const QColor& color, const QColor& background, int variantIndex, int position, int count, bool overTolerance)
{
    const double width = count > 1 ? 1.5 + 3.0 * double(count - 1 - position) / double(count - 1) : 2.0;
    CurveStyle style;
    style.pen = QPen(color, width, overTolerance ? Qt::DashLine : Qt::SolidLine);
    style.markers = QCPScatterStyle(kShapes[static_cast<std::size_t>(variantIndex) % kShapes.size()], QPen(color, 1.5),
        QBrush(background), 5.0 + 1.5 * width);
    return style;
}

QIcon curveIcon(const CurveStyle& style)
{
    QPixmap pixmap(36, 18);
    pixmap.fill(Qt::transparent);
    QCPPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    QPen pen = style.pen;
    pen.setWidthF(std::min(pen.widthF(), 3.0));
    painter.setPen(pen);
    painter.drawLine(QLineF(2, 9, 34, 9));
    style.markers.applyTo(&painter, pen);
    style.markers.drawShape(&painter, 18, 9);
    return QIcon(pixmap);
}

/// A time in ms with four significant digits ("256.8 ms", "0.4123 ms").
QString milliseconds(double ms)
{
    return QString::number(ms, 'g', 4) + QStringLiteral(" ms");
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(alignment);
    return item;
}

QVector<double> stepNumbers(std::size_t count)
{
    QVector<double> steps(static_cast<qsizetype>(count));
    for (std::size_t i = 0; i < count; ++i)
        steps[static_cast<qsizetype>(i)] = static_cast<double>(i + 1);
    return steps;
}

QCPGraph* addCurve(QCustomPlot* p, QCPAxis* x, QCPAxis* y, const std::vector<double>& values, const CurveStyle& style)
{
    QCPGraph* graph = p->addGraph(x, y);
    graph->setData(stepNumbers(values.size()), QVector<double>(values.begin(), values.end()), true);
    graph->setPen(style.pen);
    graph->setScatterStyle(style.markers);
    graph->setScatterSkip(std::max(0, static_cast<int>(values.size()) / kMarkersPerCurve - 1));
    return graph;
}
} // namespace

CnnView::CnnView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
    , m_timeRect(new QCPAxisRect(plot()))
    , m_table(new QTableWidget(0, VerdictColumnCount, this))
{
    QCustomPlot* p = plot();
    p->xAxis->setLabel(tr("training step"));
    p->yAxis->setLabel(tr("loss (softmax cross-entropy, batch mean)"));
    p->legend->setFont(font());

    // The step times beside the losses, both against the step: a slow step and a jump in the loss line up.
    p->plotLayout()->addElement(0, 1, m_timeRect);
    p->plotLayout()->setColumnStretchFactor(0, 3);
    p->plotLayout()->setColumnStretchFactor(1, 2);
    m_timeRect->axis(QCPAxis::atBottom)->setLabel(tr("training step"));
    m_timeRect->axis(QCPAxis::atLeft)->setLabel(tr("step time (ms)"));
    auto* margins = new QCPMarginGroup(p);
    p->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_timeRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    QCPAxis* timeX = m_timeRect->axis(QCPAxis::atBottom);
    p->xAxis->setTicker(QSharedPointer<StepTicker>::create());
    timeX->setTicker(QSharedPointer<StepTicker>::create());
    connect(p->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), timeX,
        qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(timeX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), p->xAxis,
        qOverload<const QCPRange&>(&QCPAxis::setRange));

    m_table->setObjectName(QStringLiteral("cnnVerdicts"));
    m_table->setHorizontalHeaderLabels({tr("Variant"), tr("Batch"), tr("Steps"), tr("Final loss"),
        tr("Held-out accuracy"), tr("Median step"), tr("Determinism"), tr("Gradient error"), tr("Loss vs cudnn")});
    m_table->horizontalHeaderItem(DeterminismColumn)
        ->setToolTip(tr("Whether a replay of the same steps from the same initial weights gave bit-identical weights"));
    m_table->horizontalHeaderItem(GradientErrorColumn)
        ->setToolTip(tr("Max relative error of the first step's parameter gradients against the double reference"));
    m_table->horizontalHeaderItem(CudnnLossColumn)
        ->setToolTip(tr("The loss after the last step both ran, relative to the cudnn variant's on the same training "
                        "(same batch, learning rate, momentum and seed)"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setIconSize(QSize(36, 18));
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_table->setVisible(false);
    if (auto* box = qobject_cast<QBoxLayout*>(layout()))
        box->addWidget(m_table);
}

QString CnnView::title() const
{
    return tr("Training");
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
    QCPAxis* timeX = m_timeRect->axis(QCPAxis::atBottom);
    QCPAxis* timeY = m_timeRect->axis(QCPAxis::atLeft);
    for (QCPAxis* axis : m_timeRect->axes())
        styleAxis(axis);

    // The latest run of each variant, running ones included: their losses and times arrive with each step.
    const std::map<int, int> latest = cnn::latestRuns(*model(), m_datasetHash, true);
    const std::vector<std::pair<int, int>> shown(latest.begin(), latest.end()); // variant index, row

    const int count = static_cast<int>(shown.size());
    double lowestLoss = std::numeric_limits<double>::infinity(), highestLoss = -lowestLoss;
    for (const auto& [index, row] : shown) {
        for (double loss : model()->summary(row).sampleMetrics) {
            lowestLoss = std::min(lowestLoss, loss);
            highestLoss = std::max(highestLoss, loss);
        }
    }
    const double lossSpan = highestLoss > lowestLoss ? highestLoss - lowestLoss : std::abs(highestLoss);
    double fastest = std::numeric_limits<double>::infinity(), slowest = 0.0;
    std::vector<const Summary*> runs;
    for (const auto& [index, row] : shown)
        runs.push_back(&model()->summary(row));
    m_table->setRowCount(count);
    for (int position = 0; position < count; ++position) {
        const auto [index, row] = shown[static_cast<std::size_t>(position)];
        const Summary& s = model()->summary(row);
        const bool running = model()->isRunning(row);
        const QString variant = QString::fromStdString(s.variant);
        const bool over = s.delta.computed && !s.delta.withinTolerance();
        const CurveStyle style = curveStyle(colorFor(variant), backgroundColor(), index, position, count, over);

        if (!s.sampleMetrics.empty()) {
            QCPGraph* loss = addCurve(p, p->xAxis, p->yAxis, s.sampleMetrics, style);
            QStringList notes;
            if (running)
                notes << tr("running");
            else if (over)
                notes << tr("gradient over tolerance");
            // Drawn over an earlier variant's curve, this one hides it: the legend says whose curve is under it.
            for (int earlier = 0; earlier < position; ++earlier) {
                const Summary& e = model()->summary(shown[static_cast<std::size_t>(earlier)].second);
                if (sameCurve(e.sampleMetrics, s.sampleMetrics, kSameCurveFraction * lossSpan)) {
                    notes << tr("same curve as %1").arg(QString::fromStdString(e.variant));
                    break;
                }
            }
            loss->setName(
                notes.isEmpty() ? variant : QStringLiteral("%1 (%2)").arg(variant, notes.join(QStringLiteral("; "))));
        }
        if (!s.samplesMs.empty()) {
            addCurve(p, timeX, timeY, s.samplesMs, style)->removeFromLegend();
            for (double ms : s.samplesMs) {
                if (ms > 0.0) {
                    fastest = std::min(fastest, ms);
                    slowest = std::max(slowest, ms);
                }
            }
        }

        const int steps = std::max(static_cast<int>(s.sampleMetrics.size()), s.repetitions);
        auto* name = cell(variant);
        name->setIcon(curveIcon(style));
        name->setToolTip(QString::fromStdString(s.variantName));
        m_table->setItem(position, VariantColumn, name);
        const bool hasBatch = s.params.has("batch");
        m_table->setItem(position, BatchColumn,
            cell(hasBatch ? QString::fromStdString(s.params.text("batch")) : QStringLiteral("—"), Qt::AlignCenter));
        m_table->setItem(position, StepsColumn, cell(QString::number(steps), Qt::AlignRight | Qt::AlignVCenter));
        m_table->setItem(position, FinalLossColumn,
            cell(s.sampleMetrics.empty() ? QStringLiteral("—") : QString::number(s.sampleMetrics.back(), 'g', 4),
                Qt::AlignRight | Qt::AlignVCenter));
        const QString afterRun = tr("after the run");
        m_table->setItem(position, AccuracyColumn, cell(running ? afterRun : cnn::accuracyText(s.facts)));
        m_table->setItem(position, MedianStepColumn,
            cell(running ? tr("running, step %1").arg(steps) : milliseconds(s.medianMs),
                Qt::AlignRight | Qt::AlignVCenter));
        auto* determinism = cell(running ? afterRun : cnn::determinismText(s.deterministic));
        if (!running && s.deterministic && !*s.deterministic)
            determinism->setToolTip(
                tr("A replay of the same steps from the same initial weights ended with different weights"));
        m_table->setItem(position, DeterminismColumn, determinism);
        auto* gradient = cell(s.delta.computed
                ? QString::number(s.delta.value, 'e', 1) + (over ? tr(" (over tolerance)") : QString())
                : QStringLiteral("—"));
        if (over)
            gradient->setForeground(alarmColor());
        m_table->setItem(position, GradientErrorColumn, gradient);
        const QString againstCudnn = cnn::lossAgainstCudnn(s, runs);
        m_table->setItem(position, CudnnLossColumn,
            cell(againstCudnn.isEmpty() ? QStringLiteral("—") : againstCudnn, Qt::AlignRight | Qt::AlignVCenter));
    }

    // A CPU reference at hundreds of ms beside a GPU step well under one: on a linear axis the fast ones would lie
    // flat on zero.
    const bool logTime = slowest > 0.0 && slowest / fastest > kLogTimeRatio;
    if (logTime != (timeY->scaleType() == QCPAxis::stLogarithmic)) {
        if (logTime) {
            setLogAxis(timeY);
        } else {
            timeY->setScaleType(QCPAxis::stLinear);
            timeY->setTicker(QSharedPointer<QCPAxisTicker>::create());
            timeY->setNumberFormat(QStringLiteral("gbd"));
            timeY->setNumberPrecision(6);
        }
    }
    timeY->setLabel(logTime ? tr("step time (ms, log scale)") : tr("step time (ms)"));

    p->legend->setVisible(!p->axisRect()->graphs().isEmpty());
    if (count == 0) {
        auto* hint = new QCPItemText(p);
        hint->setClipToAxisRect(false);
        hint->position->setType(QCPItemPosition::ptAxisRectRatio);
        hint->position->setCoords(0.5, 0.5);
        hint->setPositionAlignment(Qt::AlignCenter);
        hint->setColor(textColor());
        hint->setFont(font());
        hint->setText(tr("No training run on this dataset yet: run the variants and each step's loss appears here"));
        hint->setSelectable(false);
    }
    rescaleWithMargin();
    if (slowest > 0.0)
        timeY->setRange(logTime ? QCPRange(fastest / 1.4, slowest * 1.4) : QCPRange(0.0, slowest * 1.12));
    m_table->setVisible(count > 0);
    fitTableHeight();
}

void CnnView::fitTableHeight()
{
    int height = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    for (int row = 0; row < std::min(m_table->rowCount(), kMaxVisibleRows); ++row)
        height += m_table->rowHeight(row);
    if (m_table->isVisible() && m_table->horizontalHeader()->length() > m_table->viewport()->width())
        height += m_table->horizontalScrollBar()->sizeHint().height();
    m_table->setFixedHeight(height);
}

} // namespace ks::gui
