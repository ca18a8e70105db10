#include "cli/worker.h"

#include "compute/core/results_io.h"
#include "data/host_memory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ks::cli {

nlohmann::ordered_json toJson(const WorkerRequest& r)
{
    const RunOptions& o = r.options;
    return {{"workload", r.workload}, {"input", r.input}, {"h5_path", r.h5Path}, {"vector", r.vector},
        {"generate", r.generate}, {"allow_nonfinite", r.allowNonFinite}, {"size", r.size}, {"params", r.params},
        {"options",
            {{"warmup", o.warmup}, {"min_reps", o.minRepetitions}, {"max_reps", o.maxRepetitions},
                {"noise_target", o.noiseTarget}, {"time_limit_s", o.timeLimitS}, {"flush_l2", o.flushL2},
                {"device", o.device}, {"devices", o.devices}, {"check_determinism", o.checkDeterminism}}},
        {"no_calibrate", r.noCalibrate}, {"kernel", r.kernel}, {"nvrtc_options", r.nvrtcOptions}, {"run_id", r.runId},
        {"memory_limit", r.memoryLimit}};
}

WorkerRequest workerRequestFromJson(const nlohmann::ordered_json& j)
{
    WorkerRequest r;
    r.workload = j.at("workload").get<std::string>();
    r.input = j.at("input").get<std::string>();
    r.h5Path = j.at("h5_path").get<std::string>();
    r.vector = j.at("vector").get<std::string>();
    r.generate = j.at("generate").get<std::string>();
    r.allowNonFinite = j.at("allow_nonfinite").get<bool>();
    r.size = j.at("size").get<std::uint64_t>();
    r.params = j.at("params").get<std::vector<std::string>>();
    const auto& o = j.at("options");
    r.options.warmup = o.at("warmup").get<int>();
    r.options.minRepetitions = o.at("min_reps").get<int>();
    r.options.maxRepetitions = o.at("max_reps").get<int>();
    r.options.noiseTarget = o.at("noise_target").get<double>();
    r.options.timeLimitS = o.at("time_limit_s").get<double>();
    r.options.flushL2 = o.at("flush_l2").get<bool>();
    r.options.device = o.at("device").get<int>();
    r.options.devices = o.value("devices", std::vector<int> {});
    r.options.checkDeterminism = o.at("check_determinism").get<bool>();
    r.noCalibrate = j.at("no_calibrate").get<bool>();
    r.kernel = j.at("kernel").get<std::string>();
    r.nvrtcOptions = j.at("nvrtc_options").get<std::vector<std::string>>();
    r.runId = j.at("run_id").get<std::string>();
    r.memoryLimit = j.value("memory_limit", std::uint64_t {0});
    return r;
}

nlohmann::ordered_json toJson(const Sample& s)
{
    nlohmann::ordered_json j {{"run_id", s.runId}, {"workload", s.workload}, {"variant", s.variant}, {"size", s.size},
        {"repetition", s.repetition}, {"ms", s.ms}};
    if (s.metric)
        j["metric"] = *s.metric;
    if (s.clock)
        j["clock"] = {{"sm_mhz", s.clock->smClockMHz}, {"mem_mhz", s.clock->memClockMHz},
            {"temperature_c", s.clock->temperatureC}, {"power_w", s.clock->powerW},
            {"throttle_reasons", s.clock->throttleReasons}, {"throttled", s.clock->throttled}};
    return j;
}

