// run --kernel: a user kernel's run in a worker process. The supervision (spawn, lines, watchdog, death) is tested
// with fake workers (sh); the protocol round trip with the real kernelscope-cli worker (a skipped run without a GPU,
// a passed one with); a faulty kernel failing cleanly beside a built-in variant and the watchdog ending an infinite
// loop need a GPU and skip here.
#include "cli/worker.h"
#include "cli_fixture.h"
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "compute/core/user_kernel.h"
#include "compute/device/device_info.h"
#include "data/host_memory.h"

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <regex>
#include <thread>

namespace ks::cli {
namespace {

std::vector<std::string> sh(const std::string& script)
{
    return {"/bin/sh", "-c", script};
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class Recorder final : public RunObserver {
public:
    void onSample(const Sample& s) override { samples.push_back(s); }
    std::vector<Sample> samples;
};

TEST(SupervisedProcess, HandsOverEachLineAsItArrives)
{
    std::vector<std::string> lines;
    SupervisedProcess p(sh("cat; printf 'b\\nc'"), 10.0);
    const ProcessEnd end = p.run("a\n", [&](const std::string& l) { lines.push_back(l); });
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Exited);
    EXPECT_EQ(end.exitCode, 0);
    EXPECT_EQ(lines, (std::vector<std::string> {"a", "b", "c"}));
}

TEST(SupervisedProcess, TheWatchdogKillsAProcessThatOutlivesIt)
{
    const auto start = std::chrono::steady_clock::now();
    SupervisedProcess p(sh("sleep 100"), 0.3);
    const ProcessEnd end = p.run("", [](const std::string&) {});
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Watchdog);
    EXPECT_DOUBLE_EQ(end.watchdogS, 0.3);
    EXPECT_LT(secondsSince(start), 5.0);
}

TEST(SupervisedProcess, ALineCanRestartTheWatchdogWithItsOwnLimit)
{
    SupervisedProcess p(sh("echo prepared; sleep 100"), 100.0);
    const ProcessEnd end = p.run("", [&](const std::string&) { p.restartWatchdog(0.2); });
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Watchdog);
    EXPECT_DOUBLE_EQ(end.watchdogS, 0.2);
}

TEST(SupervisedProcess, AClosedStdoutStillWaitsForTheEnd)
{
    SupervisedProcess p(sh("exec 1>&-; sleep 0.3; echo done >&2"), 10.0);
    const ProcessEnd end = p.run("", [](const std::string&) {});
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Exited);
    EXPECT_EQ(end.reason(), "done");
}

TEST(SupervisedProcess, ACrashIsTheSignalThatEndedIt)
{
    SupervisedProcess p(sh("kill -SEGV $$"), 10.0);
    const ProcessEnd end = p.run("", [](const std::string&) {});
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Signalled);
    EXPECT_EQ(end.signal, SIGSEGV);
    EXPECT_NE(end.reason().find("signal 11"), std::string::npos) << end.reason();
}

TEST(SupervisedProcess, TheReasonIsTheLastLineOnStderr)
{
    SupervisedProcess p(
        sh("echo loading >&2; echo 'error: an illegal memory access was encountered' >&2; exit 3"), 10.0);
    const ProcessEnd end = p.run("", [](const std::string&) {});
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Exited);
    EXPECT_EQ(end.exitCode, 3);
    EXPECT_EQ(end.reason(), "error: an illegal memory access was encountered");
}

TEST(SupervisedProcess, StoppingKillsIt)
{
    std::stop_source stop;
    std::jthread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        stop.request_stop();
    });
    SupervisedProcess p(sh("sleep 100"), 100.0);
    EXPECT_EQ(p.run(
                   "", [](const std::string&) {}, stop.get_token())
                  .kind,
        ProcessEnd::Kind::Cancelled);
}

TEST(SupervisedProcess, AProgramThatCannotStartSaysSo)
{
    SupervisedProcess p({"/nonexistent/worker"}, 10.0);
    const ProcessEnd end = p.run("", [](const std::string&) {});
    EXPECT_EQ(end.kind, ProcessEnd::Kind::SpawnFailed);
    EXPECT_NE(end.reason().find("/nonexistent/worker"), std::string::npos) << end.reason();
}

