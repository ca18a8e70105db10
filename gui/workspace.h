#pragma once

#include "compute/core/decide.h"
#include "compute/core/summary.h"
#include "gui/run_settings.h"

#include <QFile>
#include <QString>
#include <QStringList>
#include <map>
#include <string>
#include <vector>

namespace ks::gui {

/// Everything needed to reopen a session: which data (a file reference or generator values, never the data
/// itself), the choices and settings, and every Summary with its Samples.
struct Workspace {
    QString workload;
    bool fromFile = false;
    std::map<std::string, std::string> generator; ///< when !fromFile
    QString filePath; ///< when fromFile
    QString h5Path;
    bool allowNonFinite = false;
    QString datasetHash; ///< the loaded file's content hash when saved, to notice a changed file
    QStringList variants;
    RunSettings settings;
    std::vector<Summary> summaries;
    /// The results file pinned as the charts' baseline (a loadedSource of some summaries); empty when none. Older
    /// workspaces have none.
    QString baselineSource;
    /// The A/B decisions the speedup chart shows (the last Decide's). Older workspaces have none.
    std::vector<Decision> decisions;
};

/// Writes a workspace as JSON (summaries in exactly the CLI's JSON schema). Throws std::runtime_error naming the
/// file when it cannot be written.
void saveWorkspace(const QString& path, const Workspace& workspace);
/// Reads what saveWorkspace or a WorkspaceAppender wrote, and workspaces of earlier formats. An appended
/// workspace cut off mid-line (a crash while writing) keeps every complete line. Throws data::DatasetError naming
/// the file, the place and the problem.
Workspace loadWorkspace(const QString& path);

/// Writes a workspace that grows by one line per Summary: the first line is the workspace (its summaries so far
/// included) as one JSON object, then each appended Summary is one JSON object on its own line, flushed at once.
/// Writing stays linear over a long sweep, and a crash loses at most the line being written.
class WorkspaceAppender {
public:
    /// Creates (or truncates) the file and writes the workspace line. Throws std::runtime_error naming the file.
    WorkspaceAppender(const QString& path, const Workspace& workspace);
    /// Throws std::runtime_error naming the file when the line cannot be written.
    void append(const Summary& summary);
    /// Appends a line holding the decisions, which replace any the workspace had when it is read back. Throws
    /// std::runtime_error naming the file when the line cannot be written.
    void appendDecisions(const std::vector<Decision>& decisions);
    QString path() const { return m_file.fileName(); }

private:
    void writeLine(const std::string& line);

    QFile m_file;
};

} // namespace ks::gui
