// The cnn workload after a run: the trained weights scored on the held-out images (facts accuracy and
// accuracy_images), on the CPU and, for GPU variants, with the GPU forward kernels (the two agree); the features file
// in HDF5 and LIBSVM text; subsets keep the held-out split; a features file that cannot be written fails the run with
// one clear message and keeps what was measured.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/device/device_info.h"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/cnn/evaluation.h"
#include "data/hdf5_file.h"
#include "data/text_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <unistd.h>

namespace ks::cnn {
namespace {

const Workload& cnnWorkload()
{
    return *defaultRegistry().find("cnn");
}

data::Dataset generated(std::map<std::string, std::string> values = {})
{
    values.try_emplace("images", "256");
    values.try_emplace("held_out", "200");
    values.try_emplace("height", "12");
    values.try_emplace("width", "12");
    values.try_emplace("seed", "3");
    return cnnWorkload().generate(ParamSet::parse(cnnWorkload().generatorParameters(), values));
}

ParamSet params(std::map<std::string, std::string> values)
{
    return ParamSet::parse(cnnWorkload().parameters(), values);
}

Summary runVariant(const std::string& id, const data::Dataset& d, const ParamSet& p)
{
    Runner runner;
    runner.setCeilingsProvider({});
    RunOptions options;
    options.warmup = 0;
    options.flushL2 = false;
    const Workload& w = cnnWorkload();
    RunRequest request {&w, w.findVariant(id), d, p, options, runner.computeReference(w, d, p), "t"};
    RunObserver none;
    return runner.run(request, none);
}

std::optional<double> fact(const Summary& s, const std::string& name)
{
    for (const auto& [key, value] : s.facts)
        if (key == name)
            return value;
    return std::nullopt;
}

std::optional<double> fact(const Facts& facts, const std::string& name)
{
    for (const auto& [key, value] : facts)
        if (key == name)
            return value;
    return std::nullopt;
}

Layout layoutOf(const data::Dataset& d)
{
    return layoutFor(d.as<data::ImageSet>());
}

/// A result carrying `weights` as its trained weights, as a variant's fetch() makes it.
Result withWeights(const Layout& layout, const std::vector<float>& weights)
{
    return makeResult(layout, std::vector<double>(layout.parameterCount(), 0.0), Decisions {}, weights);
}

/// The weights after `steps` cpu_openmp steps at batch 32 on `d`.
std::vector<float> trained(const data::Dataset& d, int steps)
{
    const Summary s = runVariant("cpu_openmp", d, params({{"steps", std::to_string(steps)}, {"batch", "32"}}));
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    return trainedWeights(layoutOf(d), *s.result);
}

class TempDir : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks_cnn_eval_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_"
                + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    std::filesystem::path m_dir;
};

TEST(CnnEval, TheForwardPassIsTheTrainingStepsForwardPass)
{
    const auto d = generated({{"images", "16"}});
    const auto& set = d.as<data::ImageSet>();
    const Layout layout = layoutOf(d);
    const std::vector<float> weights = initialParameters(layout, 1);
    std::vector<float> logits(16 * 10), features(16 * 128), gradient(weights.size()), dLogits(logits.size());
    inferenceForward<float>(layout, weights, set.pixels, 16, logits, features);
    // The loss of these logits is the loss a training step computes on the same batch.
    const float loss = lossAndGradient<float>(layout, weights, set.pixels, set.labels, 16, gradient);
    EXPECT_EQ(softmaxCrossEntropy<float>(logits, 16, 10, set.labels, dLogits), loss);
    EXPECT_TRUE(std::all_of(features.begin(), features.end(), [](float f) { return f >= 0.0f; })) << "ReLU output";
    EXPECT_TRUE(std::any_of(features.begin(), features.end(), [](float f) { return f > 0.0f; }));
    // The first largest logit wins.
    EXPECT_EQ(
        predictedClasses(std::vector<float> {1, 3, 3, 0, 2, 2, 5, 5, 5}, 3, 3), (std::vector<std::uint8_t> {1, 1, 0}));
}

TEST(CnnEval, InitialWeightsScoreNearChanceAndTrainedOnesFarAbove)
{
    const auto d = generated();
    const Layout layout = layoutOf(d);
    const auto& set = d.as<data::ImageSet>();
    ASSERT_NE(set.heldOut, nullptr);
    const Facts before
        = evaluateTrained(withWeights(layout, initialParameters(layout, 1)), set, {200, ""}, ScoringDevice::Cpu);
    ASSERT_TRUE(fact(before, "accuracy"));
    EXPECT_EQ(fact(before, "accuracy_images"), 200.0);
    // Ten balanced classes: chance is 10 %.
    EXPECT_LT(*fact(before, "accuracy"), 30.0);

    const Summary s = runVariant("cpu_openmp", d, params({{"steps", "40"}, {"batch", "32"}, {"eval", "150"}}));
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    ASSERT_TRUE(fact(s, "accuracy")) << "facts of a run";
    EXPECT_EQ(fact(s, "accuracy_images"), 150.0);
    EXPECT_GT(*fact(s, "accuracy"), 60.0);
    EXPECT_FALSE(fact(s, "features_written"));
    // The accuracy is that of the weights the result carries.
    const Facts again = evaluateTrained(*s.result, set, {150, ""}, ScoringDevice::Cpu);
    EXPECT_EQ(fact(again, "accuracy"), fact(s, "accuracy"));
}

TEST(CnnEval, EvalCountsTheImagesScoredAndZeroOrNoHeldOutScoresNone)
{
    const auto d = generated({{"held_out", "40"}});
    const Layout layout = layoutOf(d);
    const Result r = withWeights(layout, initialParameters(layout, 1));
    const auto& set = d.as<data::ImageSet>();
    EXPECT_EQ(fact(evaluateTrained(r, set, {1000, ""}, ScoringDevice::Cpu), "accuracy_images"), 40.0);
    EXPECT_EQ(fact(evaluateTrained(r, set, {7, ""}, ScoringDevice::Cpu), "accuracy_images"), 7.0);
    EXPECT_TRUE(evaluateTrained(r, set, {0, ""}, ScoringDevice::Cpu).empty());
    const auto without = generated({{"held_out", "0"}});
    EXPECT_TRUE(evaluateTrained(r, without.as<data::ImageSet>(), {1000, ""}, ScoringDevice::Cpu).empty());
    // A run without a held-out split reports no accuracy and still passes.
    const Summary s = runVariant("cpu_openmp", without, params({{"steps", "1"}, {"batch", "8"}}));
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_FALSE(fact(s, "accuracy"));
    // A result without trained weights that fit cannot be scored.
    Result bare = r;
    bare.arrays.pop_back();
    EXPECT_THROW(evaluateTrained(bare, set, {10, ""}, ScoringDevice::Cpu), ComputeError);
    bare = r;
    bare.arrays[2].values.pop_back();
    EXPECT_THROW(trainedWeights(layout, bare), ComputeError);
}

TEST(CnnEval, ASubsetKeepsTheWholeHeldOutSplit)
{
    const auto d = generated();
    const auto part = cnnWorkload().subset(d, 100);
    ASSERT_TRUE(part);
    const auto& set = part->as<data::ImageSet>();
    EXPECT_EQ(set.size(), 100u);
    ASSERT_NE(set.heldOut, nullptr);
    EXPECT_EQ(set.heldOut, d.as<data::ImageSet>().heldOut);
    EXPECT_EQ(set.heldOut->size(), 200u);
}

TEST(CnnEval, TheGpuScoresLikeTheCpu)
{
    const Variant& v3 = *cnnWorkload().findVariant("v3_atomic_free");
    if (const auto reason = unavailableReason(v3); !reason.empty())
        GTEST_SKIP() << reason;
    const auto d = generated({{"channels", "3"}, {"height", "16"}, {"width", "20"}, {"held_out", "600"}});
    const auto& set = d.as<data::ImageSet>();
    const Layout layout = layoutOf(d);
    const std::vector<float> weights = trained(d, 20);
    // 600 images: batches of 256, 256 and 88 on the GPU.
    const std::size_t n = set.heldOut->size();
    std::vector<std::uint8_t> cpu(n), gpu(n);
    std::vector<float> cpuFeatures(n * 128), gpuFeatures(n * 128);
    scoreImages(ScoringDevice::Cpu, layout, weights, *set.heldOut, n, cpu, cpuFeatures);
    scoreImages(ScoringDevice::Gpu, layout, weights, *set.heldOut, n, gpu, gpuFeatures);
    float scale = 0.0f, worst = 0.0f;
    for (std::size_t i = 0; i < cpuFeatures.size(); ++i) {
        scale = std::max(scale, std::fabs(cpuFeatures[i]));
        worst = std::max(worst, std::fabs(cpuFeatures[i] - gpuFeatures[i]));
    }
    EXPECT_LT(worst, 1e-4f * scale) << "largest feature " << scale;
    // The same classes but where two logits tie within float rounding.
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i)
        differ += cpu[i] != gpu[i];
    EXPECT_LE(differ, n / 100) << differ << " of " << n << " predictions differ";
    // Without features only the classes.
    std::vector<std::uint8_t> alone(n);
    scoreImages(ScoringDevice::Gpu, layout, weights, *set.heldOut, n, alone, {});
    EXPECT_EQ(alone, gpu);

