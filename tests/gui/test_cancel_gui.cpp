// The app's Cancel during one long CPU repetition: the run ends within a second (the CPU loops check the stop
// request, cancel.h), reported as cancelled, not after the repetition's many seconds.
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"

#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>
#include <iostream>

namespace ks::gui {
namespace {

TEST(CancelGui, CancelEndsALongCpuRepetitionWithinASecond)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    MainWindow window;
    window.setAutosaveDirectory(dir.filePath(QStringLiteral("autosave")));
    window.controller()->setCalibrationEnabled(false);
    window.setWorkload(QStringLiteral("sdh"));
    window.variantPanel()->setCheckedVariants({QStringLiteral("cpu_openmp")});
    window.datasetPanel()->setSource(DatasetPanel::Source::Generator);
    // 100,000 points: one cpu_openmp repetition takes many seconds here (the reference is sampled at this size).
    window.datasetPanel()->setGenerator({{"points", "100000"}});
    RunSettings s = window.runSettingsPanel()->settings();
    s.sizes = QStringLiteral("100000");
    s.options.warmup = 0;
    s.options.timeLimitS = 60.0;
    window.runSettingsPanel()->setSettings(s);
    window.show();

    auto* cancel = window.findChild<QPushButton*>(QStringLiteral("cancelButton"));
    ASSERT_NE(cancel, nullptr);
    QSignalSpy progress(window.controller(), &RunController::progress);
    QSignalSpy finished(&window, &MainWindow::runFinished);
    ASSERT_TRUE(window.startRun()) << window.statusText().toStdString();
    // The progress signal comes just before the run prepares; half a second later it is inside the repetition.
    ASSERT_TRUE(progress.wait(60000)) << "the run never started";
    QTest::qWait(500);
    ASSERT_TRUE(window.isRunning()) << "the repetition ended by itself: it is not long enough for this test";
    ASSERT_TRUE(cancel->isEnabled());

    QElapsedTimer sinceCancel;
    sinceCancel.start();
    cancel->click();
    ASSERT_TRUE(finished.wait(10000)) << "still running 10 s after Cancel";
    const qint64 ms = sinceCancel.elapsed();
    std::cout << "  the run ended " << ms << " ms after Cancel\n";
    EXPECT_LT(ms, 1000);
    EXPECT_TRUE(finished.front().front().toBool()) << "reported as cancelled";
    EXPECT_FALSE(window.isRunning());
    const auto summaries = window.resultsModel()->finishedSummaries();
    ASSERT_EQ(summaries.size(), 1u);
    EXPECT_EQ(summaries.front().outcome, Outcome::Cancelled);
    EXPECT_EQ(summaries.front().repetitions, 0) << "the abandoned repetition is not a sample";
    EXPECT_TRUE(window.statusText().contains(QStringLiteral("Cancelled"))) << window.statusText().toStdString();
}

} // namespace
} // namespace ks::gui
