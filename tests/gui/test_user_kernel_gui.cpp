// Bring your own kernel in the app, offscreen: a template opened in the Kernels pane and listed as a variant, a
// syntax error saved from the pane marked at its line, another editor's save picked up by the watcher, unsaved edits
// kept, the history of saves; and on a GPU the scripted session: one kernel edited three times, each save re-run
// and recorded (KS_SESSION_DIR keeps its screenshots and medians).
#include "compute/core/user_kernel.h"
#include "compute/device/device_info.h"
#include "compute/device/nvrtc_loader.h"
#include "gui/charts/chart_view.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/kernel_dock.h"
#include "gui/panels/kernel_editor.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>

namespace ks::gui {
namespace {

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// Writes a file as many editors do: a new file renamed over the old one.
void writeLikeAnEditor(const QString& path, const QString& text)
{
    QSaveFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(text.toUtf8());
    ASSERT_TRUE(f.commit());
}

QString sessionKernel(const char* name)
{
    return readAll(QStringLiteral(KS_TEST_DATA_DIR "/user_kernels/session/") + QLatin1String(name));
}

class UserKernelGui : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_window->setAutosaveDirectory(m_dir.filePath(QStringLiteral("autosave")));
        m_window->controller()->setCalibrationEnabled(false);
        m_window->setWorkload(QStringLiteral("spmv"));
        m_window->datasetPanel()->setSource(DatasetPanel::Source::Generator);
        m_window->show();
    }

    QString path(const QString& name) const { return m_dir.filePath(name); }
    KernelDock* dock() const { return m_window->kernelDock(); }

    /// Adds the spmv template as my_spmv.cu and waits for its first compile.
    QString addTemplate()
    {
        const QString file = path(QStringLiteral("my_spmv.cu"));
        QSignalSpy compiled(dock(), &KernelDock::compileFinished);
        QString error;
        EXPECT_TRUE(m_window->newKernelFromTemplate(file, &error)) << error.toStdString();
        EXPECT_TRUE(compiled.wait(60000)) << "the template was not compiled";
        return file;
    }

