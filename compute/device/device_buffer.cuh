#pragma once

#include "compute/device/cuda_check.cuh"
#include "compute/device/device_info.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace ks::device {

/// Device memory owned RAII-style. Move-only.
template <class T> class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count)
        : m_count(count)
    {
        if (count == 0)
            return;
        // A count whose bytes do not fit in size_t cannot be had on any device: said as the allocation it asks for.
        if (count > SIZE_MAX / sizeof(T))
            throw DeviceOutOfMemory("out of device memory: " + std::to_string(count) + " values of "
                + std::to_string(sizeof(T)) + " bytes do not fit in the address space");
        KS_CUDA_CHECK_ALLOC(cudaMalloc(&m_ptr, count * sizeof(T)), count * sizeof(T));
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : m_ptr(std::exchange(o.m_ptr, nullptr))
        , m_count(std::exchange(o.m_count, 0))
    {
    }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept
    {
        std::swap(m_ptr, o.m_ptr);
        std::swap(m_count, o.m_count);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer()
    {
        if (m_ptr)
            cudaFree(m_ptr);
    }

    T* data() { return m_ptr; }
    const T* data() const { return m_ptr; }
    std::size_t size() const { return m_count; }
    std::size_t bytes() const { return m_count * sizeof(T); }

    void uploadAsync(std::span<const T> host, cudaStream_t stream)
    {
        if (host.size() != m_count)
            throw ComputeError("upload size mismatch");
        if (m_count > 0)
            KS_CUDA_CHECK(cudaMemcpyAsync(m_ptr, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
    }
    void downloadAsync(std::span<T> host, cudaStream_t stream) const
    {
        if (host.size() != m_count)
            throw ComputeError("download size mismatch");
        if (m_count > 0)
            KS_CUDA_CHECK(cudaMemcpyAsync(host.data(), m_ptr, bytes(), cudaMemcpyDeviceToHost, stream));
    }
    /// Fills every byte with `byte` (used to poison outputs before a run).
    void fillBytesAsync(int byte, cudaStream_t stream)
    {
        if (m_count > 0)
            KS_CUDA_CHECK(cudaMemsetAsync(m_ptr, byte, bytes(), stream));
    }

private:
    T* m_ptr = nullptr;
    std::size_t m_count = 0;
};

/// Page-locked host memory, so device-to-host copies are truly asynchronous. Move-only.
template <class T> class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t count)
        : m_count(count)
    {
        if (count > 0)
            KS_CUDA_CHECK(cudaMallocHost(&m_ptr, count * sizeof(T)));
    }
    PinnedBuffer(PinnedBuffer&& o) noexcept
        : m_ptr(std::exchange(o.m_ptr, nullptr))
        , m_count(std::exchange(o.m_count, 0))
    {
    }
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept
    {
        std::swap(m_ptr, o.m_ptr);
        std::swap(m_count, o.m_count);
        return *this;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer()
    {
        if (m_ptr)
            cudaFreeHost(m_ptr);
    }
    T* data() { return m_ptr; }
    const T* data() const { return m_ptr; }
    std::size_t size() const { return m_count; }
    T& operator[](std::size_t i) { return m_ptr[i]; }
    std::span<T> span() { return {m_ptr, m_count}; }

private:
    T* m_ptr = nullptr;
    std::size_t m_count = 0;
};

} // namespace ks::device
