// kernelscope-cli driven in-process: list, run with files out, and every kind of bad input.
#include "cli/cli.h"
#include "cli_fixture.h"
#include "compute/core/clock_sampler.h"
#include "compute/core/results_io.h"
#include "compute/core/version.h"
#include "compute/device/device_info.h"
#include "compute/device/nvml_sampler.h"
#include "data/delimited_text.h"
#include "data/text_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace ks::cli {
namespace {

class Cli : public test::CliTest { };

std::vector<data::TextRow> csvRows(const std::string& path)
{
    std::vector<data::TextRow> rows;
    data::parseDelimitedText(data::readTextFile(path), path, {}, [&](data::TextRow& r) {
        rows.push_back(r);
        return true;
    });
    return rows;
}

TEST_F(Cli, ListShowsEveryVariantAndWhyItCannotRun)
{
    EXPECT_EQ(cli({"list"}), kExitOk);
    const std::string out = m_out.str();
    for (const char* id :
        {"linreg", "reference", "cpu_four_sums", "fused_grid", "chan_stable", "cub", "precision", "x_offset"})
        EXPECT_NE(out.find(id), std::string::npos) << id;
    EXPECT_EQ(cli({"list", "--workload", "nope"}), kExitBadInput);
}

TEST_F(Cli, InfoDescribesTheHostAndDevices)
{
    EXPECT_EQ(cli({"info", "--no-calibrate"}), kExitOk);
    EXPECT_NE(m_out.str().find("host:"), std::string::npos);
    EXPECT_NE(m_out.str().find("CUDA devices:"), std::string::npos);
}

TEST_F(Cli, InfoSaysWhetherClocksCanBeReadAndWhyNot)
{
    EXPECT_EQ(cli({"info", "--no-calibrate"}), kExitOk);
    const std::string out = m_out.str();
    const std::size_t cuda = out.find("CUDA devices:");
    ASSERT_NE(cuda, std::string::npos);
    // The host's line sits in its section: its frequency where cpufreq is exposed, else the sampler's reason.
    const std::string cpufreqReason = CpufreqSampler().unavailableReason();
    const std::string hostLine = cpufreqReason.empty() ? "  clocks now (cpufreq): mean core frequency "
                                                       : "  clocks: unavailable: " + cpufreqReason + "\n";
    EXPECT_LT(out.find(hostLine), cuda) << out;
    const std::string nvmlReason = device::nvmlUnavailableReason();
    const std::string nvmlLine
        = nvmlReason.empty() ? "  NVML: available\n" : "  NVML: unavailable: " + nvmlReason + "\n";
    const std::size_t nvml = out.find(nvmlLine);
    ASSERT_NE(nvml, std::string::npos) << out;
    EXPECT_GT(nvml, cuda);
    if (device::cudaUnavailableReason().empty()) {
        // Every device has its clock lines, or NVML's reason for having none.
        const std::string perDevice
            = nvmlReason.empty() ? "  clocks now (nvml): SM " : "  clocks: unavailable: " + nvmlReason;
        EXPECT_NE(out.find(perDevice, nvml), std::string::npos) << out;
    }
}

class FixedSampler final : public ClockSampler {
public:
    std::string reason;
    std::optional<ClockSample> reading;
    std::string source() const override { return "nvml"; }
    std::string unavailableReason() const override { return reason; }
    std::optional<ClockSample> sample() override { return reading; }
};

TEST(CliClocks, GpuLinesNameTheClocksAndWhatThrottlesThem)
{
    FixedSampler sampler;
    ClockSample s;
    s.smClockMHz = 1755;
    s.memClockMHz = 2619;
    s.temperatureC = 61;
    s.powerW = 312.4;
    s.throttleReasons = kThrottleSwPowerCap | kThrottleGpuIdle;
    sampler.reading = s;
    std::ostringstream out;
    printClocks(out, sampler, true);
    EXPECT_EQ(out.str(),
        "  clocks now (nvml): SM 1755 MHz, memory 2619 MHz, 61 °C, 312.4 W\n"
        "  throttle reasons: throttled (SwPowerCap); other clock events: GpuIdle\n");

    // Not throttled, and a board that reports no power: said, not printed as 0 W.
    s.throttleReasons = 0;
    s.powerW = 0.0;
    sampler.reading = s;
    out.str("");
    printClocks(out, sampler, true);
    EXPECT_EQ(out.str(),
        "  clocks now (nvml): SM 1755 MHz, memory 2619 MHz, 61 °C, power not reported\n"
        "  throttle reasons: none\n");

    sampler.reading.reset();
    out.str("");
    printClocks(out, sampler, true);
    EXPECT_EQ(out.str(), "  clocks: unavailable: nvml gave no reading\n");

    sampler.reason = "NVML not found (libnvidia-ml.so.1: cannot open shared object file)";
    out.str("");
    printClocks(out, sampler, true);
    EXPECT_EQ(out.str(), "  clocks: unavailable: NVML not found (libnvidia-ml.so.1: cannot open shared object file)\n");
}

TEST(CliClocks, HostLineIsTheMeanCoreFrequency)
{
    const auto root = std::filesystem::temp_directory_path() / ("ks_cli_cpufreq_" + std::to_string(::getpid()));
    for (const auto& [cpu, kHz] : {std::pair {"cpu0", "2000000"}, std::pair {"cpu1", "3000000"}}) {
        std::filesystem::create_directories(root / cpu / "cpufreq");
        std::ofstream(root / cpu / "cpufreq" / "scaling_cur_freq") << kHz << '\n';
    }
    CpufreqSampler sampler(root.string());
    std::ostringstream out;
    printClocks(out, sampler, false);
    EXPECT_EQ(out.str(), "  clocks now (cpufreq): mean core frequency 2500 MHz\n");

    std::filesystem::remove_all(root / "cpu0");
    std::filesystem::remove_all(root / "cpu1");
    CpufreqSampler none(root.string());
    out.str("");
    printClocks(out, none, false);
    EXPECT_EQ(out.str(), "  clocks: unavailable: " + none.unavailableReason() + "\n");
    EXPECT_NE(out.str().find("cpufreq not exposed"), std::string::npos);
    std::filesystem::remove_all(root);
}

TEST_F(Cli, RunWritesTableCsvJsonAndOutput)
{
    const int code = cli({"run", "--workload", "linreg", "--variant", "reference,cpu_four_sums", "--generate",
        "n=5000,slope=3,intercept=2,noise=0.1", "--sizes", "31,2^10", "--min-reps", "2", "--max-reps", "3",
        "--no-calibrate", "--csv", path("r.csv"), "--json", path("r.json")});
    EXPECT_EQ(code, kExitOk) << m_err.str();
    EXPECT_NE(m_out.str().find("median_ms"), std::string::npos);
    EXPECT_NE(m_out.str().find("cpu_four_sums"), std::string::npos);
    EXPECT_NE(m_err.str().find("[4/4]"), std::string::npos) << "progress goes to stderr";

    const auto rows = csvRows(path("r.csv"));
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0].fields, csvColumns());
    EXPECT_EQ(rows[1].fields[3], "reference");
    EXPECT_EQ(rows[1].fields[9], "31");
    EXPECT_EQ(rows[4].fields[9], "1024");
    EXPECT_EQ(rows[4].fields[6], "passed");

    const auto summaries = readJson(path("r.json"));
    ASSERT_EQ(summaries.size(), 4u);
    EXPECT_GE(summaries[3].samplesMs.size(), 2u);

    EXPECT_EQ(cli({"run", "-w", "linreg", "-v", "reference", "-g", "n=100,slope=3,intercept=2,noise=0", "-o",
                  path("fit.csv"), "--no-calibrate", "-q"}),
        kExitOk)
        << m_err.str();
    const auto fit = csvRows(path("fit.csv"));
    ASSERT_EQ(fit.size(), 3u);
    EXPECT_EQ(fit[0].fields, (std::vector<std::string> {"quantity", "value"}));
    EXPECT_EQ(fit[1].fields[0], "slope");
    EXPECT_NEAR(std::stod(fit[1].fields[1]), 3.0, 1e-12);
    EXPECT_EQ(fit[2].fields[0], "intercept");
    EXPECT_NEAR(std::stod(fit[2].fields[1]), 2.0, 1e-9);
    EXPECT_TRUE(m_err.str().empty()) << "--quiet prints no progress";
}

