#include "gui/run_controller.h"

#include "cli/reader_worker.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "data/dataset_error.h"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>
#include <stdexcept>

namespace ks::gui {

void registerMetaTypes()
{
    qRegisterMetaType<ks::Sample>();
    qRegisterMetaType<QList<ks::Sample>>();
    qRegisterMetaType<ks::Summary>();
    qRegisterMetaType<std::vector<ks::Summary>>();
    qRegisterMetaType<ks::SweepProgress>();
    qRegisterMetaType<ks::data::Dataset>();
    qRegisterMetaType<std::vector<ks::Decision>>();
}

namespace {
/// Turns engine callbacks (on the compute thread) into the worker's signals. Samples are batched: flushed
/// every kSampleBatchMs and before anything else is reported, so their order with summaries is kept.
class SignalObserver final : public RunObserver {
public:
    explicit SignalObserver(ComputeWorker& worker)
        : m_worker(worker)
    {
        m_sinceFlush.start();
    }
    ~SignalObserver() override { flush(); }
    void onProgress(const SweepProgress& p) override
    {
        flush();
        Q_EMIT m_worker.progress(p);
    }
    void onSample(const Sample& s) override
    {
        m_pending.append(s);
        if (m_sinceFlush.elapsed() >= ComputeWorker::kSampleBatchMs)
            flush();
    }
    void onSummary(const Summary& s) override
    {
        flush();
        Q_EMIT m_worker.summaryReady(s);
    }
    void onStatus(const std::string& s) override
    {
        flush();
        Q_EMIT m_worker.status(QString::fromStdString(s));
    }
    void onDataset(const data::Dataset& d) override
    {
        flush();
        Q_EMIT m_worker.datasetReady(d);
    }
    void flush()
    {
        if (!m_pending.isEmpty()) {
            Q_EMIT m_worker.samplesReady(m_pending);
            m_pending.clear();
        }
        m_sinceFlush.restart();
    }

private:
    ComputeWorker& m_worker;
    QList<Sample> m_pending;
    QElapsedTimer m_sinceFlush;
};
} // namespace

ComputeWorker::ComputeWorker(QObject* parent)
    : QObject(parent)
{
}

void ComputeWorker::runSweep(const ks::SweepPlan& plan, const ks::gui::UserKernelRun& user, std::stop_token stop)
{
    SignalObserver observer(*this);
    Runner runner;
    if (!m_calibrate)
        runner.setCeilingsProvider({});
    QString error;
    std::vector<Summary> summaries;
    try {
        summaries = user.empty() ? ks::runSweep(plan, runner, observer, stop)
                                 : runSweepWithUserKernels(plan, user, runner, observer, stop);
    } catch (const std::exception& e) {
        // Only an invalid request gets here (runs report their own failures); nothing has been measured.
        error = QString::fromStdString(e.what());
    }
    observer.flush();
    Q_EMIT sweepFinished(summaries, stop.stop_requested(), error);
}

void ComputeWorker::runDecision(const ks::SweepPlan& plan, const ks::DecideOptions& options, std::stop_token stop)
{
    SignalObserver observer(*this);
    Runner runner;
    if (!m_calibrate)
        runner.setCeilingsProvider({});
    QString error;
    DecideOutcome outcome;
    try {
        outcome = ks::decideSweep(plan, options, runner, observer, stop);
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
    }
    observer.flush();
    Q_EMIT decisionsReady(outcome.decisions);
    Q_EMIT sweepFinished(outcome.summaries, stop.stop_requested(), error);
}

RunController::RunController(QObject* parent)
    : QObject(parent)
{
    registerMetaTypes();
    m_thread.setObjectName(QStringLiteral("kernelscope-compute"));
    m_worker = new ComputeWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &ComputeWorker::samplesReady, this, &RunController::samplesReady);
    connect(m_worker, &ComputeWorker::summaryReady, this, &RunController::summaryReady);
    connect(m_worker, &ComputeWorker::progress, this, &RunController::progress);
    connect(m_worker, &ComputeWorker::status, this, &RunController::status);
    connect(m_worker, &ComputeWorker::datasetReady, this, &RunController::datasetReady);
    connect(m_worker, &ComputeWorker::decisionsReady, this, &RunController::decisionsReady);
    connect(m_worker, &ComputeWorker::sweepFinished, this,
        [this](const std::vector<ks::Summary>& summaries, bool cancelled, const QString& error) {
            m_running = false;
            Q_EMIT runningChanged(false);
            Q_EMIT finished(summaries, cancelled, error);
        });
    m_thread.start();
}

