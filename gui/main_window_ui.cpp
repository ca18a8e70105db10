// The window's widgets and menus, and what only touches them (copying and exporting): main_window.cpp holds
// what the window does with them.
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "compute/core/version.h"
#include "compute/device/device_info.h"
#include "gui/charts/correctness_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/sweep_chart.h"
#include "gui/charts/throughput_chart.h"
#include "gui/charts/timeline_chart.h"
#include "gui/loaded_results.h"
#include "gui/main_window.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/kernel_dock.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"
#include "gui/settings_store.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ks::gui {

namespace {
QString workspaceFilter()
{
    return QObject::tr("KernelScope workspace (*.ksw *.json)");
}
} // namespace

void MainWindow::buildUi()
{
    // Set-up side bar.
    auto* setup = new QWidget;
    auto* setupLayout = new QVBoxLayout(setup);

    auto* workloadBox = new QGroupBox(tr("Workload"), setup);
    auto* workloadLayout = new QVBoxLayout(workloadBox);
    m_workloadCombo = new QComboBox(workloadBox);
    m_workloadCombo->setObjectName(QStringLiteral("workload"));
    for (const auto& w : defaultRegistry().workloads())
        m_workloadCombo->addItem(QString::fromStdString(w->name()), QString::fromStdString(w->id()));
    m_workloadDescription = new QLabel(workloadBox);
    m_workloadDescription->setWordWrap(true);
    m_workloadDescription->setForegroundRole(QPalette::PlaceholderText);
    workloadLayout->addWidget(m_workloadCombo);
    workloadLayout->addWidget(m_workloadDescription);

    auto* datasetBox = new QGroupBox(tr("Dataset"), setup);
    auto* datasetLayout = new QVBoxLayout(datasetBox);
    m_datasetPanel = new DatasetPanel(datasetBox);
    datasetLayout->addWidget(m_datasetPanel);

    auto* variantBox = new QGroupBox(tr("Variants"), setup);
    auto* variantLayout = new QVBoxLayout(variantBox);
    m_variantPanel = new VariantPanel(variantBox);
    variantLayout->addWidget(m_variantPanel);

    auto* settingsBox = new QGroupBox(tr("Run settings"), setup);
    auto* settingsLayout = new QVBoxLayout(settingsBox);
    m_runSettings = new RunSettingsPanel(settingsBox);
    settingsLayout->addWidget(m_runSettings);

    m_runButton = new QPushButton(tr("Run"), setup);
    m_runButton->setObjectName(QStringLiteral("runButton"));
    m_runButton->setToolTip(tr("Run the checked variants (F5)"));
    m_runButton->setDefault(true);
    m_cancelButton = new QPushButton(tr("Cancel"), setup);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setToolTip(
        tr("Stop now, keeping what was measured: a CPU repetition within milliseconds, a GPU one at its end (Esc)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton, 1);
    buttons->addWidget(m_cancelButton);

    setupLayout->addWidget(workloadBox);
    setupLayout->addWidget(datasetBox);
    setupLayout->addWidget(variantBox);
    setupLayout->addWidget(settingsBox);
    setupLayout->addLayout(buttons);
    setupLayout->addStretch();

    auto* scroll = new QScrollArea;
    scroll->setWidget(setup);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(380);
    auto* dock = new QDockWidget(tr("Set-up"), this);
    dock->setObjectName(QStringLiteral("setupDock"));
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    // Bring your own kernel: the editors of the user's .cu files, on the right, shown when the first one opens.
    m_kernelDock = new KernelDock(this);
    m_kernelDock->setFeatures(
        QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::RightDockWidgetArea, m_kernelDock);
    m_kernelDock->hide();

    // Charts over the results table.
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("charts"));
    m_tabs->setDocumentMode(true);
    m_timeline = new TimelineChart(m_model);
    m_tabs->addTab(m_timeline, QString());
    m_sweep = new SweepChart(m_model);
    m_tabs->addTab(m_sweep, QString());
    m_tabs->addTab(new ThroughputChart(m_model), QString());
    m_tabs->addTab(new CorrectnessChart(m_model), QString());
    m_speedup = new SpeedupChart(m_model);
    m_tabs->addTab(m_speedup, QString());
    for (int i = 0; i < m_tabs->count(); ++i)
        m_tabs->setTabText(i, static_cast<ChartView*>(m_tabs->widget(i))->title());

    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ResultsModel::SortRole);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("results"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);
    fitResultsColumns(m_table);
    auto* copy = new QAction(tr("Copy"), m_table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &MainWindow::copySelection);
    m_table->addAction(copy);
    auto* pinRow = new QAction(tr("Pin This Row's File as Baseline"), m_table);
    pinRow->setObjectName(QStringLiteral("pinRowBaseline"));
    connect(pinRow, &QAction::triggered, this, &MainWindow::pinCurrentRowsFile);
    m_table->addAction(pinRow);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);

    m_splitter = new QSplitter(Qt::Vertical);
    m_splitter->setObjectName(QStringLiteral("centralSplitter"));
    m_splitter->addWidget(m_tabs);
    m_splitter->addWidget(m_table);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    setCentralWidget(m_splitter);

    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("statusMessage"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setMinimumWidth(420);
    m_progress->setTextVisible(true);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);

    connect(m_workloadCombo, &QComboBox::currentIndexChanged, this,
        [this] { setWorkload(m_workloadCombo->currentData().toString()); });
    connect(m_runButton, &QPushButton::clicked, this, [this] { startRun(); });
    connect(m_variantPanel, &VariantPanel::decideRequested, this, [this] { startDecision(); });
    connect(m_variantPanel, &VariantPanel::addKernelRequested, this, &MainWindow::addKernelInteractive);
    connect(m_kernelDock, &KernelDock::kernelChanged, this, &MainWindow::onKernelChanged);
    connect(m_kernelDock, &KernelDock::kernelClosed, m_variantPanel, &VariantPanel::removeUserKernel);
    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelRun);
    connect(m_datasetPanel, &DatasetPanel::fileChosen, this, &MainWindow::onFileChosen);
    connect(m_datasetPanel, &DatasetPanel::loadRequested, this, &MainWindow::onDatasetLoadRequested);
    connect(m_datasetPanel, &DatasetPanel::workloadRequested, this, &MainWindow::setWorkload);
    connect(m_datasetPanel, &DatasetPanel::sourceChanged, this, &MainWindow::updateDataContext);
    connect(m_datasetPanel, &DatasetPanel::recentFilesChanged, this,
        [this] { m_settings->setRecentFiles(m_datasetPanel->recentFiles()); });
    connect(m_runSettings, &RunSettingsPanel::baselineChanged, m_speedup, &SpeedupChart::setBaseline);
    connect(m_runSettings, &RunSettingsPanel::changed, this, &MainWindow::onRunSettingsChanged);
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, &MainWindow::cancelRun);

    resize(1500, 950);
}

