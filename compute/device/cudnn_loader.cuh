#pragma once

// cuDNN through dlopen: the legacy (descriptor) API functions KernelScope's cuDNN variant calls, bound at first use.

#include "compute/core/errors.h"
#include "compute/device/vendor_libraries.h"

#include <cstddef>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <string>

namespace ks::device {

struct CudnnApi {
    cudnnStatus_t (*create)(cudnnHandle_t*) = nullptr;
    cudnnStatus_t (*destroy)(cudnnHandle_t) = nullptr;
    cudnnStatus_t (*setStream)(cudnnHandle_t, cudaStream_t) = nullptr;
    std::size_t (*getVersion)() = nullptr;
    const char* (*errorString)(cudnnStatus_t) = nullptr;

    cudnnStatus_t (*createTensor)(cudnnTensorDescriptor_t*) = nullptr;
    cudnnStatus_t (*setTensor4d)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int)
        = nullptr;
    cudnnStatus_t (*destroyTensor)(cudnnTensorDescriptor_t) = nullptr;
    cudnnStatus_t (*createFilter)(cudnnFilterDescriptor_t*) = nullptr;
    cudnnStatus_t (*setFilter4d)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int, int, int)
        = nullptr;
    cudnnStatus_t (*destroyFilter)(cudnnFilterDescriptor_t) = nullptr;
    cudnnStatus_t (*createConvolution)(cudnnConvolutionDescriptor_t*) = nullptr;
    cudnnStatus_t (*setConvolution2d)(
        cudnnConvolutionDescriptor_t, int, int, int, int, int, int, cudnnConvolutionMode_t, cudnnDataType_t)
        = nullptr;
    cudnnStatus_t (*setConvolutionMathType)(cudnnConvolutionDescriptor_t, cudnnMathType_t) = nullptr;
    cudnnStatus_t (*destroyConvolution)(cudnnConvolutionDescriptor_t) = nullptr;
    cudnnStatus_t (*createPooling)(cudnnPoolingDescriptor_t*) = nullptr;
    cudnnStatus_t (*setPooling2d)(
        cudnnPoolingDescriptor_t, cudnnPoolingMode_t, cudnnNanPropagation_t, int, int, int, int, int, int)
        = nullptr;
    cudnnStatus_t (*destroyPooling)(cudnnPoolingDescriptor_t) = nullptr;
    cudnnStatus_t (*createActivation)(cudnnActivationDescriptor_t*) = nullptr;
    cudnnStatus_t (*setActivation)(cudnnActivationDescriptor_t, cudnnActivationMode_t, cudnnNanPropagation_t, double)
        = nullptr;
    cudnnStatus_t (*destroyActivation)(cudnnActivationDescriptor_t) = nullptr;

    cudnnStatus_t (*findForward)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
        cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int*, cudnnConvolutionFwdAlgoPerf_t*)
        = nullptr;
    cudnnStatus_t (*findBackwardData)(cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,
        cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int*, cudnnConvolutionBwdDataAlgoPerf_t*)
        = nullptr;
    cudnnStatus_t (*findBackwardFilter)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
        cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, int*, cudnnConvolutionBwdFilterAlgoPerf_t*)
        = nullptr;

    cudnnStatus_t (*convolutionBiasActivationForward)(cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
        cudnnFilterDescriptor_t, const void*, cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t, void*,
        std::size_t, const void*, cudnnTensorDescriptor_t, const void*, cudnnTensorDescriptor_t, const void*,
        cudnnActivationDescriptor_t, cudnnTensorDescriptor_t, void*)
        = nullptr;
    cudnnStatus_t (*convolutionBackwardData)(cudnnHandle_t, const void*, cudnnFilterDescriptor_t, const void*,
        cudnnTensorDescriptor_t, const void*, cudnnConvolutionDescriptor_t, cudnnConvolutionBwdDataAlgo_t, void*,
        std::size_t, const void*, cudnnTensorDescriptor_t, void*)
        = nullptr;
    cudnnStatus_t (*convolutionBackwardFilter)(cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
        cudnnTensorDescriptor_t, const void*, cudnnConvolutionDescriptor_t, cudnnConvolutionBwdFilterAlgo_t, void*,
        std::size_t, const void*, cudnnFilterDescriptor_t, void*)
        = nullptr;
    cudnnStatus_t (*poolingForward)(cudnnHandle_t, cudnnPoolingDescriptor_t, const void*, cudnnTensorDescriptor_t,
        const void*, const void*, cudnnTensorDescriptor_t, void*)
        = nullptr;
};

