#include "compute/core/errors.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/device_info.h"
#include "compute/device/user_module.cuh"

namespace ks::device {

LoadedLibrary::LoadedLibrary(const std::string& code, const std::string& label)
{
    const cudaError_t error = cudaLibraryLoadData(&m_library, code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (error != cudaSuccess) {
        cudaGetLastError(); // a rejected image is not sticky: clear it so the next call does not report it
        throw ComputeError(label + ": the driver cannot load the compiled code: " + cudaGetErrorString(error));
    }
}

LoadedLibrary::~LoadedLibrary()
{
    if (m_library)
        cudaLibraryUnload(m_library);
}

cudaKernel_t LoadedLibrary::find(const std::string& name) const
{
    cudaKernel_t kernel = nullptr;
    if (cudaLibraryGetKernel(&kernel, m_library, name.c_str()) != cudaSuccess) {
        cudaGetLastError(); // a missing symbol is not sticky
        return nullptr;
    }
    return kernel;
}

namespace {
int currentAttribute(cudaDeviceAttr attribute)
{
    int device = 0;
    int value = 0;
    KS_CUDA_CHECK(cudaGetDevice(&device));
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
}
} // namespace

UserLaunches::UserLaunches(const UserKernelBuild& build, std::map<std::string, std::int64_t> sizes)
    : m_label(build.label)
    , m_plan([&] {
        sizes[kSmCountName] = currentAttribute(cudaDevAttrMultiProcessorCount);
        try {
            return evaluateLaunches(build.declaration, sizes, build.fileName);
        } catch (const UserKernelError& e) {
            throw ComputeError(e.what());
        }
    }())
    , m_library(build.code, build.label)
{
    const auto optIn = static_cast<unsigned>(currentAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    constexpr unsigned kDefaultSharedLimit = 48 * 1024;
    for (std::size_t i = 0; i < m_plan.launches.size(); ++i) {
        const Launch& launch = m_plan.launches[i];
        const LaunchStep& step = build.declaration.steps[i];
        if (launch.shared > optIn)
            throw ComputeError(UserKernelError(build.fileName, step.line,
                "shared=" + std::to_string(launch.shared) + " bytes is more than this device's " + std::to_string(optIn)
                    + " per block")
                                   .what());
        m_kernels.push_back(m_library.find(launch.kernel));
        if (!m_kernels.back())
            throw ComputeError(UserKernelError(build.fileName, step.line,
                "kernel '" + launch.kernel
                    + "' is declared here but the file defines no extern \"C\" __global__ function of that name")
                                   .what());
        if (launch.shared > kDefaultSharedLimit)
            KS_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(m_kernels.back()),
                cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(launch.shared)));
    }
    if (m_plan.scratchBytes > 0) {
        requireDeviceMemory(m_plan.scratchBytes, m_label + "'s scratch");
        m_scratch = DeviceBuffer<unsigned char>(m_plan.scratchBytes);
    }
}

void UserLaunches::enqueue(void* args, cudaStream_t stream)
{
    if (m_scratch.size())
        KS_CUDA_CHECK(cudaMemsetAsync(m_scratch.data(), 0, m_scratch.size(), stream));
    void* params[] = {args};
    for (std::size_t i = 0; i < m_plan.launches.size(); ++i) {
        const Launch& launch = m_plan.launches[i];
        if (launch.grid == 0)
            continue;
        KS_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(m_kernels[i]), dim3(launch.grid),
            dim3(launch.block), params, launch.shared, stream));
        throwOnCudaError(
            cudaGetLastError(), ("launch of " + m_label + "/" + launch.kernel).c_str(), __FILE__, __LINE__);
    }
}

} // namespace ks::device
