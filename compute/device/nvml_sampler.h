#pragma once

#include "compute/core/clock_sampler.h"

#include <memory>
#include <string>

namespace ks::device {

/// Empty when NVML (libnvidia-ml, part of the NVIDIA driver) can be loaded and initialised; otherwise why not. It is
/// opened at run time like the vendor libraries, so a machine without it runs everything and says so.
std::string nvmlUnavailableReason();

/// A ClockSampler reading one GPU through NVML: SM and memory clocks, temperature, power and the clocks-event
/// reasons. The GPU is found by its UUID (DeviceInfo::uuid, "GPU-…" as NVML also spells it) because NVML's device
/// order can differ from CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). Unavailable, with the reason, when NVML is
/// absent, fails to initialise, or knows no GPU with that UUID.
std::unique_ptr<ClockSampler> nvmlSampler(const std::string& uuid);

} // namespace ks::device
