#pragma once

#include "compute/core/results_io.h"
#include "gui/workspace.h"

#include <QString>
#include <memory>

namespace ks::gui {

/// Crash insurance for sweeps. Each session (one sweep) gets two files in the autosave directory, both grown as
/// Summaries arrive and flushed each time: session-<stamp>.csv (the CLI's CSV rows of the session) and
/// session-<stamp>.ksw (a workspace, written once at the start with the table so far and then appended to, which
/// File ▸ Open Workspace reopens). Only the newest kSessionsKept sessions stay on disk.
class Autosave {
public:
    static constexpr int kSessionsKept = 20;

    /// The user's autosave directory (under the application's data location).
    static QString defaultDirectory();

    explicit Autosave(QString directory = defaultDirectory());
    ~Autosave();

    void setDirectory(const QString& directory) { m_directory = directory; }
    QString directory() const { return m_directory; }

    /// Starts a session named `stamp` (a session stamp: sortable, unique per sweep): creates the directory, writes
    /// `workspace` as the session's workspace, opens its CSV and removes the oldest sessions beyond kSessionsKept.
    /// Throws std::runtime_error naming the file when it cannot write; autosave is then off until the next begin.
    void begin(const QString& stamp, const Workspace& workspace);
    /// Appends a Summary to the session's CSV and workspace; nothing when no session is on. Throws
    /// std::runtime_error naming the file when a write fails, and ends the session (the CSV ends at its last whole
    /// row; later appends write nothing, so a full disk is reported once).
    void append(const Summary& summary);
    /// Appends a decision run's verdicts to the session's workspace (the CSV has no place for them); nothing when no
    /// session is on. Throws std::runtime_error naming the file when the write fails.
    void appendDecisions(const std::vector<Decision>& decisions);
    /// Ends the session (a later append writes nothing).
    void end();

    bool isOn() const { return m_csv != nullptr; }
    /// The files of the current or last session; empty before the first begin and after one that failed.
    QString csvPath() const { return m_csvPath; }
    QString workspacePath() const { return m_workspacePath; }

private:
    void removeOldSessions() const;

    QString m_directory;
    QString m_csvPath;
    QString m_workspacePath;
    std::unique_ptr<CsvAppender> m_csv;
    std::unique_ptr<WorkspaceAppender> m_workspace;
};

} // namespace ks::gui
