#pragma once

#include <stdexcept>
#include <string>

namespace ks {

/// A failing CUDA or library call, or a run that cannot go on. `sticky()` is true when the CUDA context is
/// unusable afterwards (illegal address, launch failure): CUDA variants are then unavailable until restart.
class ComputeError : public std::runtime_error {
public:
    explicit ComputeError(const std::string& message, bool sticky = false)
        : std::runtime_error(message)
        , m_sticky(sticky)
    {
    }
    bool sticky() const { return m_sticky; }

private:
    bool m_sticky;
};

/// Thrown by a variant's prepare when this combination of dataset and parameters cannot run; the run is
/// reported as skipped with the message as its reason.
class SkipRun : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A parameter the user gave that the workload's axes do not accept.
class ParameterError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

} // namespace ks