void MainWindow::buildBaselineMenu(QMenu* menu)
{
    // Filled when opened: the files loaded so far, the pinned one checked.
    connect(menu, &QMenu::aboutToShow, this, [this, menu] {
        menu->clear();
        const QStringList files = loadedResultFiles();
        if (files.isEmpty())
            menu->addAction(tr("(open a results file first)"))->setEnabled(false);
        for (const QString& file : files) {
            QAction* pin = menu->addAction(QFileInfo(file).fileName(), this, [this, file] { pinBaseline(file); });
            pin->setCheckable(true);
            pin->setChecked(file == m_baselineSource);
            pin->setToolTip(file);
        }
        menu->addSeparator();
        menu->addAction(tr("&Unpin Baseline"), this, [this] { pinBaseline({}); })
            ->setEnabled(!m_baselineSource.isEmpty());
    });
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Dataset…"), this, [this] {
        const ks::Workload* w = currentWorkload();
        const QString patterns = w ? QString::fromStdString(w->filePatterns()) : QStringLiteral("*");
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open dataset"), QString(), tr("Datasets (%1);;All files (*)").arg(patterns));
        if (!path.isEmpty())
            openDatasetFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    QAction* openWorkspace = file->addAction(tr("Open &Workspace…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open workspace"), QString(), workspaceFilter());
        QString error;
        if (!path.isEmpty() && !openWorkspaceFrom(path, &error))
            QMessageBox::warning(this, tr("Open workspace"), error);
    });
    openWorkspace->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open &Results…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open results"), QString(),
            tr("KernelScope results (*.json *.csv);;JSON (*.json);;CSV (*.csv);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openResultsFile(path, &error))
            QMessageBox::warning(this, tr("Open results"), error);
    });
    buildBaselineMenu(file->addMenu(tr("Pin &Baseline")));
    QAction* saveWorkspace = file->addAction(tr("&Save Workspace…"), this, [this] {
        QString path = QFileDialog::getSaveFileName(
            this, tr("Save workspace"), QStringLiteral("session.ksw"), workspaceFilter());
        QString error;
        if (!path.isEmpty() && !saveWorkspaceTo(path, &error))
            QMessageBox::warning(this, tr("Save workspace"), error);
    });
    saveWorkspace->setShortcut(QKeySequence::Save);
    file->addSeparator();
    QAction* exportCsv = file->addAction(
        tr("Export Results as &CSV…"), this, [this] { exportResultsInteractive(QStringLiteral("csv")); });
    exportCsv->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addAction(tr("Export Results as &JSON…"), this, [this] { exportResultsInteractive(QStringLiteral("json")); });
    QAction* exportChart = file->addAction(tr("Export C&hart…"), this, &MainWindow::exportChartInteractive);
    exportChart->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    QAction* start = run->addAction(tr("&Run Checked Variants"), this, [this] { startRun(); });
    start->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
    run->addAction(tr("&Decide Between Checked Variants"), this, [this] { startDecision(); });
    QAction* cancel = run->addAction(tr("&Cancel"), this, &MainWindow::cancelRun);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setShortcutContext(Qt::WidgetShortcut); // Esc is handled by the window-wide shortcut
    run->addSeparator();
    run->addAction(tr("Clear Results"), this, [this] {
        if (isRunning())
            return;
        m_model->clear();
        m_speedup->setDecisions({});
        pinBaseline({});
    });

    QMenu* kernels = menuBar()->addMenu(tr("&Kernels"));
    kernels->addAction(tr("&Add Kernel File…"), this, &MainWindow::addKernelInteractive)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    kernels->addAction(tr("&New Kernel from Template…"), this, &MainWindow::newKernelInteractive);
    kernels->addSeparator();
    kernels->addAction(m_kernelDock->toggleViewAction());
    m_kernelDock->toggleViewAction()->setText(tr("Show Kernels &Pane"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* group = new QActionGroup(this);
    for (auto mode : {ThemeMode::System, ThemeMode::Light, ThemeMode::Dark}) {
        const QString label = mode == ThemeMode::System ? tr("&System")
            : mode == ThemeMode::Light                  ? tr("&Light")
                                                        : tr("&Dark");
        QAction* a = theme->addAction(label, this, [this, mode] { setTheme(mode); });
        a->setCheckable(true);
        a->setData(themeName(mode));
        group->addAction(a);
    }
    connect(theme, &QMenu::aboutToShow, this, [group, this] {
        for (QAction* a : group->actions())
            a->setChecked(a->data().toString() == themeName(m_theme));
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About KernelScope"), this, [this] {
        const std::string cuda = device::cudaUnavailableReason();
        QMessageBox::about(this, tr("About KernelScope"),
            tr("<h3>KernelScope %1</h3><p>Runs kernel variants of a workload side by side, times them properly and "
               "checks them against a CPU reference.</p><p>Qt %2 · CUDA: %3</p>")
                .arg(QString::fromLatin1(version()), QString::fromLatin1(qVersion()),
                    cuda.empty() ? tr("available") : QString::fromStdString(cuda).toHtmlEscaped()));
    });
}

QList<ChartView*> MainWindow::charts() const
{
    QList<ChartView*> list;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* c = qobject_cast<ChartView*>(m_tabs->widget(i)))
            list << c;
    return list;
}

