#pragma once

#include "compute/core/result.h"
#include "compute/core/summary.h"

#include <QColor>
#include <QString>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::gui {

class ResultsModel;

/// What the cnn views read from a run's Summary: which runs to show and the facts a cnn run reports.
namespace cnn {

/// One phase of a training step, from a "time <phase>" fact: "conv2 backward" is layer conv2, backward.
struct Phase {
    QString name; ///< the phase as the fact names it ("conv2 backward", "loss")
    QString layer; ///< "conv2", "loss"
    bool backward = false;
    double ms = 0.0;
};

/// The layers in the network's order, then the two phases that are no layer's (the loss and the update).
const std::vector<QString>& knownLayers();

/// The step's phases from `facts`, in the order measured; empty when the run reported none (a results file
/// from before the phases were measured, or a workload that has none).
std::vector<Phase> stepPhases(const Facts& facts);

/// The fact named `name`, if the run reported it.
std::optional<double> fact(const Facts& facts, std::string_view name);

/// "bit-identical on replay", "differs on replay" or "not checked".
QString determinismText(const std::optional<bool>& deterministic);

/// Held-out accuracy as "87.1 % of 10,000 images", or "not measured".
QString accuracyText(const Facts& facts);

/// variant index → row of each variant's latest cnn run that trained at least one step (a skipped or failed
/// run did not). A finished run counts when it is on the dataset with `datasetHash` (any dataset when empty); a
/// running one, which has no hash until it finishes, when `includeRunning`: it is the run being measured now, on
/// the dataset the views were last given.
std::map<int, int> latestRuns(const ResultsModel& model, const std::string& datasetHash, bool includeRunning);

/// The loss after K steps against `cudnn`'s on the same training (same batch, lr, momentum and seed), K the steps
/// both ran: "+0.12 % at step 938". Empty when there is nothing to compare with (no cudnn run among `runs`, another
/// training, the run is cudnn's own, or either has no losses).
QString lossAgainstCudnn(const Summary& run, const std::vector<const Summary*>& runs);

/// The colour of a layer's segments: its own hue for the forward phase, lighter for the backward one.
QColor phaseColor(const QString& layer, bool backward);

} // namespace cnn

} // namespace ks::gui
