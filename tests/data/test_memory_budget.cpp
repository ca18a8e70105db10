// The memory budget readers refuse inputs with: the smallest of the machine's available memory, the address-space
// limit (ulimit -v), the cgroup's limit and --memory-limit, named in the refusal.
#include "data/dataset_error.h"
#include "data/host_memory.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ks::data {
namespace {

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

} // namespace
} // namespace ks::data
