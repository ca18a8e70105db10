#include "compute/device/calibration.h"

#include "compute/core/clock_format.h"
#include "compute/core/errors.h"
#include "compute/device/calibration_cuda.h"
#include "compute/device/device_info.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <vector>

namespace ks {

double Ceilings::valueFor(Roof roof) const
{
    switch (roof) {
    case Roof::ReadBandwidth:
        return readGBs;
    case Roof::CopyBandwidth:
        return copyGBs;
    case Roof::Fp32:
        return fp32Gflops;
    case Roof::Fp64:
        return fp64Gflops;
    }
    return 0.0;
}

namespace calibration {

namespace {
std::mutex& cacheMutex()
{
    static std::mutex mutex;
    return mutex;
}

std::map<std::string, Ceilings>& memoryCache()
{
    static std::map<std::string, Ceilings> cache;
    return cache;
}

nlohmann::json toJson(const Ceilings& c)
{
    return {{"name", c.name}, {"read_gbs", c.readGBs}, {"copy_gbs", c.copyGBs}, {"fp32_gflops", c.fp32Gflops},
        {"fp64_gflops", c.fp64Gflops}, {"measured_at", c.measuredAt}};
}

bool fromJson(const nlohmann::json& j, const std::string& target, Ceilings& out)
{
    try {
        out.target = target;
        out.name = j.at("name").get<std::string>();
        out.readGBs = j.at("read_gbs").get<double>();
        out.copyGBs = j.at("copy_gbs").get<double>();
        out.fp32Gflops = j.at("fp32_gflops").get<double>();
        out.fp64Gflops = j.at("fp64_gflops").get<double>();
        out.measuredAt = j.at("measured_at").get<std::string>();
        return out.readGBs > 0.0;
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

nlohmann::json readCacheFile()
{
    std::ifstream in(cachePath());
    if (!in)
        return nlohmann::json::object();
    try {
        auto j = nlohmann::json::parse(in);
        return j.is_object() ? j : nlohmann::json::object();
    } catch (const nlohmann::json::exception&) {
        return nlohmann::json::object(); // a corrupt cache is re-measured, never fatal
    }
}

void writeCacheFile(const std::string& target, const Ceilings& c)
{
    try {
        auto j = readCacheFile();
        j[target] = toJson(c);
        const std::filesystem::path path(cachePath());
        std::filesystem::create_directories(path.parent_path());
        const auto temp = path.string() + ".tmp";
        {
            std::ofstream out(temp, std::ios::trunc);
            out << j.dump(2) << '\n';
        }
        std::filesystem::rename(temp, path);
    } catch (const std::exception&) {
        // Caching is an optimisation; an unwritable cache directory only costs a re-measurement.
    }
}

template <class Measure> Ceilings cached(const std::string& target, bool useCache, Measure&& measure)
{
    std::lock_guard lock(cacheMutex());
    auto& memory = memoryCache();
    if (auto it = memory.find(target); it != memory.end())
        return it->second;
    Ceilings c;
    if (useCache) {
        auto file = readCacheFile();
        if (file.contains(target) && fromJson(file[target], target, c)) {
            memory[target] = c;
            return c;
        }
    }
    c = measure();
    c.target = target;
    c.measuredAt = utcTimestamp();
    memory[target] = c;
    if (useCache)
        writeCacheFile(target, c);
    return c;
}

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Best of several passes with every thread: the host's sustainable read and copy bandwidth.
Ceilings measureHost()
{
    Ceilings c;
    c.name = device::hostInfo().name;
    const std::size_t count = std::size_t(1) << 26; // 512 MiB of doubles
    // Uninitialised allocations: the parallel loop below touches each page first, from the thread (and NUMA node)
    // that later reads it, as the generators do for real datasets.
    std::unique_ptr<double[]> a(new double[count]);
    std::unique_ptr<double[]> b(new double[count]);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
        a[static_cast<std::size_t>(i)] = static_cast<double>(i & 1023);
        b[static_cast<std::size_t>(i)] = 0.0;
    }
    double bestRead = 1e30, bestCopy = 1e30;
    volatile double sink = 0.0;
    for (int pass = 0; pass < 4; ++pass) {
        auto t0 = std::chrono::steady_clock::now();
        double total = 0.0;
        // Eight independent sums per thread: one dependent add chain would be slower than memory.
#pragma omp parallel for reduction(+ : total) schedule(static)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); i += 8) {
            const double* p = a.get() + i;
            total += ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
        }
        sink = sink + total;
        bestRead = std::min(bestRead, secondsSince(t0));
        t0 = std::chrono::steady_clock::now();
#pragma omp parallel
        {
            const auto threads = static_cast<std::size_t>(omp_get_num_threads());
            const auto t = static_cast<std::size_t>(omp_get_thread_num());
            const std::size_t chunk = (count + threads - 1) / threads;
            const std::size_t begin = std::min(count, t * chunk);
            const std::size_t end = std::min(count, begin + chunk);
            std::memcpy(b.get() + begin, a.get() + begin, (end - begin) * sizeof(double));
        }
        bestCopy = std::min(bestCopy, secondsSince(t0));
    }
    const double bytes = static_cast<double>(count * sizeof(double));
    c.readGBs = bytes / bestRead / 1e9;
    c.copyGBs = 2.0 * bytes / bestCopy / 1e9;

    // Scalar FMA rate: eight independent chains per thread keep the FMA pipes busy.
    auto fmaRate = [](auto zero) {
        using T = decltype(zero);
        const int iterations = 1 << 22;
        double best = 1e30;
        volatile T sinkT = 0;
        for (int pass = 0; pass < 3; ++pass) {
            auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel
            {
                T acc[8];
                for (int k = 0; k < 8; ++k)
                    acc[k] = static_cast<T>(omp_get_thread_num() + k) * T(1e-3);
                const T mul = T(0.999999), add = T(1e-7);
                for (int i = 0; i < iterations; ++i)
                    for (int k = 0; k < 8; ++k)
                        acc[k] = acc[k] * mul + add;
                T s = 0;
                for (int k = 0; k < 8; ++k)
                    s += acc[k];
#pragma omp critical
                sinkT = sinkT + s;
            }
            best = std::min(best, secondsSince(t0));
        }
        const double flops = 2.0 * 8.0 * iterations * omp_get_max_threads();
        return flops / best / 1e9;
    };
    c.fp32Gflops = fmaRate(0.0f);
    c.fp64Gflops = fmaRate(0.0);
    return c;
}
} // namespace

std::string cachePath()
{
    if (const char* p = std::getenv("KS_CALIBRATION_CACHE"); p && *p)
        return p;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/kernelscope/calibration.json";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/kernelscope/calibration.json";
    return "/tmp/kernelscope-calibration.json";
}

Ceilings forHost(bool useCache)
{
    const auto host = device::hostInfo();
    const std::string target = "host:" + host.name + ":" + std::to_string(host.smCount) + "t";
    return cached(target, useCache, measureHost);
}

Ceilings forDevice(int index, bool useCache)
{
    const std::string reason = device::cudaUnavailableReason();
    if (!reason.empty())
        throw ComputeError("cannot calibrate a CUDA device: " + reason);
    const auto devices = device::cudaDevices();
    if (index < 0 || index >= static_cast<int>(devices.size()))
        throw ComputeError("CUDA device " + std::to_string(index) + " does not exist");
    const auto& d = devices[static_cast<std::size_t>(index)];
    const std::string target = "cuda:" + d.uuid + ":" + d.driverVersion;
    return cached(target, useCache, [&] { return measureCudaDevice(index); });
}

} // namespace calibration
} // namespace ks