ChartView* MainWindow::chart(const QString& title) const
{
    for (auto* c : charts())
        if (c->title() == title)
            return c;
    return nullptr;
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::showStatus(const QString& message, bool error)
{
    m_status->setText(message);
    QPalette p = m_status->palette();
    p.setColor(QPalette::WindowText, error ? alarmColor() : palette().color(QPalette::WindowText));
    m_status->setPalette(p);
}

void MainWindow::setRunningUi(bool running)
{
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running || m_controller->isLoading());
    m_workloadCombo->setEnabled(!running);
    m_progress->setVisible(running);
    if (!running)
        m_progress->reset();
}

void MainWindow::pinCurrentRowsFile()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!current.isValid())
        return;
    const QString source = loadedSource(m_model->summary(current.row()));
    if (source.isEmpty()) {
        showStatus(tr("This row is a run of this session, not one loaded from a results file"), true);
        return;
    }
    pinBaseline(source);
}

void MainWindow::copySelection() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    QStringList lines;
    QStringList header;
    for (int c = 0; c < ResultsModel::ColumnCount; ++c)
        header << m_model->headerData(c, Qt::Horizontal).toString();
    lines << header.join(QLatin1Char('\t'));
    for (const auto& index : rows) {
        QStringList cells;
        for (int c = 0; c < ResultsModel::ColumnCount; ++c)
            cells << m_proxy->index(index.row(), c).data().toString();
        lines << cells.join(QLatin1Char('\t'));
    }
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
}

