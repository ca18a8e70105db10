// The real window, offscreen: generated and file datasets, runs on the worker thread, the charts, cancelling,
// exports, malformed files, workspaces, and an event loop that stays responsive while compute runs.
#include "compute/core/decide.h"
#include "compute/core/results_io.h"
#include "compute/device/device_info.h"
#include "data/delimited_text.h"
#include "data/text_file.h"
#include "gui/charts/chart_view.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/sweep_chart.h"
#include "gui/charts/timeline_chart.h"
#include "gui/loaded_results.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"
#include "gui/workspace.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>
#include <QWheelEvent>
#include <fstream>
#include <gtest/gtest.h>
#include <qcustomplot.h>

namespace ks::gui {
namespace {

const QStringList kCpuVariants {
    QStringLiteral("reference"), QStringLiteral("cpu_four_sums"), QStringLiteral("cpu_openmp")};

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_window->setAutosaveDirectory(m_dir.filePath(QStringLiteral("autosave")));
        m_window->controller()->setCalibrationEnabled(false);
        m_window->setWorkload(QStringLiteral("linreg"));
        m_window->variantPanel()->setCheckedVariants(kCpuVariants);
        m_window->datasetPanel()->setSource(DatasetPanel::Source::Generator);
        m_window->datasetPanel()->setGenerator({{"n", "20000"}, {"seed", "3"}});
        RunSettings s;
        s.sizes = QStringLiteral("1000,20000");
        s.options.timeLimitS = 0.3;
        s.options.maxRepetitions = 20;
        s.options.minRepetitions = 3;
        s.options.flushL2 = false;
        s.baseline = QStringLiteral("cpu_four_sums");
        m_window->runSettingsPanel()->setSettings(s);
        m_window->show();
    }

    /// Starts a sweep and waits for it to end.
    void runAndWait(int timeoutMs = 120000)
    {
        QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
        ASSERT_TRUE(m_window->startRun()) << m_window->statusText().toStdString();
        ASSERT_TRUE(finished.wait(timeoutMs)) << "the sweep did not finish";
    }

