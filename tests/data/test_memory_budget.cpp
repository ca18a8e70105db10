// The memory budget readers refuse inputs with: the smallest of the machine's available memory, the address-space
// limit (ulimit -v), the cgroup's limit and --memory-limit, named in the refusal.
#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/text_file.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

namespace ks::data {
namespace {

/// The process's peak resident set (VmHWM).
long peakResidentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stol(line.substr(6));
    return 0;
}

TEST(MemoryBudget, OwnLimitBindsAndIsNamed)
{
    setMemoryLimit(1 << 20);
    EXPECT_LE(availableHostMemory(), 1u << 20);
    EXPECT_EQ(memoryBudgetSource(), "--memory-limit");
    try {
        requireHostMemory(2 << 20, "f.h5", "/matrix", "reading the dataset");
        ADD_FAILURE() << "2 MiB fit in a 1 MiB budget";
    } catch (const DatasetError& e) {
        EXPECT_NE(std::string(e.what()).find("--memory-limit"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("f.h5"), std::string::npos) << e.what();
    }
    setMemoryLimit(0);
    EXPECT_GT(availableHostMemory(), 1u << 20);
}

TEST(MemoryBudget, TheAddressSpaceLimitBindsInAChildThatHasOne)
{
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit limit {};
        getrlimit(RLIMIT_AS, &limit);
        // 256 MiB more than mapped now: the budget is at most that, and says why.
        limit.rlim_cur = mappedAddressSpace() + (256ULL << 20);
        if (setrlimit(RLIMIT_AS, &limit) != 0)
            _exit(3);
        const bool ok = availableHostMemory() <= (256ULL << 20) && memoryBudgetSource() == "ulimit -v";
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed; 1: the budget ignored RLIMIT_AS";
}

TEST(MemoryBudget, CgroupV2AndV1LimitsAreReadFromTheProcessesCgroup)
{
    const auto root = std::filesystem::temp_directory_path() / ("ks-cgroup-" + std::to_string(getpid()));
    std::filesystem::create_directories(root / "user.slice/job");
    std::ofstream(root / "user.slice/job/memory.max") << "1073741824\n";
    std::ofstream(root / "user.slice/job/memory.current") << "73741824\n";
    EXPECT_EQ(cgroupHeadroom("0::/user.slice/job\n", root.string()), 1000000000u);
    std::ofstream(root / "user.slice/job/memory.max") << "max\n";
    EXPECT_EQ(cgroupHeadroom("0::/user.slice/job\n", root.string()), UINT64_MAX);
    std::filesystem::create_directories(root / "memory/docker/abc");
    std::ofstream(root / "memory/docker/abc/memory.limit_in_bytes") << "500\n";
    std::ofstream(root / "memory/docker/abc/memory.usage_in_bytes") << "600\n";
    EXPECT_EQ(cgroupHeadroom("12:cpu,memory:/docker/abc\n3:pids:/docker/abc\n", root.string()), 0u);
    EXPECT_EQ(cgroupHeadroom("garbage\n", root.string()), UINT64_MAX);
    std::filesystem::remove_all(root);
}

TEST(MemoryBudget, SizesReadAsTheUserWritesThem)
{
    EXPECT_EQ(parseByteSize("4G"), 4ULL << 30);
    EXPECT_EQ(parseByteSize("512M"), 512ULL << 20);
    EXPECT_EQ(parseByteSize("1.5GiB"), 3ULL << 29);
    EXPECT_EQ(parseByteSize("1000000"), 1000000u);
    EXPECT_EQ(parseByteSize("64kb"), 64ULL << 10);
    EXPECT_THROW(parseByteSize("lots"), std::invalid_argument);
    EXPECT_THROW(parseByteSize("4X"), std::invalid_argument);
    EXPECT_THROW(parseByteSize("-1G"), std::invalid_argument);
    EXPECT_THROW(parseByteSize("0"), std::invalid_argument);
}

/// A gzip bomb: `members` copies of one gzip member of `each` zero bytes (gzread reads concatenated members as one
/// stream), so a file of about a megabyte inflates to gigabytes without compressing them here.
std::string writeGzipBomb(const std::filesystem::path& path, std::size_t each, int members)
{
    const auto one = path.string() + ".member";
    {
        gzFile out = gzopen(one.c_str(), "wb9");
        const std::string zeros(1 << 20, '0');
        for (std::size_t i = 0; i < each / zeros.size(); ++i)
            gzwrite(out, zeros.data(), static_cast<unsigned>(zeros.size()));
        gzclose(out);
    }
    std::ifstream in(one, std::ios::binary);
    const std::string member((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(one);
    std::ofstream bomb(path, std::ios::binary);
    for (int i = 0; i < members; ++i)
        bomb << member;
    return path.string();
}

TEST(MemoryBudget, AGzipBombStopsAtTheBudgetNamingTheFileTheBudgetAndTheSizeReached)
{
    const auto dir = std::filesystem::temp_directory_path() / ("ks-bomb-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    // 4 GiB of zeros in about 4 MB, under a 64 MiB budget.
    const std::string bomb = writeGzipBomb(dir / "bomb.xyz", 64 << 20, 64);
    EXPECT_LT(std::filesystem::file_size(bomb), 8u << 20);
    setMemoryLimit(64 << 20);
    [[maybe_unused]] const long before = peakResidentKiB();
    try {
        readTextFile(bomb);
        ADD_FAILURE() << "the bomb was read whole";
    } catch (const DatasetError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("bomb.xyz"), std::string::npos) << what;
        EXPECT_NE(what.find("inflates past the memory budget of 64.00 MiB (--memory-limit) at "), std::string::npos)
            << what;
        EXPECT_LE(what.size(), 200u) << what;
    }
    // A line that never ends, read a line at a time, stops there too.
    try {
        TextStream lines(bomb);
        std::string_view line;
        lines.next(line);
        ADD_FAILURE() << "a 4 GiB line was handed out";
    } catch (const DatasetError& e) {
        EXPECT_NE(std::string(e.what()).find("does not fit in the memory budget"), std::string::npos) << e.what();
    }
    setMemoryLimit(0);
    // Nothing beyond the budget was ever held (the peak is the process's, so the bound allows the test's own).
    // AddressSanitizer keeps freed blocks in quarantine and its shadow memory resident: its peak says nothing here.
#if !defined(__SANITIZE_ADDRESS__)
    EXPECT_LT(peakResidentKiB() - before, 80L << 10);
#endif
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace ks::data
