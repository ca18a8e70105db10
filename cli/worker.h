#pragma once

// Bring your own kernel, isolated: each user variant's run happens in a worker process (`kernelscope-cli worker`),
// so a faulty kernel (an illegal address leaves the CUDA context unusable; an infinite loop never returns) ends only
// that process. The parent sends one request as JSON on the worker's stdin; the worker answers with JSON lines on
// stdout: {"sample": …} per repetition, {"prepared": true} when the kernel is compiled and its inputs are on the
// device, and {"summary": …} last.

#include "compute/core/observer.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace ks::cli {

/// Where a run's data comes from, as the command line gives it (the GUI states its file or generator the same way),
/// so a worker builds the same dataset with the same code.
struct DataOrigin {
    std::string input; ///< a dataset file, or empty for generated data
    std::string h5Path;
    std::string vector;
    std::string generate; ///< generator parameters, key=value,...
    bool allowNonFinite = false;
    std::vector<std::string> params; ///< --param arguments as given (key=value)
    bool noCalibrate = false;
    std::vector<std::string> nvrtcOptions;
    /// The parent's --memory-limit in bytes (0: none): the worker builds the dataset under the same budget.
    std::uint64_t memoryLimit = 0;
};

/// What a worker needs to redo the parent's run of one user variant at one size: the dataset's origin, the run's
/// options, and the kernel.
struct WorkerRequest : DataOrigin {
    std::string workload;
    std::uint64_t size = 0; ///< the one size this run uses (a prefix of a loaded file, or the generator's size)
    RunOptions options;
    std::string kernel; ///< the .cu file
    std::string runId;
};

nlohmann::ordered_json toJson(const WorkerRequest& request);
/// Throws nlohmann::json::exception for a malformed request.
WorkerRequest workerRequestFromJson(const nlohmann::ordered_json& json);

/// A Sample as one line of the worker's output, and back.
nlohmann::ordered_json toJson(const Sample& sample);
Sample sampleFromJson(const nlohmann::ordered_json& json);

/// How a supervised process ended.
struct ProcessEnd {
    enum class Kind {
        Exited, ///< it exited by itself; exitCode says how
        Signalled, ///< a signal ended it (SIGSEGV, SIGABRT, …); signal says which
        Watchdog, ///< it ran past its time limit and was killed
        Cancelled, ///< the stop token was set and it was killed
        SpawnFailed, ///< it never started; stderr says why
    };
    Kind kind = Kind::Exited;
    int exitCode = 0;
    int signal = 0;
    double watchdogS = 0.0; ///< the limit it ran past (Watchdog)
    std::string stderrText; ///< what it wrote on stderr (the first 64 KiB)

    /// The last non-empty line of stderr, else a sentence on how it ended ("killed by signal SIGSEGV").
    std::string reason() const;
};

/// Runs a command with a text on its stdin, hands each line of its stdout to a callback as it arrives, keeps its
/// stderr, and kills it (SIGKILL) when it outlives the watchdog or the stop token is set. The callback may restart
/// the watchdog with a new limit (restartWatchdog), so a phase that is allowed to take long (compiling) and one that
/// is not (the timed run) get their own limits.
class SupervisedProcess {
public:
    using LineHandler = std::function<void(const std::string& line)>;

    SupervisedProcess(std::vector<std::string> argv, double watchdogS);
    /// Starts the process, writes `input` to its stdin and closes it, then reads until it ends.
    ProcessEnd run(const std::string& input, const LineHandler& onLine, std::stop_token stop = {});
    /// From now, the process may run `seconds` more before it is killed.
    void restartWatchdog(double seconds);
    /// The process gets this process's `fd` as its descriptor `childFd` (3 and up), open across exec: a file to
    /// write what does not fit a line (the reader worker's dataset). Call before run.
    void inheritFd(int fd, int childFd);

private:
    std::vector<std::string> m_argv;
    std::vector<std::pair<int, int>> m_inherited; ///< (this process's fd, the child's)
    double m_watchdogS;
    double m_deadline = 0.0; ///< on the steady clock, in seconds
};

/// The limits a user variant's worker runs under: kSetupLimitS for building the dataset, the reference and
/// compiling the kernel; then, from the moment the kernel is prepared, twice the run's time limit plus kRunMarginS
/// (the runner stops repeating at the time limit, but one repetition that never returns is never stopped).
inline constexpr double kSetupLimitS = 600.0;
inline constexpr double kRunMarginS = 10.0;
struct WorkerLimits {
    double setupS = kSetupLimitS;
    double runMarginS = kRunMarginS;
    /// The limit from the kernel's prepare on.
    double runS(const RunOptions& options) const { return 2.0 * options.timeLimitS + runMarginS; }
};

/// The parent's side: runs `request` in a worker (`workerArgv` + the request on stdin), forwards each Sample to the
/// observer as it arrives and returns the worker's Summary. A worker that dies without one (a signal, an exit code,
/// the watchdog, cancellation) gives a Failed (or Cancelled) Summary named from `base` (the run's identity: run id,
/// workload, variant, size) whose message says what happened. The Summary is not reported to the observer.
Summary runInWorker(const std::vector<std::string>& workerArgv, const WorkerRequest& request, const Summary& base,
    RunObserver& observer, std::stop_token stop = {}, const WorkerLimits& limits = {});

/// One entry of a run's order: a built-in variant, or a user kernel's variant with its file.
struct RunEntry {
    const Variant* variant = nullptr;
    std::string kernel; ///< the user's .cu file; empty for a built-in variant
    std::vector<std::string> nvrtcOptions; ///< this kernel's own options, after the origin's
};

/// runSweep with user variants beside the built-in ones: per size, the dataset and reference once, then each entry
/// in order; a user variant that can run here runs in a worker process (runInWorker), one that cannot is skipped
/// with its reason by the runner, as a built-in one is. `origin` is the plan's data as the worker rebuilds it.
std::vector<Summary> runSweepWithUserKernels(const SweepPlan& plan, const std::vector<RunEntry>& entries,
    const DataOrigin& origin, const Runner& runner, RunObserver& observer, std::stop_token stop = {});

/// The worker's argv: this executable (/proc/self/exe) and `worker`, unless setWorkerArgv chose another (a test
/// binary that drives the CLI in-process is not kernelscope-cli).
std::vector<std::string> workerArgv();
void setWorkerArgv(std::vector<std::string> argv);

} // namespace ks::cli