    QString path(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

TEST_F(MainWindowTest, TheWheelScrollsThePanelAndTurnsOnlyAFieldThatHasTheFocus)
{
    // Scrolling the set-up panel over a spin box once turned it (warm-up runs to 0 while looking for a field).
    auto* warmup = m_window->findChild<QSpinBox*>(QStringLiteral("warmup"));
    ASSERT_NE(warmup, nullptr);
    const int before = warmup->value();
    const auto wheel = [](QWidget* target) {
        const QPointF at = QPointF(target->rect().center());
        QWheelEvent event(at, target->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
            Qt::NoScrollPhase, false);
        QApplication::sendEvent(target, &event);
    };
    wheel(warmup);
    EXPECT_EQ(warmup->value(), before) << "the wheel turned a field without the focus";
    EXPECT_FALSE(warmup->hasFocus()) << "the wheel gave it the focus";
    QApplication::setActiveWindow(m_window.get());
    warmup->setFocus();
    if (!warmup->hasFocus())
        GTEST_SKIP() << "this platform gives no keyboard focus";
    wheel(warmup);
    EXPECT_EQ(warmup->value(), before + 1) << "with the focus, the wheel turns it";
}

TEST_F(MainWindowTest, RunsCpuVariantsOnGeneratedDataAndFillsEveryChart)
{
    runAndWait();
    ResultsModel* model = m_window->resultsModel();
    ASSERT_EQ(model->rowCount(), 6);
    for (int r = 0; r < model->rowCount(); ++r) {
        EXPECT_FALSE(model->isRunning(r));
        EXPECT_EQ(model->summary(r).outcome, Outcome::Passed) << model->summary(r).message;
        EXPECT_GE(model->summary(r).repetitions, 3);
    }
    for (ChartView* chart : m_window->charts())
        chart->rebuildNow();
    EXPECT_GT(m_window->chart(QStringLiteral("Timeline"))->pointCount(), 0);
    EXPECT_GE(m_window->chart(QStringLiteral("Sweep"))->pointCount(), 6); // 3 variants × 2 sizes
    EXPECT_GE(m_window->chart(QStringLiteral("Throughput"))->pointCount(), 3);
    EXPECT_GE(m_window->chart(QStringLiteral("Correctness"))->pointCount(), 3);
    EXPECT_GE(m_window->chart(QStringLiteral("Speedup"))->pointCount(), 4); // two variants over the baseline × 2 sizes
    ChartView* workloadView = m_window->charts().back();
    EXPECT_GT(workloadView->pointCount(), 1000) << "the scatter of the data and the fitted lines";
    EXPECT_TRUE(m_window->statusText().contains(QStringLiteral("6 passed"))) << m_window->statusText().toStdString();

    // Every Summary was autosaved as it arrived.
    const QString autosave = m_window->autosaveCsvPath();
    ASSERT_FALSE(autosave.isEmpty());
    int rows = 0;
    data::parseDelimitedText(data::readTextFile(autosave.toStdString()), "autosave", {}, [&](data::TextRow&) {
        ++rows;
        return true;
    });
    EXPECT_EQ(rows, 7);
}

TEST_F(MainWindowTest, CancelStopsMidSweepAndKeepsWhatWasMeasured)
{
    RunSettings s = m_window->runSettingsPanel()->settings();
    s.sizes = QStringLiteral("2^10..2^22");
    s.options.timeLimitS = 0.5;
    s.options.maxRepetitions = 100000;
    s.options.minRepetitions = 100000;
    m_window->runSettingsPanel()->setSettings(s);
    QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
    ResultsModel* model = m_window->resultsModel();
    ASSERT_TRUE(m_window->startRun());
    QElapsedTimer wait;
    wait.start();
    while (model->finishedSummaries().size() < 2 && wait.elapsed() < 60000)
        QTest::qWait(20);
    // Cancelled once the next size has a repetition (its row appears with its first Sample): cancelled before it,
    // as on a loaded machine, that size would rightly end with none.
    while (model->rowCount() <= static_cast<int>(model->finishedSummaries().size()) && wait.elapsed() < 60000)
        QTest::qWait(5);
    m_window->cancelRun();
    ASSERT_TRUE(finished.wait(60000));
    EXPECT_TRUE(finished.front().front().toBool()) << "reported as cancelled";
    const auto summaries = model->finishedSummaries();
    EXPECT_GE(summaries.size(), 2u);
    EXPECT_LT(summaries.size(), 13u * 3u);
    EXPECT_EQ(summaries.back().outcome, Outcome::Cancelled);
    EXPECT_GT(summaries.back().repetitions, 0);
    EXPECT_FALSE(m_window->isRunning());
}

TEST_F(MainWindowTest, ExportsResultsAndChartsInTheCliSchema)
{
    runAndWait();
    ASSERT_TRUE(m_window->exportResults(path(QStringLiteral("results.csv"))));
    std::vector<data::TextRow> rows;
    data::parseDelimitedText(data::readTextFile(path(QStringLiteral("results.csv")).toStdString()), "results.csv", {},
        [&](data::TextRow& r) {
            rows.push_back(r);
            return true;
        });
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows[0].fields, csvColumns());
    ASSERT_TRUE(m_window->exportResults(path(QStringLiteral("results.json"))));
    const auto back = readJson(path(QStringLiteral("results.json")).toStdString());
    ASSERT_EQ(back.size(), 6u);
    EXPECT_FALSE(back[0].samplesMs.empty());
    QString error;
    EXPECT_FALSE(m_window->exportResults(path(QStringLiteral("results.xlsx")), &error));
    EXPECT_FALSE(error.isEmpty());

    for (ChartView* chart : m_window->charts()) {
        const QString stem = path(chart->title().replace(QLatin1Char(' '), QLatin1Char('_')));
        ASSERT_TRUE(chart->exportTo(stem + QStringLiteral(".png"), &error)) << error.toStdString();
        ASSERT_TRUE(chart->exportTo(stem + QStringLiteral(".pdf"), &error)) << error.toStdString();
        QFile png(stem + QStringLiteral(".png"));
        ASSERT_TRUE(png.open(QIODevice::ReadOnly));
        EXPECT_EQ(png.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
        QFile pdf(stem + QStringLiteral(".pdf"));
        ASSERT_TRUE(pdf.open(QIODevice::ReadOnly));
        EXPECT_EQ(pdf.read(4), QByteArray("%PDF"));
        if (ChartView::svgAvailable()) {
            ASSERT_TRUE(chart->exportTo(stem + QStringLiteral(".svg"), &error)) << error.toStdString();
            QFile svg(stem + QStringLiteral(".svg"));
            ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
            EXPECT_TRUE(svg.readAll().contains("<svg"));
        }
    }
}

TEST_F(MainWindowTest, AMalformedFileShowsItsErrorInPlace)
{
    const QString bad = path(QStringLiteral("bad points.csv"));
    std::ofstream(bad.toStdString()) << "x,y\n1,2\n3,oops\n";
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->openDatasetFile(bad);
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_FALSE(loaded.front().front().toBool());
    auto* label = m_window->findChild<QLabel*>(QStringLiteral("datasetError"));
    ASSERT_NE(label, nullptr);
    EXPECT_TRUE(label->isVisible());
    EXPECT_TRUE(label->text().contains(QStringLiteral("line 3"))) << label->text().toStdString();
    EXPECT_TRUE(label->text().contains(QStringLiteral("oops"))) << label->text().toStdString();
    EXPECT_FALSE(m_window->startRun()) << "nothing to run on";
    EXPECT_TRUE(m_window->resultsModel()->rowCount() == 0);
}

TEST_F(MainWindowTest, RunsOnALoadedFile)
{
    const QString good = path(QStringLiteral("points.csv"));
    {
        std::ofstream out(good.toStdString());
        out << "time,signal\n";
        for (int i = 0; i < 500; ++i)
            out << i << ',' << 3.0 * i + 1.0 + (i % 7) * 0.01 << '\n';
    }
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->openDatasetFile(good);
    ASSERT_TRUE(loaded.wait(10000));
    ASSERT_TRUE(loaded.front().front().toBool());
    EXPECT_EQ(m_window->loadedDataset().meta().size, 500u);
    RunSettings s = m_window->runSettingsPanel()->settings();
    s.sizes = QStringLiteral("100,500");
    m_window->runSettingsPanel()->setSettings(s);
    runAndWait();
    ASSERT_EQ(m_window->resultsModel()->rowCount(), 6);
    EXPECT_EQ(m_window->resultsModel()->summary(5).datasetName, "points.csv");
    EXPECT_EQ(m_window->resultsModel()->summary(0).size, 100u);
}

TEST_F(MainWindowTest, SavesAndReopensAWorkspace)
{
    runAndWait();
    const QString file = path(QStringLiteral("session.ksw"));
    QString error;
    ASSERT_TRUE(m_window->saveWorkspaceTo(file, &error)) << error.toStdString();
    const auto before = m_window->resultsModel()->finishedSummaries();

    MainWindow other;
    ASSERT_TRUE(other.openWorkspaceFrom(file, &error)) << error.toStdString();
    const auto after = other.resultsModel()->finishedSummaries();
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_EQ(csvRow(after[i]), csvRow(before[i]));
        EXPECT_EQ(after[i].samplesMs, before[i].samplesMs);
    }
    EXPECT_EQ(other.runSettingsPanel()->settings().sizes, QStringLiteral("1000,20000"));
    EXPECT_EQ(other.variantPanel()->checkedVariants(), kCpuVariants);
    EXPECT_EQ(other.datasetPanel()->generatorValues().at("n"), "20000");

    std::ofstream(path(QStringLiteral("broken.ksw")).toStdString()) << "{ \"kernelscope_workspace\": 1, \"workload\": ";
    EXPECT_FALSE(other.openWorkspaceFrom(path(QStringLiteral("broken.ksw")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("broken.ksw"))) << error.toStdString();
}

namespace {
/// What `kernelscope-cli run -w linreg` writes for one variant at one size.
Summary cliRow(const std::string& variant, std::uint64_t size, double medianMs)
{
    Summary s;
    s.runId = "20261124T050000-1-" + variant + std::to_string(size);
    s.workload = "linreg";
    s.variant = variant;
    s.variantName = variant;
    s.backend = "cpu";
    s.size = size;
    s.datasetHash = "ks64:0011223344556677";
    s.params = ParamSet::fromString("precision=f64");
    s.outcome = Outcome::Passed;
    s.repetitions = 3;
    s.medianMs = medianMs;
    s.samplesMs = {medianMs, medianMs, medianMs};
    return s;
}
} // namespace

TEST_F(MainWindowTest, OpensCliResultFilesAsLoadedRows)
{
    const QString json = path(QStringLiteral("server.json"));
    const QString csv = path(QStringLiteral("server.csv"));
    writeJson(json.toStdString(), {cliRow("reference", 1024, 2.0), cliRow("cpu_four_sums", 1024, 1.0)});
    writeCsv(csv.toStdString(), {cliRow("cpu_openmp", 1024, 0.5)});
    QString error;
    ASSERT_TRUE(m_window->openResultsFile(json, &error)) << error.toStdString();
    ASSERT_TRUE(m_window->openResultsFile(csv, &error)) << error.toStdString();
    ResultsModel* model = m_window->resultsModel();
    ASSERT_EQ(model->rowCount(), 3);
    EXPECT_EQ(model->summary(0).variant, "reference");
    EXPECT_DOUBLE_EQ(model->summary(1).medianMs, 1.0);
    EXPECT_EQ(model->summary(1).samplesMs.size(), 3u);
    EXPECT_EQ(model->summary(2).variant, "cpu_openmp");
    EXPECT_EQ(loadedSource(model->summary(0)), QFileInfo(json).absoluteFilePath());
    EXPECT_EQ(loadedSource(model->summary(2)), QFileInfo(csv).absoluteFilePath());
    EXPECT_EQ(m_window->loadedResultFiles(),
        (QStringList {QFileInfo(json).absoluteFilePath(), QFileInfo(csv).absoluteFilePath()}));
    // The table says where a loaded row came from.
    const QString tip = model->data(model->index(0, ResultsModel::VariantColumn), Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QStringLiteral("loaded from %1").arg(QFileInfo(json).absoluteFilePath())))
        << tip.toStdString();
    // The sweep chart draws them like the app's own runs.
    ChartView* sweep = m_window->chart(QStringLiteral("Sweep"));
    ASSERT_NE(sweep, nullptr);
    sweep->rebuildNow();
    EXPECT_EQ(sweep->pointCount(), 3);
    // Opening a file again replaces its rows rather than adding them twice.
    ASSERT_TRUE(m_window->openResultsFile(json, &error));
    EXPECT_EQ(model->rowCount(), 3);
    EXPECT_TRUE(m_window->statusText().contains(QStringLiteral("Opened 2 results")))
        << m_window->statusText().toStdString();
}

TEST_F(MainWindowTest, AResultsFileFromDecideBringsItsVerdictsToTheSpeedupChart)
{
    // A file from `run --decide` on a GPU server, opened on a workstation whose settings pin another baseline.
    m_window->findChild<QComboBox*>(QStringLiteral("baseline"))->setCurrentIndex(0);
    Decision d;
    d.workload = "linreg";
    d.size = 1024;
    d.variantA = "cpu_four_sums";
    d.variantB = "cpu_openmp";
    d.ratio = 0.5;
    d.low = 0.48;
    d.high = 0.52;
    d.confidence = 0.99;
    d.margin = 0.01;
    d.verdict = DecisionVerdict::Faster;
    d.rounds = 12;
    d.stopReason = "decided";
    const QString json = path(QStringLiteral("decided.json"));
    writeJson(json.toStdString(), {cliRow("cpu_four_sums", 1024, 1.0), cliRow("cpu_openmp", 1024, 0.5)}, {d});
    QString error;
    ASSERT_TRUE(m_window->openResultsFile(json, &error)) << error.toStdString();
    auto* speedup = qobject_cast<SpeedupChart*>(m_window->chart(QStringLiteral("Speedup")));
    ASSERT_NE(speedup, nullptr);
    ASSERT_EQ(speedup->decisions().size(), 1u);
    EXPECT_EQ(speedup->decisions()[0].variantB, "cpu_openmp");
    // The verdict is drawn against its own A whatever the settings pin.
    EXPECT_EQ(speedup->baseline(), QStringLiteral("cpu_four_sums"));
    EXPECT_TRUE(m_window->statusText().contains(QStringLiteral("1 decisions"))) << m_window->statusText().toStdString();

    // A file without decisions leaves the verdicts shown as they are.
    const QString plain = path(QStringLiteral("plain.json"));
    writeJson(plain.toStdString(), {cliRow("reference", 1024, 2.0)});
    ASSERT_TRUE(m_window->openResultsFile(plain, &error)) << error.toStdString();
    EXPECT_EQ(speedup->decisions().size(), 1u);
}

/// Drops one local file on the window as a file manager would.
void dropFile(MainWindow& window, const QString& file)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(file)});
    // Qt delivers a drop to the widget that accepted the drag's entry, as it does for a real drag.
    QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    ASSERT_TRUE(enter.isAccepted()) << file.toStdString();
    QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    EXPECT_TRUE(drop.isAccepted()) << file.toStdString();
}

