// The results schema: CSV columns are a published interface; JSON carries the same plus samples.
#include "compute/core/results_io.h"
#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/hdf5_file.h"
#include "data/text_file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ks {
namespace {

class ResultsIo : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("ks_results_io_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    std::filesystem::path m_dir;
};

Summary sample()
{
    Summary s;
    s.runId = "20261122T000000-1-001";
    s.timestamp = "2026-11-22T00:00:00Z";
    s.workload = "linreg";
    s.variant = "fused_grid";
    s.variantName = "Fused, \"single\" pass";
    s.backend = "cuda";
    s.datasetName = "points, with comma.csv";
    s.datasetHash = "ks64:0123456789abcdef";
    s.size = 1000003;
    s.params = ParamSet::fromString("precision=f64");
    s.outcome = Outcome::Incorrect;
    s.message = "line one\nline two";
    s.repetitions = 3;
    s.medianMs = 0.125;
    s.meanMs = 0.13;
    s.minMs = 0.12;
    s.maxMs = 0.15;
    s.stdevMs = 0.01;
    s.noisePct = 7.7;
    s.transferMs = 1.5;
    s.bytes = 16000048;
    s.gbPerS = 128.0;
    s.flops = 6000018;
    s.gflopPerS = 48.0;
    s.items = 1000003;
    s.itemName = "points";
    s.itemsPerS = 8e9;
    s.peakKind = "read_bandwidth";
    s.peakValue = 3000.0;
    s.pctOfPeak = 4.27;
    s.delta.kind = "max_rel_err";
    s.delta.value = std::nan("");
    s.delta.tolerance = 1e-9;
    s.delta.details = {{"slope_rel_err", 1e-3}, {"intercept_rel_err", INFINITY}};
    s.delta.computed = true;
    s.device.kind = "cuda";
    s.device.index = 0;
    s.device.name = "NVIDIA H100 80GB HBM3";
    s.device.smCount = 132;
    s.device.ccMajor = 9;
    s.device.ccMinor = 0;
    s.device.smClockMHz = 1980;
    s.device.memClockMHz = 2619;
    s.device.driverVersion = "580.159.04 (CUDA 13.0)";
    s.device.runtimeVersion = "13.0";
    s.device.l2Bytes = 50u * 1024 * 1024;
    s.device.lastLevelCacheBytes = s.device.l2Bytes;
    s.cacheBytes = s.device.lastLevelCacheBytes;
    s.cacheResident = true;
    s.medianRsePct = 1.0 / 3.0;
    s.stopReason = StopReason::TimeLimit;
    s.version = "0.1.0";
    s.samplesMs = {0.12, 0.125, 0.15};
    s.deterministic = false;
    s.facts = {{"accuracy", 87.25}, {"time conv1 forward", 0.0125}};
    s.clockSource = "nvml";
    s.clockMinMHz = 1755;
    s.clockMaxMHz = 1980;
    s.throttledSamples = 1;
    s.result = std::make_shared<Result>(Result {"fit", {"slope", "intercept"}, {2.5, -1.25}, {}, {}, {}, {}});
    return s;
}

TEST_F(ResultsIo, CsvColumnsAreTheDocumentedSchema)
{
    const std::vector<std::string> expected {"run_id", "timestamp", "workload", "variant", "variant_name", "backend",
        "outcome", "dataset", "dataset_hash", "size", "params", "repetitions", "median_ms", "mean_ms", "min_ms",
        "max_ms", "stdev_ms", "noise_pct", "transfer_ms", "bytes", "gb_per_s", "flops", "gflop_per_s", "items",
        "item_name", "items_per_s", "peak_kind", "peak_value", "pct_of_peak", "delta_kind", "delta_value", "tolerance",
        "delta_details", "message", "device_kind", "device_index", "device_name", "sm_count", "compute_capability",
        "sm_clock_mhz", "mem_clock_mhz", "driver_version", "runtime_version", "ks_version", "deterministic", "facts",
        "cache_bytes", "fits_in_cache", "sm_clock_min_mhz", "sm_clock_max_mhz", "throttled_samples", "clock_source",
        "clock_reason", "median_rse_pct", "stop_reason", "noisy"};
    EXPECT_EQ(csvColumns(), expected);
    EXPECT_EQ(csvRow(sample()).size(), expected.size());
}

TEST_F(ResultsIo, CsvQuotesAwkwardFieldsAndParsesBack)
{
    writeCsv(path("r.csv"), {sample(), sample()});
    std::vector<data::TextRow> rows;
    data::parseDelimitedText(data::readTextFile(path("r.csv")), "r.csv", {}, [&](data::TextRow& row) {
        rows.push_back(row);
        return true;
    });
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].fields, csvColumns());
    EXPECT_EQ(rows[1].fields, csvRow(sample()));
    EXPECT_EQ(rows[1].fields[7], "points, with comma.csv");
    EXPECT_EQ(rows[1].fields[33], "line one\nline two");
    EXPECT_EQ(rows[2].line, 4u); // the quoted newline spans a physical line
    EXPECT_EQ(rows[1].fields[30], "nan");
    EXPECT_EQ(rows[1].fields[32], "slope_rel_err=0.001;intercept_rel_err=inf");
}

