#pragma once

// Multi-device runs: one host thread per GPU (DeviceTeam), one NCCL communicator per GPU, and a part per GPU that
// is an ordinary single-device prepared run over that GPU's share of the work.

#include "compute/core/variant.h"
#include "compute/core/work_split.h"
#include "compute/device/cuda_prepared_run.cuh"
#include "compute/device/nccl_loader.cuh"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ks::device {

/// One thread per device, each bound to its device (cudaSetDevice) for its whole life, running the jobs handed to
/// the team together.
class DeviceTeam {
public:
    explicit DeviceTeam(std::vector<int> devices);
    DeviceTeam(const DeviceTeam&) = delete;
    DeviceTeam& operator=(const DeviceTeam&) = delete;
    ~DeviceTeam();

    int size() const { return static_cast<int>(m_devices.size()); }
    int device(int rank) const { return m_devices[static_cast<std::size_t>(rank)]; }
    const std::vector<int>& devices() const { return m_devices; }
    /// Runs job(rank) on the threads of ranks 0 … members − 1 at once (every rank when members < 0) and returns
    /// when all have finished; then rethrows the lowest rank's exception, if any.
    void run(const std::function<void(int rank)>& job, int members = -1);

private:
    void loop(int rank);

    std::vector<int> m_devices;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int)>* m_job = nullptr;
    std::uint64_t m_generation = 0;
    int m_members = 0;
    int m_pending = 0;
    bool m_quit = false;
    std::vector<std::exception_ptr> m_errors;
    std::vector<std::thread> m_threads;
};

/// Base of a multi-device variant. Each device gets a part — the single-device run of its share, prepared on the
/// device's own thread — and a repetition runs every part at once, then the subclass's collective (combine). The
/// repetition's time is the wall time between a barrier before (every device idle) and one after (every device done):
/// the slowest device's. Each part's own time is taken with events on its stream around its compute, before the
/// collective. facts() add each device's median kernel time, the single-device variant's time on the first device
/// (solo(), measured after the repetitions) and the scaling efficiency t₁ / (k · t_k).
class MultiDeviceRun : public PreparedRun {
public:
    ~MultiDeviceRun() override;
    void run() final;
    RepTimer& timer() override { return m_timer; }
    void flushCaches() override;
    void reset() override;
    double transferMs() const override;
    Facts facts() override;
    std::string note() const override;

protected:
    /// On context.devices (every device present when it names none). `soloName` is the single-device variant the
    /// scaling is measured against ("tiled_f32").
    MultiDeviceRun(const RunContext& context, std::string soloName);

    /// Makes every part, make(rank) on that rank's thread with its device current.
    void makeParts(const std::function<std::unique_ptr<CudaPreparedRun>(int rank)>& make);
    /// Enqueues the rank's collective on its part's stream after the part's compute; nothing by default.
    virtual void combine(int rank) { (void)rank; }
    /// The single-device variant on the first device, for the whole problem: the scaling's baseline.
    virtual std::unique_ptr<PreparedRun> solo() = 0;

    int ranks() const { return m_team.size(); }
    DeviceTeam& team() { return m_team; }
    CudaPreparedRun& part(int rank) { return *m_parts[static_cast<std::size_t>(rank)]; }
    /// The rank's part as the type the subclass made it.
    template <class Part> Part& partAs(int rank) { return static_cast<Part&>(part(rank)); }
    NcclComm comm(int rank) const { return (*m_comms)[rank]; }

private:
    class BarrierTimer final : public RepTimer {
    public:
        explicit BarrierTimer(MultiDeviceRun& owner)
            : m_owner(owner)
        {
        }
        void start() override;
        void stop() override;
        double elapsedMs() override { return (m_stop - m_start) * 1e3; }

    private:
        MultiDeviceRun& m_owner;
        double m_start = 0.0;
        double m_stop = 0.0;
    };
    /// Waits for every part's stream on its own thread; with `record`, keeps each part's kernel time.
    void barrier(bool record);

    const Clock* m_clock;
    std::string m_soloName;
    DeviceTeam m_team;
    std::unique_ptr<NcclComms> m_comms;
    std::vector<std::unique_ptr<CudaPreparedRun>> m_parts;
    BarrierTimer m_timer {*this};
    bool m_timing = false; ///< a repetition's part timers were started and not yet read
    std::vector<std::vector<double>> m_kernelMs; ///< per rank, per repetition since reset()
    std::vector<double> m_wallMs; ///< per repetition since reset()
    double m_soloMs = 0.0; ///< measured by facts(); 0 until then
    std::string m_soloFailure;
};

} // namespace ks::device
