// The dataset side of the side bar: the parameter form, the HDF5 picker and the Dataset panel, driven the way the
// main window drives them, offscreen.
#include "gui/panels/dataset_panel.h"
#include "gui/panels/h5_picker_dialog.h"
#include "gui/panels/param_editor.h"
#include "gui/panels/run_settings_panel.h"

#include "compute/core/registry.h"
#include "compute/device/device_info.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/series2d.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QValidator>

#include <gtest/gtest.h>

#include <functional>

namespace {

using ks::gui::DatasetPanel;
using ks::gui::H5PickerDialog;
using ks::gui::ParamEditor;
using ks::gui::RunSettings;
using ks::gui::RunSettingsPanel;

const ks::Workload& linreg()
{
    const ks::Workload* workload = ks::defaultRegistry().find("linreg");
    EXPECT_NE(workload, nullptr);
    return *workload;
}

std::string native(const QString& path)
{
    return QFile::encodeName(path).toStdString();
}

ks::data::Series2D smallSeries(std::size_t n)
{
    ks::data::Series2D s;
    for (std::size_t i = 0; i < n; ++i) {
        s.x.push_back(static_cast<double>(i));
        s.y.push_back(2.0 * static_cast<double>(i) + 1.0);
    }
    return s;
}

/// An HDF5 file with two x/y groups (/a, /b) and a 2-D matrix in /c that is not a series.
QString writeTwoGroupFile(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("two_groups.h5"));
    auto file = ks::data::h5::File::create(native(path));
    const std::vector<double> five {1, 2, 3, 4, 5};
    const std::vector<double> three {1, 2, 3};
    file.writeDoubles("/a/x", five, {5});
    file.writeDoubles("/a/y", five, {5});
    file.writeDoubles("/b/x", three, {3});
    file.writeDoubles("/b/y", three, {3});
    const std::vector<double> matrix {1, 2, 3, 4, 5, 6};
    file.writeDoubles("/c/m", matrix, {3, 2});
    return path;
}

QString writeCsv(const QTemporaryDir& dir, const QString& name, std::size_t n = 4)
{
    const QString path = dir.filePath(name);
    ks::data::writeSeriesCsv(native(path), smallSeries(n));
    return path;
}

/// Runs `action` on the modal picker once it is up (exec blocks the test's thread).
void onModalPicker(std::function<void(H5PickerDialog*)> action)
{
    QTimer::singleShot(0, [action] {
        auto* dialog = qobject_cast<H5PickerDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* d = qobject_cast<H5PickerDialog*>(w); d && d->isVisible())
                    dialog = d;
        ASSERT_NE(dialog, nullptr);
        action(dialog);
    });
}

// ---------------------------------------------------------------------------------------------------------------
// ParamEditor

TEST(ParamEditor, BuildsOneEditorPerGeneratorAxis)
{
    ParamEditor editor;
    const auto axes = linreg().generatorParameters();
    editor.setAxes(axes);
    ASSERT_FALSE(axes.empty());
    for (const auto& axis : axes) {
        const QString name = QString::fromStdString(axis.name);
        QWidget* w = editor.findChild<QWidget*>(QStringLiteral("param_") + name);
        ASSERT_NE(w, nullptr) << axis.name;
        EXPECT_EQ(w, editor.editorFor(name));
        EXPECT_NE(qobject_cast<QLineEdit*>(w), nullptr) << axis.name << " is numeric";
        EXPECT_TRUE(w->toolTip().contains(QString::fromStdString(axis.description))) << axis.name;
        EXPECT_NE(editor.findChild<QLabel*>(QStringLiteral("paramLabel_") + name), nullptr);
    }
    EXPECT_EQ(editor.findChildren<QLineEdit*>().size(), static_cast<qsizetype>(axes.size()));
    const auto values = editor.values();
    ASSERT_EQ(values.size(), axes.size());
    for (const auto& axis : axes)
        EXPECT_EQ(values.at(axis.name), axis.defaultValue);
    EXPECT_TRUE(editor.validationError().isEmpty()) << editor.validationError().toStdString();
}

TEST(ParamEditor, AFileParameterHasAButtonThatPicksTheFile)
{
    ParamEditor editor;
    editor.setAxes(ks::defaultRegistry().find("lrv")->parameters());
    for (const char* name : {"weights", "reference", "reference_weights"}) {
        auto* line = editor.findChild<QLineEdit*>(QStringLiteral("param_") + QLatin1String(name));
        ASSERT_NE(line, nullptr) << name;
        auto* browse = line->findChild<QAction*>(QStringLiteral("browse_") + QLatin1String(name));
        ASSERT_NE(browse, nullptr) << name;
        EXPECT_EQ(browse->toolTip(), QStringLiteral("Choose the file to read")) << "read with the table";
    }
    EXPECT_EQ(editor.findChild<QAction*>(QStringLiteral("browse_alpha")), nullptr) << "a number";
    editor.setAxes(ks::defaultRegistry().find("cnn")->parameters());
    auto* features = editor.findChild<QAction*>(QStringLiteral("browse_features"));
    ASSERT_NE(features, nullptr);
    EXPECT_EQ(features->toolTip(), QStringLiteral("Choose the file to write")) << "cnn writes its features there";
}

