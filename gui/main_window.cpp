#include "gui/main_window.h"
#include "gui/panels/kernel_dock.h"
#include "gui/user_kernels.h"

#include "compute/core/clock_format.h"
#include "compute/core/decide.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/sweep.h"
#include "compute/core/user_kernel.h"
#include "compute/device/device_info.h"
#include "data/sniff.h"
#include "gui/autosave.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/sweep_chart.h"
#include "gui/charts/timeline_chart.h"
#include "gui/loaded_results.h"
#include "gui/panels/dataset_panel.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/panels/variant_panel.h"
#include "gui/results_model.h"
#include "gui/run_controller.h"
#include "gui/settings_store.h"
#include "gui/views/workload_view.h"
#include "gui/wheel_guard.h"
#include "gui/workspace.h"
#include "gui/workspace_binding.h"

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSplitter>
#include <QTabWidget>
#include <algorithm>
#include <cmath>
#include <utility>

/// ks_gui is a static library, so its Qt resources (the icons) are registered by hand; Q_INIT_RESOURCE must be
/// used outside any namespace.
static void initGuiResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace ks::gui {

namespace {
QString seconds(double s)
{
    if (s < 90)
        return QObject::tr("%1 s").arg(qRound(s));
    return QObject::tr("%1 min").arg(QString::number(s / 60.0, 'f', 1));
}

struct OutcomeCounts {
    int passed = 0;
    int incorrect = 0;
    int failed = 0;
    int skipped = 0;
};

/// A run parameter measured in the data's length unit whose useful value follows the data's extent: sdh's bucket
/// width (the default 500 suits the generator's 23,000-wide box, and puts a 59 Å protein in one bucket).
struct LengthParameter {
    const char* datasetKind;
    const char* name;
    double perDiagonal; ///< the suggested value as a fraction of the bounding-box diagonal
};
constexpr LengthParameter kLengthParameters[] = {{"points", "bucket_width", 0.01}};

/// What a dataset kind's size counts, for the line under the Sizes field.
QString sizeNoun(const std::string& kind)
{
    if (kind == "csr")
        return QObject::tr("rows");
    if (kind == "expression")
        return QObject::tr("features");
    if (kind == "images")
        return QObject::tr("images");
    return QObject::tr("points");
}

/// `value` to two significant digits, written plainly (0.59, 5.9, 59, 590), as a user would type it.
QString roundedForUser(double value)
{
    const int exponent = static_cast<int>(std::floor(std::log10(value)));
    const double step = std::pow(10.0, exponent - 1);
    return QString::number(std::round(value / step) * step, 'f', std::max(0, 1 - exponent));
}

QString axisDefault(const ks::Workload& workload, const char* name)
{
    for (const Axis& axis : workload.parameters())
        if (axis.name == name)
            return QString::fromStdString(axis.defaultValue);
    return {};
}

bool isPdbFile(const QString& path)
{
    QString name = path.toLower();
    if (name.endsWith(QLatin1String(".gz")))
        name.chop(3);
    return name.endsWith(QLatin1String(".pdb")) || name.endsWith(QLatin1String(".ent"));
}

/// A reader's message says how to fix it in the CLI's words ("with --param zeros=replace"); in the app the same
/// choice is a parameter in Run settings.
QString guiWording(QString message)
{
    static const QRegularExpression param(QStringLiteral("--param (\\w+)=(\\S+?)([),;]|$)"));
    return message.replace(param, QStringLiteral("\\1 = \\2 in Run settings → Parameters\\3"));
}

OutcomeCounts countOutcomes(const std::vector<Summary>& summaries)
{
    OutcomeCounts c;
    for (const auto& s : summaries) {
        c.passed += s.outcome == Outcome::Passed;
        c.incorrect += s.outcome == Outcome::Incorrect;
        c.failed += s.outcome == Outcome::Failed;
        c.skipped += s.outcome == Outcome::Skipped;
    }
    return c;
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_model(new ResultsModel(this))
    , m_controller(new RunController(this))
    , m_settings(std::make_unique<SettingsStore>())
    , m_autosave(std::make_unique<Autosave>())
{
    initGuiResources();
    qApp->installEventFilter(new WheelGuard(this));
    setWindowTitle(tr("KernelScope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/kernelscope.svg")));
    setAcceptDrops(true);
    buildUi();
    buildMenus();
    m_workspace = std::make_unique<WorkspaceBinding>(*m_datasetPanel, *m_variantPanel, *m_runSettings, *m_model);

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
        for (WorkloadView* view : std::as_const(m_workloadViews))
            view->setDataset(d);
    });
    connect(m_controller, &RunController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &RunController::decisionsReady, this, [this](const std::vector<ks::Decision>& decisions) {
        m_speedup->setDecisions(decisions);
        m_tabs->setCurrentWidget(m_speedup);
        // Arrives before finished ends the session, so the autosaved workspace reopens with the verdicts.
        try {
            m_autosave->appendDecisions(decisions);
        } catch (const std::exception& e) {
            showStatus(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())), true);
        }
    });
    connect(m_controller, &RunController::datasetLoaded, this, [this](quint64 ticket, const data::Dataset& d) {
        if (ticket != m_loadTicket)
            return;
        m_loadedDataset = d;
        m_datasetPanel->showDataset(d);
        m_datasetPanel->markLoaded(m_loadedPath);
        updateDataContext();
        if (m_suggestFromData)
            suggestFromData(d);
        for (WorkloadView* view : std::as_const(m_workloadViews))
            view->setDataset(d);
        showStatus(tr("Loaded %1: %2 elements")
                       .arg(QString::fromStdString(d.meta().name))
                       .arg(static_cast<qulonglong>(d.meta().size)));
        m_cancelButton->setEnabled(isRunning());
        Q_EMIT datasetLoadFinished(true);
    });
    connect(m_controller, &RunController::datasetFailed, this, [this](quint64 ticket, const QString& message) {
        if (ticket != m_loadTicket)
            return;
        const QString failed = m_loadedPath;
        m_loadedDataset = {};
        m_loadedPath.clear();
        m_failedPath = failed;
        m_datasetPanel->markFailed(failed);
        m_datasetPanel->showError(guiWording(message));
        m_datasetPanel->showReaderHint(workloadsReading(failed));
        updateDataContext();
        showStatus(guiWording(message), true);
        m_cancelButton->setEnabled(isRunning());
        Q_EMIT datasetLoadFinished(false);
    });
    // A cancelled load is the user's choice, not the file's fault: said plainly, the path kept to open again.
    connect(m_controller, &RunController::datasetLoadCancelled, this, [this](quint64 ticket) {
        if (ticket != m_loadTicket)
            return;
        const QString name = QFileInfo(m_loadedPath).fileName();
        m_loadedDataset = {};
        m_loadedPath.clear();
        m_datasetPanel->showNotice(tr("Load of %1 cancelled; the file was not read.").arg(name));
        updateDataContext();
        showStatus(tr("Load of %1 cancelled").arg(name));
        m_cancelButton->setEnabled(isRunning());
        Q_EMIT datasetLoadFinished(false);
    });

    const QString restoreProblem = restoreSettings();
    setRunningUi(false);
    if (!restoreProblem.isEmpty())
        showStatus(restoreProblem, true);
    else
        showStatus(device::cudaUnavailableReason().empty()
                ? tr("Ready")
                : tr("Ready. CUDA variants are unavailable here: %1")
                      .arg(QString::fromStdString(device::cudaUnavailableReason())));
}

