#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace ks {

/// A failing CUDA or library call, or a run that cannot go on. `sticky()` is true when the CUDA context is
/// unusable afterwards (illegal address, launch failure): CUDA variants are then unavailable until restart.
/// `cause` is CUDA's own words for the error ("an illegal memory access was encountered"), for the one-line report
/// of a broken context; empty when the message says it all.
class ComputeError : public std::runtime_error {
public:
    explicit ComputeError(const std::string& message, bool sticky = false, std::string cause = {})
        : std::runtime_error(message)
        , m_sticky(sticky)
        , m_cause(std::move(cause))
    {
    }
    bool sticky() const { return m_sticky; }
    const std::string& cause() const { return m_cause; }

private:
    bool m_sticky;
    std::string m_cause;
};

/// A device allocation that cannot be had (cudaMalloc's cudaErrorMemoryAllocation, or a check of free memory before
/// allocating). Never sticky: the run fails with the figures and the next one runs.
class DeviceOutOfMemory : public ComputeError {
public:
    explicit DeviceOutOfMemory(const std::string& message)
        : ComputeError(message, false)
    {
    }
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
