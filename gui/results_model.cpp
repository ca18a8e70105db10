#include "gui/results_model.h"

#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "gui/loaded_results.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QHeaderView>
#include <QLocale>
#include <QTableView>
#include <QTimer>
#include <algorithm>
#include <cmath>

namespace ks::gui {

namespace {
QString number(double v, int precision = 4)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    return QString::number(v, 'g', precision);
}

bool overTolerance(const Summary& s)
{
    return s.delta.computed && !s.delta.withinTolerance();
}

/// Whether bytes are the measure of the run: its roof is a bandwidth (or unknown, as in files from older builds).
/// A compute-bound workload's GB/s (sdh moves kilobytes in seconds) would read 0.0, which says nothing true.
bool bytesAreTheMeasure(const Summary& s)
{
    return s.peakKind.empty() || s.peakKind.ends_with("bandwidth");
}

/// The GB/s cell: three significant digits below 10 (never a rounded 0.0), one decimal above.
QString gbPerSText(double gbPerS)
{
    return gbPerS < 10.0 ? QString::number(gbPerS, 'g', 3) : QString::number(gbPerS, 'f', 1);
}

/// The metric a run's ceiling is in: the % of ceiling is taken in it (runner.cpp fillRates).
QString ceilingMetric(const Summary& s)
{
    return s.peakKind.ends_with("bandwidth") ? QStringLiteral("GB/s") : QStringLiteral("GFLOP/s");
}

/// The noise cell's tooltip: both measures of spread, why the repetitions stopped and, for a noisy run, what to do.
QString noiseToolTip(const Summary& s)
{
    QString text = QObject::tr("Relative standard deviation of the %n repetition(s): %1 %", nullptr, s.repetitions)
                       .arg(QString::number(s.noisePct, 'f', 2));
    text += QLatin1Char('\n');
    text += s.medianRsePct
        ? QObject::tr("Relative standard error of the median: %1 % (distribution-free: McKean & Schrader)")
              .arg(QString::number(*s.medianRsePct, 'f', 2))
        : QObject::tr("Relative standard error of the median: undefined (one repetition, or a zero median)");
    const QLatin1String mark(ResultsModel::kNoisyMark);
    switch (s.stopReason) {
    case StopReason::NoiseTarget:
        return text + QObject::tr("\nStopped: the noise target was reached");
    case StopReason::FixedCount:
        return text + QObject::tr("\nStopped: the workload's fixed number of repetitions");
    case StopReason::Cancelled:
        return text + QObject::tr("\nStopped: cancelled");
    case StopReason::Decided:
        return text + QObject::tr("\nStopped: the A/B decision reached its verdict");
    case StopReason::TimeLimit:
        return text
            + QObject::tr("\n%1 Noisy: the run stopped on the time limit before the standard error reached the noise "
                          "target. Raise the time limit in the run settings for a firmer median.")
                  .arg(mark);
    case StopReason::MaxRepetitions:
        return text
            + QObject::tr("\n%1 Noisy: the run stopped at the maximum number of repetitions before the standard error "
                          "reached the noise target. Raise the maximum repetitions (and the time limit) in the run "
                          "settings for a firmer median.")
                  .arg(mark);
    case StopReason::None:
        break;
    }
    return text;
}

/// What the determinism check (or a stateful run's replay) found, for the Delta's tooltip; empty when not checked.
QString determinismToolTip(const Summary& s)
{
    if (!s.deterministic)
        return {};
    return *s.deterministic
        ? QObject::tr("Deterministic: a second run on the same input gave the same bits")
        : QObject::tr("%1 Not deterministic: a second run on the same input gave different bits (atomics or "
                      "another order of additions)")
              .arg(QLatin1String(ResultsModel::kNondeterministicMark));
}

QString bytesText(double bytes)
{
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeTraditionalFormat);
}
} // namespace