class WorkerParent : public test::CliTest {
protected:
    Summary base() const
    {
        Summary s;
        s.runId = "t-001";
        s.workload = "spmv";
        s.variant = "user:mine";
        s.backend = "cuda";
        s.size = 100;
        return s;
    }
    WorkerRequest request() const
    {
        WorkerRequest r;
        r.workload = "spmv";
        r.generate = "rows=100";
        r.size = 100;
        r.options.minRepetitions = 2;
        r.options.maxRepetitions = 3;
        r.options.timeLimitS = 0.1;
        r.noCalibrate = true;
        r.kernel = path("mine.cu");
        r.runId = "t-001";
        return r;
    }
};

TEST_F(WorkerParent, TheRequestReadsBackAsWritten)
{
    WorkerRequest r = request();
    r.params = {"precision=f64"};
    r.nvrtcOptions = {"-DX=1"};
    r.memoryLimit = 123456789;
    const WorkerRequest back = workerRequestFromJson(toJson(r));
    EXPECT_EQ(toJson(back), toJson(r));
    EXPECT_EQ(back.memoryLimit, 123456789u);
}

TEST_F(WorkerParent, TheWorkerBuildsTheDatasetUnderTheParentsMemoryLimit)
{
    // A 100,000-row generated matrix needs about 10 MiB; under a 1 MiB limit the worker refuses it, naming the limit.
    std::ofstream(path("mine.cu")) << findUserKernelAbi("spmv")->templateSource;
    WorkerRequest r = request();
    r.generate = "rows=100000";
    r.size = 100000;
    r.memoryLimit = 1 << 20;
    Recorder recorder;
    const Summary s = runInWorker({KS_CLI_BINARY, "worker"}, r, base(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Failed) << s.message;
    EXPECT_NE(s.message.find("(--memory-limit)"), std::string::npos) << s.message;
    // Without the limit the same request gets past the dataset (then runs, or is skipped without a GPU).
    r.memoryLimit = 0;
    const Summary free = runInWorker({KS_CLI_BINARY, "worker"}, r, base(), recorder);
    EXPECT_EQ(free.message.find("memory"), std::string::npos) << free.message;
}

TEST_F(WorkerParent, SamplesAreForwardedAndTheSummaryReturned)
{
    Sample sample;
    sample.runId = "t-001";
    sample.variant = "user:mine";
    sample.repetition = 0;
    sample.ms = 1.5;
    Summary done = base();
    done.outcome = Outcome::Passed;
    done.repetitions = 1;
    done.medianMs = 1.5;
    std::ofstream(path("lines")) << nlohmann::ordered_json {{"sample", toJson(sample)}}.dump() << '\n'
                                 << nlohmann::ordered_json {{"prepared", true}}.dump() << '\n'
                                 << nlohmann::ordered_json {{"summary", toJson(done)}}.dump() << '\n';
    Recorder recorder;
    const Summary s = runInWorker(sh("cat >/dev/null; cat " + path("lines")), request(), base(), recorder);
    ASSERT_EQ(recorder.samples.size(), 1u);
    EXPECT_DOUBLE_EQ(recorder.samples[0].ms, 1.5);
    EXPECT_EQ(s.outcome, Outcome::Passed);
    EXPECT_DOUBLE_EQ(s.medianMs, 1.5);
}

TEST_F(WorkerParent, AWorkerThatDiesGivesAFailedRowWithWhatItSaid)
{
    Recorder recorder;
    const Summary s
        = runInWorker(sh("cat >/dev/null; echo 'an illegal memory access was encountered' >&2; kill -ABRT $$"),
            request(), base(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_EQ(s.message, "user:mine: an illegal memory access was encountered");
    EXPECT_EQ(s.runId, "t-001");
}

TEST_F(WorkerParent, ASilentCrashIsNamedBySignal)
{
    Recorder recorder;
    const Summary s = runInWorker(sh("kill -SEGV $$"), request(), base(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_NE(s.message.find("user:mine: killed by signal 11"), std::string::npos) << s.message;
}

TEST_F(WorkerParent, TheWatchdogFailsTheRowAndSaysWhatToDo)
{
    WorkerLimits limits;
    limits.runMarginS = 0.1; // with the request's 0.1 s time limit: 0.3 s once prepared
    Recorder recorder;
    const Summary s
        = runInWorker(sh("echo '{\"prepared\": true}'; sleep 100"), request(), base(), recorder, {}, limits);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_NE(s.message.find("user:mine exceeded the watchdog (0.3 s): killed"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("--time-limit"), std::string::npos) << s.message;
}

TEST_F(WorkerParent, AnUnreadableLineIsNamed)
{
    Recorder recorder;
    const Summary s = runInWorker(sh("echo 'not json'"), request(), base(), recorder);
    EXPECT_EQ(s.outcome, Outcome::Failed);
    EXPECT_NE(s.message.find("unreadable line from the worker"), std::string::npos) << s.message;
}

/// The real worker, as run --kernel starts it: the template passes with a GPU and is skipped with the reason without.
TEST_F(WorkerParent, TheRealWorkerRunsTheTemplate)
{
    std::ofstream(path("mine.cu")) << findUserKernelAbi("spmv")->templateSource;
    Recorder recorder;
    const Summary s = runInWorker({KS_CLI_BINARY, "worker"}, request(), base(), recorder);
    if (const std::string reason = device::cudaUnavailableReason(); !reason.empty()) {
        EXPECT_EQ(s.outcome, Outcome::Skipped) << s.message;
        EXPECT_NE(s.message.find(reason), std::string::npos) << s.message;
        return;
    }
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.variant, "user:mine");
    EXPECT_EQ(recorder.samples.size(), static_cast<std::size_t>(s.repetitions));
    EXPECT_TRUE(s.delta.computed);
}

TEST_F(WorkerParent, TheSweepSendsEachKernelItsOwnOptionsAfterTheOrigins)
{
    // A stand-in worker that keeps the request and dies; the variant is one that can run anywhere, so it is sent.
    setWorkerArgv(sh("cat > " + path("request.json") + "; exit 3"));
    SweepRequest sweep;
    sweep.workload = defaultRegistry().find("spmv");
    sweep.variantIds = {"reference"};
    sweep.generator = {{"rows", "100"}};
    sweep.options.minRepetitions = 1;
    sweep.options.maxRepetitions = 1;
    const SweepPlan plan = planSweep(sweep);
    Variant mine;
    mine.id = "user:mine";
    mine.backend = Backend::Cpu;
    mine.prepare = [](const data::Dataset&, const ParamSet&, const RunContext&) -> std::unique_ptr<PreparedRun> {
        throw std::logic_error("the parent never prepares a user variant");
    };
    DataOrigin origin;
    origin.generate = "rows=100";
    origin.nvrtcOptions = {"-DALL=1"};
    Runner runner;
    runner.setCeilingsProvider({});
    RunObserver silent;
    data::setMemoryLimit(3ULL << 30);
    const std::vector<Summary> rows = runSweepWithUserKernels(
        plan, {{plan.variants[0], {}, {}}, {&mine, path("mine.cu"), {"-DMINE=2"}}}, origin, runner, silent);
    data::setMemoryLimit(0);
    setWorkerArgv({});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].outcome, Outcome::Failed);
    std::ifstream in(path("request.json"));
    const WorkerRequest sent = workerRequestFromJson(nlohmann::ordered_json::parse(in));
    EXPECT_EQ(sent.nvrtcOptions, (std::vector<std::string> {"-DALL=1", "-DMINE=2"}));
    EXPECT_EQ(sent.kernel, path("mine.cu"));
    EXPECT_EQ(sent.generate, "rows=100");
    EXPECT_EQ(sent.size, 100u);
    EXPECT_EQ(sent.memoryLimit, 3ULL << 30) << "the parent's --memory-limit reaches the worker";
}

TEST_F(WorkerParent, TheWorkerRejectsAnUnreadableRequest)
{
    SupervisedProcess p({KS_CLI_BINARY, "worker"}, 60.0);
    const ProcessEnd end = p.run("{}", [](const std::string&) {});
    EXPECT_EQ(end.kind, ProcessEnd::Kind::Exited);
    EXPECT_EQ(end.exitCode, kExitBadInput);
    EXPECT_NE(end.reason().find("unreadable worker request"), std::string::npos) << end.reason();
}

// --- the command line -------------------------------------------------------------------------------------------

class RunKernelCli : public test::CliTest {
protected:
    void SetUp() override
    {
        CliTest::SetUp();
        setWorkerArgv({KS_CLI_BINARY, "worker"});
    }
    void TearDown() override
    {
        setWorkerArgv({});
        CliTest::TearDown();
    }
    std::string templateFile(const std::string& name)
    {
        std::ofstream(path(name)) << findUserKernelAbi("spmv")->templateSource;
        return path(name);
    }
    static std::string userKernel(const std::string& name)
    {
        return std::string(KS_TEST_DATA_DIR) + "/user_kernels/" + name;
    }
    /// The real binary (its worker is itself), stdout and stderr together.
    static std::string binary(const std::string& args, int& code)
    {
        std::string output;
        FILE* pipe = ::popen((std::string(KS_CLI_BINARY) + " " + args + " 2>&1").c_str(), "r");
        std::array<char, 4096> buffer {};
        while (pipe && std::fgets(buffer.data(), buffer.size(), pipe))
            output += buffer.data();
        const int status = pipe ? ::pclose(pipe) : -1;
        code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return output;
    }
};

TEST_F(RunKernelCli, WithoutAGpuTheUserVariantIsSkippedWithTheReason)
{
    const std::string reason = device::cudaUnavailableReason();
    if (reason.empty())
        GTEST_SKIP() << "a GPU is here: the GPU tests below cover it";
    const std::string mine = templateFile("mine.cu");
    EXPECT_EQ(cli({"run", "--workload", "spmv", "--kernel", mine, "--variant", "reference,user:mine", "--generate",
                  "rows=200", "--min-reps", "2", "--max-reps", "3", "--no-calibrate", "--quiet"}),
        kExitOk)
        << m_err.str();
    EXPECT_NE(m_out.str().find("reference"), std::string::npos) << m_out.str();
    EXPECT_TRUE(std::regex_search(m_out.str(), std::regex("user:mine +cuda +200 skipped")));
    EXPECT_NE(m_out.str().find(reason.substr(0, 40)), std::string::npos) << m_out.str();
}

TEST_F(RunKernelCli, UserKernelsNotNamedInVariantRunAfterTheBuiltInOnes)
{
    const std::string mine = templateFile("mine.cu");
    EXPECT_EQ(cli({"run", "--workload", "spmv", "--kernel", mine, "--variant", "reference", "--generate", "rows=100",
                  "--min-reps", "2", "--max-reps", "2", "--no-calibrate", "--quiet", "--csv", path("rows.csv")}),
        kExitOk)
        << m_err.str();
    const std::vector<Summary> rows = readCsv(path("rows.csv"));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].variant, "reference");
    EXPECT_EQ(rows[1].variant, "user:mine");
}

TEST_F(RunKernelCli, ListShowsTheUserVariantWithItsSourcePath)
{
    const std::string mine = templateFile("mine.cu");
    ASSERT_EQ(cli({"list", "--workload", "spmv", "--kernel", mine + "," + path("gone.cu")}), kExitOk) << m_err.str();
    EXPECT_TRUE(std::regex_search(m_out.str(), std::regex("user:mine +cuda +" + mine))) << m_out.str();
    EXPECT_NE(m_out.str().find("user:gone      cuda     " + path("gone.cu") + "  [unavailable: no such file]"),
        std::string::npos)
        << m_out.str();
    if (const std::string reason = device::cudaUnavailableReason(); !reason.empty()) {
        EXPECT_NE(m_out.str().find(mine + "  [unavailable: " + reason), std::string::npos) << m_out.str();
    }
    EXPECT_EQ(cli({"list", "--kernel", mine}), kExitBadInput);
    EXPECT_NE(m_err.str().find("--kernel needs --workload"), std::string::npos) << m_err.str();
}

TEST_F(RunKernelCli, BadKernelArgumentsExitTwoWithOneLine)
{
    const std::string mine = templateFile("mine.cu");
    const std::vector<std::string> common {"--generate", "rows=100", "--no-calibrate", "--quiet"};
    auto run = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"run", "--workload"});
        args.insert(args.end(), common.begin(), common.end());
        return cli(args);
    };
    EXPECT_EQ(run({"spmv", "--kernel", path("gone.cu")}), kExitBadInput);
    EXPECT_NE(m_err.str().find("gone.cu: no such file"), std::string::npos) << m_err.str();
    EXPECT_EQ(run({"spmv", "--kernel", mine, "--variant", "user:other"}), kExitBadInput);
    EXPECT_NE(m_err.str().find("user:other names no --kernel file"), std::string::npos) << m_err.str();
    EXPECT_EQ(run({"cnn", "--kernel", mine}), kExitBadInput);
    EXPECT_NE(m_err.str().find("takes no user kernels"), std::string::npos) << m_err.str();
    EXPECT_EQ(run({"spmv", "--kernel", mine + "," + mine}), kExitBadInput);
    EXPECT_NE(m_err.str().find("both user:mine"), std::string::npos) << m_err.str();
    EXPECT_EQ(run({"spmv", "--kernel", mine, "--decide", "reference,cpu_openmp"}), kExitBadInput);
}

