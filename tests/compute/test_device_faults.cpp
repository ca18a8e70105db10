// GPU faults without a GPU: what the runner and a sweep make of a device allocation that fails (that run fails with
// the figures, the next one runs) and of a sticky CUDA error (reported once, every CUDA variant skipped with the
// reason, everything measured kept, CPU variants still run). The errors are thrown by fake variants exactly as
// compute/device/cuda_check.cu throws them; test_gpu_faults.cu makes the real ones on a GPU.
#include "compute/core/device_fault.h"
#include "compute/core/errors.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"
#include "compute/device/device_info.h"
#include "fake_workload.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>

namespace ks::test {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;
const char* const kIllegalAddress = "an illegal memory access was encountered";

/// A run that sums its input, or throws what its variant was made to throw.
class FaultRun final : public PreparedRun {
public:
    FaultRun(const std::vector<double>& values, const Clock& clock, bool sticky)
        : m_values(values)
        , m_timer(clock)
        , m_sticky(sticky)
    {
    }
    void run() override
    {
        if (m_sticky)
            throw ComputeError(std::string("cudaErrorIllegalAddress (") + kIllegalAddress
                    + ") in cudaEventSynchronize(m_event) at compute/device/stream.cu:40",
                true, kIllegalAddress);
        m_sum = std::accumulate(m_values.begin(), m_values.end(), 0.0);
    }
    Result fetch() override { return Result {"sum", {"sum"}, {m_sum}, {}, {}, {}, {}}; }
    RepTimer& timer() override { return m_timer; }

private:
    const std::vector<double>& m_values;
    ClockTimer m_timer;
    bool m_sticky;
    double m_sum = std::numeric_limits<double>::quiet_NaN();
};

/// Sums numbers. Its variants: the reference; `before` and `after`, plain CPU sums; `oom`, whose prepare runs out of
/// device memory; `broken`, whose run leaves a sticky error; `gpu`, a CUDA variant that would sum if it could run.
class FaultWorkload final : public Workload {
public:
    FaultWorkload()
    {
        auto sum = [](bool sticky) {
            return
                [sticky](const data::Dataset& d, const ParamSet&, const RunContext& c) -> std::unique_ptr<PreparedRun> {
                    return std::make_unique<FaultRun>(d.as<std::vector<double>>(), *c.clock, sticky);
                };
        };
        m_variants.push_back(cpuVariant("reference", "Sum", "plain sum", sum(false)));
        m_variants.push_back(cpuVariant("before", "Before", "plain sum", sum(false)));
        m_variants.push_back(cpuVariant("oom", "Out of memory", "asks for more than the device has",
            [](const data::Dataset&, const ParamSet&, const RunContext&) -> std::unique_ptr<PreparedRun> {
                throw DeviceOutOfMemory(
                    "out of device memory: " + deviceMemoryShortfall(93 * kGiB + kGiB / 10, 79 * kGiB, 80 * kGiB));
            }));
        m_variants.push_back(cpuVariant("broken", "Broken", "breaks the context", sum(true)));
        m_variants.push_back(cpuVariant("after", "After", "plain sum", sum(false)));
        m_variants.push_back(gpuVariant("gpu", "GPU", "a CUDA variant", Backend::Cuda, sum(false)));
    }
    std::string id() const override { return "faults"; }
    std::string name() const override { return "Faults"; }
    std::string description() const override { return "sums numbers, or fails as told"; }
    std::string datasetKind() const override { return "numbers"; }
    std::string filePatterns() const override { return "*"; }
    std::vector<Axis> parameters() const override { return {}; }
    std::vector<Axis> generatorParameters() const override { return {Axis::integer("n", "count", 4096, 1, 1 << 20)}; }
    std::string sizeParameter() const override { return "n"; }
    TestPlan testPlan() const override { return {{1}, {{"plain", {}}}, {}, {}}; }
    data::Dataset generate(const ParamSet& g) const override
    {
        std::vector<double> values(static_cast<std::size_t>(g.integer("n")));
        std::iota(values.begin(), values.end(), 1.0);
        data::DatasetMeta meta;
        meta.kind = "numbers";
        meta.name = "numbers";
        meta.size = values.size();
        meta.contentHash = "n" + std::to_string(values.size());
        return data::Dataset::make(std::move(meta), std::move(values));
    }
    data::Dataset load(const std::string& path, const data::ReadOptions&) const override
    {
        throw data::DatasetError(path, "", "reads no files");
    }
    Cost cost(const data::Dataset& d, const ParamSet&) const override
    {
        const double n = static_cast<double>(d.meta().size);
        return Cost {8.0 * n, n, n, "numbers", Roof::ReadBandwidth};
    }
    double tolerance(const ParamSet&) const override { return 0.0; }
    Delta compare(const Result& r, const Result& ref, const data::Dataset&, const ParamSet& p) const override
    {
        Delta d;
        d.kind = "abs_err";
        d.tolerance = tolerance(p);
        d.value = std::fabs(r.values.at(0) - ref.values.at(0));
        d.computed = true;
        return d;
    }
};

std::vector<Summary> sweep(
    const FaultWorkload& workload, std::vector<std::string> variants, std::vector<std::uint64_t> sizes = {})
{
    FakeClock clock;
    Runner runner(clock);
    runner.setCeilingsProvider({});
    SweepRequest request;
    request.workload = &workload;
    request.variantIds = std::move(variants);
    request.sizes = std::move(sizes);
    request.options.warmup = 1;
    request.options.minRepetitions = 3;
    request.options.maxRepetitions = 3;
    request.options.flushL2 = false;
    Recorder recorder;
    return runSweep(request, runner, recorder);
}

const Summary* rowOf(const std::vector<Summary>& rows, const std::string& variant)
{
    for (const auto& s : rows)
        if (s.variant == variant)
            return &s;
    return nullptr;
}

TEST(DeviceFaults, MessagesSayTheFigures)
{
    EXPECT_EQ(deviceMemoryShortfall(93 * kGiB + kGiB / 10, 79 * kGiB + kGiB / 5, 79 * kGiB + kGiB * 3 / 5),
        "needs 93.10 GiB on the device, 79.20 GiB free of 79.60 GiB");
    EXPECT_EQ(brokenContextReport(kIllegalAddress, runPlace("spmv", "faulty", 4096)),
        "the CUDA context is broken (an illegal memory access was encountered) after spmv/faulty at 4096: CUDA "
        "variants are unavailable until restart");
}

TEST(DeviceFaults, OutOfDeviceMemoryFailsThatRunOnlyAndTheNextRuns)
{
    const FaultWorkload workload;
    const auto rows = sweep(workload, {"before", "oom", "after"});
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].outcome, Outcome::Passed) << rows[0].message;
    EXPECT_EQ(rows[1].outcome, Outcome::Failed);
    EXPECT_EQ(rows[1].message,
        "variant oom: out of device memory: needs 93.10 GiB on the device, 79.00 GiB free of 80.00 GiB");
    EXPECT_EQ(rows[2].outcome, Outcome::Passed) << rows[2].message;
    // Not sticky: nothing is marked unusable.
    EXPECT_EQ(device::cudaUnusableReason(), "");
}

