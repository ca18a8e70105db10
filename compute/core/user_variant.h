#pragma once

// A user's kernel file as a Variant ("bring your own kernel"): id user:<file stem>, compiled with NVRTC for the
// device's exact architecture when prepared, loaded and launched as its `// kernelscope:` lines declare, and checked
// and timed like every built-in variant.

#include "compute/core/user_kernel.h"
#include "compute/core/variant.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ks {

/// What a workload's user run is made from: the compiled code and the parsed declaration.
struct UserKernelBuild {
    std::string code; ///< cubin bytes for the current device
    LaunchDeclaration declaration;
    std::string fileName; ///< as messages name it (the path the user gave)
    std::string label; ///< "user:<stem>", in launch error messages
};

/// Reads, parses and compiles `kernelPath` to a cubin for `arch` (sm_XY) through the process-wide cache; needs NVRTC,
/// no GPU. A declaration or compile error throws ComputeError whose message is one "file:line: …" per line.
UserKernelBuild buildUserKernel(const UserKernelAbi& abi, const std::filesystem::path& kernelPath,
    const std::vector<std::string>& nvrtcOptions, const std::string& arch);

/// "user:<stem>" for a kernel file.
std::string userVariantId(const std::filesystem::path& kernelPath);

/// The variant of `kernelPath` for `workload` (Backend::Cuda). Its prepare reads the file, parses its declaration,
/// compiles it (a process-wide KernelCache in KernelCache::defaultDirectory()) and prepares the workload's run; a
/// declaration or compile error is a ComputeError whose message is one "file:line: …" per line. The variant is
/// unavailable with the reason where CUDA or NVRTC is absent or the workload has no ABI. Only precision f64.
Variant makeUserVariant(
    const std::string& workload, const std::filesystem::path& kernelPath, std::vector<std::string> nvrtcOptions = {});

} // namespace ks
