// A user's kernel file as a variant: what it is called and when it is unavailable, that every template compiles to a
// cubin and a compile error names the user's file and line (NVRTC, no GPU), and on a GPU that a kernel that does not
// compile, declares a function it does not define or a launch out of range ends as a failed run naming the user's
// file and line, not a crash; the templates' results are checked in test_variants.cpp.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/user_variant.h"
#include "compute/device/device_info.h"
#include "compute/device/nvrtc_loader.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace ks {
namespace {

std::filesystem::path writeKernel(const std::string& name, const std::string& source)
{
    const auto dir = std::filesystem::temp_directory_path() / "kernelscope-test-user-variant";
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << source;
    return path;
}

Summary runOnce(const Variant& variant)
{
    const Workload& workload = *defaultRegistry().find("spmv");
    const auto dataset = workload.generate(ParamSet::parse(workload.generatorParameters(), {{"rows", "100"}}));
    const auto params = ParamSet::parse(workload.parameters(), {});
    Runner runner;
    runner.setCeilingsProvider({});
    RunOptions options;
    options.warmup = 1;
    options.minRepetitions = 2;
    options.maxRepetitions = 2;
    RunRequest request {
        &workload, &variant, dataset, params, options, runner.computeReference(workload, dataset, params), "user"};
    RunObserver none;
    return runner.run(request, none);
}

TEST(UserVariant, IsNamedAfterItsFileAndNamesItsSource)
{
    const Variant v = makeUserVariant("spmv", "/some/where/my_spmv.cu");
    EXPECT_EQ(v.id, "user:my_spmv");
    EXPECT_EQ(v.backend, Backend::Cuda);
    EXPECT_NE(v.technique.find("/some/where/my_spmv.cu"), std::string::npos);
    EXPECT_EQ(userVariantId("a/b/c.cu"), "user:c");
}

TEST(UserVariant, IsUnavailableWithAReasonWhereItCannotRun)
{
    const Variant none = makeUserVariant("cnn", "x.cu");
    EXPECT_FALSE(unavailableReason(none).empty());
    const std::string reason = unavailableReason(makeUserVariant("spmv", "x.cu"));
    if (!device::cudaBuilt()) {
        EXPECT_NE(reason.find("without CUDA"), std::string::npos) << reason;
    } else if (!device::cudaUnavailableReason().empty()) {
        EXPECT_EQ(reason, device::cudaUnavailableReason());
    }
}

TEST(UserKernelBuild, EveryTemplateCompilesToACubinWithItsDeclaration)
{
    if (const auto reason = device::nvrtcUnavailableReason(); !reason.empty())
        GTEST_SKIP() << reason;
    for (const auto& workload : userKernelWorkloads()) {
        const UserKernelAbi& abi = *findUserKernelAbi(workload);
        const auto path = writeKernel(workload + "_template.cu", abi.templateSource);
        const UserKernelBuild build = buildUserKernel(abi, path, {}, "sm_90");
        EXPECT_FALSE(build.code.empty()) << workload;
        EXPECT_FALSE(build.declaration.steps.empty()) << workload;
        EXPECT_EQ(build.label, "user:" + workload + "_template");
    }
}

TEST(UserKernelBuild, ACompileErrorThrowsTheUsersFileAndLineOnePerLine)
{
    if (const auto reason = device::nvrtcUnavailableReason(); !reason.empty())
        GTEST_SKIP() << reason;
    const auto path = writeKernel("two_errors.cu",
        "// kernelscope: kernel=k block=128 grid=ceil(rows/128)\n"
        "extern \"C\" __global__ void k(ks_spmv_args a)\n"
        "{\n"
        "    a.y[0] = first_missing;\n"
        "    a.y[1] = second_missing;\n"
        "}\n");
    try {
        buildUserKernel(*findUserKernelAbi("spmv"), path, {}, "sm_90");
        FAIL() << "compiled";
    } catch (const ComputeError& e) {
        const std::string message = e.what();
        EXPECT_EQ(message.find(path.string() + ":4: error:"), 0u) << message;
        EXPECT_NE(message.find("\n" + path.string() + ":5: error:"), std::string::npos) << message;
    }
}

TEST(UserKernelBuild, ADeclarationErrorThrowsItsLine)
{
    const auto path = writeKernel("bad_declaration.cu",
        "\n// kernelscope: kernel=k block=128 grid=ceil(nonsense/128)\n"
        "extern \"C\" __global__ void k(ks_spmv_args a) { }\n");
    try {
        buildUserKernel(*findUserKernelAbi("spmv"), path, {}, "sm_90");
        FAIL() << "accepted";
    } catch (const ComputeError& e) {
        EXPECT_EQ(std::string(e.what()).find(path.string() + ":2:"), 0u) << e.what();
    }
}

TEST(UserVariant, ACompileErrorFailsTheRunNamingTheUsersFileAndLine)
{
    const auto path = writeKernel("broken.cu",
        "// kernelscope: kernel=k block=128 grid=ceil(rows/128)\n"
        "extern \"C\" __global__ void k(ks_spmv_args a)\n"
        "{\n"
        "    a.y[0] = undeclared_name;\n"
        "}\n");
    const Variant v = makeUserVariant("spmv", path);
    if (const auto reason = unavailableReason(v); !reason.empty())
        GTEST_SKIP() << reason;
    const Summary s = runOnce(v);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_NE(s.message.find(path.string() + ":4:"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("undeclared_name"), std::string::npos) << s.message;
}

TEST(UserVariant, ADeclaredKernelTheFileLacksFailsTheRun)
{
    const auto path = writeKernel("misnamed.cu",
        "// kernelscope: kernel=missing block=128 grid=ceil(rows/128)\n"
        "extern \"C\" __global__ void present(ks_spmv_args a) { }\n");
    const Variant v = makeUserVariant("spmv", path);
    if (const auto reason = unavailableReason(v); !reason.empty())
        GTEST_SKIP() << reason;
    const Summary s = runOnce(v);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_NE(s.message.find(path.string() + ":1: kernel 'missing'"), std::string::npos) << s.message;
}

TEST(UserVariant, ALaunchOutOfRangeFailsTheRunNamingItsLine)
{
    const auto path = writeKernel("too_wide.cu",
        "// kernelscope: kernel=k block=2048 grid=1\n"
        "extern \"C\" __global__ void k(ks_spmv_args a) { }\n");
    const Variant v = makeUserVariant("spmv", path);
    if (const auto reason = unavailableReason(v); !reason.empty())
        GTEST_SKIP() << reason;
    const Summary s = runOnce(v);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_NE(s.message.find(path.string() + ":1:"), std::string::npos) << s.message;
}

} // namespace
} // namespace ks
