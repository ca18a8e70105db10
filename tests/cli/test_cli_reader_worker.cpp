// Untrusted input in a child process: dataset files are read by `kernelscope-cli read-worker`. What the reader
// returns or throws crosses unchanged; a reader that crashes (a corrupted HDF5 file that makes libhdf5 1.10.8
// SIGSEGV), spins or runs out of CPU time ends only the worker and becomes one line naming the file and the place;
// Ctrl-C and the stop token end a load within a second, and nothing is left behind.
#include "cli/cli.h"
#include "cli/reader_worker.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ks::cli {
namespace {

/// Under AddressSanitizer a worker's SIGSEGV is ASan's report and exit 1, not a death by signal, and its address
/// space is ASan's terabytes of shadow: the crash and limit tests hold for the product's build, not that one.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
constexpr const char* kUnderAddressSanitizer
    = "under AddressSanitizer a crash is ASan's report, the address space its shadow";

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The open descriptors of this process: a load must leave none behind (the memfd, the pipes).
std::size_t openDescriptors()
{
    return static_cast<std::size_t>(
        std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator {}));
}

/// An environment variable set for the scope of a test (the worker inherits this process's environment).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value)
        : m_name(name)
    {
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() { ::unsetenv(m_name); }

private:
    const char* m_name;
};

class ReaderWorker : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks-reader-" + std::to_string(::getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir);
        setReaderWorkerArgv({KS_CLI_BINARY, "read-worker"});
    }
    void TearDown() override
    {
        setReaderWorkerArgv({});
        std::filesystem::remove_all(m_dir);
    }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    /// A small lrv file as h5py and AnnData write them: /matrix and variable-length /feature_names, /sample_names.
    std::string expressionFile(const std::string& name) const
    {
        data::ExpressionTable t;
        t.samples = 4;
        t.features = 3;
        t.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5};
        t.sampleNames = {"s1", "s2", "s3", "s4"};
        t.featureNames = {"alpha", "beta", "gamma"};
        const std::string p = path(name);
        data::writeExpressionHdf5(p, t);
        return p;
    }

    /// The same file with its global heap collection's size patched to 16 bytes (8 bytes changed): libhdf5 1.10.8
    /// reads the variable-length names past the collection and crashes (SIGSEGV in H5HG_read) when it reads them.
    std::string corruptedExpressionFile(const std::string& name) const
    {
        const std::string p = expressionFile(name);
        std::string bytes = readAll(p);
        const std::size_t heap = bytes.find("GCOL");
        EXPECT_NE(heap, std::string::npos) << "variable-length strings live in a global heap collection";
        const std::uint64_t size = 16;
        std::memcpy(bytes.data() + heap + 8, &size, sizeof size); // signature, version, 3 reserved, then the size
        std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
        return p;
    }

    static ReadRequest request(const std::string& workload, const std::string& file)
    {
        ReadRequest r;
        r.workload = workload;
        r.path = file;
        return r;
    }

    std::filesystem::path m_dir;
};

template <class F> data::DatasetError datasetError(F&& f)
{
    try {
        f();
    } catch (const data::DatasetError& e) {
        return e;
    }
    ADD_FAILURE() << "no DatasetError";
    return data::DatasetError("", "", "");
}

TEST_F(ReaderWorker, GivesTheDatasetReadingInProcessGives)
{
    const std::string csv = path("series.csv");
    std::ofstream(csv) << "time,signal\n0,1.5\n1,2.25\n2,-3e-7\n3,4\n";
    const std::size_t descriptors = openDescriptors();
    const data::Dataset worker = loadInWorker(request("linreg", csv));
    EXPECT_EQ(openDescriptors(), descriptors) << "the memfd and the pipes are closed";
    const data::Dataset direct = data::loadSeries2D(csv);
    EXPECT_EQ(worker.meta().contentHash, direct.meta().contentHash);
    EXPECT_EQ(worker.meta().name, direct.meta().name);
    EXPECT_EQ(worker.meta().properties, direct.meta().properties);
    EXPECT_EQ(worker.as<data::Series2D>().x, direct.as<data::Series2D>().x);
    EXPECT_EQ(worker.as<data::Series2D>().y, direct.as<data::Series2D>().y);
    EXPECT_EQ(worker.as<data::Series2D>().yName, "signal");
}

