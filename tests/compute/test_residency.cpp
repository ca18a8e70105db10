// Cache residency: the rule, the host's last-level cache read from a (fake) sysfs tree, and the runner's verdict.
#include "compute/core/runner.h"
#include "compute/core/summary.h"
#include "compute/device/device_info.h"
#include "fake_workload.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace ks::test {
namespace {

TEST(Residency, AWorkingSetNoLargerThanTheCacheFits)
{
    EXPECT_EQ(fitsInCache(1024.0, 1024), std::optional<bool>(true));
    EXPECT_EQ(fitsInCache(16.0 * 1024 * 1024, 50u * 1024 * 1024), std::optional<bool>(true));
}

TEST(Residency, AWorkingSetLargerThanTheCacheDoesNotFit)
{
    EXPECT_EQ(fitsInCache(1025.0, 1024), std::optional<bool>(false));
    EXPECT_EQ(fitsInCache(4e9, 50u * 1024 * 1024), std::optional<bool>(false));
}

TEST(Residency, AnUnknownCacheOrWorkingSetGivesNoVerdict)
{
    EXPECT_EQ(fitsInCache(1024.0, 0), std::nullopt);
    EXPECT_EQ(fitsInCache(0.0, 1024), std::nullopt);
    EXPECT_EQ(fitsInCache(std::nan(""), 1024), std::nullopt);
}

class HostCache : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks_host_cache_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    /// One sysfs cache entry, the way Linux lists it (each file one line with a newline).
    void addIndex(int index, const std::string& level, const std::string& size, const std::string& type)
    {
        const auto dir = m_dir / ("index" + std::to_string(index));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "level") << level << '\n';
        std::ofstream(dir / "size") << size << '\n';
        std::ofstream(dir / "type") << type << '\n';
    }
    std::string root() const { return m_dir.string(); }
    std::filesystem::path m_dir;
};

TEST_F(HostCache, TheHighestLevelIsTheLastLevelCache)
{
    addIndex(0, "1", "48K", "Data");
    addIndex(1, "1", "32K", "Instruction");
    addIndex(2, "2", "1024K", "Unified");
    addIndex(3, "3", "32768K", "Unified");
    std::ofstream(m_dir / "uevent") << "\n";
    EXPECT_EQ(device::hostLastLevelCacheBytes(root()), 32768ull * 1024);
}

TEST_F(HostCache, SizesInMegabytesAndWithoutALevel3)
{
    addIndex(0, "1", "64K", "Data");
    addIndex(1, "2", "2M", "Unified");
    EXPECT_EQ(device::hostLastLevelCacheBytes(root()), 2ull * 1024 * 1024);
}

TEST_F(HostCache, InstructionCachesAndUnreadableEntriesAreIgnored)
{
    addIndex(0, "1", "32K", "Data");
    addIndex(1, "2", "4096K", "Instruction");
    addIndex(2, "3", "garbage", "Unified");
    std::filesystem::create_directories(m_dir / "index3"); // no files at all
    EXPECT_EQ(device::hostLastLevelCacheBytes(root()), 32ull * 1024);
}

TEST_F(HostCache, AMissingTreeIsUnknown)
{
    EXPECT_EQ(device::hostLastLevelCacheBytes((m_dir / "absent").string()), 0u);
    EXPECT_EQ(device::hostLastLevelCacheBytes(root()), 0u); // present but empty
}

TEST(Residency, TheRunnerComparesTheCostModelsBytesWithTheDevicesCache)
{
    FakeClock clock;
    FakeWorkload workload(clock, Script {{0.002}});
    Runner runner(clock);
    runner.setCeilingsProvider({});
    const auto dataset = workload.generate(ParamSet::parse(workload.generatorParameters(), {}));
    const auto params = ParamSet::parse(workload.parameters(), {});
    RunOptions options;
    options.warmup = 0;
    options.minRepetitions = 3;
    options.maxRepetitions = 3;
    options.flushL2 = false;
    RunRequest request {&workload, workload.findVariant("scripted"), dataset, params, options,
        runner.computeReference(workload, dataset, params), "test-001"};
    RunObserver quiet;
    const Summary s = runner.run(request, quiet, {});
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.device.kind, "host");
    EXPECT_EQ(s.cacheBytes, s.device.lastLevelCacheBytes);
    EXPECT_EQ(s.cacheBytes, device::hostInfo().lastLevelCacheBytes);
    // 80 bytes fit in any cache Linux reports; where it reports none the verdict is empty, not a guess.
    if (s.cacheBytes > 0)
        EXPECT_EQ(s.cacheResident, std::optional<bool>(true));
    else
        EXPECT_EQ(s.cacheResident, std::nullopt);
}

} // namespace
} // namespace ks::test
