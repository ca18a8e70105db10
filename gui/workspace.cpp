#include "gui/workspace.h"

#include "compute/core/results_io.h"
#include "compute/core/version.h"
#include "data/dataset_error.h"

#include <QSaveFile>
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ks::gui {

namespace {
using Json = nlohmann::ordered_json;
/// 2: the run settings nest the runner's options ("run_options", the noise target as a fraction), and a workspace
/// may be appended to (one Summary per line after the first). 1: flat run settings, the noise target in %.
/// Decisions came later without a new format: an optional "decisions" key, and in an appended workspace a line
/// holding only kDecisionsLineKey.
constexpr int kFormat = 2;
/// The one key of an appended line that carries decisions instead of a Summary.
constexpr char kDecisionsLineKey[] = "kernelscope_decisions";

Json decisionsToJson(const std::vector<Decision>& decisions)
{
    Json array = Json::array();
    for (const auto& d : decisions)
        array.push_back(toJson(d));
    return array;
}

/// Throws data::DatasetError naming the place ("decisions[2]", after `where` when given: "line 9, decisions[2]").
std::vector<Decision> decisionsFromJson(const Json& array, const std::string& file, const std::string& where)
{
    const std::string place = where.empty() ? std::string("decisions") : where + ", decisions";
    if (!array.is_array())
        throw data::DatasetError(file, place, "not an array");
    std::vector<Decision> decisions;
    std::size_t index = 0;
    for (const auto& d : array) {
        try {
            decisions.push_back(decisionFromJson(d));
        } catch (const std::exception& e) {
            throw data::DatasetError(file, place + "[" + std::to_string(index) + "]", e.what());
        }
        ++index;
    }
    return decisions;
}

Json workspaceToJson(const Workspace& w)
{
    Json j;
    j["kernelscope_workspace"] = kFormat;
    j["kernelscope_version"] = version();
    j["workload"] = w.workload.toStdString();
    Json dataset;
    if (w.fromFile) {
        dataset["source"] = "file";
        dataset["path"] = w.filePath.toStdString();
        dataset["h5_path"] = w.h5Path.toStdString();
        dataset["allow_nonfinite"] = w.allowNonFinite;
        dataset["content_hash"] = w.datasetHash.toStdString();
    } else {
        dataset["source"] = "generator";
        dataset["generator"] = w.generator;
    }
    j["dataset"] = dataset;
    Json variants = Json::array();
    for (const auto& v : w.variants)
        variants.push_back(v.toStdString());
    j["variants"] = variants;
    j["settings"] = runSettingsToJson(w.settings);
    j["baseline_source"] = w.baselineSource.toStdString();
    if (!w.decisions.empty())
        j["decisions"] = decisionsToJson(w.decisions);
    j["summaries"] = Json::array();
    for (const auto& s : w.summaries)
        j["summaries"].push_back(toJson(s));
    return j;
}

bool isWorkspaceObject(const Json& j)
{
    return j.is_object() && j.contains("kernelscope_workspace");
}

/// Throws data::DatasetError, or nlohmann::json::exception for a value of the wrong type.
Workspace workspaceFromJson(const Json& j, const std::string& file)
{
    if (!isWorkspaceObject(j))
        throw data::DatasetError(file, "", "not a KernelScope workspace (no \"kernelscope_workspace\" key)");
    if (const int format = j["kernelscope_workspace"].get<int>(); format > kFormat)
        throw data::DatasetError(
            file, "", "written by a newer KernelScope (workspace format " + std::to_string(format) + ")");
    Workspace w;
    w.workload = QString::fromStdString(j.at("workload").get<std::string>());
    const Json& dataset = j.at("dataset");
    const std::string source = dataset.at("source").get<std::string>();
    if (source == "file") {
        w.fromFile = true;
        w.filePath = QString::fromStdString(dataset.at("path").get<std::string>());
        w.h5Path = QString::fromStdString(dataset.value("h5_path", std::string()));
        w.allowNonFinite = dataset.value("allow_nonfinite", false);
        w.datasetHash = QString::fromStdString(dataset.value("content_hash", std::string()));
    } else if (source == "generator") {
        w.generator = dataset.value("generator", std::map<std::string, std::string>());
    } else {
        throw data::DatasetError(file, "dataset.source", "'" + source + "' is neither \"file\" nor \"generator\"");
    }
    for (const auto& v : j.value("variants", Json::array()))
        w.variants << QString::fromStdString(v.get<std::string>());
    if (j.contains("settings"))
        w.settings = runSettingsFromJson(j["settings"]);
    w.baselineSource = QString::fromStdString(j.value("baseline_source", std::string()));
    if (j.contains("decisions"))
        w.decisions = decisionsFromJson(j["decisions"], file, "");
    std::size_t index = 0;
    for (const auto& s : j.value("summaries", Json::array())) {
        try {
            w.summaries.push_back(summaryFromJson(s));
        } catch (const std::exception& e) {
            throw data::DatasetError(file, "summaries[" + std::to_string(index) + "]", e.what());
        }
        ++index;
    }
    return w;
}

/// The lines after an appended workspace's first: one Summary each, added to `w`. The last line may be cut off by
/// a crash while it was written; every complete line before it stands.
Workspace withAppendedSummaries(Workspace w, const QByteArray& bytes, qsizetype begin, const std::string& file)
{
    std::size_t lineNumber = 1;
    while (begin < bytes.size()) {
        ++lineNumber;
        qsizetype end = bytes.indexOf('\n', begin);
        const bool complete = end >= 0;
        if (!complete)
            end = bytes.size();
        const char* first = bytes.constData() + begin;
        const char* last = bytes.constData() + end;
        begin = end + 1;
        if (std::all_of(first, last, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }))
            continue;
        const Json line = Json::parse(first, last, nullptr, false);
        if (line.is_discarded()) {
            if (!complete)
                break;
            throw data::DatasetError(file, data::linePlace(lineNumber), "not valid JSON");
        }
        if (line.is_object() && line.contains(kDecisionsLineKey)) {
            w.decisions = decisionsFromJson(line[kDecisionsLineKey], file, data::linePlace(lineNumber));
            continue;
        }
        try {
            w.summaries.push_back(summaryFromJson(line));
        } catch (const std::exception& e) {
            throw data::DatasetError(file, data::linePlace(lineNumber), e.what());
        }
    }
    return w;
}
} // namespace

