#pragma once

#include "compute/core/summary.h"
#include "gui/panels/run_settings_panel.h"

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
};

/// Writes a workspace as JSON (summaries in exactly the CLI's JSON schema). Throws std::runtime_error naming the
/// file when it cannot be written.
void saveWorkspace(const QString& path, const Workspace& workspace);
/// Reads what saveWorkspace wrote. Throws data::DatasetError naming the file, the place and the problem.
Workspace loadWorkspace(const QString& path);

} // namespace ks::gui