    static bool haveNvrtc() { return device::nvrtcUnavailableReason().empty(); }

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

TEST_F(UserKernelGui, TheTemplateOpensInThePaneAndIsListedAsAVariant)
{
    const QString file = addTemplate();
    const QString id = QStringLiteral("user:my_spmv");
    EXPECT_EQ(m_window->variantPanel()->userKernelIds(), QStringList {id});
    EXPECT_EQ(dock()->kernelIds(QStringLiteral("spmv")), QStringList {id});
    EXPECT_TRUE(dock()->isVisible());
    EXPECT_EQ(dock()->editor(id)->toPlainText().toStdString(), findUserKernelAbi("spmv")->templateSource);
    EXPECT_EQ(readAll(file).toStdString(), findUserKernelAbi("spmv")->templateSource);
    EXPECT_EQ(dock()->currentSave(id), 1);
    const QString reason = m_window->variantPanel()->unavailableReason(id);
    if (device::cudaUnavailableReason().empty() && haveNvrtc())
        EXPECT_TRUE(reason.isEmpty()) << reason.toStdString();
    else
        EXPECT_FALSE(reason.isEmpty()) << "a user kernel cannot run without a GPU and NVRTC";
    if (haveNvrtc()) {
        EXPECT_TRUE(dock()->compileStatus(id).contains(QStringLiteral("compiled for")))
            << dock()->compileStatus(id).toStdString();
    }
    EXPECT_TRUE(dock()->editor(id)->diagnostics().isEmpty());

    // Its colour is the one its variant has on every chart.
    const QColor expected = seriesColor(m_window->resultsModel()->variantIndex(id), isDark(m_window->palette()));
    const QTabWidget* tabs = dock()->findChild<QTabWidget*>(QStringLiteral("kernelTabs"));
    ASSERT_NE(tabs, nullptr);
    EXPECT_EQ(tabs->tabIcon(0).pixmap(12, 12).toImage().pixelColor(6, 6).rgb(), expected.rgb());

    // Another workload and back: the kernel is still listed for spmv, and only there.
    m_window->setWorkload(QStringLiteral("sdh"));
    EXPECT_TRUE(m_window->variantPanel()->userKernelIds().isEmpty());
    m_window->setWorkload(QStringLiteral("spmv"));
    EXPECT_EQ(m_window->variantPanel()->userKernelIds(), QStringList {id});
}

TEST_F(UserKernelGui, ASyntaxErrorSavedFromThePaneIsMarkedAtItsLineAndNothingReruns)
{
    if (!haveNvrtc())
        GTEST_SKIP() << device::nvrtcUnavailableReason();
    addTemplate();
    const QString id = QStringLiteral("user:my_spmv");
    KernelEditor* editor = dock()->editor(id);
    QStringList lines = editor->toPlainText().split(QLatin1Char('\n'));
    // Line 9 of the template computes the row.
    ASSERT_TRUE(lines[8].contains(QStringLiteral("const int row")));
    lines[8] = QStringLiteral("    const int row = blockIdx.x * blockDim.x + threadIdx.x + undeclared_name;");
    editor->setPlainText(lines.join(QLatin1Char('\n')));
    QSignalSpy compiled(dock(), &KernelDock::compileFinished);
    QSignalSpy changed(dock(), &KernelDock::kernelChanged);
    QString error;
    ASSERT_TRUE(dock()->saveKernel(id, &error)) << error.toStdString();
    ASSERT_TRUE(compiled.wait(60000));
    EXPECT_FALSE(compiled.takeFirst().at(1).toBool());
    EXPECT_EQ(changed.count(), 0) << "a save that does not compile re-runs nothing";
    EXPECT_EQ(dock()->currentSave(id), 2);
    ASSERT_FALSE(editor->diagnostics().isEmpty());
    EXPECT_EQ(editor->diagnostics().front().line, 9);
    EXPECT_TRUE(editor->diagnostics().front().message.contains(QStringLiteral("undeclared_name")))
        << editor->diagnostics().front().message.toStdString();
    EXPECT_TRUE(editor->marginToolTip(9).contains(QStringLiteral("undeclared_name")));
    EXPECT_TRUE(dock()->compileStatus(id).contains(QStringLiteral("does not compile")))
        << dock()->compileStatus(id).toStdString();
    EXPECT_TRUE(dock()->history(id).back().compileFailed);
    const auto* table = dock()->findChild<QTableWidget*>(QStringLiteral("kernelHistory"));
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->item(table->rowCount() - 1, 4)->text(), QStringLiteral("does not compile"));
}

TEST_F(UserKernelGui, AnotherEditorsSaveIsPickedUpCompiledAndAsksForARerun)
{
    if (!haveNvrtc())
        GTEST_SKIP() << device::nvrtcUnavailableReason();
    const QString file = addTemplate();
    const QString id = QStringLiteral("user:my_spmv");
    QSignalSpy compiled(dock(), &KernelDock::compileFinished);
    QSignalSpy changed(dock(), &KernelDock::kernelChanged);
    const QString edited = sessionKernel("edit2_warp_per_row.cu");
    ASSERT_FALSE(edited.isEmpty());
    writeLikeAnEditor(file, edited);
    ASSERT_TRUE(compiled.wait(60000)) << "the watcher did not see the save";
    EXPECT_TRUE(compiled.takeFirst().at(1).toBool()) << dock()->compileStatus(id).toStdString();
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(dock()->editor(id)->toPlainText(), edited);
    EXPECT_EQ(dock()->currentSave(id), 2);

    // Saved again (renamed over again): still watched.
    writeLikeAnEditor(file, sessionKernel("edit3_half_warp_per_row.cu"));
    ASSERT_TRUE(compiled.wait(60000)) << "a file replaced by rename is no longer watched";
    EXPECT_EQ(dock()->currentSave(id), 3);
    // The same text again (a touch) is not a new save.
    writeLikeAnEditor(file, sessionKernel("edit3_half_warp_per_row.cu"));
    EXPECT_FALSE(compiled.wait(1500));
    EXPECT_EQ(dock()->currentSave(id), 3);
}