MainWindow::~MainWindow() = default;

QString MainWindow::autosaveCsvPath() const
{
    return m_autosave->csvPath();
}

QString MainWindow::autosaveWorkspacePath() const
{
    return m_autosave->workspacePath();
}

void MainWindow::setAutosaveDirectory(const QString& directory)
{
    m_autosave->setDirectory(directory);
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
    // The file was loaded for the previous workload: forget it before the panels rebuild (their change signals
    // must not reload it), and drop a load still in flight.
    m_loadedDataset = {};
    m_loadedPath.clear();
    m_loadTicket = 0;
    const ks::Workload* w = currentWorkload();
    m_workloadDescription->setText(QString::fromStdString(w->description()));
    m_datasetPanel->setWorkload(w);
    m_variantPanel->setWorkload(w);
    m_runSettings->setWorkload(w);
    if (const auto generator = m_settings->generatorValues(id); !generator.empty())
        m_datasetPanel->setGenerator(generator);
    QStringList order;
    for (const auto& v : w->variants())
        order << QString::fromStdString(v.id);
    m_model->setVariantOrder(order);
    m_model->setViewWorkload(id.toStdString());
    listUserKernels();

    for (WorkloadView* view : std::as_const(m_workloadViews)) {
        m_tabs->removeTab(m_tabs->indexOf(view));
        view->deleteLater();
    }
    m_workloadViews = createWorkloadViews(id.toStdString(), m_model, nullptr);
    for (WorkloadView* view : std::as_const(m_workloadViews))
        m_tabs->addTab(view, view->title());

    // The chosen file (and its error) was for the previous workload: read it again when this workload's reader
    // may take it, else forget it rather than leave a stale message.
    const QString file = m_datasetPanel->filePath();
    if (m_datasetPanel->source() == DatasetPanel::Source::File && !file.isEmpty()) {
        const auto kinds = data::sniffDatasetKinds(QFile::encodeName(file).toStdString());
        if (kinds.empty() || std::find(kinds.begin(), kinds.end(), w->datasetKind()) != kinds.end()) {
            m_suggestFromData = true;
            onDatasetLoadRequested(file, m_datasetPanel->h5Path(), m_datasetPanel->allowNonFinite());
        } else {
            m_datasetPanel->clearFile();
            showStatus(tr("%1 is not a %2 file: choose one, or use the built-in generator")
                           .arg(QFileInfo(file).fileName(), QString::fromStdString(w->name())));
        }
    } else {
        m_datasetPanel->clearInfo();
    }
    updateDataContext();
}

