// kernelscope-cli run --decide: two CPU variants of linreg interleaved, the verdict line, the JSON decisions and the
// exit status.
#include "cli/cli.h"
#include "cli_fixture.h"
#include "compute/core/decide.h"
#include "compute/core/results_io.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace ks::cli {
namespace {

class CliDecide : public test::CliTest { };

TEST_F(CliDecide, DecidesBetweenTwoCpuVariantsAndWritesTheVerdict)
{
    const std::string json = path("decide.json");
    const int code = cli({"run", "--workload", "linreg", "--decide", "reference,cpu_four_sums", "--generate", "n=20000",
        "--margin", "50%", "--max-reps", "60", "--time-limit", "5", "--no-calibrate", "--quiet", "--json", json});
    // A 50 % margin is wide enough that these two end equivalent or one clearly faster; either is a verdict.
    EXPECT_EQ(code, kExitOk) << m_out.str() << m_err.str();
    const std::string out = m_out.str();
    const std::regex line(R"(cpu_four_sums vs reference: [0-9.]+× \[[0-9.]+, [0-9.]+\] \(99% CI\) → )"
                          R"((cpu_four_sums faster|cpu_four_sums slower|equivalent within ±50%), after [0-9]+ rounds)");
    EXPECT_TRUE(std::regex_search(out, line)) << out;

    const auto summaries = readJson(json);
    ASSERT_EQ(summaries.size(), 2u);
    EXPECT_EQ(summaries[0].variant, "reference");
    EXPECT_EQ(summaries[1].variant, "cpu_four_sums");
    for (const auto& s : summaries) {
        EXPECT_EQ(s.outcome, Outcome::Passed) << s.message;
        EXPECT_TRUE(s.delta.computed);
        EXPECT_EQ(s.stopReason, StopReason::Decided) << s.variant;
        EXPECT_FALSE(s.noisy()) << s.variant;
    }
    const auto decisions = readDecisions(json);
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].variantA, "reference");
    EXPECT_EQ(decisions[0].variantB, "cpu_four_sums");
    EXPECT_NE(decisions[0].verdict, DecisionVerdict::Undecided);
    EXPECT_EQ(decisions[0].margin, 0.5);
    EXPECT_EQ(summaries[0].samplesMs.size(), static_cast<std::size_t>(decisions[0].rounds));
}

TEST_F(CliDecide, TooFewRoundsForAnIntervalExitFourWithTheReason)
{
    EXPECT_EQ(cli({"run", "--workload", "linreg", "--decide", "reference,cpu_four_sums", "--generate", "n=1000",
                  "--min-reps", "2", "--max-reps", "3", "--no-calibrate", "--csv", path("undecided.csv")}),
        kExitUndecided);
    const std::string out = m_out.str();
    EXPECT_NE(out.find("→ undecided (max repetitions), after 3 rounds"), std::string::npos) << out;
    // Both rows say the limit ended them before a verdict, and the table's legend says what the mark means.
    const auto rows = readCsv(path("undecided.csv"));
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& s : rows) {
        EXPECT_EQ(s.stopReason, StopReason::MaxRepetitions) << s.variant;
        EXPECT_TRUE(s.noisy()) << s.variant;
    }
    EXPECT_NE(out.find("(with --decide: before its pairs reached a verdict)"), std::string::npos) << out;
}

TEST_F(CliDecide, BadDecisionArgumentsExitTwoWithOneLine)
{
    const std::vector<std::vector<std::string>> bad {
        {"--decide", "reference"},
        {"--decide", "reference,nope"},
        {"--decide", "reference,cpu_four_sums", "--variant", "reference"},
        {"--decide", "reference,cpu_four_sums", "--margin", "150%"},
        {"--decide", "reference,cpu_four_sums", "--confidence", "100%"},
        {"--decide", "reference,cpu_four_sums", "--output", "y.csv"},
        {"--margin", "1%"},
    };
    for (const auto& extra : bad) {
        std::vector<std::string> args {"run", "--workload", "linreg", "--generate", "n=100", "--quiet"};
        args.insert(args.end(), extra.begin(), extra.end());
        EXPECT_EQ(cli(args), kExitBadInput) << extra.front() << " " << extra.back();
        EXPECT_EQ(m_err.str().rfind("error: ", 0), 0u) << m_err.str();
    }
}

} // namespace
} // namespace ks::cli
