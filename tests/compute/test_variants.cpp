// Every registered variant of every workload against its workload's reference, on fresh random data, over the
// sizes, data classes and parameter combinations of the workload's own test plan, and judged by the expectation on
// the variant's registration row. This file names no workload and no variant: a variant added to a register.cpp is
// tested here the same day.
#include "compute/core/registry.h"
#include "compute/core/runner.h"

#include <cmath>
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
};

/// How gtest prints a case (instead of its bytes).
void PrintTo(const VariantCase& c, std::ostream* os)
{
    *os << c.label;
}

std::vector<VariantCase> allCases()
{
    std::vector<VariantCase> cases;
    for (const auto& w : defaultRegistry().workloads()) {
        const TestPlan plan = w->testPlan();
        const auto combinations = plan.parameterCombinations(w->parameters());
        for (const auto& v : w->variants())
            for (auto size : plan.sizes)
                for (const auto& params : combinations)
                    for (const auto& data : plan.dataClasses) {
                        std::string label = w->id() + "_" + v.id + "_n" + std::to_string(size);
                        if (!data.name.empty())
                            label += "_" + data.name;
                        if (!params.name.empty())
                            label += "_" + params.name;
                        cases.push_back({w->id(), v.id, size, params.values, data.name, data.values, label});
                    }
    }
    return cases;
}

class EveryVariant : public ::testing::TestWithParam<VariantCase> { };

TEST_P(EveryVariant, MatchesTheReferenceOnFreshRandomData)
{
    const auto& c = GetParam();
    const Workload& workload = *defaultRegistry().find(c.workload);
    const Variant& variant = *workload.findVariant(c.variant);
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

} // namespace
} // namespace ks
