// Multi-device variants (NCCL, a thread per GPU): their results equal the single-device variants' (sdh counts,
// lrv bits per pair, linreg on one device bit for bit and the same merge every time on several), their Summary
// carries each device's time and the scaling efficiency, and the device list is checked. They run on however many
// GPUs the machine has (one: NCCL with a single rank); without a GPU the GPU tests skip.
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/work_split.h"
#include "compute/device/device_info.h"
#include "data/expression_table.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <map>

namespace ks {
namespace {

const Workload& workload(const std::string& id)
{
    return *defaultRegistry().find(id);
}

/// Why one of the variants cannot run here; empty when all can.
std::string unavailable(const std::string& w, std::initializer_list<const char*> ids)
{
    for (const char* id : ids)
        if (const auto reason = unavailableReason(*workload(w).findVariant(id)); !reason.empty())
            return std::string(id) + ": " + reason;
    return {};
}

#define SKIP_UNLESS_RUNNABLE(w, a, b)                                                                                  \
    if (const auto why = unavailable(w, {a, b}); !why.empty()) {                                                       \
        GTEST_SKIP() << why;                                                                                           \
    }

data::Dataset generated(const std::string& w, std::map<std::string, std::string> g)
{
    return workload(w).generate(ParamSet::parse(workload(w).generatorParameters(), g));
}

struct Ran {
    Result result;
    Facts facts;
    std::string note;
};

/// The variant prepared on `devices` (empty: every device), run `reps` times, its result, facts and note.
Ran runOn(const std::string& w, const std::string& id, const data::Dataset& d, std::vector<int> devices = {},
    std::map<std::string, std::string> params = {}, int reps = 2)
{
    const auto parsed = ParamSet::parse(workload(w).parameters(), params);
    RunContext context {0, &steadyClock()};
    context.devices = std::move(devices);
    auto run = workload(w).findVariant(id)->prepare(d, parsed, context);
    for (int r = 0; r < reps; ++r) {
        run->timer().start();
        run->run();
        run->timer().stop();
        run->timer().elapsedMs();
    }
    Ran ran {run->fetch(), run->facts(), {}};
    ran.note = run->note();
    return ran;
}

std::optional<double> fact(const Facts& facts, const std::string& name)
{
    for (const auto& [k, v] : facts)
        if (k == name)
            return v;
    return std::nullopt;
}

std::vector<std::vector<int>> deviceLists()
{
    const int present = static_cast<int>(device::cudaDevices().size());
    std::vector<std::vector<int>> lists {{0}};
    if (present > 1)
        lists.push_back({}); // every device
    if (present > 2)
        lists.push_back({1, 0}); // two, in another order
    return lists;
}

TEST(MultiDevice, SdhCountsEqualTiledF32OnEveryDeviceList)
{
    SKIP_UNLESS_RUNNABLE("sdh", "tiled_f32", "tiled_f32_multi");
    // An awkward size: the last tile is partial, and a few buckets with a width that puts pairs near edges.
    const auto d = generated("sdh", {{"points", "70001"}, {"shape", "clusters"}});
    const Result single = runOn("sdh", "tiled_f32", d).result;
    for (const auto& devices : deviceLists()) {
        const Ran multi = runOn("sdh", "tiled_f32_multi", d, devices, {{"bucket_width", "137"}});
        const Result singleW = runOn("sdh", "tiled_f32", d, {}, {{"bucket_width", "137"}}).result;
        EXPECT_EQ(multi.result.counts, singleW.counts) << multi.note;
        EXPECT_NE(multi.note.find("NCCL"), std::string::npos) << multi.note;
    }
    const Ran all = runOn("sdh", "tiled_f32_multi", d);
    EXPECT_EQ(all.result.counts, single.counts);
    std::uint64_t pairs = 0;
    for (auto c : all.result.counts)
        pairs += c;
    EXPECT_EQ(pairs, 70001ull * 70000ull / 2);
    const auto devices = fact(all.facts, "devices");
    ASSERT_TRUE(devices);
    EXPECT_EQ(*devices, static_cast<double>(device::cudaDevices().size()));
    ASSERT_TRUE(fact(all.facts, "gpu0 kernel ms"));
    ASSERT_TRUE(fact(all.facts, "1-GPU ms"));
    const auto efficiency = fact(all.facts, "scaling efficiency");
    ASSERT_TRUE(efficiency);
    EXPECT_GT(*efficiency, 0.0);
    EXPECT_NE(all.note.find("scaling efficiency"), std::string::npos) << all.note;
}

TEST(MultiDevice, SdhWithFewerTilePairsThanDevicesStillCountsEveryPair)
{
    SKIP_UNLESS_RUNNABLE("sdh", "tiled_f32", "tiled_f32_multi");
    for (const char* points : {"1", "2", "5", "2049"}) {
        const auto d = generated("sdh", {{"points", points}});
        EXPECT_EQ(runOn("sdh", "tiled_f32_multi", d).result.counts, runOn("sdh", "tiled_f32", d).result.counts)
            << points << " points";
    }
}

TEST(MultiDevice, LrvPairsAreBitIdenticalToDmmaRefined)
{
    SKIP_UNLESS_RUNNABLE("lrv", "dmma_refined", "dmma_refined_multi");
    for (const auto& g :
        std::vector<std::map<std::string, std::string>> {{{"samples", "37"}, {"features", "3001"}, {"planted", "12"}},
            {{"samples", "80"}, {"features", "130"}, {"planted", "3"}},
            {{"samples", "5"}, {"features", "2"}, {"planted", "0"}}}) {
        const auto d = generated("lrv", g);
        const Result single = runOn("lrv", "dmma_refined", d).result;
        for (const auto& devices : deviceLists()) {
            const Ran multi = runOn("lrv", "dmma_refined_multi", d, devices);
            ASSERT_EQ(multi.result.values.size(), single.values.size());
            for (std::size_t k = 0; k < single.values.size(); ++k)
                ASSERT_EQ(std::bit_cast<std::uint64_t>(multi.result.values[k]),
                    std::bit_cast<std::uint64_t>(single.values[k]))
                    << "pair " << k << " of " << g.at("features") << " features; " << multi.note;
        }
    }
}

TEST(MultiDevice, LrvFallbackIsDecidedOverEveryDeviceAsOnOne)
{
    SKIP_UNLESS_RUNNABLE("lrv", "dmma_refined", "dmma_refined_multi");
    // Every feature proportional to the first: every pair's expansion cancels, far more pairs are flagged than the
    // worklist holds, and the whole triangle falls back to the direct kernel — on one device as on several, though
    // no device's own share may overflow.
    data::ExpressionTable t;
    t.samples = 9;
    t.features = 700;
    for (std::size_t k = 0; k < t.samples; ++k)
        for (std::size_t i = 0; i < t.features; ++i)
            t.values.push_back((1.0 + static_cast<double>(k * k % 7)) * (1.0 + 0.001 * static_cast<double>(i)));
    for (std::size_t k = 0; k < t.samples; ++k)
        t.sampleNames.push_back("S" + std::to_string(k));
    for (std::size_t i = 0; i < t.features; ++i)
        t.featureNames.push_back("G" + std::to_string(i));
    const auto d = data::makeExpressionDataset(std::move(t), "proportional", "test");
    const Result single = runOn("lrv", "dmma_refined", d).result;
    const Result multi = runOn("lrv", "dmma_refined_multi", d).result;
    ASSERT_EQ(multi.values.size(), single.values.size());
    for (std::size_t k = 0; k < single.values.size(); ++k)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(multi.values[k]), std::bit_cast<std::uint64_t>(single.values[k]))
            << "pair " << k;
}

TEST(MultiDevice, LinregOnOneDeviceIsWarpShuffleBitForBitAndTheMergeIsTheSameEveryTime)
{
    SKIP_UNLESS_RUNNABLE("linreg", "warp_shuffle", "warp_shuffle_multi");
    for (const char* precision : {"f64", "f32"}) {
        const auto d = generated("linreg", {{"n", "1000003"}});
        const std::map<std::string, std::string> params {{"precision", precision}};
        const Result single = runOn("linreg", "warp_shuffle", d, {}, params).result;
        const Result one = runOn("linreg", "warp_shuffle_multi", d, {0}, params).result;
        ASSERT_EQ(one.values.size(), 2u);
        for (std::size_t k = 0; k < 2; ++k)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(one.values[k]), std::bit_cast<std::uint64_t>(single.values[k]))
                << precision;
        const Result all = runOn("linreg", "warp_shuffle_multi", d, {}, params).result;
        const Result again = runOn("linreg", "warp_shuffle_multi", d, {}, params, 5).result;
        for (std::size_t k = 0; k < 2; ++k) {
            EXPECT_EQ(std::bit_cast<std::uint64_t>(all.values[k]), std::bit_cast<std::uint64_t>(again.values[k]));
            EXPECT_NEAR(all.values[k], single.values[k], 1e-9 * std::max(1.0, std::abs(single.values[k])));
        }
    }
}

