// Builds without CUDA have no device to measure.
#include "compute/core/errors.h"
#include "compute/device/calibration_cuda.h"

namespace ks::calibration {

Ceilings measureCudaDevice(int)
{
    throw ComputeError("cannot calibrate a CUDA device: built without CUDA");
}

} // namespace ks::calibration