    // A GPU variant's run is scored on the GPU, and its accuracy is what the CPU finds for its weights.
    const Summary s = runVariant("v3_atomic_free", d, params({{"steps", "20"}, {"batch", "32"}, {"eval", "600"}}));
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    ASSERT_TRUE(fact(s, "accuracy"));
    EXPECT_EQ(fact(s, "accuracy_images"), 600.0);
    const Facts onCpu = evaluateTrained(*s.result, set, {600, ""}, ScoringDevice::Cpu);
    EXPECT_NEAR(*fact(s, "accuracy"), *fact(onCpu, "accuracy"), 1.0);
    EXPECT_GT(*fact(s, "accuracy"), 40.0);
}

class CnnFeatures : public TempDir { };

TEST_F(CnnFeatures, Hdf5HoldsTrainAndTestFeaturesWithLabels)
{
    const auto d = generated({{"images", "70"}, {"held_out", "30"}});
    const auto& set = d.as<data::ImageSet>();
    const Summary s = runVariant(
        "cpu_openmp", d, params({{"steps", "3"}, {"batch", "16"}, {"features", path("f.h5")}, {"eval", "0"}}));
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(fact(s, "features_written"), 100.0);
    EXPECT_FALSE(fact(s, "accuracy"));

    const Layout layout = layoutOf(d);
    const std::vector<float> weights = trainedWeights(layout, *s.result);
    const auto file = data::h5::File::open(path("f.h5"));
    for (const auto& [group, split] :
        std::vector<std::pair<std::string, const data::ImageSet*>> {{"/train", &set}, {"/test", set.heldOut.get()}}) {
        const auto info = file.info(group + "/features");
        EXPECT_EQ(info.type, "float32");
        EXPECT_EQ(info.dims, (std::vector<std::uint64_t> {split->size(), 128}));
        EXPECT_EQ(file.info(group + "/labels").type, "uint8");
        const auto labels = file.readInt32s(group + "/labels", 1);
        EXPECT_TRUE(std::equal(labels.begin(), labels.end(), split->labels.begin(), split->labels.end())) << group;
        std::vector<std::uint8_t> predicted(split->size());
        std::vector<float> expected(split->size() * 128);
        scoreImages(ScoringDevice::Cpu, layout, weights, *split, split->size(), predicted, expected);
        EXPECT_EQ(file.readFloats(group + "/features", 2, true), expected) << group;
    }
    EXPECT_FALSE(file.hasDataset("/class_names")); // generated classes have no names
}