TEST_F(ResultsIo, CsvAppenderWritesTheHeaderOnce)
{
    {
        CsvAppender a(path("auto.csv"));
        a.append(sample());
    }
    {
        CsvAppender a(path("auto.csv"));
        a.append(sample());
    }
    int lines = 0;
    data::parseDelimitedText(data::readTextFile(path("auto.csv")), "auto.csv", {}, [&](data::TextRow&) {
        ++lines;
        return true;
    });
    EXPECT_EQ(lines, 3);
}

TEST_F(ResultsIo, CsvAppenderRefusesWhatIsNotARegularFile)
{
    std::filesystem::create_directory(path("folder"));
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0); // opening it for writing would block: refused before
    std::ofstream(path("real.csv")) << "";
    std::filesystem::create_symlink(path("real.csv"), path("link.csv"));
    for (const char* name : {"folder", "fifo", "link.csv"}) {
        try {
            CsvAppender a(path(name));
            ADD_FAILURE() << name << " was opened";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(path(name)), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(CsvAppender("/dev/null"), std::runtime_error);
    EXPECT_EQ(std::filesystem::file_size(path("real.csv")), 0u);
}

TEST_F(ResultsIo, CsvAppenderNeverLeavesHalfARow)
{
    // A write failing part way (RLIMIT_FSIZE for a full disk) is cut back; a child killed while appending leaves
    // whole rows only. Both in children, so the limit and the kill stay there.
    const auto wholeRows = [this](const std::string& file) {
        const std::string text = data::readTextFile(file);
        EXPECT_TRUE(!text.empty() && text.back() == '\n') << file;
        std::size_t rows = 0;
        data::parseDelimitedText(text, file, {}, [&](data::TextRow& row) {
            EXPECT_EQ(row.fields.size(), csvColumns().size()) << file << " line " << row.line;
            ++rows;
            return true;
        });
        return rows;
    };
    const std::string full = path("full.csv");
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit {8000, 8000};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(3);
        CsvAppender a(full);
        for (int i = 0; i < 1000; ++i) {
            try {
                a.append(sample());
            } catch (const std::runtime_error& e) {
                _exit(std::string(e.what()).find("write failed (File too large)") != std::string::npos ? 0 : 1);
            }
        }
        _exit(2);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: another error; 2: no error; 3: setrlimit failed";
    EXPECT_GT(wholeRows(full), 1u);
    EXPECT_LE(std::filesystem::file_size(full), 8000u);

    const std::string killed = path("killed.csv");
    pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        CsvAppender a(killed);
        for (;;)
            a.append(sample());
    }
    while (!std::filesystem::exists(killed) || std::filesystem::file_size(killed) < 200'000)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::kill(pid, SIGKILL);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    // Whole rows, then at most the start of one more: a kill during a write may stop it at a page boundary, and
    // only there; readCsv leaves that start out.
    const std::string text = data::readTextFile(killed);
    const std::string header = data::csvLine(csvColumns()) + '\n';
    const std::string row = data::csvLine(csvRow(sample())) + '\n';
    ASSERT_EQ(text.compare(0, header.size(), header), 0);
    std::size_t rows = 0;
    std::size_t at = header.size();
    while (text.compare(at, row.size(), row) == 0) {
        at += row.size();
        ++rows;
    }
    EXPECT_GT(rows, 100u);
    EXPECT_EQ(text.compare(at, std::string::npos, row, 0, text.size() - at), 0) << "not the start of a row";
    if (at != text.size()) {
        EXPECT_EQ(text.size() % 4096, 0u) << "a cut row ends at a page boundary";
    }
    EXPECT_EQ(readCsv(killed).size(), rows);
}

TEST_F(ResultsIo, ReadCsvLeavesOutALastRowCutByAKill)
{
    // What a kill leaves (above), built by hand: whole rows, then the start of one more, ending at a page boundary.
    // A first row's variant name pads the file to the boundary.
    const std::string header = data::csvLine(csvColumns()) + '\n';
    const std::string row = data::csvLine(csvRow(sample())) + '\n';
    const auto file = [&](std::size_t cut, bool atABoundary) {
        const auto build = [&](std::size_t pad) {
            Summary first = sample();
            first.variantName = std::string(pad, 'v');
            return header + data::csvLine(csvRow(first)) + '\n' + row + row + row.substr(0, cut);
        };
        const std::size_t size = build(0).size();
        const std::size_t pad = (4096 - size % 4096) % 4096 + (atABoundary ? 0 : 1);
        const std::string text = build(pad);
        EXPECT_EQ(text.size() % 4096 == 0, atABoundary);
        std::ofstream(path("cut.csv"), std::ios::binary) << text;
        return path("cut.csv");
    };
    const std::size_t inRunId = 10;
    const std::size_t inQuotes = row.find("line one") + 4; // the message's quoted field, a line break to come
    const std::size_t beforeLastField = row.rfind(',') + 1;
    ASSERT_NE(row.find("line one"), std::string::npos);
    for (const std::size_t cut : {inRunId, inQuotes, beforeLastField - 1}) {
        const auto back = readCsv(file(cut, true));
        ASSERT_EQ(back.size(), 3u) << "cut at " << cut;
        EXPECT_EQ(csvRow(back[2]), csvRow(sample()));
    }
    // Cut inside the last field ('noisy', derived from the stop reason): every field is there, so the row is kept.
    EXPECT_EQ(readCsv(file(beforeLastField + 1, true)).size(), 4u);
    // Not at a page boundary, the same text is no kill's doing: an error naming the line.
    try {
        readCsv(file(inRunId, false));
        ADD_FAILURE() << "a short last row away from a page boundary was accepted";
    } catch (const data::DatasetError& e) {
        EXPECT_EQ(e.place(), "line 8") << e.what(); // each row holds a line break in its message
        EXPECT_NE(e.problem().find("fields where the header has"), std::string::npos) << e.what();
    }
    EXPECT_THROW(readCsv(file(inQuotes, false)), data::DatasetError);
}

TEST_F(ResultsIo, JsonRoundTripKeepsEveryField)
{
    const Summary s = sample();
    writeJson(path("r.json"), {s});
    const auto back = readJson(path("r.json"));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(csvRow(back[0]), csvRow(s));
    EXPECT_EQ(back[0].samplesMs, s.samplesMs);
    ASSERT_NE(back[0].result, nullptr);
    EXPECT_EQ(back[0].result->values, s.result->values);
    EXPECT_EQ(back[0].result->labels, s.result->labels);
    EXPECT_TRUE(std::isnan(back[0].delta.value));
    EXPECT_TRUE(std::isinf(back[0].delta.details[1].second));
    EXPECT_EQ(back[0].deterministic, std::optional<bool>(false));
    EXPECT_EQ(back[0].facts, s.facts);
    EXPECT_EQ(back[0].cacheBytes, s.cacheBytes);
    EXPECT_EQ(back[0].cacheResident, std::optional<bool>(true));
    EXPECT_EQ(back[0].device.l2Bytes, s.device.l2Bytes);
    EXPECT_EQ(back[0].medianRsePct, s.medianRsePct); // exactly: JSON numbers keep every digit
    EXPECT_EQ(back[0].stopReason, StopReason::TimeLimit);
    EXPECT_TRUE(back[0].noisy());
    EXPECT_EQ(back[0].device.lastLevelCacheBytes, s.device.lastLevelCacheBytes);
    std::ifstream in(path("r.json"));
    const auto j = nlohmann::ordered_json::parse(in);
    EXPECT_EQ(j["summaries"][0]["median_ms"].get<double>(), 0.125);
    EXPECT_EQ(j["summaries"][0]["samples_ms"].size(), 3u);
}

TEST_F(ResultsIo, JsonKeepsTheErrorDistribution)
{
    Summary s = sample();
    ErrorHistogram rel(ErrorBins::Log10, "scaled_err");
    rel.elements = 1000;
    rel.sampled = true;
    rel.tolerance = 1e-12;
    for (int i = 0; i < 997; ++i)
        rel.add(0.0);
    rel.add(3e-16);
    rel.add(1e-7);
    rel.add(std::nan(""));
    ErrorHistogram steps(ErrorBins::PowersOfTwo, "ulp_f64");
    steps.elements = 1000;
    steps.addSteps(0);
    steps.addSteps(5);
    steps.addSteps(std::nullopt);
    s.delta.relError = rel;
    s.delta.stepError = steps;
    writeJson(path("h.json"), {s, sample()});
    const auto back = readJson(path("h.json"));
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].delta.relError, s.delta.relError);
    EXPECT_EQ(back[0].delta.stepError, s.delta.stepError);
    EXPECT_FALSE(back[1].delta.relError);
    EXPECT_FALSE(back[1].delta.stepError);

    std::ifstream in(path("h.json"));
    auto j = nlohmann::ordered_json::parse(in);
    const auto& distribution = j["summaries"][0]["delta_distribution"];
    EXPECT_EQ(distribution["rel_err"]["bins"], "log10");
    // Trailing empty bins are left out: the highest filled bin (1e-7's) is the last count written.
    EXPECT_EQ(distribution["rel_err"]["counts"].size(), ErrorHistogram::binOf(1e-7) + 1);
    EXPECT_EQ(distribution["step_err"]["counts"].size(), ErrorHistogram::binOfSteps(5) + 1);
    EXPECT_FALSE(j["summaries"][1].contains("delta_distribution"));

    // A layout this build does not know is dropped, not misread; the rest of the row still reads.
    j["summaries"][0]["delta_distribution"]["rel_err"]["bins_per_decade"] = 3;
    std::ofstream(path("other.json")) << j.dump();
    const auto other = readJson(path("other.json"));
    ASSERT_EQ(other.size(), 2u);
    EXPECT_FALSE(other[0].delta.relError);
    EXPECT_EQ(other[0].delta.stepError, s.delta.stepError);
}

