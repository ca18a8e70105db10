#include "compute/core/clock_sampler.h"

#include "compute/core/summary.h"
#include "compute/core/variant.h"
#include "compute/device/nvml_sampler.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace ks {

std::string throttleReasonNames(std::uint64_t reasons)
{
    static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
        {kThrottleGpuIdle, "GpuIdle"},
        {kThrottleApplicationsClocksSetting, "ApplicationsClocksSetting"},
        {kThrottleSwPowerCap, "SwPowerCap"},
        {kThrottleHwSlowdown, "HwSlowdown"},
        {kThrottleSyncBoost, "SyncBoost"},
        {kThrottleSwThermalSlowdown, "SwThermalSlowdown"},
        {kThrottleHwThermalSlowdown, "HwThermalSlowdown"},
        {kThrottleHwPowerBrakeSlowdown, "HwPowerBrakeSlowdown"},
        {kThrottleDisplayClockSetting, "DisplayClockSetting"},
    };
    std::string text;
    std::uint64_t named = 0;
    for (const auto& [bit, name] : kNames) {
        named |= bit;
        if (reasons & bit)
            text += (text.empty() ? "" : ", ") + std::string(name);
    }
    if (const std::uint64_t rest = reasons & ~named) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(rest));
        text += (text.empty() ? "" : ", ") + std::string(buffer);
    }
    return text;
}

CpufreqSampler::CpufreqSampler(std::string cpuRoot)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(cpuRoot, ec)) {
        const std::string name = entry.path().filename().string();
        // cpu0, cpu1, …: not cpufreq/, cpuidle/ or cpu_list.
        if (name.size() < 4 || name.compare(0, 3, "cpu") != 0
            || !std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        const fs::path file = entry.path() / "cpufreq" / "scaling_cur_freq";
        if (fs::exists(file, ec))
            m_files.push_back(file.string());
    }
    if (m_files.empty())
        m_reason = "cpufreq not exposed (no " + cpuRoot + "/cpu*/cpufreq/scaling_cur_freq)";
}

std::optional<ClockSample> CpufreqSampler::sample()
{
    double sumKHz = 0.0;
    int count = 0;
    for (const auto& file : m_files) {
        std::ifstream in(file);
        double kHz = 0.0;
        // A CPU taken offline since construction has no readable value: the mean is over those that answered.
        if (in >> kHz && kHz > 0.0) {
            sumKHz += kHz;
            ++count;
        }
    }
    if (count == 0)
        return std::nullopt;
    ClockSample s;
    s.smClockMHz = sumKHz / count / 1000.0;
    return s;
}

ClockSamplerFactory defaultClockSamplers()
{
    return [](Backend backend, const DeviceInfo& device) -> std::unique_ptr<ClockSampler> {
        if (backend == Backend::Cpu)
            return std::make_unique<CpufreqSampler>();
        return device::nvmlSampler(device.uuid);
    };
}

ClockRecorder::ClockRecorder(std::unique_ptr<ClockSampler> sampler)
    : m_sampler(std::move(sampler))
{
    if (!m_sampler)
        m_reason = "no clock source for this backend";
    else
        m_reason = m_sampler->unavailableReason();
    if (!m_reason.empty())
        m_sampler.reset();
}

void ClockRecorder::before()
{
    m_before = m_sampler ? m_sampler->sample() : std::nullopt;
}

std::optional<ClockSample> ClockRecorder::after(Summary& s)
{
    if (!m_sampler)
        return std::nullopt;
    std::optional<ClockSample> reading = m_sampler->sample();
    const bool throttledBefore = m_before && (m_before->throttled || isThrottled(m_before->throttleReasons));
    if (!reading)
        reading = m_before;
    else if (m_before)
        reading->throttleReasons |= m_before->throttleReasons;
    m_before.reset();
    // An entry for every repetition keeps the arrays aligned with samplesMs; one that could not be read is all zeros.
    const ClockSample entry = reading.value_or(ClockSample {});
    const bool throttled = throttledBefore || entry.throttled || isThrottled(entry.throttleReasons);
    s.clockMHz.push_back(entry.smClockMHz);
    s.memClockMHz.push_back(entry.memClockMHz);
    s.temperatureC.push_back(entry.temperatureC);
    s.powerW.push_back(entry.powerW);
    s.throttleReasons.push_back(entry.throttleReasons);
    s.throttled.push_back(throttled);
    if (!reading)
        return std::nullopt;
    reading->throttled = throttled;
    return reading;
}

void ClockRecorder::finish(Summary& s) const
{
    s.clockMinMHz = 0.0;
    s.clockMaxMHz = 0.0;
    s.throttledSamples = static_cast<int>(std::count(s.throttled.begin(), s.throttled.end(), true));
    bool any = false;
    for (double mhz : s.clockMHz) {
        if (!(mhz > 0.0))
            continue;
        s.clockMinMHz = any ? std::min(s.clockMinMHz, mhz) : mhz;
        s.clockMaxMHz = any ? std::max(s.clockMaxMHz, mhz) : mhz;
        any = true;
    }
    if (any) {
        s.clockSource = m_sampler->source();
        s.clockReason.clear();
        return;
    }
    s.clockSource.clear();
    s.clockMHz.clear();
    s.memClockMHz.clear();
    s.temperatureC.clear();
    s.powerW.clear();
    s.throttleReasons.clear();
    s.throttled.clear();
    s.throttledSamples = 0;
    if (s.repetitions == 0)
        s.clockReason.clear();
    else
        s.clockReason = m_reason.empty() ? m_sampler->source() + " returned no readings" : m_reason;
}

} // namespace ks
