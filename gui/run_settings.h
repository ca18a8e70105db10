#pragma once

#include "compute/core/runner.h"

#include <QString>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace ks::gui {

/// Everything about how a sweep runs, as the user set it: the runner's own options (their defaults live in
/// ks::RunOptions) and what only the GUI has. Saved in workspaces and in the app's settings, through the same JSON.
struct RunSettings {
    QString sizes; ///< "" (the dataset's or generator's own size) or a size list: "1e4,1e6", "2^16..2^24"
    std::map<std::string, std::string> params; ///< the workload's run parameters
    QString baseline; ///< variant the speedup chart divides by
    /// The timing protocol. Its noiseTarget is the stopping rule (relative standard error of the mean, as a
    /// fraction), not a measured noise; the panel shows it in %.
    ks::RunOptions options;
};

/// {"sizes", "params", "baseline", "run_options": {"warmup", "min_repetitions", "max_repetitions",
/// "noise_target" (a fraction, as RunOptions), "time_limit_s", "flush_caches", "device", "devices" (the multi-device
/// variants' GPUs; [] for all), "check_determinism"}}. Settings saved before a key existed read as that option's
/// default.
nlohmann::ordered_json runSettingsToJson(const RunSettings& settings);
/// Reads what runSettingsToJson writes, and the flat form of workspace format 1 (whose "noise_pct" is the noise
/// target in %). Missing keys keep their defaults; throws nlohmann::json::exception when a value has the wrong type.
RunSettings runSettingsFromJson(const nlohmann::ordered_json& json);

} // namespace ks::gui