void saveWorkspace(const QString& path, const Workspace& w)
{
    // QSaveFile writes to a temporary and renames on commit: a crash mid-save never leaves half a workspace.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw std::runtime_error(path.toStdString() + ": cannot open for writing: " + file.errorString().toStdString());
    const std::string text = workspaceToJson(w).dump(1);
    file.write(text.data(), static_cast<qint64>(text.size()));
    if (!file.commit())
        throw std::runtime_error(path.toStdString() + ": write failed: " + file.errorString().toStdString());
}

Workspace loadWorkspace(const QString& path)
{
    const std::string file = path.toStdString();
    QFile in(path);
    if (!in.exists())
        throw data::DatasetError(file, "", "no such file");
    if (!in.open(QIODevice::ReadOnly))
        throw data::DatasetError(file, "", "cannot open: " + in.errorString().toStdString());
    const QByteArray bytes = in.readAll();
    try {
        Json j;
        try {
            j = Json::parse(bytes.constData(), bytes.constData() + bytes.size());
        } catch (const nlohmann::json::parse_error& e) {
            // A workspace object on the first line and more after it is an appended workspace; anything else is
            // broken.
            const qsizetype firstEnd = bytes.indexOf('\n');
            const Json first = firstEnd < 0
                ? Json(nullptr)
                : Json::parse(bytes.constData(), bytes.constData() + firstEnd, nullptr, false);
            if (!isWorkspaceObject(first))
                throw data::DatasetError(file, "byte " + std::to_string(e.byte), "not valid JSON");
            return withAppendedSummaries(workspaceFromJson(first, file), bytes, firstEnd + 1, file);
        }
        return workspaceFromJson(j, file);
    } catch (const data::DatasetError&) {
        throw;
    } catch (const nlohmann::json::exception& e) {
        throw data::DatasetError(file, "", std::string("malformed workspace: ") + e.what());
    }
}

WorkspaceAppender::WorkspaceAppender(const QString& path, const Workspace& workspace)
    : m_file(path)
{
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        throw std::runtime_error(
            path.toStdString() + ": cannot open for writing: " + m_file.errorString().toStdString());
    writeLine(workspaceToJson(workspace).dump());
}

void WorkspaceAppender::append(const Summary& summary)
{
    writeLine(toJson(summary).dump());
}

void WorkspaceAppender::appendDecisions(const std::vector<Decision>& decisions)
{
    Json line;
    line[kDecisionsLineKey] = decisionsToJson(decisions);
    writeLine(line.dump());
}

void WorkspaceAppender::writeLine(const std::string& line)
{
    // A compact dump escapes every newline inside strings, so each value is exactly one line.
    const QByteArray bytes = QByteArray::fromStdString(line) + '\n';
    if (m_file.write(bytes) != bytes.size() || !m_file.flush())
        throw std::runtime_error(
            m_file.fileName().toStdString() + ": write failed: " + m_file.errorString().toStdString());
}

} // namespace ks::gui
