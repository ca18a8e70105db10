// The cnn workload in the engine: a run is exactly `steps` training steps whose Samples carry the loss, warm-ups do
// not train the measured run, the first step's gradients are compared under the variant's own piecewise choices,
// and a wrong gradient or an impossible choice is caught.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/workloads/cnn/cnn.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>

namespace ks::cnn {
namespace {

const Workload& cnnWorkload()
{
    return *defaultRegistry().find("cnn");
}

data::Dataset generated(std::map<std::string, std::string> values = {})
{
    values.try_emplace("images", "24");
    values.try_emplace("height", "12");
    values.try_emplace("width", "12");
    return cnnWorkload().generate(ParamSet::parse(cnnWorkload().generatorParameters(), values));
}

Summary runVariant(
    const std::string& id, const data::Dataset& d, const ParamSet& params, int warmup = 2, double timeLimitS = 600)
{
    Runner runner;
    runner.setCeilingsProvider({});
    RunOptions options;
    options.warmup = warmup;
    options.flushL2 = false;
    options.timeLimitS = timeLimitS;
    const Workload& w = cnnWorkload();
    RunRequest request {&w, w.findVariant(id), d, params, options, runner.computeReference(w, d, params), "t"};
    RunObserver none;
    return runner.run(request, none);
}

TEST(Cnn, ARunIsExactlyItsStepsEachWithItsLoss)
{
    const auto d = generated();
    const auto params = ParamSet::parse(cnnWorkload().parameters(), {{"steps", "7"}, {"batch", "8"}});
    const Summary s = runVariant("cpu_openmp", d, params);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.repetitions, 7);
    ASSERT_EQ(s.sampleMetrics.size(), 7u);
    for (double loss : s.sampleMetrics)
        EXPECT_TRUE(std::isfinite(loss) && loss > 0.0);
    // Warm-ups train too, but the measured run starts again from the initial weights: its first loss is the one
    // of a run without warm-ups.
    const Summary cold = runVariant("cpu_openmp", d, params, 0);
    EXPECT_EQ(cold.sampleMetrics.front(), s.sampleMetrics.front());
    EXPECT_EQ(cold.sampleMetrics, s.sampleMetrics);
}

TEST(Cnn, TheStepsAskedForRunWhateverTheTimeLimit)
{
    const auto params = ParamSet::parse(cnnWorkload().parameters(), {{"steps", "3"}, {"batch", "4"}});
    const Summary s = runVariant("reference", generated(), params, 1, 1e-9);
    EXPECT_EQ(s.repetitions, 3);
    EXPECT_EQ(s.sampleMetrics.size(), 3u);
}

TEST(Cnn, TheCpuVariantIsWithinFloatRoundingOfTheReference)
{
    const auto d = generated({{"channels", "3"}, {"height", "16"}, {"width", "16"}});
    const auto params = ParamSet::parse(cnnWorkload().parameters(), {{"steps", "2"}, {"batch", "24"}});
    const Summary s = runVariant("cpu_openmp", d, params);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_LT(s.delta.value, 1e-5);
    EXPECT_GT(s.delta.value, 0.0); // float, not double
    ASSERT_NE(s.result, nullptr);
    EXPECT_EQ(s.result->names.front(), "conv1.weight");
}

TEST(Cnn, ARunSaysWhetherItsTrainingIsRepeatableAndWhereItsTimeGoes)
{
    const auto d = generated();
    const auto params = ParamSet::parse(cnnWorkload().parameters(), {{"steps", "3"}, {"batch", "8"}});
    for (const char* id : {"reference", "cpu_openmp"}) {
        const Summary s = runVariant(id, d, params);
        EXPECT_EQ(s.deterministic, std::optional<bool>(true)) << id;
        // The trained weights, one array per tensor with its dimensions, are what --output saves.
        ASSERT_NE(s.result, nullptr);
        const Layout layout({1, 12, 12});
        ASSERT_EQ(s.result->arrays.size(), layout.tensors().size());
        EXPECT_EQ(s.result->arrays[0].name, "conv1.weight");
        EXPECT_EQ(s.result->arrays[0].dims, (std::vector<std::uint64_t> {32, 1, 3, 3}));
        const std::vector<float> initial = initialParameters(layout, 1);
        EXPECT_NE(s.result->arrays[0].values, std::vector<float>(initial.begin(), initial.begin() + 288));
        std::vector<std::string> phases;
        for (const auto& [name, ms] : s.facts)
            if (name.starts_with("time ")) {
                phases.push_back(name.substr(5));
                EXPECT_GE(ms, 0.0) << name;
            }
        const std::vector<std::string> expected {"conv1 forward", "pool1 forward", "conv2 forward", "pool2 forward",
            "fc1 forward", "fc2 forward", "loss", "fc2 backward", "fc1 backward", "pool2 backward", "conv2 backward",
            "pool1 backward", "conv1 backward", "update"};
        EXPECT_EQ(phases, expected) << id;
    }
}

TEST(Cnn, AWrongGradientOrAnImpossibleChoiceIsCaught)
{
    const Workload& w = cnnWorkload();
    const auto d = generated();
    const auto params = ParamSet::parse(w.parameters(), {{"steps", "1"}, {"batch", "6"}});
    const Summary s = runVariant("cpu_openmp", d, params);
    ASSERT_NE(s.result, nullptr);
    Runner runner;
    const auto reference = runner.computeReference(w, d, params);

    Result wrongGradient = *s.result;
    wrongGradient.values[Layout({1, 12, 12}).tensor("conv2.weight").offset + 5] += 1e-3;
    EXPECT_FALSE(w.compare(wrongGradient, *reference, d, params).withinTolerance());

    // Every window of the first pooling layer takes its smallest input instead of its largest.
    Result wrongChoice = *s.result;
    Decisions decisions = Decisions::unpack(wrongChoice.counts);
    for (auto& index : decisions.pool1)
        index ^= 1u; // the horizontal neighbour within the window
    wrongChoice.counts = decisions.pack();
    const Delta delta = w.compare(wrongChoice, *reference, d, params);
    EXPECT_FALSE(delta.withinTolerance());
    EXPECT_GT(delta.details.front().second, 0.0) << delta.details.front().first;

    Result truncated = *s.result;
    truncated.counts.pop_back();
    EXPECT_THROW(w.compare(truncated, *reference, d, params), ComputeError);
}

TEST(Cnn, TheAtomicFreeVariantIsBitwiseDeterministic)
{
    const Variant& v3 = *cnnWorkload().findVariant("v3_atomic_free");
    if (const auto reason = unavailableReason(v3); !reason.empty())
        GTEST_SKIP() << reason;
    const auto d = generated({{"channels", "3"}, {"height", "16"}, {"width", "20"}, {"images", "50"}});
    const auto params = ParamSet::parse(cnnWorkload().parameters(), {{"steps", "5"}, {"batch", "32"}});
    const Summary first = runVariant("v3_atomic_free", d, params);
    const Summary second = runVariant("v3_atomic_free", d, params);
    EXPECT_EQ(first.outcome, Outcome::Passed) << first.message;
    ASSERT_NE(first.result, nullptr);
    ASSERT_NE(second.result, nullptr);
    EXPECT_EQ(first.sampleMetrics, second.sampleMetrics);
    EXPECT_EQ(first.result->values, second.result->values);
    EXPECT_EQ(first.deterministic, std::optional<bool>(true));
    ASSERT_FALSE(first.result->arrays.empty());
    EXPECT_EQ(first.result->arrays.front().values, second.result->arrays.front().values);
    // The same decomposition as cpu_openmp, in another summation order: close, not equal.
    const Summary cpu = runVariant("cpu_openmp", d, params);
    ASSERT_EQ(cpu.sampleMetrics.size(), first.sampleMetrics.size());
    for (std::size_t i = 0; i < cpu.sampleMetrics.size(); ++i)
        EXPECT_NEAR(first.sampleMetrics[i], cpu.sampleMetrics[i], 1e-3 * cpu.sampleMetrics[i]) << "step " << i;
}

TEST(Cnn, DecisionsSurviveTheirPacking)
{
    Decisions d;
    d.relu1 = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    d.pool1 = {0, 3, 17, 4'000'000'000u, 5};
    d.relu2 = std::vector<std::uint8_t>(130, 1);
    d.relu2[64] = 0;
    d.pool2 = {9};
    const auto words = d.pack();
    const Decisions back = Decisions::unpack(words);
    EXPECT_EQ(back.relu1, d.relu1);
    EXPECT_EQ(back.pool1, d.pool1);
    EXPECT_EQ(back.relu2, d.relu2);
    EXPECT_EQ(back.pool2, d.pool2);
    EXPECT_TRUE(back.relu3.empty());
    auto longer = words;
    longer.push_back(0);
    EXPECT_THROW(Decisions::unpack(longer), std::invalid_argument);
    EXPECT_THROW(Decisions::unpack(std::vector<std::uint64_t> {1, 2}), std::invalid_argument);
}

TEST(Cnn, TrainsOnRealFashionMnist)
{
    const std::string folder = "/usr/share/datasets/fashion-mnist";
    if (!std::filesystem::exists(folder + "/t10k-images-idx3-ubyte.gz"))
        GTEST_SKIP() << folder << " is absent (Debian's dataset-fashion-mnist; the set-up command installs it)";
    data::ReadOptions options;
    options.params = {{"split", "test"}};
    const data::Dataset full = cnnWorkload().load(folder, options);
    EXPECT_EQ(full.meta().size, 10'000u);
    const data::Dataset d = *cnnWorkload().subset(full, 512);
    const auto params = ParamSet::parse(cnnWorkload().parameters(), {{"steps", "3"}, {"batch", "16"}});
    const Summary s = runVariant("cpu_openmp", d, params, 0);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(s.repetitions, 3);
    // He-initialised logits start near chance (ln 10 ≈ 2.3), a little above it.
    EXPECT_GT(s.sampleMetrics.front(), 1.5);
    EXPECT_LT(s.sampleMetrics.front(), 6.0);
}

} // namespace
} // namespace ks::cnn
