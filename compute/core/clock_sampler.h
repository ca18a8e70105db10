#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks {

struct DeviceInfo;
enum class Backend;

/// One reading of a device's clocks and state. Plain C++: the GUI receives it with every Sample. A field the source
/// does not report is 0 (no GPU runs at 0 MHz, 0 °C or 0 W; the host reports only its core frequency).
struct ClockSample {
    double smClockMHz = 0.0; ///< the SM clock of a GPU; for the host, the mean current frequency of its cores
    double memClockMHz = 0.0;
    double temperatureC = 0.0;
    double powerW = 0.0;
    std::uint64_t throttleReasons = 0; ///< NVML's clocks-event reason bits (kThrottle… below); 0 for the host
    bool throttled = false; ///< any of kThrottlingReasons was set
};

/// NVML's clocks-event (formerly "throttle") reason bits, as nvml.h defines them.
inline constexpr std::uint64_t kThrottleGpuIdle = 0x1;
inline constexpr std::uint64_t kThrottleApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kThrottleSwPowerCap = 0x4;
inline constexpr std::uint64_t kThrottleHwSlowdown = 0x8;
inline constexpr std::uint64_t kThrottleSyncBoost = 0x10;
inline constexpr std::uint64_t kThrottleSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kThrottleHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kThrottleHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kThrottleDisplayClockSetting = 0x100;

/// The reasons that make a sample "throttled": the clock was pulled below what the GPU would otherwise run at, by
/// power or heat, so a time measured then is slower than the kernel is. GpuIdle is left out (it is normal between
/// kernels: the runner samples outside the timed window, when the GPU may have just gone idle), and so are the
/// settings an administrator chose on purpose (application clocks, sync boost, display clocks): those hold for every
/// repetition alike and do not make one repetition slower than the next.
inline constexpr std::uint64_t kThrottlingReasons = kThrottleSwPowerCap | kThrottleHwSlowdown
    | kThrottleSwThermalSlowdown | kThrottleHwThermalSlowdown | kThrottleHwPowerBrakeSlowdown;

inline bool isThrottled(std::uint64_t reasons)
{
    return (reasons & kThrottlingReasons) != 0;
}
/// The set bits by name ("SwPowerCap, HwThermalSlowdown"); bits NVML may add later as hex.
std::string throttleReasonNames(std::uint64_t reasons);

/// Reads a device's clocks; the runner asks just before and just after each timed repetition.
class ClockSampler {
public:
    virtual ~ClockSampler() = default;
    /// Where the readings come from ("nvml", "cpufreq").
    virtual std::string source() const = 0;
    /// Empty when sample() can return readings; otherwise why not ("NVML not found: …", "cpufreq not exposed").
    virtual std::string unavailableReason() const = 0;
    /// A reading now, or nullopt when none could be had.
    virtual std::optional<ClockSample> sample() = 0;
};

/// The host's current core frequency from Linux's cpufreq (`<cpuRoot>/cpuN/cpufreq/scaling_cur_freq`, kHz), as the
/// mean over every CPU listed: a multithreaded variant runs on all of them, and the runner's own CPU says nothing
/// about the others. Unavailable (with the reason) where the kernel exposes no cpufreq, as in most VMs and
/// containers. Hosts report no throttle reasons.
class CpufreqSampler final : public ClockSampler {
public:
    explicit CpufreqSampler(std::string cpuRoot = "/sys/devices/system/cpu");
    std::string source() const override { return "cpufreq"; }
    std::string unavailableReason() const override { return m_reason; }
    std::optional<ClockSample> sample() override;

private:
    std::vector<std::string> m_files;
    std::string m_reason;
};

/// Makes the sampler for a run on `device` with `backend`; null when none applies (the Summary then says so).
using ClockSamplerFactory = std::function<std::unique_ptr<ClockSampler>(Backend backend, const DeviceInfo& device)>;
/// cpufreq for cpu variants, NVML (matched by the device's UUID) for cuda and library variants.
ClockSamplerFactory defaultClockSamplers();

struct Summary;

/// Samples around each timed repetition and keeps Summary's per-repetition clock arrays aligned with samplesMs.
class ClockRecorder {
public:
    /// `sampler` may be null, or unavailable: the Summary then carries the reason.
    explicit ClockRecorder(std::unique_ptr<ClockSampler> sampler);
    /// Just before a repetition (before its cache flush, outside any timed window).
    void before();
    /// Just after a repetition's time was read: appends the repetition's entry to the arrays and returns it. The entry
    /// has the clocks, temperature and power read after the repetition (the state the work left the GPU in) and the
    /// reasons of both readings, so a throttle that ended during the repetition still marks it.
    std::optional<ClockSample> after(Summary& summary);
    /// The SM clock range, the throttled count, and the reason when nothing was sampled.
    void finish(Summary& summary) const;

private:
    std::unique_ptr<ClockSampler> m_sampler;
    std::optional<ClockSample> m_before;
    std::string m_reason;
};

} // namespace ks
