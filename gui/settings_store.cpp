#include "gui/settings_store.h"

#include <QSettings>
#include <nlohmann/json.hpp>

namespace ks::gui {

namespace {
using Json = nlohmann::ordered_json;

const QString kRunSettingsKey = QStringLiteral("run/settings");
const QString kTimelineClockKey = QStringLiteral("view/timelineClockOverlay");
/// Earlier versions kept each run setting under its own key in this group; runSettings() still reads them.
const QString kRunGroup = QStringLiteral("run");

std::map<std::string, std::string> stringMapFromJsonText(const QString& text)
{
    try {
        return Json::parse(text.toStdString()).get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception&) {
        return {};
    }
}

/// The per-key run settings of earlier versions, as the flat JSON of workspace format 1 that runSettingsFromJson
/// reads, so one reader serves both.
Json legacyRunSettingsJson(const QSettings& s)
{
    const auto legacy = [&](const char* key) { return s.value(kRunGroup + QLatin1Char('/') + QLatin1String(key)); };
    Json j;
    j["sizes"] = legacy("sizes").toString().toStdString();
    j["params"] = stringMapFromJsonText(legacy("params").toString());
    j["baseline"] = legacy("baseline").toString().toStdString();
    j["noise_pct"] = legacy("noisePct").toDouble();
    for (const auto& [key, name] : {std::pair {"warmup", "warmup"}, std::pair {"minRepetitions", "min_repetitions"},
             std::pair {"maxRepetitions", "max_repetitions"}, std::pair {"device", "device"}})
        if (const QVariant v = legacy(key); v.isValid())
            j[name] = v.toInt();
    if (const QVariant v = legacy("timeLimitS"); v.isValid())
        j["time_limit_s"] = v.toDouble();
    if (const QVariant v = legacy("flushL2"); v.isValid())
        j["flush_caches"] = v.toBool();
    return j;
}
} // namespace

SettingsStore::SettingsStore()
    : m_settings(std::make_unique<QSettings>())
{
}

SettingsStore::SettingsStore(const QString& path)
    : m_settings(std::make_unique<QSettings>(path, QSettings::IniFormat))
{
}

SettingsStore::~SettingsStore() = default;

ThemeMode SettingsStore::theme() const
{
    return themeFromName(m_settings->value(QStringLiteral("theme"), QStringLiteral("system")).toString());
}

void SettingsStore::setTheme(ThemeMode mode)
{
    m_settings->setValue(QStringLiteral("theme"), themeName(mode));
}

QStringList SettingsStore::recentFiles() const
{
    return m_settings->value(QStringLiteral("recentFiles")).toStringList();
}

void SettingsStore::setRecentFiles(const QStringList& files)
{
    m_settings->setValue(QStringLiteral("recentFiles"), files);
}

bool SettingsStore::keepSizes() const
{
    return m_settings->value(QStringLiteral("keepSizes"), false).toBool();
}

void SettingsStore::setKeepSizes(bool keep)
{
    m_settings->setValue(QStringLiteral("keepSizes"), keep);
}

QList<SavedKernel> SettingsStore::userKernels() const
{
    QList<SavedKernel> kernels;
    const int count = m_settings->beginReadArray(QStringLiteral("userKernels"));
    for (int i = 0; i < count; ++i) {
        m_settings->setArrayIndex(i);
        kernels.append({m_settings->value(QStringLiteral("workload")).toString(),
            m_settings->value(QStringLiteral("path")).toString(),
            m_settings->value(QStringLiteral("nvrtcOptions")).toStringList()});
    }
    m_settings->endArray();
    return kernels;
}

void SettingsStore::setUserKernels(const QList<SavedKernel>& kernels)
{
    m_settings->remove(QStringLiteral("userKernels"));
    m_settings->beginWriteArray(QStringLiteral("userKernels"), static_cast<int>(kernels.size()));
    for (int i = 0; i < kernels.size(); ++i) {
        m_settings->setArrayIndex(i);
        m_settings->setValue(QStringLiteral("workload"), kernels[i].workload);
        m_settings->setValue(QStringLiteral("path"), kernels[i].path);
        m_settings->setValue(QStringLiteral("nvrtcOptions"), kernels[i].nvrtcOptions);
    }
    m_settings->endArray();
}

QString SettingsStore::workload(const QString& fallback) const
{
    return m_settings->value(QStringLiteral("workload"), fallback).toString();
}

void SettingsStore::setWorkload(const QString& id)
{
    m_settings->setValue(QStringLiteral("workload"), id);
}

std::map<std::string, std::string> SettingsStore::generatorValues(const QString& workload) const
{
    return stringMapFromJsonText(m_settings->value(QStringLiteral("generator/") + workload).toString());
}

void SettingsStore::setGeneratorValues(const QString& workload, const std::map<std::string, std::string>& values)
{
    m_settings->setValue(QStringLiteral("generator/") + workload, QString::fromStdString(Json(values).dump()));
}

std::optional<RunSettings> SettingsStore::runSettings() const
{
    try {
        if (m_settings->contains(kRunSettingsKey))
            return runSettingsFromJson(Json::parse(m_settings->value(kRunSettingsKey).toString().toStdString()));
        if (m_settings->contains(kRunGroup + QStringLiteral("/noisePct")))
            return runSettingsFromJson(legacyRunSettingsJson(*m_settings));
    } catch (const nlohmann::json::exception&) {
        // Unreadable settings (edited by hand, or a newer version's) are the defaults, not a failure to start.
    }
    return std::nullopt;
}

void SettingsStore::setRunSettings(const RunSettings& settings)
{
    m_settings->remove(kRunGroup); // the per-key form of earlier versions, now superseded
    m_settings->setValue(kRunSettingsKey, QString::fromStdString(runSettingsToJson(settings).dump()));
}

bool SettingsStore::timelineClockOverlay() const
{
    return m_settings->value(kTimelineClockKey, true).toBool();
}

void SettingsStore::setTimelineClockOverlay(bool on)
{
    m_settings->setValue(kTimelineClockKey, on);
}

WindowLayout SettingsStore::windowLayout() const
{
    return {m_settings->value(QStringLiteral("window/geometry")).toByteArray(),
        m_settings->value(QStringLiteral("window/state")).toByteArray(),
        m_settings->value(QStringLiteral("window/splitter")).toByteArray()};
}

void SettingsStore::setWindowLayout(const WindowLayout& layout)
{
    m_settings->setValue(QStringLiteral("window/geometry"), layout.geometry);
    m_settings->setValue(QStringLiteral("window/state"), layout.state);
    m_settings->setValue(QStringLiteral("window/splitter"), layout.splitter);
}

void SettingsStore::sync()
{
    m_settings->sync();
}

} // namespace ks::gui
