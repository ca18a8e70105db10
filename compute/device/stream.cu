#include "compute/device/stream.cuh"

#include <algorithm>

namespace ks::device {

Stream::Stream()
{
    KS_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
}

Stream::~Stream()
{
    if (m_stream)
        cudaStreamDestroy(m_stream);
}

void Stream::synchronize() const
{
    KS_CUDA_CHECK(cudaStreamSynchronize(m_stream));
}

Event::Event()
{
    KS_CUDA_CHECK(cudaEventCreate(&m_event));
}

Event::~Event()
{
    if (m_event)
        cudaEventDestroy(m_event);
}

void Event::record(cudaStream_t stream)
{
    KS_CUDA_CHECK(cudaEventRecord(m_event, stream));
}

void Event::synchronize() const
{
    KS_CUDA_CHECK(cudaEventSynchronize(m_event));
}

float Event::elapsedSince(const Event& start) const
{
    float ms = 0.0f;
    KS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), m_event));
    return ms;
}

double EventTimer::elapsedMs()
{
    m_stop.synchronize();
    return static_cast<double>(m_stop.elapsedSince(m_start));
}

L2Flusher::L2Flusher()
{
    int device = 0;
    KS_CUDA_CHECK(cudaGetDevice(&device));
    int l2 = 0;
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    m_bytes = std::max<std::size_t>(static_cast<std::size_t>(l2) * 2, 1u << 20);
    KS_CUDA_CHECK_ALLOC(cudaMalloc(&m_buffer, m_bytes), m_bytes);
}

L2Flusher::~L2Flusher()
{
    if (m_buffer)
        cudaFree(m_buffer);
}

void L2Flusher::flush(cudaStream_t stream)
{
    KS_CUDA_CHECK(cudaMemsetAsync(m_buffer, 0, m_bytes, stream));
}

} // namespace ks::device
