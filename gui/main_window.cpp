#include "gui/main_window.h"

#include "compute/core/clock_format.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/sweep.h"
#include "compute/core/version.h"
#include "compute/device/device_info.h"
#include "gui/charts/correctness_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/sweep_chart.h"
#include "gui/charts/throughput_chart.h"
#include "gui/charts/timeline_chart.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"
#include "gui/views/workload_view.h"
#include "gui/workspace.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

/// ks_gui is a static library, so its Qt resources (the icons) are registered by hand; Q_INIT_RESOURCE must be
/// used outside any namespace.
static void initGuiResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace ks::gui {

namespace {
/// Autosaved sessions kept on disk; older ones are removed.
constexpr int kAutosavesKept = 20;

QString seconds(double s)
{
    if (s < 90)
        return QObject::tr("%1 s").arg(qRound(s));
    return QObject::tr("%1 min").arg(QString::number(s / 60.0, 'f', 1));
}

QString workspaceFilter()
{
    return QObject::tr("KernelScope workspace (*.ksw *.json)");
}

std::string toJsonText(const std::map<std::string, std::string>& values)
{
    return nlohmann::json(values).dump();
}

std::map<std::string, std::string> fromJsonText(const QString& text)
{
    try {
        const auto j = nlohmann::json::parse(text.toStdString());
        return j.get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception&) {
        return {};
    }
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_model(new ResultsModel(this))
    , m_controller(new RunController(this))
{
    initGuiResources();
    setWindowTitle(tr("KernelScope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/kernelscope.svg")));
    setAcceptDrops(true);
    m_autosaveDirectory
        = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
    buildUi();
    buildMenus();

    connect(m_controller, &RunController::samplesReady, m_model, &ResultsModel::addSamples);
    connect(m_controller, &RunController::summaryReady, this, &MainWindow::onSummary);
    connect(m_controller, &RunController::progress, this, [this](const SweepProgress& p) {
        m_progress->setRange(0, p.runCount);
        m_progress->setValue(p.runIndex);
        QString text = tr("%1 · size %2 · run %3 of %4")
                           .arg(QString::fromStdString(p.variant))
                           .arg(static_cast<qulonglong>(p.size))
                           .arg(p.runIndex + 1)
                           .arg(p.runCount);
        if (p.remainingS >= 0)
            text += tr(" · about %1 left").arg(seconds(p.remainingS));
        m_progress->setFormat(text);
        showStatus(tr("Running %1").arg(text));
    });
    connect(m_controller, &RunController::status, this, [this](const QString& s) { showStatus(s); });
    connect(m_controller, &RunController::datasetReady, this, [this](const data::Dataset& d) {
        if (m_workloadView)
            m_workloadView->setDataset(d);
    });
    connect(m_controller, &RunController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &RunController::datasetLoaded, this, [this](quint64 ticket, const data::Dataset& d) {
        if (ticket != m_loadTicket)
            return;
        m_loadedDataset = d;
        m_datasetPanel->showDataset(d);
        if (m_workloadView)
            m_workloadView->setDataset(d);
        showStatus(tr("Loaded %1: %2 elements")
                       .arg(QString::fromStdString(d.meta().name))
                       .arg(static_cast<qulonglong>(d.meta().size)));
        Q_EMIT datasetLoadFinished(true);
    });
    connect(m_controller, &RunController::datasetFailed, this, [this](quint64 ticket, const QString& message) {
        if (ticket != m_loadTicket)
            return;
        m_loadedDataset = {};
        m_loadedPath.clear();
        m_datasetPanel->showError(message);
        showStatus(message, true);
        Q_EMIT datasetLoadFinished(false);
    });

    restoreSettings();
    setRunningUi(false);
    showStatus(device::cudaUnavailableReason().empty()
            ? tr("Ready")
            : tr("Ready. CUDA variants are unavailable here: %1")
                  .arg(QString::fromStdString(device::cudaUnavailableReason())));
}

MainWindow::~MainWindow() = default;

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
    m_cancelButton->setToolTip(tr("Stop after the current repetition, keeping what was measured (Esc)"));
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

    // Charts over the results table.
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("charts"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(new TimelineChart(m_model), QString());
    m_tabs->addTab(new SweepChart(m_model), QString());
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
    auto* copy = new QAction(tr("Copy"), m_table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &MainWindow::copySelection);
    m_table->addAction(copy);
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
    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelRun);
    connect(m_datasetPanel, &DatasetPanel::loadRequested, this, &MainWindow::onDatasetLoadRequested);
    connect(m_datasetPanel, &DatasetPanel::recentFilesChanged, this,
        [this] { QSettings().setValue(QStringLiteral("recentFiles"), m_datasetPanel->recentFiles()); });
    connect(m_runSettings, &RunSettingsPanel::baselineChanged, m_speedup, &SpeedupChart::setBaseline);
    connect(m_runSettings, &RunSettingsPanel::changed, this, [this] {
        // Parameters the reader uses (lrv's orientation, zero handling) change what a file loads as: reload.
        if (m_datasetPanel->source() == DatasetPanel::Source::File && !m_loadedPath.isEmpty() && !isRunning()
            && m_runSettings->settings().params != m_loadedReadParams)
            onDatasetLoadRequested(m_loadedPath, m_datasetPanel->h5Path(), m_datasetPanel->allowNonFinite());
    });
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, &MainWindow::cancelRun);

    resize(1500, 950);
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
    QAction* cancel = run->addAction(tr("&Cancel"), this, &MainWindow::cancelRun);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setShortcutContext(Qt::WidgetShortcut); // Esc is handled by the window-wide shortcut
    run->addSeparator();
    run->addAction(tr("Clear Results"), this, [this] {
        if (!isRunning())
            m_model->clear();
    });

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

const ks::Workload* MainWindow::currentWorkload() const
{
    return defaultRegistry().find(m_workloadCombo->currentData().toString().toStdString());
}

void MainWindow::setWorkload(const QString& id)
{
    const int index = m_workloadCombo->findData(id);
    if (index < 0)
        return;
    if (m_workloadCombo->currentIndex() != index) {
        m_workloadCombo->setCurrentIndex(index); // re-enters through the signal
        return;
    }
    const ks::Workload* w = currentWorkload();
    m_workloadDescription->setText(QString::fromStdString(w->description()));
    m_datasetPanel->setWorkload(w);
    m_variantPanel->setWorkload(w);
    m_runSettings->setWorkload(w);
    QSettings settings;
    const auto generator = fromJsonText(settings.value(QStringLiteral("generator/") + id).toString());
    if (!generator.empty())
        m_datasetPanel->setGenerator(generator);
    QStringList order;
    for (const auto& v : w->variants())
        order << QString::fromStdString(v.id);
    m_model->setVariantOrder(order);
    m_loadedDataset = {};
    m_loadedPath.clear();

    if (m_workloadView) {
        m_tabs->removeTab(m_tabs->indexOf(m_workloadView));
        m_workloadView->deleteLater();
    }
    m_workloadView = createWorkloadView(id.toStdString(), m_model, nullptr);
    m_tabs->addTab(m_workloadView, m_workloadView->title());
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

bool MainWindow::isRunning() const
{
    return m_controller->isRunning();
}

void MainWindow::setRunningUi(bool running)
{
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    m_workloadCombo->setEnabled(!running);
    m_progress->setVisible(running);
    if (!running)
        m_progress->reset();
}

bool MainWindow::startRun()
{
    if (isRunning())
        return false;
    const ks::Workload* workload = currentWorkload();
    const QStringList variants = m_variantPanel->checkedVariants();
    auto refuse = [this](const QString& why) {
        showStatus(why, true);
        return false;
    };
    if (!workload)
        return refuse(tr("Choose a workload"));
    if (variants.isEmpty())
        return refuse(tr("Check at least one variant that can run here"));
    if (const QString e = m_runSettings->validationError(); !e.isEmpty())
        return refuse(e);

    SweepRequest request;
    request.workload = workload;
    for (const auto& v : variants)
        request.variantIds.push_back(v.toStdString());
    const RunSettings settings = m_runSettings->settings();
    try {
        request.sizes = m_runSettings->sizes();
    } catch (const ParameterError& e) {
        return refuse(QString::fromStdString(e.what()));
    }
    request.params = settings.params;
    request.options = settings.runOptions();
    request.runIdPrefix = sessionStamp();
    m_runPrefix = request.runIdPrefix;
    if (m_datasetPanel->source() == DatasetPanel::Source::File) {
        if (m_loadedDataset.empty() || m_loadedPath != m_datasetPanel->filePath())
            return refuse(tr("The dataset file is not loaded (still loading, or it failed: see the Dataset panel)"));
        request.dataset = m_loadedDataset;
    } else {
        if (const QString e = m_datasetPanel->validationError(); !e.isEmpty())
            return refuse(tr("Generator: %1").arg(e));
        request.generator = m_datasetPanel->generatorValues();
    }
    try {
        m_controller->start(request);
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }

    // Autosave: every Summary of this session is appended as it arrives.
    QDir().mkpath(m_autosaveDirectory);
    const QString stem
        = m_autosaveDirectory + QStringLiteral("/session-") + QString::fromStdString(request.runIdPrefix);
    try {
        m_autosaveCsv = std::make_unique<CsvAppender>((stem + QStringLiteral(".csv")).toStdString());
        m_autosaveWorkspace = stem + QStringLiteral(".ksw");
    } catch (const std::exception& e) {
        m_autosaveCsv.reset();
        m_autosaveWorkspace.clear();
        showStatus(tr("Autosave is off: %1").arg(QString::fromStdString(e.what())), true);
    }
    QDir dir(m_autosaveDirectory);
    const auto old = dir.entryInfoList({QStringLiteral("session-*")}, QDir::Files, QDir::Time);
    for (qsizetype i = 2 * kAutosavesKept; i < old.size(); ++i)
        QFile::remove(old[i].absoluteFilePath());

    m_runClock.start();
    setRunningUi(true);
    showStatus(tr("Starting %1 variant(s)…").arg(variants.size()));
    return true;
}

void MainWindow::cancelRun()
{
    if (!isRunning())
        return;
    m_controller->cancel();
    showStatus(tr("Cancelling after the current repetition…"));
}

void MainWindow::onSummary(const ks::Summary& summary)
{
    m_model->addSummary(summary);
    autosave(summary);
}

void MainWindow::autosave(const ks::Summary& summary)
{
    if (!m_autosaveCsv)
        return;
    try {
        m_autosaveCsv->append(summary);
        saveWorkspace(m_autosaveWorkspace, currentWorkspace());
    } catch (const std::exception& e) {
        showStatus(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())), true);
    }
}

