#pragma once

#include "compute/device/calibration.h"

namespace ks::calibration {

/// Measures device `index` now (CUDA builds only; implemented in calibration_cuda.cu).
Ceilings measureCudaDevice(int index);

} // namespace ks::calibration