TEST_F(CnnFeatures, LibsvmTextHoldsTrainRowsAndTestRowsInDotT)
{
    const auto d = generated({{"images", "40"}, {"held_out", "12"}});
    const auto& set = d.as<data::ImageSet>();
    // A path with a comma and an upper-case ending: text is taken as it is.
    const std::string file = path("a,b.SVM");
    const Summary s
        = runVariant("cpu_openmp", d, params({{"steps", "2"}, {"batch", "8"}, {"features", file}, {"eval", "5"}}));
    ASSERT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_EQ(fact(s, "features_written"), 52.0);
    EXPECT_EQ(fact(s, "accuracy_images"), 5.0);

    const Layout layout = layoutOf(d);
    const std::vector<float> weights = trainedWeights(layout, *s.result);
    for (const auto& [name, split] :
        std::vector<std::pair<std::string, const data::ImageSet*>> {{file, &set}, {file + ".t", set.heldOut.get()}}) {
        std::vector<std::uint8_t> predicted(split->size());
        std::vector<float> expected(split->size() * 128);
        scoreImages(ScoringDevice::Cpu, layout, weights, *split, split->size(), predicted, expected);
        std::istringstream text(data::readTextFile(name));
        std::string line;
        std::size_t row = 0, zeros = 0;
        while (std::getline(text, line)) {
            ASSERT_LT(row, split->size()) << name;
            std::istringstream fields(line);
            int label = -1;
            fields >> label;
            EXPECT_EQ(label, split->labels[row]) << name << " row " << row;
            std::vector<float> values(128, 0.0f);
            int last = 0;
            std::string item;
            while (fields >> item) {
                const auto colon = item.find(':');
                ASSERT_NE(colon, std::string::npos) << item;
                const int index = std::stoi(item.substr(0, colon));
                EXPECT_GT(index, last) << "indices ascend from 1";
                last = index;
                ASSERT_LE(index, 128);
                values[static_cast<std::size_t>(index - 1)] = std::stof(item.substr(colon + 1));
                EXPECT_NE(values[static_cast<std::size_t>(index - 1)], 0.0f) << "zeros are left out";
            }
            for (std::size_t k = 0; k < 128; ++k) {
                const float want = expected[row * 128 + k];
                zeros += want == 0.0f;
                // 9 significant digits give a float back exactly.
                EXPECT_EQ(values[k], want) << name << " row " << row << " feature " << k + 1;
            }
            ++row;
        }
        EXPECT_EQ(row, split->size()) << name;
        EXPECT_GT(zeros, 0u) << "ReLU features have zeros, left out of the lines";
    }
}

