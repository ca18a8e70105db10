// The window after a variant broke the CUDA context: every CUDA variant in the list is greyed with the report, the
// status bar says it, and CPU variants still run. The context is marked broken by hand (the variant that breaks it
// for real is test-only: tests/compute/test_gpu_faults), in a child process, since the mark is process-wide.
#include "compute/core/device_fault.h"
#include "compute/device/device_info.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>

namespace ks::gui {
namespace {

TEST(MainWindowGpuFaults, ABrokenContextGreysTheCudaVariantsWithTheReasonAndTheStatusBarSaysIt)
{
    if (!KS_HAVE_CUDA)
        GTEST_SKIP() << "built without CUDA: its CUDA variants are greyed as not built, whatever the context";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            int failures = 0;
            auto check = [&](bool ok, const std::string& what) {
                if (!ok) {
                    std::cerr << "FAILED: " << what << '\n';
                    ++failures;
                }
            };
            QTemporaryDir dir;
            MainWindow window;
            window.setAutosaveDirectory(dir.filePath(QStringLiteral("autosave")));
            window.controller()->setCalibrationEnabled(false);
            window.setWorkload(QStringLiteral("linreg"));
            window.datasetPanel()->setSource(DatasetPanel::Source::Generator);
            window.datasetPanel()->setGenerator({{"n", "20000"}, {"seed", "3"}});
            RunSettings s;
            s.sizes = QStringLiteral("20000");
            s.options.timeLimitS = 0.3;
            s.options.maxRepetitions = 10;
            s.options.minRepetitions = 3;
            s.options.flushL2 = false;
            window.runSettingsPanel()->setSettings(s);
            window.show();

            const std::string report = brokenContextReport(
                "an illegal memory access was encountered", runPlace("linreg", "shared_tree", 20000));
            device::markCudaUnusable(report);
            window.variantPanel()->setCheckedVariants({QStringLiteral("reference"), QStringLiteral("cpu_openmp")});
            QSignalSpy finished(&window, &MainWindow::runFinished);
            check(window.startRun(), "the run starts: " + window.statusText().toStdString());
            check(finished.wait(60000), "the run finishes");

            const QString reason = QString::fromStdString(report);
            check(window.variantPanel()->unavailableReason(QStringLiteral("shared_tree")) == reason,
                "a CUDA variant is greyed with the report: "
                    + window.variantPanel()->unavailableReason(QStringLiteral("shared_tree")).toStdString());
            check(window.variantPanel()->unavailableReason(QStringLiteral("cpu_openmp")).isEmpty(),
                "a CPU variant stays available");
            check(window.statusText().contains(QStringLiteral("CUDA broken"))
                    && window.statusText().contains(QStringLiteral("2 passed")),
                "the status bar says the runs and that CUDA broke: " + window.statusText().toStdString());
            const auto* status = window.findChild<QLabel*>(QStringLiteral("statusMessage"));
            check(status && status->toolTip() == reason, "the status bar's tooltip is the report");
            check(window.resultsModel()->rowCount() == 2, "both CPU runs are in the table");
            std::cerr.flush();
            std::_Exit(failures == 0 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace ks::gui
