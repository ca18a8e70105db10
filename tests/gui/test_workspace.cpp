// Workspaces: the saved file, the appended one the autosave grows (and its crash-cut last line), the files of
// earlier formats, the run settings' one JSON form, and the binding that captures and applies the side bar.
#include "gui/workspace.h"

#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "data/dataset_error.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_settings.h"
#include "gui/workspace_binding.h"

#include <QFile>
#include <QTemporaryDir>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ks::gui {
namespace {

Summary summary(int index, Outcome outcome = Outcome::Passed)
{
    Summary s;
    s.runId = "20260101T000000-1-" + std::to_string(index);
    s.timestamp = "2026-01-01T00:00:00Z";
    s.workload = "linreg";
    s.variant = "reference";
    s.variantName = "Reference, \"two\" lines\nof name";
    s.backend = "cpu";
    s.datasetName = "generated";
    s.size = 1000u + static_cast<std::uint64_t>(index);
    s.outcome = outcome;
    s.repetitions = 3;
    s.medianMs = 0.5 + index;
    s.meanMs = 0.5 + index;
    s.minMs = 0.4;
    s.maxMs = 0.6 + index;
    s.samplesMs = {0.4, 0.5 + index, 0.6 + index};
    return s;
}

Workspace generatorWorkspace()
{
    Workspace w;
    w.workload = QStringLiteral("linreg");
    w.generator = {{"n", "5000"}, {"seed", "7"}};
    w.variants = {QStringLiteral("reference"), QStringLiteral("cpu_openmp")};
    w.settings.sizes = QStringLiteral("1e3,2^12");
    w.settings.params = {{"precision", "f32"}};
    w.settings.baseline = QStringLiteral("reference");
    w.settings.options.noiseTarget = 0.0125;
    w.settings.options.warmup = 3;
    w.settings.options.minRepetitions = 7;
    w.settings.options.maxRepetitions = 70;
    w.settings.options.timeLimitS = 2.5;
    w.settings.options.flushL2 = false;
    w.settings.options.device = 1;
    w.settings.options.checkDeterminism = true;
    return w;
}

void expectSameSettings(const RunSettings& a, const RunSettings& b)
{
    EXPECT_EQ(a.sizes, b.sizes);
    EXPECT_EQ(a.params, b.params);
    EXPECT_EQ(a.baseline, b.baseline);
    EXPECT_DOUBLE_EQ(a.options.noiseTarget, b.options.noiseTarget);
    EXPECT_EQ(a.options.warmup, b.options.warmup);
    EXPECT_EQ(a.options.minRepetitions, b.options.minRepetitions);
    EXPECT_EQ(a.options.maxRepetitions, b.options.maxRepetitions);
    EXPECT_DOUBLE_EQ(a.options.timeLimitS, b.options.timeLimitS);
    EXPECT_EQ(a.options.flushL2, b.options.flushL2);
    EXPECT_EQ(a.options.device, b.options.device);
    EXPECT_EQ(a.options.checkDeterminism, b.options.checkDeterminism);
}

void expectSameSummaries(const std::vector<Summary>& a, const std::vector<Summary>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(csvRow(a[i]), csvRow(b[i])) << "summary " << i;
        EXPECT_EQ(a[i].samplesMs, b[i].samplesMs) << "summary " << i;
    }
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return f.readAll();
}

void writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

class WorkspaceFile : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(m_dir.isValid()); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

TEST(RunSettingsJson, DefaultsAreTheRunnersOwn)
{
    const RunSettings fromNothing = runSettingsFromJson(nlohmann::ordered_json::object());
    const RunOptions defaults;
    EXPECT_DOUBLE_EQ(fromNothing.options.noiseTarget, defaults.noiseTarget);
    EXPECT_EQ(fromNothing.options.warmup, defaults.warmup);
    EXPECT_EQ(fromNothing.options.minRepetitions, defaults.minRepetitions);
    EXPECT_EQ(fromNothing.options.maxRepetitions, defaults.maxRepetitions);
    EXPECT_DOUBLE_EQ(fromNothing.options.timeLimitS, defaults.timeLimitS);
    EXPECT_EQ(fromNothing.options.flushL2, defaults.flushL2);
    EXPECT_EQ(fromNothing.options.device, defaults.device);
    EXPECT_EQ(fromNothing.options.checkDeterminism, defaults.checkDeterminism);
}

