#include "compute/core/user_variant.h"

#include "compute/core/errors.h"
#include "compute/device/device_info.h"
#include "compute/device/nvrtc_compiler.h"
#include "compute/device/nvrtc_loader.h"

#include <fstream>
#include <sstream>

namespace ks {

// Each workload's user run, defined in its user_run.cu (compiled only with CUDA).
namespace linreg {
std::unique_ptr<PreparedRun> prepareUserKernel(const data::Dataset&, const ParamSet&, const UserKernelBuild&);
}
namespace spmv {
std::unique_ptr<PreparedRun> prepareUserKernel(const data::Dataset&, const ParamSet&, const UserKernelBuild&);
}
namespace sdh {
std::unique_ptr<PreparedRun> prepareUserKernel(const data::Dataset&, const ParamSet&, const UserKernelBuild&);
}
namespace lrv {
std::unique_ptr<PreparedRun> prepareUserKernel(const data::Dataset&, const ParamSet&, const UserKernelBuild&);
}

namespace {

using UserPrepare = std::unique_ptr<PreparedRun> (*)(const data::Dataset&, const ParamSet&, const UserKernelBuild&);

UserPrepare userPrepareOf([[maybe_unused]] const std::string& workload)
{
#if KS_HAVE_CUDA
    if (workload == "linreg")
        return &linreg::prepareUserKernel;
    if (workload == "spmv")
        return &spmv::prepareUserKernel;
    if (workload == "sdh")
        return &sdh::prepareUserKernel;
    if (workload == "lrv")
        return &lrv::prepareUserKernel;
#endif
    return nullptr;
}

/// One cache for the process: a file prepared again (every size of a sweep) compiles once.
device::KernelCache& processCache()
{
    static device::KernelCache cache(device::KernelCache::defaultDirectory());
    return cache;
}

std::string readSource(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ComputeError(path.string() + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The build for the device the run is on.
UserKernelBuild buildForDevice(const UserKernelAbi& abi, const std::filesystem::path& path,
    const std::vector<std::string>& nvrtcOptions, const RunContext& context)
{
    const auto devices = device::cudaDevices();
    if (context.device < 0 || static_cast<std::size_t>(context.device) >= devices.size())
        throw ComputeError(
            "no CUDA device " + std::to_string(context.device) + " to compile " + path.string() + " for");
    const DeviceInfo& gpu = devices[static_cast<std::size_t>(context.device)];
    return buildUserKernel(abi, path, nvrtcOptions, device::archForCapability(gpu.ccMajor, gpu.ccMinor));
}

} // namespace

UserKernelBuild buildUserKernel(const UserKernelAbi& abi, const std::filesystem::path& kernelPath,
    const std::vector<std::string>& nvrtcOptions, const std::string& arch)
{
    UserKernelBuild build;
    build.fileName = kernelPath.string();
    build.label = userVariantId(kernelPath);
    const std::string source = readSource(kernelPath);
    try {
        build.declaration = parseLaunchDeclaration(source, build.fileName, abi.sizeNames);
    } catch (const UserKernelError& e) {
        throw ComputeError(e.what());
    }
    device::CompileRequest request;
    request.program = userKernelProgram(abi, source, build.fileName);
    request.programName = build.fileName;
    request.arch = arch;
    request.kind = device::CodeKind::Cubin;
    request.extraOptions = nvrtcOptions;
    device::CompiledKernel compiled = processCache().compile(request);
    if (!compiled.ok) {
        // The errors only: warnings of a file that compiles are not a reason, and would bury the error.
        std::string message;
        for (const device::CompileDiagnostic& d : compiled.diagnostics)
            if (d.severity != "warning" && d.severity != "remark")
                message += (message.empty() ? "" : "\n") + d.text();
        throw ComputeError(message.empty() ? build.fileName + ": NVRTC failed:\n" + compiled.log : message);
    }
    build.code = std::move(compiled.code);
    return build;
}

std::string userVariantId(const std::filesystem::path& kernelPath)
{
    return "user:" + kernelPath.stem().string();
}

Variant makeUserVariant(
    const std::string& workload, const std::filesystem::path& kernelPath, std::vector<std::string> nvrtcOptions)
{
    const UserKernelAbi* abi = findUserKernelAbi(workload);
    const UserPrepare prepare = abi ? userPrepareOf(workload) : nullptr;
    PrepareFn fn;
    if (prepare)
        fn = [abi, prepare, kernelPath, nvrtcOptions](
                 const data::Dataset& dataset, const ParamSet& params, const RunContext& context) {
            if (params.has("precision") && params.text("precision") != "f64")
                throw SkipRun("a user kernel reads the workload's doubles: precision f64 only");
            return prepare(dataset, params, buildForDevice(*abi, kernelPath, nvrtcOptions, context));
        };
    Variant variant = gpuVariant(userVariantId(kernelPath), "User kernel " + kernelPath.filename().string(),
        "the user's own CUDA source " + kernelPath.string() + ", compiled with NVRTC", Backend::Cuda, std::move(fn));
    if (!abi)
        variant.notBuiltReason = "the workload " + workload + " has no user-kernel ABI";
    variant.runtimeCheck = device::nvrtcUnavailableReason;
    return variant;
}

} // namespace ks
