#include "gui/loaded_results.h"

#include "compute/core/compare.h"
#include "compute/core/results_io.h"
#include "gui/results_model.h"

#include <QFile>
#include <QFileInfo>
#include <cctype>

namespace ks::gui {

namespace {
constexpr char kLoadedPrefix[] = "loaded:";
constexpr char kLoadedSeparator = '|';

bool isLoaded(const std::string& runId)
{
    return runId.rfind(kLoadedPrefix, 0) == 0 && runId.find(kLoadedSeparator) != std::string::npos;
}

/// A finished run with a median to draw.
bool isTimed(const ResultsModel& model, int row)
{
    const Summary& s = model.summary(row);
    return !model.isRunning(row) && s.repetitions > 0 && s.medianMs > 0.0 && s.size > 0;
}

/// Only what compareRuns matches on matters here: without the samples it skips the test it would run on every
/// pair at every replot.
Summary keyOnly(const Summary& s)
{
    Summary key;
    key.workload = s.workload;
    key.variant = s.variant;
    key.size = s.size;
    key.params = s.params;
    key.datasetHash = s.datasetHash;
    key.outcome = s.outcome;
    return key;
}

/// How much of a file isResultsFile reads: the CLI writes "summaries" (JSON) or its header (CSV) first.
constexpr qint64 kSniffBytes = 4096;

/// Whether the JSON text `head` (possibly cut off) opens an object whose own keys include "summaries" before any
/// "kernelscope_workspace". Only strings and nesting are tracked: enough to tell a top-level key from a nested one.
bool topLevelHasSummaries(const QByteArray& head)
{
    qsizetype i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (i >= head.size() || head[i] != '{')
        return false;
    int depth = 0;
    QByteArray lastString;
    for (; i < head.size(); ++i) {
        const char c = head[i];
        if (c == '"') {
            const qsizetype begin = i + 1;
            for (++i; i < head.size() && head[i] != '"'; ++i)
                if (head[i] == '\\')
                    ++i;
            if (i >= head.size())
                return false;
            lastString = head.mid(begin, i - begin);
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == ':' && depth == 1) {
            if (lastString == "kernelscope_workspace")
                return false;
            if (lastString == "summaries")
                return true;
        }
    }
    return false;
}
} // namespace

bool isResultsFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    QByteArray head = file.read(kSniffBytes);
    if (head.startsWith("\xEF\xBB\xBF")) // a UTF-8 byte-order mark, as spreadsheet programs write
        head.remove(0, 3);
    if (QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0)
        return topLevelHasSummaries(head);
    return head.startsWith("run_id,timestamp,workload");
}

std::string loadedRunId(const QString& absolutePath, const std::string& runId, std::size_t row)
{
    std::string own = runId;
    if (isLoaded(own))
        own = own.substr(own.rfind(kLoadedSeparator) + 1);
    if (own.empty())
        own = "row " + std::to_string(row + 1);
    return kLoadedPrefix + absolutePath.toStdString() + kLoadedSeparator + own;
}

QString loadedSource(const Summary& summary)
{
    if (!isLoaded(summary.runId))
        return {};
    // Run ids have no '|', paths rarely do: the last one ends the path.
    const std::size_t begin = sizeof kLoadedPrefix - 1;
    return QString::fromStdString(summary.runId.substr(begin, summary.runId.rfind(kLoadedSeparator) - begin));
}

std::vector<Summary> readResultsFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const std::string file = absolute.toStdString();
    std::vector<Summary> rows = QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0
        ? readJson(file)
        : readCsv(file);
    for (std::size_t i = 0; i < rows.size(); ++i)
        rows[i].runId = loadedRunId(absolute, rows[i].runId, i);
    return rows;
}

QStringList loadedSources(const ResultsModel& model)
{
    QStringList sources;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QString source = loadedSource(model.summary(row));
        if (!source.isEmpty() && !sources.contains(source))
            sources << source;
    }
    return sources;
}

QString baselineLabel(const QString& source)
{
    return QObject::tr("baseline: %1").arg(QFileInfo(source).fileName());
}

std::vector<int> matchedBaselineRows(
    const ResultsModel& model, const QString& source, const std::vector<int>& shownRows)
{
    if (source.isEmpty() || shownRows.empty())
        return {};
    std::vector<int> baselineRows;
    std::vector<Summary> baseline, shown;
    for (int row = 0; row < model.rowCount(); ++row)
        if (isTimed(model, row) && loadedSource(model.summary(row)) == source) {
            baselineRows.push_back(row);
            baseline.push_back(keyOnly(model.summary(row)));
        }
    for (int row : shownRows)
        shown.push_back(keyOnly(model.summary(row)));
    // compareRuns lists the old rows first, in order, each matched or removed.
    const Comparison comparison = compareRuns(baseline, shown);
    std::vector<int> matched;
    for (std::size_t i = 0; i < baseline.size(); ++i)
        if (comparison.rows[i].verdict != Verdict::Removed)
            matched.push_back(baselineRows[i]);
    return matched;
}

} // namespace ks::gui
