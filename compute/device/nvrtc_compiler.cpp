#include "compute/device/nvrtc_compiler.h"

#include "compute/core/errors.h"
#include "compute/device/nvrtc_loader.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace ks::device {

std::string CompileDiagnostic::text() const
{
    return file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + severity + ": " + message;
}

bool CompiledKernel::hasErrors() const
{
    for (const CompileDiagnostic& d : diagnostics)
        if (d.severity.find("error") != std::string::npos)
            return true;
    return !ok;
}

bool isRealArchitecture(const std::string& arch)
{
    static const std::regex pattern("sm_[0-9]+[a-z]?");
    return std::regex_match(arch, pattern);
}

std::string archForCapability(int major, int minor)
{
    return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::vector<std::string> nvrtcOptions(const CompileRequest& request)
{
    if (!isRealArchitecture(request.arch))
        throw ComputeError("'" + request.arch + "' is not an architecture such as sm_90");
    const std::string arch = request.kind == CodeKind::Ptx ? "compute_" + request.arch.substr(3) : request.arch;
    std::vector<std::string> options {"--gpu-architecture=" + arch, "-lineinfo", "--std=c++17"};
    options.insert(options.end(), request.extraOptions.begin(), request.extraOptions.end());
    return options;
}

std::vector<CompileDiagnostic> parseNvrtcLog(const std::string& log)
{
    // "my.cu(7): error: expected a \";\"" and "my.cu(3): warning #177-D: variable ..."; NVRTC echoes the source
    // line and a caret under each message, and ends with a count ("1 error detected in ..."): those are dropped.
    static const std::regex located(R"(^(.*)\(([0-9]+)\): ((?:catastrophic )?error|warning|remark)[^:]*: (.*)$)");
    static const std::regex unlocated(R"(^(?:nvrtc: )?((?:catastrophic )?error|warning)[^:]*: (.*)$)");
    std::vector<CompileDiagnostic> out;
    std::istringstream lines(log);
    std::string line;
    std::smatch m;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (std::regex_match(line, m, located))
            out.push_back({m[1].str(), std::stoi(m[2].str()), m[3].str(), m[4].str()});
        else if (std::regex_match(line, m, unlocated))
            out.push_back({"nvrtc", 0, m[1].str(), m[2].str()});
    }
    return out;
}

CompiledKernel compileWithNvrtc(const CompileRequest& request)
{
    const NvrtcApi& api = nvrtc();
    const std::vector<std::string> options = nvrtcOptions(request);
    std::vector<const char*> optionPointers;
    for (const std::string& o : options)
        optionPointers.push_back(o.c_str());

    NvrtcProgram program = nullptr;
    NvrtcResult status
        = api.createProgram(&program, request.program.c_str(), request.programName.c_str(), 0, nullptr, nullptr);
    if (status != kNvrtcSuccess)
        throw ComputeError(std::string("nvrtcCreateProgram: ") + api.getErrorString(status));
    // The program is destroyed however this function leaves.
    struct Destroy {
        const NvrtcApi& api;
        NvrtcProgram& program;
        ~Destroy() { api.destroyProgram(&program); }
    } destroy {api, program};

    CompiledKernel result;
    const NvrtcResult compiled
        = api.compileProgram(program, static_cast<int>(optionPointers.size()), optionPointers.data());
    std::size_t logSize = 0;
    if (api.getProgramLogSize(program, &logSize) == kNvrtcSuccess && logSize > 1) {
        std::string log(logSize, '\0');
        if (api.getProgramLog(program, log.data()) == kNvrtcSuccess)
            result.log = log.substr(0, log.find('\0'));
    }
    result.diagnostics = parseNvrtcLog(result.log);
    if (compiled != kNvrtcSuccess) {
        // A compilation error's messages are in the log; any other failure (an invalid option) may leave it empty.
        if (result.diagnostics.empty())
            result.diagnostics.push_back({request.programName, 0, "error",
                std::string(api.getErrorString(compiled)) + (result.log.empty() ? "" : ": " + result.log)});
        return result;
    }

    std::size_t size = 0;
    const bool ptx = request.kind == CodeKind::Ptx;
    status = ptx ? api.getPtxSize(program, &size) : api.getCubinSize(program, &size);
    if (status != kNvrtcSuccess)
        throw ComputeError(std::string(ptx ? "nvrtcGetPTXSize: " : "nvrtcGetCUBINSize: ") + api.getErrorString(status));
    result.code.assign(size, '\0');
    status = ptx ? api.getPtx(program, result.code.data()) : api.getCubin(program, result.code.data());
    if (status != kNvrtcSuccess)
        throw ComputeError(std::string(ptx ? "nvrtcGetPTX: " : "nvrtcGetCUBIN: ") + api.getErrorString(status));
    if (ptx && !result.code.empty() && result.code.back() == '\0')
        result.code.pop_back();
    result.ok = true;
    return result;
}

