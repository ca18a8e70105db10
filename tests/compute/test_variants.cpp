// Every registered variant of every workload against its workload's reference, on fresh random data, over the
// sizes, data classes and parameter combinations of the workload's own test plan, and judged by the expectation on
// the variant's registration row. This file names no workload and no variant: a variant added to a register.cpp is
// tested here the same day. The same test takes every workload's user-kernel template as a user's kernel.
#include "compute/core/registry.h"
#include "compute/core/runner.h"
#include "compute/core/user_variant.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>

namespace ks {
namespace {

struct VariantCase {
    std::string workload;
    std::string variant;
    std::uint64_t size = 0;
    std::map<std::string, std::string> params;
    std::string dataClass;
    std::map<std::string, std::string> generator;
    std::string label;
    bool userTemplate = false; ///< the workload's user-kernel template as a user kernel, not a registered variant
};

/// How gtest prints a case (instead of its bytes).
void PrintTo(const VariantCase& c, std::ostream* os)
{
    *os << c.label;
}

/// Every size, parameter combination and data class of the workload's test plan for one variant.
void addCases(std::vector<VariantCase>& cases, const Workload& w, const std::string& variant, bool userTemplate)
{
    const TestPlan plan = w.testPlan();
    const auto combinations = plan.parameterCombinations(w.parameters());
    for (auto size : plan.sizes)
        for (const auto& params : combinations) {
            // A user kernel reads the workload's doubles only.
            if (const auto it = params.values.find("precision");
                userTemplate && it != params.values.end() && it->second != "f64")
                continue;
            for (const auto& data : plan.dataClasses) {
                std::string label = w.id() + "_" + variant + "_n" + std::to_string(size);
                if (!data.name.empty())
                    label += "_" + data.name;
                if (!params.name.empty())
                    label += "_" + params.name;
                cases.push_back({w.id(), variant, size, params.values, data.name, data.values, label, userTemplate});
            }
        }
}

std::vector<VariantCase> allCases()
{
    std::vector<VariantCase> cases;
    for (const auto& w : defaultRegistry().workloads())
        for (const auto& v : w->variants())
            addCases(cases, *w, v.id, false);
    return cases;
}

std::vector<VariantCase> templateCases()
{
    std::vector<VariantCase> cases;
    for (const auto& id : userKernelWorkloads())
        addCases(cases, *defaultRegistry().find(id), "template", true);
    return cases;
}

/// The workload's template written to a file and made a user variant, with what is expected of it declared as a
/// registration row declares it for a built-in variant.
Variant templateVariant(const std::string& workload)
{
    const auto dir = std::filesystem::temp_directory_path() / "kernelscope-test-templates";
    std::filesystem::create_directories(dir);
    const auto path = dir / (workload + "_template.cu");
    // Cases run as parallel processes: each writes its own file and renames it over the shared one (atomic).
    const auto own = dir / (workload + "_template." + std::to_string(std::random_device {}()) + ".tmp");
    std::ofstream(own, std::ios::binary | std::ios::trunc) << findUserKernelAbi(workload)->templateSource;
    std::filesystem::rename(own, path);
    Variant variant = makeUserVariant(workload, path);
    if (workload == "linreg") // the seed's four sums, as cpu_four_sums and atomic_global
        return variant.mayLoseDigitsOn({"offset"});
    if (workload == "sdh") // the ABI's exactly rounded bucket, as every double sdh variant
        return variant.exact("l1_pairs");
    return variant;
}

class EveryVariant : public ::testing::TestWithParam<VariantCase> { };

TEST_P(EveryVariant, MatchesTheReferenceOnFreshRandomData)
{
    const auto& c = GetParam();
    const Workload& workload = *defaultRegistry().find(c.workload);
    const Variant variant = c.userTemplate ? templateVariant(c.workload) : *workload.findVariant(c.variant);
    if (const auto reason = unavailableReason(variant); !reason.empty())
        GTEST_SKIP() << reason;

    // Fresh data every run; the seed is printed so a failure can be replayed.
    const auto seed = std::random_device {}() & 0x3fffffffu;
    auto generator = c.generator;
    generator[workload.sizeParameter()] = std::to_string(c.size);
    if (ParamSet::parse(workload.generatorParameters(), {}).has("seed"))
        generator["seed"] = std::to_string(seed);
    if (const auto fit = workload.testPlan().fitToSize)
        fit(generator, c.size);
    const auto dataset = workload.generate(ParamSet::parse(workload.generatorParameters(), generator));
    const auto params = ParamSet::parse(workload.parameters(), c.params);

    Runner runner;
    runner.setCeilingsProvider({});
    RunOptions options;
    options.warmup = 1;
    options.minRepetitions = 2;
    options.maxRepetitions = 2;
    options.flushL2 = false;
    options.timeLimitS = 600; // two repetitions even under compute-sanitizer, which slows kernels a hundredfold
    RunRequest request {
        &workload, &variant, dataset, params, options, runner.computeReference(workload, dataset, params), c.label};
    RunObserver none;
    const Summary s = runner.run(request, none);
    if (s.outcome == Outcome::Skipped) // the variant declined this input with its reason (ELL on irregular rows)
        GTEST_SKIP() << s.message;

    // Formulas known to lose digits are still run and compared; the Delta says by how much.
    const Expectation& expected = variant.expectation;
    if (expected.allowsIncorrectOn(c.dataClass)) {
        EXPECT_TRUE(s.outcome == Outcome::Passed || s.outcome == Outcome::Incorrect)
            << outcomeName(s.outcome) << ": " << s.message << " (seed " << seed << ")";
    } else {
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.message << "; delta " << s.delta.value << " > tolerance "
                                              << s.delta.tolerance << " (seed " << seed << ")";
    }
    if (expected.kind == Expectation::Kind::Exact) {
        bool found = false;
        for (const auto& [name, value] : s.delta.details) {
            if (name == expected.detail) {
                found = true;
                EXPECT_EQ(value, 0.0) << expected.detail << " differs from the reference's (seed " << seed << ")";
            }
        }
        // A Delta beyond the reference's reach has no such detail; below it, the detail must be there.
        EXPECT_TRUE(found || !workload.fullReferenceAffordable(dataset, params))
            << "the Delta has no detail '" << expected.detail << "'";
    }
    EXPECT_EQ(s.repetitions, 2);
    EXPECT_TRUE(s.delta.computed);
    ASSERT_NE(s.result, nullptr);
    EXPECT_FALSE(s.resultDropped);

    // The error distribution: every workload fills it where it compared elements with reference values (sdh beyond
    // its reference checks only the total); it counts each compared element once; where the Delta is the largest
    // element error (a per-element tolerance), the Delta lies in the highest filled bin.
    if (c.workload != "sdh" || workload.fullReferenceAffordable(dataset, params)) {
        EXPECT_TRUE(s.delta.relError.has_value());
        EXPECT_TRUE(s.delta.stepError.has_value());
    }
    const std::size_t outputs = s.result->values.empty() ? s.result->counts.size() : s.result->values.size();
    for (const auto* histogram : {&s.delta.relError, &s.delta.stepError}) {
        if (!*histogram)
            continue;
        const ErrorHistogram& h = **histogram;
        EXPECT_EQ(h.elements, outputs) << h.measure;
        if (h.sampled)
            EXPECT_GT(h.compared(), 0u) << h.measure;
        else
            EXPECT_EQ(h.compared(), h.elements) << h.measure;
    }
    if (s.delta.relError && s.delta.relError->tolerance) {
        const ErrorHistogram& h = *s.delta.relError;
        EXPECT_EQ(*h.tolerance, s.delta.tolerance);
        if (std::isfinite(s.delta.value)) {
            EXPECT_EQ(h.nonFinite, 0u);
            EXPECT_EQ(h.highestBin(), std::optional<std::size_t>(ErrorHistogram::binOf(s.delta.value)))
                << "delta " << s.delta.value;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryVariant, ::testing::ValuesIn(allCases()),
    [](const ::testing::TestParamInfo<VariantCase>& p) { return p.param.label; });
INSTANTIATE_TEST_SUITE_P(UserTemplate, EveryVariant, ::testing::ValuesIn(templateCases()),
    [](const ::testing::TestParamInfo<VariantCase>& p) { return p.param.label; });

} // namespace
} // namespace ks