TEST_F(CnnFeatures, WithoutAHeldOutSplitOnlyTheTrainingRowsAreWritten)
{
    const auto d = generated({{"images", "20"}, {"held_out", "0"}});
    const Summary h5
        = runVariant("cpu_openmp", d, params({{"steps", "1"}, {"batch", "4"}, {"features", path("f.hdf5")}}));
    ASSERT_EQ(h5.outcome, Outcome::Passed) << h5.message;
    EXPECT_EQ(fact(h5, "features_written"), 20.0);
    const auto file = data::h5::File::open(path("f.hdf5"));
    EXPECT_TRUE(file.hasDataset("/train/features"));
    EXPECT_FALSE(file.hasGroup("/test"));
    const Summary text
        = runVariant("cpu_openmp", d, params({{"steps", "1"}, {"batch", "4"}, {"features", path("f.txt")}}));
    ASSERT_EQ(text.outcome, Outcome::Passed) << text.message;
    EXPECT_TRUE(std::filesystem::exists(path("f.txt")));
    EXPECT_FALSE(std::filesystem::exists(path("f.txt.t")));
}

TEST_F(CnnFeatures, AnUnwritableFileFailsTheRunWithOneLineAndKeepsWhatWasMeasured)
{
    const auto d = generated({{"images", "20"}, {"held_out", "10"}});
    for (const std::string name : {"missing/f.h5", "missing/f.libsvm"}) {
        const Summary s = runVariant(
            "cpu_openmp", d, params({{"steps", "2"}, {"batch", "4"}, {"features", path(name)}, {"eval", "10"}}));
        EXPECT_EQ(s.outcome, Outcome::Failed);
        EXPECT_NE(s.message.find("features not written: " + path(name) + ": no such folder " + path("missing")),
            std::string::npos)
            << s.message;
        EXPECT_NE(s.message.find("(held-out accuracy "), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("% on 10 images)"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find('\n'), std::string::npos) << "one line: " << s.message;
        // The steps and their losses, the Delta and the determinism verdict stay.
        EXPECT_EQ(s.repetitions, 2);
        EXPECT_EQ(s.sampleMetrics.size(), 2u);
        EXPECT_TRUE(s.delta.computed);
        EXPECT_EQ(s.deterministic, std::optional<bool>(true));
    }
    // An ending the writer does not know is refused with the parameter.
    EXPECT_THROW(params({{"features", path("f.csv")}}), ParameterError);
}

} // namespace
} // namespace ks::cnn