TEST(RunSettingsJson, RoundTripsWithTheNoiseTargetAsAFraction)
{
    const RunSettings settings = generatorWorkspace().settings;
    const auto json = runSettingsToJson(settings);
    EXPECT_DOUBLE_EQ(json.at("run_options").at("noise_target").get<double>(), 0.0125);
    EXPECT_FALSE(json.contains("noise_pct")) << "the measured noise's name, not the stopping rule's";
    expectSameSettings(runSettingsFromJson(json), settings);
}

TEST(RunSettingsJson, TheMultiDeviceListRoundTripsAndIsEveryDeviceWhenMissing)
{
    RunSettings settings;
    settings.options.devices = {1, 0};
    const auto json = runSettingsToJson(settings);
    EXPECT_EQ(json.at("run_options").at("devices"), nlohmann::ordered_json::array({1, 0}));
    EXPECT_EQ(runSettingsFromJson(json).options.devices, (std::vector<int> {1, 0}));
    auto older = json;
    older["run_options"].erase("devices");
    EXPECT_TRUE(runSettingsFromJson(older).options.devices.empty()) << "settings saved before it: every device";
}

TEST(RunSettingsJson, ReadsFormatOnesFlatKeysWithTheNoiseTargetInPercent)
{
    const auto json = nlohmann::ordered_json::parse(R"({"sizes": "1000", "params": {"precision": "f32"},
        "noise_pct": 2.0, "warmup": 4, "min_repetitions": 6, "max_repetitions": 60, "time_limit_s": 1.5,
        "flush_caches": false, "device": 2, "baseline": "cpu_openmp"})");
    const RunSettings s = runSettingsFromJson(json);
    EXPECT_EQ(s.sizes, QStringLiteral("1000"));
    EXPECT_EQ(s.params.at("precision"), "f32");
    EXPECT_DOUBLE_EQ(s.options.noiseTarget, 0.02);
    EXPECT_EQ(s.options.warmup, 4);
    EXPECT_EQ(s.options.minRepetitions, 6);
    EXPECT_EQ(s.options.maxRepetitions, 60);
    EXPECT_DOUBLE_EQ(s.options.timeLimitS, 1.5);
    EXPECT_FALSE(s.options.flushL2);
    EXPECT_EQ(s.options.device, 2);
    EXPECT_FALSE(s.options.checkDeterminism) << "older settings lack it: off, as the runner's default";
    EXPECT_EQ(s.baseline, QStringLiteral("cpu_openmp"));
}

TEST_F(WorkspaceFile, SavesAndLoadsSettingsDatasetAndSummaries)
{
    Workspace w = generatorWorkspace();
    w.summaries = {summary(0), summary(1, Outcome::Incorrect)};
    saveWorkspace(path(QStringLiteral("a.ksw")), w);
    const Workspace back = loadWorkspace(path(QStringLiteral("a.ksw")));
    EXPECT_EQ(back.workload, w.workload);
    EXPECT_FALSE(back.fromFile);
    EXPECT_EQ(back.generator, w.generator);
    EXPECT_EQ(back.variants, w.variants);
    expectSameSettings(back.settings, w.settings);
    expectSameSummaries(back.summaries, w.summaries);
    EXPECT_TRUE(back.baselineSource.isEmpty());

    Workspace file = w;
    file.baselineSource = QStringLiteral("/data/server run.json");
    file.fromFile = true;
    file.filePath = QStringLiteral("/data/points.csv");
    file.h5Path = QStringLiteral("/series");
    file.allowNonFinite = true;
    file.datasetHash = QStringLiteral("ks64:00ff");
    saveWorkspace(path(QStringLiteral("b.ksw")), file);
    const Workspace fileBack = loadWorkspace(path(QStringLiteral("b.ksw")));
    EXPECT_TRUE(fileBack.fromFile);
    EXPECT_EQ(fileBack.filePath, file.filePath);
    EXPECT_EQ(fileBack.h5Path, file.h5Path);
    EXPECT_TRUE(fileBack.allowNonFinite);
    EXPECT_EQ(fileBack.datasetHash, file.datasetHash);
    EXPECT_EQ(fileBack.baselineSource, file.baselineSource);
}