TEST(IsResultsFile, SniffsTheCliFormatsAndNothingElse)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    auto write = [&](const char* name, const std::string& text) {
        const QString file = dir.filePath(QString::fromLatin1(name));
        std::ofstream(file.toStdString(), std::ios::binary) << text;
        return file;
    };
    writeJson(dir.filePath(QStringLiteral("cli.json")).toStdString(), {cliRow("reference", 1024, 2.0)});
    writeCsv(dir.filePath(QStringLiteral("cli.csv")).toStdString(), {cliRow("reference", 1024, 2.0)});
    EXPECT_TRUE(isResultsFile(dir.filePath(QStringLiteral("cli.json"))));
    EXPECT_TRUE(isResultsFile(dir.filePath(QStringLiteral("cli.csv"))));
    EXPECT_TRUE(isResultsFile(write("spaced.JSON", " \n{ \"note\": \"{[\\\"\", \"summaries\" : [] }")));
    EXPECT_TRUE(isResultsFile(write("bom.csv", "\xEF\xBB\xBFrun_id,timestamp,workload,variant\n")));
    // What is not one: datasets, a nested "summaries", a workspace, the header not first, and no file at all.
    EXPECT_FALSE(isResultsFile(write("points.csv", "x,y\n1,2\n")));
    EXPECT_FALSE(isResultsFile(write("nested.json", R"({"data": {"summaries": []}})")));
    EXPECT_FALSE(isResultsFile(write("string.json", R"({"text": "\"summaries\": [", "x": 1})")));
    EXPECT_FALSE(isResultsFile(write("array.json", R"([{"summaries": []}])")));
    EXPECT_FALSE(isResultsFile(write("ws.json", R"({"kernelscope_workspace": 2, "summaries": []})")));
    EXPECT_FALSE(isResultsFile(write("late.csv", "# comment\nrun_id,timestamp,workload\n")));
    EXPECT_FALSE(isResultsFile(write("results.txt.json", "run_id,timestamp,workload\n")));
    EXPECT_FALSE(isResultsFile(dir.filePath(QStringLiteral("missing.json"))));
    // A "summaries" key past the first few KB is not looked for: the CLI writes it first.
    EXPECT_FALSE(isResultsFile(write("far.json", "{\"pad\": \"" + std::string(5000, 'x') + "\", \"summaries\": []}")));
}