TEST_F(ResultsIo, JsonSaysWhenAResultWasNotKept)
{
    Summary kept = sample();
    Summary dropped = sample();
    dropped.result.reset();
    dropped.resultDropped = true;
    Summary tooLargeForJson = sample();
    tooLargeForJson.result = std::make_shared<Result>(Result {"y", {}, std::vector<double>(5000, 1.0), {}, {}, {}, {}});
    writeJson(path("d.json"), {kept, dropped, tooLargeForJson});
    const auto back = readJson(path("d.json"));
    ASSERT_EQ(back.size(), 3u);
    EXPECT_FALSE(back[0].resultDropped);
    EXPECT_NE(back[0].result, nullptr);
    EXPECT_TRUE(back[1].resultDropped);
    EXPECT_EQ(back[1].result, nullptr);
    EXPECT_TRUE(back[2].resultDropped); // measured, but too large for the file
    EXPECT_EQ(back[2].result, nullptr);
    EXPECT_EQ(back[0].params.text("precision"), "f64");
}

TEST_F(ResultsIo, ReadJsonRejectsMalformedFiles)
{
    std::ofstream(path("bad.json")) << "{ \"summaries\": [ {";
    EXPECT_THROW(readJson(path("bad.json")), data::DatasetError);
    std::ofstream(path("other.json")) << "{ \"something\": 1 }";
    try {
        readJson(path("other.json"));
        FAIL();
    } catch (const data::DatasetError& e) {
        EXPECT_NE(std::string(e.what()).find("summaries"), std::string::npos);
    }
    std::ofstream(path("badoutcome.json")) << R"({ "summaries": [ { "outcome": "exploded" } ] })";
    try {
        readJson(path("badoutcome.json"));
        FAIL();
    } catch (const data::DatasetError& e) {
        EXPECT_EQ(e.place(), "summaries[0]");
    }
}