void MainWindow::onFinished(bool cancelled, const QString& error)
{
    setRunningUi(false);
    int passed = 0, incorrect = 0, failed = 0, skipped = 0, runs = 0;
    for (const auto& s : m_model->finishedSummaries()) {
        if (s.runId.rfind(m_runPrefix, 0) != 0)
            continue; // an earlier sweep's row
        ++runs;
        passed += s.outcome == Outcome::Passed;
        incorrect += s.outcome == Outcome::Incorrect;
        failed += s.outcome == Outcome::Failed;
        skipped += s.outcome == Outcome::Skipped;
    }
    const QString elapsed = seconds(static_cast<double>(m_runClock.elapsed()) / 1000.0);
    if (!error.isEmpty())
        showStatus(tr("The sweep could not start: %1").arg(error), true);
    else if (cancelled)
        showStatus(tr("Cancelled after %1; every run measured so far is kept").arg(elapsed));
    else
        showStatus(tr("Finished %7 runs in %1: %2 passed, %3 incorrect, %4 failed, %5 skipped (%6 rows in the table)")
                       .arg(elapsed)
                       .arg(passed)
                       .arg(incorrect)
                       .arg(failed)
                       .arg(skipped)
                       .arg(m_model->rowCount())
                       .arg(runs),
            incorrect + failed > 0);
    Q_EMIT runFinished(cancelled);
    if (m_closeRequested)
        close();
}

