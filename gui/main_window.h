#pragma once

#include "compute/core/summary.h"
#include "data/dataset.h"
#include "gui/theme.h"

#include <QElapsedTimer>
#include <QList>
#include <QMainWindow>
#include <QPointer>
#include <map>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableView;
class QTabWidget;
class QSplitter;
class QSortFilterProxyModel;

namespace ks {
class Workload;
}

namespace ks::gui {

class Autosave;
class ChartView;
class DatasetPanel;
class KernelDock;
class ResultsModel;
class RunController;
class RunSettingsPanel;
class SettingsStore;
class SpeedupChart;
class SweepChart;
class TimelineChart;
struct Workspace;
class VariantPanel;
class WorkloadView;
class WorkspaceBinding;

/// The profiler's window: set-up on the left (workload, dataset, variants, run settings), live charts and the
/// results table in the middle, progress in the status bar. All compute happens on the RunController's thread.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Remembers its settings in the application's QSettings.
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // What the menus and buttons do, callable from tests.
    /// Starts a sweep with the current choices; false (with the reason in the status bar) when it cannot.
    bool startRun();
    /// Starts an A/B decision between the checked variants (the first is A; the margin from the variant panel);
    /// the verdicts go to the Speedup tab. False (with the reason in the status bar) when it cannot start.
    bool startDecision();
    void cancelRun();
    bool isRunning() const;
    /// Writes every finished run as CSV or JSON (by suffix), in the CLI's schema.
    bool exportResults(const QString& path, QString* error = nullptr);
    bool saveWorkspaceTo(const QString& path, QString* error = nullptr);
    bool openWorkspaceFrom(const QString& path, QString* error = nullptr);
    /// Adds the rows of a results file the CLI wrote (JSON, or CSV) to the table and charts, marked as loaded from
    /// it (opening it again replaces them). False, with a one-line reason, for a file that cannot be read.
    bool openResultsFile(const QString& path, QString* error = nullptr);
    /// The results files the table's rows were loaded from (absolute paths).
    QStringList loadedResultFiles() const;
    /// Pins a loaded results file as the baseline whose medians the sweep and speedup charts overlay; empty unpins.
    void pinBaseline(const QString& source);
    QString pinnedBaseline() const { return m_baselineSource; }
    /// Opens a dataset file in the Dataset panel.
    void openDatasetFile(const QString& path);
    /// Bring your own kernel: opens a .cu file written for the current workload's ABI in the Kernels pane, watches
    /// it, and lists it as variant user:<stem> (checked when it can run here). Each later save that compiles
    /// re-runs the checked variants. False, with a one-line reason, when the workload takes no user kernels or the
    /// file cannot be read.
    bool addUserKernel(const QString& path, QString* error = nullptr);
    /// Writes the current workload's template kernel to `path` (replacing what is there) and adds it.
    bool newKernelFromTemplate(const QString& path, QString* error = nullptr);
    KernelDock* kernelDock() const { return m_kernelDock; }
    /// What a file dropped on the window, or named on the command line, does: a results file (isResultsFile) opens
    /// as File → Open Results… does, anything else as a dataset.
    void openDroppedFile(const QString& path);
    void setWorkload(const QString& id);
    void setTheme(ThemeMode mode);
    /// Where every Summary of the last sweep was appended as it arrived, as CSV rows and as a workspace (empty
    /// before the first sweep, or when autosave could not write).
    QString autosaveCsvPath() const;
    QString autosaveWorkspacePath() const;
    void setAutosaveDirectory(const QString& directory);