QString formatRate(const Summary& s)
{
    if (s.repetitions == 0 || s.itemsPerS <= 0.0)
        return QStringLiteral("—");
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    double v = s.itemsPerS;
    int p = 0;
    while (v >= 1000.0 && p < 5) {
        v /= 1000.0;
        ++p;
    }
    return QStringLiteral("%1 %2%3/s")
        .arg(number(v, 3), QString::fromLatin1(prefixes[p]), QString::fromStdString(s.itemName));
}

QString formatDelta(const Summary& s)
{
    if (!s.delta.computed)
        return QStringLiteral("—");
    return QString::number(s.delta.value, 'e', 2);
}

ResultsModel::ResultsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

int ResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case VariantColumn:
        return tr("Variant");
    case BackendColumn:
        return tr("Backend");
    case SizeColumn:
        return tr("Size");
    case ParamsColumn:
        return tr("Parameters");
    case OutcomeColumn:
        return tr("Outcome");
    case RepetitionsColumn:
        return tr("Reps");
    case MedianColumn:
        return tr("Median (ms)");
    case NoiseColumn:
        return tr("Noise (%)");
    case GbPerSColumn:
        return tr("GB/s");
    case ItemRateColumn:
        return tr("Rate");
    case PctOfPeakColumn:
        return tr("% of ceiling");
    case DeltaColumn:
        return tr("Delta");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    const Summary& s = summary(index.row());
    const bool timed = s.repetitions > 0;
    if (role == RunningRole)
        return row.running;
    if (role == OverToleranceRole)
        return overTolerance(s);
    if (role == NoisyRole)
        return !row.running && s.noisy();
    if (role == Qt::ForegroundRole) {
        if (!row.running && overTolerance(s) && (index.column() == DeltaColumn || index.column() == OutcomeColumn))
            return QBrush(QColor(0xd6, 0x27, 0x28));
        if (!row.running && (s.outcome == Outcome::Failed) && index.column() == OutcomeColumn)
            return QBrush(QColor(0xd6, 0x27, 0x28));
        if (!row.running && s.noisy() && index.column() == NoiseColumn)
            return QBrush(QColor(0xc0, 0x7a, 0x00));
        return {};
    }
    if (role == Qt::FontRole && row.running) {
        QFont font;
        font.setItalic(true);
        return font;
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == DeltaColumn && (s.delta.computed || s.deterministic)) {
            QStringList lines;
            if (s.delta.computed) {
                lines << tr("%1 = %2 (tolerance %3)")
                             .arg(QString::fromStdString(s.delta.kind), number(s.delta.value, 6),
                                 number(s.delta.tolerance, 3));
                for (const auto& [k, v] : s.delta.details)
                    lines << QStringLiteral("%1 = %2").arg(QString::fromStdString(k), number(v, 6));
            }
            if (const QString determinism = determinismToolTip(s); !determinism.isEmpty())
                lines << determinism;
            return lines.join(QLatin1Char('\n'));
        }
        if (index.column() == NoiseColumn && timed && !row.running)
            return noiseToolTip(s);
        if (index.column() == VariantColumn) {
            const QString source = loadedSource(s);
            return source.isEmpty() ? QString::fromStdString(s.variantName)
                                    : tr("%1\nloaded from %2").arg(QString::fromStdString(s.variantName), source);
        }
        if (index.column() == PctOfPeakColumn && timed && s.peakValue > 0) {
            QString text = tr("%1 % of the measured %2 ceiling (%3 %4)")
                               .arg(QString::number(s.pctOfPeak, 'f', 1), QString::fromStdString(s.peakKind),
                                   QString::number(s.peakValue, 'f', 1), ceilingMetric(s));
            if (s.cacheResident.value_or(false))
                text += tr("\n* The working set (%1) fits in the last-level cache (%2): after its first touch it is "
                           "read from cache even with flushing, so the rate may exceed the DRAM ceiling.")
                            .arg(bytesText(s.bytes), bytesText(static_cast<double>(s.cacheBytes)));
            return text;
        }
        if (index.column() == MessageColumn)
            return QString::fromStdString(s.message);
        if (index.column() == ParamsColumn)
            return paramsToolTip(s);
        if (index.column() == GbPerSColumn && timed && !bytesAreTheMeasure(s))
            return tr("%1 is bound by %2, not by memory traffic: its rate is in the Rate column (%3/s).")
                .arg(QString::fromStdString(s.workload), QString::fromStdString(s.peakKind),
                    QString::fromStdString(s.itemName));
        if (index.column() == ItemRateColumn && timed)
            return tr("%1 %2/s").arg(number(s.itemsPerS, 6), QString::fromStdString(s.itemName));
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case SizeColumn:
            return static_cast<qulonglong>(s.size);
        case RepetitionsColumn:
            return s.repetitions;
        case MedianColumn:
            return timed ? s.medianMs : -1.0;
        case NoiseColumn:
            return s.noisePct;
        case GbPerSColumn:
            return bytesAreTheMeasure(s) ? s.gbPerS : -1.0;
        case ItemRateColumn:
            return s.itemsPerS;
        case PctOfPeakColumn:
            return s.pctOfPeak;
        case DeltaColumn:
            return s.delta.computed ? s.delta.value : -1.0;
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case VariantColumn:
        case BackendColumn:
        case ParamsColumn:
        case OutcomeColumn:
        case MessageColumn:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case VariantColumn:
        // A row of another workload than the charts show says whose it is (its variant ids may repeat here).
        if (!m_viewWorkload.empty() && s.workload != m_viewWorkload && !s.workload.empty())
            return QStringLiteral("%1 (%2)").arg(QString::fromStdString(s.variant), QString::fromStdString(s.workload));
        return QString::fromStdString(s.variant);
    case BackendColumn:
        return QString::fromStdString(s.backend);
    case SizeColumn:
        return QString::number(static_cast<qulonglong>(s.size));
    case ParamsColumn:
        return paramsText(s);
    case OutcomeColumn:
        return row.running ? tr("running") : QString::fromLatin1(outcomeName(s.outcome));
    case RepetitionsColumn:
        return s.repetitions;
    case MedianColumn:
        return timed ? number(s.medianMs, 5) : QStringLiteral("—");
    case NoiseColumn:
        if (!timed)
            return QStringLiteral("—");
        return QString::number(s.noisePct, 'f', 2) + (s.noisy() ? QLatin1String(kNoisyMark) : QLatin1String());
    case GbPerSColumn:
        if (timed && !bytesAreTheMeasure(s))
            return QString(); // the Rate column holds its own measure (pairs/s); the tooltip says so
        return timed && s.gbPerS > 0 ? gbPerSText(s.gbPerS) : QStringLiteral("—");
    case ItemRateColumn:
        return formatRate(s);
    case PctOfPeakColumn:
        // The metric named in each cell: a FLOP/s % beside the GB/s column must not read as a bandwidth share.
        return timed && s.peakValue > 0
            ? QStringLiteral("%1%2 of %3")
                  .arg(QString::number(s.pctOfPeak, 'f', 1),
                      s.cacheResident.value_or(false) ? QStringLiteral("*") : QString(), ceilingMetric(s))
            : QStringLiteral("—");
    case DeltaColumn:
        return formatDelta(s) + (s.deterministic == false ? QLatin1String(kNondeterministicMark) : QLatin1String());
    case MessageColumn:
        return QString::fromStdString(s.message).section(QLatin1Char('\n'), 0, 0);
    default:
        return {};
    }
}