void MainWindow::onDatasetLoadRequested(const QString& path, const QString& h5Path, bool allowNonFinite)
{
    const ks::Workload* w = currentWorkload();
    if (!w)
        return;
    m_loadedDataset = {};
    m_loadedPath = path;
    m_datasetPanel->showLoading(QFileInfo(path).fileName());
    showStatus(tr("Loading %1…").arg(path));
    data::ReadOptions options;
    options.allowNonFinite = allowNonFinite;
    options.h5Path = h5Path.toStdString();
    // Workloads read some run parameters while loading (lrv: orientation, zero handling).
    options.params = m_runSettings->settings().params;
    m_loadedReadParams = options.params;
    m_loadTicket = m_controller->loadDataset(QString::fromStdString(w->id()), path, options);
}

void MainWindow::openDatasetFile(const QString& path)
{
    m_datasetPanel->openFile(path);
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

Workspace MainWindow::currentWorkspace() const
{
    Workspace w;
    w.workload = m_workloadCombo->currentData().toString();
    w.fromFile = m_datasetPanel->source() == DatasetPanel::Source::File;
    w.generator = m_datasetPanel->generatorValues();
    w.filePath = m_datasetPanel->filePath();
    w.h5Path = m_datasetPanel->h5Path();
    w.allowNonFinite = m_datasetPanel->allowNonFinite();
    if (!m_loadedDataset.empty())
        w.datasetHash = QString::fromStdString(m_loadedDataset.meta().contentHash);
    w.variants = m_variantPanel->checkedVariants();
    w.settings = m_runSettings->settings();
    w.summaries = m_model->finishedSummaries();
    return w;
}

bool MainWindow::saveWorkspaceTo(const QString& path, QString* error)
{
    try {
        saveWorkspace(path, currentWorkspace());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        showStatus(QString::fromStdString(e.what()), true);
        return false;
    }
    showStatus(tr("Saved workspace %1").arg(path));
    return true;
}

bool MainWindow::openWorkspaceFrom(const QString& path, QString* error)
{
    if (isRunning()) {
        if (error)
            *error = tr("Cancel the running sweep first");
        return false;
    }
    Workspace w;
    try {
        w = loadWorkspace(path);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        showStatus(QString::fromStdString(e.what()), true);
        return false;
    }
    if (m_workloadCombo->findData(w.workload) < 0) {
        const QString why = tr("%1: workload '%2' is not in this build").arg(path, w.workload);
        if (error)
            *error = why;
        showStatus(why, true);
        return false;
    }
    setWorkload(w.workload);
    m_variantPanel->setCheckedVariants(w.variants);
    m_runSettings->setSettings(w.settings);
    m_model->setSummaries(w.summaries);
    if (w.fromFile) {
        m_datasetPanel->setFile(w.filePath, w.h5Path, w.allowNonFinite);
        // The panel keeps the path absolute; load (and later compare) that form.
        const QString file = m_datasetPanel->filePath();
        if (QFileInfo::exists(file))
            onDatasetLoadRequested(file, w.h5Path, w.allowNonFinite);
        else
            m_datasetPanel->showError(tr("the workspace's dataset file is gone; its results are shown"));
    } else {
        m_datasetPanel->setSource(DatasetPanel::Source::Generator);
        m_datasetPanel->setGenerator(w.generator);
    }
    showStatus(tr("Opened workspace %1 (%2 runs)").arg(path).arg(w.summaries.size()));
    return true;
}

void MainWindow::setTheme(ThemeMode mode)
{
    m_theme = mode;
    applyTheme(*qApp, mode);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (isRunning()) {
        // Cancel cleanly: the sweep stops after its current repetition, then the window closes.
        m_closeRequested = true;
        cancelRun();
        event->ignore();
        return;
    }
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile()) {
        openDatasetFile(urls.front().toLocalFile());
        event->acceptProposedAction();
    }
}