TEST(ParamEditor, ValuesRoundTripSetValues)
{
    ParamEditor editor;
    editor.setAxes(linreg().generatorParameters());
    QSignalSpy changed(&editor, &ParamEditor::changed);
    // 2^62 does not fit an int: the 64-bit range has to survive the form.
    const std::map<std::string, std::string> given {
        {"n", "2^20"}, {"slope", "3.5"}, {"seed", "4611686018427387904"}, {"no_such_axis", "1"}};
    editor.setValues(given);
    EXPECT_EQ(changed.count(), 1);
    const auto values = editor.values();
    EXPECT_EQ(values.at("n"), "2^20");
    EXPECT_EQ(values.at("slope"), "3.5");
    EXPECT_EQ(values.at("seed"), "4611686018427387904");
    EXPECT_EQ(values.at("noise"), "1");
    EXPECT_EQ(values.count("no_such_axis"), 0u);
    EXPECT_TRUE(editor.validationError().isEmpty()) << editor.validationError().toStdString();

    ParamEditor copy;
    copy.setAxes(linreg().generatorParameters(), values);
    EXPECT_EQ(copy.values(), values);
}

TEST(ParamEditor, BadValueNamesTheParameter)
{
    ParamEditor editor;
    editor.setAxes(linreg().generatorParameters());
    editor.setValues({{"n", "abc"}});
    const QString error = editor.validationError();
    EXPECT_TRUE(error.contains(QStringLiteral("n=abc"))) << error.toStdString();
    QWidget* field = editor.editorFor(QStringLiteral("n"));
    ASSERT_NE(field, nullptr);
    EXPECT_TRUE(field->property("ksInvalid").toBool());
    EXPECT_TRUE(field->toolTip().contains(QStringLiteral("not an integer"))) << field->toolTip().toStdString();

    editor.setValues({{"n", "1e6"}});
    EXPECT_TRUE(editor.validationError().isEmpty());
    EXPECT_FALSE(field->property("ksInvalid").toBool());

    editor.setValues({{"n", "0"}});
    EXPECT_TRUE(editor.validationError().contains(QStringLiteral("outside"))) << editor.validationError().toStdString();
}

TEST(ParamEditor, ValidatorAcceptsTheFormsParamSetAccepts)
{
    ParamEditor editor;
    editor.setAxes(linreg().generatorParameters());
    auto* n = qobject_cast<QLineEdit*>(editor.editorFor(QStringLiteral("n")));
    auto* slope = qobject_cast<QLineEdit*>(editor.editorFor(QStringLiteral("slope")));
    ASSERT_TRUE(n && slope && n->validator() && slope->validator());
    auto check = [](QLineEdit* line, QString text) {
        int pos = 0;
        return line->validator()->validate(text, pos);
    };
    EXPECT_EQ(check(n, QStringLiteral("1000")), QValidator::Acceptable);
    EXPECT_EQ(check(n, QStringLiteral("1e6")), QValidator::Acceptable);
    EXPECT_EQ(check(n, QStringLiteral("2^20")), QValidator::Acceptable);
    EXPECT_EQ(check(n, QStringLiteral("2^")), QValidator::Intermediate);
    EXPECT_EQ(check(n, QStringLiteral("0")), QValidator::Intermediate);
    EXPECT_EQ(check(n, QStringLiteral("1.5")), QValidator::Intermediate);
    EXPECT_EQ(check(n, QStringLiteral("abc")), QValidator::Invalid);
    EXPECT_EQ(check(slope, QStringLiteral("-2.5e3")), QValidator::Acceptable);
    EXPECT_EQ(check(slope, QStringLiteral("2^3")), QValidator::Invalid);
}

TEST(ParamEditor, HiddenNamesAreHidden)
{
    ParamEditor editor;
    editor.setAxes(linreg().generatorParameters());
    editor.setHiddenNames({QStringLiteral("n")});
    editor.show();
    QWidget* n = editor.editorFor(QStringLiteral("n"));
    QWidget* slope = editor.editorFor(QStringLiteral("slope"));
    EXPECT_TRUE(n->isHidden());
    EXPECT_TRUE(editor.findChild<QLabel*>(QStringLiteral("paramLabel_n"))->isHidden());
    EXPECT_TRUE(slope->isVisible());
    EXPECT_EQ(editor.values().count("n"), 1u);

    // Hidden names survive a rebuild (the sweep keeps hiding its size parameter when the workload changes).
    editor.setAxes(linreg().generatorParameters());
    EXPECT_TRUE(editor.editorFor(QStringLiteral("n"))->isHidden());
    editor.setHiddenNames({});
    EXPECT_TRUE(editor.editorFor(QStringLiteral("n"))->isVisible());
}