bool MainWindow::isRunning() const
{
    return m_controller->isRunning();
}

bool MainWindow::startRun()
{
    return startWork(false);
}

bool MainWindow::startDecision()
{
    return startWork(true);
}

bool MainWindow::startWork(bool decide)
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
    if (decide && variants.size() < 2)
        return refuse(tr("Check at least two variants to decide between (the first is A)"));
    const bool withUserKernels
        = std::any_of(variants.begin(), variants.end(), [](const QString& v) { return isUserKernelId(v); });
    if (decide && withUserKernels)
        return refuse(tr("A decision runs built-in variants in one process: uncheck the user kernels to decide"));
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
    request.options = settings.options;
    request.runIdPrefix = nextSweepStamp();
    if (m_datasetPanel->source() == DatasetPanel::Source::File) {
        if (m_loadedDataset.empty() || m_loadedPath != m_datasetPanel->filePath())
            return refuse(tr("The dataset file is not loaded (still loading, or it failed: see the Dataset panel)"));
        request.dataset = m_loadedDataset;
    } else {
        if (const QString e = m_datasetPanel->validationError(); !e.isEmpty())
            return refuse(tr("Generator: %1").arg(e));
        request.generator = m_datasetPanel->generatorValues();
    }
    // User kernels run in worker processes that rebuild the data from where it came from, as the CLI states it.
    UserKernelRun user;
    if (withUserKernels) {
        for (const QString& v : variants) {
            user.order.push_back(v.toStdString());
            if (isUserKernelId(v)) {
                user.files[v.toStdString()] = m_kernelDock->kernelPath(v).toStdString();
                for (const QString& option : m_kernelDock->nvrtcOptions(v))
                    user.nvrtcOptions[v.toStdString()].push_back(option.toStdString());
            }
        }
        auto params = request.params;
        for (const auto& [key, value] : m_loadedReaderOptions)
            params.emplace(key, value);
        user.origin.params = paramArguments(params);
        user.origin.noCalibrate = !m_controller->calibrationEnabled();
        if (request.dataset) {
            user.origin.input = m_loadedPath.toStdString();
            user.origin.h5Path = m_datasetPanel->h5Path().toStdString();
            user.origin.allowNonFinite = m_datasetPanel->allowNonFinite();
        } else {
            for (const auto& [key, value] : request.generator)
                user.origin.generate += (user.origin.generate.empty() ? "" : ",") + key + "=" + value;
        }
    }
    try {
        if (decide) {
            DecideOptions options;
            options.margin = m_variantPanel->decideMargin();
            m_controller->startDecision(request, options);
        } else {
            m_controller->start(request, user);
        }
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }

    // A verdict belongs to the runs it measured: the next run, decision or not, starts without one.
    m_speedup->setDecisions({});
    m_kernelDock->markRunStarted();
    m_rerunPending = false;
    m_runClock.start();
    setRunningUi(true);
    showStatus(decide ? tr("Deciding between %1 variants, interleaved…").arg(variants.size())
                      : tr("Starting %1 variant(s)…").arg(variants.size()));
    // The session's workspace is written once now (with the table so far); each Summary is appended as it arrives.
    try {
        m_autosave->begin(QString::fromStdString(request.runIdPrefix), captureWorkspace());
    } catch (const std::exception& e) {
        showStatus(tr("Autosave is off: %1").arg(QString::fromStdString(e.what())), true);
    }
    return true;
}