TEST_F(Cli, ACacheResidentRunIsMarkedAndExplainedUnderTheTable)
{
    ASSERT_EQ(cli({"run", "-w", "linreg", "-v", "cpu_four_sums", "-g", "n=1024", "--min-reps", "2", "--max-reps", "2",
                  "--no-calibrate", "--csv", path("r.csv"), "-q"}),
        kExitOk)
        << m_err.str();
    const auto rows = csvRows(path("r.csv"));
    ASSERT_EQ(rows.size(), 2u);
    const auto& columns = rows[0].fields;
    const auto fits = std::find(columns.begin(), columns.end(), "fits_in_cache") - columns.begin();
    const std::string out = m_out.str();
    if (device::hostInfo().lastLevelCacheBytes == 0) {
        // No cache size where Linux would list it: no verdict, no mark, no legend.
        EXPECT_EQ(rows[1].fields[fits], "");
        EXPECT_EQ(out.find("working set fits"), std::string::npos) << out;
        return;
    }
    // 1024 points of 16 bytes fit any last-level cache; without a ceiling the mark is on GB/s.
    EXPECT_EQ(rows[1].fields[fits], "yes");
    const auto legend = out.find("* working set fits in the last-level cache");
    ASSERT_NE(legend, std::string::npos) << out;
    // One line, under the table (other marks' lines may follow it: min = max repetitions can stop short of the target).
    const auto legendEnd = out.find('\n', legend);
    ASSERT_NE(legendEnd, std::string::npos) << out;
    EXPECT_TRUE(out.substr(legend, legendEnd - legend).ends_with("%peak 100 %")) << out;
    EXPECT_GT(legend, out.find("cpu_four_sums")) << out;
    const auto row = out.find("cpu_four_sums");
    ASSERT_NE(row, std::string::npos) << out;
    EXPECT_NE(out.substr(row, out.find('\n', row) - row).find("* "), std::string::npos) << out;
}

