#pragma once

// cuBLAS through dlopen: the functions KernelScope's library variants call, bound at first use.

#include "compute/core/errors.h"
#include "compute/device/vendor_libraries.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string>
#include <utility>

namespace ks::device {

struct CublasApi {
    cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
    cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
    cublasStatus_t (*setStream)(cublasHandle_t, cudaStream_t) = nullptr;
    cublasStatus_t (*setMathMode)(cublasHandle_t, cublasMath_t) = nullptr;
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*,
        const float*, int, const float*, int, const float*, float*, int)
        = nullptr;
    cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double*,
        const double*, int, const double*, int, const double*, double*, int)
        = nullptr;
    cublasStatus_t (*dsyrk)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const double*, const double*,
        int, const double*, double*, int)
        = nullptr;
    const char* (*statusString)(cublasStatus_t) = nullptr;
};

/// The loaded API; throws ComputeError with the reason when cuBLAS cannot be loaded.
const CublasApi& cublas();

/// Throws ComputeError naming the expression and cuBLAS's status when `status` is not CUBLAS_STATUS_SUCCESS.
void throwOnCublasError(cublasStatus_t status, const char* expression, const char* file, int line);

/// A cuBLAS handle bound to a stream, owned RAII-style.
class CublasHandle {
public:
    explicit CublasHandle(cudaStream_t stream);
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    ~CublasHandle();
    cublasHandle_t get() const { return m_handle; }

private:
    cublasHandle_t m_handle = nullptr;
};

} // namespace ks::device

#define KS_CUBLAS_CHECK(expr) ::ks::device::throwOnCublasError((expr), #expr, __FILE__, __LINE__)