TEST_F(ResultsIo, ResultFiles)
{
    const Result fit {"fit", {"slope", "intercept"}, {2.5, -1.25}, {}, {}, {}, {}};
    writeResultFile(path("fit.csv"), fit);
    EXPECT_EQ(data::readTextFile(path("fit.csv")), "quantity,value\nslope,2.5\nintercept,-1.25\n");

    const Result y {"y", {}, {0.1, 3.0}, {}, {}, {}, {}};
    writeResultFile(path("y.csv"), y);
    EXPECT_EQ(data::readTextFile(path("y.csv")), "y\n0.1\n3\n");

    const Result histogram {"histogram", {}, {}, {5, 0, 7}, {}, {}, {}};
    writeResultFile(path("h.h5"), histogram);
    auto file = data::h5::File::open(path("h.h5"));
    EXPECT_EQ(file.readDoubles("/result", 1, false), (std::vector<double> {5, 0, 7}));
    EXPECT_EQ(file.info("/result").type, "uint64");
    EXPECT_EQ(file.readStringAttribute("/result", "quantity"), "histogram");

    writeResultFile(path("fit.h5"), fit);
    auto fitFile = data::h5::File::open(path("fit.h5"));
    EXPECT_EQ(fitFile.readDoubles("/result", 1, true), fit.values);
    EXPECT_EQ(fitFile.readStrings("/labels"), fit.labels);

    EXPECT_THROW(writeResultFile(path("fit.xlsx"), fit), std::runtime_error);
}