const ResultsModel::WorkloadParams& ResultsModel::workloadParams(const std::string& workload) const
{
    auto it = m_workloadParams.find(workload);
    if (it != m_workloadParams.end())
        return it->second;
    WorkloadParams params;
    if (const auto* w = defaultRegistry().find(workload)) {
        for (const Axis& axis : w->parameters())
            params.axes.emplace(axis.name, axis);
        try {
            params.defaults = ParamSet::parse(w->parameters(), {}).textValues();
        } catch (const ParameterError&) {
            params.defaults.clear(); // a workload whose defaults do not parse shows every value
        }
    }
    return m_workloadParams.emplace(workload, std::move(params)).first->second;
}

namespace {
/// One "name=value" item of a run's parameters, against its workload's axes.
struct ParamItem {
    std::string text;
    bool isDefault = false;
    bool unread = false; ///< an axis the variant does not read
};

std::vector<ParamItem> paramItems(
    const Summary& s, const std::map<std::string, std::string>& defaults, const std::map<std::string, Axis>& axes)
{
    std::vector<ParamItem> items;
    // toString keeps the axes' order ("key=value;key=value"), which the CSV's params column uses too.
    for (const std::string& item : splitList(s.params.toString(), ';')) {
        const auto eq = item.find('=');
        const std::string name = item.substr(0, eq);
        const auto d = defaults.find(name);
        const auto axis = axes.find(name);
        items.push_back({item, eq != std::string::npos && d != defaults.end() && d->second == item.substr(eq + 1),
            axis != axes.end() && !axis->second.readBy(s.variant)});
    }
    return items;
}
} // namespace

