#include "gui/views/sdh_view.h"

#include "compute/core/errors.h"
#include "compute/core/runner.h"
#include "compute/workloads/sdh/sdh.h"
#include "data/point_cloud.h"
#include "gui/results_model.h"
#include "gui/theme.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <utility>

namespace ks::gui {

namespace {
/// The reference variant's id: the oracle every other histogram is drawn over.
const std::string kReference = "reference";

/// A count with the user's digit grouping: 4,498,500 pairs are read at a glance, 4498500 are not.
QString count(std::uint64_t n)
{
    return QLocale().toString(static_cast<qulonglong>(n));
}

/// A pair count that arrived as a double (Delta details), signed when asked: "+3", "−12", "0".
QString pairs(double n, bool sign = false)
{
    const auto whole = static_cast<qlonglong>(std::llround(n));
    QString text = QLocale().toString(std::abs(whole));
    if (whole < 0)
        text.prepend(QStringLiteral("−"));
    else if (sign && whole > 0)
        text.prepend(QLatin1Char('+'));
    return text;
}

/// A bucket width as the user typed it, in the user's locale ("500", "0.25", "1e-06").
QString widthText(double w)
{
    return QLocale().toString(w, 'g', 6);
}

/// The `bucket_width` of a run; nullopt when its parameters have none (a run of another workload, an old file).
std::optional<double> bucketWidthOf(const Summary& s)
{
    if (!s.params.has("bucket_width"))
        return std::nullopt;
    try {
        const double w = s.params.real("bucket_width");
        return w > 0.0 && std::isfinite(w) ? std::optional<double>(w) : std::nullopt;
    } catch (const ParameterError&) {
        return std::nullopt;
    }
}

bool isHistogram(const Summary& s)
{
    return s.result && s.result->quantity == "histogram" && !s.result->counts.empty();
}

std::optional<double> detail(const Delta& delta, const std::string& name)
{
    for (const auto& [key, value] : delta.details)
        if (key == name)
            return value;
    return std::nullopt;
}

/// Both name the same result object (owner equivalence; an expired reference names nothing).
bool sameResult(const std::weak_ptr<const Result>& cached, const std::shared_ptr<const Result>& current)
{
    return !cached.expired() && !cached.owner_before(current) && !current.owner_before(cached);
}

/// Results whose steps stay cached: every variant of a workload, twice over (two widths), and then some.
constexpr std::size_t kCachedResults = 32;
} // namespace

SdhView::SdhView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
    , m_logBox(new QCheckBox(tr("Logarithmic pair counts"), this))
{
    QCustomPlot* p = plot();
    p->legend->setFont(font());
    p->xAxis->setLabel(tr("pair distance"));
    p->yAxis->setLabel(tr("pairs"));

    p->plotLayout()->insertRow(0);
    m_caption = new QCPTextElement(p, QString(), font());
    p->plotLayout()->addElement(0, 0, m_caption);
    // The checks sit in the plot's own layout, one text per variant, so that exports (PNG, PDF, SVG) carry them.
    m_checkGrid = new QCPLayoutGrid;
    p->plotLayout()->addElement(2, 0, m_checkGrid);
    m_checkGrid->setRowSpacing(0);
    m_checkGrid->setMargins(QMargins(8, 0, 8, 6));

    m_message = new QCPItemText(p);
    m_message->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_message->position->setCoords(0.5, 0.5);
    m_message->setPositionAlignment(Qt::AlignCenter);
    m_message->setTextAlignment(Qt::AlignCenter);
    m_message->setSelectable(false);
    m_message->setVisible(false);

    // Bucket counts span orders of magnitude (a handful of pairs at the longest distances, millions at the mode):
    // only a log axis shows both ends. Off by default: the linear axis shows the distribution's shape.
    m_logBox->setObjectName(QStringLiteral("logCounts"));
    m_logBox->setToolTip(tr("Show the pair counts on a logarithmic axis; empty buckets sit at its bottom"));
    connect(m_logBox, &QCheckBox::toggled, this, &SdhView::scheduleRebuild);
    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(6, 2, 6, 0);
    controls->addWidget(m_logBox);
    controls->addStretch(1);
    static_cast<QVBoxLayout*>(layout())->insertLayout(0, controls);
}

QString SdhView::title() const
{
    return tr("Distance histogram");
}

void SdhView::setDataset(const data::Dataset& dataset)
{
    m_datasetHash = !dataset.empty() && dataset.holds<data::PointCloud>() ? dataset.meta().contentHash : std::string();
    scheduleRebuild();
}

bool SdhView::logScale() const
{
    return m_logBox->isChecked();
}

void SdhView::setLogScale(bool on)
{
    m_logBox->setChecked(on); // toggled schedules the rebuild
}

SdhView::Steps SdhView::stepsFor(const std::shared_ptr<const Result>& result, double bucketWidth)
{
    for (const Steps& cached : m_steps)
        if (cached.width == bucketWidth && sameResult(cached.source, result))
            return cached; // the vectors are implicitly shared: no copy of the data
    std::erase_if(m_steps, [](const Steps& s) { return s.source.expired(); });
    if (m_steps.size() >= kCachedResults)
        m_steps.erase(m_steps.begin());

    Steps s;
    s.source = result;
    s.width = bucketWidth;
    const std::vector<std::uint64_t>& counts = result->counts;
    const std::size_t buckets = counts.size();
    s.bucketsPerStep = std::max<std::uint64_t>(1, (buckets + kMaxSteps - 1) / kMaxSteps);
    const std::size_t g = s.bucketsPerStep;
    const std::size_t steps = (buckets + g - 1) / g;
    s.edges.reserve(static_cast<qsizetype>(steps) + 1);
    s.counts.reserve(static_cast<qsizetype>(steps) + 1);
    for (std::size_t k = 0; k < steps; ++k) {
        std::uint64_t sum = 0;
        for (std::size_t b = k * g; b < std::min(buckets, (k + 1) * g); ++b)
            sum += counts[b];
        s.total += sum;
        // Edges from the bucket index, never accumulated: b·W stays exact where adding W a million times would not.
        s.edges.push_back(static_cast<double>(k * g) * bucketWidth);
        s.counts.push_back(static_cast<double>(sum));
        s.tallest = std::max(s.tallest, static_cast<double>(sum));
    }
    // The last step ends at the last bucket's right edge (a partial group of buckets ends early).
    s.edges.push_back(static_cast<double>(buckets) * bucketWidth);
    s.counts.push_back(s.counts.back());
    m_steps.push_back(s);
    return s;
}

SdhView::Check SdhView::checkFor(const Summary& s, const Result* reference) const
{
    Check c;
    c.variant = s.variant;
    c.overTolerance = s.delta.computed && !s.delta.withinTolerance();
    const std::vector<std::uint64_t>& counts = s.result->counts;
    std::uint64_t total = 0;
    for (const std::uint64_t n : counts)
        total += n;
    const std::uint64_t expected = sdh::pairCount(s.size);
    const bool isReference = s.variant == kReference;

    // What the run measured (its Delta) first; what can be seen from the counts when the Delta lacks it.
    c.totalMinusPairs = detail(s.delta, "total_minus_pairs");
    if (!c.totalMinusPairs)
        c.totalMinusPairs = static_cast<double>(total) - static_cast<double>(expected);
    const bool referenceSkipped = detail(s.delta, "reference_skipped").value_or(0.0) != 0.0;
    if (!isReference) {
        c.l1Pairs = detail(s.delta, "l1_pairs");
        c.maxRelBucketErr = detail(s.delta, "max_rel_bucket_err");
        if ((!c.l1Pairs || !c.maxRelBucketErr) && reference && reference->counts.size() == counts.size()) {
            double l1 = 0.0, worst = 0.0;
            for (std::size_t b = 0; b < counts.size(); ++b) {
                const double ref = static_cast<double>(reference->counts[b]);
                const double diff = std::fabs(static_cast<double>(counts[b]) - ref);
                l1 += diff;
                worst = std::max(worst, diff / std::max(1.0, ref));
            }
            if (!c.l1Pairs)
                c.l1Pairs = l1;
            if (!c.maxRelBucketErr)
                c.maxRelBucketErr = worst;
        }
    }

    QStringList parts;
    if (isReference) {
        parts << tr("%1 pairs in %2 buckets (the oracle)").arg(count(total), count(counts.size()));
    } else if (c.l1Pairs) {
        QString l1 = std::llround(*c.l1Pairs) == 1 ? tr("L1 1 pair from the reference")
                                                   : tr("L1 %1 pairs from the reference").arg(pairs(*c.l1Pairs));
        if (c.maxRelBucketErr && *c.l1Pairs > 0.0)
            l1 += tr(" (worst bucket off by %1%)").arg(QLocale().toString(100.0 * *c.maxRelBucketErr, 'g', 3));
        parts << l1;
    } else if (referenceSkipped) {
        parts << tr("reference skipped (too many pairs): only the total is checked");
    } else if (reference) {
        parts << tr("%1 buckets, the reference %2: not comparable")
                     .arg(count(counts.size()), count(reference->counts.size()));
    } else {
        parts << tr("no reference at this bucket width to compare with");
    }
    if (std::llround(*c.totalMinusPairs) == 0)
        parts << tr("total = N(N−1)/2 = %1 ✓").arg(count(expected));
    else
        parts << tr("total %1 ≠ N(N−1)/2 = %2 (%3) ✗")
                     .arg(pairs(static_cast<double>(expected) + *c.totalMinusPairs), count(expected),
                         pairs(*c.totalMinusPairs, true));
    if (c.overTolerance)
        parts << tr("over tolerance");
    c.text = QStringLiteral("%1: %2").arg(QString::fromStdString(s.variant), parts.join(QStringLiteral(" · ")));
    return c;
}

void SdhView::showMessage(const QString& message)
{
    m_caption->setText(QString());
    m_message->setText(message);
    m_message->setVisible(true);
    plot()->xAxis->setRange(0.0, 1.0);
    plot()->yAxis->setScaleType(QCPAxis::stLinear);
    plot()->yAxis->setRange(0.0, 1.0);
}

void SdhView::rebuild()
{
    QCustomPlot* p = plot();
    p->clearPlottables();
    m_checks.clear();
    m_checkGrid->clear();
    m_shownWidth.reset();
    m_message->setVisible(false);

    // The newest finished sdh run decides the dataset and the bucket width; one whose result was dropped (too
    // large to keep) is said so rather than older data shown in its place.
    const auto candidate = [&](int row) {
        const Summary& s = model()->summary(row);
        return !model()->isRunning(row) && s.workload == "sdh"
            && (m_datasetHash.empty() || s.datasetHash == m_datasetHash) && bucketWidthOf(s).has_value();
    };
    int newest = -1;
    for (int row = model()->rowCount() - 1; row >= 0 && newest < 0; --row) {
        if (!candidate(row))
            continue;
        const Summary& s = model()->summary(row);
        if (isHistogram(s)) {
            newest = row;
        } else if (s.resultDropped) {
            showMessage(tr("The histogram of %1 (over %2 buckets) was too large to keep;\n"
                           "kernelscope-cli --output saves it for inspection")
                            .arg(QString::fromStdString(s.variant), count(RunOptions::kKeptResultLimit)));
            applyColors();
            return;
        }
    }
    if (newest < 0) {
        showMessage(m_datasetHash.empty() ? tr("No finished sdh run with a histogram yet")
                                          : tr("No finished sdh run on this point cloud yet"));
        applyColors();
        return;
    }
    const Summary& latest = model()->summary(newest);
    const std::string hash = latest.datasetHash;
    const double w = *bucketWidthOf(latest);

    // The latest run of each variant on that dataset at that width; the reference apart, drawn first.
    int referenceRow = -1;
    std::map<int, int> rows;
    for (int row = newest; row >= 0; --row) {
        if (!candidate(row))
            continue;
        const Summary& s = model()->summary(row);
        if (!isHistogram(s) || s.datasetHash != hash || *bucketWidthOf(s) != w)
            continue;
        if (s.variant == kReference) {
            if (referenceRow < 0)
                referenceRow = row;
        } else {
            rows.try_emplace(model()->variantIndex(QString::fromStdString(s.variant)), row);
        }
    }
    std::vector<int> shown;
    if (referenceRow >= 0)
        shown.push_back(referenceRow);
    for (const auto& [index, row] : rows)
        shown.push_back(row);
    const Result* reference = referenceRow >= 0 ? model()->summary(referenceRow).result.get() : nullptr;

    const bool log = logScale();
    const bool dark = darkTheme();
    double tallest = 0.0, right = 0.0;
    std::uint64_t bucketsPerStep = 1;
    for (const int row : shown) {
        const Summary& s = model()->summary(row);
        const Steps steps = stepsFor(s.result, w);
        tallest = std::max(tallest, steps.tallest);
        right = std::max(right, steps.edges.back());
        bucketsPerStep = std::max(bucketsPerStep, steps.bucketsPerStep);

        Check check = checkFor(s, reference);
        const QString variant = QString::fromStdString(s.variant);
        QCPGraph* graph = p->addGraph();
        QVector<double> values = steps.counts;
        if (log)
            std::replace_if(
                values.begin(), values.end(), [](double v) { return v < kLogFloor; }, kLogFloor);
        graph->setData(steps.edges, values, true);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        const QColor color = colorFor(variant);
        if (check.overTolerance) {
            graph->setPen(variantPen(variant, true, 2));
        } else if (s.variant == kReference) {
            // The reference as filled bars under everything: the other variants' lines read against its area.
            graph->setPen(QPen(color, 1.5));
            QColor fill = color;
            fill.setAlpha(dark ? 80 : 60);
            graph->setBrush(fill);
        } else {
            graph->setPen(QPen(color, 2));
        }
        graph->setName(check.overTolerance ? variant + overToleranceSuffix() : variant);
        m_checks.push_back(std::move(check));
    }
    m_shownWidth = w;

    // The checks, one line per variant, in the graphs' order.
    for (std::size_t i = 0; i < m_checks.size(); ++i) {
        auto* text = new QCPTextElement(p, m_checks[i].text, font());
        text->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
        text->setMargins(QMargins(4, 1, 4, 1));
        text->setSelectable(false);
        m_checkGrid->addElement(static_cast<int>(i), 0, text);
    }

    // Axes: distance from 0 to the last bucket's right edge; counts from 0 (or the log floor) to the tallest step.
    p->xAxis->setLabel(tr("pair distance (buckets of %1)").arg(widthText(w)));
    p->xAxis->setRange(-0.01 * right, 1.01 * right);
    if (log) {
        setLogAxis(p->yAxis);
        p->yAxis->setRange(kLogFloor, std::max(2.0, tallest * 2.0));
        p->yAxis->setLabel(tr("pairs (log scale)"));
    } else {
        p->yAxis->setScaleType(QCPAxis::stLinear);
        if (qSharedPointerDynamicCast<QCPAxisTickerLog>(p->yAxis->ticker()))
            p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        p->yAxis->setNumberFormat(QStringLiteral("gbd"));
        p->yAxis->setNumberPrecision(6);
        p->yAxis->setRange(0.0, std::max(1.0, tallest * 1.08));
        p->yAxis->setLabel(tr("pairs"));
    }

    const std::uint64_t n = latest.size;
    QString caption = tr("Pair distances · N = %1 points, %2 pairs").arg(count(n), count(sdh::pairCount(n)));
    if (!latest.datasetName.empty())
        caption += QStringLiteral(" · ") + QString::fromStdString(latest.datasetName);
    if (sdh::pairCount(n) == 0)
        caption += QLatin1Char('\n') + tr("fewer than two points: no pairs, every bucket is empty");
    if (bucketsPerStep > 1)
        caption += QLatin1Char('\n') + tr("each step sums %1 adjacent buckets").arg(count(bucketsPerStep));
    if (referenceRow < 0)
        caption += QLatin1Char('\n') + tr("no reference run at this bucket width yet");
    m_caption->setText(caption);
    applyColors();
}

void SdhView::applyColors()
{
    const QColor text = textColor();
    m_caption->setTextColor(text);
    m_message->setColor(text);
    for (int i = 0; i < m_checkGrid->elementCount(); ++i) {
        auto* element = qobject_cast<QCPTextElement*>(m_checkGrid->elementAt(i));
        if (!element)
            continue;
        const auto index = static_cast<std::size_t>(i);
        const bool wrong = index < m_checks.size()
            && (m_checks[index].overTolerance || std::llround(m_checks[index].totalMinusPairs.value_or(0.0)) != 0);
        element->setTextColor(wrong ? alarmColor() : text);
    }
}

} // namespace ks::gui
