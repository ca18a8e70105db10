#pragma once

#include "compute/core/result.h"

#include <string>

namespace ks {

/// Measured ceilings of one processor: what "% of peak" is taken against. Measured once and cached on disk.
struct Ceilings {
    std::string target; ///< "cuda:<uuid>" or "host:<cpu model>"
    std::string name; ///< device or CPU name
    double readGBs = 0.0; ///< streaming read bandwidth (bytes read / time)
    double copyGBs = 0.0; ///< device-to-device copy bandwidth, counting bytes read plus bytes written
    double fp32Gflops = 0.0; ///< FMA throughput, 2 flops per FMA
    double fp64Gflops = 0.0;
    std::string measuredAt; ///< ISO 8601 UTC

    /// The ceiling for a roof, in GB/s or GFLOP/s.
    double valueFor(Roof roof) const;
};

namespace calibration {

/// Ceilings of CUDA device `index`: from the cache when present, else measured now (about a second) and
/// cached. Throws ComputeError when CUDA is unavailable.
Ceilings forDevice(int index, bool useCache = true);
/// Ceilings of the host CPU (read and copy bandwidth with every thread, scalar FMA rate), cached likewise.
Ceilings forHost(bool useCache = true);
/// $KS_CALIBRATION_CACHE, or $XDG_CACHE_HOME/kernelscope/calibration.json, or ~/.cache/kernelscope/….
std::string cachePath();

} // namespace calibration
} // namespace ks
