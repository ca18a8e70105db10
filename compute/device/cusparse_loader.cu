#include "compute/device/cuda_check.cuh"
#include "compute/device/cusparse_loader.cuh"
#include "compute/device/dynamic_library.h"

namespace ks::device {

namespace {
struct Loaded {
    CusparseApi api;
    std::string reason;
};

const Loaded& load()
{
    static const Loaded loaded = [] {
        Loaded l;
        static DynamicLibrary library {"libcusparse.so.12", "/usr/local/cuda/lib64/libcusparse.so.12",
            "/usr/local/cuda/targets/x86_64-linux/lib/libcusparse.so.12", "libcusparse.so"};
        if (!library.loaded()) {
            l.reason = "cuSPARSE 12 is not installed here (" + library.error() + ")";
            return l;
        }
        auto& a = l.api;
        const bool ok = library.bind(a.create, "cusparseCreate") && library.bind(a.destroy, "cusparseDestroy")
            && library.bind(a.setStream, "cusparseSetStream") && library.bind(a.getProperty, "cusparseGetProperty")
            && library.bind(a.createCsr, "cusparseCreateCsr") && library.bind(a.destroySpMat, "cusparseDestroySpMat")
            && library.bind(a.createDnVec, "cusparseCreateDnVec")
            && library.bind(a.destroyDnVec, "cusparseDestroyDnVec")
            && library.bind(a.spmvBufferSize, "cusparseSpMV_bufferSize") && library.bind(a.spmv, "cusparseSpMV")
            && library.bind(a.errorString, "cusparseGetErrorString");
        if (!ok) {
            l.reason = "the cuSPARSE found here is unusable: " + library.error();
            return l;
        }
        // Present from cuSPARSE 12.4 on; without it SpMV does its analysis on the first call instead.
        library.bind(a.spmvPreprocess, "cusparseSpMV_preprocess");
        return l;
    }();
    return loaded;
}
} // namespace

std::string cusparseUnavailableReason()
{
    return load().reason;
}

const CusparseApi& cusparse()
{
    const Loaded& l = load();
    if (!l.reason.empty())
        throw ComputeError(l.reason);
    return l.api;
}

std::string cusparseVersion()
{
    const CusparseApi& api = cusparse();
    int major = 0, minor = 0, patch = 0;
    api.getProperty(MAJOR_VERSION, &major);
    api.getProperty(MINOR_VERSION, &minor);
    api.getProperty(PATCH_LEVEL, &patch);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

void throwOnCusparseError(cusparseStatus_t status, const char* expression, const char* file, int line)
{
    if (status == CUSPARSE_STATUS_SUCCESS)
        return;
    const char* text = load().api.errorString ? load().api.errorString(status) : "unknown cuSPARSE status";
    throwLibraryError(std::string(text), expression, file, line);
}

CusparseHandle::CusparseHandle(cudaStream_t stream)
{
    const CusparseApi& api = cusparse();
    KS_CUSPARSE_CHECK(api.create(&m_handle));
    KS_CUSPARSE_CHECK(api.setStream(m_handle, stream));
}

CusparseHandle::~CusparseHandle()
{
    if (m_handle)
        cusparse().destroy(m_handle);
}

} // namespace ks::device
