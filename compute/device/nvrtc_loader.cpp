#include "compute/device/nvrtc_loader.h"

#include "compute/core/errors.h"
#include "compute/device/dynamic_library.h"

#include <cstdlib>
#include <memory>

namespace ks::device {

namespace {
struct Loaded {
    NvrtcApi api;
    std::string reason;
    std::string version;
};

const Loaded& load()
{
    static const Loaded loaded = [] {
        Loaded l;
        // KS_NVRTC_LIBRARY names the library to use (one outside the usual places, or none at all). Otherwise the
        // soname first (the loader's path and ldconfig), then the toolkit's own lib64, where the CUDA installer puts
        // it without registering it; the unversioned name last (a development link to whatever is there).
        const char* chosen = std::getenv("KS_NVRTC_LIBRARY");
        static const std::unique_ptr<DynamicLibrary> owner(chosen && *chosen
                ? new DynamicLibrary {chosen}
                : new DynamicLibrary {"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13",
                    "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13", "libnvrtc.so",
                    "/usr/local/cuda/lib64/libnvrtc.so"});
        DynamicLibrary& library = *owner;
        if (!library.loaded()) {
            l.reason = "NVRTC is not installed here (" + library.error() + ")";
            return l;
        }
        const bool ok = library.bind(l.api.createProgram, "nvrtcCreateProgram")
            && library.bind(l.api.compileProgram, "nvrtcCompileProgram")
            && library.bind(l.api.getProgramLogSize, "nvrtcGetProgramLogSize")
            && library.bind(l.api.getProgramLog, "nvrtcGetProgramLog")
            && library.bind(l.api.getPtxSize, "nvrtcGetPTXSize") && library.bind(l.api.getPtx, "nvrtcGetPTX")
            && library.bind(l.api.getCubinSize, "nvrtcGetCUBINSize") && library.bind(l.api.getCubin, "nvrtcGetCUBIN")
            && library.bind(l.api.destroyProgram, "nvrtcDestroyProgram")
            && library.bind(l.api.getErrorString, "nvrtcGetErrorString") && library.bind(l.api.version, "nvrtcVersion");
        if (!ok) {
            l.reason = "the NVRTC found here is unusable: " + library.error();
            return l;
        }
        int major = 0, minor = 0;
        if (l.api.version(&major, &minor) == kNvrtcSuccess)
            l.version = std::to_string(major) + "." + std::to_string(minor);
        return l;
    }();
    return loaded;
}
} // namespace

std::string nvrtcUnavailableReason()
{
    return load().reason;
}

const NvrtcApi& nvrtc()
{
    const Loaded& l = load();
    if (!l.reason.empty())
        throw ComputeError(l.reason);
    return l.api;
}

std::string nvrtcVersion()
{
    return load().version;
}

} // namespace ks::device
