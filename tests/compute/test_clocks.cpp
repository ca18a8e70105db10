// Clocks sampled around each repetition: the throttle rule, a fake sampler through the runner (throttled
// repetitions counted and marked, never dropped), the host's cpufreq reader on a fake sysfs tree, NVML's absence as a
// reason, the CSV/JSON schema, and on a GPU machine a real NVML reading.
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "compute/core/runner.h"
#include "compute/device/device_info.h"
#include "compute/device/nvml_sampler.h"
#include "fake_workload.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ks::test {
namespace {

/// Returns scripted readings in turn (before and after each repetition), then nothing.
class FakeSampler final : public ClockSampler {
public:
    explicit FakeSampler(std::vector<std::optional<ClockSample>> script, std::string reason = {})
        : m_script(std::move(script))
        , m_reason(std::move(reason))
    {
    }
    std::string source() const override { return "fake"; }
    std::string unavailableReason() const override { return m_reason; }
    std::optional<ClockSample> sample() override
    {
        return m_next < m_script.size() ? m_script[m_next++] : std::nullopt;
    }

private:
    std::vector<std::optional<ClockSample>> m_script;
    std::size_t m_next = 0;
    std::string m_reason;
};

ClockSample reading(double smMHz, std::uint64_t reasons = 0)
{
    ClockSample s;
    s.smClockMHz = smMHz;
    s.memClockMHz = 2619.0;
    s.temperatureC = 40.0 + smMHz / 1000.0;
    s.powerW = 300.0;
    s.throttleReasons = reasons;
    s.throttled = isThrottled(reasons);
    return s;
}

/// Runs the fake workload's "scripted" variant for exactly `repetitions` with the sampler the factory makes.
Summary runWith(ClockSamplerFactory factory, int repetitions, Recorder& recorder)
{
    FakeClock clock;
    FakeWorkload workload(clock, Script {{0.002}});
    Runner runner(clock);
    runner.setCeilingsProvider({});
    runner.setClockSamplers(std::move(factory));
    const auto dataset = workload.generate(ParamSet::parse(workload.generatorParameters(), {}));
    const auto params = ParamSet::parse(workload.parameters(), {});
    RunOptions options;
    options.warmup = 1;
    options.minRepetitions = repetitions;
    options.maxRepetitions = repetitions;
    options.flushL2 = false;
    RunRequest request {&workload, workload.findVariant("scripted"), dataset, params, options,
        runner.computeReference(workload, dataset, params), "clocks-001"};
    return runner.run(request, recorder, {});
}

ClockSamplerFactory serve(std::vector<std::optional<ClockSample>> script, std::string reason = {})
{
    return [script = std::move(script), reason = std::move(reason)](
               Backend, const DeviceInfo&) -> std::unique_ptr<ClockSampler> {
        return std::make_unique<FakeSampler>(script, reason);
    };
}

TEST(ThrottleRule, PowerAndThermalReasonsThrottleIdleAndSettingsDoNot)
{
    EXPECT_FALSE(isThrottled(0));
    EXPECT_FALSE(isThrottled(kThrottleGpuIdle));
    EXPECT_FALSE(isThrottled(kThrottleApplicationsClocksSetting | kThrottleSyncBoost | kThrottleDisplayClockSetting));
    for (auto bit : {kThrottleSwPowerCap, kThrottleHwSlowdown, kThrottleSwThermalSlowdown, kThrottleHwThermalSlowdown,
             kThrottleHwPowerBrakeSlowdown})
        EXPECT_TRUE(isThrottled(bit | kThrottleGpuIdle)) << bit;
}

TEST(ThrottleRule, ReasonsAreNamedAndUnknownBitsShownInHex)
{
    EXPECT_EQ(throttleReasonNames(0), "");
    EXPECT_EQ(throttleReasonNames(kThrottleGpuIdle | kThrottleSwPowerCap), "GpuIdle, SwPowerCap");
    EXPECT_EQ(throttleReasonNames(kThrottleHwThermalSlowdown | 0x400), "HwThermalSlowdown, 0x400");
}

TEST(ClockRecording, ThrottledRepetitionsAreCountedAndMarkedNotDropped)
{
    // Readings come in pairs, before and after each repetition. Repetition 1 is throttled after it ran, repetition 3
    // only before (the throttle ended during it): both are marked. GpuIdle on repetition 2 is not throttling.
    Recorder recorder;
    const Summary s = runWith(
        serve({reading(1980), reading(1980), reading(1980), reading(1755, kThrottleSwPowerCap),
            reading(1980, kThrottleGpuIdle), reading(1900), reading(1800, kThrottleHwSlowdown), reading(1980)}),
        4, recorder);
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    ASSERT_EQ(s.repetitions, 4);
    EXPECT_EQ(s.samplesMs.size(), 4u);
    EXPECT_EQ(s.clockSource, "fake");
    EXPECT_EQ(s.clockReason, "");
    EXPECT_EQ(s.clockMHz, (std::vector<double> {1980, 1755, 1900, 1980}));
    EXPECT_EQ(s.throttled, (std::vector<bool> {false, true, false, true}));
    EXPECT_EQ(s.throttleReasons,
        (std::vector<std::uint64_t> {0, kThrottleSwPowerCap, kThrottleGpuIdle, kThrottleHwSlowdown}));
    EXPECT_EQ(s.throttledSamples, 2);
    EXPECT_DOUBLE_EQ(s.clockMinMHz, 1755.0);
    EXPECT_DOUBLE_EQ(s.clockMaxMHz, 1980.0);
    EXPECT_EQ(s.memClockMHz.size(), 4u);
    EXPECT_DOUBLE_EQ(s.powerW[1], 300.0);
    EXPECT_DOUBLE_EQ(s.temperatureC[0], 41.98);

    // Every streamed Sample carries its repetition's reading, throttled ones marked.
    ASSERT_EQ(recorder.samples.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        ASSERT_TRUE(recorder.samples[i].clock.has_value()) << i;
        EXPECT_EQ(recorder.samples[i].clock->throttled, s.throttled[i]) << i;
        EXPECT_DOUBLE_EQ(recorder.samples[i].clock->smClockMHz, s.clockMHz[i]) << i;
    }
}

TEST(ClockRecording, AMissedReadingKeepsTheArraysAlignedWithTheTimes)
{
    // Repetition 0's after-reading fails (its before-reading stands in); repetition 1 has neither: zeros.
    Recorder recorder;
    const Summary s = runWith(
        serve({reading(1900), std::nullopt, std::nullopt, std::nullopt, reading(1950), reading(1960)}), 3, recorder);
    ASSERT_EQ(s.repetitions, 3);
    EXPECT_EQ(s.clockMHz, (std::vector<double> {1900, 0, 1960}));
    EXPECT_EQ(s.throttled.size(), 3u);
    EXPECT_DOUBLE_EQ(s.clockMinMHz, 1900.0);
    EXPECT_DOUBLE_EQ(s.clockMaxMHz, 1960.0);
    EXPECT_FALSE(recorder.samples[1].clock.has_value());
}

TEST(ClockRecording, AnUnavailableSamplerIsAReasonNotAnError)
{
    Recorder recorder;
    const Summary s = runWith(serve({reading(1980)}, "NVML not found (libnvidia-ml.so.1: cannot open)"), 3, recorder);
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.repetitions, 3);
    EXPECT_EQ(s.clockSource, "");
    EXPECT_EQ(s.clockReason, "NVML not found (libnvidia-ml.so.1: cannot open)");
    EXPECT_TRUE(s.clockMHz.empty());
    EXPECT_TRUE(s.throttled.empty());
    EXPECT_EQ(s.throttledSamples, 0);
    for (const auto& sample : recorder.samples)
        EXPECT_FALSE(sample.clock.has_value());
}

