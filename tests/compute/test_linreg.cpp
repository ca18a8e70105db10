// The linreg workload: its reference on hand-computed cases, its Delta, and the seed formula's loss of digits
// on offset data next to the stable variant that keeps them.
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/workloads/linreg/linreg.h"
#include "data/series2d.h"

#include <cmath>
#include <gtest/gtest.h>

namespace ks {
namespace {

const Workload& linreg()
{
    return *defaultRegistry().find("linreg");
}

data::Dataset points(std::vector<double> x, std::vector<double> y)
{
    data::Series2D s;
    s.x = std::move(x);
    s.y = std::move(y);
    return data::makeSeriesDataset(std::move(s), "hand", "test");
}

Result runVariant(const std::string& id, const data::Dataset& d, const std::string& precision = "f64")
{
    const auto params = ParamSet::parse(linreg().parameters(), {{"precision", precision}});
    RunContext context {0, &steadyClock()};
    auto run = linreg().findVariant(id)->prepare(d, params, context);
    run->run();
    return run->fetch();
}

TEST(LinregReference, ExactLine)
{
    const auto r = runVariant("reference", points({0, 1, 2}, {1, 3, 5}));
    EXPECT_EQ(r.labels, (std::vector<std::string> {"slope", "intercept"}));
    EXPECT_DOUBLE_EQ(r.values[0], 2.0);
    EXPECT_DOUBLE_EQ(r.values[1], 1.0);
}

TEST(LinregReference, HandComputedNoisyCase)
{
    // x̄ = 2.5, ȳ = 3.75, Sxy = 3.5, Sxx = 5: m = 0.7, c = 2.
    const auto r = runVariant("reference", points({1, 2, 3, 4}, {2, 4, 5, 4}));
    EXPECT_NEAR(r.values[0], 0.7, 1e-15);
    EXPECT_NEAR(r.values[1], 2.0, 1e-15);
}

TEST(LinregReference, UndeterminedLineIsNaN)
{
    for (const auto& d : {points({3}, {4}), points({2, 2, 2}, {1, 2, 3})}) {
        const auto r = runVariant("reference", d);
        EXPECT_TRUE(std::isnan(r.values[0]));
        EXPECT_TRUE(std::isnan(r.values[1]));
    }
}

TEST(LinregReference, Float32ReadsRoundedInputs)
{
    // 0.1 is not a float: the f32 reference fits the rounded values.
    const auto d = points({0.1, 0.2, 0.3}, {1, 2, 3});
    const auto r64 = runVariant("reference", d, "f64");
    const auto r32 = runVariant("reference", d, "f32");
    EXPECT_NE(r64.values[0], r32.values[0]);
    EXPECT_NEAR(r32.values[0], r64.values[0], 1e-5);
}

TEST(LinregDelta, RelativeErrorsAndNaNAgreement)
{
    const auto d = points({1, 2, 3}, {2, 4, 6});
    const auto params = ParamSet::parse(linreg().parameters(), {});
    const Result ref {"fit", {"slope", "intercept"}, {2.0, 0.5}, {}, {}, {}, {}};
    const Result off {"fit", {"slope", "intercept"}, {2.0 * (1 + 1e-6), 0.5}, {}, {}, {}, {}};
    const auto delta = linreg().compare(off, ref, d, params);
    EXPECT_EQ(delta.kind, "max_rel_err");
    EXPECT_NEAR(delta.value, 1e-6, 1e-12);
    EXPECT_FALSE(delta.withinTolerance());
    const Result nan {"fit", {}, {std::nan(""), std::nan("")}, {}, {}, {}, {}};
    EXPECT_EQ(linreg().compare(nan, nan, d, params).value, 0.0);
    EXPECT_TRUE(std::isinf(linreg().compare(nan, ref, d, params).value));
    EXPECT_TRUE(std::isinf(linreg().compare(ref, nan, d, params).value));
}

TEST(LinregDelta, InterceptErrorIsScaledByTheTermsItIsMadeOf)
{
    // Far from the origin c = ȳ − m·x̄ cancels: a 1e-16 slope error moves c by 1e-8 absolute.
    const auto d = points({1e8, 1e8 + 1}, {2.5e8, 2.5e8 + 2.5});
    const auto params = ParamSet::parse(linreg().parameters(), {});
    const Result ref {"fit", {}, {2.5, 0.0}, {}, {}, {}, {}};
    const Result got {"fit", {}, {2.5, 1e-8}, {}, {}, {}, {}};
    const auto delta = linreg().compare(got, ref, d, params);
    EXPECT_LT(delta.value, 1e-16);
}

TEST(LinregCost, BytesFlopsAndItems)
{
    const auto d = points({1, 2, 3, 4}, {1, 2, 3, 4});
    const auto c64 = linreg().cost(d, ParamSet::parse(linreg().parameters(), {}));
    EXPECT_EQ(c64.bytes, 64.0);
    EXPECT_EQ(c64.flops, 24.0);
    EXPECT_EQ(c64.items, 4.0);
    const auto c32 = linreg().cost(d, ParamSet::parse(linreg().parameters(), {{"precision", "f32"}}));
    EXPECT_EQ(c32.bytes, 32.0);
}

data::Dataset offsetData()
{
    const auto g = ParamSet::parse(
        linreg().generatorParameters(), {{"n", "1000003"}, {"x_offset", "1e8"}, {"noise", "1"}, {"seed", "7"}});
    return linreg().generate(g);
}

TEST(LinregOffset, TheSeedFormulaLosesDigitsFarFromTheOrigin)
{
    const auto d = offsetData();
    const auto params = ParamSet::parse(linreg().parameters(), {});
    const auto ref = runVariant("reference", d);
    const auto delta = linreg().compare(runVariant("cpu_four_sums", d), ref, d, params);
    EXPECT_GT(delta.details[0].second, 1e-6) << "the four-sums slope kept more digits than expected";
    EXPECT_NEAR(ref.values[0], 2.5, 1e-3);
}

TEST(LinregOffset, TheStableVariantKeepsTwelveDigits)
{
    const Variant& stable = *linreg().findVariant("chan_stable");
    if (const auto reason = unavailableReason(stable); !reason.empty())
        GTEST_SKIP() << reason;
    const auto d = offsetData();
    const auto params = ParamSet::parse(linreg().parameters(), {});
    const auto delta = linreg().compare(runVariant("chan_stable", d), runVariant("reference", d), d, params);
    EXPECT_LT(delta.details[0].second, 1e-12);
    EXPECT_TRUE(delta.withinTolerance());
}

TEST(LinregWorkload, SubsetTakesTheFirstPoints)
{
    const auto d = points({1, 2, 3, 4}, {5, 6, 7, 8});
    const auto part = linreg().subset(d, 3);
    ASSERT_TRUE(part.has_value());
    EXPECT_EQ(part->as<data::Series2D>().y, (std::vector<double> {5, 6, 7}));
    EXPECT_EQ(part->meta().size, 3u);
    EXPECT_FALSE(linreg().subset(d, 5).has_value());
}

TEST(LinregWorkload, ListsEveryVariantFromTheIssue)
{
    for (const char* id : {"reference", "cpu_four_sums", "cpu_openmp", "atomic_global", "shared_tree", "warp_shuffle",
             "fused_grid", "chan_stable", "cub"})
        EXPECT_NE(linreg().findVariant(id), nullptr) << id;
    EXPECT_EQ(linreg().findVariant("cub")->backend, Backend::Library);
}

} // namespace
} // namespace ks