TEST_F(MainWindowTest, ADroppedResultsFileOpensAsResultsAndAnythingElseAsADataset)
{
    const QString json = path(QStringLiteral("server.json"));
    const QString csv = path(QStringLiteral("server.csv"));
    writeJson(json.toStdString(), {cliRow("reference", 1024, 2.0), cliRow("cpu_four_sums", 1024, 1.0)});
    writeCsv(csv.toStdString(), {cliRow("cpu_openmp", 1024, 0.5)});
    dropFile(*m_window, json);
    dropFile(*m_window, csv);
    ResultsModel* model = m_window->resultsModel();
    ASSERT_EQ(model->rowCount(), 3) << m_window->statusText().toStdString();
    EXPECT_EQ(m_window->loadedResultFiles(),
        (QStringList {QFileInfo(json).absoluteFilePath(), QFileInfo(csv).absoluteFilePath()}));
    EXPECT_TRUE(m_window->loadedDataset().empty()) << "no dataset reader saw them";

    // A dataset CSV (x,y) still loads as the data to run on, and adds no rows.
    const QString points = path(QStringLiteral("points.csv"));
    {
        std::ofstream out(points.toStdString());
        out << "x,y\n";
        for (int i = 0; i < 100; ++i)
            out << i << ',' << 2.0 * i << '\n';
    }
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    dropFile(*m_window, points);
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_TRUE(loaded.front().front().toBool());
    EXPECT_EQ(m_window->loadedDataset().meta().size, 100u);
    EXPECT_EQ(model->rowCount(), 3);
}