TEST_F(UserKernelGui, ItsNvrtcOptionsCompileItAgainAndAskForARerun)
{
    if (!haveNvrtc())
        GTEST_SKIP() << device::nvrtcUnavailableReason();
    const QString file = path(QStringLiteral("my_spmv.cu"));
    // The block size comes from a macro the options define.
    QString text = QString::fromStdString(findUserKernelAbi("spmv")->templateSource);
    text.replace(QStringLiteral("double sum = 0.0;"), QStringLiteral("double sum = 0.0 * ROWS_PER_THREAD;"));
    writeLikeAnEditor(file, text);
    QSignalSpy compiled(dock(), &KernelDock::compileFinished);
    ASSERT_TRUE(m_window->addUserKernel(file));
    ASSERT_TRUE(compiled.wait(60000));
    const QString id = QStringLiteral("user:my_spmv");
    EXPECT_FALSE(compiled.takeFirst().at(1).toBool()) << "ROWS_PER_THREAD is not defined yet";
    QSignalSpy changed(dock(), &KernelDock::kernelChanged);
    auto* field = dock()->findChild<QLineEdit*>(QStringLiteral("kernelNvrtcOptions"));
    ASSERT_NE(field, nullptr);
    field->setText(QStringLiteral("-DROWS_PER_THREAD=1 --use_fast_math"));
    Q_EMIT field->editingFinished();
    ASSERT_TRUE(compiled.wait(60000));
    EXPECT_TRUE(compiled.takeFirst().at(1).toBool()) << dock()->compileStatus(id).toStdString();
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(dock()->nvrtcOptions(id),
        (QStringList {QStringLiteral("-DROWS_PER_THREAD=1"), QStringLiteral("--use_fast_math")}));
    EXPECT_EQ(dock()->currentSave(id), 2);
    // The same options again change nothing.
    Q_EMIT field->editingFinished();
    EXPECT_EQ(dock()->currentSave(id), 2);
}

TEST_F(UserKernelGui, UnsavedEditsInThePaneAreNotOverwrittenByTheFile)
{
    const QString file = addTemplate();
    const QString id = QStringLiteral("user:my_spmv");
    KernelEditor* editor = dock()->editor(id);
    editor->appendPlainText(QStringLiteral("// typed here, not saved"));
    const QString typed = editor->toPlainText();
    writeLikeAnEditor(file, sessionKernel("edit2_warp_per_row.cu"));
    QTRY_VERIFY_WITH_TIMEOUT(dock()->compileStatus(id).contains(QStringLiteral("unsaved edits")), 5000);
    EXPECT_EQ(editor->toPlainText(), typed);
    EXPECT_EQ(dock()->currentSave(id), 1);
    // Reload takes the file's text.
    dock()
        ->findChild<QWidget*>(QStringLiteral("kernelPage:") + id)
        ->findChild<QPushButton*>(QStringLiteral("kernelReload"))
        ->click();
    EXPECT_EQ(editor->toPlainText(), sessionKernel("edit2_warp_per_row.cu"));
    EXPECT_EQ(dock()->currentSave(id), 2);
}

