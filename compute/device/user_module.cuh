#pragma once

// A user's compiled kernel on the device: the cubin loaded as a CUDA library (unloaded with its owner), one handle
// per declared entry point, the launch plan evaluated for one problem and the scratch buffer it declares. Every
// workload's user run holds one and enqueues it with its argument struct.

#include "compute/core/user_variant.h"
#include "compute/device/device_buffer.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ks::device {

/// A cubin loaded with cudaLibraryLoadData and unloaded on destruction.
class LoadedLibrary {
public:
    /// Throws ComputeError naming `label` when the driver rejects the code.
    LoadedLibrary(const std::string& code, const std::string& label);
    LoadedLibrary(const LoadedLibrary&) = delete;
    LoadedLibrary& operator=(const LoadedLibrary&) = delete;
    ~LoadedLibrary();

    /// The entry point `name`, or null when the code has none of that name.
    cudaKernel_t find(const std::string& name) const;

private:
    cudaLibrary_t m_library = nullptr;
};

/// The launches of one user kernel for one problem, on the current device.
class UserLaunches {
public:
    /// `sizes`: the workload's size names and values (sm_count is added). Evaluates the declaration, checks each
    /// launch's dynamic shared memory against the device's opt-in limit (raising the kernel's limit above the
    /// default 48 KB), loads the code and allocates the scratch buffer. Throws ComputeError with the user's
    /// file:line for a launch the device cannot take.
    UserLaunches(const UserKernelBuild& build, std::map<std::string, std::int64_t> sizes);

    /// Null when the file declares no scratch.
    void* scratch() { return m_scratch.size() ? m_scratch.data() : nullptr; }
    std::uint64_t scratchBytes() const { return m_scratch.size(); }

    /// Zeroes the scratch, then launches every step whose grid is not empty with `args` (the workload's argument
    /// struct) as the kernels' one parameter; checks each launch.
    void enqueue(void* args, cudaStream_t stream);

private:
    std::string m_label;
    LaunchPlan m_plan;
    LoadedLibrary m_library;
    std::vector<cudaKernel_t> m_kernels; ///< one per launch of m_plan
    DeviceBuffer<unsigned char> m_scratch;
};

} // namespace ks::device
