#pragma once
// The base of every sdh GPU run, the built-in variants' and a user kernel's: the histogram of 64-bit counts on the
// device, poisoned when prepared and zeroed in every repetition.
#include "compute/core/errors.h"
#include "compute/core/make_run.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/device_info.h"
#include "compute/workloads/sdh/sdh.h"

#include <string>
#include <vector>

namespace ks::sdh::gpu {

/// Base of every sdh GPU variant: the histogram (64-bit counts) on the device, zeroed in every repetition.
class SdhDeviceRun : public device::CudaPreparedRun {
public:
    using Model = data::PointCloud;

    SdhDeviceRun(const data::PointCloud& cloud, Buckets buckets, std::size_t inputBytes)
        : m_n(cloud.size())
        , m_buckets(buckets)
    {
        if (m_n > 0x7fffffffULL)
            throw SkipRun("more than 2^31 − 1 points");
        device::requireDeviceMemory(inputBytes + buckets.count * sizeof(unsigned long long),
            "sdh on " + std::to_string(m_n) + " points and " + std::to_string(buckets.count) + " buckets");
        m_histogram = device::DeviceBuffer<unsigned long long>(buckets.count);
        m_histogram.fillBytesAsync(0xff, stream()); // poisoned until a repetition zeroes and fills it
    }
    void run() final
    {
        m_histogram.fillBytesAsync(0, stream());
        if (m_n >= 2)
            launch();
    }
    Result fetch() override
    {
        std::vector<unsigned long long> counts(m_histogram.size());
        m_histogram.downloadAsync(counts, stream());
        KS_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return makeResult(std::vector<std::uint64_t>(counts.begin(), counts.end()));
    }

    /// The device histogram (a multi-device run sums its parts' in place).
    unsigned long long* histogramData() { return m_histogram.data(); }

protected:
    virtual void launch() = 0;

    int n() const { return static_cast<int>(m_n); }
    double width() const { return m_buckets.width; }
    unsigned long long last() const { return m_buckets.count - 1; }
    int bucketCount() const { return static_cast<int>(m_buckets.count); }
    unsigned long long* histogram() { return m_histogram.data(); }

private:
    std::uint64_t m_n;
    Buckets m_buckets;
    device::DeviceBuffer<unsigned long long> m_histogram;
};

} // namespace ks::sdh::gpu
