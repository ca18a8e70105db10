#include "gui/workspace.h"

#include "compute/core/results_io.h"
#include "compute/core/version.h"
#include "data/dataset_error.h"

#include <QFile>
#include <QSaveFile>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ks::gui {

namespace {
using Json = nlohmann::ordered_json;
constexpr int kFormat = 1;

Json settingsToJson(const RunSettings& s)
{
    Json j;
    j["sizes"] = s.sizes.toStdString();
    j["params"] = s.params;
    j["noise_pct"] = s.noisePct;
    j["warmup"] = s.warmup;
    j["min_repetitions"] = s.minRepetitions;
    j["max_repetitions"] = s.maxRepetitions;
    j["time_limit_s"] = s.timeLimitS;
    j["flush_caches"] = s.flushL2;
    j["device"] = s.device;
    j["baseline"] = s.baseline.toStdString();
    return j;
}

RunSettings settingsFromJson(const Json& j)
{
    RunSettings s;
    s.sizes = QString::fromStdString(j.value("sizes", std::string()));
    s.params = j.value("params", std::map<std::string, std::string>());
    s.noisePct = j.value("noise_pct", s.noisePct);
    s.warmup = j.value("warmup", s.warmup);
    s.minRepetitions = j.value("min_repetitions", s.minRepetitions);
    s.maxRepetitions = j.value("max_repetitions", s.maxRepetitions);
    s.timeLimitS = j.value("time_limit_s", s.timeLimitS);
    s.flushL2 = j.value("flush_caches", s.flushL2);
    s.device = j.value("device", s.device);
    s.baseline = QString::fromStdString(j.value("baseline", std::string()));
    return s;
}
} // namespace

void saveWorkspace(const QString& path, const Workspace& w)
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
    j["settings"] = settingsToJson(w.settings);
    j["summaries"] = Json::array();
    for (const auto& s : w.summaries)
        j["summaries"].push_back(toJson(s));

    // QSaveFile writes to a temporary and renames on commit: a crash mid-save never leaves half a workspace.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw std::runtime_error(path.toStdString() + ": cannot open for writing: " + file.errorString().toStdString());
    const std::string text = j.dump(1);
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
    Json j;
    try {
        j = Json::parse(bytes.constData(), bytes.constData() + bytes.size());
    } catch (const nlohmann::json::parse_error& e) {
        throw data::DatasetError(file, "byte " + std::to_string(e.byte), "not valid JSON");
    }
    if (!j.is_object() || !j.contains("kernelscope_workspace"))
        throw data::DatasetError(file, "", "not a KernelScope workspace (no \"kernelscope_workspace\" key)");
    try {
        if (j["kernelscope_workspace"].get<int>() > kFormat)
            throw data::DatasetError(file, "",
                "written by a newer KernelScope (workspace format "
                    + std::to_string(j["kernelscope_workspace"].get<int>()) + ")");
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
            w.settings = settingsFromJson(j["settings"]);
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
    } catch (const data::DatasetError&) {
        throw;
    } catch (const nlohmann::json::exception& e) {
        throw data::DatasetError(file, "", std::string("malformed workspace: ") + e.what());
    }
}

} // namespace ks::gui