TEST_F(ResultsIo, SavedResultsReadBackBitForBit)
{
    // Values that 9 or 15 significant digits would change, and the extremes.
    const std::vector<double> values {2.5000175812345678, 1.0 / 3.0, -0.1, 5e-324, 1.7976931348623157e308,
        0.30000000000000004, 123456789.12345678, -0.0};
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < values.size(); ++i)
        labels.push_back("v" + std::to_string(i));
    for (const bool labelled : {true, false}) {
        const Result r {"fit", labelled ? labels : std::vector<std::string> {}, values, {}, {}, {}, {}};
        writeResultFile(path("exact.csv"), r);
        std::vector<data::TextRow> rows;
        data::parseDelimitedText(data::readTextFile(path("exact.csv")), "exact.csv", {}, [&](data::TextRow& row) {
            rows.push_back(row);
            return true;
        });
        ASSERT_EQ(rows.size(), values.size() + 1);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::string& text = rows[i + 1].fields[labelled ? 1 : 0];
            const double back = std::strtod(text.c_str(), nullptr);
            EXPECT_EQ(std::memcmp(&back, &values[i], sizeof back), 0) << text << " for " << values[i];
        }
    }
}

TEST_F(ResultsIo, CsvSaysDeterminismAndFacts)
{
    Summary s = sample();
    const auto columns = csvColumns();
    const auto at = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
    };
    EXPECT_EQ(csvRow(s)[at("deterministic")], "no");
    EXPECT_EQ(csvRow(s)[at("facts")], "accuracy=87.25;time conv1 forward=0.0125");
    s.deterministic = true;
    EXPECT_EQ(csvRow(s)[at("deterministic")], "yes");
    s.deterministic.reset();
    s.facts.clear();
    EXPECT_EQ(csvRow(s)[at("deterministic")], "");
    EXPECT_EQ(csvRow(s)[at("facts")], "");
}

