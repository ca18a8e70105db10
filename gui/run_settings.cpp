#include "gui/run_settings.h"

#include <nlohmann/json.hpp>

namespace ks::gui {

namespace {
using Json = nlohmann::ordered_json;

/// Format 1 kept the runner's options beside the GUI's, flat, with the noise target in % under this name (which
/// the results' columns use for the measured noise).
constexpr const char* kLegacyNoiseTargetPctKey = "noise_pct";

void readRunOptions(const Json& j, RunOptions& o)
{
    o.warmup = j.value("warmup", o.warmup);
    o.minRepetitions = j.value("min_repetitions", o.minRepetitions);
    o.maxRepetitions = j.value("max_repetitions", o.maxRepetitions);
    o.timeLimitS = j.value("time_limit_s", o.timeLimitS);
    o.flushL2 = j.value("flush_caches", o.flushL2);
    o.device = j.value("device", o.device);
    o.devices = j.value("devices", o.devices);
    o.checkDeterminism = j.value("check_determinism", o.checkDeterminism);
}
} // namespace

Json runSettingsToJson(const RunSettings& s)
{
    Json options;
    options["warmup"] = s.options.warmup;
    options["min_repetitions"] = s.options.minRepetitions;
    options["max_repetitions"] = s.options.maxRepetitions;
    options["noise_target"] = s.options.noiseTarget;
    options["time_limit_s"] = s.options.timeLimitS;
    options["flush_caches"] = s.options.flushL2;
    options["device"] = s.options.device;
    options["devices"] = s.options.devices;
    options["check_determinism"] = s.options.checkDeterminism;
    Json j;
    j["sizes"] = s.sizes.toStdString();
    j["params"] = s.params;
    j["baseline"] = s.baseline.toStdString();
    j["run_options"] = options;
    return j;
}

RunSettings runSettingsFromJson(const Json& j)
{
    RunSettings s;
    s.sizes = QString::fromStdString(j.value("sizes", std::string()));
    s.params = j.value("params", std::map<std::string, std::string>());
    s.baseline = QString::fromStdString(j.value("baseline", std::string()));
    if (const auto options = j.find("run_options"); options != j.end()) {
        readRunOptions(*options, s.options);
        s.options.noiseTarget = options->value("noise_target", s.options.noiseTarget);
    } else {
        readRunOptions(j, s.options);
        if (const auto pct = j.find(kLegacyNoiseTargetPctKey); pct != j.end())
            s.options.noiseTarget = pct->get<double>() / 100.0;
    }
    return s;
}

} // namespace ks::gui
