#pragma once

// NVRTC through dlopen: the handful of entry points KernelScope calls, declared here rather than taken from
// nvrtc.h so a build without the CUDA toolkit (the nocuda preset) compiles user kernels wherever the library exists.

#include <cstddef>
#include <string>

namespace ks::device {

/// nvrtcResult and nvrtcProgram as the C API defines them (an enum that is an int, an opaque pointer).
using NvrtcResult = int;
using NvrtcProgram = struct NvrtcProgramOpaque*;
constexpr NvrtcResult kNvrtcSuccess = 0;

struct NvrtcApi {
    NvrtcResult (*createProgram)(NvrtcProgram*, const char* source, const char* name, int numHeaders,
        const char* const* headers, const char* const* includeNames)
        = nullptr;
    NvrtcResult (*compileProgram)(NvrtcProgram, int numOptions, const char* const* options) = nullptr;
    NvrtcResult (*getProgramLogSize)(NvrtcProgram, std::size_t*) = nullptr;
    NvrtcResult (*getProgramLog)(NvrtcProgram, char*) = nullptr;
    NvrtcResult (*getPtxSize)(NvrtcProgram, std::size_t*) = nullptr;
    NvrtcResult (*getPtx)(NvrtcProgram, char*) = nullptr;
    NvrtcResult (*getCubinSize)(NvrtcProgram, std::size_t*) = nullptr;
    NvrtcResult (*getCubin)(NvrtcProgram, char*) = nullptr;
    NvrtcResult (*destroyProgram)(NvrtcProgram*) = nullptr;
    const char* (*getErrorString)(NvrtcResult) = nullptr;
    NvrtcResult (*version)(int* major, int* minor) = nullptr;
};

/// Empty when NVRTC can be loaded (it is opened at run time: the app itself needs only the NVIDIA driver, and user
/// kernels need NVRTC besides); otherwise why not.
std::string nvrtcUnavailableReason();

/// The loaded API; throws ComputeError with the reason when NVRTC cannot be loaded.
const NvrtcApi& nvrtc();

/// NVRTC's version as "major.minor", or empty when it cannot be loaded.
std::string nvrtcVersion();

} // namespace ks::device
