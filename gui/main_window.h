#pragma once

#include "compute/core/results_io.h"
#include "data/dataset.h"
#include "gui/theme.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <memory>

class QComboBox;
class QLabel;
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

class ChartView;
class DatasetPanel;
class ResultsModel;
class RunController;
class RunSettingsPanel;
class SpeedupChart;
class VariantPanel;
class WorkloadView;
struct Workspace;

/// The profiler's window: set-up on the left (workload, dataset, variants, run settings), live charts and the
/// results table in the middle, progress in the status bar. All compute happens on the RunController's thread.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // What the menus and buttons do, callable from tests.
    /// Starts a sweep with the current choices; false (with the reason in the status bar) when it cannot.
    bool startRun();
    void cancelRun();
    bool isRunning() const;
    /// Writes every finished run as CSV or JSON (by suffix), in the CLI's schema.
    bool exportResults(const QString& path, QString* error = nullptr);
    bool saveWorkspaceTo(const QString& path, QString* error = nullptr);
    bool openWorkspaceFrom(const QString& path, QString* error = nullptr);
    /// Opens a dataset file as if dropped on the window.
    void openDatasetFile(const QString& path);
    void setWorkload(const QString& id);
    void setTheme(ThemeMode mode);
    /// Where every Summary of the current session is appended as it arrives (empty before the first run).
    QString autosaveCsvPath() const
    {
        return m_autosaveCsv ? QString::fromStdString(m_autosaveCsv->path()) : QString();
    }
    void setAutosaveDirectory(const QString& directory) { m_autosaveDirectory = directory; }

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
    void buildUi();
    void buildMenus();
    void restoreSettings();
    void saveSettings() const;
    const ks::Workload* currentWorkload() const;
    void showStatus(const QString& message, bool error = false);
    void setRunningUi(bool running);
    void onSummary(const ks::Summary& summary);
    void onFinished(bool cancelled, const QString& error);
    void onDatasetLoadRequested(const QString& path, const QString& h5Path, bool allowNonFinite);
    void copySelection() const;
    void exportChartInteractive();
    void exportResultsInteractive(const QString& suffix);
    Workspace currentWorkspace() const;
    void autosave(const ks::Summary& summary);

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
    WorkloadView* m_workloadView = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;

    data::Dataset m_loadedDataset;
    QString m_loadedPath;
    std::map<std::string, std::string> m_loadedReadParams;
    quint64 m_loadTicket = 0;
    bool m_closeRequested = false;
    ThemeMode m_theme = ThemeMode::System;
    QElapsedTimer m_runClock;
    std::string m_runPrefix;
    QString m_autosaveDirectory;
    std::unique_ptr<CsvAppender> m_autosaveCsv;
    QString m_autosaveWorkspace;
};

} // namespace ks::gui
