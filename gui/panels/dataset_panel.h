#pragma once

#include "data/dataset.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <string>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QToolButton;

namespace ks {
class Workload;
}

namespace ks::gui {

class ParamEditor;

/// The side bar's "Dataset" section: where the data comes from (the workload's built-in generator or a file),
/// and what the current dataset is. It never loads anything itself: it emits loadRequested and the main window
/// loads in the background, then calls showLoading / showDataset / showError.
class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    enum class Source { Generator, File };
    /// Most files the recent list keeps.
    static constexpr int kMaxRecentFiles = 10;

    /// An empty panel; setWorkload fills the generator form and the file filter.
    explicit DatasetPanel(QWidget* parent = nullptr);
    ~DatasetPanel() override;

    /// Rebuilds the generator form (defaults) and the file filter for `workload`; nullptr empties them.
    void setWorkload(const ks::Workload* workload);
    /// The workload set last, or nullptr.
    const ks::Workload* workload() const { return m_workload; }

    /// Which source is selected.
    Source source() const;
    /// Selects a source; emits sourceChanged when it changes.
    void setSource(Source source);
    /// The generator's values, every axis as text (the size parameter included).
    std::map<std::string, std::string> generatorValues() const;
    /// The file chosen last (absolute), or empty.
    QString filePath() const;
    /// The group or dataset to read from an HDF5 file; empty lets the reader choose.
    QString h5Path() const;
    /// Whether the reader keeps NaN/Inf values instead of rejecting the file.
    bool allowNonFinite() const;
    /// Empty when the selected source can be used: the generator's values parse, or a file is chosen.
    QString validationError() const;

    /// Sets generator values (names the workload does not have are ignored); the source is left as it is.
    void setGenerator(const std::map<std::string, std::string>& values);
    /// Shows a file as the chosen one and selects the File source, without loading it (reopening a workspace).
    void setFile(const QString& path, const QString& h5Path, bool allowNonFinite);

    /// Chooses a file as the user would (Open dialog, recent menu, a drop): asks which group to read when an HDF5
    /// file holds several x/y groups, selects the File source and emits fileChosen, then loadRequested. A file that
    /// no longer exists is reported with showError and dropped from the recent list.
    void openFile(const QString& path);
    /// Opens the file dialog (the "Open…" button).
    void browseForFile();

    /// Shows a loaded dataset: kind, name, size, every meta property, notes and the content hash.
    void showDataset(const ks::data::Dataset& dataset);
    /// Shows a reader's message in place of the dataset info, in red, naming the file when one is chosen.
    void showError(const QString& message);
    /// Under the error: the workloads whose readers the file looks made for (id and display name), each a link
    /// that emits workloadRequested; an empty list shows nothing.
    void showReaderHint(const QList<QPair<QString, QString>>& workloads);
    /// Forgets the chosen file and anything shown about it (the workload changed to one that cannot read it).
    void clearFile();
    /// The file loaded: it goes to the top of the recent list.
    void markLoaded(const QString& path);
    /// The file failed to load: it leaves the recent list.
    void markFailed(const QString& path);
    /// Shows that `what` is being loaded or generated.
    void showLoading(const QString& what);
    /// A plain line in the loading label's place (not an error): a cancelled load.
    void showNotice(const QString& text);
    /// Empties the info block.
    void clearInfo();

    /// Recent files, most recent first.
    QStringList recentFiles() const { return m_recentFiles; }
    /// Replaces the recent list (deduplicated, at most kMaxRecentFiles); does not emit recentFilesChanged, since
    /// it is how the stored list is restored.
    void setRecentFiles(const QStringList& files);

signals:
    /// The user chose a file (Open, recent list, a drop, the command line); loadRequested follows.
    void fileChosen(const QString& path);
    /// The user clicked a workload named by showReaderHint.
    void workloadRequested(const QString& id);
    /// The user chose a file (or changed how it is read); the receiver loads it.
    void loadRequested(const QString& path, const QString& h5Path, bool allowNonFinite);
    /// The source selection changed.
    void sourceChanged();
    /// A generator value changed.
    void generatorChanged();
    /// The recent list changed through the user (a file loaded or failed, the list cleared, a missing file dropped).
    void recentFilesChanged();

private:
    void rebuildRecentMenu();
    void addRecent(const QString& path);
    void updateSourcePages();
    void updateFileFields();
    void chooseH5Path();
    void requestReload();
    void showInfoWidget(QWidget* which);

    const ks::Workload* m_workload = nullptr;
    QString m_filePath;
    QStringList m_recentFiles;

    QComboBox* m_sourceCombo = nullptr;
    QWidget* m_generatorPage = nullptr;
    ParamEditor* m_generatorEditor = nullptr;
    QLabel* m_sizeNote = nullptr;
    QWidget* m_filePage = nullptr;
    QLineEdit* m_pathEdit = nullptr;
    QPushButton* m_openButton = nullptr;
    QToolButton* m_recentButton = nullptr;
    QMenu* m_recentMenu = nullptr;
    QWidget* m_h5Row = nullptr;
    QLineEdit* m_h5PathEdit = nullptr;
    QToolButton* m_h5BrowseButton = nullptr;
    QCheckBox* m_allowNonFiniteCheck = nullptr;
    QLabel* m_loadingLabel = nullptr;
    QLabel* m_errorLabel = nullptr;
    QLabel* m_readerHint = nullptr;
    QLabel* m_infoLabel = nullptr;
};

} // namespace ks::gui