TEST(ParamEditor, EnumAxesBecomeComboBoxesOfTheirChoices)
{
    ParamEditor editor;
    auto axes = linreg().parameters();
    axes.push_back(ks::Axis::powerOfTwo("block", "threads per block", 256, 32, 1024));
    editor.setAxes(axes);
    auto* combo = qobject_cast<QComboBox*>(editor.editorFor(QStringLiteral("precision")));
    ASSERT_NE(combo, nullptr);
    ASSERT_EQ(combo->count(), 2);
    EXPECT_EQ(combo->itemText(0), QStringLiteral("f64"));
    EXPECT_EQ(combo->itemText(1), QStringLiteral("f32"));
    EXPECT_EQ(editor.values().at("precision"), "f64");

    QSignalSpy changed(&editor, &ParamEditor::changed);
    combo->setCurrentIndex(1);
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(editor.values().at("precision"), "f32");

    // A stale value from a saved workspace is shown, flagged, and gone once a real choice is made.
    editor.setValues({{"precision", "f16"}});
    EXPECT_EQ(editor.values().at("precision"), "f16");
    EXPECT_TRUE(editor.validationError().contains(QStringLiteral("precision")))
        << editor.validationError().toStdString();
    EXPECT_EQ(combo->count(), 3);
    combo->setCurrentIndex(0);
    EXPECT_EQ(combo->count(), 2);
    EXPECT_TRUE(editor.validationError().isEmpty());

    editor.setValues({{"block", "100"}});
    EXPECT_TRUE(editor.validationError().contains(QStringLiteral("power of two")))
        << editor.validationError().toStdString();
}

// ---------------------------------------------------------------------------------------------------------------
// H5PickerDialog

TEST(H5PickerDialog, ListsGroupsAndDatasetsWithShapeAndType)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = writeTwoGroupFile(dir);
    H5PickerDialog dialog(path);
    ASSERT_TRUE(dialog.error().isEmpty()) << dialog.error().toStdString();
    const QStringList listed = dialog.listedPaths();
    for (const char* p : {"/", "/a", "/a/x", "/a/y", "/b", "/b/x", "/b/y", "/c", "/c/m"})
        EXPECT_TRUE(listed.contains(QLatin1String(p))) << p;

    // The first x/y group is preselected.
    EXPECT_EQ(dialog.selectedPath(), QStringLiteral("/a"));
    ASSERT_TRUE(dialog.selectPath(QStringLiteral("/c/m")));
    EXPECT_EQ(dialog.selectedPath(), QStringLiteral("/c/m"));
    const auto* item = dialog.tree()->currentItem();
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->text(H5PickerDialog::ShapeColumn), QStringLiteral("3 × 2"));
    EXPECT_EQ(item->text(H5PickerDialog::TypeColumn), QStringLiteral("float64"));
    EXPECT_FALSE(item->data(H5PickerDialog::NameColumn, H5PickerDialog::kUnreadableRole).toBool());

    ASSERT_TRUE(dialog.selectPath(QStringLiteral("b")));
    EXPECT_EQ(dialog.selectedPath(), QStringLiteral("/b"));
    EXPECT_FALSE(dialog.selectPath(QStringLiteral("/nope")));
}

TEST(H5PickerDialog, CandidateGroupsAreTheXYGroups)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    EXPECT_EQ(H5PickerDialog::candidateGroups(writeTwoGroupFile(dir)),
        (QStringList {QStringLiteral("/a"), QStringLiteral("/b")}));

    const QString root = dir.filePath(QStringLiteral("root.h5"));
    ks::data::writeSeriesHdf5(native(root), smallSeries(6));
    EXPECT_EQ(H5PickerDialog::candidateGroups(root), QStringList {QStringLiteral("/")});
}

TEST(H5PickerDialog, NonHdf5FileGivesAnError)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString csv = writeCsv(dir, QStringLiteral("plain.csv"));
    H5PickerDialog dialog(csv);
    EXPECT_FALSE(dialog.error().isEmpty());
    EXPECT_TRUE(dialog.listedPaths().isEmpty());
    auto* errorLabel = dialog.findChild<QLabel*>(QStringLiteral("h5PickerError"));
    ASSERT_NE(errorLabel, nullptr);
    EXPECT_EQ(errorLabel->text(), dialog.error());

    QString error;
    EXPECT_FALSE(H5PickerDialog::choose(csv, nullptr, &error).has_value());
    EXPECT_FALSE(error.isEmpty());
    EXPECT_TRUE(H5PickerDialog::candidateGroups(csv).isEmpty());
}

TEST(H5PickerDialog, ChooseReturnsTheAcceptedSelection)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = writeTwoGroupFile(dir);
    onModalPicker([](H5PickerDialog* d) {
        d->selectPath(QStringLiteral("/b"));
        d->accept();
    });
    QString error = QStringLiteral("stale");
    const auto chosen = H5PickerDialog::choose(path, nullptr, &error);
    ASSERT_TRUE(chosen.has_value());
    EXPECT_EQ(*chosen, QStringLiteral("/b"));
    EXPECT_TRUE(error.isEmpty());

    onModalPicker([](H5PickerDialog* d) { d->reject(); });
    EXPECT_FALSE(H5PickerDialog::choose(path, nullptr, &error).has_value());
    EXPECT_TRUE(error.isEmpty());
}

