#pragma once

// cuSPARSE through dlopen: the generic SpMV API KernelScope's library variants call, bound at first use.

#include "compute/core/errors.h"
#include "compute/device/vendor_libraries.h"

#include <cuda_runtime.h>
#include <cusparse.h>

namespace ks::device {

struct CusparseApi {
    cusparseStatus_t (*create)(cusparseHandle_t*) = nullptr;
    cusparseStatus_t (*destroy)(cusparseHandle_t) = nullptr;
    cusparseStatus_t (*setStream)(cusparseHandle_t, cudaStream_t) = nullptr;
    cusparseStatus_t (*getProperty)(libraryPropertyType, int*) = nullptr;
    cusparseStatus_t (*createCsr)(cusparseSpMatDescr_t*, int64_t, int64_t, int64_t, void*, void*, void*,
        cusparseIndexType_t, cusparseIndexType_t, cusparseIndexBase_t, cudaDataType)
        = nullptr;
    cusparseStatus_t (*destroySpMat)(cusparseConstSpMatDescr_t) = nullptr;
    cusparseStatus_t (*createDnVec)(cusparseDnVecDescr_t*, int64_t, void*, cudaDataType) = nullptr;
    cusparseStatus_t (*destroyDnVec)(cusparseConstDnVecDescr_t) = nullptr;
    cusparseStatus_t (*spmvBufferSize)(cusparseHandle_t, cusparseOperation_t, const void*, cusparseConstSpMatDescr_t,
        cusparseConstDnVecDescr_t, const void*, cusparseDnVecDescr_t, cudaDataType, cusparseSpMVAlg_t, size_t*)
        = nullptr;
    cusparseStatus_t (*spmvPreprocess)(cusparseHandle_t, cusparseOperation_t, const void*, cusparseConstSpMatDescr_t,
        cusparseConstDnVecDescr_t, const void*, cusparseDnVecDescr_t, cudaDataType, cusparseSpMVAlg_t, void*)
        = nullptr;
    cusparseStatus_t (*spmv)(cusparseHandle_t, cusparseOperation_t, const void*, cusparseConstSpMatDescr_t,
        cusparseConstDnVecDescr_t, const void*, cusparseDnVecDescr_t, cudaDataType, cusparseSpMVAlg_t, void*)
        = nullptr;
    const char* (*errorString)(cusparseStatus_t) = nullptr;
};

/// The loaded API; throws ComputeError with the reason when cuSPARSE cannot be loaded.
const CusparseApi& cusparse();

/// "12.6.3": the loaded library's version.
std::string cusparseVersion();

/// Throws ComputeError naming the expression and cuSPARSE's status when `status` is not CUSPARSE_STATUS_SUCCESS.
void throwOnCusparseError(cusparseStatus_t status, const char* expression, const char* file, int line);

/// A cuSPARSE handle bound to a stream, owned RAII-style.
class CusparseHandle {
public:
    explicit CusparseHandle(cudaStream_t stream);
    CusparseHandle(const CusparseHandle&) = delete;
    CusparseHandle& operator=(const CusparseHandle&) = delete;
    ~CusparseHandle();
    cusparseHandle_t get() const { return m_handle; }

private:
    cusparseHandle_t m_handle = nullptr;
};

} // namespace ks::device

#define KS_CUSPARSE_CHECK(expr) ::ks::device::throwOnCusparseError((expr), #expr, __FILE__, __LINE__)