Sample sampleFromJson(const nlohmann::ordered_json& j)
{
    Sample s;
    s.runId = j.at("run_id").get<std::string>();
    s.workload = j.at("workload").get<std::string>();
    s.variant = j.at("variant").get<std::string>();
    s.size = j.at("size").get<std::uint64_t>();
    s.repetition = j.at("repetition").get<int>();
    s.ms = j.at("ms").get<double>();
    if (j.contains("metric"))
        s.metric = j.at("metric").get<double>();
    if (j.contains("clock")) {
        const auto& c = j.at("clock");
        ClockSample clock;
        clock.smClockMHz = c.at("sm_mhz").get<double>();
        clock.memClockMHz = c.at("mem_mhz").get<double>();
        clock.temperatureC = c.at("temperature_c").get<double>();
        clock.powerW = c.at("power_w").get<double>();
        clock.throttleReasons = c.at("throttle_reasons").get<std::uint64_t>();
        clock.throttled = c.at("throttled").get<bool>();
        s.clock = clock;
    }
    return s;
}

std::string ProcessEnd::reason() const
{
    std::size_t end = stderrText.find_last_not_of(" \t\r\n");
    if (end != std::string::npos) {
        const std::size_t start = stderrText.rfind('\n', end);
        return stderrText.substr(
            start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
    }
    switch (kind) {
    case Kind::Signalled:
        return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    case Kind::Exited:
        return "exited with code " + std::to_string(exitCode) + " without a result";
    case Kind::Watchdog:
        return "killed by the watchdog";
    case Kind::Cancelled:
        return "cancelled";
    case Kind::SpawnFailed:
        return "could not be started";
    }
    return {};
}

namespace {
double nowS()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr std::size_t kStderrLimit = 64 * 1024;

/// A pipe whose ends close on exec (the child's copies are made with dup2, which clears the flag).
struct Pipe {
    int fd[2] = {-1, -1};
    bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
    void close(int end)
    {
        if (fd[end] >= 0)
            ::close(fd[end]);
        fd[end] = -1;
    }
    ~Pipe()
    {
        close(0);
        close(1);
    }
};
} // namespace

SupervisedProcess::SupervisedProcess(std::vector<std::string> argv, double watchdogS)
    : m_argv(std::move(argv))
    , m_watchdogS(watchdogS)
{
}

void SupervisedProcess::inheritFd(int fd, int childFd)
{
    m_inherited.emplace_back(fd, childFd);
}

void SupervisedProcess::restartWatchdog(double seconds)
{
    m_watchdogS = seconds;
    m_deadline = nowS() + seconds;
}

ProcessEnd SupervisedProcess::run(const std::string& input, const LineHandler& onLine, std::stop_token stop)
{
    ProcessEnd end;
    Pipe in, out, err;
    if (m_argv.empty() || !in.open() || !out.open() || !err.open()) {
        end.kind = ProcessEnd::Kind::SpawnFailed;
        end.stderrText = std::string("cannot create pipes: ") + std::strerror(errno);
        return end;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
    // dup2 onto the same number would keep FD_CLOEXEC: such a descriptor goes through a copy above the range.
    std::vector<int> copies;
    for (const auto& [fd, childFd] : m_inherited) {
        const int source = fd == childFd ? ::fcntl(fd, F_DUPFD_CLOEXEC, childFd + 1) : fd;
        if (source != fd)
            copies.push_back(source);
        posix_spawn_file_actions_adddup2(&actions, source, childFd);
    }
    std::vector<char*> argv;
    for (auto& a : m_argv)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    for (const int copy : copies)
        if (copy >= 0)
            ::close(copy);
    if (spawned != 0) {
        end.kind = ProcessEnd::Kind::SpawnFailed;
        end.stderrText = "cannot start " + m_argv[0] + ": " + std::strerror(spawned);
        return end;
    }
    in.close(0);
    out.close(1);
    err.close(1);

    // The request is small (well under a pipe's buffer); a child that exits without reading it must not kill the
    // parent with SIGPIPE, so the write goes through send-like semantics: SIGPIPE ignored around it.
    {
        struct sigaction ignore {
        }, previous {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &previous);
        std::size_t written = 0;
        while (written < input.size()) {
            const ssize_t n = ::write(in.fd[1], input.data() + written, input.size() - written);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            written += static_cast<std::size_t>(n);
        }
        ::sigaction(SIGPIPE, &previous, nullptr);
        in.close(1);
    }

    m_deadline = nowS() + m_watchdogS;
    std::string pending;
    bool outOpen = true, errOpen = true;
    std::optional<ProcessEnd::Kind> killedFor;
    while (outOpen || errOpen) {
        if (stop.stop_requested())
            killedFor = ProcessEnd::Kind::Cancelled;
        else if (nowS() >= m_deadline)
            killedFor = ProcessEnd::Kind::Watchdog;
        if (killedFor) {
            ::kill(pid, SIGKILL);
            break;
        }
        // A stream at its end is left out of the poll: it would report POLLHUP at once, every time.
        pollfd fds[2] = {{outOpen ? out.fd[0] : -1, POLLIN, 0}, {errOpen ? err.fd[0] : -1, POLLIN, 0}};
        const int timeoutMs = static_cast<int>(std::clamp((m_deadline - nowS()) * 1000.0, 0.0, 100.0)) + 1;
        if (::poll(fds, 2, timeoutMs) < 0) {
            if (errno == EINTR)
                continue;
            ::kill(pid, SIGKILL);
            break;
        }
        char buffer[65536];
        if (outOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(out.fd[0], buffer, sizeof buffer);
            if (n == 0 || (n < 0 && errno != EINTR)) {
                outOpen = false;
            } else if (n > 0) {
                pending.append(buffer, static_cast<std::size_t>(n));
                std::size_t newline;
                while ((newline = pending.find('\n')) != std::string::npos) {
                    const std::string line = pending.substr(0, newline);
                    pending.erase(0, newline + 1);
                    if (!line.empty())
                        onLine(line);
                }
            }
        }
        if (errOpen && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(err.fd[0], buffer, sizeof buffer);
            if (n == 0 || (n < 0 && errno != EINTR))
                errOpen = false;
            else if (n > 0 && end.stderrText.size() < kStderrLimit)
                end.stderrText.append(
                    buffer, std::min(static_cast<std::size_t>(n), kStderrLimit - end.stderrText.size()));
        }
    }
    if (!pending.empty() && !killedFor)
        onLine(pending);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    if (killedFor) {
        end.kind = *killedFor;
        end.watchdogS = m_watchdogS;
    } else if (WIFSIGNALED(status)) {
        end.kind = ProcessEnd::Kind::Signalled;
        end.signal = WTERMSIG(status);
    } else {
        end.kind = ProcessEnd::Kind::Exited;
        end.exitCode = WEXITSTATUS(status);
    }
    return end;
}

namespace {
std::vector<std::string>& chosenWorkerArgv()
{
    static std::vector<std::string> argv;
    return argv;
}
} // namespace

void setWorkerArgv(std::vector<std::string> argv)
{
    chosenWorkerArgv() = std::move(argv);
}

std::vector<Summary> runSweepWithUserKernels(const SweepPlan& plan, const std::vector<RunEntry>& entries,
    const DataOrigin& origin, const Runner& runner, RunObserver& observer, std::stop_token stop)
{
    const SweepRequest& request = plan.request;
    const Workload& workload = *request.workload;
    const int total = static_cast<int>(plan.sizes.size() * entries.size());
    std::vector<Summary> summaries;
    const Clock& clock = steadyClock();
    const double started = clock.nowSeconds();
    int index = 0;
    for (std::size_t sizeIndex = 0; sizeIndex < plan.sizes.size() && !stop.stop_requested(); ++sizeIndex) {
        const std::uint64_t size = plan.sizes[sizeIndex];
        const SizeInputs inputs = prepareSize(plan, sizeIndex, runner, observer, stop);
        for (const RunEntry& entry : entries) {
            if (stop.stop_requested())
                break;
            SweepProgress progress;
            progress.runIndex = index;
            progress.runCount = total;
            progress.variant = entry.variant->id;
            progress.size = size;
            progress.elapsedS = clock.nowSeconds() - started;
            progress.remainingS = index > 0 ? progress.elapsedS / index * (total - index) : -1.0;
            observer.onProgress(progress);
            const std::string runId = sweepRunId(request.runIdPrefix, index++);
            if (!inputs.problem.empty()) {
                Summary s = failedSweepRow(plan, *entry.variant, size, runId, inputs.problem);
                observer.onSummary(s);
                summaries.push_back(std::move(s));
                continue;
            }
            if (entry.kernel.empty() || !unavailableReason(*entry.variant).empty()) {
                RunRequest run {
                    &workload, entry.variant, inputs.dataset, plan.params, request.options, inputs.reference, runId};
                summaries.push_back(runner.run(run, observer, stop));
                continue;
            }
            WorkerRequest w;
            static_cast<DataOrigin&>(w) = origin;
            w.workload = workload.id();
            w.size = size;
            w.options = request.options;
            w.kernel = entry.kernel;
            w.nvrtcOptions.insert(w.nvrtcOptions.end(), entry.nvrtcOptions.begin(), entry.nvrtcOptions.end());
            w.runId = runId;
            // The parent's own budget, whichever face set it (the CLI's --memory-limit, the app's).
            w.memoryLimit = data::memoryLimit();
            const Summary base = failedSweepRow(plan, *entry.variant, size, runId, {});
            Summary s = runInWorker(workerArgv(), w, base, observer, stop);
            observer.onSummary(s);
            summaries.push_back(std::move(s));
        }
    }
    return summaries;
}

std::vector<std::string> workerArgv()
{
    if (!chosenWorkerArgv().empty())
        return chosenWorkerArgv();
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return {ec ? std::string("/proc/self/exe") : self.string(), "worker"};
}

Summary runInWorker(const std::vector<std::string>& workerArgv, const WorkerRequest& request, const Summary& base,
    RunObserver& observer, std::stop_token stop, const WorkerLimits& limits)
{
    std::optional<Summary> summary;
    std::string protocolError;
    SupervisedProcess process(workerArgv, limits.setupS);
    const double runLimit = limits.runS(request.options);
    const ProcessEnd end = process.run(
        toJson(request).dump() + "\n",
        [&](const std::string& line) {
            try {
                const auto j = nlohmann::ordered_json::parse(line);
                if (j.contains("sample"))
                    observer.onSample(sampleFromJson(j.at("sample")));
                else if (j.contains("prepared"))
                    process.restartWatchdog(runLimit);
                else if (j.contains("summary"))
                    summary = summaryFromJson(j.at("summary"));
            } catch (const std::exception& e) {
                if (protocolError.empty())
                    protocolError
                        = "unreadable line from the worker (" + std::string(e.what()) + "): " + line.substr(0, 120);
            }
        },
        stop);

    Summary s = base;
    s.outcome = Outcome::Failed;
    switch (end.kind) {
    case ProcessEnd::Kind::Cancelled:
        s.outcome = Outcome::Cancelled;
        s.message = "cancelled";
        return s;
    case ProcessEnd::Kind::Watchdog: {
        char seconds[32], margin[32];
        std::snprintf(seconds, sizeof seconds, "%g", end.watchdogS);
        std::snprintf(margin, sizeof margin, "%g", limits.runMarginS);
        s.message = base.variant + " exceeded the watchdog (" + seconds
            + " s): killed. A kernel that never returns (an infinite loop, a wait on a flag no block sets) is "
              "ended this way; if one repetition is just slow, raise --time-limit (the watchdog is twice it plus "
            + margin + " s)";
        return s;
    }
    default:
        break;
    }
    // A worker that dies on its way out (a context torn down badly) after its Summary still said all it had to.
    if (summary)
        return *summary;
    s.message = base.variant + ": " + (protocolError.empty() ? end.reason() : protocolError);
    return s;
}

} // namespace ks::cli