TEST(ClockRecording, NoSamplerOrNoReadingsGiveAReason)
{
    Recorder recorder;
    const Summary none
        = runWith([](Backend, const DeviceInfo&) -> std::unique_ptr<ClockSampler> { return nullptr; }, 2, recorder);
    EXPECT_EQ(none.clockReason, "no clock source for this backend");
    const Summary silent = runWith(serve({}), 2, recorder);
    EXPECT_EQ(silent.clockReason, "fake returned no readings");
    EXPECT_TRUE(silent.clockMHz.empty());
}

class Cpufreq : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks_cpufreq_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir / "cpufreq" / "policy0");
        std::filesystem::create_directories(m_dir / "cpuidle");
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    void addCpu(int index, const std::string& kHz)
    {
        const auto dir = m_dir / ("cpu" + std::to_string(index)) / "cpufreq";
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "scaling_cur_freq") << kHz << '\n';
    }
    std::filesystem::path m_dir;
};

TEST_F(Cpufreq, TheMeanOverEveryCpuInMHz)
{
    addCpu(0, "2000000");
    addCpu(1, "3000000");
    addCpu(10, "1000000");
    CpufreqSampler sampler(m_dir.string());
    EXPECT_EQ(sampler.unavailableReason(), "");
    const auto s = sampler.sample();
    ASSERT_TRUE(s.has_value());
    EXPECT_DOUBLE_EQ(s->smClockMHz, 2000.0);
    EXPECT_EQ(s->throttleReasons, 0u);
    EXPECT_FALSE(s->throttled);
}

