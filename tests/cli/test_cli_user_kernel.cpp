// kernelscope-cli new-kernel and compile: every template printed and compiled (NVRTC, no GPU needed; skipped with the
// reason where NVRTC is absent), errors on the user's lines, exit codes, and the cache.
#include "cli/cli.h"
#include "cli_fixture.h"
#include "compute/core/user_kernel.h"
#include "compute/device/nvrtc_loader.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

namespace ks::cli {
namespace {

class UserKernelCli : public test::CliTest {
protected:
    static void requireNvrtc()
    {
        if (const std::string reason = device::nvrtcUnavailableReason(); !reason.empty())
            GTEST_SKIP() << reason;
    }
    std::string write(const std::string& name, const std::string& text)
    {
        std::ofstream(path(name)) << text;
        return path(name);
    }
    int compile(const std::string& workload, const std::string& file, std::vector<std::string> extra = {})
    {
        std::vector<std::string> args {
            "compile", "--workload", workload, "--kernel", file, "--cache-dir", path("cache")};
        args.insert(args.end(), extra.begin(), extra.end());
        return cli(args);
    }
};

TEST_F(UserKernelCli, NewKernelPrintsEachWorkloadsTemplate)
{
    for (const std::string& workload : userKernelWorkloads()) {
        SCOPED_TRACE(workload);
        EXPECT_EQ(cli({"new-kernel", "--workload", workload}), kExitOk) << m_err.str();
        EXPECT_EQ(m_out.str(), findUserKernelAbi(workload)->templateSource);
        EXPECT_NE(m_out.str().find("// kernelscope: kernel="), std::string::npos);
        EXPECT_NE(m_out.str().find("extern \"C\" __global__"), std::string::npos);
    }
}

TEST_F(UserKernelCli, TemplatesWithSeveralKernelsDeclareThemInOrder)
{
    ASSERT_EQ(cli({"new-kernel", "--workload", "linreg"}), kExitOk);
    const std::string linreg = m_out.str();
    EXPECT_LT(linreg.find("kernel=block_sums"), linreg.find("kernel=fit_from_sums"));
    ASSERT_EQ(cli({"new-kernel", "--workload", "lrv"}), kExitOk);
    const std::string lrv = m_out.str();
    EXPECT_LT(lrv.find("kernel=centre_logs"), lrv.find("kernel=pair_variances"));
}

TEST_F(UserKernelCli, NewKernelRejectsAWorkloadWithoutAnAbi)
{
    EXPECT_EQ(cli({"new-kernel", "--workload", "cnn"}), kExitBadInput);
    EXPECT_EQ(m_err.str(), "error: workload 'cnn' takes no user kernels (those that do: linreg, lrv, sdh, spmv)\n");
    EXPECT_TRUE(m_out.str().empty());
}

TEST_F(UserKernelCli, EveryTemplateCompiles)
{
    requireNvrtc();
    for (const std::string& workload : userKernelWorkloads()) {
        SCOPED_TRACE(workload);
        const std::string file = write(workload + ".cu", findUserKernelAbi(workload)->templateSource);
        EXPECT_EQ(compile(workload, file, {"--arch", "sm_80"}), kExitOk) << m_err.str();
        EXPECT_EQ(m_out.str().rfind(file + ": compiled for sm_80 with NVRTC ", 0), 0u) << m_out.str();
        EXPECT_NE(m_out.str().find("  1. "), std::string::npos);
        EXPECT_TRUE(m_err.str().empty()) << m_err.str();
    }
}

TEST_F(UserKernelCli, ASecondCompileIsCachedAndChangedOptionsAreNot)
{
    requireNvrtc();
    const std::string file = write("my.cu", findUserKernelAbi("spmv")->templateSource);
    ASSERT_EQ(compile("spmv", file), kExitOk) << m_err.str();
    EXPECT_EQ(m_out.str().find(", cached)"), std::string::npos);
    ASSERT_EQ(compile("spmv", file), kExitOk) << m_err.str();
    EXPECT_NE(m_out.str().find(", cached)"), std::string::npos) << m_out.str();
    ASSERT_EQ(compile("spmv", file, {"--nvrtc-opt=-DUNUSED=1", "--nvrtc-opt=--use_fast_math"}), kExitOk) << m_err.str();
    EXPECT_EQ(m_out.str().find(", cached)"), std::string::npos) << m_out.str();
}

TEST_F(UserKernelCli, WritesThePtx)
{
    requireNvrtc();
    const std::string file = write("my.cu", findUserKernelAbi("sdh")->templateSource);
    ASSERT_EQ(compile("sdh", file, {"--output", path("my.ptx")}), kExitOk) << m_err.str();
    std::ifstream in(path("my.ptx"));
    std::ostringstream ptx;
    ptx << in.rdbuf();
    EXPECT_NE(ptx.str().find(".entry pairs_of_point"), std::string::npos);
}

TEST_F(UserKernelCli, ASyntaxErrorOnLineSevenNamesTheFileAndLineAndExits2)
{
    requireNvrtc();
    const std::string file = write("my.cu",
        "// kernelscope: kernel=k block=256 grid=ceil(rows/256)\n" // 1
        "\n" // 2
        "extern \"C\" __global__ void k(ks_spmv_args a)\n" // 3
        "{\n" // 4
        "    const int row = blockIdx.x * blockDim.x + threadIdx.x;\n" // 5
        "    if (row < a.rows)\n" // 6
        "        a.y[row] = 1.0 +;\n" // 7
        "}\n");
    EXPECT_EQ(compile("spmv", file), kExitBadInput);
    EXPECT_EQ(m_err.str().rfind(file + ":7: error: ", 0), 0u) << m_err.str();
    EXPECT_TRUE(m_out.str().empty());
    // One message a line, none from KernelScope's header.
    std::istringstream lines(m_err.str());
    for (std::string line; std::getline(lines, line);)
        EXPECT_EQ(line.rfind(file + ":", 0), 0u) << line;
}

TEST_F(UserKernelCli, DeclarationProblemsExit2)
{
    requireNvrtc();
    const std::string noDeclaration = write("none.cu", "extern \"C\" __global__ void k(ks_linreg_args a) { }\n");
    EXPECT_EQ(compile("linreg", noDeclaration), kExitBadInput);
    EXPECT_NE(m_err.str().find(noDeclaration + ": no launch declaration"), std::string::npos) << m_err.str();

    const std::string badFormula = write("formula.cu",
        "// kernelscope: kernel=k block=256 grid=ceil(rows/256)\n"
        "extern \"C\" __global__ void k(ks_linreg_args a) { }\n");
    EXPECT_EQ(compile("linreg", badFormula), kExitBadInput);
    EXPECT_NE(m_err.str().find(badFormula + ":1: grid: unknown name 'rows' (known: n, sm_count)"), std::string::npos)
        << m_err.str();

    const std::string missingKernel = write("missing.cu",
        "// kernelscope: kernel=k block=256 grid=1\n"
        "// kernelscope: kernel=finish block=1 grid=1\n"
        "extern \"C\" __global__ void k(ks_linreg_args a) { }\n");
    EXPECT_EQ(compile("linreg", missingKernel), kExitBadInput);
    EXPECT_EQ(m_err.str(),
        missingKernel
            + ":2: kernel 'finish' is declared here but the file defines no extern \"C\" __global__ function of that "
              "name\n");
}

TEST_F(UserKernelCli, BadArgumentsExit2)
{
    EXPECT_EQ(compile("linreg", path("absent.cu")), kExitBadInput);
    EXPECT_EQ(m_err.str(), "error: " + path("absent.cu") + ": no such file\n");
    EXPECT_EQ(compile("cnn", path("absent.cu")), kExitBadInput);
    const std::string file = write("my.cu", findUserKernelAbi("linreg")->templateSource);
    EXPECT_EQ(compile("linreg", file, {"--arch", "compute_90"}), kExitBadInput);
    EXPECT_EQ(m_err.str(), "error: --arch compute_90 is not an architecture such as sm_90\n");
    EXPECT_EQ(cli({"compile", "--workload", "linreg"}), kExitBadInput);
}

} // namespace
} // namespace ks::cli