std::string MainWindow::nextSweepStamp()
{
    // sessionStamp() counts seconds; the table keys its rows by run id, so a second sweep within the same second
    // must not reuse the first one's ids (it would overwrite its rows) or its autosave files.
    const std::string stamp = sessionStamp();
    m_sweepsInLastStamp = stamp == m_lastSessionStamp ? m_sweepsInLastStamp + 1 : 1;
    m_lastSessionStamp = stamp;
    return m_sweepsInLastStamp == 1 ? stamp : stamp + "-" + std::to_string(m_sweepsInLastStamp);
}

void MainWindow::cancelRun()
{
    // A load in flight is ended at once (its reader worker is killed); a sweep stops after its repetition.
    if (m_controller->cancelLoad() && !isRunning())
        showStatus(tr("Cancelling the load…"));
    if (!isRunning())
        return;
    m_controller->cancel();
    showStatus(tr("Cancelling…"));
}

void MainWindow::onSummary(const ks::Summary& summary)
{
    m_model->addSummary(summary);
    // A variant broke the CUDA context: the list greys every CUDA variant with the reason the moment it happens.
    if (const std::string broken = device::cudaUnusableReason(); !broken.empty())
        if (m_variantPanel->refreshAvailability(currentWorkload()))
            showStatus(QString::fromStdString(broken), true);
    if (isUserKernelId(QString::fromStdString(summary.variant)))
        m_kernelDock->recordSummary(summary);
    try {
        m_autosave->append(summary);
    } catch (const std::exception& e) {
        showStatus(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())), true);
    }
}

void MainWindow::onFinished(const std::vector<ks::Summary>& summaries, bool cancelled, const QString& error)
{
    m_autosave->end();
    setRunningUi(false);
    const OutcomeCounts counts = countOutcomes(summaries);
    const QString elapsed = seconds(static_cast<double>(m_runClock.elapsed()) / 1000.0);
    if (!error.isEmpty())
        showStatus(tr("The sweep could not start: %1").arg(error), true);
    else if (cancelled)
        showStatus(tr("Cancelled after %1; every run measured so far is kept").arg(elapsed));
    else
        showStatus(tr("Finished %7 runs in %1: %2 passed, %3 incorrect, %4 failed, %5 skipped (%6 rows in the table)")
                       .arg(elapsed)
                       .arg(counts.passed)
                       .arg(counts.incorrect)
                       .arg(counts.failed)
                       .arg(counts.skipped)
                       .arg(m_model->rowCount())
                       .arg(summaries.size()),
            counts.incorrect + counts.failed > 0);
    // The report in full does not fit beside the counts: the status bar says it short, its tooltip in full (the
    // variant list gives it in full too).
    if (const std::string broken = device::cudaUnusableReason(); !broken.empty() && error.isEmpty()) {
        showStatus(
            tr("%1 — CUDA broken: its variants are unavailable until restart (hover for why)").arg(m_status->text()),
            true);
        m_status->setToolTip(QString::fromStdString(broken));
    }
    Q_EMIT runFinished(cancelled);
    if (m_closeRequested) {
        close();
        return;
    }
    onRunSettingsChanged(); // a reader option changed during the sweep reloads the file now
    if (m_rerunPending && !cancelled) {
        m_rerunPending = false;
        startRun(); // a kernel was saved while that sweep ran
    }
}