TEST_F(Cli, EachRowSaysItsClockRangeOrWhyNoneWasSampled)
{
    ASSERT_EQ(cli({"run", "-w", "linreg", "-v", "cpu_four_sums", "-g", "n=1024", "--min-reps", "3", "--max-reps", "3",
                  "--no-calibrate", "--json", path("r.json"), "-q"}),
        kExitOk)
        << m_err.str();
    const auto summaries = readJson(path("r.json"));
    ASSERT_EQ(summaries.size(), 1u);
    const Summary& s = summaries[0];
    const std::string out = m_out.str();
    if (s.clockSource.empty()) {
        // No cpufreq here (a VM or container): the row has no range, one line under the table says why.
        EXPECT_FALSE(s.clockReason.empty());
        EXPECT_TRUE(s.clockMHz.empty());
        EXPECT_NE(out.find("clocks not sampled: " + s.clockReason + "\n"), std::string::npos) << out;
        EXPECT_EQ(out.find("clock "), std::string::npos) << out;
        return;
    }
    EXPECT_EQ(s.clockSource, "cpufreq");
    EXPECT_EQ(s.clockMHz.size(), 3u);
    EXPECT_GT(s.clockMinMHz, 0.0);
    const auto row = out.find("cpu_four_sums");
    ASSERT_NE(row, std::string::npos) << out;
    EXPECT_NE(out.substr(row, out.find('\n', row) - row).find("clock "), std::string::npos) << out;
    EXPECT_EQ(out.find("clocks not sampled"), std::string::npos) << out;
}

TEST_F(Cli, ARunStoppedOnALimitBeforeTheNoiseTargetIsMarkedNoisy)
{
    // A target no timing reaches: the run stops on --max-reps.
    ASSERT_EQ(cli({"run", "-w", "linreg", "-v", "cpu_four_sums", "-g", "n=1024", "--min-reps", "2", "--max-reps", "3",
                  "--noise", "1e-12", "--no-calibrate", "--csv", path("r.csv"), "-q"}),
        kExitOk)
        << m_err.str();
    const auto rows = csvRows(path("r.csv"));
    ASSERT_EQ(rows.size(), 2u);
    const auto& columns = rows[0].fields;
    const auto at = [&](const char* name) { return std::find(columns.begin(), columns.end(), name) - columns.begin(); };
    EXPECT_EQ(rows[1].fields[at("stop_reason")], "max_repetitions");
    EXPECT_EQ(rows[1].fields[at("noisy")], "yes");
    EXPECT_FALSE(rows[1].fields[at("median_rse_pct")].empty());

    const std::string out = m_out.str();
    EXPECT_NE(out.find("medRSE%"), std::string::npos) << out;
    const auto legend = out.find("? noisy: the run stopped on --time-limit");
    ASSERT_NE(legend, std::string::npos) << out;
    const auto row = out.find("cpu_four_sums");
    ASSERT_NE(row, std::string::npos) << out;
    EXPECT_NE(out.substr(row, out.find('\n', row) - row).find("? "), std::string::npos) << out;
}

