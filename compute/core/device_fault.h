#pragma once

// The words a user reads when the GPU itself fails a run: out of device memory (the run fails, the next one runs)
// and a broken CUDA context (every CUDA variant is unavailable until restart). Plain C++: the CLI, the GUI and the
// tests use them without CUDA.

#include <cstdint>
#include <string>

namespace ks {

/// "needs 93.10 GiB on the device, 79.20 GiB free of 79.60 GiB": an allocation's size against cudaMemGetInfo.
std::string deviceMemoryShortfall(std::uint64_t needed, std::uint64_t freeBytes, std::uint64_t totalBytes);

/// The one report of a sticky CUDA error: "the CUDA context is broken (an illegal memory access was encountered)
/// after spmv/faulty at 4096: CUDA variants are unavailable until restart". `cause` is CUDA's words for the error;
/// `place` names the run ("spmv/faulty at 4096").
std::string brokenContextReport(const std::string& cause, const std::string& place);

/// "spmv/faulty at 4096": the workload, the variant and the size of a run, for brokenContextReport.
std::string runPlace(const std::string& workload, const std::string& variant, std::uint64_t size);

} // namespace ks