bool MainWindow::addUserKernel(const QString& path, QString* error)
{
    auto fail = [this, error](const QString& why) {
        if (error)
            *error = why;
        showStatus(why, true);
        return false;
    };
    const ks::Workload* w = currentWorkload();
    if (!w)
        return fail(tr("Choose a workload first"));
    if (!findUserKernelAbi(w->id())) {
        QStringList those;
        for (const std::string& id : userKernelWorkloads())
            those << QString::fromStdString(id);
        return fail(tr("Workload %1 takes no user kernels (those that do: %2)")
                        .arg(QString::fromStdString(w->id()), those.join(QStringLiteral(", "))));
    }
    const QString workload = QString::fromStdString(w->id());
    // A kernel written for another workload's ABI says so, rather than failing on that ABI's names.
    if (QFile file(path); file.open(QIODevice::ReadOnly)) {
        const QString text = QString::fromUtf8(file.read(1 << 20));
        const auto uses = [&text](const std::string& id) {
            return text.contains(QString::fromStdString(findUserKernelAbi(id)->argsType));
        };
        if (!uses(w->id()))
            for (const std::string& other : userKernelWorkloads())
                if (uses(other))
                    return fail(tr("%1 is written for %2 (it takes %3): switch the workload to %2 to add it")
                                    .arg(QFileInfo(path).fileName(), QString::fromStdString(other),
                                        QString::fromStdString(findUserKernelAbi(other)->argsType)));
    }
    QString why;
    if (!m_kernelDock->openKernel(workload, path, &why))
        return fail(why);
    const QString id = userKernelId(path);
    // The kernel's colour is fixed now, before its first run, so the pane and every chart agree on it.
    m_kernelDock->setKernelColor(id, seriesColor(m_model->variantIndex(id), isDark(palette())));
    m_variantPanel->addUserKernel(id, m_kernelDock->kernelPath(id), userKernelUnavailableReason(workload, path));
    const QString reason = m_variantPanel->unavailableReason(id);
    showStatus(reason.isEmpty() ? tr("%1 added: each save that compiles re-runs the checked variants").arg(id)
                                : tr("%1 added; it cannot run here: %2").arg(id, reason));
    return true;
}

bool MainWindow::newKernelFromTemplate(const QString& path, QString* error)
{
    const ks::Workload* w = currentWorkload();
    const UserKernelAbi* abi = w ? findUserKernelAbi(w->id()) : nullptr;
    if (!abi)
        return addUserKernel(path, error); // says which workloads take user kernels
    QSaveFile file(path);
    const QByteArray text = QByteArray::fromStdString(abi->templateSource);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit()) {
        const QString why = tr("%1: cannot be written (%2)").arg(path, file.errorString());
        if (error)
            *error = why;
        showStatus(why, true);
        return false;
    }
    return addUserKernel(path, error);
}

void MainWindow::onKernelChanged(const QString& id)
{
    if (!m_variantPanel->checkedVariants().contains(id)) {
        const QString reason = m_variantPanel->unavailableReason(id);
        showStatus(reason.isEmpty() ? tr("%1 compiles; check it in Variants to run it").arg(id)
                                    : tr("%1 compiles; it cannot run here: %2").arg(id, reason));
        return;
    }
    if (isRunning()) {
        m_rerunPending = true;
        showStatus(tr("%1 changed: the checked variants run again when this sweep ends").arg(id));
        return;
    }
    if (startRun())
        showStatus(tr("%1 changed: running the checked variants again").arg(id));
}

