#pragma once

#include <iosfwd>
#include <stop_token>
#include <string>
#include <vector>

namespace ks {
class ClockSampler;
}

namespace ks::cli {

/// Exit codes of kernelscope-cli.
enum ExitCode : int {
    kExitOk = 0, ///< every run passed or was skipped with a reason
    kExitRunProblems = 1, ///< a run was incorrect or failed (the table and files say which)
    kExitBadInput = 2, ///< bad arguments or an unreadable input: one line on stderr says why
    kExitSlower = 3, ///< compare: a row got slower beyond --threshold
    kExitUndecided = 4, ///< run --decide: a pair reached no verdict before the limit (the line says why)
    kExitOutputFailed = 5, ///< run: an output file could not be written (a line says which; it keeps its old content)
    /// run: a variant broke the CUDA context (a sticky error: illegal address, launch failure); one line says which,
    /// the later CUDA variants were skipped, and everything measured is written
    kExitCudaBroken = 6,
    kExitCancelled = 130, ///< interrupted; what was measured is still written
};

/// The whole command line: `args` excludes the program name. Tables go to `out`, progress and errors to `err`.
int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::stop_token stop = {});

/// info's lines on a device's clocks as `sampler` reads them now: the host's mean core frequency, or a GPU's SM and
/// memory clocks, temperature, power and active throttle reasons; the sampler's reason when it has no reading.
void printClocks(std::ostream& out, ClockSampler& sampler, bool gpu);

} // namespace ks::cli