TEST_F(WorkspaceFile, AFormatOneWorkspaceStillLoads)
{
    // As KernelScope wrote it before the run settings nested the runner's options.
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(R"({
        "kernelscope_workspace": 1, "kernelscope_version": "0.1.0", "workload": "linreg",
        "dataset": {"source": "generator", "generator": {"n": "20000", "seed": "3"}},
        "variants": ["reference", "cpu_four_sums"],
        "settings": {"sizes": "1000,20000", "params": {"precision": "f64"}, "noise_pct": 0.75, "warmup": 2,
            "min_repetitions": 3, "max_repetitions": 20, "time_limit_s": 0.3, "flush_caches": false, "device": 0,
            "baseline": "cpu_four_sums"},
        "summaries": []})");
    j["summaries"].push_back(toJson(summary(0)));
    std::ofstream(path(QStringLiteral("old.ksw")).toStdString()) << j.dump(1);

    const Workspace w = loadWorkspace(path(QStringLiteral("old.ksw")));
    EXPECT_EQ(w.workload, QStringLiteral("linreg"));
    EXPECT_EQ(w.generator.at("n"), "20000");
    EXPECT_EQ(w.variants, (QStringList {QStringLiteral("reference"), QStringLiteral("cpu_four_sums")}));
    EXPECT_EQ(w.settings.sizes, QStringLiteral("1000,20000"));
    EXPECT_DOUBLE_EQ(w.settings.options.noiseTarget, 0.0075);
    EXPECT_EQ(w.settings.options.warmup, 2);
    EXPECT_EQ(w.settings.options.maxRepetitions, 20);
    EXPECT_DOUBLE_EQ(w.settings.options.timeLimitS, 0.3);
    EXPECT_FALSE(w.settings.options.flushL2);
    EXPECT_EQ(w.settings.baseline, QStringLiteral("cpu_four_sums"));
    expectSameSummaries(w.summaries, {summary(0)});
    EXPECT_TRUE(w.baselineSource.isEmpty()); // written before baselines could be pinned
    EXPECT_TRUE(w.decisions.empty()); // and before decisions
}

TEST_F(WorkspaceFile, ANewerFormatIsRefusedByName)
{
    std::ofstream(path(QStringLiteral("new.ksw")).toStdString())
        << R"({"kernelscope_workspace": 99, "workload": "linreg", "dataset": {"source": "generator"}})";
    try {
        loadWorkspace(path(QStringLiteral("new.ksw")));
        FAIL() << "a newer format loaded";
    } catch (const data::DatasetError& e) {
        EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
    }
}

TEST_F(WorkspaceFile, AnAppendedWorkspaceHoldsTheFirstLinesSummariesThenEachAppendedOne)
{
    Workspace w = generatorWorkspace();
    w.summaries = {summary(0)};
    const QString file = path(QStringLiteral("session.ksw"));
    {
        WorkspaceAppender appender(file, w);
        EXPECT_EQ(appender.path(), file);
        EXPECT_EQ(loadWorkspace(file).summaries.size(), 1u) << "the first line alone is a whole workspace";
        const QByteArray firstLine = readAll(file);
        appender.append(summary(1));
        appender.append(summary(2, Outcome::Failed));
        const QByteArray grown = readAll(file);
        EXPECT_TRUE(grown.startsWith(firstLine)) << "appending never rewrites what is written";
        EXPECT_EQ(grown.count('\n'), 3) << "one line per Summary, multi-line strings escaped";
    }
    const Workspace back = loadWorkspace(file);
    expectSameSettings(back.settings, w.settings);
    EXPECT_EQ(back.variants, w.variants);
    expectSameSummaries(back.summaries, {summary(0), summary(1), summary(2, Outcome::Failed)});
}