TEST_F(UserKernelGui, TheHistoryKeepsEachSavesMedianAndTheChange)
{
    const QString file = addTemplate();
    const QString id = QStringLiteral("user:my_spmv");
    Summary s;
    s.variant = id.toStdString();
    s.outcome = Outcome::Passed;
    s.size = 1000;
    s.medianMs = 2.0;
    dock()->markRunStarted();
    dock()->recordSummary(s);
    s.size = 100; // a smaller size of the same sweep does not replace the largest
    s.medianMs = 0.1;
    dock()->recordSummary(s);
    writeLikeAnEditor(file, sessionKernel("edit2_warp_per_row.cu"));
    QTRY_COMPARE_WITH_TIMEOUT(dock()->currentSave(id), 2, 5000);
    dock()->markRunStarted();
    s.size = 1000;
    s.medianMs = 1.5;
    dock()->recordSummary(s);
    const QList<KernelSave> history = dock()->history(id);
    ASSERT_EQ(history.size(), 2);
    EXPECT_TRUE(history[0].measured);
    EXPECT_DOUBLE_EQ(history[0].medianMs, 2.0);
    EXPECT_DOUBLE_EQ(history[1].medianMs, 1.5);
    const auto* table = dock()->findChild<QTableWidget*>(QStringLiteral("kernelHistory"));
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), 2);
    EXPECT_EQ(table->item(1, 2)->text(), QStringLiteral("1.5 ms"));
    EXPECT_EQ(table->item(1, 3)->text(), QStringLiteral("-25.0 %"));
    EXPECT_TRUE(table->item(1, 4)->text().startsWith(QStringLiteral("passed")));

    // Only the last kHistoryLength saves are kept.
    for (int i = 0; i < KernelDock::kHistoryLength + 2; ++i) {
        writeLikeAnEditor(file, sessionKernel("edit2_warp_per_row.cu") + QStringLiteral("// %1\n").arg(i));
        QTRY_COMPARE_WITH_TIMEOUT(dock()->currentSave(id), 3 + i, 5000);
    }
    EXPECT_EQ(dock()->history(id).size(), KernelDock::kHistoryLength);
    EXPECT_EQ(dock()->history(id).back().save, 2 + KernelDock::kHistoryLength + 2);
}

TEST_F(UserKernelGui, TheNextSessionOpensTheSameKernelsAndNamesThoseGone)
{
    // Settings of its own: tests in other processes save theirs to the shared test settings when they close.
    const QString application = QCoreApplication::applicationName();
    QCoreApplication::setApplicationName(
        QStringLiteral("kernelscope-tests-kernels-%1").arg(QCoreApplication::applicationPid()));
    struct Restore {
        QString name;
        ~Restore() { QCoreApplication::setApplicationName(name); }
    } restore {application};
    m_window = std::make_unique<MainWindow>();
    m_window->setWorkload(QStringLiteral("spmv"));
    const QString file = addTemplate();
    const QString gone = path(QStringLiteral("gone.cu"));
    writeLikeAnEditor(gone, QString::fromStdString(findUserKernelAbi("spmv")->templateSource));
    ASSERT_TRUE(m_window->addUserKernel(gone));
    m_window->kernelDock()->setNvrtcOptions(QStringLiteral("user:my_spmv"), {QStringLiteral("-DTILE=8")});
    m_window->setWorkload(QStringLiteral("linreg")); // kernels of another workload than the one open come back too
    m_window->close(); // closing saves the settings
    m_window.reset();
    QFile::remove(gone);
    m_window = std::make_unique<MainWindow>();
    EXPECT_EQ(m_window->kernelDock()->kernelIds(), QStringList {QStringLiteral("user:my_spmv")});
    EXPECT_EQ(m_window->kernelDock()->kernelPath(QStringLiteral("user:my_spmv")), QFileInfo(file).absoluteFilePath());
    EXPECT_EQ(
        m_window->kernelDock()->nvrtcOptions(QStringLiteral("user:my_spmv")), QStringList {QStringLiteral("-DTILE=8")});
    EXPECT_TRUE(m_window->statusText().contains(QStringLiteral("gone.cu"))) << m_window->statusText().toStdString();
    m_window->setWorkload(QStringLiteral("spmv"));
    EXPECT_EQ(m_window->variantPanel()->userKernelIds(), QStringList {QStringLiteral("user:my_spmv")});
    m_window->kernelDock()->closeKernel(QStringLiteral("user:my_spmv"));
    EXPECT_TRUE(m_window->variantPanel()->userKernelIds().isEmpty());
}

