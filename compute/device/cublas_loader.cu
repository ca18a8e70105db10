#include "compute/device/cublas_loader.cuh"
#include "compute/device/cuda_check.cuh"
#include "compute/device/dynamic_library.h"

#include <mutex>

namespace ks::device {

namespace {
struct Loaded {
    CublasApi api;
    std::string reason;
};

const Loaded& load()
{
    static const Loaded loaded = [] {
        Loaded l;
        static DynamicLibrary library {"libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.13",
            "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13", "libcublas.so"};
        if (!library.loaded()) {
            l.reason = "cuBLAS 13 is not installed here (" + library.error() + ")";
            return l;
        }
        const bool ok = library.bind(l.api.create, "cublasCreate_v2") && library.bind(l.api.destroy, "cublasDestroy_v2")
            && library.bind(l.api.setStream, "cublasSetStream_v2")
            && library.bind(l.api.setMathMode, "cublasSetMathMode") && library.bind(l.api.sgemm, "cublasSgemm_v2")
            && library.bind(l.api.dgemm, "cublasDgemm_v2") && library.bind(l.api.dsyrk, "cublasDsyrk_v2")
            && library.bind(l.api.statusString, "cublasGetStatusString");
        if (!ok)
            l.reason = "the cuBLAS found here is unusable: " + library.error();
        return l;
    }();
    return loaded;
}
} // namespace

std::string cublasUnavailableReason()
{
    return load().reason;
}

const CublasApi& cublas()
{
    const Loaded& l = load();
    if (!l.reason.empty())
        throw ComputeError(l.reason);
    return l.api;
}

void throwOnCublasError(cublasStatus_t status, const char* expression, const char* file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    const char* text = load().api.statusString ? load().api.statusString(status) : "unknown cuBLAS status";
    throwLibraryError(std::string(text), expression, file, line);
}

CublasHandle::CublasHandle(cudaStream_t stream)
{
    const CublasApi& api = cublas();
    KS_CUBLAS_CHECK(api.create(&m_handle));
    KS_CUBLAS_CHECK(api.setStream(m_handle, stream));
}

CublasHandle::~CublasHandle()
{
    if (m_handle)
        cublas().destroy(m_handle);
}

} // namespace ks::device