TEST_F(WorkspaceFile, AnAppendedWorkspaceCutOffMidLineKeepsEveryCompleteLine)
{
    const QString file = path(QStringLiteral("crashed.ksw"));
    {
        WorkspaceAppender appender(file, generatorWorkspace());
        appender.append(summary(0));
        appender.append(summary(1));
        appender.append(summary(2));
    }
    const QByteArray whole = readAll(file);
    const qsizetype lastLine = whole.lastIndexOf('\n', whole.size() - 2) + 1;
    for (const qsizetype cut : {lastLine + 1, lastLine + (whole.size() - lastLine) / 2, whole.size() - 2}) {
        writeAll(file, whole.left(cut));
        const Workspace back = loadWorkspace(file);
        expectSameSummaries(back.summaries, {summary(0), summary(1)});
    }
    // Cut just after a newline: every line is complete.
    writeAll(file, whole.left(lastLine));
    expectSameSummaries(loadWorkspace(file).summaries, {summary(0), summary(1)});
}

TEST_F(WorkspaceFile, ABrokenCompleteLineIsAnErrorNamingTheLine)
{
    const QString file = path(QStringLiteral("broken.ksw"));
    {
        WorkspaceAppender appender(file, generatorWorkspace());
        appender.append(summary(0));
        appender.append(summary(1));
    }
    QByteArray bytes = readAll(file);
    const qsizetype secondLine = bytes.indexOf('\n') + 1;
    bytes.insert(secondLine + 1, "oops");
    writeAll(file, bytes);
    try {
        loadWorkspace(file);
        FAIL() << "a broken line in the middle loaded";
    } catch (const data::DatasetError& e) {
        EXPECT_EQ(e.file(), file.toStdString());
        EXPECT_EQ(e.place(), "line 2");
    }
}

Decision decision(std::uint64_t size, DecisionVerdict verdict)
{
    Decision d;
    d.workload = "linreg";
    d.size = size;
    d.variantA = "reference";
    d.variantB = "cpu_openmp";
    d.ratio = 0.8;
    d.low = 0.75;
    d.high = 0.85;
    d.confidence = 0.99;
    d.margin = 0.01;
    d.verdict = verdict;
    d.rounds = 37;
    d.stopReason = "decided";
    return d;
}

void expectSameDecisions(const std::vector<Decision>& a, const std::vector<Decision>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i].text(), b[i].text()) << "decision " << i; // the text names every field drawn
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].size, b[i].size);
        EXPECT_EQ(a[i].margin, b[i].margin);
        EXPECT_EQ(a[i].high, b[i].high);
    }
}

TEST_F(WorkspaceFile, KeepsTheDecisionsAndAnAppendedLineReplacesThem)
{
    Workspace w = generatorWorkspace();
    w.summaries = {summary(0)};
    w.decisions = {decision(1000, DecisionVerdict::Faster), decision(4096, DecisionVerdict::Undecided)};
    w.decisions[1].low = 0.0; // too few rounds for an interval: unbounded above
    w.decisions[1].high = INFINITY;
    saveWorkspace(path(QStringLiteral("decided.ksw")), w);
    expectSameDecisions(loadWorkspace(path(QStringLiteral("decided.ksw"))).decisions, w.decisions);

    // The autosave appends a decision run's verdicts as a line of their own; Summaries may follow it.
    const QString file = path(QStringLiteral("session.ksw"));
    {
        WorkspaceAppender appender(file, generatorWorkspace());
        appender.append(summary(0));
        appender.appendDecisions({decision(1000, DecisionVerdict::Slower)});
        appender.append(summary(1));
    }
    Workspace back = loadWorkspace(file);
    expectSameSummaries(back.summaries, {summary(0), summary(1)});
    expectSameDecisions(back.decisions, {decision(1000, DecisionVerdict::Slower)});

    // A decision that cannot be read names its line and index.
    QByteArray bytes = readAll(file);
    bytes.replace("\"slower\"", "\"sideways\"");
    writeAll(file, bytes);
    try {
        loadWorkspace(file);
        FAIL() << "an unknown verdict loaded";
    } catch (const data::DatasetError& e) {
        EXPECT_EQ(e.place(), "line 3, decisions[0]");
    }
}