TEST_F(UserKernelGui, AWorkloadWithoutAnAbiOrASecondFileOfTheSameNameIsRefusedWithTheReason)
{
    const QString file = path(QStringLiteral("my_spmv.cu"));
    writeLikeAnEditor(file, QString::fromStdString(findUserKernelAbi("spmv")->templateSource));
    m_window->setWorkload(QStringLiteral("cnn"));
    QString error;
    EXPECT_FALSE(m_window->addUserKernel(file, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("takes no user kernels"))) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("spmv"))) << error.toStdString();

    m_window->setWorkload(QStringLiteral("spmv"));
    ASSERT_TRUE(m_window->addUserKernel(file, &error)) << error.toStdString();
    QDir(m_dir.path()).mkdir(QStringLiteral("other"));
    const QString other = path(QStringLiteral("other/my_spmv.cu"));
    writeLikeAnEditor(other, QString::fromStdString(findUserKernelAbi("spmv")->templateSource));
    EXPECT_FALSE(m_window->addUserKernel(other, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("different names"))) << error.toStdString();
    EXPECT_FALSE(m_window->addUserKernel(path(QStringLiteral("missing.cu")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("no such file"))) << error.toStdString();
}

TEST_F(UserKernelGui, ADecisionWithAUserKernelIsRefusedInPlace)
{
    addTemplate();
    m_window->variantPanel()->setCheckedVariants({QStringLiteral("scalar"), QStringLiteral("user:my_spmv")});
    if (m_window->variantPanel()->checkedVariants().size() < 2)
        GTEST_SKIP() << "no GPU: the user kernel cannot be checked";
    EXPECT_FALSE(m_window->startDecision());
    EXPECT_TRUE(m_window->statusText().contains(QStringLiteral("user kernels")));
}

