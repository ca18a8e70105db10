// What a new user's walk through the app found: results of two workloads joined on one chart after a switch, a
// failed file that a reader option could fix not read again, the CLI's words in the app's errors, Ctrl+S in the
// kernel editor taken by Save Workspace, and a kernel for another workload failing on that workload's names.
#include "compute/core/user_kernel.h"
#include "gui/charts/sweep_chart.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/kernel_dock.h"
#include "gui/panels/kernel_editor.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>
#include <qcustomplot.h>

namespace ks::gui {
namespace {

Summary run(const std::string& runId, const std::string& workload, std::uint64_t size)
{
    Summary s;
    s.runId = runId;
    s.workload = workload;
    s.variant = "reference";
    s.variantName = "reference";
    s.backend = "cpu";
    s.size = size;
    s.outcome = Outcome::Passed;
    s.repetitions = 3;
    s.medianMs = s.meanMs = s.minMs = s.maxMs = 1.0;
    s.samplesMs = {1.0, 1.0, 1.0};
    return s;
}

int plottedPoints(QCustomPlot* plot)
{
    int points = 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        points += plot->graph(i)->dataCount();
    return points;
}

TEST(WalkFixes, ChartsShowTheCurrentWorkloadsRowsOnlyAndTheTableSaysWhoseTheOthersAre)
{
    ResultsModel model;
    SweepChart chart(&model);
    model.addSummary(run("a-001", "linreg", 1000000));
    model.addSummary(run("b-001", "spmv", 147));
    chart.rebuildNow();
    EXPECT_EQ(plottedPoints(chart.plot()), 2) << "no workload chosen: every row";
    model.setViewWorkload("spmv");
    chart.rebuildNow();
    EXPECT_EQ(plottedPoints(chart.plot()), 1) << "linreg's reference is not joined to spmv's";
    EXPECT_EQ(model.data(model.index(0, ResultsModel::VariantColumn)).toString(), QStringLiteral("reference (linreg)"));
    EXPECT_EQ(model.data(model.index(1, ResultsModel::VariantColumn)).toString(), QStringLiteral("reference"));
}

class WalkWindow : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_window->setAutosaveDirectory(m_dir.filePath(QStringLiteral("autosave")));
        m_window->controller()->setCalibrationEnabled(false);
        m_window->show();
    }
    QString write(const QString& name, const QByteArray& text)
    {
        QFile f(m_dir.filePath(name));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text);
        return f.fileName();
    }
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

TEST_F(WalkWindow, AFileThatFailedIsReadAgainWhenAReaderOptionChangesAndTheErrorSpeaksTheAppsWords)
{
    m_window->setWorkload(QStringLiteral("lrv"));
    const QString file = write(QStringLiteral("counts.tsv"), "g1\tg2\tg3\n0\t2\t3\n1\t0\t5\n2\t4\t6\n3\t5\t1\n");
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->openDatasetFile(file);
    ASSERT_TRUE(loaded.wait(20000));
    ASSERT_FALSE(loaded.takeFirst().at(0).toBool());
    EXPECT_TRUE(m_window->statusText().contains(QStringLiteral("zeros = replace in Run settings")))
        << m_window->statusText().toStdString();
    EXPECT_FALSE(m_window->statusText().contains(QStringLiteral("--param"))) << m_window->statusText().toStdString();
    RunSettings settings = m_window->runSettingsPanel()->settings();
    settings.params["zeros"] = "replace";
    m_window->runSettingsPanel()->setSettings(settings);
    if (loaded.isEmpty()) {
        ASSERT_TRUE(loaded.wait(20000)) << "the file was not read again";
    }
    EXPECT_TRUE(loaded.takeFirst().at(0).toBool()) << m_window->statusText().toStdString();
    EXPECT_FALSE(m_window->loadedDataset().empty());
}

TEST_F(WalkWindow, CtrlSInTheKernelEditorSavesTheKernel)
{
    m_window->setWorkload(QStringLiteral("spmv"));
    const QString file = m_dir.filePath(QStringLiteral("mine.cu"));
    ASSERT_TRUE(m_window->newKernelFromTemplate(file));
    KernelEditor* editor = m_window->kernelDock()->editor(QStringLiteral("user:mine"));
    ASSERT_NE(editor, nullptr);
    editor->appendPlainText(QStringLiteral("// one more line"));
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_S, Qt::ControlModifier);
    QFile saved(file);
    ASSERT_TRUE(saved.open(QIODevice::ReadOnly));
    EXPECT_TRUE(saved.readAll().contains("// one more line"));
    EXPECT_EQ(m_window->kernelDock()->currentSave(QStringLiteral("user:mine")), 2);
}

TEST_F(WalkWindow, AKernelWrittenForAnotherWorkloadSaysWhich)
{
    const QString file
        = write(QStringLiteral("my_spmv.cu"), QByteArray::fromStdString(findUserKernelAbi("spmv")->templateSource));
    m_window->setWorkload(QStringLiteral("linreg"));
    QString error;
    EXPECT_FALSE(m_window->addUserKernel(file, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("written for spmv"))) << error.toStdString();
    EXPECT_TRUE(m_window->kernelDock()->kernelIds().isEmpty());
}

} // namespace
} // namespace ks::gui
