// A user's own kernel: launch declarations and their formulas, every workload's template compiled by NVRTC to PTX
// (no GPU needed; skipped with the reason where NVRTC is absent), errors on the user's lines, and the cache.
#include "compute/core/errors.h"
#include "compute/core/user_kernel.h"
#include "compute/device/nvrtc_compiler.h"
#include "compute/device/nvrtc_loader.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <unistd.h>

namespace ks {
namespace {

std::int64_t eval(const std::string& text, std::map<std::string, std::int64_t> values = {})
{
    std::vector<std::string> names;
    for (const auto& [name, value] : values)
        names.push_back(name);
    return SizeFormula::parse(text, names).evaluate(values);
}

std::string parseError(const std::string& text, const std::vector<std::string>& names = {"n"})
{
    try {
        SizeFormula::parse(text, names);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

TEST(SizeFormula, Arithmetic)
{
    EXPECT_EQ(eval("1 + 2 * 3"), 7);
    EXPECT_EQ(eval("(1 + 2) * 3"), 9);
    EXPECT_EQ(eval("10 - 4 - 3"), 3);
    EXPECT_EQ(eval("-4 + 6"), 2);
    EXPECT_EQ(eval("ceil(n/256)", {{"n", 1000}}), 4);
    EXPECT_EQ(eval("ceil(n/256)", {{"n", 1024}}), 4);
    EXPECT_EQ(eval("ceil(n/256)", {{"n", 0}}), 0);
    EXPECT_EQ(eval("floor(n/256)", {{"n", 1000}}), 3);
    EXPECT_EQ(eval("n/4*2", {{"n", 6}}), 3); // exact: 6/4 = 3/2, times 2
    EXPECT_EQ(eval("min(ceil(n/256), 4*sm_count)", {{"n", 1 << 30}, {"sm_count", 132}}), 528);
    EXPECT_EQ(eval("max(1, n)", {{"n", 0}}), 1);
    EXPECT_EQ(eval("ceil(-n/2)", {{"n", 3}}), -1);
    EXPECT_EQ(eval("floor(-n/2)", {{"n", 3}}), -2);
}

TEST(SizeFormula, ParseErrorsSayWhat)
{
    EXPECT_NE(parseError("m + 1").find("unknown name 'm' (known: n)"), std::string::npos);
    EXPECT_NE(parseError("sqrt(n)").find("unknown function 'sqrt'"), std::string::npos);
    EXPECT_NE(parseError("min(n)").find("min takes 2 arguments, not 1"), std::string::npos);
    EXPECT_NE(parseError("ceil(n").find("missing ')'"), std::string::npos);
    EXPECT_NE(parseError("n +").find("formula ends too early"), std::string::npos);
    EXPECT_NE(parseError("n $ 2").find("unexpected '$'"), std::string::npos);
    EXPECT_NE(parseError("").find("empty formula"), std::string::npos);
    EXPECT_NE(parseError("99999999999999999999").find("number too large"), std::string::npos);
}

TEST(SizeFormula, EvaluationErrors)
{
    EXPECT_THROW(eval("n / 0", {{"n", 1}}), std::invalid_argument);
    EXPECT_THROW(eval("n * n * n", {{"n", 1LL << 40}}), std::invalid_argument);
    try {
        eval("n / 3", {{"n", 10}});
        FAIL() << "a fraction must not pass";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("10/3, not an integer"), std::string::npos) << e.what();
    }
}

const std::vector<std::string> kLinregNames {"n"};

std::string declarationError(const std::string& source)
{
    try {
        parseLaunchDeclaration(source, "my.cu", kLinregNames);
    } catch (const UserKernelError& e) {
        return e.what();
    }
    return "no error";
}

TEST(LaunchDeclaration, ParsesAnOrderedList)
{
    const std::string source = "// a comment\n"
                               "  //   kernelscope: scratch=4*8\n"
                               "// kernelscope: kernel=sums block=256 grid=min(ceil(n/256), 4*sm_count) shared=0\n"
                               "int x;\n"
                               "// kernelscope: kernel=finish block=1024 grid=1 shared=1024 * 8\n";
    const LaunchDeclaration d = parseLaunchDeclaration(source, "my.cu", kLinregNames);
    ASSERT_EQ(d.steps.size(), 2u);
    EXPECT_EQ(d.steps[0].kernel, "sums");
    EXPECT_EQ(d.steps[0].line, 3);
    EXPECT_EQ(d.steps[0].grid.text(), "min(ceil(n/256), 4*sm_count)");
    EXPECT_EQ(d.steps[1].kernel, "finish");
    EXPECT_EQ(d.steps[1].shared.text(), "1024 * 8");
    EXPECT_EQ(d.scratchLine, 2);

    const LaunchPlan plan = evaluateLaunches(d, {{"n", 1000000}, {"sm_count", 132}}, "my.cu");
    EXPECT_EQ(plan.scratchBytes, 32u);
    ASSERT_EQ(plan.launches.size(), 2u);
    EXPECT_EQ(plan.launches[0].grid, 528u);
    EXPECT_EQ(plan.launches[0].block, 256u);
    EXPECT_EQ(plan.launches[0].shared, 0u);
    EXPECT_EQ(plan.launches[1].grid, 1u);
    EXPECT_EQ(plan.launches[1].block, 1024u);
    EXPECT_EQ(plan.launches[1].shared, 8192u);

    const LaunchPlan empty = evaluateLaunches(d, {{"n", 0}, {"sm_count", 132}}, "my.cu");
    EXPECT_EQ(empty.launches[0].grid, 0u) << "an empty problem skips the launch";
}

TEST(LaunchDeclaration, MalformedLinesNameFileAndLine)
{
    EXPECT_EQ(declarationError("int x;\n"),
        "my.cu: no launch declaration: add a line such as '// kernelscope: kernel=my_kernel block=256 "
        "grid=ceil(n/256)' (see kernelscope-cli new-kernel)");
    EXPECT_EQ(declarationError("\n// kernelscope: kernel=a block=256\n"), "my.cu:2: missing grid=");
    EXPECT_EQ(declarationError("// kernelscope: kernel=a block=256 grid=1 threads=4\n"),
        "my.cu:1: unknown key 'threads' (known: kernel, block, grid, shared, scratch)");
    EXPECT_EQ(declarationError("// kernelscope: kernel=a block=256 grid=1 grid=2\n"), "my.cu:1: 'grid' given twice");
    EXPECT_EQ(declarationError("// kernelscope: kernel=9a block=256 grid=1\n"),
        "my.cu:1: kernel name '9a' is not an identifier");
    EXPECT_EQ(declarationError("// kernelscope: block\n"), "my.cu:1: expected key=value, found 'block'");
    EXPECT_EQ(declarationError("// kernelscope: scratch=8 kernel=a block=1 grid=1\n"),
        "my.cu:1: scratch= goes on a line of its own");
    EXPECT_EQ(declarationError("// kernelscope: scratch=8\n// kernelscope: scratch=16\n"),
        "my.cu:2: scratch is already declared on line 1");
    EXPECT_EQ(declarationError("// kernelscope:\n"), "my.cu:1: empty kernelscope declaration");
}

TEST(LaunchDeclaration, FormulaErrorsNameFileLineAndKey)
{
    EXPECT_EQ(declarationError("\n\n// kernelscope: kernel=a block=256 grid=ceil(rows/256)\n"),
        "my.cu:3: grid: unknown name 'rows' (known: n, sm_count) at column 6 of 'ceil(rows/256)'");
    EXPECT_EQ(declarationError("// kernelscope: kernel=a block=256 grid=min(n)\n"),
        "my.cu:1: grid: min takes 2 arguments, not 1 at column 1 of 'min(n)'");

    const LaunchDeclaration d = parseLaunchDeclaration(
        "// kernelscope: kernel=a block=2048 grid=n/3\n// kernelscope: kernel=b block=32 grid=n/3\n", "my.cu",
        kLinregNames);
    try {
        evaluateLaunches(d, {{"n", 9}, {"sm_count", 1}}, "my.cu");
        FAIL() << "block 2048 must not pass";
    } catch (const UserKernelError& e) {
        EXPECT_EQ(std::string(e.what()), "my.cu:1: block = 2048 ('2048') is outside 1 … 1024");
    }
    const LaunchDeclaration fraction
        = parseLaunchDeclaration("// kernelscope: kernel=b block=32 grid=n/3\n", "my.cu", kLinregNames);
    try {
        evaluateLaunches(fraction, {{"n", 10}, {"sm_count", 1}}, "my.cu");
        FAIL() << "a fractional grid must not pass";
    } catch (const UserKernelError& e) {
        EXPECT_EQ(std::string(e.what()), "my.cu:1: grid: 'n/3' is 10/3, not an integer (round it with ceil or floor)");
    }
}

TEST(UserKernelAbi, EveryWorkloadHasOneWithAParsableTemplate)
{
    for (const std::string& workload : userKernelWorkloads()) {
        SCOPED_TRACE(workload);
        const UserKernelAbi* abi = findUserKernelAbi(workload);
        ASSERT_NE(abi, nullptr);
        EXPECT_EQ(abi->workload, workload);
        EXPECT_NE(abi->header.find("struct " + abi->argsType), std::string::npos);
        const LaunchDeclaration d = parseLaunchDeclaration(abi->templateSource, "template.cu", abi->sizeNames);
        EXPECT_FALSE(d.steps.empty());
    }
    EXPECT_EQ(findUserKernelAbi("cnn"), nullptr);
}

TEST(UserKernelAbi, ProgramMapsLinesToTheUsersFile)
{
    const UserKernelAbi& abi = *findUserKernelAbi("spmv");
    const std::string program = userKernelProgram(abi, "line one\n", "dir/my \"odd\".cu");
    const std::string tail = "#line 1 \"dir/my \\\"odd\\\".cu\"\nline one\n";
    ASSERT_GT(program.size(), tail.size());
    EXPECT_EQ(program.substr(program.size() - tail.size()), tail);
    EXPECT_NE(
        program.find("static_assert(sizeof(ks_spmv_args) == " + std::to_string(abi.argsBytes)), std::string::npos);
    EXPECT_EQ(program.find("#line 1 \"kernelscope_spmv_abi.h\"\n"), 0u);
}

// ---------------------------------------------------------------------------------------------------------------
// NVRTC

class Nvrtc : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (const std::string reason = device::nvrtcUnavailableReason(); !reason.empty())
            GTEST_SKIP() << reason;
    }

