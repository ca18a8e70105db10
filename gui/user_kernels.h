#pragma once

// Bring your own kernel, the app's side: a user's .cu files beside the built-in variants. A user variant runs in a
// worker process (cli/worker.h), as the CLI's do; this says how the app states a run's data to that worker and
// checks a file with the CLI's compiler front end.

#include "cli/worker.h"
#include "compute/core/sweep.h"

#include <QString>
#include <QStringList>
#include <map>
#include <string>
#include <vector>

namespace ks::gui {

/// The user variants of a sweep: which checked ids are user kernels, their files, and the data's origin the
/// workers rebuild the dataset from.
struct UserKernelRun {
    std::vector<std::string> order; ///< every checked variant id in run order (built-in and user:…)
    std::map<std::string, std::string> files; ///< user variant id → its .cu file
    std::map<std::string, std::vector<std::string>> nvrtcOptions; ///< user variant id → its own NVRTC options
    cli::DataOrigin origin;

    bool empty() const { return files.empty(); }
};

/// "user:<stem>" for a kernel file (the CLI's naming).
QString userKernelId(const QString& path);
/// Whether a variant id names a user kernel.
bool isUserKernelId(const QString& id);
/// Why the kernel cannot run here (no GPU, no NVRTC, no ABI for the workload); empty when it can.
QString userKernelUnavailableReason(const QString& workload, const QString& path);

/// A run's parameters as key=value arguments, as --param takes them.
std::vector<std::string> paramArguments(const std::map<std::string, std::string>& params);

/// What `kernelscope-cli compile` says about a file: compiled (to PTX for this machine's GPU, or sm_90 without
/// one), or the problems, one "file:line: …" per line. Needs NVRTC, no GPU.
struct CompileCheck {
    bool ok = false;
    QString summary; ///< when it compiled: "my.cu: compiled for sm_90 with NVRTC …" and the launches
    QString messages; ///< the compiler's errors and warnings, one "file:line: …" per line
};
/// Blocking: call it off the GUI thread.
CompileCheck checkUserKernel(const QString& workload, const QString& path, const QStringList& nvrtcOptions = {});

/// The built-in variants and user kernels of a sweep, run in `run.order`: built-in ones in this process, user ones
/// in workers. Throws ParameterError for an invalid plan.
std::vector<Summary> runSweepWithUserKernels(
    const SweepPlan& plan, const UserKernelRun& run, const Runner& runner, RunObserver& observer, std::stop_token stop);

} // namespace ks::gui
