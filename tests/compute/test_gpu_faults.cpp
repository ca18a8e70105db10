// GPU faults on a real device, with the test-only variants of gpu_fault_variants.cu added to spmv here (never to the
// product's registry): an allocation larger than the device fails that run alone, and a kernel that writes out of
// bounds breaks the CUDA context, which the runner reports once. Every case skips with the reason without a GPU.
//
// Each case is its own CTest test (its own process); the sticky case also runs its sweep in a child process of its
// own (a death test re-executing this binary), so even a run of the whole binary keeps the other cases' context whole.
#include "compute/core/device_fault.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"
#include "compute/device/device_info.h"
#include "gpu_fault_variants.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>

namespace ks::test {
namespace {

/// spmv as the product registers it, plus the test-only variants.
class SpmvWithFaults final : public Workload {
public:
    explicit SpmvWithFaults(const Workload& spmv)
        : m_spmv(spmv)
    {
        m_variants = spmv.variants();
        m_variants.push_back(gpuVariant(
            "faulty", "Faulty (test only)", "writes far past the end of y", Backend::Cuda, PrepareFn(&prepareFaulty)));
        m_variants.push_back(gpuVariant("hungry", "Hungry (test only)", "asks for more memory than the device has",
            Backend::Cuda, PrepareFn(&prepareHungry)));
    }
    std::string id() const override { return m_spmv.id(); }
    std::string name() const override { return m_spmv.name(); }
    std::string description() const override { return m_spmv.description(); }
    std::string datasetKind() const override { return m_spmv.datasetKind(); }
    std::string filePatterns() const override { return m_spmv.filePatterns(); }
    std::vector<Axis> parameters() const override { return m_spmv.parameters(); }
    std::vector<Axis> generatorParameters() const override { return m_spmv.generatorParameters(); }
    std::string sizeParameter() const override { return m_spmv.sizeParameter(); }
    data::Dataset generate(const ParamSet& generator) const override { return m_spmv.generate(generator); }
    data::Dataset load(const std::string& path, const data::ReadOptions& options) const override
    {
        return m_spmv.load(path, options);
    }
    bool takesVector() const override { return m_spmv.takesVector(); }
    void checkRun(const ParamSet& params, const data::Dataset* dataset, const ParamSet* generator,
        std::uint64_t size) const override
    {
        m_spmv.checkRun(params, dataset, generator, size);
    }
    std::optional<data::Dataset> subset(const data::Dataset& dataset, std::uint64_t size) const override
    {
        return m_spmv.subset(dataset, size);
    }
    bool fullReferenceAffordable(const data::Dataset& dataset, const ParamSet& params) const override
    {
        return m_spmv.fullReferenceAffordable(dataset, params);
    }
    Cost cost(const data::Dataset& dataset, const ParamSet& params) const override
    {
        return m_spmv.cost(dataset, params);
    }
    double tolerance(const ParamSet& params) const override { return m_spmv.tolerance(params); }
    std::optional<int> fixedRepetitions(const ParamSet& params) const override
    {
        return m_spmv.fixedRepetitions(params);
    }
    Delta compare(const Result& result, const Result& reference, const data::Dataset& dataset,
        const ParamSet& params) const override
    {
        return m_spmv.compare(result, reference, dataset, params);
    }
    Facts resultFacts(
        const Result& result, const data::Dataset& dataset, const ParamSet& params, Backend backend) const override
    {
        return m_spmv.resultFacts(result, dataset, params, backend);
    }
    TestPlan testPlan() const override { return m_spmv.testPlan(); }

private:
    const Workload& m_spmv;
};

bool haveGpu()
{
    return !device::cudaDevices().empty() && device::cudaUnavailableReason().empty();
}

std::vector<Summary> sweep(
    const Workload& workload, std::vector<std::string> variants, std::vector<std::uint64_t> sizes)
{
    Runner runner;
    runner.setCeilingsProvider({});
    SweepRequest request;
    request.workload = &workload;
    request.variantIds = std::move(variants);
    request.sizes = std::move(sizes);
    request.options.minRepetitions = 3;
    request.options.maxRepetitions = 5;
    request.options.timeLimitS = 1.0;
    struct Quiet final : RunObserver {
    } quiet;
    return runSweep(request, runner, quiet);
}

std::string table(const std::vector<Summary>& rows)
{
    std::string text;
    for (const auto& s : rows)
        text += s.variant + " at " + std::to_string(s.size) + ": " + outcomeName(s.outcome) + " " + s.message + "\n";
    return text;
}

bool endsWith(const std::string& text, const std::string& tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(GpuFaults, AnAllocationLargerThanTheDeviceFailsThatRunWithTheFiguresAndTheNextPasses)
{
    if (!haveGpu())
        GTEST_SKIP() << "needs a CUDA device: " << device::cudaUnavailableReason();
    const SpmvWithFaults workload(*defaultRegistry().find("spmv"));
    const auto rows = sweep(workload, {"hungry", "scalar", "cpu_openmp"}, {4096});
    ASSERT_EQ(rows.size(), 3u) << table(rows);
    EXPECT_EQ(rows[0].outcome, Outcome::Failed) << table(rows);
    EXPECT_EQ(rows[0].message.rfind("variant hungry: out of device memory: needs ", 0), 0u) << rows[0].message;
    EXPECT_NE(rows[0].message.find(" on the device, "), std::string::npos) << rows[0].message;
    EXPECT_NE(rows[0].message.find(" free of "), std::string::npos) << rows[0].message;
    EXPECT_EQ(rows[1].outcome, Outcome::Passed) << table(rows);
    EXPECT_EQ(rows[2].outcome, Outcome::Passed) << table(rows);
    // Not sticky, and cleared: nothing is left for the next call to find.
    EXPECT_EQ(takeLastCudaError(), "");
    EXPECT_EQ(device::cudaUnusableReason(), "");
}

TEST(GpuFaults, ACheckOfFreeMemoryRefusesMoreThanTheDeviceHas)
{
    if (!haveGpu())
        GTEST_SKIP() << "needs a CUDA device: " << device::cudaUnavailableReason();
    device::selectDevice(0);
    const std::size_t total = deviceTotalBytes();
    try {
        device::requireDeviceMemory(total + 1, "a test dataset");
        FAIL() << "no DeviceOutOfMemory";
    } catch (const DeviceOutOfMemory& e) {
        EXPECT_EQ(std::string(e.what()).rfind("a test dataset: needs ", 0), 0u) << e.what();
        EXPECT_FALSE(e.sticky());
    }
    EXPECT_EQ(takeLastCudaError(), "");
}

/// The sweep with the faulty variant and what must hold after it: the number of checks that failed, each named on
/// stderr. It leaves this process's CUDA context broken.
int faultySweepFailures()
{
    const SpmvWithFaults workload(*defaultRegistry().find("spmv"));
    const auto rows
        = sweep(workload, {"scalar", "cpu_openmp", "faulty", "vector", "cusparse", "reference"}, {4096, 8192});
    const std::string tail = ") after spmv/faulty at 4096: CUDA variants are unavailable until restart";
    int failures = 0;
    auto check = [&](bool ok, const std::string& what) {
        if (!ok) {
            std::cerr << "FAILED: " << what << '\n';
            ++failures;
        }
    };
    check(rows.size() == 12, "twelve rows");
    std::string report;
    int failed = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Summary& s = rows[i];
        const bool firstSize = i < 6;
        const bool gpu = s.backend != "cpu";
        if (s.outcome == Outcome::Failed) {
            ++failed;
            report = s.message;
        }
        if (firstSize && s.variant == "scalar")
            check(s.outcome == Outcome::Passed && s.repetitions >= 3, "scalar before the fault is kept");
        else if (s.variant == "faulty" && firstSize)
            check(s.outcome == Outcome::Failed, "faulty fails");
        else if (gpu)
            check(s.outcome == Outcome::Skipped && s.message == report,
                "a later CUDA variant is skipped with the report: " + s.variant + " at " + std::to_string(s.size) + ": "
                    + s.message);
        else
            check(s.outcome == Outcome::Passed, "a CPU variant runs: " + s.variant + ": " + s.message);
    }
    check(failed == 1, "the fault is reported once");
    check(report.rfind("the CUDA context is broken (", 0) == 0 && endsWith(report, tail),
        "the report says what and where: " + report);
    check(device::cudaUnusableReason() == report, "CUDA is marked unusable with the report");
    if (failures > 0)
        std::cerr << table(rows);
    std::cerr.flush();
    return failures;
}

TEST(GpuFaults, AFaultyVariantBreaksTheContextOnceAndOnlyCpuVariantsRunAfterIt)
{
    if (!haveGpu())
        GTEST_SKIP() << "needs a CUDA device: " << device::cudaUnavailableReason();
    // The child re-executes this binary (no fork of a process that may hold a CUDA context) and exits 0 when every
    // check holds; otherwise its stderr says which failed.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            const int failures = faultySweepFailures();
            // Straight out: the runtime's teardown has nothing to do in a broken context.
            std::_Exit(failures == 0 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

// The same sweep in this process, for compute-sanitizer, under which the death test's child hangs: run alone with
// KS_GPU_FAULT_DIRECT=1 and --gtest_filter=GpuFaults.DirectlyInThisProcess; memcheck must then report the faulty
// kernel's writes and nothing else. Without the variable it skips, so a run of the whole binary keeps its context.
TEST(GpuFaults, DirectlyInThisProcess)
{
    if (std::getenv("KS_GPU_FAULT_DIRECT") == nullptr)
        GTEST_SKIP() << "set KS_GPU_FAULT_DIRECT=1 to run the faulty sweep in this process (for compute-sanitizer)";
    if (!haveGpu())
        GTEST_SKIP() << "needs a CUDA device: " << device::cudaUnavailableReason();
    EXPECT_EQ(faultySweepFailures(), 0);
}

} // namespace
} // namespace ks::test