// ---------------------------------------------------------------------------------------------------------------
// DatasetPanel

TEST(DatasetPanel, SetWorkloadBuildsTheGeneratorEditor)
{
    DatasetPanel panel;
    QSignalSpy generatorChanged(&panel, &DatasetPanel::generatorChanged);
    panel.setWorkload(&linreg());
    auto* editor = panel.findChild<ParamEditor*>(QStringLiteral("generatorEditor"));
    ASSERT_NE(editor, nullptr);
    for (const auto& axis : linreg().generatorParameters())
        EXPECT_NE(editor->editorFor(QString::fromStdString(axis.name)), nullptr) << axis.name;
    // The size parameter stays visible: the run settings' size list overrides it only when one is given.
    EXPECT_FALSE(editor->editorFor(QString::fromStdString(linreg().sizeParameter()))->isHidden());
    EXPECT_EQ(panel.generatorValues().at("n"), "1000000");
    EXPECT_EQ(panel.source(), DatasetPanel::Source::Generator);
    EXPECT_TRUE(panel.validationError().isEmpty()) << panel.validationError().toStdString();
    EXPECT_GE(generatorChanged.count(), 1);

    panel.setGenerator({{"n", "abc"}});
    EXPECT_TRUE(panel.validationError().contains(QStringLiteral("n=abc")));
    panel.setGenerator({{"n", "5000"}});
    EXPECT_EQ(panel.generatorValues().at("n"), "5000");

    auto* n = qobject_cast<QLineEdit*>(editor->editorFor(QStringLiteral("n")));
    const int before = static_cast<int>(generatorChanged.count());
    n->setText(QStringLiteral("6000"));
    EXPECT_EQ(generatorChanged.count(), before + 1);
}

TEST(DatasetPanel, OpenCsvEmitsLoadRequestedAndRecordsItOnceLoaded)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString csv = writeCsv(dir, QStringLiteral("points.csv"));
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    QSignalSpy load(&panel, &DatasetPanel::loadRequested);
    QSignalSpy recent(&panel, &DatasetPanel::recentFilesChanged);
    QSignalSpy source(&panel, &DatasetPanel::sourceChanged);
    QSignalSpy chosen(&panel, &DatasetPanel::fileChosen);
    panel.openFile(csv);
    ASSERT_EQ(load.count(), 1);
    const QString absolute = QFileInfo(csv).absoluteFilePath();
    EXPECT_EQ(load.at(0).at(0).toString(), absolute);
    EXPECT_EQ(load.at(0).at(1).toString(), QString());
    EXPECT_FALSE(load.at(0).at(2).toBool());
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.at(0).at(0).toString(), absolute);
    EXPECT_EQ(recent.count(), 0) << "only a file that loaded is recent";
    panel.markLoaded(absolute);
    EXPECT_EQ(recent.count(), 1);
    EXPECT_EQ(source.count(), 1);
    EXPECT_EQ(panel.recentFiles(), QStringList {absolute});
    EXPECT_EQ(panel.source(), DatasetPanel::Source::File);
    EXPECT_EQ(panel.filePath(), absolute);
    EXPECT_EQ(panel.findChild<QLineEdit*>(QStringLiteral("filePathEdit"))->text(), absolute);
    EXPECT_TRUE(panel.validationError().isEmpty());
    EXPECT_TRUE(panel.findChild<QWidget*>(QStringLiteral("h5PathRow"))->isHidden());

    // Ticking "Allow NaN/Inf" reloads the same file with the new option.
    panel.findChild<QCheckBox*>(QStringLiteral("allowNonFiniteCheck"))->click();
    ASSERT_EQ(load.count(), 2);
    EXPECT_EQ(load.at(1).at(0).toString(), absolute);
    EXPECT_TRUE(load.at(1).at(2).toBool());
}

TEST(DatasetPanel, RecentFilesAreDeduplicatedOrderedAndCapped)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    QStringList paths;
    for (int i = 0; i < 12; ++i) {
        paths << QFileInfo(writeCsv(dir, QStringLiteral("f%1.csv").arg(i))).absoluteFilePath();
        panel.markLoaded(paths.back());
    }
    QStringList recent = panel.recentFiles();
    ASSERT_EQ(recent.size(), DatasetPanel::kMaxRecentFiles);
    EXPECT_EQ(recent.front(), paths[11]);
    EXPECT_EQ(recent.back(), paths[2]);

    panel.markLoaded(paths[5]);
    recent = panel.recentFiles();
    EXPECT_EQ(recent.size(), DatasetPanel::kMaxRecentFiles);
    EXPECT_EQ(recent.front(), paths[5]);
    EXPECT_EQ(recent.count(paths[5]), 1);
    EXPECT_EQ(recent.at(1), paths[11]);

    // Restoring from settings applies the same rules and is not reported back as a change.
    QSignalSpy changed(&panel, &DatasetPanel::recentFilesChanged);
    panel.setRecentFiles({paths[0], paths[1], paths[0], QString()});
    EXPECT_EQ(panel.recentFiles(), (QStringList {paths[0], paths[1]}));
    EXPECT_EQ(changed.count(), 0);

    // A recent file that now fails to load leaves the list.
    panel.markFailed(paths[1]);
    EXPECT_EQ(panel.recentFiles(), QStringList {paths[0]});
    EXPECT_EQ(changed.count(), 1);
}

