// A new user's journeys through the side bar (issue 13), on the real window offscreen: a file opened after sizes
// were typed is measured whole; a refused run says why next to the Sizes field; a file opened under the wrong
// workload names the workload that reads it, and switching workload re-reads or forgets it; sdh's bucket width
// follows the loaded cloud, with its unit; only files that loaded are listed as recent.
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>

namespace ks::gui {
namespace {

class JourneyTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        QSettings().clear(); // each journey starts as a new user's first session
        ASSERT_TRUE(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_window->setAutosaveDirectory(m_dir.filePath(QStringLiteral("autosave")));
        m_window->controller()->setCalibrationEnabled(false);
        m_window->setWorkload(QStringLiteral("linreg"));
        m_window->variantPanel()->setCheckedVariants({QStringLiteral("reference")});
        RunSettings s = m_window->runSettingsPanel()->settings();
        s.options.timeLimitS = 0.2;
        s.options.minRepetitions = 1;
        s.options.maxRepetitions = 3;
        s.options.warmup = 0;
        m_window->runSettingsPanel()->setSettings(s);
        m_window->show();
    }

    void TearDown() override
    {
        m_window.reset();
        QSettings().clear();
    }

    QString path(const QString& name) const { return m_dir.filePath(name); }

    /// An x,y table of `rows` rows.
    QString writeSeries(const QString& name, int rows) const
    {
        const QString p = path(name);
        std::ofstream out(p.toStdString());
        out << "x,y\n";
        for (int i = 0; i < rows; ++i)
            out << i << ',' << 2.0 * i + 1.0 << '\n';
        return p;
    }

    /// A PDB of `atoms` CA atoms on the diagonal from the origin to (34, 34, 34) Å: a diagonal of 58.9 Å.
    QString writePdb(const QString& name, int atoms) const
    {
        const QString p = path(name);
        std::ofstream out(p.toStdString());
        out << "HEADER    TEST PROTEIN\n";
        for (int i = 0; i < atoms; ++i) {
            const double t = 34.0 * i / (atoms - 1);
            char line[100];
            std::snprintf(line, sizeof line, "ATOM  %5d  CA  ALA A%4d    %8.3f%8.3f%8.3f  1.00  0.00           C\n",
                i + 1, i + 1, t, t, t);
            out << line;
        }
        out << "END\n";
        return p;
    }

    /// Opens a dataset file as the user does and waits for it to load or fail; returns whether it loaded.
    bool open(const QString& file)
    {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
        m_window->openDatasetFile(file);
        EXPECT_TRUE(loaded.wait(10000)) << "no answer for " << file.toStdString();
        return !loaded.isEmpty() && loaded.front().front().toBool();
    }

    void runAndWait()
    {
        QSignalSpy finished(m_window.get(), &MainWindow::runFinished);
        ASSERT_TRUE(m_window->startRun()) << m_window->statusText().toStdString();
        ASSERT_TRUE(finished.wait(60000)) << "the run did not finish";
    }

