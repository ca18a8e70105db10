#include "compute/device/nvml_sampler.h"

#include "compute/device/dynamic_library.h"

namespace ks::device {

namespace {
// The few NVML declarations used, as nvml.h has them: the header is not needed to build, only the driver to run.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

struct NvmlApi {
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*shutdown)() = nullptr;
    const char* (*errorString)(NvmlReturn) = nullptr;
    NvmlReturn (*handleByUuid)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*clockInfo)(NvmlDevice, int, unsigned int*) = nullptr;
    NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
    NvmlReturn (*powerUsage)(NvmlDevice, unsigned int*) = nullptr;
    NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
};

/// NVML opened and initialised once per process; shut down at exit.
struct Nvml {
    DynamicLibrary library {"libnvidia-ml.so.1", "libnvidia-ml.so"};
    NvmlApi api;
    std::string reason;
    bool initialised = false;

    Nvml()
    {
        if (!library.loaded()) {
            reason = "NVML not found (" + library.error() + ")";
            return;
        }
        const bool ok = library.bind(api.init, "nvmlInit_v2") && library.bind(api.shutdown, "nvmlShutdown")
            && library.bind(api.errorString, "nvmlErrorString")
            && library.bind(api.handleByUuid, "nvmlDeviceGetHandleByUUID")
            && library.bind(api.clockInfo, "nvmlDeviceGetClockInfo")
            && library.bind(api.temperature, "nvmlDeviceGetTemperature")
            && library.bind(api.powerUsage, "nvmlDeviceGetPowerUsage");
        // The reasons function was renamed in driver R535 ("clocks event"); older drivers have only the old name.
        const bool reasons = library.bind(api.reasons, "nvmlDeviceGetCurrentClocksEventReasons")
            || library.bind(api.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
        if (!ok || !reasons) {
            reason = "the NVML found here is unusable: " + library.error();
            return;
        }
        if (const NvmlReturn r = api.init(); r != kNvmlSuccess) {
            reason = std::string("NVML did not initialise: ") + api.errorString(r);
            return;
        }
        initialised = true;
    }
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;
    ~Nvml()
    {
        if (initialised)
            api.shutdown();
    }
};

Nvml& nvml()
{
    static Nvml instance;
    return instance;
}

class NvmlSampler final : public ClockSampler {
public:
    explicit NvmlSampler(const std::string& uuid)
    {
        Nvml& n = nvml();
        if (!n.reason.empty()) {
            m_reason = n.reason;
            return;
        }
        if (uuid.empty()) {
            m_reason = "NVML: the CUDA device has no UUID to find it by";
            return;
        }
        if (const NvmlReturn r = n.api.handleByUuid(uuid.c_str(), &m_device); r != kNvmlSuccess) {
            m_reason = "NVML knows no GPU " + uuid + ": " + n.api.errorString(r);
            m_device = nullptr;
            return;
        }
        m_api = &n.api;
    }

    std::string source() const override { return "nvml"; }
    std::string unavailableReason() const override { return m_reason; }

    std::optional<ClockSample> sample() override
    {
        if (!m_api)
            return std::nullopt;
        unsigned int sm = 0;
        if (m_api->clockInfo(m_device, kNvmlClockSm, &sm) != kNvmlSuccess)
            return std::nullopt;
        ClockSample s;
        s.smClockMHz = sm;
        // The other readings are optional: a GPU that does not report one (power on some boards) still has clocks.
        if (unsigned int mem = 0; m_api->clockInfo(m_device, kNvmlClockMem, &mem) == kNvmlSuccess)
            s.memClockMHz = mem;
        if (unsigned int c = 0; m_api->temperature(m_device, kNvmlTemperatureGpu, &c) == kNvmlSuccess)
            s.temperatureC = c;
        if (unsigned int mw = 0; m_api->powerUsage(m_device, &mw) == kNvmlSuccess)
            s.powerW = mw / 1000.0;
        if (unsigned long long bits = 0; m_api->reasons(m_device, &bits) == kNvmlSuccess)
            s.throttleReasons = bits;
        s.throttled = isThrottled(s.throttleReasons);
        return s;
    }

private:
    const NvmlApi* m_api = nullptr;
    NvmlDevice m_device = nullptr;
    std::string m_reason;
};
} // namespace

std::string nvmlUnavailableReason()
{
    return nvml().reason;
}

std::unique_ptr<ClockSampler> nvmlSampler(const std::string& uuid)
{
    return std::make_unique<NvmlSampler>(uuid);
}

} // namespace ks::device