TEST_F(WorkspaceFile, WhatIsNoWorkspaceSaysSo)
{
    std::ofstream(path(QStringLiteral("cut.ksw")).toStdString()) << "{ \"kernelscope_workspace\": 2, \"workload\": ";
    std::ofstream(path(QStringLiteral("lines.ksw")).toStdString()) << "{\"a\": 1}\n{\"b\": 2}\n";
    std::ofstream(path(QStringLiteral("object.ksw")).toStdString()) << "{\"a\": 1}";
    for (const char* name : {"cut.ksw", "lines.ksw", "object.ksw", "missing.ksw"}) {
        const QString file = path(QString::fromLatin1(name));
        EXPECT_THROW(loadWorkspace(file), data::DatasetError) << name;
    }
}

TEST_F(WorkspaceFile, AnAppenderThatCannotWriteNamesTheFile)
{
    const QString file = path(QStringLiteral("no/such/dir/a.ksw"));
    try {
        WorkspaceAppender appender(file, generatorWorkspace());
        FAIL() << "opened a file in a directory that does not exist";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("a.ksw"), std::string::npos) << e.what();
    }
}

struct SideBar {
    DatasetPanel dataset;
    VariantPanel variants;
    RunSettingsPanel settings;
    ResultsModel model;
    WorkspaceBinding binding {dataset, variants, settings, model};

    SideBar()
    {
        const Workload* w = defaultRegistry().find("linreg");
        dataset.setWorkload(w);
        variants.setWorkload(w);
        settings.setWorkload(w);
    }
};

TEST(WorkspaceBinding, CapturesThePanelsAndAppliesThemToOthers)
{
    SideBar from;
    Workspace w = generatorWorkspace();
    w.settings.options.device = 0; // the only choice without a GPU
    w.summaries = {summary(0), summary(1)};
    EXPECT_FALSE(from.binding.apply(w)) << "a generator has no file to load";

    const Workspace captured = from.binding.capture(QStringLiteral("linreg"), data::Dataset());
    EXPECT_EQ(captured.workload, QStringLiteral("linreg"));
    EXPECT_FALSE(captured.fromFile);
    EXPECT_EQ(captured.generator.at("n"), "5000");
    EXPECT_EQ(captured.variants, w.variants);
    expectSameSettings(captured.settings, w.settings);
    expectSameSummaries(captured.summaries, w.summaries);

    SideBar to;
    EXPECT_FALSE(to.binding.apply(captured));
    expectSameSettings(to.settings.settings(), w.settings);
    EXPECT_EQ(to.variants.checkedVariants(), w.variants);
    EXPECT_EQ(to.model.rowCount(), 2);
}

TEST(WorkspaceBinding, AFileThatExistsIsToBeLoadedAndAGoneOneIsReported)
{
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("points.csv"));
    std::ofstream(csv.toStdString()) << "x,y\n1,2\n2,4\n";
    SideBar bar;
    Workspace w = generatorWorkspace();
    w.settings.options.device = 0;
    w.fromFile = true;
    w.filePath = csv;
    EXPECT_TRUE(bar.binding.apply(w));
    EXPECT_EQ(bar.dataset.source(), DatasetPanel::Source::File);
    EXPECT_EQ(bar.dataset.filePath(), csv);

    w.filePath = dir.filePath(QStringLiteral("gone.csv"));
    EXPECT_FALSE(bar.binding.apply(w));
}

} // namespace
} // namespace ks::gui