TEST_F(MainWindowTest, ABadResultsFileIsOneLineNamingTheFileAndTheLine)
{
    const QString bad = path(QStringLiteral("bad.csv"));
    std::ofstream(bad.toStdString()) << "workload,variant,outcome,size,median_ms\nlinreg,reference,passed,1024,soon\n";
    QString error;
    EXPECT_FALSE(m_window->openResultsFile(bad, &error));
    EXPECT_TRUE(error.contains(QFileInfo(bad).absoluteFilePath())) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("line 2, column 5"))) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("'soon' is not a number"))) << error.toStdString();
    EXPECT_FALSE(error.contains(QLatin1Char('\n')));
    EXPECT_EQ(m_window->statusText(), error);
    const QString notJson = path(QStringLiteral("notes.json"));
    std::ofstream(notJson.toStdString()) << "{ \"hello\": 1 }";
    EXPECT_FALSE(m_window->openResultsFile(notJson, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("not a KernelScope results file"))) << error.toStdString();
    EXPECT_FALSE(m_window->openResultsFile(path(QStringLiteral("missing.json")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("cannot open"))) << error.toStdString();
    EXPECT_EQ(m_window->resultsModel()->rowCount(), 0);
}

TEST_F(MainWindowTest, PinsALoadedFileAsTheBaselineAndAWorkspaceRemembersIt)
{
    const QString before = path(QStringLiteral("before.json"));
    const QString after = path(QStringLiteral("after.csv"));
    writeJson(before.toStdString(),
        {cliRow("reference", 1024, 2.0), cliRow("cpu_four_sums", 1024, 1.0), cliRow("cpu_four_sums", 4096, 4.0)});
    writeCsv(after.toStdString(),
        {cliRow("reference", 1024, 2.0), cliRow("cpu_four_sums", 1024, 0.5), cliRow("cpu_four_sums", 4096, 3.0)});
    QString error;
    ASSERT_TRUE(m_window->openResultsFile(before, &error)) << error.toStdString();
    ASSERT_TRUE(m_window->openResultsFile(after, &error)) << error.toStdString();
    const QString pinned = QFileInfo(before).absoluteFilePath();
    m_window->pinBaseline(pinned);
    EXPECT_EQ(m_window->pinnedBaseline(), pinned);

    auto* sweep = qobject_cast<SweepChart*>(m_window->chart(QStringLiteral("Sweep")));
    ASSERT_NE(sweep, nullptr);
    sweep->rebuildNow();
    ASSERT_EQ(sweep->baselinePoints().size(), 3u);
    EXPECT_DOUBLE_EQ(sweep->baselinePoints()[1].value, 1.0);
    EXPECT_DOUBLE_EQ(sweep->baselinePoints()[2].value, 4.0);
    EXPECT_EQ(sweep->pointCount(), 3 + 3); // after.csv's lines and before.json's overlay
    auto* speedup = qobject_cast<SpeedupChart*>(m_window->chart(QStringLiteral("Speedup")));
    ASSERT_NE(speedup, nullptr);
    speedup->setBaseline(QStringLiteral("reference"));
    speedup->rebuildNow();
    QCPGraph* overlay = nullptr;
    for (int i = 0; i < speedup->plot()->graphCount(); ++i)
        if (speedup->plot()->graph(i)->name() == QStringLiteral("baseline: before.json · cpu_four_sums"))
            overlay = speedup->plot()->graph(i);
    ASSERT_NE(overlay, nullptr);
    ASSERT_EQ(overlay->data()->size(), 1);
    EXPECT_DOUBLE_EQ(overlay->data()->at(0)->value, 2.0);

    const QString file = path(QStringLiteral("pinned.ksw"));
    ASSERT_TRUE(m_window->saveWorkspaceTo(file, &error)) << error.toStdString();
    EXPECT_EQ(loadWorkspace(file).baselineSource, pinned);
    MainWindow other;
    ASSERT_TRUE(other.openWorkspaceFrom(file, &error)) << error.toStdString();
    EXPECT_EQ(other.pinnedBaseline(), pinned);
    auto* otherSweep = qobject_cast<SweepChart*>(other.chart(QStringLiteral("Sweep")));
    ASSERT_NE(otherSweep, nullptr);
    otherSweep->rebuildNow();
    EXPECT_EQ(otherSweep->baselinePoints().size(), 3u);

    m_window->pinBaseline({});
    sweep->rebuildNow();
    EXPECT_TRUE(sweep->baselinePoints().empty());
    EXPECT_EQ(sweep->baselineSource(), QString());

    // The table's context action pins the file of the row under the cursor.
    auto* pinRow = m_window->resultsTable()->findChild<QAction*>(QStringLiteral("pinRowBaseline"));
    ASSERT_NE(pinRow, nullptr);
    m_window->resultsTable()->setCurrentIndex(m_window->resultsTable()->model()->index(4, 0));
    pinRow->trigger();
    EXPECT_EQ(m_window->pinnedBaseline(), QFileInfo(after).absoluteFilePath());
}