bool MainWindow::exportResults(const QString& path, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    try {
        if (suffix == QLatin1String("csv"))
            writeCsv(path.toStdString(), m_model->finishedSummaries());
        else if (suffix == QLatin1String("json") && !m_speedup->decisions().empty())
            writeJson(path.toStdString(), m_model->finishedSummaries(), m_speedup->decisions());
        else if (suffix == QLatin1String("json"))
            writeJson(path.toStdString(), m_model->finishedSummaries());
        else
            throw std::runtime_error(path.toStdString() + ": use .csv or .json");
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        showStatus(QString::fromStdString(e.what()), true);
        return false;
    }
    showStatus(tr("Wrote %1").arg(path));
    return true;
}

void MainWindow::exportResultsInteractive(const QString& suffix)
{
    const QString filter = suffix == QLatin1String("csv") ? tr("CSV (*.csv)") : tr("JSON (*.json)");
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export results"), QStringLiteral("results.") + suffix, filter);
    QString error;
    if (!path.isEmpty() && !exportResults(path, &error))
        QMessageBox::warning(this, tr("Export results"), error);
}

void MainWindow::exportChartInteractive()
{
    auto* chart = qobject_cast<ChartView*>(m_tabs->currentWidget());
    if (!chart)
        return;
    QString filters = tr("PNG image (*.png);;PDF document (*.pdf)");
    if (ChartView::svgAvailable())
        filters += tr(";;SVG image (*.svg)");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"),
        chart->title().toLower().replace(QLatin1Char(' '), QLatin1Char('-')) + QStringLiteral(".png"), filters);
    if (path.isEmpty())
        return;
    QString error;
    if (chart->exportTo(path, &error))
        showStatus(tr("Wrote %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export chart"), error);
}

} // namespace ks::gui