TEST(MultiDevice, ARunnerSummaryNamesTheDevicesAndTheScaling)
{
    SKIP_UNLESS_RUNNABLE("sdh", "tiled_f32", "tiled_f32_multi");
    const Workload& sdh = workload("sdh");
    RunRequest request;
    request.workload = &sdh;
    request.variant = sdh.findVariant("tiled_f32_multi");
    request.dataset = generated("sdh", {{"points", "20000"}});
    request.params = ParamSet::parse(sdh.parameters(), {});
    request.options.minRepetitions = 3;
    request.options.maxRepetitions = 3;
    Runner runner;
    runner.setCeilingsProvider({});
    request.reference = runner.computeReference(sdh, request.dataset, request.params);
    RunObserver none;
    const Summary s = runner.run(request, none);
    EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
    EXPECT_NE(s.message.find("scaling efficiency"), std::string::npos) << s.message;
    EXPECT_TRUE(fact(s.facts, "scaling efficiency"));
    const auto present = device::cudaDevices().size();
    if (present > 1) {
        EXPECT_EQ(s.device.name.find(std::to_string(present) + " × "), 0u) << s.device.name;
    }
}

TEST(MultiDeviceList, EmptyMeansEveryDeviceAndAnUnknownOrRepeatedOrdinalIsRefused)
{
    const int present = static_cast<int>(device::cudaDevices().size());
    EXPECT_EQ(resolveDevices({}).size(), static_cast<std::size_t>(present));
    EXPECT_THROW(resolveDevices({present}), ParameterError);
    EXPECT_THROW(resolveDevices({-1}), ParameterError);
    try {
        resolveDevices({present + 3});
        FAIL();
    } catch (const ParameterError& e) {
        EXPECT_NE(
            std::string(e.what()).find("device " + std::to_string(present + 3) + " does not exist"), std::string::npos)
            << e.what();
    }
    if (present > 0) {
        EXPECT_EQ(resolveDevices({0}), std::vector<int> {0});
        EXPECT_THROW(resolveDevices({0, 0}), ParameterError);
    }
}