TEST_F(MainWindowTest, TheStatusLineTalliesTheSweepsOwnSummaries)
{
    QSignalSpy controllerFinished(m_window->controller(), &RunController::finished);
    runAndWait();
    ASSERT_EQ(controllerFinished.size(), 1);
    const auto summaries = controllerFinished.front().front().value<std::vector<Summary>>();
    ASSERT_EQ(summaries.size(), 6u) << "the worker hands back what it measured";
    const auto table = m_window->resultsModel()->finishedSummaries();
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        EXPECT_EQ(summaries[i].runId, table[i].runId);
        EXPECT_EQ(summaries[i].samplesMs, table[i].samplesMs);
    }

    // A second sweep counts its own runs, not the table's (its run ids may even share the first one's prefix).
    RunSettings s = m_window->runSettingsPanel()->settings();
    s.sizes = QStringLiteral("1000");
    m_window->runSettingsPanel()->setSettings(s);
    m_window->variantPanel()->setCheckedVariants({QStringLiteral("reference"), QStringLiteral("cpu_four_sums")});
    runAndWait();
    ASSERT_EQ(controllerFinished.size(), 2);
    EXPECT_EQ(controllerFinished.back().front().value<std::vector<Summary>>().size(), 2u);
    const QString status = m_window->statusText();
    EXPECT_TRUE(status.contains(QStringLiteral("Finished 2 runs"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("2 passed"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("8 rows in the table"))) << status.toStdString();
}

TEST_F(MainWindowTest, TheAutosaveWorkspaceReopensEvenCutOffMidLine)
{
    runAndWait();
    const QString autosave = m_window->autosaveWorkspacePath();
    ASSERT_FALSE(autosave.isEmpty());
    EXPECT_TRUE(autosave.endsWith(QStringLiteral(".ksw")));
    QFile file(autosave);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    file.close();
    EXPECT_EQ(bytes.count('\n'), 7) << "the workspace line, then one line per Summary";

    MainWindow other;
    QString error;
    ASSERT_TRUE(other.openWorkspaceFrom(autosave, &error)) << error.toStdString();
    const auto before = m_window->resultsModel()->finishedSummaries();
    const auto after = other.resultsModel()->finishedSummaries();
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i)
        EXPECT_EQ(csvRow(after[i]), csvRow(before[i]));
    EXPECT_EQ(other.runSettingsPanel()->settings().sizes, QStringLiteral("1000,20000"));
    EXPECT_EQ(other.variantPanel()->checkedVariants(), kCpuVariants);

    // A crash while the last line was written: the complete lines are kept.
    const QString crashed = path(QStringLiteral("crashed.ksw"));
    QFile cut(crashed);
    ASSERT_TRUE(cut.open(QIODevice::WriteOnly));
    cut.write(bytes.left(bytes.size() - 40));
    cut.close();
    ASSERT_TRUE(other.openWorkspaceFrom(crashed, &error)) << error.toStdString();
    EXPECT_EQ(other.resultsModel()->finishedSummaries().size(), 5u);

    // The next sweep's autosave starts with the table so far, so the newest session reopens everything.
    runAndWait();
    ASSERT_NE(m_window->autosaveWorkspacePath(), QString());
    EXPECT_EQ(loadWorkspace(m_window->autosaveWorkspacePath()).summaries.size(), 12u);
}

