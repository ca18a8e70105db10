// Output files are never destroyed or half-written: a target that is not a regular file is refused before anything
// runs and left exactly as it was; every output goes to a temporary file beside it, renamed over it at the end (also
// after Ctrl-C or a failed run), so a killed run leaves the old file and its own partial rows apart; a full disk is
// said once and neither fails the run just measured nor stops the sweep or the other outputs.
#include "cli/cli.h"
#include "cli_fixture.h"
#include "compute/core/atomic_file.h"
#include "compute/core/results_io.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sstream>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ks::cli {
namespace {

namespace fs = std::filesystem;

class CliOutputs : public test::CliTest {
protected:
    void TearDown() override
    {
        if (!m_mount.empty())
            ::umount2(m_mount.c_str(), MNT_DETACH);
        test::CliTest::TearDown();
    }

    /// A small sweep that runs in well under a second, writing whatever `extra` names.
    int sweep(std::vector<std::string> extra)
    {
        std::vector<std::string> args {"run", "-w", "linreg", "-v", "reference,cpu_four_sums", "-g", "n=1000", "-s",
            "16..4096", "--min-reps", "2", "--max-reps", "2", "--no-calibrate", "-q"};
        args.insert(args.end(), extra.begin(), extra.end());
        return cli(args);
    }

    /// Files in the scratch folder whose names start with `prefix` (temporary files are hidden: ".NAME.kernelscope-").
    std::vector<std::string> filesStartingWith(const std::string& prefix, const fs::path& folder = {}) const
    {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(folder.empty() ? m_dir : folder))
            if (entry.path().filename().string().rfind(prefix, 0) == 0)
                names.push_back(entry.path().filename().string());
        return names;
    }

    std::string m_mount;
};

std::string contentOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::size_t countOf(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

struct Identity {
    dev_t device = 0;
    ino_t inode = 0;
    mode_t mode = 0;
    dev_t rdev = 0;
    bool operator==(const Identity&) const = default;
};

Identity identityOf(const std::string& path)
{
    struct stat info { };
    EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
    return {info.st_dev, info.st_ino, info.st_mode, info.st_rdev};
}

TEST_F(CliOutputs, DeviceNodesAreRefusedBeforeAnythingRunsAndLeftIntact)
{
    for (const char* device : {"/dev/null", "/dev/full"}) {
        const Identity before = identityOf(device);
        ASSERT_TRUE(S_ISCHR(before.mode)) << device;
        for (const char* option : {"--csv", "--json", "--output"}) {
            SCOPED_TRACE(std::string(option) + " " + device);
            std::vector<std::string> args {"run", "-w", "linreg", "-g", "n=100", "-s", "10", "--no-calibrate", "-q"};
            if (std::string(option) == "--output")
                args.insert(args.end(), {"-v", "reference"});
            args.insert(args.end(), {option, device});
            EXPECT_EQ(cli(args), kExitBadInput);
            EXPECT_EQ(m_err.str(),
                "error: " + std::string(option) + " " + device + ": a character device, not a regular file\n");
            EXPECT_EQ(m_out.str(), "") << "nothing may run before the outputs are checked";
            EXPECT_TRUE(identityOf(device) == before) << device << " was replaced";
        }
        // --force follows symbolic links, never replaces a device, also through a link.
        const std::string link = path("to-device.csv");
        fs::create_symlink(device, link);
        EXPECT_EQ(sweep({"--csv", link, "--force"}), kExitBadInput);
        EXPECT_NE(
            m_err.str().find("a symbolic link to " + std::string(device) + ", a character device"), std::string::npos)
            << m_err.str();
        EXPECT_TRUE(identityOf(device) == before) << device << " was replaced";
        EXPECT_TRUE(fs::is_symlink(link));
        fs::remove(link);
    }
}

TEST_F(CliOutputs, FifoFolderAndSocketAreRefusedAndLeftAsTheyWere)
{
    const std::string fifo = path("fifo.csv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const std::string folder = path("folder.csv");
    fs::create_directory(folder);
    const std::string socketPath = path("socket.csv");
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(sock, 0);
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    ASSERT_LT(socketPath.size(), sizeof address.sun_path);
    std::copy(socketPath.begin(), socketPath.end(), address.sun_path);
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);

    const std::pair<std::string, std::string> cases[] = {
        {fifo, "a FIFO (named pipe), not a regular file"},
        {folder, "a folder, not a regular file"},
        {socketPath, "a socket, not a regular file"},
    };
    for (const auto& [target, what] : cases)
        for (const char* option : {"--csv", "--json"}) {
            SCOPED_TRACE(std::string(option) + " " + target);
            const Identity before = identityOf(target);
            // A FIFO opened for writing would block this test forever: refusing it must not open it.
            EXPECT_EQ(sweep({option, target}), kExitBadInput);
            EXPECT_EQ(m_err.str(), "error: " + std::string(option) + " " + target + ": " + what + "\n");
            EXPECT_EQ(m_out.str(), "");
            EXPECT_TRUE(identityOf(target) == before);
            // --force is about links only: a FIFO, folder or socket is refused with it too.
            EXPECT_EQ(sweep({option, target, "--force"}), kExitBadInput);
            EXPECT_TRUE(identityOf(target) == before);
        }
    EXPECT_TRUE(fs::is_empty(folder));
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>()) << "no temporary file is left behind";
    ::close(sock);
}