TEST_F(ResultsIo, CsvAndJsonSayCacheResidency)
{
    Summary fits = sample();
    Summary spills = sample();
    spills.cacheResident = false;
    Summary unknown = sample();
    unknown.cacheBytes = 0;
    unknown.cacheResident.reset();
    const auto columns = csvColumns();
    const auto at = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
    };
    EXPECT_EQ(csvRow(fits)[at("cache_bytes")], "52428800");
    EXPECT_EQ(csvRow(fits)[at("fits_in_cache")], "yes");
    EXPECT_EQ(csvRow(spills)[at("fits_in_cache")], "no");
    EXPECT_EQ(csvRow(unknown)[at("cache_bytes")], "");
    EXPECT_EQ(csvRow(unknown)[at("fits_in_cache")], "");

    writeJson(path("r.json"), {fits, spills, unknown});
    const auto back = readJson(path("r.json"));
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[0].cacheResident, std::optional<bool>(true));
    EXPECT_EQ(back[1].cacheResident, std::optional<bool>(false));
    EXPECT_EQ(back[2].cacheResident, std::nullopt);
    EXPECT_EQ(back[2].cacheBytes, 0u);
    for (std::size_t i = 0; i < back.size(); ++i)
        EXPECT_EQ(csvRow(back[i]), csvRow(std::vector {fits, spills, unknown}[i]));

    // A file written before residency existed reads back with no verdict rather than a guessed one.
    auto old = toJson(fits);
    old.erase("cache_bytes");
    old.erase("fits_in_cache");
    old.erase("device_llc_bytes");
    const Summary before = summaryFromJson(old);
    EXPECT_EQ(before.cacheResident, std::nullopt);
    EXPECT_EQ(before.cacheBytes, 0u);
}

TEST_F(ResultsIo, CsvRoundTripKeepsEveryColumn)
{
    Summary incorrect = sample();
    Summary passed = sample();
    passed.runId = "20261122T000000-1-002";
    passed.outcome = Outcome::Passed;
    passed.delta = {};
    passed.deterministic.reset();
    passed.facts.clear();
    passed.cacheBytes = 0;
    passed.cacheResident.reset();
    passed.params = ParamSet::fromString("precision=f32;block=256");
    writeCsv(path("r.csv"), {incorrect, passed});
    const auto back = readCsv(path("r.csv"));
    ASSERT_EQ(back.size(), 2u);
    // Every column reads back to the same text, so every field the CSV carries is equal.
    EXPECT_EQ(csvRow(back[0]), csvRow(incorrect));
    EXPECT_EQ(csvRow(back[1]), csvRow(passed));
    EXPECT_EQ(back[0].variantName, incorrect.variantName);
    EXPECT_EQ(back[0].message, "line one\nline two");
    EXPECT_EQ(back[0].medianMs, 0.125);
    EXPECT_EQ(back[0].size, 1000003u);
    EXPECT_TRUE(back[0].delta.computed);
    EXPECT_TRUE(std::isnan(back[0].delta.value));
    EXPECT_TRUE(std::isinf(back[0].delta.details[1].second));
    EXPECT_EQ(back[0].deterministic, std::optional<bool>(false));
    EXPECT_EQ(back[0].facts, incorrect.facts);
    EXPECT_EQ(back[0].cacheResident, std::optional<bool>(true));
    EXPECT_EQ(back[0].cacheBytes, incorrect.cacheBytes);
    EXPECT_EQ(back[0].device.ccMajor, 9);
    EXPECT_FALSE(back[1].delta.computed);
    EXPECT_EQ(back[1].deterministic, std::nullopt);
    EXPECT_EQ(back[1].cacheResident, std::nullopt);
    EXPECT_EQ(back[1].params.toString(), passed.params.toString());
    EXPECT_TRUE(back[0].samplesMs.empty()); // a CSV has no samples
}