void MainWindow::listUserKernels()
{
    const ks::Workload* w = currentWorkload();
    if (!w)
        return;
    const QString workload = QString::fromStdString(w->id());
    for (const QString& id : m_kernelDock->kernelIds(workload)) {
        m_kernelDock->setKernelColor(id, seriesColor(m_model->variantIndex(id), isDark(palette())));
        const QString path = m_kernelDock->kernelPath(id);
        m_variantPanel->addUserKernel(id, path, userKernelUnavailableReason(workload, path));
    }
}

void MainWindow::addKernelInteractive()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Add Kernel File"), QString(), tr("CUDA sources (*.cu *.cuh);;All files (*)"));
    if (!path.isEmpty())
        addUserKernel(path);
}

void MainWindow::newKernelInteractive()
{
    const ks::Workload* w = currentWorkload();
    const QString suggested = QStringLiteral("my_%1.cu").arg(w ? QString::fromStdString(w->id()) : QString());
    const QString path = QFileDialog::getSaveFileName(
        this, tr("New Kernel from Template"), suggested, tr("CUDA sources (*.cu);;All files (*)"));
    if (!path.isEmpty())
        newKernelFromTemplate(path);
}

void MainWindow::onRunSettingsChanged()
{
    // Only reader options (lrv's orientation, zero and NA handling; sdh's frame) change what a file loads as; the
    // variants' parameters (sdh's bucket width, a precision) apply to the data already loaded.
    // A file that failed is read again too: changing a reader option is how a user answers "zeros in the data".
    const QString path = !m_loadedPath.isEmpty() ? m_loadedPath : m_failedPath;
    if (m_datasetPanel->source() == DatasetPanel::Source::File && !path.isEmpty() && !isRunning()
        && m_runSettings->readerOptions() != m_loadedReaderOptions)
        onDatasetLoadRequested(path, m_datasetPanel->h5Path(), m_datasetPanel->allowNonFinite());
}

void MainWindow::onDatasetLoadRequested(const QString& path, const QString& h5Path, bool allowNonFinite)
{
    const ks::Workload* w = currentWorkload();
    if (!w)
        return;
    m_loadedDataset = {};
    m_loadedPath = path;
    m_failedPath.clear();
    updateDataContext();
    m_datasetPanel->showLoading(QFileInfo(path).fileName());
    showStatus(tr("Loading %1…").arg(path));
    m_cancelButton->setEnabled(true);
    data::ReadOptions options;
    options.allowNonFinite = allowNonFinite;
    options.h5Path = h5Path.toStdString();
    options.params = m_runSettings->readerOptions();
    m_loadedReaderOptions = options.params;
    m_loadTicket = m_controller->loadDataset(QString::fromStdString(w->id()), path, options);
}

void MainWindow::onFileChosen()
{
    m_runSettings->startNewFile();
    m_suggestFromData = true;
}

void MainWindow::updateDataContext()
{
    const ks::Workload* w = currentWorkload();
    const bool fileLoaded = m_datasetPanel->source() == DatasetPanel::Source::File && !m_loadedDataset.empty()
        && m_loadedPath == m_datasetPanel->filePath();
    DatasetExtent extent;
    if (fileLoaded)
        extent
            = {m_loadedDataset.meta().size, sizeNoun(m_loadedDataset.meta().kind), QFileInfo(m_loadedPath).fileName()};
    m_runSettings->setDatasetExtent(extent);
    const bool pdb = fileLoaded && isPdbFile(m_loadedPath);
    for (const LengthParameter& p : kLengthParameters) {
        if (!w || w->datasetKind() != p.datasetKind)
            continue;
        // Generated data has its own scale: a width derived from the last file gives way to the default.
        const QString name = QString::fromLatin1(p.name);
        if (m_datasetPanel->source() == DatasetPanel::Source::Generator && m_runSettings->holdsSuggestion(name))
            m_runSettings->suggestParam(name, axisDefault(*w, p.name));
        m_runSettings->setParamUnit(name, pdb ? tr("Å") : QString(),
            pdb ? tr("Unit: Å, as the PDB file's coordinates.") : tr("Unit: the same unit as the coordinates."));
    }
}