    QLineEdit* sizesField() const { return m_window->findChild<QLineEdit*>(QStringLiteral("sizes")); }
    QLabel* sizesMessage() const { return m_window->findChild<QLabel*>(QStringLiteral("sizesMessage")); }
    QLabel* label(const char* name) const { return m_window->findChild<QLabel*>(QLatin1String(name)); }

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

// Item 1: sizes typed for one dataset do not block the next file.
TEST_F(JourneyTest, OpeningAFileMeasuresThatFileWhateverSizesWereTypedBefore)
{
    sizesField()->setText(QStringLiteral("1024,2048"));
    ASSERT_TRUE(open(writeSeries(QStringLiteral("small.csv"), 660)));
    EXPECT_TRUE(sizesField()->text().isEmpty()) << "the sizes typed before still apply to the new file";
    ASSERT_NE(sizesMessage(), nullptr);
    EXPECT_TRUE(sizesMessage()->isVisible());
    EXPECT_TRUE(sizesMessage()->text().contains(QStringLiteral("660"))) << sizesMessage()->text().toStdString();
    EXPECT_TRUE(sizesMessage()->text().contains(QStringLiteral("1024,2048 were cleared")))
        << "what was cleared is said: " << sizesMessage()->text().toStdString();
    runAndWait();
    ASSERT_EQ(m_window->resultsModel()->rowCount(), 1);
    EXPECT_EQ(m_window->resultsModel()->summary(0).size, 660u);
}

TEST_F(JourneyTest, ASweepKeptForEveryFileIsTheUsersExplicitChoice)
{
    auto* keep = m_window->findChild<QCheckBox*>(QStringLiteral("keepSizes"));
    ASSERT_NE(keep, nullptr);
    EXPECT_FALSE(keep->isChecked()) << "a new user's file is measured whole";
    keep->click();
    sizesField()->setText(QStringLiteral("100,200"));
    ASSERT_TRUE(open(writeSeries(QStringLiteral("a.csv"), 500)));
    EXPECT_EQ(sizesField()->text(), QStringLiteral("100,200"));
    EXPECT_TRUE(sizesMessage()->text().contains(QStringLiteral("first 100 … 200 of 500 points")))
        << sizesMessage()->text().toStdString();
}

TEST_F(JourneyTest, ARefusedRunExplainsItselfNextToTheSizesField)
{
    ASSERT_TRUE(open(writeSeries(QStringLiteral("small.csv"), 660)));
    sizesField()->setText(QStringLiteral("1024"));
    EXPECT_FALSE(m_window->startRun());
    ASSERT_NE(sizesMessage(), nullptr);
    EXPECT_TRUE(sizesMessage()->isVisible());
    EXPECT_TRUE(sizesMessage()->text().contains(QStringLiteral("1024"))) << sizesMessage()->text().toStdString();
    EXPECT_TRUE(sizesMessage()->text().contains(QStringLiteral("660"))) << sizesMessage()->text().toStdString();
    EXPECT_TRUE(sizesField()->property("ksInvalid").toBool()) << "the field's frame is not marked";

    sizesField()->setText(QStringLiteral("2^"));
    EXPECT_FALSE(m_window->startRun());
    EXPECT_TRUE(sizesMessage()->text().startsWith(QStringLiteral("Sizes:"))) << sizesMessage()->text().toStdString();

    sizesField()->setText(QStringLiteral("100"));
    EXPECT_FALSE(sizesField()->property("ksInvalid").toBool());
    EXPECT_TRUE(sizesMessage()->text().contains(QStringLiteral("first 100 of 660 points")))
        << "a prefix is said to be one: " << sizesMessage()->text().toStdString();
}

// Item 2: the wrong workload's reader.
TEST_F(JourneyTest, AFileForAnotherWorkloadNamesItAndSwitchingReReadsIt)
{
    m_window->setWorkload(QStringLiteral("lrv"));
    const QString pdb = writePdb(QStringLiteral("protein.pdb"), 40);
    ASSERT_FALSE(open(pdb));
    QLabel* hint = label("datasetReaderHint");
    ASSERT_NE(hint, nullptr);
    EXPECT_TRUE(hint->isVisible());
    EXPECT_TRUE(hint->text().contains(QStringLiteral("sdh"))) << hint->text().toStdString();

    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->setWorkload(QStringLiteral("sdh"));
    ASSERT_TRUE(loaded.wait(10000)) << "switching to the workload that reads it did not re-read the file";
    EXPECT_TRUE(loaded.front().front().toBool()) << m_window->statusText().toStdString();
    EXPECT_EQ(m_window->loadedDataset().meta().size, 40u);
    EXPECT_FALSE(label("datasetError")->isVisible()) << "the stale error stays";
    EXPECT_FALSE(hint->isVisible());
}

TEST_F(JourneyTest, SwitchingToAWorkloadThatCannotReadTheFileForgetsItAndItsError)
{
    const QString mtx = path(QStringLiteral("m.mtx"));
    std::ofstream(mtx.toStdString()) << "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n2 2 2.5\n";
    ASSERT_FALSE(open(mtx));
    EXPECT_TRUE(label("datasetReaderHint")->text().contains(QStringLiteral("spmv")));
    m_window->setWorkload(QStringLiteral("lrv"));
    EXPECT_TRUE(m_window->datasetPanel()->filePath().isEmpty());
    EXPECT_FALSE(label("datasetError")->isVisible());
    EXPECT_FALSE(label("datasetReaderHint")->isVisible());
}

TEST_F(JourneyTest, AFileForThisWorkloadThatFailsOnItsContentNamesNoOtherWorkload)
{
    const QString bad = path(QStringLiteral("xy.csv"));
    std::ofstream(bad.toStdString()) << "x,y\n1,2\n3,nan\n";
    ASSERT_FALSE(open(bad));
    EXPECT_TRUE(label("datasetError")->isVisible());
    EXPECT_FALSE(label("datasetReaderHint")->isVisible()) << label("datasetReaderHint")->text().toStdString();
}

TEST_F(JourneyTest, AGeneratorWorkspaceOpenedOverAFileDoesNotReReadThatFile)
{
    const QString workspace = path(QStringLiteral("generated.ksw"));
    QString error;
    ASSERT_TRUE(m_window->saveWorkspaceTo(workspace, &error)) << error.toStdString(); // linreg, generator
    ASSERT_TRUE(open(writeSeries(QStringLiteral("xy.csv"), 30)));
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    ASSERT_TRUE(m_window->openWorkspaceFrom(workspace, &error)) << error.toStdString();
    QTest::qWait(500);
    EXPECT_TRUE(loaded.isEmpty()) << "the file was re-read for the workspace's workload";
    EXPECT_EQ(m_window->datasetPanel()->source(), DatasetPanel::Source::Generator);
    EXPECT_FALSE(label("datasetLoading")->isVisible());
}

// Item 3: sdh's bucket width from the data, with its unit.
TEST_F(JourneyTest, APointCloudSetsABucketWidthFromItsExtentUnlessTheUserSetOne)
{
    m_window->setWorkload(QStringLiteral("sdh"));
    auto* width = qobject_cast<QLineEdit*>(m_window->findChild<QWidget*>(QStringLiteral("param_bucket_width")));
    ASSERT_NE(width, nullptr);
    ASSERT_TRUE(open(writePdb(QStringLiteral("protein.pdb"), 60)));
    EXPECT_EQ(width->text(), QStringLiteral("0.59")) << "diagonal 58.9 Å / 100";
    EXPECT_TRUE(label("paramLabel_bucket_width")->text().contains(QStringLiteral("Å")))
        << label("paramLabel_bucket_width")->text().toStdString();

    // The user's own width is for this file; the next file gets its own.
    width->selectAll();
    QTest::keyClicks(width, QStringLiteral("2"));
    ASSERT_EQ(width->text(), QStringLiteral("2"));

    // A point cloud in other units says so.
    const QString xyz = path(QStringLiteral("cloud.xyz"));
    std::ofstream(xyz.toStdString()) << "0 0 0\n3000 4000 0\n";
    ASSERT_TRUE(open(xyz));
    EXPECT_EQ(width->text(), QStringLiteral("50"));
    EXPECT_FALSE(label("paramLabel_bucket_width")->text().contains(QStringLiteral("Å")));
    EXPECT_TRUE(label("paramLabel_bucket_width")->toolTip().contains(QStringLiteral("same unit as the coordinates")))
        << label("paramLabel_bucket_width")->toolTip().toStdString();
}

TEST_F(JourneyTest, AWidthFromAFileNeitherOutlivesItOnGeneratedDataNorInTheNextSession)
{
    m_window->setWorkload(QStringLiteral("sdh"));
    auto* width = qobject_cast<QLineEdit*>(m_window->findChild<QWidget*>(QStringLiteral("param_bucket_width")));
    ASSERT_TRUE(open(writePdb(QStringLiteral("protein.pdb"), 60)));
    ASSERT_EQ(width->text(), QStringLiteral("0.59"));
    m_window->datasetPanel()->setSource(DatasetPanel::Source::Generator);
    EXPECT_EQ(width->text(), QStringLiteral("500")) << "the generator's 23,000-wide box in 0.59-wide buckets";

    m_window->datasetPanel()->setSource(DatasetPanel::Source::File);
    ASSERT_TRUE(open(m_window->datasetPanel()->filePath()));
    ASSERT_EQ(width->text(), QStringLiteral("0.59"));
    ASSERT_TRUE(m_window->close());
    MainWindow restarted; // restores the last session's workload and run settings
    ASSERT_TRUE(restarted.runSettingsPanel()->settings().params.count("bucket_width")) << "not back on sdh";
    EXPECT_EQ(restarted.runSettingsPanel()->settings().params.at("bucket_width"), "500");
}

TEST_F(JourneyTest, TheUsersBucketWidthSurvivesAReaderOptionReload)
{
    m_window->setWorkload(QStringLiteral("sdh"));
    auto* width = qobject_cast<QLineEdit*>(m_window->findChild<QWidget*>(QStringLiteral("param_bucket_width")));
    ASSERT_TRUE(open(writePdb(QStringLiteral("protein.pdb"), 60)));
    width->selectAll();
    QTest::keyClicks(width, QStringLiteral("3"));
    ASSERT_EQ(width->text(), QStringLiteral("3"));
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    auto* nonFinite = m_window->findChild<QCheckBox*>(QStringLiteral("allowNonFiniteCheck"));
    nonFinite->click(); // reloads the same file
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_TRUE(loaded.front().front().toBool());
    EXPECT_EQ(width->text(), QStringLiteral("3"));
}

// Item 6: the recent list holds files that loaded.
TEST_F(JourneyTest, OnlyFilesThatLoadedAreRecentAndOneThatNowFailsLeaves)
{
    const QString bad = path(QStringLiteral("bad.csv"));
    std::ofstream(bad.toStdString()) << "x,y\n1,oops\n";
    ASSERT_FALSE(open(bad));
    EXPECT_FALSE(m_window->datasetPanel()->recentFiles().contains(bad)) << "a file that failed is listed";

    const QString good = writeSeries(QStringLiteral("good.csv"), 20);
    ASSERT_TRUE(open(good));
    EXPECT_EQ(m_window->datasetPanel()->recentFiles(), QStringList {good});
    EXPECT_EQ(QSettings().value(QStringLiteral("recentFiles")).toStringList(), QStringList {good});

    std::ofstream(good.toStdString()) << "x,y\n1,oops\n";
    ASSERT_FALSE(open(good));
    EXPECT_TRUE(m_window->datasetPanel()->recentFiles().isEmpty()) << "a recent file that now fails stays listed";
}

} // namespace
} // namespace ks::gui