    ResultsModel* resultsModel() const { return m_model; }
    RunController* controller() const { return m_controller; }
    DatasetPanel* datasetPanel() const { return m_datasetPanel; }
    VariantPanel* variantPanel() const { return m_variantPanel; }
    RunSettingsPanel* runSettingsPanel() const { return m_runSettings; }
    QTableView* resultsTable() const { return m_table; }
    QList<ChartView*> charts() const;
    ChartView* chart(const QString& title) const;
    QString statusText() const;
    const data::Dataset& loadedDataset() const { return m_loadedDataset; }

Q_SIGNALS:
    /// A sweep ended (tests wait for it).
    void runFinished(bool cancelled);
    /// A dataset file finished loading, or failed (tests wait for it).
    void datasetLoadFinished(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    /// startRun and startDecision: the request from the panels, then a sweep or a decision.
    bool startWork(bool decide);
    void buildUi();
    void buildMenus();
    /// File → Pin Baseline: one checkable entry per loaded results file, and Unpin.
    void buildBaselineMenu(QMenu* menu);
    /// The session as a Workspace (the side bar's choices, the results, the pinned baseline).
    Workspace captureWorkspace() const;
    /// Restores what the last session saved; returns a problem to show (kernel files gone since), else empty.
    QString restoreSettings();
    void saveSettings() const;
    const ks::Workload* currentWorkload() const;
    void showStatus(const QString& message, bool error = false);
    void setRunningUi(bool running);
    void onSummary(const ks::Summary& summary);
    void onFinished(const std::vector<ks::Summary>& summaries, bool cancelled, const QString& error);
    /// A session stamp for a new sweep, unique in this window: its run ids and autosave files are named by it.
    std::string nextSweepStamp();
    /// Reloads the loaded file when a reader option changed since it was read.
    void onRunSettingsChanged();
    void onDatasetLoadRequested(const QString& path, const QString& h5Path, bool allowNonFinite);
    /// The user opened a file: its run measures it whole and its parameters follow its data (unless kept or set).
    void onFileChosen();
    /// Tells the run settings what the sizes apply to (the loaded file, or generated data) and the units of the
    /// parameters measured in the data's length unit.
    void updateDataContext();
    /// Sets the parameters whose useful value follows the data (sdh's bucket width) from a loaded dataset.
    void suggestFromData(const data::Dataset& dataset);
    /// The workloads whose readers `path` looks made for, (id, name), when the current one's is not among them.
    QList<QPair<QString, QString>> workloadsReading(const QString& path) const;
    /// A user kernel's save compiled: re-runs the checked variants when it is one of them (after the running sweep).
    void onKernelChanged(const QString& id);
    /// Lists the Kernels pane's files of the current workload in the variant panel (after it was rebuilt).
    void listUserKernels();
    void addKernelInteractive();
    void newKernelInteractive();
    void copySelection() const;
    /// The results table's context action: pins the file the current row was loaded from.
    void pinCurrentRowsFile();
    void exportChartInteractive();
    void exportResultsInteractive(const QString& suffix);

    ResultsModel* m_model;
    RunController* m_controller;
    QComboBox* m_workloadCombo = nullptr;
    QLabel* m_workloadDescription = nullptr;
    DatasetPanel* m_datasetPanel = nullptr;
    VariantPanel* m_variantPanel = nullptr;
    RunSettingsPanel* m_runSettings = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_splitter = nullptr;
    QTableView* m_table = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    SpeedupChart* m_speedup = nullptr;
    SweepChart* m_sweep = nullptr;
    TimelineChart* m_timeline = nullptr;
    QString m_baselineSource;
    QList<WorkloadView*> m_workloadViews; ///< the current workload's own tabs
    QLabel* m_status = nullptr;
    KernelDock* m_kernelDock = nullptr;
    /// A kernel was saved while a sweep ran: the checked variants run again when it ends.
    bool m_rerunPending = false;
    QProgressBar* m_progress = nullptr;

    std::unique_ptr<SettingsStore> m_settings;
    std::unique_ptr<Autosave> m_autosave;
    std::unique_ptr<WorkspaceBinding> m_workspace;

    data::Dataset m_loadedDataset;
    QString m_loadedPath;
    QString m_failedPath; ///< the file whose last load failed (a reader option change reads it again)
    /// The reader options the loaded file was read with; a change to one of them reloads it.
    std::map<std::string, std::string> m_loadedReaderOptions;
    quint64 m_loadTicket = 0;
    /// The file loading now was chosen by the user (or re-read for a new workload), so parameters follow its data;
    /// off for a workspace's file, which comes with its own.
    bool m_suggestFromData = false;
    bool m_closeRequested = false;
    ThemeMode m_theme = ThemeMode::System;
    QElapsedTimer m_runClock;
    std::string m_lastSessionStamp;
    int m_sweepsInLastStamp = 0;
};

} // namespace ks::gui