TEST_F(Cli, CheckDeterminismFillsTheDeterministicColumn)
{
    const auto deterministic = [&](bool check) {
        std::vector<std::string> args {"run", "-w", "linreg", "-v", "cpu_four_sums", "-g", "n=4096", "--min-reps", "2",
            "--max-reps", "2", "--no-calibrate", "--csv", path(check ? "checked.csv" : "plain.csv"), "-q"};
        if (check)
            args.push_back("--check-determinism");
        EXPECT_EQ(cli(args), kExitOk) << m_err.str();
        const auto rows = csvRows(path(check ? "checked.csv" : "plain.csv"));
        EXPECT_EQ(rows.size(), 2u);
        const auto& columns = rows.at(0).fields;
        return rows.at(1).fields.at(
            static_cast<std::size_t>(std::find(columns.begin(), columns.end(), "deterministic") - columns.begin()));
    };
    // A serial sum in a fixed order gives the same bits every time.
    EXPECT_EQ(deterministic(true), "yes");
    EXPECT_EQ(m_out.str().find("not deterministic"), std::string::npos) << m_out.str();
    // Unasked, a stateless run has no verdict.
    EXPECT_EQ(deterministic(false), "");

    EXPECT_EQ(cli({"run", "--help"}), kExitOk);
    EXPECT_NE(m_out.str().find("--check-determinism"), std::string::npos);
}

TEST_F(Cli, RunsOnAFileAndSweepsPrefixesOfIt)
{
    std::ofstream(path("points.csv")) << "# a comment\nx,y\n0,1\n1,3\n2,5\n3,7\n";
    EXPECT_EQ(cli({"run", "-w", "linreg", "-v", "reference", "-i", path("points.csv"), "--sizes", "2,4",
                  "--no-calibrate", "-o", path("unused.csv")}),
        kExitBadInput)
        << "--output needs a single size";
    EXPECT_EQ(cli({"run", "-w", "linreg", "-v", "reference", "-i", path("points.csv"), "--sizes", "2,4",
                  "--no-calibrate", "--csv", path("r.csv")}),
        kExitOk)
        << m_err.str();
    const auto rows = csvRows(path("r.csv"));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[2].fields[7], "points.csv");
    EXPECT_EQ(
        cli({"run", "-w", "linreg", "-v", "reference", "-i", path("points.csv"), "--sizes", "5", "--no-calibrate"}),
        kExitBadInput);
    EXPECT_NE(m_err.str().find("outside the loaded dataset"), std::string::npos) << m_err.str();
}

TEST_F(Cli, SpmvReadsAMatrixAndItsVectorAndWritesY)
{
    // A = [[1 0 2] [0 0 0] [−1 3 0]] with x = (1, 10, 100): y = (201, 0, 29).
    std::ofstream(path("a.mtx"))
        << "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n1 3 2\n3 1 -1\n3 2 3\n";
    std::ofstream(path("x.txt")) << "1\n10\n100\n";
    EXPECT_EQ(cli({"run", "-w", "spmv", "-v", "reference", "-i", path("a.mtx"), "--vector", path("x.txt"), "--min-reps",
                  "2", "--max-reps", "3", "-o", path("y.csv"), "--no-calibrate", "-q"}),
        kExitOk)
        << m_err.str();
    const auto y = csvRows(path("y.csv"));
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0].fields[0], "y");
    EXPECT_EQ(std::stod(y[1].fields.back()), 201.0);
    EXPECT_EQ(std::stod(y[2].fields.back()), 0.0);
    EXPECT_EQ(std::stod(y[3].fields.back()), 29.0);

    std::ofstream(path("short.txt")) << "1\n2\n";
    EXPECT_EQ(cli({"run", "-w", "spmv", "-i", path("a.mtx"), "--vector", path("short.txt"), "--no-calibrate", "-q"}),
        kExitBadInput);
    EXPECT_NE(m_err.str().find("short.txt"), std::string::npos) << m_err.str();
}