TEST(MultiDeviceList, EveryMultiDeviceVariantSaysWhyItCannotRunWithoutAGpu)
{
    if (!device::cudaDevices().empty())
        GTEST_SKIP() << "a GPU is present";
    int multi = 0;
    for (const auto& w : defaultRegistry().workloads())
        for (const Variant& v : w->variants())
            if (v.multiDevice) {
                ++multi;
                EXPECT_FALSE(unavailableReason(v).empty()) << v.id;
                EXPECT_EQ(v.backend, Backend::Cuda) << v.id;
            }
    EXPECT_EQ(multi, 3);
}

TEST(MultiDeviceSplit, EqualWorkBoundsAreAlignedAndShareTheWorkEvenly)
{
    const auto triangle
        = [](std::uint64_t rows) { return static_cast<double>(rows) * static_cast<double>(rows - (rows > 0)) / 2.0; };
    for (int parts : {1, 2, 3, 4, 8})
        for (std::uint64_t total :
            {std::uint64_t(1), std::uint64_t(63), std::uint64_t(64), std::uint64_t(3001), std::uint64_t(100000)}) {
            const auto b = equalWorkBounds(total, parts, 64, triangle);
            ASSERT_EQ(b.size(), static_cast<std::size_t>(parts) + 1);
            EXPECT_EQ(b.front(), 0u);
            EXPECT_EQ(b.back(), total);
            for (int k = 1; k <= parts; ++k) {
                EXPECT_LE(b[k - 1], b[k]);
                if (k < parts) {
                    EXPECT_TRUE(b[k] % 64 == 0 || b[k] == total) << b[k];
                }
            }
            if (total == 100000) { // a tile of rows is at most 64 · 100,000 pairs of 5·10⁹: shares within 0.3 %
                for (int k = 0; k < parts; ++k) {
                    EXPECT_NEAR((triangle(b[k + 1]) - triangle(b[k])) / triangle(total), 1.0 / parts, 0.003);
                }
            }
        }
    const auto linear = equalWorkBounds(10, 4, 1, [](std::uint64_t n) { return static_cast<double>(n); });
    EXPECT_EQ(linear, (std::vector<std::uint64_t> {0, 3, 5, 8, 10}));
}

} // namespace
} // namespace ks