QString ResultsModel::paramsText(const Summary& s) const
{
    if (s.params.empty())
        return {};
    const WorkloadParams& w = workloadParams(s.workload);
    QStringList changed;
    for (const ParamItem& item : paramItems(s, w.defaults, w.axes))
        if (!item.isDefault && !item.unread)
            changed << QString::fromStdString(item.text);
    return changed.isEmpty() ? tr("defaults") : changed.join(QStringLiteral(", "));
}

QString ResultsModel::paramsToolTip(const Summary& s) const
{
    const WorkloadParams& w = workloadParams(s.workload);
    QStringList lines;
    for (const ParamItem& item : paramItems(s, w.defaults, w.axes)) {
        const QString text = QString::fromStdString(item.text);
        lines << (item.isDefault ? tr("%1 (default)").arg(text)
                : item.unread    ? tr("%1 (not read by %2)").arg(text, QString::fromStdString(s.variant))
                                 : text);
    }
    return lines.join(QLatin1Char('\n'));
}

void fitResultsColumns(QTableView* table)
{
    table->setTextElideMode(Qt::ElideRight);
    auto* timer = new QTimer(table);
    timer->setSingleShot(true);
    timer->setInterval(250); // a streaming run changes its row many times a second: one resize for them all
    QObject::connect(timer, &QTimer::timeout, table, [table] {
        QHeaderView* h = table->horizontalHeader();
        // QTableView hides sizeHintForColumn (visible rows' widest cell); QAbstractItemView's is public.
        const QAbstractItemView* view = table;
        for (int c = 0; c < h->count(); ++c) {
            const int wanted = std::max(view->sizeHintForColumn(c), h->sectionSizeHint(c));
            if (wanted > h->sectionSize(c))
                h->resizeSection(c, std::min(wanted, kMaxColumnWidth));
        }
    });
    if (QAbstractItemModel* model = table->model()) {
        const auto start = [timer] { timer->start(); };
        QObject::connect(model, &QAbstractItemModel::rowsInserted, timer, start);
        QObject::connect(model, &QAbstractItemModel::dataChanged, timer, start);
        QObject::connect(model, &QAbstractItemModel::modelReset, timer, start);
        QObject::connect(model, &QAbstractItemModel::layoutChanged, timer, start);
    }
    timer->start();
}

const Summary& ResultsModel::summary(int row) const
{
    Row& r = m_rows[static_cast<std::size_t>(row)];
    if (r.medianStale) {
        r.summary.medianMs = median(r.summary.samplesMs);
        r.medianStale = false;
    }
    return r.summary;
}