// ---------------------------------------------------------------------------------------------------------------
// The cache.

namespace {

/// 64-bit FNV-1a: a cache key, not a security boundary (the cache holds what this user compiled).
std::uint64_t fnv1a(const std::string& bytes, std::uint64_t hash)
{
    for (unsigned char c : bytes) {
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

std::string hex(std::uint64_t value)
{
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
    return buffer;
}

bool readFile(const std::filesystem::path& path, std::string& contents)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream s;
    s << in.rdbuf();
    contents = s.str();
    return static_cast<bool>(in) || in.eof();
}

/// Written to a temporary name and renamed, so a reader in another process never sees half a file.
void writeFileAtomically(const std::filesystem::path& path, const std::string& contents)
{
    const std::filesystem::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            return;
        out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
        if (!out)
            return;
    }
    std::error_code ignored;
    std::filesystem::rename(temporary, path, ignored);
    if (ignored)
        std::filesystem::remove(temporary, ignored);
}

} // namespace

KernelCache::KernelCache(std::filesystem::path directory)
    : m_directory(std::move(directory))
{
}

std::filesystem::path KernelCache::defaultDirectory()
{
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "kernelscope" / "kernels";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "kernelscope" / "kernels";
    return {};
}

std::string KernelCache::key(const CompileRequest& request)
{
    // Every field is length-prefixed so no two requests serialise alike.
    std::string text;
    auto add = [&](const std::string& field) { text += std::to_string(field.size()) + ":" + field; };
    add(nvrtcVersion());
    add(request.kind == CodeKind::Ptx ? "ptx" : "cubin");
    add(request.arch);
    add(request.programName);
    for (const std::string& o : request.extraOptions)
        add(o);
    add(request.program);
    return hex(fnv1a(text, 0xcbf29ce484222325ULL)) + hex(fnv1a(text, 0x84222325cbf29ce4ULL));
}

CompiledKernel KernelCache::compile(const CompileRequest& request)
{
    const std::string k = key(request);
    const std::string extension = request.kind == CodeKind::Ptx ? ".ptx" : ".cubin";
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_memory.find(k); it != m_memory.end()) {
            ++m_hits;
            CompiledKernel hit = it->second;
            hit.cacheHit = true;
            return hit;
        }
        if (!m_directory.empty()) {
            CompiledKernel hit;
            if (readFile(m_directory / (k + extension), hit.code)) {
                readFile(m_directory / (k + ".log"), hit.log);
                hit.diagnostics = parseNvrtcLog(hit.log);
                hit.ok = true;
                m_memory.emplace(k, hit);
                ++m_hits;
                hit.cacheHit = true;
                return hit;
            }
        }
        ++m_misses;
    }
    CompiledKernel compiled = compileWithNvrtc(request);
    if (!compiled.ok)
        return compiled;
    std::lock_guard lock(m_mutex);
    m_memory.emplace(k, compiled);
    if (!m_directory.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(m_directory, ignored);
        // The log first: a reader takes the code file as the sign that the entry is complete.
        writeFileAtomically(m_directory / (k + ".log"), compiled.log);
        writeFileAtomically(m_directory / (k + extension), compiled.code);
    }
    return compiled;
}

std::size_t KernelCache::hits() const
{
    std::lock_guard lock(m_mutex);
    return m_hits;
}

std::size_t KernelCache::misses() const
{
    std::lock_guard lock(m_mutex);
    return m_misses;
}

} // namespace ks::device