TEST(DatasetPanel, MissingFileIsReportedAndDroppedFromRecent)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString csv = QFileInfo(writeCsv(dir, QStringLiteral("kept.csv"))).absoluteFilePath();
    const QString missing = dir.filePath(QStringLiteral("gone.csv"));
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    panel.setRecentFiles({missing, csv});
    panel.show();
    QSignalSpy load(&panel, &DatasetPanel::loadRequested);
    QSignalSpy recent(&panel, &DatasetPanel::recentFilesChanged);
    panel.openFile(missing);
    EXPECT_EQ(load.count(), 0);
    EXPECT_EQ(recent.count(), 1);
    EXPECT_EQ(panel.recentFiles(), QStringList {csv});
    auto* error = panel.findChild<QLabel*>(QStringLiteral("datasetError"));
    EXPECT_TRUE(error->isVisible());
    EXPECT_TRUE(error->text().contains(QStringLiteral("gone.csv")));
}

TEST(DatasetPanel, Hdf5WithOneGroupNamesItAndShowsTheH5Row)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("root.h5"));
    ks::data::writeSeriesHdf5(native(path), smallSeries(6));
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    panel.show();
    QSignalSpy load(&panel, &DatasetPanel::loadRequested);
    panel.openFile(path);
    ASSERT_EQ(load.count(), 1);
    EXPECT_EQ(load.at(0).at(1).toString(), QStringLiteral("/"));
    EXPECT_EQ(panel.h5Path(), QStringLiteral("/"));
    EXPECT_TRUE(panel.findChild<QWidget*>(QStringLiteral("h5PathRow"))->isVisible());
}

TEST(DatasetPanel, Hdf5WithSeveralGroupsAsksWhichOne)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = writeTwoGroupFile(dir);
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    QSignalSpy load(&panel, &DatasetPanel::loadRequested);

    onModalPicker([](H5PickerDialog* d) { d->reject(); });
    panel.openFile(path);
    EXPECT_EQ(load.count(), 0);
    EXPECT_TRUE(panel.recentFiles().isEmpty());

    onModalPicker([](H5PickerDialog* d) {
        d->selectPath(QStringLiteral("/b"));
        d->accept();
    });
    panel.openFile(path);
    ASSERT_EQ(load.count(), 1);
    EXPECT_EQ(load.at(0).at(1).toString(), QStringLiteral("/b"));
    EXPECT_EQ(panel.h5Path(), QStringLiteral("/b"));
    EXPECT_TRUE(panel.recentFiles().isEmpty()) << "listed before it loaded";
    panel.markLoaded(path);
    EXPECT_EQ(panel.recentFiles().size(), 1);
}

TEST(DatasetPanel, ShowErrorShowsTheMessageInRed)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString csv = writeCsv(dir, QStringLiteral("broken.csv"));
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    panel.setFile(csv, QString(), false);
    panel.show();
    const QString message = QStringLiteral("line 3, column 2: 'abc' is not a number");
    panel.showError(message);
    auto* error = panel.findChild<QLabel*>(QStringLiteral("datasetError"));
    ASSERT_NE(error, nullptr);
    EXPECT_TRUE(error->isVisible());
    EXPECT_TRUE(error->wordWrap());
    EXPECT_TRUE(error->text().contains(message)) << error->text().toStdString();
    EXPECT_TRUE(error->text().contains(QStringLiteral("broken.csv")));
    EXPECT_NE(error->palette().color(QPalette::WindowText), panel.palette().color(QPalette::WindowText));
    EXPECT_FALSE(panel.findChild<QLabel*>(QStringLiteral("datasetInfo"))->isVisible());

    panel.showLoading(QStringLiteral("broken.csv"));
    EXPECT_FALSE(error->isVisible());
    EXPECT_TRUE(panel.findChild<QLabel*>(QStringLiteral("datasetLoading"))->isVisible());
    panel.clearInfo();
    EXPECT_FALSE(panel.findChild<QLabel*>(QStringLiteral("datasetLoading"))->isVisible());
}

