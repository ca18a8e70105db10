// kernelscope-cli compare: the table, the summary line and the exit statuses a CI gate relies on.
#include "cli/cli.h"
#include "cli_fixture.h"
#include "compute/core/results_io.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <unistd.h>

namespace ks::cli {
namespace {

Summary timedRow(const std::string& variant, double medianMs, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 0.005);
    Summary s;
    s.runId = "r" + std::to_string(seed);
    s.workload = "linreg";
    s.variant = variant;
    s.backend = "cpu";
    s.datasetName = "generated";
    s.datasetHash = "0123abcd";
    s.size = 1024;
    s.params = ParamSet::fromString("precision=f64");
    s.outcome = Outcome::Passed;
    for (int i = 0; i < 20; ++i)
        s.samplesMs.push_back(medianMs * (1.0 + noise(rng)));
    s.repetitions = static_cast<int>(s.samplesMs.size());
    s.medianMs = medianMs;
    return s;
}

class CliCompare : public test::CliTest {
protected:
    void SetUp() override
    {
        CliTest::SetUp();
        writeJson(path("old.json"), {timedRow("reference", 1.0, 1), timedRow("cpu_four_sums", 0.5, 2)});
        // reference unchanged, cpu_four_sums 10 % slower, cpu_openmp new.
        writeJson(path("new.json"),
            {timedRow("reference", 1.0, 3), timedRow("cpu_four_sums", 0.55, 4), timedRow("cpu_openmp", 0.2, 5)});
    }
};

TEST_F(CliCompare, AFileAgainstItselfIsUnchangedAndExitsZero)
{
    EXPECT_EQ(cli({"compare", path("old.json"), path("old.json")}), kExitOk) << m_err.str();
    EXPECT_NE(m_out.str().find("ratio"), std::string::npos);
    EXPECT_NE(m_out.str().find("0 faster, 0 slower, 2 unchanged\n"), std::string::npos) << m_out.str();
    EXPECT_TRUE(m_err.str().empty());
}

TEST_F(CliCompare, ASlowdownBeyondTheThresholdExitsThree)
{
    EXPECT_EQ(cli({"compare", path("old.json"), path("new.json")}), kExitSlower) << m_err.str();
    const std::string out = m_out.str();
    EXPECT_NE(out.find("slower!"), std::string::npos) << out;
    EXPECT_NE(out.find("slower beyond the 5% threshold"), std::string::npos) << out;
    EXPECT_NE(out.find(" 1.10"), std::string::npos) << "the ratio of medians: " << out;
    EXPECT_NE(out.find("added"), std::string::npos) << out;
    EXPECT_NE(
        out.find("0 faster, 1 slower, 1 unchanged, 1 added (1 slower beyond the 5% threshold)\n"), std::string::npos)
        << out;

    EXPECT_EQ(cli({"compare", path("old.json"), path("new.json"), "--threshold", "15%"}), kExitOk) << m_err.str();
    EXPECT_NE(m_out.str().find("0 faster, 1 slower, 1 unchanged, 1 added\n"), std::string::npos) << m_out.str();
    EXPECT_EQ(cli({"compare", path("old.json"), path("new.json"), "--threshold", "15"}), kExitOk)
        << "the % sign is optional";
    EXPECT_EQ(cli({"compare", path("old.json"), path("new.json"), "--margin", "12%"}), kExitOk)
        << "a 10 % change inside a 12 % margin is unchanged";
    EXPECT_EQ(cli({"compare", path("new.json"), path("old.json")}), kExitOk) << "a speed-up never fails";
    EXPECT_NE(m_out.str().find("1 faster, 0 slower, 1 unchanged, 1 removed\n"), std::string::npos) << m_out.str();
}

TEST_F(CliCompare, BadInputExitsTwoWithOneLine)
{
    std::ofstream(path("not.json")) << "x,y\n1,2\n";
    struct Case {
        std::vector<std::string> args;
        std::string expected;
    };
    const std::vector<Case> cases {
        {{"compare", path("old.json"), path("missing.json")}, path("missing.json") + ": cannot open"},
        {{"compare", path("not.json"), path("old.json")}, path("not.json") + ": byte 1: not valid JSON"},
        {{"compare", path("old.json"), path("new.json"), "--threshold", "abc"},
            "--threshold 'abc' is not a percentage"},
        {{"compare", path("old.json"), path("new.json"), "--margin", "-1%"}, "--margin '-1%' is not a percentage"},
        {{"compare", path("old.json"), path("new.json"), "--margin", "100%"}, "--margin '100%' is not below 100%"},
        {{"compare", path("old.json"), path("new.json"), "--alpha", "1.5"}, "--alpha 1.5 is not between 0 and 1"},
        {{"compare", path("old.json")}, "error:"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(cli(c.args), kExitBadInput) << c.expected;
        const std::string err = m_err.str();
        EXPECT_NE(err.find(c.expected), std::string::npos) << "got: " << err;
        const auto at = err.find("error:");
        ASSERT_NE(at, std::string::npos) << err;
        EXPECT_EQ(err.find('\n', at), err.size() - 1) << "one line: " << err;
    }
}

} // namespace
} // namespace ks::cli