TEST_F(Cpufreq, ACpuWithoutAReadingIsLeftOutOfTheMean)
{
    addCpu(0, "2400000");
    addCpu(1, "garbage");
    CpufreqSampler sampler(m_dir.string());
    const auto s = sampler.sample();
    ASSERT_TRUE(s.has_value());
    EXPECT_DOUBLE_EQ(s->smClockMHz, 2400.0);
}

TEST_F(Cpufreq, NotExposedIsAReason)
{
    std::filesystem::create_directories(m_dir / "cpu0");
    CpufreqSampler sampler(m_dir.string());
    EXPECT_NE(sampler.unavailableReason().find("cpufreq not exposed"), std::string::npos)
        << sampler.unavailableReason();
    EXPECT_FALSE(sampler.sample().has_value());
    CpufreqSampler missing((m_dir / "nowhere").string());
    EXPECT_NE(missing.unavailableReason().find("cpufreq not exposed"), std::string::npos);
}

TEST(Nvml, WithoutAGpuTheSamplerGivesAReasonAndNoReadings)
{
    if (!device::cudaDevices().empty())
        GTEST_SKIP() << "a CUDA device is present: NvmlReadsTheClocksOfACudaRun covers it";
    // Without NVML the library is "not found"; with NVML but no GPU, nvmlInit fails or knows no such UUID.
    auto sampler = device::nvmlSampler("GPU-00000000-0000-0000-0000-000000000000");
    EXPECT_EQ(sampler->source(), "nvml");
    EXPECT_FALSE(sampler->unavailableReason().empty());
    EXPECT_FALSE(sampler->sample().has_value());
    EXPECT_NE(sampler->unavailableReason().find("NVML"), std::string::npos) << sampler->unavailableReason();
}

TEST(Nvml, NvmlReadsTheClocksOfACudaRun)
{
    if (const std::string reason = device::cudaUnavailableReason(); !reason.empty())
        GTEST_SKIP() << reason;
    if (const std::string reason = device::nvmlUnavailableReason(); !reason.empty())
        GTEST_FAIL() << "a CUDA device is present but " << reason;
    const Workload& linreg = *defaultRegistry().find("linreg");
    Runner runner;
    runner.setCeilingsProvider({});
    const auto dataset = linreg.generate(ParamSet::parse(linreg.generatorParameters(), {{"n", "4000000"}}));
    const auto params = ParamSet::parse(linreg.parameters(), {});
    RunOptions options;
    options.minRepetitions = 20;
    options.maxRepetitions = 20;
    RunRequest request {&linreg, linreg.findVariant("warp_shuffle"), dataset, params, options,
        runner.computeReference(linreg, dataset, params), "nvml-001"};
    Recorder recorder;
    const Summary s = runner.run(request, recorder, {});
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.clockSource, "nvml") << s.clockReason;
    ASSERT_EQ(s.clockMHz.size(), s.samplesMs.size());
    EXPECT_GT(s.clockMinMHz, 0.0);
    EXPECT_GE(s.clockMaxMHz, s.clockMinMHz);
    // No GPU boosts past twice its rated peak: a reading in the right unit.
    if (s.device.smClockMHz > 0) {
        EXPECT_LE(s.clockMaxMHz, 2.0 * s.device.smClockMHz);
    }
    for (double mem : s.memClockMHz)
        EXPECT_GT(mem, 0.0);
    for (double c : s.temperatureC)
        EXPECT_GT(c, 0.0);
    ASSERT_EQ(recorder.samples.size(), s.samplesMs.size());
    EXPECT_TRUE(recorder.samples.front().clock.has_value());
    // The readings are outside the timed window but inside the run's time limit: they must stay cheap.
    auto sampler = device::nvmlSampler(s.device.uuid);
    ASSERT_EQ(sampler->unavailableReason(), "");
    constexpr int kReadings = 100;
    const double start = steadyClock().nowSeconds();
    for (int i = 0; i < kReadings; ++i)
        ASSERT_TRUE(sampler->sample().has_value());
    const double usPerReading = (steadyClock().nowSeconds() - start) * 1e6 / kReadings;
    EXPECT_LT(usPerReading, 5000.0);
    std::cout << "one NVML reading: " << usPerReading << " us\n";
    std::cout << "SM clock " << s.clockMinMHz << "-" << s.clockMaxMHz << " MHz, " << s.throttledSamples << " of "
              << s.repetitions << " throttled, power " << s.powerW.back() << " W, " << s.temperatureC.back() << " C\n";
}

