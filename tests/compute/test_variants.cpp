// Every registered variant of every workload against its workload's reference, on fresh random data of awkward
// sizes and every combination of enum parameters. A variant added to a register.cpp is tested here the same day.
#include "compute/core/registry.h"
#include "compute/core/runner.h"

#include <gtest/gtest.h>
#include <random>

namespace ks {
namespace {

struct VariantCase {
    std::string workload;
    std::string variant;
    std::uint64_t size = 0;
    std::map<std::string, std::string> params;
    std::map<std::string, std::string> generator;
    std::string label;
};

/// How gtest prints a case (instead of its bytes).
void PrintTo(const VariantCase& c, std::ostream* os)
{
    *os << c.label;
}

/// Awkward sizes per workload (the size parameter of its generator).
std::vector<std::uint64_t> sizesFor(const std::string& workload)
{
    if (workload == "linreg")
        return {1, 2, 31, 1000003};
    if (workload == "lrv")
        return {2, 3, 65, 1001}; // features
    if (workload == "spmv")
        return {1, 31, 1000, 100003}; // rows
    if (workload == "sdh")
        return {2, 3, 255, 257, 10007}; // points
    return {1, 31, 1000};
}

/// Extra generator settings a workload is also tested on (linreg: data far from the origin).
std::vector<std::pair<std::string, std::map<std::string, std::string>>> dataClassesFor(const std::string& workload)
{
    if (workload == "linreg")
        return {{"plain", {}}, {"offset", {{"x_offset", "1e6"}, {"x_span", "10"}}}};
    if (workload == "lrv")
        return {{"n2", {{"samples", "2"}, {"planted", "0"}}}, {"n3", {{"samples", "3"}, {"planted", "1"}}},
            {"n33planted", {{"samples", "33"}, {"planted", "5"}}}};
    if (workload == "spmv") // empty rows, one very long row, non-square shapes, and every generator class
        return {{"uniform", {{"per_row", "6"}}}, {"sparse", {{"per_row", "0.4"}}},
            {"wide", {{"aspect", "2.7"}, {"per_row", "5"}}}, {"tall", {{"aspect", "0.3"}, {"per_row", "3"}}},
            {"powerlaw", {{"pattern", "powerlaw"}, {"per_row", "8"}, {"exponent", "1.6"}}},
            {"laplacian2d", {{"pattern", "laplacian2d"}}}, {"laplacian3d", {{"pattern", "laplacian3d"}}},
            {"banded", {{"pattern", "banded"}, {"bandwidth", "2"}}}};
    if (workload == "sdh")
        return {{"uniform", {{"box", "1"}}}, {"clusters", {{"shape", "clusters"}, {"box", "1"}, {"clusters", "3"}}}};
    return {{"plain", {}}};
}

/// Values of non-enum parameters a workload is also tested at (sdh: bucket widths giving about 1, 7, 512 and
/// 4,000 buckets on clouds in the unit box, whose diagonal is at most √3).
std::vector<std::pair<std::string, std::map<std::string, std::string>>> parameterClassesFor(const std::string& workload)
{
    if (workload == "sdh")
        return {{"b1", {{"bucket_width", "2"}}}, {"b7", {{"bucket_width", "0.26"}}},
            {"b512", {{"bucket_width", "0.003386"}}}, {"b4000", {{"bucket_width", "0.000433"}}}};
    return {{"", {}}};
}

/// Every combination of the workload's enum parameters.
std::vector<std::map<std::string, std::string>> parameterCombinations(const Workload& w)
{
    std::vector<std::map<std::string, std::string>> combos {{}};
    for (const auto& axis : w.parameters()) {
        if (axis.kind != AxisKind::Enum || axis.readerOption)
            continue; // reader options do not change what a variant computes on generated data
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& combo : combos)
            for (const auto& choice : axis.choices) {
                auto c = combo;
                c[axis.name] = choice;
                next.push_back(c);
            }
        combos = next;
    }
    return combos;
}

std::vector<VariantCase> allCases()
{
    std::vector<VariantCase> cases;
    for (const auto& w : defaultRegistry().workloads())
        for (const auto& v : w->variants())
            for (auto size : sizesFor(w->id()))
                for (const auto& enums : parameterCombinations(*w))
                    for (const auto& [paramName, values] : parameterClassesFor(w->id()))
                        for (const auto& [dataName, generator] : dataClassesFor(w->id())) {
                            std::string label = w->id() + "_" + v.id + "_n" + std::to_string(size) + "_" + dataName;
                            auto params = enums;
                            for (const auto& [k, value] : enums)
                                label += "_" + value;
                            if (!paramName.empty())
                                label += "_" + paramName;
                            params.insert(values.begin(), values.end());
                            cases.push_back({w->id(), v.id, size, params, generator, label});
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
    if (c.workload == "lrv" && generator.count("planted")) // no feature is planted in two pairs
        generator["planted"] = std::to_string(std::min<std::uint64_t>(std::stoull(generator["planted"]), c.size / 2));
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

    // Formulas known to lose digits are still run and compared; the Delta says by how much. linreg's four sums on
    // offset data, and lrv's cuBLAS expansion on nearly proportional pairs (and tiny samples, where chance makes
    // some).
    const bool mayLoseDigits = (c.generator.count("x_offset") && c.variant != "reference" && c.variant != "chan_stable")
        || (c.workload == "lrv" && c.variant == "cublas_gemm");
    if (mayLoseDigits) {
        EXPECT_TRUE(s.outcome == Outcome::Passed || s.outcome == Outcome::Incorrect)
            << outcomeName(s.outcome) << ": " << s.message << " (seed " << seed << ")";
    } else {
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.message << "; delta " << s.delta.value << " > tolerance "
                                              << s.delta.tolerance << " (seed " << seed << ")";
    }
    // sdh's double-precision variants round every operation as the reference does: their counts are exact.
    if (c.workload == "sdh" && c.variant != "tiled_f32") {
        for (const auto& [name, value] : s.delta.details) {
            if (name == "l1_pairs") {
                EXPECT_EQ(value, 0.0) << "counts differ from the reference's (seed " << seed << ")";
            }
        }
    }
    EXPECT_EQ(s.repetitions, 2);
    EXPECT_TRUE(s.delta.computed);
    ASSERT_NE(s.result, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryVariant, ::testing::ValuesIn(allCases()),
    [](const ::testing::TestParamInfo<VariantCase>& p) { return p.param.label; });

} // namespace
} // namespace ks
