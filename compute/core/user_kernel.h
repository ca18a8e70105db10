#pragma once

// A user's own kernel for a workload ("bring your own kernel"): the ABI each workload offers (the argument struct its
// entry points take, the names a launch formula may use, a template that passes), the launch declaration the user's
// file carries in `// kernelscope:` comment lines, and the small integer formulas that size its launches.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

/// A problem in a user's kernel file, named "file:line: message" (line 0: the file as a whole).
class UserKernelError : public std::runtime_error {
public:
    UserKernelError(const std::string& file, int line, const std::string& message);
    const std::string& file() const { return m_file; }
    int line() const { return m_line; }
    /// The message without the "file:line: " prefix.
    const std::string& message() const { return m_message; }

private:
    std::string m_file;
    int m_line;
    std::string m_message;
};

/// An integer formula over named sizes: decimal integers, names, + - * / with parentheses, and ceil, floor, min, max.
/// Division is exact (the formula is evaluated in rationals), so ceil(n/256) is the launch-size idiom; the value of
/// the whole formula must be an integer.
class SizeFormula {
public:
    struct Node;
    /// Throws std::invalid_argument naming what is wrong (an unknown name lists the known ones).
    static SizeFormula parse(const std::string& text, const std::vector<std::string>& names);
    /// Throws std::invalid_argument on a division by zero, an overflow of 64 bits or a value that is not an integer.
    std::int64_t evaluate(const std::map<std::string, std::int64_t>& values) const;
    const std::string& text() const { return m_text; }

private:
    std::string m_text;
    std::shared_ptr<const Node> m_root;
};

/// One launch of the declaration: `kernel=NAME block=F grid=F [shared=F]` (shared: dynamic shared memory in bytes).
struct LaunchStep {
    std::string kernel;
    SizeFormula block;
    SizeFormula grid;
    SizeFormula shared;
    int line = 0; ///< where it is declared in the user's file
};

/// Every `// kernelscope:` line of a user's file: the launches in order and the scratch buffer's size in bytes.
struct LaunchDeclaration {
    std::vector<LaunchStep> steps;
    SizeFormula scratch; ///< "0" when the file declares none
    int scratchLine = 0;
};

/// A launch with its sizes evaluated for one problem.
struct Launch {
    std::string kernel;
    unsigned grid = 0; ///< 0: skipped (an empty problem)
    unsigned block = 0;
    unsigned shared = 0;
};

/// The launches and scratch bytes of one problem.
struct LaunchPlan {
    std::vector<Launch> launches;
    std::uint64_t scratchBytes = 0;
};

/// The name every formula may use besides the workload's sizes.
inline constexpr const char* kSmCountName = "sm_count";

/// Parses the `// kernelscope:` lines of `source`; formulas may use `names` and sm_count. Throws UserKernelError
/// naming `fileName` and the line.
LaunchDeclaration parseLaunchDeclaration(
    const std::string& source, const std::string& fileName, const std::vector<std::string>& names);

/// Evaluates every formula for one problem (`values`: the workload's sizes and sm_count). Throws UserKernelError
/// when a value is out of range (block 1…1024, grid 0…2^31 − 1, shared memory and scratch non-negative).
LaunchPlan evaluateLaunches(const LaunchDeclaration& declaration, const std::map<std::string, std::int64_t>& values,
    const std::string& fileName);

/// A workload's user-kernel ABI.
struct UserKernelAbi {
    std::string workload;
    std::string argsType; ///< the struct every entry point takes by value, e.g. "ks_linreg_args"
    std::string header; ///< device declarations prepended to the user's file
    std::string templateSource; ///< a correct, simple kernel for the workload
    std::vector<std::string> sizeNames; ///< the sizes a launch formula may use besides sm_count
    std::size_t argsBytes = 0; ///< sizeof the host mirror of argsType (checked in every compiled program)
};

/// The ABI of `workload`, or nullptr when it has none.
const UserKernelAbi* findUserKernelAbi(std::string_view workload);
/// Workload ids with an ABI, sorted.
std::vector<std::string> userKernelWorkloads();

/// The program NVRTC compiles: the ABI header (as "kernelscope_<workload>_abi.h"), a static assertion that the device
/// struct has the host mirror's size, then `#line 1 "<fileName>"` and the user's source, so every message names the
/// user's file and line.
std::string userKernelProgram(const UserKernelAbi& abi, const std::string& userSource, const std::string& fileName);

} // namespace ks