Summary clocked()
{
    Summary s;
    s.runId = "r1";
    s.workload = "linreg";
    s.variant = "warp_shuffle";
    s.outcome = Outcome::Passed;
    s.repetitions = 3;
    s.samplesMs = {1.0, 1.1, 1.2};
    s.clockMHz = {1980, 1755, 1980};
    s.memClockMHz = {2619, 2619, 2619};
    s.temperatureC = {41, 45, 46};
    s.powerW = {310.5, 699.25, 500};
    s.throttleReasons = {0, kThrottleSwPowerCap | kThrottleGpuIdle, kThrottleGpuIdle};
    s.throttled = {false, true, false};
    s.clockMinMHz = 1755;
    s.clockMaxMHz = 1980;
    s.throttledSamples = 1;
    s.clockSource = "nvml";
    return s;
}

TEST(ClockSchema, CsvColumnsAreAppendedAtTheEnd)
{
    const auto& columns = csvColumns();
    const auto at = std::find(columns.begin(), columns.end(), "sm_clock_min_mhz");
    ASSERT_NE(at, columns.end());
    EXPECT_EQ(std::vector<std::string>(at, at + 5),
        (std::vector<std::string> {
            "sm_clock_min_mhz", "sm_clock_max_mhz", "throttled_samples", "clock_source", "clock_reason"}));
    const auto row = csvRow(clocked());
    const auto i = static_cast<std::size_t>(at - columns.begin());
    EXPECT_EQ(row[i], "1755");
    EXPECT_EQ(row[i + 1], "1980");
    EXPECT_EQ(row[i + 2], "1");
    EXPECT_EQ(row[i + 3], "nvml");
    Summary unsampled;
    unsampled.clockReason = "cpufreq not exposed";
    const auto empty = csvRow(unsampled);
    EXPECT_EQ(empty[i], "");
    EXPECT_EQ(empty[i + 2], "");
    EXPECT_EQ(empty[i + 4], "cpufreq not exposed");
}

TEST(ClockSchema, JsonRoundTripsThePerRepetitionArrays)
{
    const Summary s = clocked();
    const auto j = toJson(s);
    EXPECT_EQ(j["sm_clock_min_mhz"], 1755.0);
    EXPECT_EQ(j["throttled_samples"], 1);
    EXPECT_EQ(j["rep_throttled"], nlohmann::ordered_json::parse("[false, true, false]"));
    EXPECT_EQ(j["rep_throttle_reasons"], nlohmann::ordered_json::parse("[0, 5, 1]"));
    const Summary back = summaryFromJson(nlohmann::ordered_json::parse(j.dump()));
    EXPECT_EQ(back.clockMHz, s.clockMHz);
    EXPECT_EQ(back.memClockMHz, s.memClockMHz);
    EXPECT_EQ(back.temperatureC, s.temperatureC);
    EXPECT_EQ(back.powerW, s.powerW);
    EXPECT_EQ(back.throttleReasons, s.throttleReasons);
    EXPECT_EQ(back.throttled, s.throttled);
    EXPECT_DOUBLE_EQ(back.clockMinMHz, 1755.0);
    EXPECT_DOUBLE_EQ(back.clockMaxMHz, 1980.0);
    EXPECT_EQ(back.throttledSamples, 1);
    EXPECT_EQ(back.clockSource, "nvml");
    EXPECT_EQ(back.clockReason, "");
}

TEST(ClockSchema, AFileWithoutClocksReadsAsNotSampled)
{
    auto j = toJson(clocked());
    for (const char* key : {"sm_clock_min_mhz", "sm_clock_max_mhz", "throttled_samples", "clock_source", "clock_reason",
             "rep_sm_clock_mhz", "rep_mem_clock_mhz", "rep_temperature_c", "rep_power_w", "rep_throttle_reasons",
             "rep_throttled"})
        j.erase(key);
    const Summary back = summaryFromJson(j);
    EXPECT_EQ(back.clockSource, "");
    EXPECT_EQ(back.clockReason, "");
    EXPECT_TRUE(back.clockMHz.empty());
    EXPECT_TRUE(back.throttled.empty());
    EXPECT_EQ(back.throttledSamples, 0);
    EXPECT_EQ(back.samplesMs.size(), 3u);

    Summary unsampled;
    unsampled.clockReason = "NVML not found";
    const auto k = toJson(unsampled);
    EXPECT_TRUE(k["sm_clock_min_mhz"].is_null());
    EXPECT_TRUE(k["throttled_samples"].is_null());
    EXPECT_EQ(summaryFromJson(k).clockReason, "NVML not found");
}

} // namespace
} // namespace ks::test