// --- on a GPU: the real binary, its workers real processes ------------------------------------------------------

TEST_F(RunKernelCli, GpuTheTemplatePassesBesideABuiltInVariant)
{
    if (const std::string reason = device::cudaUnavailableReason(); !reason.empty())
        GTEST_SKIP() << reason;
    const std::string mine = templateFile("mine.cu");
    int code = 0;
    const std::string output = binary("run --workload spmv --kernel " + mine
            + " --variant user:mine,scalar --generate rows=100000 --no-calibrate --quiet",
        code);
    EXPECT_EQ(code, kExitOk) << output;
    EXPECT_TRUE(std::regex_search(output, std::regex("user:mine +cuda +100000 passed"))) << output;
    EXPECT_TRUE(std::regex_search(output, std::regex("scalar +cuda +100000 passed"))) << output;
}

TEST_F(RunKernelCli, GpuAnOutOfBoundsWriteFailsOnlyItsOwnRow)
{
    if (const std::string reason = device::cudaUnavailableReason(); !reason.empty())
        GTEST_SKIP() << reason;
    int code = 0;
    const std::string output = binary("run --workload spmv --kernel " + userKernel("spmv_out_of_bounds.cu")
            + " --variant user:spmv_out_of_bounds,scalar --generate rows=100000 --no-calibrate --quiet --json "
            + path("rows.json"),
        code);
    EXPECT_EQ(code, kExitRunProblems) << output;
    const std::vector<Summary> rows = readJson(path("rows.json"));
    ASSERT_EQ(rows.size(), 2u) << output;
    EXPECT_EQ(rows[0].variant, "user:spmv_out_of_bounds");
    EXPECT_EQ(rows[0].outcome, Outcome::Failed) << rows[0].message;
    EXPECT_TRUE(std::regex_search(
        rows[0].message, std::regex("illegal (memory access|address)|IllegalAddress|out of bounds", std::regex::icase)))
        << rows[0].message;
    EXPECT_EQ(rows[1].variant, "scalar");
    EXPECT_EQ(rows[1].outcome, Outcome::Passed) << rows[1].message;
}

TEST_F(RunKernelCli, GpuTheWatchdogEndsAKernelThatNeverReturns)
{
    if (const std::string reason = device::cudaUnavailableReason(); !reason.empty())
        GTEST_SKIP() << reason;
    const auto start = std::chrono::steady_clock::now();
    int code = 0;
    const std::string output = binary("run --workload spmv --kernel " + userKernel("spmv_never_returns.cu")
            + " --variant user:spmv_never_returns,scalar --generate rows=1000 --time-limit 1 --no-calibrate --quiet "
              "--json "
            + path("rows.json"),
        code);
    EXPECT_EQ(code, kExitRunProblems) << output;
    const std::vector<Summary> rows = readJson(path("rows.json"));
    ASSERT_EQ(rows.size(), 2u) << output;
    EXPECT_EQ(rows[0].outcome, Outcome::Failed);
    EXPECT_NE(rows[0].message.find("user:spmv_never_returns exceeded the watchdog (12 s): killed"), std::string::npos)
        << rows[0].message;
    EXPECT_EQ(rows[1].variant, "scalar");
    EXPECT_EQ(rows[1].outcome, Outcome::Passed) << rows[1].message;
    EXPECT_LT(secondsSince(start), 120.0);
}

} // namespace
} // namespace ks::cli