void MainWindow::suggestFromData(const data::Dataset& dataset)
{
    const auto& meta = dataset.meta();
    for (const LengthParameter& p : kLengthParameters) {
        if (meta.kind != p.datasetKind)
            continue;
        const auto diagonal = std::find_if(meta.properties.begin(), meta.properties.end(),
            [](const auto& property) { return property.first == "bounding-box diagonal"; });
        if (diagonal == meta.properties.end())
            continue;
        const double value = QString::fromStdString(diagonal->second).toDouble() * p.perDiagonal;
        if (value > 0 && std::isfinite(value))
            m_runSettings->suggestParam(QString::fromLatin1(p.name), roundedForUser(value));
    }
}

QList<QPair<QString, QString>> MainWindow::workloadsReading(const QString& path) const
{
    QList<QPair<QString, QString>> out;
    if (path.isEmpty())
        return out;
    const ks::Workload* current = currentWorkload();
    const auto kinds = data::sniffDatasetKinds(QFile::encodeName(path).toStdString());
    // A file that looks made for this workload failed on its content (a bad cell): no other workload is the fix.
    if (current && std::find(kinds.begin(), kinds.end(), current->datasetKind()) != kinds.end())
        return out;
    for (const auto& w : defaultRegistry().workloads())
        if (w.get() != current && std::find(kinds.begin(), kinds.end(), w->datasetKind()) != kinds.end())
            out.append({QString::fromStdString(w->id()), QString::fromStdString(w->name())});
    return out;
}

void MainWindow::openDatasetFile(const QString& path)
{
    m_datasetPanel->openFile(path);
}

void MainWindow::openDroppedFile(const QString& path)
{
    // openResultsFile reports its own failure in the status line; a results file never goes to a dataset reader.
    if (isResultsFile(path))
        openResultsFile(path);
    else
        openDatasetFile(path);
}

bool MainWindow::saveWorkspaceTo(const QString& path, QString* error)
{
    try {
        saveWorkspace(path, captureWorkspace());
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
    m_suggestFromData = false; // the workspace's parameters are the ones its runs used
    if (m_workspace->apply(w)) {
        onDatasetLoadRequested(m_datasetPanel->filePath(), w.h5Path, w.allowNonFinite);
    } else if (m_loadTicket != 0) {
        // setWorkload re-read the previous file for the workspace's workload; the workspace generates its data.
        m_loadTicket = 0;
        m_loadedPath.clear();
        m_datasetPanel->clearInfo();
        updateDataContext();
    }
    pinBaseline(w.baselineSource);
    m_speedup->setDecisions(w.decisions);
    showStatus(tr("Opened workspace %1 (%2 runs)").arg(path).arg(w.summaries.size()));
    return true;
}

Workspace MainWindow::captureWorkspace() const
{
    Workspace w = m_workspace->capture(m_workloadCombo->currentData().toString(), m_loadedDataset);
    w.baselineSource = m_baselineSource;
    w.decisions = m_speedup->decisions();
    return w;
}

bool MainWindow::openResultsFile(const QString& path, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        showStatus(why, true);
        return false;
    };
    if (isRunning())
        return fail(tr("Cancel the running sweep first"));
    std::vector<Summary> rows;
    try {
        rows = readResultsFile(path);
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    if (rows.empty())
        return fail(tr("%1: no results in the file").arg(path));
    // Show the file's workload, so its variants keep their colours and its own tabs read its rows.
    const QString workload = QString::fromStdString(rows.front().workload);
    if (m_workloadCombo->findData(workload) >= 0 && workload != m_workloadCombo->currentData().toString())
        setWorkload(workload);
    // A file from `run --decide` carries its verdicts beside the rows: show them as a decision of this session is.
    std::vector<Decision> decisions;
    if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) {
        try {
            decisions = readDecisions(path.toStdString());
        } catch (const std::exception& e) {
            return fail(QString::fromStdString(e.what()));
        }
    }
    for (const Summary& s : rows)
        m_model->addSummary(s);
    if (!decisions.empty()) {
        m_speedup->setDecisions(decisions);
        m_tabs->setCurrentWidget(m_speedup);
        showStatus(tr("Opened %1 results and %2 decisions from %3").arg(rows.size()).arg(decisions.size()).arg(path));
    } else {
        showStatus(tr("Opened %1 results from %2").arg(rows.size()).arg(path));
    }
    return true;
}