TEST_F(ReaderWorker, ReaderOptionsAndTheVectorReachTheWorker)
{
    const std::string mtx = path("m.mtx");
    std::ofstream(mtx) << "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1\n2 2 2\n2 3 3\n";
    const std::string x = path("x.txt");
    std::ofstream(x) << "0.5\n0.25\n0.125\n";
    ReadRequest r = request("spmv", mtx);
    r.options.vectorPath = x;
    const data::Dataset d = loadInWorker(r);
    EXPECT_EQ(d.as<data::SparseSystem>().x, (std::vector<double> {0.5, 0.25, 0.125}));
    EXPECT_EQ(d.as<data::SparseSystem>().matrix.values, (std::vector<double> {1, 2, 3}));
}

TEST_F(ReaderWorker, AReaderErrorComesBackWithTheSameMessage)
{
    const std::string csv = path("bad.csv");
    std::ofstream(csv) << "x,y\n1,2\n3,\033]0;PWNED\007\n";
    const auto worker = datasetError([&] { loadInWorker(request("linreg", csv)); });
    const auto direct = datasetError([&] { data::loadSeries2D(csv); });
    EXPECT_STREQ(worker.what(), direct.what());
    EXPECT_EQ(worker.place(), "line 3, column 2");
    const auto missing = datasetError([&] { loadInWorker(request("sdh", path("missing.xyz"))); });
    EXPECT_EQ(std::string(missing.what()), path("missing.xyz") + ": no such file");
}

