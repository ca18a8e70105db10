#pragma once

#include "compute/core/decide.h"
#include "compute/core/sweep.h"
#include "data/read_options.h"
#include "gui/metatypes.h"
#include "gui/user_kernels.h"

#include <QObject>
#include <QString>
#include <QThread>
#include <memory>
#include <stop_token>
#include <vector>

Q_DECLARE_METATYPE(std::vector<ks::Decision>)

namespace ks::gui {

/// Lives on the compute thread and runs sweeps there; everything it reports leaves as a signal carrying a value.
class ComputeWorker : public QObject {
    Q_OBJECT
public:
    explicit ComputeWorker(QObject* parent = nullptr);
    /// Whether runs measure (or read from the cache) the device's ceilings for "% of peak".
    void setCalibrationEnabled(bool enabled) { m_calibrate = enabled; }

public Q_SLOTS:
    /// Runs the sweep to its end or until `stop` is requested; user kernels (when `user` names any) each in a
    /// worker process. Never throws.
    void runSweep(const ks::SweepPlan& plan, const ks::gui::UserKernelRun& user, std::stop_token stop);
    /// Runs the plan's variants interleaved until each has a verdict against the first (ks::decideSweep), then
    /// reports decisionsReady before sweepFinished. Never throws.
    void runDecision(const ks::SweepPlan& plan, const ks::DecideOptions& options, std::stop_token stop);

Q_SIGNALS:
    /// Repetitions in arrival order, batched (at most every kSampleBatchMs) so a variant that repeats thousands of
    /// times a second cannot flood the GUI thread with events.
    void samplesReady(const QList<ks::Sample>& samples);
    void summaryReady(const ks::Summary& summary);
    void progress(const ks::SweepProgress& progress);
    void status(const QString& message);
    void datasetReady(const ks::data::Dataset& dataset);
    /// The sweep ended, with every Summary it measured in run order (the ones summaryReady reported): cancelled,
    /// or with an error that stopped it before any run (empty when none).
    void sweepFinished(const std::vector<ks::Summary>& summaries, bool cancelled, const QString& error);
    /// A decision's verdicts, one per pair (also when cancelled: those pairs are undecided).
    void decisionsReady(const std::vector<ks::Decision>& decisions);

public:
    static constexpr int kSampleBatchMs = 20;

private:
    bool m_calibrate = true;
};

/// Owns the compute thread and its worker. The GUI thread only ever posts work and receives queued signals, so it
/// never waits on compute; cancelling stops a CPU repetition within milliseconds (a GPU one at its end) and keeps what
/// was measured. Dataset loads run on the global thread pool, so a file can be opened while a sweep runs.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    /// Cancels a running sweep and waits for the compute thread to end.
    ~RunController() override;

    bool isRunning() const { return m_running; }
    void setCalibrationEnabled(bool enabled);
    bool calibrationEnabled() const { return m_calibrate; }

    /// Starts a sweep. Throws ks::ParameterError (without starting) when the request is invalid, and
    /// std::logic_error when a sweep is already running. With user kernels, `user.order` is the run order (the
    /// request's variant ids are ignored) and each user kernel runs in a worker process.
    void start(const SweepRequest& request, const UserKernelRun& user = {});
    /// Starts an A/B decision between the request's variants (the first is A): like start(), and decisionsReady
    /// comes before finished. Throws ks::ParameterError for fewer than two variants.
    void startDecision(const SweepRequest& request, const DecideOptions& options);
    /// Asks the running sweep to stop: a CPU repetition or reference is abandoned within milliseconds, a GPU repetition
    /// finishes first.
    void cancel();
    /// Loads a file for a workload on a pool thread; the answer comes as datasetLoaded or datasetFailed with the
    /// returned ticket (a later load makes earlier tickets stale).
    quint64 loadDataset(const QString& workloadId, const QString& path, const data::ReadOptions& options);
    /// Ends the load in flight (its reader worker is killed); it answers datasetLoadCancelled. False when no load
    /// is in flight.
    bool cancelLoad();
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void samplesReady(const QList<ks::Sample>& samples);
    void summaryReady(const ks::Summary& summary);
    void progress(const ks::SweepProgress& progress);
    void status(const QString& message);
    void datasetReady(const ks::data::Dataset& dataset);
    /// The sweep ended: ComputeWorker::sweepFinished, after isRunning() turned false.
    void finished(const std::vector<ks::Summary>& summaries, bool cancelled, const QString& error);
    /// ComputeWorker::decisionsReady.
    void decisionsReady(const std::vector<ks::Decision>& decisions);
    void runningChanged(bool running);
    void datasetLoaded(quint64 ticket, const ks::data::Dataset& dataset);
    void datasetFailed(quint64 ticket, const QString& message);
    /// The load was cancelled (cancelLoad): not a failure of the file, which was not read.
    void datasetLoadCancelled(quint64 ticket);

private:
    /// Marks the controller running and posts `work` (which gets the stop token) to the worker.
    template <class Work> void post(Work work);

    QThread m_thread;
    ComputeWorker* m_worker = nullptr;
    std::stop_source m_stop;
    bool m_running = false;
    bool m_calibrate = true;
    quint64 m_ticket = 0;
    std::stop_source m_loadStop; ///< the load in flight's: a newer load or cancelLoad ends it
    bool m_loading = false;
};

} // namespace ks::gui
