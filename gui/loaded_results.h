#pragma once

#include "compute/core/summary.h"

#include <QString>
#include <QStringList>
#include <string>
#include <vector>

namespace ks::gui {

class ResultsModel;

/// Reads a results file the CLI (or File → Export Results) wrote: JSON by its ".json" suffix, CSV otherwise. Each
/// row's run id is marked with the file's absolute path (loadedRunId), so the rows show as loaded from it and opening
/// the file again replaces them instead of adding them twice. Throws data::DatasetError (or std::runtime_error) whose
/// one-line message names the file, the place and the problem.
std::vector<Summary> readResultsFile(const QString& path);
/// Whether a file is a results file readResultsFile reads, judged from its first few KB only (a drop is sniffed on
/// the GUI thread): a ".json" whose top-level object has a "summaries" key (a workspace, which has one too, is not),
/// or any other file whose first line starts with the CLI's CSV header (`run_id,timestamp,workload`). A dataset, or
/// a file that cannot be read, is not.
bool isResultsFile(const QString& path);

/// "loaded:<absolute path>|<the file's own run id>"; a run id already so marked (a session exported and opened
/// again) keeps only its own part, and an empty one becomes "row <n>" (1-based).
std::string loadedRunId(const QString& absolutePath, const std::string& runId, std::size_t row);
/// The absolute path of the file a row was loaded from; empty for the app's own runs.
QString loadedSource(const Summary& summary);
/// The files the model's rows were loaded from, in the order of their first rows.
QStringList loadedSources(const ResultsModel& model);
/// "baseline: a.json": how charts label a pinned file's overlay.
QString baselineLabel(const QString& source);

/// The rows loaded from `source` (finished and timed) that compareRuns matches with one of `shownRows` (workload,
/// variant, size, parameters and dataset hash: kernelscope-cli compare's rule), in the file's order. The charts draw
/// these as the pinned baseline's overlay.
std::vector<int> matchedBaselineRows(
    const ResultsModel& model, const QString& source, const std::vector<int>& shownRows);

} // namespace ks::gui