void MainWindow::restoreSettings()
{
    QSettings s;
    m_theme = themeFromName(s.value(QStringLiteral("theme"), QStringLiteral("system")).toString());
    applyTheme(*qApp, m_theme);
    m_datasetPanel->setRecentFiles(s.value(QStringLiteral("recentFiles")).toStringList());
    const QString workload = s.value(QStringLiteral("workload"), m_workloadCombo->currentData()).toString();
    if (m_workloadCombo->findData(workload) >= 0
        && m_workloadCombo->findData(workload) != m_workloadCombo->currentIndex())
        m_workloadCombo->setCurrentIndex(m_workloadCombo->findData(workload));
    else
        setWorkload(m_workloadCombo->currentData().toString());
    if (s.contains(QStringLiteral("run/noisePct"))) {
        RunSettings r = m_runSettings->settings();
        r.sizes = s.value(QStringLiteral("run/sizes"), r.sizes).toString();
        r.noisePct = s.value(QStringLiteral("run/noisePct"), r.noisePct).toDouble();
        r.warmup = s.value(QStringLiteral("run/warmup"), r.warmup).toInt();
        r.minRepetitions = s.value(QStringLiteral("run/minRepetitions"), r.minRepetitions).toInt();
        r.maxRepetitions = s.value(QStringLiteral("run/maxRepetitions"), r.maxRepetitions).toInt();
        r.timeLimitS = s.value(QStringLiteral("run/timeLimitS"), r.timeLimitS).toDouble();
        r.flushL2 = s.value(QStringLiteral("run/flushL2"), r.flushL2).toBool();
        r.device = s.value(QStringLiteral("run/device"), r.device).toInt();
        r.baseline = s.value(QStringLiteral("run/baseline"), r.baseline).toString();
        r.params = fromJsonText(s.value(QStringLiteral("run/params")).toString());
        m_runSettings->setSettings(r);
    }
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    m_splitter->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue(QStringLiteral("theme"), themeName(m_theme));
    s.setValue(QStringLiteral("recentFiles"), m_datasetPanel->recentFiles());
    s.setValue(QStringLiteral("workload"), m_workloadCombo->currentData());
    s.setValue(QStringLiteral("generator/") + m_workloadCombo->currentData().toString(),
        QString::fromStdString(toJsonText(m_datasetPanel->generatorValues())));
    const RunSettings r = m_runSettings->settings();
    s.setValue(QStringLiteral("run/sizes"), r.sizes);
    s.setValue(QStringLiteral("run/noisePct"), r.noisePct);
    s.setValue(QStringLiteral("run/warmup"), r.warmup);
    s.setValue(QStringLiteral("run/minRepetitions"), r.minRepetitions);
    s.setValue(QStringLiteral("run/maxRepetitions"), r.maxRepetitions);
    s.setValue(QStringLiteral("run/timeLimitS"), r.timeLimitS);
    s.setValue(QStringLiteral("run/flushL2"), r.flushL2);
    s.setValue(QStringLiteral("run/device"), r.device);
    s.setValue(QStringLiteral("run/baseline"), r.baseline);
    s.setValue(QStringLiteral("run/params"), QString::fromStdString(toJsonText(r.params)));
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/splitter"), m_splitter->saveState());
}

} // namespace ks::gui
