// The real kernelscope-cli under signals and memory limits: a second Ctrl-C exits at once (the first waits for the
// current repetition, which for a CPU reference can take minutes), and a file that declares more than the process
// may hold is named in a one-line error, exit 2, not a bare std::bad_alloc.
#include "cli/cli.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ks::cli {
namespace {

pid_t spawn(const std::vector<std::string>& argv, const std::string& stderrPath)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
}

/// Waits up to `seconds` for the child; its wait status, or -1 when it is still running (then it is killed).
int waitFor(pid_t pid, double seconds)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (std::chrono::steady_clock::now() < end) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CliSignals : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks-signals-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    std::filesystem::path m_dir;
};

TEST_F(CliSignals, ASecondCtrlCExitsWithinASecond)
{
    // sdh's reference on 400,000 points takes minutes: the first Ctrl-C alone would wait for it.
    const std::string csv = path("out.csv");
    const pid_t pid = spawn({KS_CLI_BINARY, "run", "--workload", "sdh", "--variant", "reference", "--generate",
                                "points=400000", "--no-calibrate", "--csv", csv},
        path("stderr"));
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ASSERT_EQ(kill(pid, SIGINT), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto second = std::chrono::steady_clock::now();
    ASSERT_EQ(kill(pid, SIGINT), 0);
    const int status = waitFor(pid, 5.0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - second).count();
    ASSERT_NE(status, -1) << "still running 5 s after the second Ctrl-C";
    EXPECT_LE(seconds, 1.0);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), kExitCancelled);
    EXPECT_FALSE(std::filesystem::exists(csv)) << "the named output is written only when the run ends";
}

TEST_F(CliSignals, AFileDeclaringMoreThanTheProcessMayHoldIsNamedInOneLine)
{
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: its binaries cannot start under ulimit -v";
#endif
    const std::string mtx = path("huge.mtx");
    std::ofstream(mtx) << "%%MatrixMarket matrix coordinate real general\n5 2147483647 5\n1 1 1\n2 2 1\n3 3 1\n"
                          "4 4 1\n5 5 1\n";
    // 3 GB of address space: the 2^31-column x the generator would make does not fit.
    const std::string script = std::string("ulimit -v 3000000; exec ") + KS_CLI_BINARY
        + " run --workload spmv --variant reference --no-calibrate --input " + mtx;
    const pid_t pid = spawn({"/bin/sh", "-c", script}, path("stderr"));
    ASSERT_GT(pid, 0);
    const int status = waitFor(pid, 60.0);
    ASSERT_NE(status, -1);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), kExitBadInput);
    const std::string err = readAll(path("stderr"));
    const std::string last = err.substr(err.rfind("error:"));
    EXPECT_NE(last.find(mtx), std::string::npos) << err;
    EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1) << err;
    EXPECT_LE(last.size(), 200u + mtx.size()) << err;
}

} // namespace
} // namespace ks::cli