TEST(DatasetPanel, ShowDatasetShowsHashSizePropertiesAndNotes)
{
    ks::data::DatasetMeta meta;
    meta.kind = "series2d";
    meta.name = "sample.csv";
    meta.source = "/data/sample.csv";
    meta.contentHash = "ks64:0123456789abcdef";
    meta.size = 123457;
    meta.properties = {{"x range", "[0, 1]"}, {"stored as", "float32"}};
    meta.notes = {"2 rows with blank cells skipped"};
    const auto dataset = ks::data::Dataset::make(meta, 0);

    DatasetPanel panel;
    panel.show();
    panel.showDataset(dataset);
    auto* info = panel.findChild<QLabel*>(QStringLiteral("datasetInfo"));
    ASSERT_NE(info, nullptr);
    EXPECT_TRUE(info->isVisible());
    EXPECT_TRUE(info->textInteractionFlags() & Qt::TextSelectableByMouse);
    const QString text = info->text();
    for (const char* needle :
        {"ks64:0123456789abcdef", "123457", "series2d", "sample.csv", "x range", "float32", "blank cells"})
        EXPECT_TRUE(text.contains(QLatin1String(needle))) << needle << " in " << text.toStdString();

    // A real dataset's hash and size come through as well.
    const auto real = ks::data::makeSeriesDataset(smallSeries(7), "seven", "generator");
    panel.showDataset(real);
    EXPECT_TRUE(info->text().contains(QString::fromStdString(real.meta().contentHash)));
    EXPECT_TRUE(info->text().contains(QStringLiteral(">7<")));
}

TEST(DatasetPanel, SourceSwitchingEmitsSourceChanged)
{
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    panel.show();
    QSignalSpy spy(&panel, &DatasetPanel::sourceChanged);
    auto* combo = panel.findChild<QComboBox*>(QStringLiteral("datasetSource"));
    ASSERT_NE(combo, nullptr);
    combo->setCurrentIndex(1);
    EXPECT_EQ(spy.count(), 1);
    EXPECT_EQ(panel.source(), DatasetPanel::Source::File);
    EXPECT_TRUE(panel.findChild<QWidget*>(QStringLiteral("filePage"))->isVisible());
    EXPECT_FALSE(panel.findChild<QWidget*>(QStringLiteral("generatorPage"))->isVisible());
    EXPECT_FALSE(panel.validationError().isEmpty()) << "no file chosen yet";

    panel.setSource(DatasetPanel::Source::Generator);
    EXPECT_EQ(spy.count(), 2);
    panel.setSource(DatasetPanel::Source::Generator);
    EXPECT_EQ(spy.count(), 2);
    EXPECT_TRUE(panel.findChild<QWidget*>(QStringLiteral("generatorPage"))->isVisible());
}

TEST(DatasetPanel, SetFileDoesNotEmitLoadRequested)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString csv = writeCsv(dir, QStringLiteral("saved.csv"));
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    QSignalSpy load(&panel, &DatasetPanel::loadRequested);
    QSignalSpy recent(&panel, &DatasetPanel::recentFilesChanged);
    panel.setFile(csv, QStringLiteral("/group"), true);
    EXPECT_EQ(load.count(), 0);
    EXPECT_EQ(recent.count(), 0);
    EXPECT_EQ(panel.filePath(), QFileInfo(csv).absoluteFilePath());
    EXPECT_EQ(panel.h5Path(), QStringLiteral("/group"));
    EXPECT_TRUE(panel.allowNonFinite());
    EXPECT_EQ(panel.source(), DatasetPanel::Source::File);
    EXPECT_TRUE(panel.recentFiles().isEmpty());
}

// ---------------------------------------------------------------------------------------------------------------
// RunSettingsPanel

TEST(RunSettingsPanel, TheMemoryLimitFieldSetsTheBudgetAndRefusesTextThatIsNoSize)
{
    RunSettingsPanel panel;
    auto* field = panel.findChild<QLineEdit*>(QStringLiteral("memoryLimit"));
    auto* message = panel.findChild<QLabel*>(QStringLiteral("memoryMessage"));
    ASSERT_TRUE(field && message);
    field->setText(QStringLiteral("64M"));
    EXPECT_TRUE(panel.applyMemoryLimit());
    EXPECT_EQ(ks::data::memoryLimit(), 64u << 20);
    EXPECT_LE(ks::data::availableHostMemory(), 64u << 20);
    EXPECT_TRUE(message->text().contains(QStringLiteral("(Memory limit in Run settings)")))
        << message->text().toStdString();
    field->setText(QStringLiteral("lots"));
    EXPECT_FALSE(panel.applyMemoryLimit());
    EXPECT_EQ(ks::data::memoryLimit(), 64u << 20) << "a refused text leaves the budget as it was";
    EXPECT_TRUE(field->property("ksInvalid").toBool());
    EXPECT_TRUE(message->text().contains(QStringLiteral("is not a size"))) << message->text().toStdString();
    field->clear();
    EXPECT_TRUE(panel.applyMemoryLimit());
    EXPECT_EQ(ks::data::memoryLimit(), 0u);
    EXPECT_FALSE(field->property("ksInvalid").toBool());
    // A limit set before the panel exists (kernelscope --memory-limit) shows in the field.
    ks::data::setMemoryLimit(3ULL << 30);
    RunSettingsPanel fromCommandLine;
    EXPECT_EQ(fromCommandLine.findChild<QLineEdit*>(QStringLiteral("memoryLimit"))->text(), QStringLiteral("3G"));
    ks::data::setMemoryLimit(0);
}
TEST(RunSettingsPanel, StartsAtTheRunnersDefaultsAndShowsTheNoiseTargetInPercent)
{
    RunSettingsPanel panel;
    panel.setWorkload(&linreg());
    const RunSettings s = panel.settings();
    const ks::RunOptions defaults;
    EXPECT_DOUBLE_EQ(s.options.noiseTarget, defaults.noiseTarget);
    EXPECT_EQ(s.options.warmup, defaults.warmup);
    EXPECT_EQ(s.options.minRepetitions, defaults.minRepetitions);
    EXPECT_EQ(s.options.maxRepetitions, defaults.maxRepetitions);
    EXPECT_DOUBLE_EQ(s.options.timeLimitS, defaults.timeLimitS);
    EXPECT_EQ(s.options.flushL2, defaults.flushL2);
    EXPECT_EQ(s.options.checkDeterminism, defaults.checkDeterminism);
    auto* noiseTarget = panel.findChild<QDoubleSpinBox*>(QStringLiteral("noiseTarget"));
    ASSERT_NE(noiseTarget, nullptr);
    EXPECT_DOUBLE_EQ(noiseTarget->value(), 100.0 * defaults.noiseTarget);

    RunSettings changed = s;
    changed.options.noiseTarget = 0.0125;
    changed.options.maxRepetitions = 77;
    panel.setSettings(changed);
    EXPECT_DOUBLE_EQ(noiseTarget->value(), 1.25);
    EXPECT_DOUBLE_EQ(panel.settings().options.noiseTarget, 0.0125);
    EXPECT_EQ(panel.settings().options.maxRepetitions, 77);
}