    static device::CompileRequest request(const std::string& workload, const std::string& source,
        const std::string& file = "my.cu", std::vector<std::string> options = {})
    {
        device::CompileRequest r;
        r.program = userKernelProgram(*findUserKernelAbi(workload), source, file);
        r.programName = file;
        r.arch = "sm_90";
        r.extraOptions = std::move(options);
        return r;
    }
};

TEST_F(Nvrtc, EveryTemplateCompilesToPtxWithItsDeclaredEntryPoints)
{
    EXPECT_FALSE(device::nvrtcVersion().empty());
    for (const std::string& workload : userKernelWorkloads()) {
        SCOPED_TRACE(workload);
        const UserKernelAbi& abi = *findUserKernelAbi(workload);
        const device::CompiledKernel k = device::compileWithNvrtc(request(workload, abi.templateSource, "template.cu"));
        ASSERT_TRUE(k.ok) << k.log;
        EXPECT_TRUE(k.diagnostics.empty()) << k.log; // not even a warning
        EXPECT_NE(k.code.find(".target sm_90"), std::string::npos);
        for (const LaunchStep& step : parseLaunchDeclaration(abi.templateSource, "template.cu", abi.sizeNames).steps) {
            EXPECT_TRUE(std::regex_search(k.code, std::regex("\\.entry\\s+" + step.kernel + "\\s*\\(")))
                << step.kernel << " is not an unmangled entry point";
            // The one parameter is the argument struct, as many bytes as the host mirror a run will pass.
            std::smatch m;
            ASSERT_TRUE(std::regex_search(k.code, m, std::regex(step.kernel + "_param_0\\[([0-9]+)\\]")));
            EXPECT_EQ(std::stoul(m[1].str()), abi.argsBytes) << step.kernel;
        }
    }
}

TEST_F(Nvrtc, TemplatesBuildAsCubinToo)
{
    device::CompileRequest r = request("lrv", findUserKernelAbi("lrv")->templateSource);
    r.kind = device::CodeKind::Cubin;
    const device::CompiledKernel k = device::compileWithNvrtc(r);
    ASSERT_TRUE(k.ok) << k.log;
    EXPECT_EQ(k.code.substr(0, 4),
        std::string("\x7f"
                    "ELF"));
}

TEST_F(Nvrtc, ASyntaxErrorIsReportedOnTheUsersLine)
{
    const std::string source = "// kernelscope: kernel=k block=256 grid=ceil(n/256)\n" // 1
                               "\n" // 2
                               "extern \"C\" __global__ void k(ks_linreg_args a)\n" // 3
                               "{\n" // 4
                               "    const unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;\n" // 5
                               "    if (i < a.n)\n" // 6
                               "        a.fit[0] = a.x[i] +\n" // 7
                               "}\n"; // 8
    const device::CompiledKernel k = device::compileWithNvrtc(request("linreg", source));
    EXPECT_FALSE(k.ok);
    ASSERT_FALSE(k.diagnostics.empty()) << k.log;
    const device::CompileDiagnostic& first = k.diagnostics.front();
    EXPECT_EQ(first.file, "my.cu");
    EXPECT_GE(first.line, 7) << k.log;
    EXPECT_LE(first.line, 8) << k.log;
    EXPECT_EQ(first.severity, "error");
    EXPECT_EQ(first.text().rfind("my.cu:" + std::to_string(first.line) + ": error: ", 0), 0u) << first.text();
}

TEST_F(Nvrtc, AnErrorOnLineSevenSaysLineSeven)
{
    std::string source;
    for (int line = 1; line <= 6; ++line)
        source += "// line " + std::to_string(line) + "\n";
    source += "__device__ int broken = ;\n";
    const device::CompiledKernel k = device::compileWithNvrtc(request("sdh", source, "kernels/my.cu"));
    ASSERT_FALSE(k.ok);
    ASSERT_EQ(k.diagnostics.size(), 1u) << k.log;
    EXPECT_EQ(k.diagnostics[0].file, "kernels/my.cu");
    EXPECT_EQ(k.diagnostics[0].line, 7);
    EXPECT_NE(k.log.find("kernels/my.cu(7)"), std::string::npos) << k.log;
}

TEST_F(Nvrtc, WarningsAreDiagnosticsButNotErrors)
{
    const std::string source = "extern \"C\" __global__ void k(ks_linreg_args a)\n{\n    int unused;\n}\n";
    const device::CompiledKernel k = device::compileWithNvrtc(request("linreg", source));
    EXPECT_TRUE(k.ok) << k.log;
    EXPECT_FALSE(k.hasErrors());
    ASSERT_EQ(k.diagnostics.size(), 1u) << k.log;
    EXPECT_EQ(k.diagnostics[0].severity, "warning");
    EXPECT_EQ(k.diagnostics[0].line, 3);
}

TEST_F(Nvrtc, ABadOptionIsACompileErrorNotACrash)
{
    const device::CompiledKernel k = device::compileWithNvrtc(
        request("spmv", findUserKernelAbi("spmv")->templateSource, "my.cu", {"--no-such-flag"}));
    EXPECT_FALSE(k.ok);
    ASSERT_FALSE(k.diagnostics.empty());
    EXPECT_TRUE(k.hasErrors());
}

TEST_F(Nvrtc, OptionsPutKernelScopesFirst)
{
    device::CompileRequest r = request("spmv", "", "my.cu", {"-DX=1"});
    EXPECT_EQ(device::nvrtcOptions(r),
        (std::vector<std::string> {"--gpu-architecture=compute_90", "-lineinfo", "--std=c++17", "-DX=1"}));
    r.kind = device::CodeKind::Cubin;
    r.arch = "sm_90a";
    EXPECT_EQ(device::nvrtcOptions(r).front(), "--gpu-architecture=sm_90a");
    r.arch = "compute_90";
    EXPECT_THROW(device::nvrtcOptions(r), ComputeError);
}

TEST_F(Nvrtc, CacheHitsOnTheSameRequestAndMissesOnChangedOptions)
{
    const std::filesystem::path dir
        = std::filesystem::temp_directory_path() / ("ks_kernel_cache_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const device::CompileRequest r = request("spmv", findUserKernelAbi("spmv")->templateSource);
    {
        device::KernelCache cache(dir);
        const device::CompiledKernel first = cache.compile(r);
        ASSERT_TRUE(first.ok) << first.log;
        EXPECT_FALSE(first.cacheHit);
        const device::CompiledKernel second = cache.compile(r);
        EXPECT_TRUE(second.cacheHit);
        EXPECT_EQ(second.code, first.code);

        device::CompileRequest changed = r;
        changed.extraOptions = {"--use_fast_math"};
        EXPECT_FALSE(cache.compile(changed).cacheHit);
        device::CompileRequest otherArch = r;
        otherArch.arch = "sm_80";
        EXPECT_FALSE(cache.compile(otherArch).cacheHit);
        device::CompileRequest otherSource = r;
        otherSource.program += "\n";
        EXPECT_FALSE(cache.compile(otherSource).cacheHit);
        EXPECT_EQ(cache.hits(), 1u);
        EXPECT_EQ(cache.misses(), 4u);
    }
    // A new cache (another process) finds the entry on disk.
    device::KernelCache fresh(dir);
    const device::CompiledKernel fromDisk = fresh.compile(r);
    EXPECT_TRUE(fromDisk.cacheHit);
    EXPECT_TRUE(fromDisk.ok);
    EXPECT_NE(fromDisk.code.find(".entry row_per_thread"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_F(Nvrtc, FailedCompilationsAreNotCached)
{
    device::KernelCache cache;
    const device::CompileRequest r = request("linreg", "__device__ int broken = ;\n");
    EXPECT_FALSE(cache.compile(r).ok);
    const device::CompiledKernel again = cache.compile(r);
    EXPECT_FALSE(again.ok);
    EXPECT_FALSE(again.cacheHit);
    EXPECT_EQ(cache.hits(), 0u);
}

TEST(NvrtcLog, ParsesLocatedAndUnlocatedMessages)
{
    const std::string log = "my.cu(7): error: expected an expression\n"
                            "    int broken = ;\n"
                            "                 ^\n"
                            "\n"
                            "my.cu(3): warning #177-D: variable \"unused\" was declared but never referenced\n"
                            "a (b).cu(12): catastrophic error: cannot open source file \"x.h\"\n"
                            "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
                            "1 error detected in the compilation of \"my.cu\".\n";
    const auto d = device::parseNvrtcLog(log);
    ASSERT_EQ(d.size(), 4u);
    EXPECT_EQ(d[0].text(), "my.cu:7: error: expected an expression");
    EXPECT_EQ(d[1].text(), "my.cu:3: warning: variable \"unused\" was declared but never referenced");
    EXPECT_EQ(d[2].text(), "a (b).cu:12: catastrophic error: cannot open source file \"x.h\"");
    EXPECT_EQ(d[3].text(), "nvrtc: error: invalid value for --gpu-architecture (-arch)");
}

} // namespace
} // namespace ks