TEST_F(CliOutputs, SymbolicLinkIsRefusedUnlessForcedAndThenWrittenThrough)
{
    const std::string real = path("real.csv");
    const std::string link = path("link.csv");
    writeText(real, "old\n");
    fs::create_symlink("real.csv", link);

    EXPECT_EQ(sweep({"--csv", link}), kExitBadInput);
    EXPECT_EQ(m_err.str(),
        "error: --csv " + link
            + ": a symbolic link to real.csv: refused without --force (which writes to the file it leads to)\n");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(contentOf(real), "old\n");

    ASSERT_EQ(sweep({"--csv", link, "--force"}), kExitOk) << m_err.str();
    EXPECT_TRUE(fs::is_symlink(link)) << "the link itself stays";
    EXPECT_EQ(readCsv(real).size(), 18u);
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
}

TEST_F(CliOutputs, BadPathsAreFoundBeforeTheSweep)
{
    writeText(path("data.csv"), "x,y\n1,2\n2,4\n3,7\n");
    const struct {
        std::vector<std::string> args;
        std::string expected;
    } cases[] = {
        {{"--json", path("nowhere/r.json")},
            "--json " + path("nowhere/r.json") + ": no such folder " + path("nowhere")},
        {{"--csv", path("nowhere/r.csv")}, "--csv " + path("nowhere/r.csv") + ": no such folder " + path("nowhere")},
        {{"-v", "reference", "-s", "10", "--output", path("r.txt")},
            "--output " + path("r.txt") + ": unknown output format '.txt' (use .csv, .h5 or .hdf5)"},
        {{"--csv", path("same.csv"), "--json", path("same.csv")},
            "--csv and --json both name " + path("same.csv") + ": give each its own file"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.expected);
        std::vector<std::string> args {"run", "-w", "linreg", "-g", "n=100", "--no-calibrate", "-q"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        EXPECT_EQ(cli(args), kExitBadInput);
        EXPECT_EQ(m_err.str(), "error: " + c.expected + "\n");
        EXPECT_EQ(m_out.str(), "") << "refused before the sweep, not after it";
    }
    // An output that would replace the run's own input.
    EXPECT_EQ(cli({"run", "-w", "linreg", "-i", path("data.csv"), "--csv", path("data.csv"), "-q"}), kExitBadInput);
    EXPECT_EQ(
        m_err.str(), "error: --csv " + path("data.csv") + " is an input of this run: write the results elsewhere\n");
    EXPECT_EQ(contentOf(path("data.csv")), "x,y\n1,2\n2,4\n3,7\n");
    EXPECT_FALSE(fs::exists(path("same.csv")));
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
}

TEST_F(CliOutputs, OldFilesAreReplacedWholeKeepingTheirPermissions)
{
    for (const char* name : {"r.csv", "r.json", "o.csv"})
        writeText(path(name), "old\n");
    fs::permissions(path("r.csv"), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    ASSERT_EQ(sweep({"--csv", path("r.csv"), "--json", path("r.json")}), kExitOk) << m_err.str();
    EXPECT_EQ(readCsv(path("r.csv")).size(), 18u);
    EXPECT_EQ(readJson(path("r.json")).size(), 18u);
    EXPECT_EQ(fs::status(path("r.csv")).permissions() & fs::perms::all,
        fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    ASSERT_EQ(cli({"run", "-w", "linreg", "-v", "reference", "-g", "n=100", "-s", "10", "--no-calibrate", "-q",
                  "--output", path("o.csv")}),
        kExitOk)
        << m_err.str();
    EXPECT_EQ(contentOf(path("o.csv")).rfind("quantity,value\nslope,", 0), 0u) << contentOf(path("o.csv"));
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
}

TEST_F(CliOutputs, CancelledRunStillPutsWhatWasMeasuredInPlace)
{
    writeText(path("r.csv"), "old\n");
    writeText(path("r.json"), "old\n");
    std::stop_source stop;
    // Ctrl-C while the sweep runs: as soon as the live rows show a run finished.
    std::jthread interrupt([&](std::stop_token own) {
        while (!own.stop_requested()) {
            for (const std::string& name : filesStartingWith(".r.csv.kernelscope-"))
                if (countOf(contentOf(path(name)), "\n") >= 2) {
                    stop.request_stop();
                    return;
                }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    m_out.str("");
    m_err.str("");
    const int code = runCli({"run", "-w", "linreg", "-v", "reference,cpu_four_sums", "-g", "n=1000", "-s", "16..4096",
                                "--min-reps", "1000000", "--max-reps", "1000000", "--noise", "1e-9", "--time-limit",
                                "0.2", "--no-calibrate", "-q", "--csv", path("r.csv"), "--json", path("r.json")},
        m_out, m_err, stop.get_token());
    interrupt.request_stop();
    EXPECT_EQ(code, kExitCancelled) << m_err.str();
    const std::vector<Summary> rows = readCsv(path("r.csv"));
    ASSERT_GE(rows.size(), 1u);
    EXPECT_LT(rows.size(), 18u);
    EXPECT_EQ(readJson(path("r.json")).size(), rows.size());
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
}

TEST_F(CliOutputs, KilledRunLeavesTheOldFilesAndItsLiveRowsApart)
{
    writeText(path("k.csv"), "old csv\n");
    writeText(path("k.json"), "old json\n");
    std::vector<std::string> args {KS_CLI_BINARY, "run", "-w", "linreg", "-v", "reference,cpu_four_sums", "-g",
        "n=1000", "-s", "16..1048576", "--min-reps", "1000000", "--max-reps", "1000000", "--noise", "1e-9",
        "--time-limit", "0.2", "--no-calibrate", "-q", "--csv", path("k.csv"), "--json", path("k.json")};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);

    // The live rows are in the temporary file beside the target, a whole row at a time (tail -f shows them).
    std::string live;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
        const auto temporary = filesStartingWith(".k.csv.kernelscope-");
        if (temporary.size() == 1 && countOf(contentOf(path(temporary.front())), "\n") >= 3) {
            live = temporary.front();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_FALSE(live.empty()) << "no live rows within a minute";

    EXPECT_EQ(contentOf(path("k.csv")), "old csv\n");
    EXPECT_EQ(contentOf(path("k.json")), "old json\n");
    EXPECT_EQ(filesStartingWith(".k.json"), std::vector<std::string>()) << "the JSON is written only at the end";
    const std::string rows = contentOf(path(live));
    if (rows.back() != '\n') { // the kill caught a row being written: Linux stops the write at a page boundary
        EXPECT_EQ(rows.size() % 4096, 0u) << "rows are written whole";
    }
    EXPECT_GE(readCsv(path(live)).size(), 2u);
}

TEST_F(CliOutputs, FullDiskIsSaidOnceAndTheSweepAndJsonGoOn)
{
    // A tmpfs of two pages: the old CSV takes one, its replacement fits a few rows in the other.
    const std::string small = path("small");
    fs::create_directory(small);
    if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=8k") != 0)
        GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno) << "); needs root";
    m_mount = small;
    const std::string csv = small + "/r.csv";
    writeText(csv, "old\n");

    EXPECT_EQ(sweep({"--csv", csv, "--json", path("r.json")}), kExitOutputFailed);
    const std::string err = m_err.str();
    EXPECT_EQ(countOf(err, "\n"), 1u) << err;
    EXPECT_EQ(countOf(err, "error: --csv " + csv + ": write failed (No space left on device) after "), 1u) << err;
    EXPECT_NE(
        err.find("; the sweep goes on, " + csv + " is left as it was (--json keeps every row)"), std::string::npos)
        << err;
    // The run the failed row belonged to is not re-labelled: every run passed, in the table and in the JSON.
    EXPECT_EQ(m_out.str().find("failed"), std::string::npos) << m_out.str();
    const std::vector<Summary> summaries = readJson(path("r.json"));
    ASSERT_EQ(summaries.size(), 18u);
    for (const Summary& s : summaries)
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.variant << " " << s.size << ": " << s.message;
    EXPECT_EQ(contentOf(csv), "old\n");
    EXPECT_EQ(filesStartingWith(".", small), std::vector<std::string>()) << "the partial CSV is removed";

    // Without --json nothing else keeps the rows, and the line does not say something does.
    EXPECT_EQ(sweep({"--csv", csv}), kExitOutputFailed);
    EXPECT_EQ(countOf(m_err.str(), "\n"), 1u) << m_err.str();
    EXPECT_NE(m_err.str().find(csv + " is left as it was\n"), std::string::npos) << m_err.str();
    EXPECT_EQ(contentOf(csv), "old\n");
}

TEST_F(CliOutputs, CompileOutputIsCheckedBeforeCompiling)
{
    const Identity before = identityOf("/dev/full");
    EXPECT_EQ(cli({"compile", "-w", "spmv", "-k", path("missing.cu"), "-o", "/dev/full"}), kExitBadInput);
    EXPECT_EQ(m_err.str(), "error: --output /dev/full: a character device, not a regular file\n");
    EXPECT_TRUE(identityOf("/dev/full") == before);
}

// AtomicFile on its own: a write beyond what the file system allows (RLIMIT_FSIZE here, in a child process, so no
// mount is needed) is remembered with the system's reason and never replaces the target.
void writeBeyondTheFileSizeLimit(const std::string& target)
{
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit {1000, 1000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    AtomicFile file(target);
    file.stream() << std::string(5000, 'x');
    const bool flushed = file.flush();
    const std::string error = file.error();
    bool threw = false;
    try {
        file.commit();
    } catch (const OutputError& e) {
        threw = std::string(e.what()) == target + ": write failed (File too large); " + target + " was left as it was";
    }
    const bool intact = contentOf(target) == "old\n";
    std::_Exit(!flushed && error == "File too large" && threw && intact ? 0 : 1);
}

TEST_F(CliOutputs, AtomicFileNeverReplacesTheTargetAfterAFailedWrite)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    writeText(path("t.txt"), "old\n");
    EXPECT_EXIT(writeBeyondTheFileSizeLimit(path("t.txt")), ::testing::ExitedWithCode(0), "");
    EXPECT_EQ(contentOf(path("t.txt")), "old\n");
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
}

TEST_F(CliOutputs, AtomicFileKeepsTheOldContentUntilCommit)
{
    writeText(path("t.txt"), "old\n");
    {
        AtomicFile file(path("t.txt"));
        file.stream() << "new\n";
        ASSERT_TRUE(file.flush());
        EXPECT_EQ(contentOf(path("t.txt")), "old\n");
        EXPECT_EQ(contentOf(file.temporaryPath()), "new\n");
        EXPECT_EQ(fs::path(file.temporaryPath()).parent_path(), m_dir);
        EXPECT_EQ(fs::path(file.temporaryPath()).filename().string().rfind(".t.txt.kernelscope-", 0), 0u);
    }
    EXPECT_EQ(contentOf(path("t.txt")), "old\n") << "destroyed without commit: discarded";
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
    AtomicFile file(path("t.txt"));
    file.stream() << "new\n";
    file.commit();
    EXPECT_EQ(contentOf(path("t.txt")), "new\n");
    EXPECT_EQ(filesStartingWith("."), std::vector<std::string>());
}

} // namespace
} // namespace ks::cli