TEST_F(ReaderWorker, TheRunsMemoryLimitIsTheWorkersBudget)
{
    const std::string mtx = path("wide.mtx");
    std::ofstream(mtx) << "%%MatrixMarket matrix coordinate real general\n5 2147483647 5\n1 1 1\n2 2 1\n3 3 1\n"
                          "4 4 1\n5 5 1\n";
    ReadRequest r = request("spmv", mtx);
    r.memoryLimit = 1ull << 30;
    const auto e = datasetError([&] { loadInWorker(r); });
    EXPECT_NE(std::string(e.what()).find("--memory-limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(mtx), std::string::npos) << e.what();
}

TEST_F(ReaderWorker, ThisProcesssOwnLimitIsTheWorkersBudgetWhenTheRequestNamesNone)
{
    // The app sets its limit in Run settings and asks with memoryLimit 0: the worker still reads under that limit,
    // and its refusal calls the limit what the app calls it.
    const std::string mtx = path("wide.mtx");
    std::ofstream(mtx) << "%%MatrixMarket matrix coordinate real general\n5 2147483647 5\n1 1 1\n2 2 1\n3 3 1\n"
                          "4 4 1\n5 5 1\n";
    data::setMemoryLimit(1ull << 30, "Memory limit in Run settings");
    struct Unlimit {
        ~Unlimit() { data::setMemoryLimit(0); }
    } unlimit;
    const auto e = datasetError([&] { loadInWorker(request("spmv", mtx)); });
    EXPECT_NE(std::string(e.what()).find("(Memory limit in Run settings)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(mtx), std::string::npos) << e.what();
}

TEST_F(ReaderWorker, ACorruptedHdf5FileThatCrashesLibhdf5IsOneErrorNamingFileAndPlace)
{
    if (kAddressSanitizer)
        GTEST_SKIP() << kUnderAddressSanitizer;
    const std::string h5 = corruptedExpressionFile("corrupted.h5");
    const std::size_t descriptors = openDescriptors();
    const auto e = datasetError([&] { loadInWorker(request("lrv", h5)); });
    EXPECT_EQ(openDescriptors(), descriptors);
    const std::string message = e.what();
    EXPECT_EQ(e.file(), h5);
    EXPECT_EQ(e.place(), "/feature_names") << message;
    // libhdf5 1.10.8 (Debian 12) crashes on it; a library that refuses it cleanly names the same file and place.
    EXPECT_NE(message.find("the HDF5 library crashed (SIGSEGV)"), std::string::npos) << message;
    EXPECT_LE(message.size(), 200u) << message;
}

TEST_F(ReaderWorker, TheCliSaysWhichFileCrashedTheReaderAndWhereInOneLine)
{
    if (kAddressSanitizer)
        GTEST_SKIP() << kUnderAddressSanitizer;
    const std::string h5 = corruptedExpressionFile("corrupted.h5");
    const std::string err = path("stderr");
    const std::string command = std::string(KS_CLI_BINARY) + " run --workload lrv --variant reference --no-calibrate "
        + "--input " + h5 + " 2>" + err + " >/dev/null";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), kExitBadInput);
    const std::string text = readAll(err);
    const std::string last = text.substr(text.rfind("error:"));
    EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1) << text;
    EXPECT_NE(last.find(h5 + ": /feature_names: the HDF5 library crashed (SIGSEGV)"), std::string::npos) << text;
    EXPECT_LE(last.size(), 200u + h5.size()) << text;
}

TEST_F(ReaderWorker, ACrashAtAChosenPlaceIsNamed)
{
    if (kAddressSanitizer)
        GTEST_SKIP() << kUnderAddressSanitizer;
    const std::string h5 = expressionFile("good.h5");
    const ScopedEnv crash("KS_TEST_READER_CRASH", "/matrix");
    const auto e = datasetError([&] { loadInWorker(request("lrv", h5)); });
    EXPECT_EQ(e.place(), "/matrix") << e.what();
    EXPECT_NE(std::string(e.what()).find("crashed (SIGSEGV)"), std::string::npos) << e.what();
}

TEST_F(ReaderWorker, AnAllocationPastTheAddressSpaceLimitIsNamedWithItsPlace)
{
    if (kAddressSanitizer)
        GTEST_SKIP() << kUnderAddressSanitizer;
    // What a reader's estimate missed (libhdf5's own buffers): RLIMIT_AS makes the allocation fail in the worker.
    const std::string h5 = expressionFile("good.h5");
    const ScopedEnv alloc("KS_TEST_READER_ALLOC", "/sample_names");
    ReadRequest r = request("lrv", h5);
    r.memoryLimit = 256ull << 20;
    const auto e = datasetError([&] { loadInWorker(r); });
    EXPECT_EQ(e.file(), h5);
    EXPECT_EQ(e.place(), "/sample_names") << e.what();
    EXPECT_NE(std::string(e.what()).find("the reader ran out of memory here (it may map "), std::string::npos)
        << e.what();
    EXPECT_LE(std::string(e.what()).size(), 200u) << e.what();
}

TEST_F(ReaderWorker, AReaderSpinningPastItsCpuLimitIsStoppedAndNamed)
{
    const std::string h5 = expressionFile("good.h5");
    const ScopedEnv spin("KS_TEST_READER_SPIN", "/feature_names");
    ReadRequest r = request("lrv", h5);
    r.cpuLimitS = 1;
    const auto start = Clock::now();
    const auto e = datasetError([&] { loadInWorker(r); });
    EXPECT_LT(secondsSince(start), 10.0);
    EXPECT_EQ(e.place(), "/feature_names") << e.what();
    EXPECT_NE(std::string(e.what()).find("used its 1 s of CPU time here and was stopped"), std::string::npos)
        << e.what();
}

TEST_F(ReaderWorker, TheStopTokenEndsASpinningReaderWithinASecond)
{
    const std::string h5 = expressionFile("good.h5");
    const ScopedEnv spin("KS_TEST_READER_SPIN", "/feature_names");
    const std::size_t descriptors = openDescriptors();
    std::stop_source stop;
    Clock::time_point stopped;
    std::jthread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        stopped = Clock::now();
        stop.request_stop();
    });
    EXPECT_THROW(loadInWorker(request("lrv", h5), stop.get_token()), LoadCancelled);
    const double seconds = secondsSince(stopped);
    EXPECT_LT(seconds, 1.0);
    canceller.join();
    EXPECT_EQ(openDescriptors(), descriptors);
    EXPECT_THROW(loadInWorker(request("lrv", h5), stop.get_token()), LoadCancelled) << "stopped before it starts";
}

TEST_F(ReaderWorker, CtrlCDuringALoadExitsWithinASecond)
{
    const std::string h5 = expressionFile("good.h5");
    const std::string err = path("stderr");
    // The worker inherits the environment: it spins before reading, as libhdf5 does on some corrupted files.
    const ScopedEnv spin("KS_TEST_READER_SPIN", "start");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> argv {
        KS_CLI_BINARY, "run", "--workload", "lrv", "--variant", "reference", "--no-calibrate", "--input", h5};
    std::vector<char*> args;
    for (auto& a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    const auto interrupted = Clock::now();
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) != pid && secondsSince(interrupted) < 10.0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const double seconds = secondsSince(interrupted);
    if (seconds >= 10.0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        FAIL() << "still running 10 s after Ctrl-C";
    }
    EXPECT_LT(seconds, 1.0);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), kExitCancelled);
    EXPECT_NE(readAll(err).find("cancelled while loading " + h5), std::string::npos) << readAll(err);
}