TEST_F(MainWindowTest, OnlyAReaderOptionReloadsTheFile)
{
    // Two frames of different sizes: the frame is read when the file loads, the bucket width by the variants.
    const QString xyz = path(QStringLiteral("frames.xyz"));
    {
        std::ofstream out(xyz.toStdString());
        for (int frame = 1; frame <= 2; ++frame) {
            out << 3 + frame << "\nframe " << frame << '\n';
            for (int i = 0; i < 3 + frame; ++i)
                out << "C " << i << ' ' << 2 * i << ' ' << frame << '\n';
        }
    }
    m_window->setWorkload(QStringLiteral("sdh"));
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->openDatasetFile(xyz);
    ASSERT_TRUE(loaded.wait(10000));
    ASSERT_TRUE(loaded.front().front().toBool()) << m_window->statusText().toStdString();
    EXPECT_EQ(m_window->loadedDataset().meta().size, 4u);
    loaded.clear();

    RunSettings s = m_window->runSettingsPanel()->settings();
    s.params["bucket_width"] = "2.5";
    s.options.maxRepetitions = 7;
    m_window->runSettingsPanel()->setSettings(s);
    EXPECT_FALSE(m_window->loadedDataset().empty()) << "a variant parameter started a reload";
    QTest::qWait(300);
    EXPECT_EQ(loaded.size(), 0);

    s.params["frame"] = "2";
    m_window->runSettingsPanel()->setSettings(s);
    EXPECT_TRUE(m_window->loadedDataset().empty()) << "the reader option did not start a reload";
    ASSERT_TRUE(loaded.wait(10000));
    ASSERT_TRUE(loaded.front().front().toBool()) << m_window->statusText().toStdString();
    EXPECT_EQ(m_window->loadedDataset().meta().size, 5u);
}

TEST_F(MainWindowTest, RunSettingsSurviveARestart)
{
    RunSettings s = m_window->runSettingsPanel()->settings();
    s.options.noiseTarget = 0.0125;
    s.options.warmup = 4;
    s.sizes = QStringLiteral("2^12");
    m_window->runSettingsPanel()->setSettings(s);
    ASSERT_TRUE(m_window->close());
    {
        MainWindow restarted;
        const RunSettings back = restarted.runSettingsPanel()->settings();
        EXPECT_DOUBLE_EQ(back.options.noiseTarget, 0.0125);
        EXPECT_EQ(back.options.warmup, 4);
        EXPECT_EQ(back.sizes, QStringLiteral("2^12"));
        EXPECT_FALSE(back.options.flushL2);
    }
    QSettings().clear(); // the other tests start from nothing saved
}