QStringList MainWindow::loadedResultFiles() const
{
    return loadedSources(*m_model);
}

void MainWindow::pinBaseline(const QString& source)
{
    m_baselineSource = source;
    m_sweep->setBaselineSource(source);
    m_speedup->setBaselineSource(source);
    if (!source.isEmpty())
        showStatus(tr("Pinned %1 as the baseline of the sweep and speedup charts").arg(source));
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
        openDroppedFile(urls.front().toLocalFile());
        event->acceptProposedAction();
    }
}

QString MainWindow::restoreSettings()
{
    m_theme = m_settings->theme();
    applyTheme(*qApp, m_theme);
    m_datasetPanel->setRecentFiles(m_settings->recentFiles());
    const QString workload = m_settings->workload(m_workloadCombo->currentData().toString());
    if (m_workloadCombo->findData(workload) >= 0
        && m_workloadCombo->findData(workload) != m_workloadCombo->currentIndex())
        m_workloadCombo->setCurrentIndex(m_workloadCombo->findData(workload));
    else
        setWorkload(m_workloadCombo->currentData().toString());
    if (const auto settings = m_settings->runSettings())
        m_runSettings->setSettings(*settings);
    m_runSettings->setKeepSizes(m_settings->keepSizes());
    m_timeline->setClockOverlay(m_settings->timelineClockOverlay());
    const WindowLayout layout = m_settings->windowLayout();
    restoreGeometry(layout.geometry);
    restoreState(layout.state);
    m_splitter->restoreState(layout.splitter);
    // The kernels of the last session open again (the pane shows when one does); a file gone since is named.
    m_kernelDock->hide();
    QStringList gone;
    for (const SavedKernel& k : m_settings->userKernels()) {
        if (!QFileInfo(k.path).isFile()) {
            gone << k.path;
            continue;
        }
        m_kernelDock->openKernel(k.workload, k.path, nullptr, k.nvrtcOptions);
    }
    listUserKernels();
    return gone.isEmpty() ? QString()
                          : tr("Kernel files of the last session are gone: %1").arg(gone.join(QStringLiteral(", ")));
}

void MainWindow::saveSettings() const
{
    const QString workload = m_workloadCombo->currentData().toString();
    m_settings->setTheme(m_theme);
    m_settings->setRecentFiles(m_datasetPanel->recentFiles());
    m_settings->setWorkload(workload);
    m_settings->setGeneratorValues(workload, m_datasetPanel->generatorValues());
    // A value derived from this session's file is not the user's: the next session starts from the default.
    RunSettings runSettings = m_runSettings->settings();
    if (const ks::Workload* w = currentWorkload())
        for (const LengthParameter& p : kLengthParameters)
            if (w->datasetKind() == p.datasetKind && m_runSettings->holdsSuggestion(QString::fromLatin1(p.name)))
                runSettings.params[p.name] = axisDefault(*w, p.name).toStdString();
    m_settings->setRunSettings(runSettings);
    m_settings->setKeepSizes(m_runSettings->keepSizes());
    m_settings->setTimelineClockOverlay(m_timeline->clockOverlay());
    m_settings->setWindowLayout({saveGeometry(), saveState(), m_splitter->saveState()});
    QList<SavedKernel> kernels;
    for (const QString& id : m_kernelDock->kernelIds())
        kernels.append(
            {m_kernelDock->kernelWorkload(id), m_kernelDock->kernelPath(id), m_kernelDock->nvrtcOptions(id)});
    m_settings->setUserKernels(kernels);
}

} // namespace ks::gui