void ResultsModel::appendToRow(Row& row, const Sample& sample)
{
    Summary& s = row.summary;
    s.samplesMs.push_back(sample.ms);
    if (sample.metric)
        s.sampleMetrics.push_back(*sample.metric);
    if (sample.clock) {
        // A repetition whose clocks could not be read has none: zeros keep the arrays aligned with the times, as
        // the runner's Summary has them.
        const std::size_t at = s.samplesMs.size() - 1;
        s.clockMHz.resize(at, 0.0);
        s.memClockMHz.resize(at, 0.0);
        s.temperatureC.resize(at, 0.0);
        s.powerW.resize(at, 0.0);
        s.throttleReasons.resize(at, 0);
        s.throttled.resize(at, false);
        s.clockMHz.push_back(sample.clock->smClockMHz);
        s.memClockMHz.push_back(sample.clock->memClockMHz);
        s.temperatureC.push_back(sample.clock->temperatureC);
        s.powerW.push_back(sample.clock->powerW);
        s.throttleReasons.push_back(sample.clock->throttleReasons);
        s.throttled.push_back(sample.clock->throttled);
    }
    row.stats.add(sample.ms);
    s.repetitions = static_cast<int>(row.stats.count());
    s.meanMs = row.stats.mean();
    s.minMs = row.stats.min();
    s.maxMs = row.stats.max();
    s.stdevMs = row.stats.stdev();
    s.noisePct = s.meanMs > 0 ? 100.0 * s.stdevMs / s.meanMs : 0.0;
    row.medianStale = true;
}

void ResultsModel::addSamples(const QList<ks::Sample>& samples)
{
    std::vector<int> touched;
    for (const Sample& sample : samples) {
        int row = rowForRun(sample.runId);
        if (row < 0) {
            row = static_cast<int>(m_rows.size());
            beginInsertRows({}, row, row);
            Row r;
            r.running = true;
            r.summary.runId = sample.runId;
            r.summary.workload = sample.workload;
            r.summary.variant = sample.variant;
            r.summary.size = sample.size;
            m_rows.push_back(std::move(r));
            m_rowByRun[sample.runId] = row;
            endInsertRows();
            variantIndex(QString::fromStdString(sample.variant));
        }
        appendToRow(m_rows[static_cast<std::size_t>(row)], sample);
        if (touched.empty() || touched.back() != row)
            touched.push_back(row);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int row : touched) {
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        Q_EMIT samplesAppended(row);
    }
}

void ResultsModel::setViewWorkload(const std::string& workload)
{
    if (workload == m_viewWorkload)
        return;
    m_viewWorkload = workload;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void ResultsModel::addSummary(const Summary& summary)
{
    int row = rowForRun(summary.runId);
    if (row < 0 || summary.runId.empty()) {
        row = static_cast<int>(m_rows.size());
        beginInsertRows({}, row, row);
        m_rows.push_back(Row {summary, false, {}, false});
        if (!summary.runId.empty())
            m_rowByRun[summary.runId] = row;
        endInsertRows();
    } else {
        m_rows[static_cast<std::size_t>(row)] = Row {summary, false, {}, false};
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    variantIndex(QString::fromStdString(summary.variant));
}

void ResultsModel::setSummaries(const std::vector<Summary>& summaries)
{
    beginResetModel();
    m_rows.clear();
    m_rowByRun.clear();
    for (const auto& s : summaries) {
        m_rowByRun[s.runId] = static_cast<int>(m_rows.size());
        m_rows.push_back(Row {s, false, {}, false});
        variantIndex(QString::fromStdString(s.variant));
    }
    endResetModel();
}

void ResultsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_rowByRun.clear();
    endResetModel();
}

int ResultsModel::rowForRun(const std::string& runId) const
{
    auto it = m_rowByRun.find(runId);
    return it == m_rowByRun.end() ? -1 : it->second;
}

std::vector<Summary> ResultsModel::finishedSummaries() const
{
    std::vector<Summary> out;
    for (const auto& r : m_rows)
        if (!r.running)
            out.push_back(r.summary);
    return out;
}

void ResultsModel::setVariantOrder(const QStringList& variants)
{
    QStringList order = variants;
    for (const auto& v : m_variantOrder)
        if (!order.contains(v))
            order.append(v);
    m_variantOrder = order;
}

int ResultsModel::variantIndex(const QString& variant) const
{
    int i = static_cast<int>(m_variantOrder.indexOf(variant));
    if (i < 0) {
        m_variantOrder.append(variant);
        i = static_cast<int>(m_variantOrder.size()) - 1;
    }
    return i;
}

} // namespace ks::gui