TEST_F(MainWindowTest, TheTimelinesClockOverlaySurvivesARestart)
{
    auto* timeline = qobject_cast<TimelineChart*>(m_window->chart(QStringLiteral("Timeline")));
    ASSERT_NE(timeline, nullptr);
    EXPECT_TRUE(timeline->clockOverlay()) << "on by default";
    timeline->clockOverlayAction()->trigger(); // the chart's right-click action
    EXPECT_FALSE(timeline->clockOverlay());
    ASSERT_TRUE(m_window->close());
    {
        MainWindow restarted;
        auto* back = qobject_cast<TimelineChart*>(restarted.chart(QStringLiteral("Timeline")));
        ASSERT_NE(back, nullptr);
        EXPECT_FALSE(back->clockOverlay());
        EXPECT_FALSE(back->clockOverlayAction()->isChecked());
    }
    QSettings().clear(); // the other tests start from nothing saved
}

TEST_F(MainWindowTest, ClosingDuringARunCancelsCleanly)
{
    RunSettings s = m_window->runSettingsPanel()->settings();
    s.sizes = QStringLiteral("2^10..2^22");
    s.options.minRepetitions = 100000;
    s.options.maxRepetitions = 100000;
    s.options.timeLimitS = 5;
    m_window->runSettingsPanel()->setSettings(s);
    QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
    ASSERT_TRUE(m_window->startRun());
    QTest::qWait(200);
    EXPECT_FALSE(m_window->close()) << "the first close only cancels";
    ASSERT_TRUE(finished.wait(60000));
    QTest::qWait(50);
    EXPECT_FALSE(m_window->isVisible());
    EXPECT_FALSE(m_window->isRunning());
}

TEST_F(MainWindowTest, CopiesSelectedRowsAsTabSeparatedText)
{
    runAndWait();
    QTableView* table = m_window->resultsTable();
    table->selectAll();
    const auto actions = table->actions();
    ASSERT_FALSE(actions.isEmpty());
    actions.front()->trigger();
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 7);
    EXPECT_TRUE(lines[0].startsWith(QStringLiteral("Variant\tBackend\tSize")));
    EXPECT_EQ(lines[1].split(QLatin1Char('\t')).size(), ResultsModel::ColumnCount);
}

TEST_F(MainWindowTest, TheTableSortsByNumbersNotText)
{
    runAndWait();
    QTableView* table = m_window->resultsTable();
    table->sortByColumn(ResultsModel::MedianColumn, Qt::DescendingOrder);
    QAbstractItemModel* sorted = table->model();
    ASSERT_EQ(sorted->rowCount(), 6);
    for (int r = 1; r < sorted->rowCount(); ++r) {
        const double above = sorted->index(r - 1, ResultsModel::MedianColumn).data(ResultsModel::SortRole).toDouble();
        const double below = sorted->index(r, ResultsModel::MedianColumn).data(ResultsModel::SortRole).toDouble();
        EXPECT_GE(above, below) << "row " << r;
    }
}

TEST_F(MainWindowTest, ADarkThemeRecoloursTheCharts)
{
    ChartView* sweep = m_window->chart(QStringLiteral("Sweep"));
    ASSERT_NE(sweep, nullptr);
    const QColor before = sweep->palette().color(QPalette::Base);
    m_window->setTheme(ThemeMode::Dark);
    QApplication::processEvents();
    EXPECT_NE(sweep->palette().color(QPalette::Base), before);
    EXPECT_TRUE(isDark(sweep->palette()));
    m_window->setTheme(ThemeMode::Light);
    QApplication::processEvents();
    EXPECT_FALSE(isDark(sweep->palette()));
}

TEST_F(MainWindowTest, CudaVariantsSayWhyTheyCannotRun)
{
    if (device::cudaUnavailableReason().empty())
        GTEST_SKIP() << "a CUDA device is present here";
    const QString reason = m_window->variantPanel()->unavailableReason(QStringLiteral("fused_grid"));
    EXPECT_FALSE(reason.isEmpty());
    m_window->variantPanel()->setCheckedVariants({QStringLiteral("fused_grid")});
    EXPECT_TRUE(m_window->variantPanel()->checkedVariants().isEmpty()) << "an unavailable variant cannot be checked";
    EXPECT_FALSE(m_window->startRun());
}

} // namespace
} // namespace ks::gui