/// The scripted session of issue 16's evidence, on a GPU: the template, then three edits (one saved from the pane,
/// two from "another editor"), each save re-running the comparison by itself. Medians and correctness per save go
/// to $KS_SESSION_DIR/session.json with a screenshot after each run.
TEST_F(UserKernelGui, GpuAKernelEditedThreeTimesIsRerunAfterEachSave)
{
    if (const std::string why = device::cudaUnavailableReason(); !why.empty())
        GTEST_SKIP() << why;
    if (!haveNvrtc())
        GTEST_SKIP() << device::nvrtcUnavailableReason();
    const QString outDir = qEnvironmentVariable("KS_SESSION_DIR");
    m_window->datasetPanel()->setGenerator(
        {{"pattern", "uniform"}, {"rows", "400000"}, {"per_row", "48"}, {"seed", "7"}});
    RunSettings settings;
    settings.options.timeLimitS = 1.0;
    settings.options.maxRepetitions = 200;
    settings.options.minRepetitions = 10;
    settings.baseline = QStringLiteral("scalar");
    m_window->runSettingsPanel()->setSettings(settings);
    m_window->resize(1800, 1100);

    const QString file = addTemplate();
    const QString id = QStringLiteral("user:my_spmv");
    m_window->variantPanel()->setCheckedVariants({QStringLiteral("scalar"), QStringLiteral("vector"), id});
    ASSERT_TRUE(m_window->variantPanel()->checkedVariants().contains(id))
        << m_window->variantPanel()->unavailableReason(id).toStdString();

    QJsonArray saves;
    auto shoot = [&](const QString& name) {
        if (outDir.isEmpty())
            return;
        QApplication::processEvents();
        for (ChartView* chart : m_window->charts())
            chart->rebuildNow();
        m_window->grab().save(QDir(outDir).filePath(name));
    };
    auto runAndRecord = [&](const QString& what, const std::function<void()>& start) {
        QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
        start();
        ASSERT_TRUE(finished.wait(300000)) << "the re-run did not finish: " << m_window->statusText().toStdString();
        const KernelSave last = dock()->history(id).back();
        ASSERT_TRUE(last.measured) << what.toStdString();
        QJsonObject o;
        o[QStringLiteral("save")] = last.save;
        o[QStringLiteral("what")] = what;
        o[QStringLiteral("outcome")] = QString::fromLatin1(outcomeName(last.outcome));
        o[QStringLiteral("median_ms")] = last.medianMs;
        o[QStringLiteral("size")] = static_cast<double>(last.size);
        o[QStringLiteral("delta")] = last.delta;
        o[QStringLiteral("message")] = last.message;
        // Every variant's median in this sweep (its rows share the run id's prefix, before "-NNN").
        const ResultsModel* model = m_window->resultsModel();
        const std::string lastRun = model->summary(model->rowCount() - 1).runId;
        const std::string prefix = lastRun.substr(0, lastRun.size() - 4);
        QJsonObject medians;
        for (int row = 0; row < model->rowCount(); ++row)
            if (const Summary& s = model->summary(row); s.runId.rfind(prefix, 0) == 0)
                medians[QString::fromStdString(s.variant)] = QJsonObject {{QStringLiteral("median_ms"), s.medianMs},
                    {QStringLiteral("outcome"), QString::fromLatin1(outcomeName(s.outcome))},
                    {QStringLiteral("delta"), s.delta.value}, {QStringLiteral("size"), static_cast<double>(s.size)}};
        o[QStringLiteral("sweep")] = medians;
        saves.append(o);
        shoot(QStringLiteral("session-save%1.png").arg(last.save));
    };

    // Save 1: the template as written, run with the Run button's action.
    runAndRecord(QStringLiteral("template: one thread per row"), [&] { ASSERT_TRUE(m_window->startRun()); });
    EXPECT_EQ(dock()->history(id).back().outcome, Outcome::Passed);

    // Save 2, from the pane: warp per row with a reduction that misses half the lanes.
    runAndRecord(QStringLiteral("edit 1 (pane): warp per row, reduction from offset 8"), [&] {
        dock()->editor(id)->setPlainText(sessionKernel("edit1_warp_per_row_bug.cu"));
        ASSERT_TRUE(dock()->saveKernel(id));
    });
    EXPECT_EQ(dock()->history(id).back().outcome, Outcome::Incorrect);

    // Save 3, from another editor: the reduction fixed.
    runAndRecord(QStringLiteral("edit 2 (another editor): warp per row, reduction from offset 16"),
        [&] { writeLikeAnEditor(file, sessionKernel("edit2_warp_per_row.cu")); });
    EXPECT_EQ(dock()->history(id).back().outcome, Outcome::Passed);

    // Save 4, from another editor: 16 lanes per row.
    runAndRecord(QStringLiteral("edit 3 (another editor): 16 lanes per row, __ldg loads"),
        [&] { writeLikeAnEditor(file, sessionKernel("edit3_half_warp_per_row.cu")); });
    EXPECT_EQ(dock()->history(id).back().outcome, Outcome::Passed);
    EXPECT_EQ(dock()->history(id).size(), 4);

    // A syntax error saved last: marked in the margin, nothing re-run.
    QSignalSpy compiled(dock(), &KernelDock::compileFinished);
    QString broken = sessionKernel("edit3_half_warp_per_row.cu");
    broken.replace(
        QStringLiteral("const bool active = row < a.rows;"), QStringLiteral("const bool active = row < a.rows"));
    writeLikeAnEditor(file, broken);
    ASSERT_TRUE(compiled.wait(60000));
    EXPECT_FALSE(dock()->editor(id)->diagnostics().isEmpty());
    shoot(QStringLiteral("session-syntax-error.png"));

    if (!outDir.isEmpty()) {
        QFile json(QDir(outDir).filePath(QStringLiteral("session.json")));
        ASSERT_TRUE(json.open(QIODevice::WriteOnly));
        json.write(QJsonDocument(QJsonObject {{QStringLiteral("saves"), saves}}).toJson());
    }
}

} // namespace
} // namespace ks::gui