TEST(RunSettingsPanel, TheDeterminismCheckboxIsTheRunOption)
{
    RunSettingsPanel panel;
    panel.setWorkload(&linreg());
    auto* check = panel.findChild<QCheckBox*>(QStringLiteral("checkDeterminism"));
    ASSERT_NE(check, nullptr);
    EXPECT_FALSE(check->isChecked());
    QSignalSpy changed(&panel, &RunSettingsPanel::changed);
    check->setChecked(true);
    EXPECT_EQ(changed.count(), 1);
    EXPECT_TRUE(panel.settings().options.checkDeterminism);

    RunSettings off = panel.settings();
    off.options.checkDeterminism = false;
    panel.setSettings(off);
    EXPECT_FALSE(check->isChecked());
}

TEST(RunSettingsPanel, TheMultiGpuListTicksEveryGpuOrSaysThereIsNone)
{
    RunSettingsPanel panel;
    panel.setWorkload(&linreg());
    auto* list = panel.findChild<QListWidget*>(QStringLiteral("devices"));
    ASSERT_NE(list, nullptr);
    const auto gpus = ks::device::cudaDevices();
    if (gpus.empty()) {
        ASSERT_EQ(list->count(), 1);
        EXPECT_FALSE(list->isEnabled());
        EXPECT_EQ(list->item(0)->text(), QStringLiteral("no CUDA device"));
        EXPECT_TRUE(panel.settings().options.devices.empty());
        return;
    }
    ASSERT_EQ(list->count(), static_cast<int>(gpus.size()));
    EXPECT_TRUE(panel.settings().options.devices.empty()) << "every GPU ticked: all";
    QSignalSpy changed(&panel, &RunSettingsPanel::changed);
    for (int r = 0; r < list->count(); ++r)
        list->item(r)->setCheckState(Qt::Unchecked);
    EXPECT_EQ(list->item(list->count() - 1)->checkState(), Qt::Checked) << "the last one stays ticked";
    if (gpus.size() > 1) {
        EXPECT_EQ(panel.settings().options.devices, std::vector<int> {gpus.back().index});
        RunSettings all = panel.settings();
        all.options.devices.clear();
        panel.setSettings(all);
        EXPECT_TRUE(panel.settings().options.devices.empty());
    }
}

TEST(RunSettingsPanel, ReaderOptionsAreTheAxesMarkedSo)
{
    RunSettingsPanel panel;
    panel.setWorkload(ks::defaultRegistry().find("lrv"));
    const auto lrv = panel.readerOptions();
    EXPECT_EQ(lrv.size(), 6u);
    EXPECT_EQ(lrv.at("orientation"), "samples-as-rows");
    EXPECT_TRUE(lrv.count("zeros") && lrv.count("na"));
    for (const char* companion : {"weights", "reference", "reference_weights"})
        EXPECT_EQ(lrv.at(companion), "") << companion << ": none until a file is named";
    EXPECT_FALSE(lrv.count("device_output_mb")) << "the variants read it, not the reader";

    panel.setWorkload(ks::defaultRegistry().find("sdh"));
    EXPECT_EQ(panel.readerOptions(), (std::map<std::string, std::string> {{"frame", "1"}}));
    RunSettings s = panel.settings();
    s.params = {{"bucket_width", "125"}, {"frame", "3"}};
    panel.setSettings(s);
    EXPECT_EQ(panel.readerOptions(), (std::map<std::string, std::string> {{"frame", "3"}}));

    panel.setWorkload(ks::defaultRegistry().find("spmv"));
    EXPECT_TRUE(panel.readerOptions().empty()) << "precision is the variants'";
}

