#include "gui/workspace_binding.h"

#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace ks::gui {

WorkspaceBinding::WorkspaceBinding(
    DatasetPanel& dataset, VariantPanel& variants, RunSettingsPanel& settings, ResultsModel& model)
    : m_dataset(dataset)
    , m_variants(variants)
    , m_settings(settings)
    , m_model(model)
{
}

Workspace WorkspaceBinding::capture(const QString& workload, const data::Dataset& loaded) const
{
    Workspace w;
    w.workload = workload;
    w.fromFile = m_dataset.source() == DatasetPanel::Source::File;
    w.generator = m_dataset.generatorValues();
    w.filePath = m_dataset.filePath();
    w.h5Path = m_dataset.h5Path();
    w.allowNonFinite = m_dataset.allowNonFinite();
    if (w.fromFile && !loaded.empty())
        w.datasetHash = QString::fromStdString(loaded.meta().contentHash);
    w.variants = m_variants.checkedVariants();
    w.settings = m_settings.settings();
    w.summaries = m_model.finishedSummaries();
    return w;
}

bool WorkspaceBinding::apply(const Workspace& w) const
{
    m_variants.setCheckedVariants(w.variants);
    m_settings.setSettings(w.settings);
    m_model.setSummaries(w.summaries);
    if (!w.fromFile) {
        m_dataset.setSource(DatasetPanel::Source::Generator);
        m_dataset.setGenerator(w.generator);
        return false;
    }
    m_dataset.setFile(w.filePath, w.h5Path, w.allowNonFinite);
    // The panel keeps the path absolute: check (and later load) that form.
    if (QFileInfo::exists(m_dataset.filePath()))
        return true;
    m_dataset.showError(QCoreApplication::translate(
        "ks::gui::WorkspaceBinding", "the workspace's dataset file is gone; its results are shown"));
    return false;
}

} // namespace ks::gui
