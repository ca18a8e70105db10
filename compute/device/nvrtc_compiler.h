#pragma once

// Run-time compilation of a user's kernel with NVRTC (loaded by nvrtc_loader), its messages mapped to the user's
// file and lines, and a cache of compiled code keyed by what determines it.

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks::device {

/// What NVRTC produces: PTX for a virtual architecture (compute_XY; no GPU needed) or a cubin for a real one (sm_XY).
enum class CodeKind { Ptx, Cubin };

/// One compiler message: "file:line: severity: message" (line 0 when NVRTC names no line).
struct CompileDiagnostic {
    std::string file;
    int line = 0;
    std::string severity; ///< "error", "warning", "remark", "catastrophic error"
    std::string message;
    std::string text() const;
};

struct CompileRequest {
    std::string program; ///< the whole source NVRTC sees (see userKernelProgram)
    std::string programName; ///< the user's file as they named it
    std::string arch = "sm_90"; ///< the real architecture, sm_XY[a]; PTX is made for compute_XY[a]
    CodeKind kind = CodeKind::Ptx;
    std::vector<std::string> extraOptions; ///< the user's --nvrtc-opt flags, after KernelScope's own
};

struct CompiledKernel {
    bool ok = false;
    std::string code; ///< PTX text or cubin bytes when ok
    std::string log; ///< NVRTC's log as it came
    std::vector<CompileDiagnostic> diagnostics; ///< one per message in the log
    bool cacheHit = false;
    bool hasErrors() const;
};

/// True for "sm_" followed by digits and an optional letter suffix (sm_90, sm_90a, sm_100f).
bool isRealArchitecture(const std::string& arch);
/// "sm_XY" for compute capability X.Y.
std::string archForCapability(int major, int minor);
/// KernelScope's options then the user's: the architecture (compute_XY for PTX, sm_XY for a cubin), -lineinfo,
/// --std=c++17.
std::vector<std::string> nvrtcOptions(const CompileRequest& request);
/// NVRTC's log as diagnostics: "file(line): error: message" lines, the echoed source and caret lines dropped.
std::vector<CompileDiagnostic> parseNvrtcLog(const std::string& log);
/// Compiles with NVRTC. A source with errors returns ok = false with its diagnostics; throws ComputeError when NVRTC
/// cannot be loaded (nvrtcUnavailableReason) or fails for a reason that is not the source's.
CompiledKernel compileWithNvrtc(const CompileRequest& request);

/// Compiled code by a hash of the program, its name, the options, the architecture, the kind and NVRTC's version:
/// in memory for the process, and in `directory` (one file per entry) across processes when one is given. Only
/// successful compilations are kept.
class KernelCache {
public:
    /// An empty directory keeps the cache in memory only.
    explicit KernelCache(std::filesystem::path directory = {});
    /// $XDG_CACHE_HOME/kernelscope/kernels, or ~/.cache/kernelscope/kernels.
    static std::filesystem::path defaultDirectory();
    /// The 32-hex-digit key of a request.
    static std::string key(const CompileRequest& request);

    /// The cached code (cacheHit = true) or a fresh compilation, stored when it succeeds.
    CompiledKernel compile(const CompileRequest& request);
    std::size_t hits() const;
    std::size_t misses() const;

private:
    std::filesystem::path m_directory;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, CompiledKernel> m_memory;
    std::size_t m_hits = 0;
    std::size_t m_misses = 0;
};

} // namespace ks::device
