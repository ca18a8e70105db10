#pragma once

// What tiled_f64_exact's float screen assumes of the GPU's approximate square root, and the measurement that checks
// it on the device at hand (tests/compute/test_sdh.cpp).

namespace ks::sdh::gpu {

/// The relative error the screen allows sqrt.approx.ftz.f32: one unit in the last place, 2^-23 — CUDA's bound for the
/// approximate single-precision square root on compute capability 5.2 and up.
inline constexpr double kScreenSqrtError = 0x1p-23;

/// The largest relative error of sqrt.approx.ftz.f32 against the correctly rounded double square root, over every
/// positive normal float, on the current device (2.1·10⁹ inputs, milliseconds). Throws ComputeError on a CUDA error;
/// only in builds with CUDA.
double measureScreenSqrtError();

} // namespace ks::sdh::gpu
