// The app reads dataset files in a reader worker (kernelscope-cli read-worker here; the app is its own): a file that
// crashes libhdf5 fails that load with the file and the place named, and the app goes on; Cancel during a load kills
// the worker within a second, says the load was cancelled, and the next load works.
#include "data/expression_table.h"
#include "data/hdf5_file.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/h5_picker_dialog.h"
#include "gui/run_controller.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>

namespace ks::gui {
namespace {

class ReaderWorkerGui : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_window->setAutosaveDirectory(m_dir.filePath(QStringLiteral("autosave")));
        m_window->controller()->setCalibrationEnabled(false);
        m_window->setWorkload(QStringLiteral("lrv"));
        m_window->show();
    }
    void TearDown() override
    {
        ::unsetenv("KS_TEST_READER_SPIN");
        ::unsetenv("KS_TEST_READER_CRASH");
    }

    /// A small lrv file: /matrix and variable-length /feature_names and /sample_names.
    QString expressionFile(const QString& name, bool corrupted = false) const
    {
        data::ExpressionTable t;
        t.samples = 4;
        t.features = 3;
        t.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5};
        t.sampleNames = {"s1", "s2", "s3", "s4"};
        t.featureNames = {"alpha", "beta", "gamma"};
        const std::string p = m_dir.filePath(name).toStdString();
        data::writeExpressionHdf5(p, t);
        if (corrupted) {
            // The global heap collection's size patched to 16: libhdf5 1.10.8 crashes reading the names.
            std::ifstream in(p, std::ios::binary);
            std::string bytes {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
            const std::size_t heap = bytes.find("GCOL");
            EXPECT_NE(heap, std::string::npos);
            const std::uint64_t size = 16;
            std::memcpy(bytes.data() + heap + 8, &size, sizeof size);
            std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
        }
        return QString::fromStdString(p);
    }

    /// Opens `file` and waits for the load's answer.
    bool load(const QString& file)
    {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
        m_window->openDatasetFile(file);
        EXPECT_TRUE(loaded.wait(20000));
        return !loaded.isEmpty() && loaded.front().front().toBool();
    }

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

TEST_F(ReaderWorkerGui, AFileThatCrashesTheReaderFailsItsLoadAndTheAppGoesOn)
{
    const QString bad = expressionFile(QStringLiteral("corrupted.h5"), true);
    EXPECT_FALSE(load(bad));
    const QString status = m_window->statusText();
    EXPECT_TRUE(status.contains(QStringLiteral("corrupted.h5"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("/feature_names: the HDF5 library crashed (SIGSEGV)")))
        << status.toStdString();
    auto* error = m_window->findChild<QLabel*>(QStringLiteral("datasetError"));
    ASSERT_NE(error, nullptr);
    EXPECT_TRUE(error->isVisible());
    EXPECT_TRUE(error->text().contains(QStringLiteral("crashed"))) << error->text().toStdString();

    // Alive and usable: the intact file loads.
    EXPECT_TRUE(load(expressionFile(QStringLiteral("good.h5"))));
    EXPECT_TRUE(m_window->statusText().startsWith(QStringLiteral("Loaded"))) << m_window->statusText().toStdString();
}

TEST_F(ReaderWorkerGui, TheGroupPickerListsAFileThatCrashesTheLibraryWithoutDying)
{
    // linreg's picker lists an HDF5 file's tree before the load, in the reader worker too.
    const QString file = m_dir.filePath(QStringLiteral("two groups.h5"));
    {
        auto h5 = data::h5::File::create(file.toStdString());
        for (const std::string group : {"/a", "/b"}) {
            h5.writeDoubles(group + "/x", std::vector<double> {1, 2, 3}, {3});
            h5.writeDoubles(group + "/y", std::vector<double> {2, 4, 7}, {3});
        }
    }
    EXPECT_EQ(H5PickerDialog::candidateGroups(file), (QStringList {QStringLiteral("/a"), QStringLiteral("/b")}));
    ::setenv("KS_TEST_READER_CRASH", "/b", 1);
    EXPECT_TRUE(H5PickerDialog::candidateGroups(file).isEmpty()) << "the listing's crash is no candidates";
    ::unsetenv("KS_TEST_READER_CRASH");
    EXPECT_TRUE(load(expressionFile(QStringLiteral("after.h5")))) << "the app goes on";
}

TEST_F(ReaderWorkerGui, CancelDuringALoadEndsItWithinASecond)
{
    const QString file = expressionFile(QStringLiteral("good.h5"));
    auto* cancel = m_window->findChild<QPushButton*>(QStringLiteral("cancelButton"));
    ASSERT_NE(cancel, nullptr);
    EXPECT_FALSE(cancel->isEnabled()) << "nothing to cancel yet";

    // The worker spins where libhdf5 would on a corrupted file; only a kill ends it.
    ::setenv("KS_TEST_READER_SPIN", "/feature_names", 1);
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->openDatasetFile(file);
    EXPECT_TRUE(cancel->isEnabled()) << "a load in flight can be cancelled";
    QTest::qWait(500);
    ASSERT_TRUE(loaded.isEmpty()) << "the spinning load must still be running";
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(loaded.wait(5000));
    const qint64 ms = clock.elapsed();
    EXPECT_LT(ms, 1000) << ms << " ms from Cancel to the load's end";
    EXPECT_FALSE(loaded.front().front().toBool());
    // The user's choice, said plainly rather than as the file's error.
    EXPECT_EQ(m_window->statusText(), QStringLiteral("Load of %1 cancelled").arg(QFileInfo(file).fileName()));
    EXPECT_FALSE(cancel->isEnabled());
    EXPECT_FALSE(m_window->controller()->isLoading());

    ::unsetenv("KS_TEST_READER_SPIN");
    EXPECT_TRUE(load(file)) << "the app stays usable";
}

TEST_F(ReaderWorkerGui, ANewerLoadEndsTheOneInFlight)
{
    const QString file = expressionFile(QStringLiteral("good.h5"));
    ::setenv("KS_TEST_READER_SPIN", "/feature_names", 1);
    QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoadFinished);
    m_window->openDatasetFile(file);
    QTest::qWait(300);
    ::unsetenv("KS_TEST_READER_SPIN");
    QElapsedTimer clock;
    clock.start();
    m_window->openDatasetFile(expressionFile(QStringLiteral("other.h5")));
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_TRUE(loaded.front().front().toBool()) << "only the newer load answers";
    EXPECT_LT(clock.elapsed(), 5000);
    EXPECT_EQ(loaded.size(), 1);
}

} // namespace
} // namespace ks::gui