/// The loaded API; throws ComputeError with the reason when cuDNN cannot be loaded.
const CudnnApi& cudnn();

/// Throws ComputeError naming the expression and cuDNN's status when `status` is not CUDNN_STATUS_SUCCESS.
void throwOnCudnnError(cudnnStatus_t status, const char* expression, const char* file, int line);

/// A cuDNN handle bound to a stream, owned RAII-style.
class CudnnHandle {
public:
    explicit CudnnHandle(cudaStream_t stream);
    CudnnHandle(const CudnnHandle&) = delete;
    CudnnHandle& operator=(const CudnnHandle&) = delete;
    ~CudnnHandle();
    cudnnHandle_t get() const { return m_handle; }

private:
    cudnnHandle_t m_handle = nullptr;
};

/// A float32 NCHW tensor descriptor, owned RAII-style.
class CudnnTensor {
public:
    CudnnTensor(int n, int c, int h, int w);
    CudnnTensor(const CudnnTensor&) = delete;
    CudnnTensor& operator=(const CudnnTensor&) = delete;
    ~CudnnTensor();
    cudnnTensorDescriptor_t get() const { return m_desc; }

private:
    cudnnTensorDescriptor_t m_desc = nullptr;
};

/// A float32 filter descriptor ([out, in, h, w], NCHW), owned RAII-style.
class CudnnFilter {
public:
    CudnnFilter(int out, int in, int h, int w);
    CudnnFilter(const CudnnFilter&) = delete;
    CudnnFilter& operator=(const CudnnFilter&) = delete;
    ~CudnnFilter();
    cudnnFilterDescriptor_t get() const { return m_desc; }

private:
    cudnnFilterDescriptor_t m_desc = nullptr;
};

/// A 2-D cross-correlation (stride 1, no dilation) in float32 with FMA math only: no tensor-core kernels, so no
/// TF32 rounding of float inputs. Owned RAII-style.
class CudnnConvolution {
public:
    CudnnConvolution(int padH, int padW);
    CudnnConvolution(const CudnnConvolution&) = delete;
    CudnnConvolution& operator=(const CudnnConvolution&) = delete;
    ~CudnnConvolution();
    cudnnConvolutionDescriptor_t get() const { return m_desc; }

private:
    cudnnConvolutionDescriptor_t m_desc = nullptr;
};

/// A 2-D pooling descriptor (no padding), owned RAII-style.
class CudnnPooling {
public:
    CudnnPooling(cudnnPoolingMode_t mode, int window, int stride);
    CudnnPooling(const CudnnPooling&) = delete;
    CudnnPooling& operator=(const CudnnPooling&) = delete;
    ~CudnnPooling();
    cudnnPoolingDescriptor_t get() const { return m_desc; }

private:
    cudnnPoolingDescriptor_t m_desc = nullptr;
};

/// An activation descriptor (NaNs propagated), owned RAII-style.
class CudnnActivation {
public:
    explicit CudnnActivation(cudnnActivationMode_t mode);
    CudnnActivation(const CudnnActivation&) = delete;
    CudnnActivation& operator=(const CudnnActivation&) = delete;
    ~CudnnActivation();
    cudnnActivationDescriptor_t get() const { return m_desc; }

private:
    cudnnActivationDescriptor_t m_desc = nullptr;
};

} // namespace ks::device

#define KS_CUDNN_CHECK(expr) ::ks::device::throwOnCudnnError((expr), #expr, __FILE__, __LINE__)