TEST(RunSettingsPanel, ANewFileEmptiesTheSizesUnlessKeptAndForgetsTheUsersParameters)
{
    RunSettingsPanel panel;
    panel.setWorkload(ks::defaultRegistry().find("sdh"));
    panel.show();
    auto* sizes = panel.findChild<QLineEdit*>(QStringLiteral("sizes"));
    auto* message = panel.findChild<QLabel*>(QStringLiteral("sizesMessage"));
    ASSERT_NE(sizes, nullptr);
    ASSERT_NE(message, nullptr);
    sizes->setText(QStringLiteral("1024"));
    EXPECT_FALSE(message->isVisible()) << "generated data: nothing to check the sizes against";
    panel.setDatasetExtent({660, QStringLiteral("points"), QStringLiteral("p.pdb")});
    EXPECT_TRUE(message->isVisible());
    EXPECT_EQ(panel.validationError(), message->text());
    EXPECT_TRUE(message->text().contains(QStringLiteral("p.pdb"))) << message->text().toStdString();

    panel.startNewFile();
    EXPECT_TRUE(sizes->text().isEmpty());
    EXPECT_TRUE(panel.validationError().isEmpty());
    panel.setKeepSizes(true);
    sizes->setText(QStringLiteral("2^5"));
    panel.startNewFile();
    EXPECT_EQ(sizes->text(), QStringLiteral("2^5"));

    // A suggestion applies until the user types their own value, and again after the next file.
    auto* width = panel.findChild<QLineEdit*>(QStringLiteral("param_bucket_width"));
    ASSERT_NE(width, nullptr);
    panel.suggestParam(QStringLiteral("bucket_width"), QStringLiteral("0.59"));
    EXPECT_EQ(width->text(), QStringLiteral("0.59"));
    width->selectAll();
    QTest::keyClicks(width, QStringLiteral("7"));
    EXPECT_TRUE(panel.userSetParam(QStringLiteral("bucket_width")));
    panel.suggestParam(QStringLiteral("bucket_width"), QStringLiteral("0.6"));
    EXPECT_EQ(width->text(), QStringLiteral("7"));
    panel.startNewFile();
    panel.suggestParam(QStringLiteral("bucket_width"), QStringLiteral("0.6"));
    EXPECT_EQ(width->text(), QStringLiteral("0.6"));
}

TEST(ParamEditor, AUnitShowsInTheLabelAndItsNoteInTheTooltips)
{
    ParamEditor editor;
    editor.setAxes(ks::defaultRegistry().find("sdh")->parameters());
    QSignalSpy edited(&editor, &ParamEditor::edited);
    editor.setValues({{"bucket_width", "3"}});
    EXPECT_EQ(edited.count(), 0) << "only the user's own edits count";
    editor.setUnit(QStringLiteral("bucket_width"), QStringLiteral("Å"), QStringLiteral("Unit: Å."));
    auto* label = editor.findChild<QLabel*>(QStringLiteral("paramLabel_bucket_width"));
    ASSERT_NE(label, nullptr);
    EXPECT_EQ(label->text(), QStringLiteral("bucket_width (Å)"));
    EXPECT_TRUE(label->toolTip().endsWith(QStringLiteral("Unit: Å.")));
    EXPECT_TRUE(editor.editorFor(QStringLiteral("bucket_width"))->toolTip().endsWith(QStringLiteral("Unit: Å.")));
    editor.setUnit(QStringLiteral("bucket_width"), QString(), QStringLiteral("Unit: the coordinates'."));
    EXPECT_EQ(label->text(), QStringLiteral("bucket_width"));
    QTest::keyClicks(editor.editorFor(QStringLiteral("bucket_width")), QStringLiteral("5"));
    ASSERT_EQ(edited.count(), 1);
    EXPECT_EQ(edited.front().front().toString(), QStringLiteral("bucket_width"));
}

TEST(DatasetPanel, TheReaderHintLinksToTheWorkloadsThatReadTheFile)
{
    DatasetPanel panel;
    panel.setWorkload(&linreg());
    panel.show();
    panel.showError(QStringLiteral("header only: no data rows"));
    panel.showReaderHint({{QStringLiteral("sdh"), QStringLiteral("Distance histogram")}});
    auto* hint = panel.findChild<QLabel*>(QStringLiteral("datasetReaderHint"));
    ASSERT_NE(hint, nullptr);
    EXPECT_TRUE(hint->isVisible());
    EXPECT_TRUE(hint->text().contains(QStringLiteral("href=\"sdh\""))) << hint->text().toStdString();
    QSignalSpy requested(&panel, &DatasetPanel::workloadRequested);
    Q_EMIT hint->linkActivated(QStringLiteral("sdh"));
    ASSERT_EQ(requested.count(), 1);
    EXPECT_EQ(requested.front().front().toString(), QStringLiteral("sdh"));
    panel.showLoading(QStringLiteral("x"));
    EXPECT_FALSE(hint->isVisible()) << "the hint belongs to the error";
}

} // namespace
