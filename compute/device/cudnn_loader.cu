#include "compute/device/cuda_check.cuh"
#include "compute/device/cudnn_loader.cuh"
#include "compute/device/dynamic_library.h"

namespace ks::device {

namespace {
struct Loaded {
    CudnnApi api;
    std::string reason;
};

const Loaded& load()
{
    static const Loaded loaded = [] {
        Loaded l;
        // libcudnn.so.9 is the front library: it opens its sub-libraries (cnn, ops, engines) itself by soname, so a
        // copy found only by a full path works when they lie beside it on the loader's path too.
        static DynamicLibrary library {"libcudnn.so.9", "/usr/local/cuda/lib64/libcudnn.so.9",
            "/usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
            "libcudnn.so"};
        if (!library.loaded()) {
            l.reason = "cuDNN 9 is not installed here (" + library.error() + ")";
            return l;
        }
        auto& a = l.api;
        const bool ok = library.bind(a.create, "cudnnCreate") && library.bind(a.destroy, "cudnnDestroy")
            && library.bind(a.setStream, "cudnnSetStream") && library.bind(a.getVersion, "cudnnGetVersion")
            && library.bind(a.errorString, "cudnnGetErrorString")
            && library.bind(a.createTensor, "cudnnCreateTensorDescriptor")
            && library.bind(a.setTensor4d, "cudnnSetTensor4dDescriptor")
            && library.bind(a.destroyTensor, "cudnnDestroyTensorDescriptor")
            && library.bind(a.createFilter, "cudnnCreateFilterDescriptor")
            && library.bind(a.setFilter4d, "cudnnSetFilter4dDescriptor")
            && library.bind(a.destroyFilter, "cudnnDestroyFilterDescriptor")
            && library.bind(a.createConvolution, "cudnnCreateConvolutionDescriptor")
            && library.bind(a.setConvolution2d, "cudnnSetConvolution2dDescriptor")
            && library.bind(a.setConvolutionMathType, "cudnnSetConvolutionMathType")
            && library.bind(a.destroyConvolution, "cudnnDestroyConvolutionDescriptor")
            && library.bind(a.createPooling, "cudnnCreatePoolingDescriptor")
            && library.bind(a.setPooling2d, "cudnnSetPooling2dDescriptor")
            && library.bind(a.destroyPooling, "cudnnDestroyPoolingDescriptor")
            && library.bind(a.createActivation, "cudnnCreateActivationDescriptor")
            && library.bind(a.setActivation, "cudnnSetActivationDescriptor")
            && library.bind(a.destroyActivation, "cudnnDestroyActivationDescriptor")
            && library.bind(a.findForward, "cudnnFindConvolutionForwardAlgorithm")
            && library.bind(a.findBackwardData, "cudnnFindConvolutionBackwardDataAlgorithm")
            && library.bind(a.findBackwardFilter, "cudnnFindConvolutionBackwardFilterAlgorithm")
            && library.bind(a.convolutionBiasActivationForward, "cudnnConvolutionBiasActivationForward")
            && library.bind(a.convolutionBackwardData, "cudnnConvolutionBackwardData")
            && library.bind(a.convolutionBackwardFilter, "cudnnConvolutionBackwardFilter")
            && library.bind(a.poolingForward, "cudnnPoolingForward");
        if (!ok) {
            l.reason = "the cuDNN found here is unusable: " + library.error();
            return l;
        }
        // The symbols of another major version would bind but mean other things.
        if (const std::size_t version = a.getVersion(); version / 10'000 != 9)
            l.reason = "the cuDNN found here is version " + std::to_string(version) + ", not 9";
        return l;
    }();
    return loaded;
}
} // namespace

std::string cudnnUnavailableReason()
{
    return load().reason;
}

const CudnnApi& cudnn()
{
    const Loaded& l = load();
    if (!l.reason.empty())
        throw ComputeError(l.reason);
    return l.api;
}

void throwOnCudnnError(cudnnStatus_t status, const char* expression, const char* file, int line)
{
    if (status == CUDNN_STATUS_SUCCESS)
        return;
    const char* text = load().api.errorString ? load().api.errorString(status) : "unknown cuDNN status";
    throwLibraryError(std::string(text), expression, file, line);
}

CudnnHandle::CudnnHandle(cudaStream_t stream)
{
    const CudnnApi& api = cudnn();
    KS_CUDNN_CHECK(api.create(&m_handle));
    KS_CUDNN_CHECK(api.setStream(m_handle, stream));
}

CudnnHandle::~CudnnHandle()
{
    if (m_handle)
        cudnn().destroy(m_handle);
}

CudnnTensor::CudnnTensor(int n, int c, int h, int w)
{
    const CudnnApi& api = cudnn();
    KS_CUDNN_CHECK(api.createTensor(&m_desc));
    KS_CUDNN_CHECK(api.setTensor4d(m_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
}

CudnnTensor::~CudnnTensor()
{
    if (m_desc)
        cudnn().destroyTensor(m_desc);
}

CudnnFilter::CudnnFilter(int out, int in, int h, int w)
{
    const CudnnApi& api = cudnn();
    KS_CUDNN_CHECK(api.createFilter(&m_desc));
    KS_CUDNN_CHECK(api.setFilter4d(m_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, out, in, h, w));
}

CudnnFilter::~CudnnFilter()
{
    if (m_desc)
        cudnn().destroyFilter(m_desc);
}

CudnnConvolution::CudnnConvolution(int padH, int padW)
{
    const CudnnApi& api = cudnn();
    KS_CUDNN_CHECK(api.createConvolution(&m_desc));
    KS_CUDNN_CHECK(api.setConvolution2d(m_desc, padH, padW, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    // CUDNN_DEFAULT_MATH lets float32 convolutions run on tensor cores in TF32 on Ampere and later.
    KS_CUDNN_CHECK(api.setConvolutionMathType(m_desc, CUDNN_FMA_MATH));
}

CudnnConvolution::~CudnnConvolution()
{
    if (m_desc)
        cudnn().destroyConvolution(m_desc);
}

CudnnPooling::CudnnPooling(cudnnPoolingMode_t mode, int window, int stride)
{
    const CudnnApi& api = cudnn();
    KS_CUDNN_CHECK(api.createPooling(&m_desc));
    KS_CUDNN_CHECK(api.setPooling2d(m_desc, mode, CUDNN_PROPAGATE_NAN, window, window, 0, 0, stride, stride));
}

CudnnPooling::~CudnnPooling()
{
    if (m_desc)
        cudnn().destroyPooling(m_desc);
}

CudnnActivation::CudnnActivation(cudnnActivationMode_t mode)
{
    const CudnnApi& api = cudnn();
    KS_CUDNN_CHECK(api.createActivation(&m_desc));
    KS_CUDNN_CHECK(api.setActivation(m_desc, mode, CUDNN_PROPAGATE_NAN, 0.0));
}

CudnnActivation::~CudnnActivation()
{
    if (m_desc)
        cudnn().destroyActivation(m_desc);
}

} // namespace ks::device
