#pragma once

#include "data/dataset.h"
#include "gui/workspace.h"

#include <QString>

namespace ks::gui {

class DatasetPanel;
class ResultsModel;
class RunSettingsPanel;
class VariantPanel;

/// Ties a Workspace to the window's side bar and results table: captures the panels' choices, the run settings
/// and the finished results into one, and puts one back into them.
class WorkspaceBinding {
public:
    WorkspaceBinding(DatasetPanel& dataset, VariantPanel& variants, RunSettingsPanel& settings, ResultsModel& model);

    /// The session as it stands for `workload`; a non-empty `loaded` dataset gives the file's content hash.
    Workspace capture(const QString& workload, const data::Dataset& loaded) const;
    /// Puts a workspace's choices, settings and results into the panels and the table; the workspace's workload
    /// must already be selected (the panels show its parameters). The dataset file is only named, not loaded:
    /// returns true when it exists and should be loaded; a file that is gone is reported in the Dataset panel.
    bool apply(const Workspace& workspace) const;

private:
    DatasetPanel& m_dataset;
    VariantPanel& m_variants;
    RunSettingsPanel& m_settings;
    ResultsModel& m_model;
};

} // namespace ks::gui
