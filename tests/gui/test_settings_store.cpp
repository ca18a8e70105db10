// What the app remembers between sessions, in an INI file: every setting round-trips, the run settings live as
// the workspace's JSON under one key, and the per-key run settings of earlier versions are still read.
#include "gui/settings_store.h"

#include <QSettings>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ks::gui {
namespace {

class SettingsStoreTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(m_dir.isValid()); }
    QString ini() const { return m_dir.filePath(QStringLiteral("settings.ini")); }
    QTemporaryDir m_dir;
};

TEST_F(SettingsStoreTest, NothingSavedGivesTheDefaults)
{
    const SettingsStore store(ini());
    EXPECT_EQ(store.theme(), ThemeMode::System);
    EXPECT_TRUE(store.recentFiles().isEmpty());
    EXPECT_EQ(store.workload(QStringLiteral("linreg")), QStringLiteral("linreg"));
    EXPECT_TRUE(store.generatorValues(QStringLiteral("sdh")).empty());
    EXPECT_FALSE(store.runSettings().has_value());
    EXPECT_TRUE(store.windowLayout().geometry.isEmpty());
    EXPECT_TRUE(store.timelineClockOverlay()) << "the timeline's default";
}

TEST_F(SettingsStoreTest, EverySettingRoundTrips)
{
    RunSettings run;
    run.sizes = QStringLiteral("2^10..2^12");
    run.params = {{"bucket_width", "250"}, {"frame", "2"}};
    run.baseline = QStringLiteral("cpu_openmp");
    run.options.noiseTarget = 0.02;
    run.options.warmup = 0;
    run.options.minRepetitions = 9;
    run.options.maxRepetitions = 99;
    run.options.timeLimitS = 0.25;
    run.options.flushL2 = false;
    run.options.device = 1;
    {
        SettingsStore store(ini());
        store.setTheme(ThemeMode::Dark);
        store.setRecentFiles({QStringLiteral("/a.csv"), QStringLiteral("/b.xyz")});
        store.setWorkload(QStringLiteral("sdh"));
        store.setGeneratorValues(QStringLiteral("sdh"), {{"points", "500"}, {"shape", "clusters"}});
        store.setRunSettings(run);
        store.setWindowLayout({QByteArray("geometry"), QByteArray("state"), QByteArray("splitter")});
        store.setTimelineClockOverlay(false);
        store.sync();
    }
    const SettingsStore store(ini());
    EXPECT_EQ(store.theme(), ThemeMode::Dark);
    EXPECT_EQ(store.recentFiles(), (QStringList {QStringLiteral("/a.csv"), QStringLiteral("/b.xyz")}));
    EXPECT_EQ(store.workload(QStringLiteral("linreg")), QStringLiteral("sdh"));
    EXPECT_EQ(store.generatorValues(QStringLiteral("sdh")).at("shape"), "clusters");
    EXPECT_TRUE(store.generatorValues(QStringLiteral("lrv")).empty());
    const auto back = store.runSettings();
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->sizes, run.sizes);
    EXPECT_EQ(back->params, run.params);
    EXPECT_EQ(back->baseline, run.baseline);
    EXPECT_DOUBLE_EQ(back->options.noiseTarget, 0.02);
    EXPECT_EQ(back->options.warmup, 0);
    EXPECT_EQ(back->options.minRepetitions, 9);
    EXPECT_EQ(back->options.maxRepetitions, 99);
    EXPECT_DOUBLE_EQ(back->options.timeLimitS, 0.25);
    EXPECT_FALSE(back->options.flushL2);
    EXPECT_EQ(back->options.device, 1);
    EXPECT_EQ(store.windowLayout().state, QByteArray("state"));
    EXPECT_EQ(store.windowLayout().splitter, QByteArray("splitter"));
    EXPECT_FALSE(store.timelineClockOverlay());
}

TEST_F(SettingsStoreTest, RunSettingsAreTheWorkspacesJsonUnderOneKey)
{
    RunSettings run;
    run.sizes = QStringLiteral("1000");
    {
        SettingsStore store(ini());
        store.setRunSettings(run);
        store.sync();
    }
    QSettings raw(ini(), QSettings::IniFormat);
    raw.beginGroup(QStringLiteral("run"));
    EXPECT_EQ(raw.childKeys(), QStringList {QStringLiteral("settings")});
    const auto json = nlohmann::ordered_json::parse(raw.value(QStringLiteral("settings")).toString().toStdString());
    EXPECT_EQ(json, runSettingsToJson(run));
}

TEST_F(SettingsStoreTest, ReadsTheRunSettingsOfEarlierVersionsAndReplacesThem)
{
    {
        QSettings old(ini(), QSettings::IniFormat);
        old.setValue(QStringLiteral("run/sizes"), QStringLiteral("1e4"));
        old.setValue(QStringLiteral("run/noisePct"), 1.5);
        old.setValue(QStringLiteral("run/warmup"), 4);
        old.setValue(QStringLiteral("run/minRepetitions"), 8);
        old.setValue(QStringLiteral("run/maxRepetitions"), 80);
        old.setValue(QStringLiteral("run/timeLimitS"), 2.0);
        old.setValue(QStringLiteral("run/flushL2"), false);
        old.setValue(QStringLiteral("run/device"), 0);
        old.setValue(QStringLiteral("run/baseline"), QStringLiteral("cpu_four_sums"));
        old.setValue(QStringLiteral("run/params"), QStringLiteral(R"({"precision":"f32"})"));
    }
    SettingsStore store(ini());
    const auto run = store.runSettings();
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->sizes, QStringLiteral("1e4"));
    EXPECT_DOUBLE_EQ(run->options.noiseTarget, 0.015) << "the old key held the target in %";
    EXPECT_EQ(run->options.warmup, 4);
    EXPECT_EQ(run->options.minRepetitions, 8);
    EXPECT_EQ(run->options.maxRepetitions, 80);
    EXPECT_DOUBLE_EQ(run->options.timeLimitS, 2.0);
    EXPECT_FALSE(run->options.flushL2);
    EXPECT_EQ(run->baseline, QStringLiteral("cpu_four_sums"));
    EXPECT_EQ(run->params.at("precision"), "f32");

    store.setRunSettings(*run);
    store.sync();
    QSettings raw(ini(), QSettings::IniFormat);
    EXPECT_FALSE(raw.contains(QStringLiteral("run/noisePct"))) << "one form on disk";
    EXPECT_TRUE(raw.contains(QStringLiteral("run/settings")));
}

TEST_F(SettingsStoreTest, UnreadableRunSettingsAreNoSettings)
{
    {
        QSettings raw(ini(), QSettings::IniFormat);
        raw.setValue(QStringLiteral("run/settings"), QStringLiteral("{\"sizes\": 12, "));
    }
    EXPECT_FALSE(SettingsStore(ini()).runSettings().has_value());
    {
        QSettings raw(ini(), QSettings::IniFormat);
        raw.setValue(QStringLiteral("run/settings"), QStringLiteral("{\"sizes\": 12}"));
    }
    EXPECT_FALSE(SettingsStore(ini()).runSettings().has_value()) << "a number where text belongs";
}

} // namespace
} // namespace ks::gui