/// The children of this process's threads (the worker is started from whichever thread loads).
std::vector<pid_t> childProcesses()
{
    std::vector<pid_t> children;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream in(task.path() / "children");
        for (pid_t pid; in >> pid;)
            children.push_back(pid);
    }
    return children;
}

/// A limit's soft value from /proc/PID/limits ("Max address space", "Max cpu time"): 0 for unlimited.
std::uint64_t softLimit(pid_t pid, const std::string& name)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
    for (std::string line; std::getline(in, line);)
        if (line.rfind(name, 0) == 0) {
            std::istringstream fields(line.substr(name.size()));
            std::string soft;
            fields >> soft;
            return soft == "unlimited" ? 0 : std::stoull(soft);
        }
    return 0;
}

TEST_F(ReaderWorker, TheWorkerLimitsItsAddressSpaceAndCpuTimeBeforeReading)
{
    if (kAddressSanitizer)
        GTEST_SKIP() << kUnderAddressSanitizer;
    if (!std::filesystem::exists("/proc/self/task/" + std::to_string(::getpid()) + "/children"))
        GTEST_SKIP() << "this kernel does not list a thread's children (CONFIG_PROC_CHILDREN)";
    const std::string h5 = expressionFile("good.h5");
    const ScopedEnv spin("KS_TEST_READER_SPIN", "/feature_names");
    ReadRequest r = request("lrv", h5);
    r.memoryLimit = 256ull << 20;
    std::stop_source stop;
    std::jthread loader([&] { EXPECT_THROW(loadInWorker(r, stop.get_token()), LoadCancelled); });
    // The worker spins at /feature_names: it has set its limits by then.
    std::vector<pid_t> children;
    for (int i = 0; i < 200 && children.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        children = childProcesses();
    }
    ASSERT_EQ(children.size(), 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::uint64_t space = softLimit(children[0], "Max address space");
    const std::uint64_t cpu = softLimit(children[0], "Max cpu time");
    stop.request_stop();
    loader.join();
    // What it mapped at start (the executable, its libraries) plus 256 MiB of budget plus the 512 MiB of slack.
    EXPECT_GT(space, (256ull + 512ull) << 20);
    EXPECT_LT(space, (256ull + 512ull + 4096ull) << 20) << "mapped at start is well under 4 GiB";
    EXPECT_EQ(cpu, static_cast<std::uint64_t>(std::ceil(readerCpuLimitS(r))));
    EXPECT_EQ(cpu, 11u) << "a small file gets kReaderMinCpuS, rounded up to whole seconds";
}

TEST_F(ReaderWorker, LrvsWeightsAndReferenceAreReadInTheWorkerAndComeBackWithTheTable)
{
    std::ofstream(path("y.tsv")) << "\tA\tB\nS1\t2\t5\nS2\t3\t4\nS3\t7\t1\n";
    std::ofstream(path("w.tsv")) << "\tB\tA\nS1\t0.5\t1\nS2\t1\t0.25\nS3\t2\t3\n";
    std::ofstream(path("yfull.tsv")) << "\tA\tB\nS1\t2\t5\nS2\t3\t4\nS3\t7\t1\nS4\t4\t6\n";
    ReadRequest r = request("lrv", path("y.tsv"));
    r.options.params = {{"weights", path("w.tsv")}, {"reference", path("yfull.tsv")}};
    const data::Dataset d = loadInWorker(r);
    const auto& t = d.as<data::ExpressionTable>();
    EXPECT_EQ(t.weights, (std::vector<double> {1, 0.5, 0.25, 1, 3, 2})) << "in the table's feature order";
    EXPECT_EQ(t.referenceSamples, 4u);
    EXPECT_EQ(t.reference.size(), 8u);
    EXPECT_EQ(d.meta().contentHash, defaultRegistry().find("lrv")->load(r.path, r.options).meta().contentHash)
        << "the worker's dataset is the one read here";
    // A bad weight is named in the weights file, through the worker.
    std::ofstream(path("w.tsv")) << "\tA\tB\nS1\t1\t-2\nS2\t1\t1\nS3\t1\t1\n";
    const auto e = datasetError([&] { loadInWorker(r); });
    EXPECT_EQ(e.file(), path("w.tsv")) << e.what();
    EXPECT_NE(std::string(e.what()).find("weight -2; propr's weights must be finite and positive"), std::string::npos)
        << e.what();
}

TEST_F(ReaderWorker, TheCpuLimitGrowsWithTheInputsSize)
{
    // Sparse files: their sizes, not their blocks, are what the rule reads.
    auto sized = [&](const std::string& name, std::uintmax_t bytes) {
        const std::string file = path(name);
        std::ofstream(file).put('x');
        std::filesystem::resize_file(file, bytes);
        return file;
    };
    EXPECT_DOUBLE_EQ(readerCpuLimitS(request("spmv", sized("small.mtx", 2'000))), kReaderMinCpuS + 0.001);
    EXPECT_DOUBLE_EQ(readerCpuLimitS(request("spmv", sized("big.mtx", 1'000'000'000))), kReaderMinCpuS + 500.0);
    EXPECT_DOUBLE_EQ(readerCpuLimitS(request("spmv", sized("big.mtx.gz", 20'000'000))), kReaderMinCpuS + 200.0);
    EXPECT_DOUBLE_EQ(readerCpuLimitS(request("spmv", sized("huge.mtx", 10'000'000'000))), kReaderCpuLimitS);
    ReadRequest withVector = request("spmv", sized("m.mtx", 4'000'000));
    withVector.options.vectorPath = sized("x.txt", 2'000'000);
    EXPECT_DOUBLE_EQ(readerCpuLimitS(withVector), kReaderMinCpuS + 3.0);
    // lrv's weights and reference are read with the table: their sizes count too, another parameter's text does not.
    ReadRequest withCompanions = request("lrv", sized("y.tsv", 2'000'000));
    withCompanions.options.params = {{"weights", sized("w.tsv", 2'000'000)},
        {"reference", sized("yfull.tsv", 4'000'000)}, {"orientation", "samples-as-rows"}};
    EXPECT_DOUBLE_EQ(readerCpuLimitS(withCompanions), kReaderMinCpuS + 4.0);
    EXPECT_DOUBLE_EQ(readerCpuLimitS(request("spmv", path("missing.mtx"))), kReaderMinCpuS);
}

TEST_F(ReaderWorker, ListsAnHdf5FileAsTheFileDoes)
{
    const std::string h5 = expressionFile("good.h5");
    const Hdf5Listing listing = listHdf5InWorker(h5);
    const auto file = data::h5::File::open(h5);
    EXPECT_EQ(listing.groups, file.groups());
    const auto datasets = file.datasets();
    ASSERT_EQ(listing.datasets.size(), datasets.size());
    for (std::size_t i = 0; i < datasets.size(); ++i) {
        EXPECT_EQ(listing.datasets[i].path, datasets[i].path);
        EXPECT_EQ(listing.datasets[i].dims, datasets[i].dims);
        EXPECT_EQ(listing.datasets[i].type, datasets[i].type);
        EXPECT_EQ(listing.datasets[i].isFloat, datasets[i].isFloat);
        EXPECT_EQ(listing.datasets[i].filters, datasets[i].filters);
    }
}

TEST_F(ReaderWorker, AListingThatCrashesTheLibraryIsAnError)
{
    if (kAddressSanitizer)
        GTEST_SKIP() << kUnderAddressSanitizer;
    const std::string h5 = expressionFile("good.h5");
    const ScopedEnv crash("KS_TEST_READER_CRASH", "/sample_names");
    const auto e = datasetError([&] { listHdf5InWorker(h5); });
    EXPECT_EQ(e.place(), "/sample_names") << e.what();
    EXPECT_NE(std::string(e.what()).find("the HDF5 library crashed (SIGSEGV)"), std::string::npos) << e.what();
}

TEST_F(ReaderWorker, AWorkerThatDiesWithoutAnAnswerIsNamed)
{
    setReaderWorkerArgv({"/bin/sh", "-c", "echo 'no such reader' >&2; exit 7"});
    const auto e = datasetError([&] { loadInWorker(request("linreg", path("any.csv"))); });
    EXPECT_NE(std::string(e.what()).find("the reader process failed: no such reader"), std::string::npos) << e.what();
}

} // namespace
} // namespace ks::cli
