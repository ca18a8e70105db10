#include "compute/core/runner.h"
#include "compute/core/stats.h"
#include "compute/device/cuda_check.cuh"
#include "compute/device/multi_device.cuh"

#include <algorithm>
#include <cstdio>

namespace ks::device {

// ---------------------------------------------------------------------------------------------------------------
// DeviceTeam

DeviceTeam::DeviceTeam(std::vector<int> devices)
    : m_devices(std::move(devices))
    , m_errors(m_devices.size())
{
    if (m_devices.empty())
        throw ComputeError("a multi-device run needs at least one device");
    for (int rank = 0; rank < size(); ++rank)
        m_threads.emplace_back([this, rank] { loop(rank); });
}

DeviceTeam::~DeviceTeam()
{
    {
        std::lock_guard lock(m_mutex);
        m_quit = true;
    }
    m_wake.notify_all();
    for (auto& thread : m_threads)
        thread.join();
}

void DeviceTeam::loop(int rank)
{
    std::uint64_t seen = 0;
    while (true) {
        const std::function<void(int)>* job = nullptr;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_quit || m_generation != seen; });
            if (m_quit)
                return;
            seen = m_generation;
            if (rank >= m_members)
                continue;
            job = m_job;
        }
        std::exception_ptr error;
        try {
            // Cheap, and it keeps the thread on its device whatever a job did.
            KS_CUDA_CHECK(cudaSetDevice(device(rank)));
            (*job)(rank);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(m_mutex);
        m_errors[static_cast<std::size_t>(rank)] = error;
        if (--m_pending == 0)
            m_done.notify_all();
    }
}

void DeviceTeam::run(const std::function<void(int rank)>& job, int members)
{
    members = members < 0 ? size() : std::min(members, size());
    {
        std::unique_lock lock(m_mutex);
        m_job = &job;
        m_members = members;
        m_pending = members;
        std::fill(m_errors.begin(), m_errors.end(), nullptr);
        ++m_generation;
        m_wake.notify_all();
        m_done.wait(lock, [&] { return m_pending == 0; });
        m_job = nullptr;
    }
    for (int rank = 0; rank < members; ++rank)
        if (m_errors[static_cast<std::size_t>(rank)])
            std::rethrow_exception(m_errors[static_cast<std::size_t>(rank)]);
}

// ---------------------------------------------------------------------------------------------------------------
// MultiDeviceRun

namespace {
/// Repetitions of the single-device baseline measured after the run's own (one warm-up first).
constexpr int kSoloRepetitions = 3;
} // namespace

MultiDeviceRun::MultiDeviceRun(const RunContext& context, std::string soloName)
    : m_clock(context.clock ? context.clock : &steadyClock())
    , m_soloName(std::move(soloName))
    , m_team(context.devices.empty() ? resolveDevices({}) : context.devices)
    , m_comms(std::make_unique<NcclComms>(m_team.devices()))
    , m_kernelMs(m_team.devices().size())
{
}

MultiDeviceRun::~MultiDeviceRun()
{
    // Each part is freed on its own device's thread.
    try {
        m_team.run([&](int rank) { m_parts[static_cast<std::size_t>(rank)].reset(); });
    } catch (...) {
    }
}

void MultiDeviceRun::makeParts(const std::function<std::unique_ptr<CudaPreparedRun>(int rank)>& make)
{
    m_parts.resize(static_cast<std::size_t>(ranks()));
    m_team.run([&](int rank) { m_parts[static_cast<std::size_t>(rank)] = make(rank); });
}

void MultiDeviceRun::run()
{
    m_team.run([&](int rank) {
        CudaPreparedRun& p = part(rank);
        p.timer().start();
        p.run();
        p.timer().stop();
        combine(rank);
    });
    m_timing = true;
}

void MultiDeviceRun::barrier(bool record)
{
    std::vector<double> ms(static_cast<std::size_t>(ranks()), 0.0);
    const bool read = record && m_timing;
    m_team.run([&](int rank) {
        KS_CUDA_CHECK(cudaStreamSynchronize(part(rank).workStream()));
        if (read)
            ms[static_cast<std::size_t>(rank)] = part(rank).timer().elapsedMs();
    });
    if (read) {
        for (int rank = 0; rank < ranks(); ++rank)
            m_kernelMs[static_cast<std::size_t>(rank)].push_back(ms[static_cast<std::size_t>(rank)]);
        m_timing = false;
    }
}

