#pragma once

// NCCL through dlopen: the collectives the multi-device variants call, bound at first use. A machine without NCCL
// still runs every single-device variant; the multi-device ones say why they cannot run.

#include "compute/core/errors.h"
#include "compute/device/vendor_libraries.h"

#include <cuda_runtime.h>
#include <string>
#include <type_traits>
#include <vector>

#if __has_include(<nccl.h>)
#include <nccl.h>
#endif

struct ncclComm; // nccl.h's communicator, opaque

namespace ks::device {

// The few NCCL 2 types and values the variants use, declared here so the build needs no nccl.h (NVIDIA's CUDA
// packages ship the library and its header apart): NCCL's C ABI, stable across 2.x, where an enum is an int.
using NcclComm = ::ncclComm*; ///< nccl.h's ncclComm_t
using NcclResult = int;
inline constexpr NcclResult kNcclSuccess = 0;
inline constexpr int kNcclUint32 = 3;
inline constexpr int kNcclUint64 = 5;
inline constexpr int kNcclFloat64 = 8;
inline constexpr int kNcclSum = 0;
#ifdef NCCL_MAJOR
static_assert(kNcclSuccess == ncclSuccess && kNcclUint32 == ncclUint32 && kNcclUint64 == ncclUint64
    && kNcclFloat64 == ncclFloat64 && kNcclSum == ncclSum && std::is_same_v<NcclComm, ncclComm_t>);
#endif

struct NcclApi {
    NcclResult (*getVersion)(int*) = nullptr;
    NcclResult (*commInitAll)(NcclComm*, int, const int*) = nullptr;
    NcclResult (*commDestroy)(NcclComm) = nullptr;
    NcclResult (*allReduce)(const void*, void*, size_t, int dataType, int op, NcclComm, cudaStream_t) = nullptr;
    NcclResult (*allGather)(const void*, void*, size_t, int dataType, NcclComm, cudaStream_t) = nullptr;
    const char* (*errorString)(NcclResult) = nullptr;
};

/// The loaded API; throws ComputeError with the reason when NCCL cannot be loaded.
const NcclApi& nccl();

/// Throws ComputeError naming the expression and NCCL's message when `result` is not ncclSuccess.
void throwOnNcclError(NcclResult result, const char* expression, const char* file, int line);

/// One communicator per device of a single process (ncclCommInitAll), made once per run and destroyed with it.
/// Each rank's collectives are then called from the thread that drives that device.
class NcclComms {
public:
    explicit NcclComms(const std::vector<int>& devices);
    NcclComms(const NcclComms&) = delete;
    NcclComms& operator=(const NcclComms&) = delete;
    ~NcclComms();
    NcclComm operator[](int rank) const { return m_comms[static_cast<std::size_t>(rank)]; }

private:
    std::vector<NcclComm> m_comms;
};

} // namespace ks::device

#define KS_NCCL_CHECK(expr) ::ks::device::throwOnNcclError((expr), #expr, __FILE__, __LINE__)