RunController::~RunController()
{
    m_stop.request_stop();
    m_loadStop.request_stop();
    m_thread.quit();
    m_thread.wait();
}

void RunController::setCalibrationEnabled(bool enabled)
{
    m_calibrate = enabled;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, enabled] { worker->setCalibrationEnabled(enabled); },
        Qt::BlockingQueuedConnection);
}

template <class Work> void RunController::post(Work work)
{
    m_stop = std::stop_source();
    m_running = true;
    Q_EMIT runningChanged(true);
    QMetaObject::invokeMethod(
        m_worker, [work = std::move(work), token = m_stop.get_token()] { work(token); }, Qt::QueuedConnection);
}

void RunController::start(const SweepRequest& request, const UserKernelRun& user)
{
    if (m_running)
        throw std::logic_error("a sweep is already running");
    SweepRequest builtIn = request;
    if (!user.empty()) {
        builtIn.variantIds.clear();
        for (const std::string& id : user.order)
            if (!user.files.contains(id))
                builtIn.variantIds.push_back(id);
    }
    SweepPlan plan = planSweep(builtIn); // parsed once, here, so an invalid request never reaches the worker
    // Only user kernels checked: the plan's empty list would mean every built-in variant.
    if (!user.empty() && builtIn.variantIds.empty())
        plan.variants.clear();
    post([worker = m_worker, plan = std::move(plan), user](
             std::stop_token token) { worker->runSweep(plan, user, token); });
}

void RunController::startDecision(const SweepRequest& request, const DecideOptions& options)
{
    if (m_running)
        throw std::logic_error("a sweep is already running");
    SweepPlan plan = planSweep(request);
    if (plan.variants.size() < 2)
        throw ParameterError("a decision needs at least two variants (the first is A)");
    post([worker = m_worker, plan = std::move(plan), options](
             std::stop_token token) { worker->runDecision(plan, options, token); });
}

void RunController::cancel()
{
    if (m_running)
        m_stop.request_stop();
}

quint64 RunController::loadDataset(const QString& workloadId, const QString& path, const data::ReadOptions& options)
{
    const quint64 ticket = ++m_ticket;
    QPointer<RunController> self(this);
    const std::string workload = workloadId.toStdString();
    const std::string file = path.toStdString();
    // A newer load supersedes the one in flight: its reader worker is killed rather than left to finish.
    m_loadStop.request_stop();
    m_loadStop = std::stop_source();
    m_loading = true;
    QThreadPool::globalInstance()->start([self, ticket, workload, options, file, stop = m_loadStop.get_token()] {
        QString failure;
        bool cancelled = false;
        data::Dataset dataset;
        try {
            // In a reader worker (cli/reader_worker.h): a reader that crashes on the file ends that process only.
            dataset = cli::loadInWorker({workload, file, options, 0}, stop);
        } catch (const cli::LoadCancelled&) {
            cancelled = true;
        } catch (const std::bad_alloc&) {
            failure = QStringLiteral("%1: out of memory while reading").arg(QString::fromStdString(file));
        } catch (const std::exception& e) {
            failure = QString::fromStdString(e.what());
        }
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, ticket, dataset, failure, cancelled] {
                if (!self || ticket != self->m_ticket)
                    return; // a newer load superseded this one
                self->m_loading = false;
                if (cancelled)
                    Q_EMIT self->datasetLoadCancelled(ticket);
                else if (failure.isEmpty())
                    Q_EMIT self->datasetLoaded(ticket, dataset);
                else
                    Q_EMIT self->datasetFailed(ticket, failure);
            },
            Qt::QueuedConnection);
    });
    return ticket;
}

bool RunController::cancelLoad()
{
    if (!m_loading)
        return false;
    m_loadStop.request_stop();
    return true;
}

} // namespace ks::gui