void MultiDeviceRun::BarrierTimer::start()
{
    m_owner.barrier(false);
    m_start = m_owner.m_clock->nowSeconds();
}

void MultiDeviceRun::BarrierTimer::stop()
{
    m_owner.barrier(true);
    m_stop = m_owner.m_clock->nowSeconds();
    m_owner.m_wallMs.push_back((m_stop - m_start) * 1e3);
}

void MultiDeviceRun::flushCaches()
{
    m_team.run([&](int rank) { part(rank).flushCaches(); });
}

void MultiDeviceRun::reset()
{
    m_team.run([&](int rank) { part(rank).reset(); });
    for (auto& times : m_kernelMs)
        times.clear();
    m_wallMs.clear();
}

double MultiDeviceRun::transferMs() const
{
    // The parts upload at once, each from its own thread.
    double slowest = 0.0;
    for (const auto& p : m_parts)
        slowest = std::max(slowest, p->transferMs());
    return slowest;
}

Facts MultiDeviceRun::facts()
{
    Facts facts;
    facts.emplace_back("devices", ranks());
    for (int rank = 0; rank < ranks(); ++rank)
        if (const auto& times = m_kernelMs[static_cast<std::size_t>(rank)]; !times.empty())
            facts.emplace_back("gpu" + std::to_string(m_team.device(rank)) + " kernel ms", median(times));
    if (m_wallMs.empty())
        return facts;
    const double wall = median(m_wallMs);
    try {
        m_team.run(
            [&](int) {
                const auto run = solo();
                RepTimer& timer = run->timer();
                std::vector<double> times;
                for (int r = 0; r <= kSoloRepetitions; ++r) {
                    run->flushCaches();
                    timer.start();
                    run->run();
                    timer.stop();
                    const double ms = timer.elapsedMs();
                    if (r > 0) // the first is the warm-up
                        times.push_back(ms);
                }
                m_soloMs = median(times);
            },
            1);
    } catch (const std::exception& e) {
        m_soloFailure = e.what();
        return facts;
    }
    facts.emplace_back("1-GPU ms", m_soloMs);
    facts.emplace_back("scaling efficiency", m_soloMs / (ranks() * wall));
    return facts;
}

std::string MultiDeviceRun::note() const
{
    std::string list;
    for (int rank = 0; rank < m_team.size(); ++rank)
        list += (rank ? ", " : "") + std::to_string(m_team.device(rank));
    const std::string version = ncclVersionText();
    std::string note = std::to_string(m_team.size()) + (m_team.size() == 1 ? " GPU (" : " GPUs (") + list
        + ") through NCCL" + (version.empty() ? "" : " " + version);
    char text[160];
    if (!m_wallMs.empty()) {
        std::snprintf(text, sizeof text, ": median wall %.4g ms, kernels", median(m_wallMs));
        note += text;
        for (int rank = 0; rank < m_team.size(); ++rank) {
            const auto& times = m_kernelMs[static_cast<std::size_t>(rank)];
            std::snprintf(text, sizeof text, "%s %.4g (GPU %d)", rank ? "," : "", times.empty() ? 0.0 : median(times),
                m_team.device(rank));
            note += text;
        }
        note += " ms";
    }
    if (m_soloMs > 0.0) {
        std::snprintf(text, sizeof text, "; %s alone on GPU %d: %.4g ms, scaling efficiency %.1f %%",
            m_soloName.c_str(), m_team.device(0), m_soloMs, 100.0 * m_soloMs / (ranks() * median(m_wallMs)));
        note += text;
    } else if (!m_soloFailure.empty()) {
        note += "; " + m_soloName + " alone not measured: " + m_soloFailure;
    }
    if (!m_parts.empty() && m_parts.front())
        if (const std::string first = m_parts.front()->note(); !first.empty())
            note += "; GPU " + std::to_string(m_team.device(0)) + ": " + first;
    return note;
}

} // namespace ks::device