TEST(DeviceFaults, AStickyErrorIsReportedOnceAndEveryCudaVariantIsSkippedWithItsReason)
{
    // Marking CUDA unusable is process-wide and permanent: the sweep runs in a child process, which exits 0 when
    // every check holds and otherwise says which failed.
    EXPECT_EXIT(
        {
            const FaultWorkload workload;
            const auto rows = sweep(workload, {"before", "broken", "gpu", "after"});
            const std::string report = "the CUDA context is broken (" + std::string(kIllegalAddress)
                + ") after faults/broken at 4096: CUDA variants are unavailable until restart";
            int failures = 0;
            auto check = [&](bool ok, const std::string& what) {
                if (!ok) {
                    std::cerr << "FAILED: " << what << '\n';
                    ++failures;
                }
            };
            check(rows.size() == 4, "four rows");
            const Summary* before = rowOf(rows, "before");
            const Summary* broken = rowOf(rows, "broken");
            const Summary* gpu = rowOf(rows, "gpu");
            const Summary* after = rowOf(rows, "after");
            check(before && before->outcome == Outcome::Passed && before->repetitions == 3,
                "the run before the fault keeps its Summary");
            check(broken && broken->outcome == Outcome::Failed && broken->message == report,
                "the faulting run is failed with the report: " + (broken ? broken->message : std::string()));
            check(gpu && gpu->outcome == Outcome::Skipped && gpu->message == report,
                "a later CUDA variant is skipped with the report: " + (gpu ? gpu->message : std::string()));
            check(after && after->outcome == Outcome::Passed, "a later CPU variant still runs");
            check(device::cudaUnusableReason() == report, "CUDA is marked unusable with the report");
            check(device::cudaUnavailableReason() == report, "the report is why CUDA is unavailable");
            check(!unavailableReason(*workload.findVariant("gpu")).empty(), "the CUDA variant is listed unavailable");
            check(unavailableReason(*workload.findVariant("after")).empty(), "a CPU variant is still available");
            std::exit(failures == 0 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(DeviceFaults, AStickyErrorAfterTheContextBrokeRepeatsTheFirstReport)
{
    // A run already under way when the context broke (an interleaved decision's other variant) meets a sticky error
    // too: it fails with the first report, not naming itself as the cause. Here the same CPU-backed variant fails
    // again at the next size.
    EXPECT_EXIT(
        {
            const FaultWorkload workload;
            const auto rows = sweep(workload, {"broken"}, {4096, 100});
            const std::string report = "the CUDA context is broken (" + std::string(kIllegalAddress)
                + ") after faults/broken at 4096: CUDA variants are unavailable until restart";
            const bool ok = rows.size() == 2 && rows[0].outcome == Outcome::Failed && rows[0].message == report
                && rows[1].outcome == Outcome::Failed && rows[1].message == report;
            if (!ok)
                for (const auto& s : rows)
                    std::cerr << s.variant << " at " << s.size << ": " << s.message << '\n';
            std::exit(ok ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(DeviceFaults, ASecondStickyErrorKeepsTheFirstReport)
{
    EXPECT_EXIT(
        {
            device::markCudaUnusable("first");
            device::markCudaUnusable("second");
            std::exit(device::cudaUnusableReason() == "first" ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace ks::test