TEST_F(ResultsIo, CsvOfAnOlderOrNewerSchemaReadsByColumnName)
{
    const Summary s = sample();
    auto columns = csvColumns();
    auto row = csvRow(s);
    // An older file: written before facts, cache residency and everything after them were appended.
    const auto facts = std::find(columns.begin(), columns.end(), "facts");
    ASSERT_NE(facts, columns.end());
    const auto kept = static_cast<std::size_t>(facts - columns.begin());
    {
        std::ofstream out(path("old.csv"));
        out << data::csvLine({columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(kept)}) << '\n'
            << data::csvLine({row.begin(), row.begin() + static_cast<std::ptrdiff_t>(kept)}) << '\n';
    }
    const auto old = readCsv(path("old.csv"));
    ASSERT_EQ(old.size(), 1u);
    EXPECT_TRUE(old[0].facts.empty());
    EXPECT_EQ(old[0].cacheResident, std::nullopt);
    EXPECT_EQ(old[0].cacheBytes, 0u);
    const auto oldRow = csvRow(old[0]);
    for (std::size_t i = 0; i < kept; ++i)
        EXPECT_EQ(oldRow[i], row[i]) << columns[i];

    // A newer file: a column appended after this reader was written is skipped, not misread.
    columns.push_back("some_future_column");
    row.push_back("42");
    {
        std::ofstream out(path("new.csv"));
        out << data::csvLine(columns) << '\n' << data::csvLine(row) << '\n';
    }
    const auto newer = readCsv(path("new.csv"));
    ASSERT_EQ(newer.size(), 1u);
    EXPECT_EQ(csvRow(newer[0]), csvRow(s));
}

TEST_F(ResultsIo, ReadCsvNamesTheFileLineAndProblem)
{
    const auto expectError
        = [&](const std::string& name, const std::string& text, const std::string& place, const std::string& problem) {
              std::ofstream(path(name)) << text;
              try {
                  readCsv(path(name));
                  ADD_FAILURE() << name << " was accepted";
              } catch (const data::DatasetError& e) {
                  EXPECT_EQ(e.file(), path(name));
                  EXPECT_EQ(e.place(), place) << e.what();
                  EXPECT_NE(e.problem().find(problem), std::string::npos) << e.what();
                  EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
              }
          };
    expectError("empty.csv", "", "", "empty file");
    expectError("other.csv", "x,y\n1,2\n", "line 1", "no 'workload' column");
    expectError("short.csv",
        "workload,variant,outcome,size,median_ms\nlinreg,cpu,passed,16,0.5\nlinreg,cpu,passed,32\n", "line 3",
        "4 fields where the header has 5");
    expectError("number.csv", "workload,variant,outcome,size,median_ms\nlinreg,cpu,passed,16,fast\n",
        "line 2, column 5", "'fast' is not a number");
    expectError("size.csv", "workload,variant,outcome,size,median_ms\nlinreg,cpu,passed,1.5,0.5\n", "line 2, column 4",
        "size '1.5' is not a whole number");
    expectError("outcome.csv", "workload,variant,outcome,size,median_ms\nlinreg,cpu,exploded,16,0.5\n", "line 2",
        "unknown outcome 'exploded'");
    expectError(
        "quote.csv", "workload,variant,outcome,size,median_ms\nlinreg,\"cpu,passed,16,0.5\n", "line 2", "unterminated");
}