TEST_F(Cli, BadInputExitsTwoWithOneLine)
{
    struct Case {
        std::vector<std::string> args;
        std::string expected;
    };
    std::ofstream(path("bad.csv")) << "x,y\n1,2\n3,oops\n";
    const std::vector<Case> cases {
        {{"run", "-w", "nope"}, "unknown workload 'nope' (known: linreg, lrv, spmv, sdh, cnn)"},
        {{"run", "-w", "linreg", "-v", "warp_drive"}, "unknown variant 'warp_drive'"},
        {{"run", "-w", "linreg", "-p", "precision=f16"}, "precision=f16 is not one of: f64, f32"},
        {{"run", "-w", "linreg", "-p", "bogus=1"}, "unknown parameter 'bogus'"},
        {{"run", "-w", "linreg", "-g", "n=0"}, "n=0 is outside"},
        {{"run", "-w", "linreg", "-g", "n"}, "'n' is not of the form key=value"},
        {{"run", "-w", "linreg", "--sizes", "10,abc"}, "'abc' is not a size"},
        {{"run", "-w", "linreg", "-i", path("missing.csv")}, "missing.csv: no such file"},
        {{"run", "-w", "linreg", "-i", path("bad.csv")}, "bad.csv: line 3, column 2: 'oops' is not a number"},
        {{"run", "-w", "linreg", "-i", path("bad.csv"), "-g", "n=3"}, "excludes"},
        {{"run", "-w", "linreg", "--h5-path", "/x"}, "--h5-path needs --input"},
        {{"run", "-w", "spmv", "--vector", path("x.txt")}, "--vector needs --input"},
        {{"run", "-w", "linreg", "-o", path("o.csv")}, "--output saves one variant's result"},
        {{"run", "-w", "cnn", "-v", "reference,cpu_openmp", "-p", "features=" + path("f.h5")},
            "writes one run's features, but this run has 2 variants and 1 size"},
        {{"run", "-w", "cnn", "-v", "cpu_openmp", "-s", "8,16", "-p", "steps=1,features=" + path("f.h5")},
            "this run has 1 variant and 2 sizes"},
        {{"run", "-w", "cnn", "-v", "cpu_openmp", "-p", "features=" + path("no/f.h5")},
            "features=" + path("no/f.h5") + ": no such folder " + path("no")},
        {{"run", "-w", "cnn", "-v", "cpu_openmp", "-p", "features=f.csv"}, "does not end in .h5, .hdf5"},
        {{"run", "-w", "linreg", "--min-reps", "5", "--max-reps", "2"}, "run options"},
        {{"frobnicate"}, "error:"},
        {{}, "error:"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(cli(c.args), kExitBadInput) << c.expected;
        const std::string err = m_err.str();
        EXPECT_NE(err.find(c.expected), std::string::npos) << "got: " << err;
        // Progress lines are indented; the reason is exactly one line starting with "error:".
        const auto at = err.find("error:");
        ASSERT_NE(at, std::string::npos) << err;
        EXPECT_EQ(err.find("error:", at + 1), std::string::npos) << err;
        EXPECT_EQ(err.find('\n', at), err.size() - 1) << "one line: " << err;
    }
}

TEST_F(Cli, CnnWritesFeaturesWhereAPathWithCommasSaysAndReportsAccuracy)
{
    const std::string features = path("a,b.h5");
    EXPECT_EQ(cli({"run", "-w", "cnn", "-v", "cpu_openmp", "-g", "images=32,held_out=16,height=8,width=8", "-p",
                  "steps=2,batch=8,features=" + features, "--csv", path("r.csv"), "--no-calibrate", "-q"}),
        kExitOk)
        << m_err.str();
    EXPECT_TRUE(std::filesystem::exists(features));
    const std::string csv = data::readTextFile(path("r.csv"));
    EXPECT_NE(csv.find("features=" + features), std::string::npos) << csv;
    EXPECT_NE(csv.find(";accuracy="), std::string::npos) << csv;
    EXPECT_NE(csv.find(";accuracy_images=16;features_written=48"), std::string::npos) << csv;
}

TEST_F(Cli, HelpExitsZero)
{
    EXPECT_EQ(cli({"--help"}), kExitOk);
    EXPECT_NE(m_out.str().find("run"), std::string::npos);
    EXPECT_EQ(cli({"run", "--help"}), kExitOk);
    EXPECT_NE(m_out.str().find("--generate"), std::string::npos);
}

TEST_F(Cli, VersionNamesTheProgramAndItsVersion)
{
    EXPECT_EQ(cli({"--version"}), kExitOk);
    EXPECT_EQ(m_out.str(), "kernelscope-cli " + std::string(version()) + "\n");
}

} // namespace
} // namespace ks::cli
