#pragma once

#include "gui/run_settings.h"
#include "gui/theme.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>
#include <string>

class QSettings;

namespace ks::gui {

/// The window's saved geometry, dock layout and splitter position (Qt's opaque state blobs).
struct WindowLayout {
    QByteArray geometry;
    QByteArray state;
    QByteArray splitter;
};

/// A user kernel open in the Kernels pane.
struct SavedKernel {
    QString workload;
    QString path;
    QStringList nvrtcOptions;
};

/// What the app remembers between sessions, through QSettings: the theme, recent datasets, the last workload,
/// each workload's generator values, the run settings (the workspace's JSON, under one key), the window layout and
/// the charts' view options.
class SettingsStore {
public:
    /// The application's settings (the organisation's and application's names pick the place).
    SettingsStore();
    /// Settings kept in an INI file at `path`.
    explicit SettingsStore(const QString& path);
    ~SettingsStore();
    SettingsStore(const SettingsStore&) = delete;
    SettingsStore& operator=(const SettingsStore&) = delete;

    ThemeMode theme() const;
    void setTheme(ThemeMode mode);
    QStringList recentFiles() const;
    void setRecentFiles(const QStringList& files);
    /// The last workload's id; `fallback` when none was saved.
    QString workload(const QString& fallback) const;
    void setWorkload(const QString& id);
    /// The generator values last used with a workload (empty when none).
    std::map<std::string, std::string> generatorValues(const QString& workload) const;
    void setGeneratorValues(const QString& workload, const std::map<std::string, std::string>& values);
    /// The saved run settings; nullopt when none were saved or they cannot be read. Reads the per-field keys of
    /// earlier versions too.
    std::optional<RunSettings> runSettings() const;
    void setRunSettings(const RunSettings& settings);
    /// Whether the sizes stay when a file opens (RunSettingsPanel's "Keep these sizes"); off when never set.
    bool keepSizes() const;
    void setKeepSizes(bool keep);
    /// Whether the timeline overlays the clock sampled with each repetition; on when never set.
    bool timelineClockOverlay() const;
    void setTimelineClockOverlay(bool on);
    /// The user kernels open in the Kernels pane.
    QList<SavedKernel> userKernels() const;
    void setUserKernels(const QList<SavedKernel>& kernels);
    WindowLayout windowLayout() const;
    void setWindowLayout(const WindowLayout& layout);
    /// Writes pending changes to the backing store.
    void sync();

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace ks::gui