TEST_F(ResultsIo, CsvAndJsonSayTheMediansErrorAndWhyTheRunStopped)
{
    const auto columns = csvColumns();
    const auto at = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
    };
    std::vector<Summary> rows;
    for (auto reason : {StopReason::None, StopReason::NoiseTarget, StopReason::TimeLimit, StopReason::MaxRepetitions,
             StopReason::FixedCount, StopReason::Cancelled}) {
        Summary s = sample();
        s.stopReason = reason;
        rows.push_back(s);
    }
    rows[0].medianRsePct.reset(); // one repetition: undefined
    const std::vector<std::string> names {
        "", "noise_target", "time_limit", "max_repetitions", "fixed_count", "cancelled"};
    const std::vector<std::string> noisy {"no", "no", "yes", "yes", "no", "no"};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(csvRow(rows[i])[at("stop_reason")], names[i]);
        EXPECT_EQ(csvRow(rows[i])[at("noisy")], noisy[i]) << names[i];
    }
    EXPECT_EQ(csvRow(rows[0])[at("median_rse_pct")], "");
    EXPECT_EQ(csvRow(rows[1])[at("median_rse_pct")], "0.333333333");

    writeJson(path("r.json"), rows);
    const auto back = readJson(path("r.json"));
    ASSERT_EQ(back.size(), rows.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        EXPECT_EQ(back[i].stopReason, rows[i].stopReason) << names[i];
        EXPECT_EQ(back[i].medianRsePct, rows[i].medianRsePct) << names[i];
        EXPECT_EQ(csvRow(back[i]), csvRow(rows[i]));
    }
    EXPECT_TRUE(toJson(rows[0])["median_rse_pct"].is_null());
    EXPECT_EQ(toJson(rows[2])["noisy"], true);

    // A file written before these fields existed reads back with no error estimate and as not noisy.
    auto old = toJson(rows[2]);
    old.erase("median_rse_pct");
    old.erase("stop_reason");
    old.erase("noisy");
    const Summary before = summaryFromJson(old);
    EXPECT_FALSE(before.medianRsePct.has_value());
    EXPECT_EQ(before.stopReason, StopReason::None);
    EXPECT_FALSE(before.noisy());
}

TEST_F(ResultsIo, ResultArraysAreSavedOneDatasetEach)
{
    Result trained {"gradients", {}, {1.0, 2.0, 3.0}, {}, {}, "trained weights", {}};
    trained.arrays.push_back({"conv.weight", {2, 1, 1}, {0.5f, -0.25f}});
    trained.arrays.push_back({"conv.bias", {2}, {1e-7f, 3.0f}});
    writeResultFile(path("w.h5"), trained);
    auto file = data::h5::File::open(path("w.h5"));
    EXPECT_EQ(file.info("/conv.weight").dims, (std::vector<std::uint64_t> {2, 1, 1}));
    EXPECT_EQ(file.info("/conv.weight").type, "float32");
    EXPECT_EQ(file.readDoubles("/conv.bias", 1, false), (std::vector<double> {double(1e-7f), 3.0}));
    EXPECT_EQ(file.readStringAttribute("/conv.bias", "quantity"), "trained weights");
    EXPECT_FALSE(file.hasDataset("/result"));

    writeResultFile(path("w.csv"), trained);
    EXPECT_EQ(data::readTextFile(path("w.csv")),
        "array,index,value\nconv.weight,0,0.5\nconv.weight,1,-0.25\nconv.bias,0,1.00000001e-07\nconv.bias,1,3\n");
}

} // namespace
} // namespace ks
