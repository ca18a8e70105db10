#include "gui/views/spmv_view.h"

#include "compute/workloads/spmv/auto_choice.h"
#include "compute/workloads/spmv/spmv_policy.h"
#include "data/sparse_matrix.h"
#include "gui/theme.h"

#include <QLocale>
#include <QPromise>
#include <QThreadPool>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <qcustomplot.h>
#include <utility>

namespace ks::gui {

namespace {
constexpr std::uint64_t kBinThreadMax = spmv::RowBinningThresholds::kShortMax;
constexpr std::uint64_t kBinWarpMax = spmv::RowBinningThresholds::kMediumMax;
constexpr std::uint64_t kAdaptiveScalarMax = spmv::AdaptiveThresholds::kScalarMax;
constexpr double kEllMaxPadding = spmv::EllThresholds::kMaxPadding;
constexpr int kDiaMaxDiagonals = spmv::DiaThresholds::kMaxDiagonals;
constexpr double kDiaMaxFill = spmv::DiaThresholds::kMaxFill;
constexpr int kLongChunk = spmv::LongRowThresholds::kChunk;
constexpr int kWideChunk = spmv::LongRowThresholds::kWideChunk;
constexpr std::uint64_t kTileCapacity = spmv::RowTileThresholds::kCapacity;
// The classes are counted from the exact length histogram, which stops at kMaxExactLength.
static_assert(kBinThreadMax <= kBinWarpMax && kBinWarpMax <= SpmvView::kMaxExactLength
        && kAdaptiveScalarMax <= SpmvView::kMaxExactLength,
    "the row-length classes must fall within the exact histogram");

/// A count with the user's digit grouping: 4,194,304 rows are read at a glance, 4194304 are not.
QString count(std::uint64_t n)
{
    return QLocale().toString(static_cast<qulonglong>(n));
}

/// Three significant digits in the user's locale; from 1,000 on, the whole number (never "2.13e+04").
QString number(double x)
{
    return std::abs(x) >= 1000.0 ? QLocale().toString(x, 'f', 0) : QLocale().toString(x, 'g', 3);
}

/// `part` of `whole` as a percentage with three significant digits ("0%" for none, "100%" for all).
QString share(double part, double whole)
{
    return whole > 0.0 ? number(100.0 * part / whole) + QLatin1Char('%') : QStringLiteral("0%");
}

/// The bars of the current palette: a calm blue for the rows, grey for the empty rows beside them.
QColor rowsColor(bool dark)
{
    return dark ? QColor(108, 166, 220) : QColor(52, 111, 176);
}
QColor emptyColor(bool dark)
{
    return dark ? QColor(135, 135, 135) : QColor(160, 160, 160);
}
} // namespace

double SpmvView::Profile::ellSlotsPerNonZero() const
{
    return nnz == 0 ? 0.0 : static_cast<double>(longest) * static_cast<double>(rows) / static_cast<double>(nnz);
}

double SpmvView::Profile::diaSlotsPerNonZero() const
{
    return nnz == 0 ? 0.0 : static_cast<double>(diagonals) * static_cast<double>(rows) / static_cast<double>(nnz);
}

double SpmvView::Profile::density() const
{
    const double cells = static_cast<double>(rows) * static_cast<double>(cols);
    return cells > 0.0 ? static_cast<double>(nnz) / cells : 0.0;
}

SpmvView::Profile SpmvView::profileOf(const data::CsrMatrix& matrix, const std::atomic<bool>* cancel)
{
    Profile p;
    // One pass, spmv::rowStats's (the statistics the auto variant chooses by), which also fills both histograms
    // (exact up to kMaxExactLength, the rest in one overflow count; and powers of two by bit width), the shortest
    // row and each warp's longest row.
    std::array<std::uint64_t, kMaxExactLength + 2> exact {};
    std::array<std::uint64_t, 65> powers {};
    std::uint64_t shortest = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t laneSlots = 0; // ≤ rows × longest < 2^62: lengths are below 2^31 (32-bit column indices)
    std::uint64_t warpRows = 0;
    std::uint64_t warpLongest = 0;
    std::uint64_t tileLongRows = 0;
    bool complete = true;
    spmv::RowStats stats = spmv::rowStats(
        matrix,
        [&](std::uint64_t row, std::uint64_t length) {
            if (cancel && (row & 0xffff) == 0 && cancel->load(std::memory_order_relaxed))
                return false;
            if (row % 32 == 0) { // a new warp of 32 consecutive rows
                laneSlots += warpRows * warpLongest;
                warpRows = 0;
                warpLongest = 0;
            }
            ++warpRows;
            warpLongest = std::max(warpLongest, length);
            shortest = std::min(shortest, length);
            ++exact[std::min<std::uint64_t>(length, kMaxExactLength + 1)];
            ++powers[static_cast<std::size_t>(std::bit_width(length))];
            tileLongRows += length > kTileCapacity;
            return true;
        },
        complete);
    if (!complete) {
        p.cancelled = true;
        return p;
    }
    laneSlots += warpRows * warpLongest;
    // The diagonals too, as the auto variant counts them: a pass over the columns for a banded matrix, a few rows
    // for a scattered one.
    stats.diagonals = spmv::diagonalOffsets(matrix, kDiaMaxDiagonals).size();
    p.diagonals = stats.diagonals;
    const std::uint64_t rows = stats.rows;
    const std::uint64_t longest = stats.longest;
    p.rows = rows;
    p.cols = stats.cols;
    p.nnz = stats.nnz;
    p.mean = stats.mean;
    p.shortest = rows == 0 ? 0 : shortest;
    p.longest = longest;
    p.stddev = stats.stddev;
    p.emptyRows = stats.emptyRows;
    p.meanSpan = stats.meanSpan;
    p.warpBalance = laneSlots == 0 ? 0.0 : static_cast<double>(p.nnz) / static_cast<double>(laneSlots);
    const spmv::AutoChoice choice = spmv::chooseKernel(stats);
    p.autoVariant = choice.variant;
    p.autoReason = choice.reason;

    const auto rowsUpTo = [&](std::uint64_t length) {
        std::uint64_t n = 0;
        for (std::uint64_t l = 0; l <= length; ++l)
            n += exact[l];
        return n;
    };
    p.threadRows = rowsUpTo(kBinThreadMax);
    p.warpRows = rowsUpTo(kBinWarpMax) - p.threadRows;
    p.blockRows = rows - p.threadRows - p.warpRows;
    p.adaptiveWarpRows = rows - rowsUpTo(kAdaptiveScalarMax);
    p.tileLongRows = tileLongRows;

    p.logBins = longest > kMaxExactLength;
    if (!p.logBins) {
        for (std::uint64_t l = 0; l <= longest; ++l)
            p.bins.push_back(Bin {l, l, exact[l]});
    } else {
        // 0, then [2^(k−1), 2^k − 1]: a length's bin is its bit width.
        const auto top = static_cast<std::size_t>(std::bit_width(longest));
        for (std::size_t k = 0; k <= top; ++k) {
            const std::uint64_t first = k == 0 ? 0 : std::uint64_t(1) << (k - 1);
            const std::uint64_t last = k == 0 ? 0 : (std::uint64_t(1) << k) - 1;
            p.bins.push_back(Bin {first, last, powers[k]});
        }
    }
    return p;
}

QString SpmvView::binLabel(const Bin& bin)
{
    return bin.first == bin.last ? count(bin.first) : QStringLiteral("%1–%2").arg(count(bin.first), count(bin.last));
}

namespace {
/// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole), each after
/// `indent`.
QString wrapped(const QString& text, qsizetype width, const QString& indent)
{
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            lines << indent + line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines << indent + line;
    return lines.join(QLatin1Char('\n'));
}

/// A text element that does not cap its layout row: QCPLayoutGrid gives a row the smallest maximum height of its
/// elements, so a plain text element beside the axis rect held the bars to the summary's height, a third of the
/// panel. This one takes the row's height and centres its text in it.
class RowFillingText : public QCPTextElement {
public:
    using QCPTextElement::QCPTextElement;
    QSize maximumOuterSizeHint() const override
    {
        return {QCPTextElement::maximumOuterSizeHint().width(), QWIDGETSIZE_MAX};
    }
};
} // namespace

SpmvView::SpmvView(ResultsModel* model, QWidget* parent)
    : WorkloadView(model, parent)
{
    QCustomPlot* p = plot();
    p->legend->setVisible(false); // two bar sets, both named on the axis: the grey one is the "empty" tick
    p->xAxis->setLabel(tr("non-zeros in the row"));
    p->yAxis->setLabel(tr("rows"));
    p->xAxis->grid()->setVisible(false);

    p->plotLayout()->insertRow(0);
    m_caption = new QCPTextElement(p, QString(), font());
    p->plotLayout()->addElement(0, 0, m_caption);
    // The summary sits in the plot's own layout so that exports (PNG, PDF, SVG) carry it beside the bars.
    m_summaryText = new RowFillingText(p, QString(), font());
    m_summaryText->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    m_summaryText->setMargins(QMargins(16, 6, 10, 6));
    m_summaryText->setSelectable(false);
    p->plotLayout()->addElement(1, 1, m_summaryText);
    p->plotLayout()->setColumnStretchFactor(0, 1.0);
    p->plotLayout()->setColumnStretchFactor(1, 0.01); // as narrow as its text allows

    m_rowBars = new QCPBars(p->xAxis, p->yAxis);
    m_rowBars->setName(tr("rows"));
    m_rowBars->setWidth(0.8);
    m_rowBars->removeFromLegend();
    m_emptyBars = new QCPBars(p->xAxis, p->yAxis);
    m_emptyBars->setName(tr("empty rows"));
    m_emptyBars->setWidth(0.8);
    m_emptyBars->removeFromLegend();

    m_messageText = new QCPItemText(p);
    m_messageText->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_messageText->position->setCoords(0.5, 0.5);
    m_messageText->setPositionAlignment(Qt::AlignCenter);
    m_messageText->setTextAlignment(Qt::AlignCenter);
    m_messageText->setSelectable(false);

    connect(&m_watcher, &QFutureWatcher<Profile>::finished, this, &SpmvView::onProfileComputed);
    showMessage(tr("No sparse matrix yet: generate or load one in the Dataset panel"));
}

SpmvView::~SpmvView()
{
    cancelPending();
}

QString SpmvView::title() const
{
    return tr("Row lengths");
}

void SpmvView::cancelPending()
{
    if (m_cancel)
        m_cancel->store(true, std::memory_order_relaxed);
    m_cancel.reset();
    // A watcher given a new future forgets the old one; an empty future also stops a pending `finished`.
    m_watcher.setFuture(QFuture<Profile>());
    m_computing = false;
}

void SpmvView::setDataset(const data::Dataset& dataset)
{
    const bool sparse = dataset.holds<data::SparseSystem>();
    const std::string hash = sparse ? dataset.meta().contentHash : std::string();
    if (sparse && !hash.empty() && hash == m_datasetHash)
        return; // the same matrix (a sweep's runs announce it again): shown already, or on its way
    cancelPending();
    m_datasetHash = hash;
    m_datasetName = sparse ? QString::fromStdString(dataset.meta().name) : QString();
    m_profile.reset();
    m_summary.clear();
    if (!sparse) {
        showMessage(tr("No sparse matrix yet: generate or load one in the Dataset panel"));
        return;
    }
    const data::CsrMatrix& matrix = dataset.as<data::SparseSystem>().matrix;
    if (matrix.rows <= kSynchronousRows) {
        setProfile(profileOf(matrix));
        return;
    }

    // Large: a pass on the thread pool. The task holds its own copy of the dataset (the payload is shared, so the
    // matrix outlives a switch to another one) and a cancel flag; it never touches the view.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto promise = std::make_shared<QPromise<Profile>>();
    m_cancel = cancel;
    m_computing = true;
    m_watcher.setFuture(promise->future());
    QThreadPool::globalInstance()->start([promise, cancel, dataset] {
        promise->start();
        promise->addResult(profileOf(dataset.as<data::SparseSystem>().matrix, cancel.get()));
        promise->finish();
    });
    showMessage(tr("Counting the lengths of %1 rows…").arg(count(matrix.rows)));
}

void SpmvView::onProfileComputed()
{
    const QFuture<Profile> future = m_watcher.future();
    if (!m_computing || future.resultCount() == 0)
        return;
    Profile profile = future.result();
    if (profile.cancelled)
        return;
    m_computing = false;
    m_cancel.reset();
    setProfile(std::move(profile));
}

void SpmvView::setProfile(Profile profile)
{
    m_profile = std::move(profile);
    m_message.clear();
    const Profile& p = *m_profile;

    QStringList lines;
    lines << tr("Shape: %1 × %2").arg(count(p.rows), count(p.cols));
    lines << tr("Non-zeros: %1 (density %2)").arg(count(p.nnz), number(100.0 * p.density()) + QLatin1Char('%'));
    lines << tr("Row length: min %1 · mean %2 · max %3").arg(count(p.shortest), number(p.mean), count(p.longest));
    if (p.mean <= 0.0)
        lines << tr("Standard deviation: %1").arg(number(p.stddev));
    else if (p.stddev <= p.mean)
        lines << tr("Standard deviation: %1 (%2 of the mean)").arg(number(p.stddev), share(p.stddev, p.mean));
    else
        lines << tr("Standard deviation: %1 (%2 times the mean)").arg(number(p.stddev), number(p.stddev / p.mean));
    lines << tr("Empty rows: %1 (%2), the grey bar")
                 .arg(count(p.emptyRows), share(static_cast<double>(p.emptyRows), static_cast<double>(p.rows)));
    lines << QString();
    lines << tr("What the seed's strategies make of it:");
    if (p.nnz == 0) {
        lines << tr("No non-zeros: every kernel only writes zeros");
    } else {
        const double padding = p.ellSlotsPerNonZero();
        lines << tr("ELL would store %1 slots per non-zero").arg(number(padding));
        if (padding > kEllMaxPadding)
            lines << tr("  (over %1: the ell variant skips this matrix)").arg(number(kEllMaxPadding));
        if (p.diagonals > static_cast<std::uint64_t>(kDiaMaxDiagonals)) {
            lines << tr("Non-zeros on more than %1 diagonals (dia skips it)").arg(kDiaMaxDiagonals);
        } else {
            const double fill = p.diaSlotsPerNonZero();
            lines << tr("DIA would store %1 slots per non-zero").arg(number(fill));
            lines << (fill > kDiaMaxFill
                    ? tr("  (%1 diagonals; over %2: dia skips it)").arg(count(p.diagonals), number(kDiaMaxFill))
                    : tr("  (%1 diagonals, no column indices)").arg(count(p.diagonals)));
        }
        lines << tr("Rows of 0–%1 non-zeros: %2 (a thread each)").arg(kBinThreadMax).arg(count(p.threadRows));
        lines << tr("Rows of %1–%2: %3 (a warp each)").arg(kBinThreadMax + 1).arg(kBinWarpMax).arg(count(p.warpRows));
        lines << tr("Rows longer than %1: %2 (the row-binning").arg(kBinWarpMax).arg(count(p.blockRows));
        lines << tr("  variant gives them a block per %1 non-zeros)").arg(count(kLongChunk));
        lines << tr("Rows longer than %1: %2 (adaptive gives them")
                     .arg(kAdaptiveScalarMax)
                     .arg(count(p.adaptiveWarpRows));
        lines << tr("  the whole warp, shorter ones lane 0 alone)");
        lines
            << tr("Rows longer than %1: %2 (row_tiles gives them").arg(count(kTileCapacity)).arg(count(p.tileLongRows));
        lines << tr("  blocks of %1 non-zeros, the rest tiles)").arg(count(kWideChunk));
        lines << tr("Thread per row: lanes busy %1 of the time").arg(share(p.warpBalance, 1.0));
        lines << tr("  (each warp waits for its longest row)");
        lines << tr("A row's columns span %1 of the width").arg(share(p.meanSpan, 1.0));
    }
    if (!p.autoVariant.empty()) {
        lines << QString();
        lines << tr("The auto variant runs %1:").arg(QString::fromStdString(p.autoVariant));
        lines << wrapped(QString::fromStdString(p.autoReason), 46, QStringLiteral("  "));
    }
    m_summary = lines.join(QLatin1Char('\n'));
    m_stale = true;
    scheduleRebuild();
    Q_EMIT profileReady();
}

QString SpmvView::summaryText() const
{
    return m_summary;
}

void SpmvView::showMessage(const QString& message)
{
    m_profile.reset();
    m_summary.clear();
    m_message = message;
    m_stale = true;
    scheduleRebuild();
}

void SpmvView::rebuild()
{
    if (m_stale) {
        m_stale = false;
        showProfile();
    }
    applyColors();
}

void SpmvView::showProfile()
{
    QCustomPlot* p = plot();
    m_rowBars->data()->clear();
    m_emptyBars->data()->clear();
    m_summaryText->setText(m_summary);
    if (!m_profile || m_profile->rows == 0) {
        m_caption->setText(m_datasetName);
        m_messageText->setText(m_profile ? tr("The matrix has no rows") : m_message);
        m_messageText->setVisible(true);
        return;
    }
    m_messageText->setVisible(false);
    const Profile& profile = *m_profile;

    QVector<double> keys, values;
    std::uint64_t tallest = 0;
    for (std::size_t b = 1; b < profile.bins.size(); ++b) {
        keys << static_cast<double>(b);
        values << static_cast<double>(profile.bins[b].rows);
        tallest = std::max(tallest, profile.bins[b].rows);
    }
    m_rowBars->setData(keys, values, true);
    m_emptyBars->setData(QVector<double> {0.0}, QVector<double> {static_cast<double>(profile.emptyRows)}, true);
    tallest = std::max(tallest, profile.emptyRows);

    // Ticks name the bins: each length when they are few, every 2nd/5th/10th when up to 65 are exact; the
    // power-of-two bins are always few (at most 33), each named by its range.
    const auto bins = static_cast<int>(profile.bins.size());
    const int step = profile.logBins || bins <= 16 ? 1 : bins <= 32 ? 2 : bins <= 80 ? 5 : 10;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const bool rotated = profile.logBins && bins > 10;
    ticker->addTick(0.0, rotated ? tr("0 (empty)") : tr("0\nempty"));
    for (int b = step; b < bins; b += step)
        ticker->addTick(b, binLabel(profile.bins[static_cast<std::size_t>(b)]));
    p->xAxis->setTicker(ticker);
    p->xAxis->setSubTicks(false);
    p->xAxis->setTickLabelRotation(rotated ? 90.0 : 0.0); // upright ranges would overlap; slanted ones reach right
    p->xAxis->setRange(-0.6, std::max(bins, 2) - 0.4);

    if (profile.logBins) {
        // A power-law matrix has millions of short rows and a handful of long ones: only a log count shows both.
        setLogAxis(p->yAxis);
        p->yAxis->setRange(0.5, std::max(2.0, static_cast<double>(tallest) * 2.0));
        p->xAxis->setLabel(tr("non-zeros in the row (bins of powers of two)"));
        p->yAxis->setLabel(tr("rows (log scale)"));
    } else {
        p->yAxis->setScaleType(QCPAxis::stLinear);
        auto integers = QSharedPointer<QCPAxisTickerFixed>::create();
        integers->setTickStep(1.0);
        integers->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        p->yAxis->setTicker(integers);
        p->yAxis->setNumberFormat(QStringLiteral("f")); // whole rows: 1000000, never 1·10⁶ beside 800000
        p->yAxis->setNumberPrecision(0);
        p->yAxis->setRange(0.0, std::max(1.0, static_cast<double>(tallest) * 1.08));
        p->xAxis->setLabel(tr("non-zeros in the row"));
        p->yAxis->setLabel(tr("rows"));
    }

    QString caption = tr("Row lengths");
    if (!m_datasetName.isEmpty())
        caption += QStringLiteral(" · ") + m_datasetName;
    m_caption->setText(caption);
}

void SpmvView::applyColors()
{
    const bool dark = darkTheme();
    const QColor rows = rowsColor(dark), empty = emptyColor(dark);
    m_rowBars->setBrush(rows);
    m_rowBars->setPen(QPen(rows.darker(dark ? 140 : 120)));
    m_emptyBars->setBrush(empty);
    m_emptyBars->setPen(QPen(empty.darker(dark ? 140 : 120)));
    m_caption->setTextColor(textColor());
    m_summaryText->setTextColor(textColor());
    m_messageText->setColor(textColor());
}

} // namespace ks::gui
