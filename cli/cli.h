#pragma once

#include <iosfwd>
#include <stop_token>
#include <string>
#include <vector>

namespace ks::cli {

/// Exit codes of kernelscope-cli.
enum ExitCode : int {
    kExitOk = 0, ///< every run passed or was skipped with a reason
    kExitRunProblems = 1, ///< a run was incorrect or failed (the table and files say which)
    kExitBadInput = 2, ///< bad arguments or an unreadable input: one line on stderr says why
    kExitCancelled = 130, ///< interrupted; what was measured is still written
};

/// The whole command line: `args` excludes the program name. Tables go to `out`, progress and errors to `err`.
int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::stop_token stop = {});

/// Parses "1000,2^20,1e6" and "2^16..2^20" (every power of two from the first to the last) into sizes.
std::vector<std::uint64_t> parseSizes(const std::string& text);

} // namespace ks::cli
