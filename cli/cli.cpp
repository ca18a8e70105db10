#include "cli/cli.h"

#include "cli/reader_worker.h"
#include "cli/worker.h"

#include "compute/core/atomic_file.h"
#include "compute/core/clock_sampler.h"
#include "compute/core/compare.h"
#include "compute/core/decide.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/results_io.h"
#include "compute/core/sweep.h"
#include "compute/core/user_kernel.h"
#include "compute/core/user_variant.h"
#include "compute/core/version.h"
#include "compute/device/calibration.h"
#include "compute/device/device_info.h"
#include "compute/device/nvml_sampler.h"
#include "compute/device/nvrtc_compiler.h"
#include "compute/device/nvrtc_loader.h"
#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/host_memory.h"
#include "data/quote.h"
#include "data/reader_messages.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <regex>
#include <sstream>
#include <thread>

namespace ks::cli {

namespace {
std::string fmt(const char* pattern, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, v);
    return buffer;
}

std::string shortened(const std::string& text, std::size_t width)
{
    return text.size() <= width ? text : text.substr(0, width - 1) + "…";
}

/// Prints each Summary as a table row as it arrives; progress and status go to the error stream.
class TableObserver final : public RunObserver {
public:
    TableObserver(std::ostream& out, std::ostream& err, bool quiet)
        : m_out(out)
        , m_err(err)
        , m_quiet(quiet)
    {
    }
    void onProgress(const SweepProgress& p) override
    {
        if (m_quiet)
            return;
        m_err << "[" << (p.runIndex + 1) << "/" << p.runCount << "] " << p.variant << " size=" << p.size;
        if (p.remainingS >= 0)
            m_err << " (about " << fmt("%.0f", std::ceil(p.remainingS)) << " s left)";
        m_err << '\n' << std::flush;
    }
    void onStatus(const std::string& s) override
    {
        if (!m_quiet)
            m_err << "  " << s << '\n' << std::flush;
    }
    /// What a reader or generator noted about the data (the frame read, zeros replaced, clusters drawn): once per
    /// dataset, as the app shows it beside the dataset.
    void onDataset(const data::Dataset& dataset) override
    {
        if (m_quiet || dataset.meta().contentHash == m_notedHash)
            return;
        m_notedHash = dataset.meta().contentHash;
        for (const auto& note : dataset.meta().notes)
            m_err << "  note: " << data::escapedText(note, 300) << '\n';
        m_err << std::flush;
    }
    void onSummary(const Summary& s) override
    {
        if (!m_headerPrinted) {
            char line[256];
            std::snprintf(line, sizeof line, "%-14s %-8s %12s %-9s %5s %11s %7s %7s %9s %7s %9s  %s", "variant",
                "backend", "size", "outcome", "reps", "median_ms", "noise%", "medRSE%", "GB/s", "%peak", "delta",
                "note");
            m_out << line << '\n';
            m_headerPrinted = true;
        }
        const bool timed = s.repetitions > 0;
        std::string delta = s.delta.computed ? fmt("%.2e", s.delta.value) : "-";
        if (s.delta.computed && !s.delta.withinTolerance())
            delta += "!";
        if (s.deterministic == false) {
            delta += kNondeterministicMark;
            m_anyNondeterministic = true;
        }
        // The noise is marked where it is printed: the run stopped on a limit before reaching the noise target.
        std::string noise = timed ? fmt("%.2f", s.noisePct) : "-";
        if (timed && s.noisy()) {
            noise += kNoisyMark;
            m_anyNoisy = true;
        }
        const std::string medianError = s.medianRsePct ? fmt("%.2f", *s.medianRsePct) : "-";
        // A cache-resident run's rate is marked where it is printed: on %peak when there is a ceiling, else on GB/s.
        const bool resident = timed && s.cacheResident.value_or(false);
        const bool withPeak = timed && s.peakValue > 0;
        std::string rate = timed ? fmt("%.1f", s.gbPerS) : "-";
        std::string peak = withPeak ? fmt("%.1f", s.pctOfPeak) : "-";
        if (resident) {
            (withPeak ? peak : rate) += kResidentMark;
            m_anyResident = true;
        }
        char line[512];
        std::snprintf(line, sizeof line, "%-14s %-8s %12llu %-9s %5d %11s %7s %7s %9s %7s %9s  %s", s.variant.c_str(),
            s.backend.c_str(), static_cast<unsigned long long>(s.size), outcomeName(s.outcome), s.repetitions,
            timed ? fmt("%.4f", s.medianMs).c_str() : "-", noise.c_str(), medianError.c_str(), rate.c_str(),
            peak.c_str(), delta.c_str(), shortened(withClocks(s), 90).c_str());
        m_out << line << '\n' << std::flush;
    }
    /// The note with the sampled clock range in front ("clock 1755-1980 MHz, 3 throttled; …"); a run that sampled
    /// none keeps the reason for the legend.
    std::string withClocks(const Summary& s)
    {
        if (s.clockSource.empty()) {
            if (!s.clockReason.empty() && m_clockReasons.size() < kMaxClockReasons
                && std::find(m_clockReasons.begin(), m_clockReasons.end(), s.clockReason) == m_clockReasons.end())
                m_clockReasons.push_back(s.clockReason);
            return s.message;
        }
        std::string clocks = "clock " + fmt("%.0f", s.clockMinMHz);
        if (std::lround(s.clockMaxMHz) != std::lround(s.clockMinMHz))
            clocks += "-" + fmt("%.0f", s.clockMaxMHz);
        clocks += " MHz";
        if (s.throttledSamples > 0) {
            clocks += ", " + std::to_string(s.throttledSamples) + " throttled";
            m_anyThrottled = true;
        }
        return s.message.empty() ? clocks : clocks + "; " + s.message;
    }
    /// One line under the table explaining each mark, printed only when some row carries it.
    void printLegend()
    {
        if (m_anyThrottled)
            m_out << "throttled: repetitions during which NVML reported a power or thermal slowdown; their times are "
                     "kept (rep_throttled in --json marks which)\n";
        for (const auto& reason : m_clockReasons)
            m_out << "clocks not sampled: " << reason << '\n';
        if (m_anyResident)
            m_out << kResidentMark
                  << " working set fits in the last-level cache (L2 for a GPU, LLC for the host): after its first "
                     "touch it is read from cache even with flushing, so GB/s may exceed the DRAM ceiling and %peak "
                     "100 %\n";
        if (m_anyNoisy)
            m_out << kNoisyMark
                  << " noisy: the run stopped on --time-limit (or --max-reps) before the standard error reached the "
                     "--noise target (with --decide: before its pairs reached a verdict); medRSE% is the relative "
                     "standard error of the median. Raise --time-limit "
                     "(and --max-reps) for a firmer median\n";
        if (m_anyNondeterministic)
            m_out << kNondeterministicMark
                  << " not deterministic: two runs on the same input gave results that differ in their bits\n";
        m_out << std::flush;
    }

private:
    std::ostream& m_out;
    std::ostream& m_err;
    bool m_quiet;
    bool m_headerPrinted = false;
    std::string m_notedHash;
    bool m_anyResident = false;
    bool m_anyThrottled = false;
    std::vector<std::string> m_clockReasons;
    bool m_anyNoisy = false;
    bool m_anyNondeterministic = false;
    static constexpr const char* kResidentMark = "*";
    static constexpr const char* kNoisyMark = "?";
    static constexpr const char* kNondeterministicMark = "~";
    static constexpr std::size_t kMaxClockReasons = 4;
};

/// Appends every Summary as a row to the --csv file's temporary copy (`.NAME.kernelscope-XXXXXX` beside it) as it
/// arrives, written out per row so `tail -f` shows it; finish() renames it over the file. A failed write is said once,
/// on a line of its own, and ends the CSV, never the sweep: throwing here would turn the run just measured into a
/// failed one.
class CsvObserver final : public RunObserver {
public:
    /// `withJson`: a --json file is written too, and keeps the rows a failed CSV loses.
    CsvObserver(const std::string& path, bool followLinks, bool withJson, std::ostream& err)
        : m_file(path, followLinks)
        , m_err(err)
        , m_withJson(withJson)
    {
        write(data::csvLine(csvColumns()));
    }
    void onSummary(const Summary& s) override
    {
        if (m_failed)
            return;
        try {
            write(data::csvLine(csvRow(s)));
            ++m_rows;
        } catch (const std::exception& e) {
            fail(e.what());
        }
    }
    /// Puts the file in place with every row written; false (having said why) when it could not be, leaving the old
    /// file as it was.
    bool finish()
    {
        if (m_failed)
            return false;
        try {
            m_file.commit();
            return true;
        } catch (const std::exception& e) {
            m_failed = true;
            m_err << "error: --csv " << e.what() << '\n' << std::flush;
            return false;
        }
    }
    /// Removes the temporary file (nothing was measured); the old file stays.
    void discard() { m_file.discard(); }

private:
    void write(const std::string& line)
    {
        m_file.stream() << line << '\n';
        if (!m_file.flush())
            fail(m_file.error());
    }
    void fail(const std::string& reason)
    {
        m_failed = true;
        m_file.discard();
        m_err << "error: --csv " << m_file.path() << ": write failed (" << reason << ") after "
              << data::plural(m_rows, "row") << "; the sweep goes on, " << m_file.target() << " is left as it was"
              << (m_withJson ? " (--json keeps every row)" : "") << '\n'
              << std::flush;
    }

    AtomicFile m_file;
    std::ostream& m_err;
    bool m_withJson;
    std::size_t m_rows = 0;
    bool m_failed = false;
};

/// Keeps every Summary as it arrives, so a sweep that ends in an exception still writes what it measured.
class SummaryCollector final : public RunObserver {
public:
    void onSummary(const Summary& s) override { m_summaries.push_back(s); }
    std::vector<Summary> m_summaries;
};

void printAxes(std::ostream& out, const char* title, const std::vector<Axis>& axes)
{
    if (axes.empty())
        return;
    out << "  " << title << ":\n";
    for (const auto& a : axes) {
        if (a.kind == AxisKind::Text)
            out << "    " << a.name << " (text"
                << (a.defaultValue.empty() ? "; default none" : "; default " + a.defaultValue);
        else
            out << "    " << a.name << " (default " << a.defaultValue;
        if (a.kind == AxisKind::Enum || (a.kind == AxisKind::Text && !a.choices.empty())) {
            std::string choices;
            for (auto& c : a.choices)
                choices += (choices.empty() ? "" : "|") + c;
            out << "; " << choices;
        }
        out << "): " << a.description << '\n';
    }
}

int listCommand(const std::string& workloadId, const std::vector<std::string>& kernels,
    const std::vector<std::string>& nvrtcOptions, std::ostream& out, std::ostream& err)
{
    const auto& registry = defaultRegistry();
    if (!kernels.empty() && workloadId.empty()) {
        err << "error: --kernel needs --workload: a user kernel is written for one workload's ABI\n";
        return kExitBadInput;
    }
    bool any = false;
    for (const auto& w : registry.workloads()) {
        if (!workloadId.empty() && w->id() != workloadId)
            continue;
        any = true;
        out << w->id() << " — " << w->name() << "\n  " << w->description() << "\n  variants:\n";
        for (const auto& v : w->variants()) {
            const std::string reason = unavailableReason(v);
            char line[512];
            std::snprintf(line, sizeof line, "    %-14s %-8s %s%s", v.id.c_str(), backendName(v.backend),
                v.technique.c_str(), reason.empty() ? "" : ("  [unavailable: " + reason + "]").c_str());
            out << line << '\n';
        }
        // User kernels, by their file: whether one compiles is compile's question; this says whether it can run.
        for (const std::string& kernel : kernels) {
            const Variant v = makeUserVariant(w->id(), kernel, nvrtcOptions);
            std::string reason = std::filesystem::is_regular_file(kernel) ? unavailableReason(v) : "no such file";
            char line[512];
            std::snprintf(line, sizeof line, "    %-14s %-8s %s%s", v.id.c_str(), backendName(v.backend),
                kernel.c_str(), reason.empty() ? "" : ("  [unavailable: " + reason + "]").c_str());
            out << line << '\n';
        }
        printAxes(out, "parameters (--param)", w->parameters());
        printAxes(out, "generator (--generate)", w->generatorParameters());
        out << "  files: " << w->filePatterns() << "\n\n";
    }
    if (!any) {
        err << "error: unknown workload '" << workloadId << "'\n";
        return kExitBadInput;
    }
    return kExitOk;
}

void printDevice(std::ostream& out, const DeviceInfo& d)
{
    out << "  " << d.name;
    if (d.kind == "cuda") {
        out << " (device " << d.index << ", sm_" << d.ccMajor << d.ccMinor << ", " << d.smCount << " SMs, "
            << d.smClockMHz << " MHz SM, " << d.memClockMHz << " MHz memory, " << data::formatBytes(d.totalMemory)
            << ", L2 " << data::formatBytes(d.l2Bytes) << ")\n  driver " << d.driverVersion << ", runtime "
            << d.runtimeVersion << '\n';
    } else {
        out << " (" << d.smCount << " hardware threads, " << d.driverVersion << ")\n";
    }
}

void printCeilings(std::ostream& out, const Ceilings& c)
{
    out << "  ceilings (measured " << c.measuredAt << "): read " << fmt("%.1f", c.readGBs) << " GB/s, copy "
        << fmt("%.1f", c.copyGBs) << " GB/s, FP32 " << fmt("%.0f", c.fp32Gflops) << " GFLOP/s, FP64 "
        << fmt("%.0f", c.fp64Gflops) << " GFLOP/s\n";
}

} // namespace

void printClocks(std::ostream& out, ClockSampler& sampler, bool gpu)
{
    if (const std::string reason = sampler.unavailableReason(); !reason.empty()) {
        out << "  clocks: unavailable: " << reason << '\n';
        return;
    }
    const std::optional<ClockSample> s = sampler.sample();
    if (!s) {
        out << "  clocks: unavailable: " << sampler.source() << " gave no reading\n";
        return;
    }
    out << "  clocks now (" << sampler.source() << "): ";
    if (!gpu) {
        out << "mean core frequency " << fmt("%.0f", s->smClockMHz) << " MHz\n";
        return;
    }
    // A field the GPU does not report is 0 (ClockSample): said so rather than printed as 0.
    auto reading = [](double v, const char* pattern, const char* what) {
        return v > 0.0 ? fmt(pattern, v) : std::string(what) + " not reported";
    };
    out << "SM " << fmt("%.0f", s->smClockMHz) << " MHz, " << reading(s->memClockMHz, "memory %.0f MHz", "memory clock")
        << ", " << reading(s->temperatureC, "%.0f °C", "temperature") << ", " << reading(s->powerW, "%.1f W", "power")
        << '\n';
    const std::uint64_t throttling = s->throttleReasons & kThrottlingReasons;
    const std::uint64_t others = s->throttleReasons & ~kThrottlingReasons;
    out << "  throttle reasons: " << (throttling ? "throttled (" + throttleReasonNames(throttling) + ")" : "none");
    if (others)
        out << "; other clock events: " << throttleReasonNames(others);
    out << '\n';
}

namespace {

int infoCommand(bool calibrate, bool recalibrate, std::ostream& out, std::ostream& err)
{
    out << "KernelScope " << version() << "\n\nhost:\n";
    printDevice(out, device::hostInfo());
    CpufreqSampler cpufreq;
    printClocks(out, cpufreq, false);
    if (calibrate)
        printCeilings(out, calibration::forHost(!recalibrate));
    out << "\nCUDA devices:\n";
    // NVML is asked apart from CUDA: a driver without a usable CUDA runtime (or the reverse) is worth telling apart.
    const std::string nvmlReason = device::nvmlUnavailableReason();
    out << "  NVML: " << (nvmlReason.empty() ? "available" : "unavailable: " + nvmlReason) << '\n';
    const std::string reason = device::cudaUnavailableReason();
    if (!reason.empty()) {
        out << "  none: " << reason << '\n';
        return kExitOk;
    }
    for (const auto& d : device::cudaDevices()) {
        printDevice(out, d);
        printClocks(out, *device::nvmlSampler(d.uuid), true);
        if (calibrate) {
            try {
                printCeilings(out, calibration::forDevice(d.index, !recalibrate));
            } catch (const std::exception& e) {
                err << "warning: calibration of device " << d.index << " failed: " << e.what() << '\n';
            }
        }
    }
    out << "\ncalibration cache: " << calibration::cachePath() << '\n';
    return kExitOk;
}

/// The assignments of one --param argument, "key=value,key=value": a text parameter (a file path) takes the rest of
/// the argument, commas included, so a path is never split or swept.
std::map<std::string, std::string> runAssignments(const std::string& text, const std::vector<Axis>& axes)
{
    auto isText = [&](const std::string& name) {
        return std::any_of(
            axes.begin(), axes.end(), [&](const Axis& a) { return a.name == name && a.kind == AxisKind::Text; });
    };
    std::map<std::string, std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t eq = text.find('=', pos);
        const std::size_t comma = text.find(',', pos);
        if (eq != std::string::npos && (comma == std::string::npos || eq < comma)
            && isText(text.substr(pos, eq - pos))) {
            if (eq + 1 == text.size())
                throw ParameterError("'" + text.substr(pos) + "' is not of the form key=value");
            out[text.substr(pos, eq - pos)] = text.substr(eq + 1);
            break;
        }
        const std::size_t end = comma == std::string::npos ? text.size() : comma;
        for (auto& [key, value] : ParamSet::splitAssignments(text.substr(pos, end - pos)))
            out[key] = value;
        pos = end + 1;
    }
    return out;
}

/// Throws ParameterError naming the option and what stands at `path` when an output cannot be written there
/// (outputProblem: a device, FIFO, socket or folder; a symbolic link without --force; a missing or read-only folder).
/// Opens, creates and removes nothing, so a refused target is left exactly as it was.
void requireOutput(const std::string& option, const std::string& path, bool force)
{
    std::string problem = outputProblem(path, force);
    if (problem.empty())
        return;
    if (!force && problem.rfind("a symbolic link", 0) == 0 && outputProblem(path, true).empty())
        problem += ": refused without --force (which writes to the file it leads to)";
    throw ParameterError(option + (option.back() == '=' ? "" : " ") + path + ": " + problem);
}

/// Whether two paths are the same file: an existing one by its inode (hard links too), else by its spelled-out path.
bool sameFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec))
        return std::filesystem::equivalent(a, b, ec);
    return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec) && !ec;
}

struct RunArgs {
    std::string workload;
    std::string variants = "all";
    std::string input;
    std::string h5Path;
    std::string vector;
    std::string generate;
    std::string sizes;
    std::vector<std::string> params;
    std::string csv;
    std::string json;
    std::string output;
    bool force = false; ///< --force: an output that is a symbolic link writes to the file it leads to
    RunOptions options;
    double noiseTargetPct = 0.5; ///< the stopping target, in % (RunOptions::noiseTarget is a fraction)
    bool noFlush = false;
    bool checkDeterminism = false;
    bool allowNonFinite = false;
    bool noCalibrate = false;
    std::string memoryLimit; ///< --memory-limit: a budget of this run's own (4G, 512M)
    std::string devices = "all"; ///< --devices: the multi-device variants' GPUs, "all" or "0,1,..."
    bool quiet = false;
    std::string kernels; ///< --kernel a.cu,b.cu: user kernels, run as user:<stem> in worker processes
    std::vector<std::string> nvrtcOptions;
    std::string decide; ///< --decide A,B[,C...]: the variants to decide between, the first being A
    std::string margin = "0%";
    std::string confidence = "99%";
    bool minRepsGiven = false; ///< --min-reps was given: a decision's first look comes after that many rounds
};

double parsePercent(const std::string& option, const std::string& text);
std::string userKernelWorkloadList();

/// Every output of a run checked before anything is read or run (requireOutput), its format too for --output; two
/// outputs writing one file, or an output replacing an input, are refused.
void requireOutputs(const RunArgs& a)
{
    const std::pair<std::string, std::string> outputs[]
        = {{"--csv", a.csv}, {"--json", a.json}, {"--output", a.output}};
    std::vector<std::pair<std::string, std::string>> checked;
    for (const auto& [option, path] : outputs) {
        if (path.empty())
            continue;
        requireOutput(option, path, a.force);
        const std::string target = outputTarget(path, a.force);
        for (const auto& [other, otherTarget] : checked)
            if (sameFile(target, otherTarget))
                throw ParameterError(other + " and " + option + " both name " + path + ": give each its own file");
        for (const std::string& input : {a.input, a.vector})
            if (!input.empty() && sameFile(target, input))
                throw ParameterError(option + " " + path + " is an input of this run: write the results elsewhere");
        checked.emplace_back(option, target);
    }
    if (!a.output.empty())
        if (const std::string problem = resultFileFormatProblem(a.output); !problem.empty())
            throw ParameterError("--output " + a.output + ": " + problem);
}

/// The decision options from the command line; throws ParameterError naming a bad value.
DecideOptions decideOptions(const RunArgs& a)
{
    DecideOptions options;
    options.margin = parsePercent("--margin", a.margin);
    if (options.margin >= 1.0)
        throw ParameterError("--margin '" + a.margin + "' is not below 100%");
    options.confidence = parsePercent("--confidence", a.confidence);
    if (!(options.confidence > 0.0 && options.confidence < 1.0))
        throw ParameterError("--confidence '" + a.confidence + "' is not between 0% and 100%");
    if (a.minRepsGiven)
        options.minRounds = a.options.minRepetitions;
    return options;
}

/// How setDataOrigin reads a file: in a reader worker (a run's parent), or in this process (a user variant's worker,
/// already a child process of its own).
enum class Reading { InWorker, InProcess };

/// The run parameters, generator, sizes and loaded dataset of a request as the command line gives them: what the
/// parent's run and a user variant's worker both build their data from. Throws ParameterError or
/// data::DatasetError naming the problem, LoadCancelled when `stop` ends the load.
void setDataOrigin(const RunArgs& a, const Workload& workload, SweepRequest& request, std::ostream& err,
    Reading reading = Reading::InWorker, std::stop_token stop = {})
{
    for (const auto& p : a.params)
        for (auto& [k, v] : runAssignments(p, workload.parameters()))
            request.params[k] = v;
    request.generator = ParamSet::splitAssignments(a.generate);
    if (!a.sizes.empty())
        request.sizes = parseSizeList(a.sizes);
    if (!a.input.empty()) {
        if (!a.generate.empty())
            throw ParameterError("--input and --generate exclude each other");
        if (!a.quiet)
            err << "  loading " << a.input << '\n';
        data::ReadOptions readOptions;
        readOptions.allowNonFinite = a.allowNonFinite;
        readOptions.h5Path = a.h5Path;
        readOptions.vectorPath = a.vector;
        readOptions.params = request.params;
        if (reading == Reading::InProcess) {
            request.dataset = workload.load(a.input, readOptions);
        } else {
            ReadRequest read {workload.id(), a.input, readOptions, 0};
            if (!a.memoryLimit.empty())
                read.memoryLimit = data::parseByteSize(a.memoryLimit); // checked by runCommand
            request.dataset = loadInWorker(read, stop);
        }
    } else if (!a.h5Path.empty()) {
        throw ParameterError("--h5-path needs --input");
    } else if (!a.vector.empty()) {
        throw ParameterError("--vector needs --input (a generated matrix comes with its own x)");
    }
}

/// Refuses --vector for a workload that reads none (it would be ignored) and a --device that names no device, before
/// any file is read. Throws ParameterError naming the option.
void checkVectorAndDevice(const RunArgs& a, const Workload& workload)
{
    if (!a.vector.empty() && !workload.takesVector()) {
        std::string takers;
        for (const auto& w : defaultRegistry().workloads())
            if (w->takesVector())
                takers += (takers.empty() ? "" : ", ") + w->id();
        throw ParameterError("--vector: workload '" + workload.id() + "' takes no vector (only "
            + (takers.empty() ? std::string("none") : takers) + " does)");
    }
    const int device = a.options.device;
    if (device < 0)
        throw ParameterError("--device " + std::to_string(device) + " is not a device ordinal (0, 1, ...)");
    // Device 0, the default, stays valid without a GPU: the CPU variants still run and the CUDA ones say why not.
    if (device > 0) {
        const std::size_t count = device::cudaDevices().size();
        if (static_cast<std::size_t>(device) >= count)
            throw ParameterError("--device " + std::to_string(device) + ": this machine has "
                + data::plural(count, "CUDA device")
                + (count > 0 ? " (0.." + std::to_string(count - 1) + ")"
                             : " (" + device::cudaUnavailableReason() + ")"));
    }
}

/// --devices: "all" (every device present: an empty list) or ordinals "0,1,...", each naming a device here, none twice.
/// Throws ParameterError naming the option.
std::vector<int> parseDevices(const std::string& text)
{
    if (text == "all")
        return {};
    std::vector<int> devices;
    for (const std::string& item : splitList(text)) {
        if (item.empty() || item.size() > 4
            || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw ParameterError("--devices " + data::shownName(text) + ": " + data::quotedToken(item)
                + " is not a device ordinal (give all, or a list such as 0,1)");
        devices.push_back(std::stoi(item));
    }
    try {
        return resolveDevices(devices);
    } catch (const ParameterError& e) {
        throw ParameterError("--devices " + data::shownName(text) + ": " + e.what()
            + (device::cudaDevices().empty() ? " (" + device::cudaUnavailableReason() + ")" : std::string()));
    }
}

/// The data origin of a run's arguments, as a user variant's worker rebuilds it.
DataOrigin dataOrigin(const RunArgs& a)
{
    DataOrigin o;
    o.input = a.input;
    o.h5Path = a.h5Path;
    o.vector = a.vector;
    o.generate = a.generate;
    o.allowNonFinite = a.allowNonFinite;
    o.params = a.params;
    o.noCalibrate = a.noCalibrate;
    o.nvrtcOptions = a.nvrtcOptions;
    return o;
}

int runCommand(const RunArgs& a, std::ostream& out, std::ostream& err, std::stop_token stop)
{
    if (!a.memoryLimit.empty()) {
        try {
            data::setMemoryLimit(data::parseByteSize(a.memoryLimit));
        } catch (const std::invalid_argument& e) {
            err << "error: --memory-limit " << e.what() << '\n';
            return kExitBadInput;
        }
    }
    const auto& registry = defaultRegistry();
    const Workload* workload = registry.find(a.workload);
    if (!workload) {
        std::string known;
        for (const auto& w : registry.workloads())
            known += (known.empty() ? "" : ", ") + w->id();
        err << "error: unknown workload '" << a.workload << "' (known: " << known << ")\n";
        return kExitBadInput;
    }

    SweepRequest request;
    SweepPlan plan;
    std::string featuresPath;
    std::deque<Variant> userVariants; // a deque: the run order holds pointers into it
    std::vector<std::string> userKernels;
    bool onlyUserVariants = false;
    std::vector<RunEntry> entries;
    request.workload = workload;
    request.options = a.options;
    request.options.noiseTarget = a.noiseTargetPct / 100.0;
    request.options.flushL2 = !a.noFlush;
    request.options.checkDeterminism = a.checkDeterminism;
    request.options.keepFullResult = !a.output.empty();
    const bool deciding = !a.decide.empty();
    DecideOptions decision;
    try {
        requireOutputs(a);
        if (deciding) {
            if (a.variants != "all")
                throw ParameterError("--decide names the variants to run: leave out --variant");
            if (!a.output.empty())
                throw ParameterError("--output saves one variant's result; --decide runs several");
            request.variantIds = splitList(a.decide);
            if (request.variantIds.size() < 2)
                throw ParameterError("--decide needs at least two variants, A,B[,C...]");
            decision = decideOptions(a);
        } else if (a.margin != "0%" || a.confidence != "99%") {
            throw ParameterError("--margin and --confidence belong to --decide");
        }
        for (const std::string& kernel : splitList(a.kernels)) {
            if (kernel.empty())
                continue;
            if (!findUserKernelAbi(workload->id()))
                throw ParameterError("workload '" + workload->id()
                    + "' takes no user kernels (those that do: " + userKernelWorkloadList() + ")");
            if (!std::filesystem::is_regular_file(kernel))
                throw ParameterError(
                    "--kernel " + kernel + ": " + (std::filesystem::exists(kernel) ? "not a file" : "no such file"));
            const std::string id = userVariantId(kernel);
            if (std::any_of(userVariants.begin(), userVariants.end(), [&](const Variant& v) { return v.id == id; }))
                throw ParameterError("two --kernel files are both " + id + ": give them different names");
            userVariants.push_back(makeUserVariant(workload->id(), kernel, a.nvrtcOptions));
            userKernels.push_back(kernel);
        }
        if (!userVariants.empty() && deciding)
            throw ParameterError("--decide runs built-in variants in one process; run --kernel without it");
        if (!userVariants.empty() && a.checkDeterminism)
            throw ParameterError("--check-determinism is not offered with --kernel yet");
        // The order of --variant, where user:<stem> places a user kernel; user kernels it does not name come last.
        std::vector<std::string> named = a.variants == "all" ? std::vector<std::string>() : splitList(a.variants);
        std::vector<bool> placed(userVariants.size(), false);
        for (const std::string& id : named) {
            const auto user
                = std::find_if(userVariants.begin(), userVariants.end(), [&](const Variant& v) { return v.id == id; });
            if (user != userVariants.end())
                placed[static_cast<std::size_t>(user - userVariants.begin())] = true;
            else if (id.rfind("user:", 0) == 0)
                throw ParameterError(
                    "--variant " + id + " names no --kernel file (give --kernel " + id.substr(5) + ".cu)");
            else
                request.variantIds.push_back(id);
        }
        onlyUserVariants = a.variants != "all" && request.variantIds.empty();
        checkVectorAndDevice(a, *workload);
        request.options.devices = parseDevices(a.devices);
        setDataOrigin(a, *workload, request, err, Reading::InWorker, stop);
        plan = planSweep(request);
        // Only user variants chosen: the plan's empty list would mean every built-in one.
        if (request.variantIds.empty() && onlyUserVariants)
            plan.variants.clear();
        const std::size_t variantCount
            = (request.variantIds.empty() ? plan.variants.size() : request.variantIds.size()) + userVariants.size();
        if (!a.output.empty() && (variantCount != 1 || request.sizes.size() > 1))
            throw ParameterError("--output saves one variant's result: choose a single --variant and size");
        if (!a.output.empty() && !userVariants.empty())
            throw ParameterError("--output saves a built-in variant's result; a user kernel's stays in its worker");
        // The run order: --variant's, each user:<stem> where it is named, the others after the built-in variants.
        std::size_t builtIn = 0;
        for (const std::string& id : named) {
            const auto user
                = std::find_if(userVariants.begin(), userVariants.end(), [&](const Variant& v) { return v.id == id; });
            if (user != userVariants.end())
                entries.push_back({&*user, userKernels[static_cast<std::size_t>(user - userVariants.begin())], {}});
            else
                entries.push_back({plan.variants[builtIn++], {}, {}});
        }
        if (named.empty())
            for (const Variant* v : plan.variants)
                entries.push_back({v, {}, {}});
        for (std::size_t i = 0; i < userVariants.size(); ++i)
            if (!placed[i])
                entries.push_back({&userVariants[i], userKernels[i], {}});
        // A features file holds one run's trained network: several runs would overwrite it, each with its own.
        if (const auto f = request.params.find("features"); f != request.params.end() && !f->second.empty()) {
            featuresPath = f->second;
            if (plan.variants.size() != 1 || plan.sizes.size() > 1)
                throw ParameterError("--param features=" + featuresPath
                    + " writes one run's features, but this run has " + data::plural(plan.variants.size(), "variant")
                    + " and " + data::plural(plan.sizes.size(), "size") + ": choose a single --variant and size");
            requireOutput("--param features=", featuresPath, a.force);
        }
    } catch (const LoadCancelled&) {
        err << "cancelled while loading " << a.input << '\n';
        return kExitCancelled;
    } catch (const data::DatasetError& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const ParameterError& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const std::logic_error& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        // A file that declares more than the process may hold (a size line, an HDF5 shape, a gzip bomb).
        err << "error: " << (a.input.empty() ? std::string("the generated data") : a.input)
            << ": out of memory while reading or making it (the process's memory limit, or the machine's)\n";
        return kExitBadInput;
    }

    ObserverFanout fanout;
    TableObserver table(out, err, a.quiet);
    fanout.add(&table);
    SummaryCollector collected;
    fanout.add(&collected);
    std::unique_ptr<CsvObserver> csv;
    if (!a.csv.empty()) {
        try {
            csv = std::make_unique<CsvObserver>(a.csv, a.force, !a.json.empty(), err);
        } catch (const std::exception& e) {
            err << "error: --csv " << e.what() << '\n';
            return kExitBadInput;
        }
        fanout.add(csv.get());
    }

    Runner runner;
    if (a.noCalibrate)
        runner.setCeilingsProvider({});
    // Test only: KS_TEST_UNCANCELLABLE_S=N stands for N seconds of work that checks no stop request (a large
    // generator), so the second Ctrl-C's forced exit is tested the same on a fast machine and a slow one.
    if (const char* seconds = std::getenv("KS_TEST_UNCANCELLABLE_S")) {
        fanout.onStatus("uncancellable work for " + std::string(seconds) + " s (KS_TEST_UNCANCELLABLE_S)");
        std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(seconds)));
    }
    std::vector<Summary> summaries;
    std::vector<Decision> decisions;
    int code = kExitOk;
    try {
        if (deciding) {
            DecideOutcome outcome = decideSweep(plan, decision, runner, fanout, stop);
            summaries = std::move(outcome.summaries);
            decisions = std::move(outcome.decisions);
        } else if (!userVariants.empty()) {
            summaries = runSweepWithUserKernels(plan, entries, dataOrigin(a), runner, fanout, stop);
        } else {
            summaries = runSweep(plan, runner, fanout, stop);
        }
    } catch (const ParameterError& e) {
        if (collected.m_summaries.empty()) {
            // Refused before anything was measured: every output keeps its old content.
            if (csv)
                csv->discard();
            err << "error: " << e.what() << '\n';
            return kExitBadInput;
        }
        err << "error: " << e.what() << '\n';
        summaries = collected.m_summaries;
        code = kExitBadInput;
    } catch (const std::exception& e) {
        // What was measured before the sweep failed is still written, to every output.
        err << "error: " << e.what() << '\n';
        summaries = collected.m_summaries;
        code = kExitRunProblems;
    }
    table.printLegend();
    for (const auto& d : decisions)
        out << (plan.sizes.size() > 1 ? "size " + std::to_string(d.size) + ": " : std::string()) << d.text() << '\n';

    // Each output on its own: one that cannot be written is said once and leaves its file as it was; the others are
    // still written.
    bool outputFailed = csv && !csv->finish();
    if (!a.json.empty()) {
        try {
            const std::string target = outputTarget(a.json, a.force);
            if (deciding)
                writeJson(target, summaries, decisions);
            else
                writeJson(target, summaries);
        } catch (const std::exception& e) {
            err << "error: --json " << e.what() << '\n';
            outputFailed = true;
        }
    }
    if (!a.output.empty()) {
        if (summaries.empty() || !summaries.front().result) {
            err << "error: no result to save to " << a.output << ": "
                << (summaries.empty() ? "nothing ran" : summaries.front().message) << '\n';
            code = code == kExitOk ? kExitRunProblems : code;
        } else {
            try {
                writeResultFile(outputTarget(a.output, a.force), *summaries.front().result);
            } catch (const std::exception& e) {
                err << "error: --output " << e.what() << '\n';
                outputFailed = true;
            }
        }
    }
    // The table shortens a failure's message; a features file that could not be written is said in full.
    if (!featuresPath.empty())
        for (const auto& s : summaries)
            if (s.outcome == Outcome::Failed)
                err << "error: " << s.message << '\n';
    bool cancelled = stop.stop_requested();
    for (const auto& s : summaries) {
        if (s.outcome == Outcome::Incorrect || s.outcome == Outcome::Failed)
            code = code == kExitOk ? kExitRunProblems : code;
        cancelled = cancelled || s.outcome == Outcome::Cancelled;
    }
    // The table shortens a failure's message: a broken CUDA context is said in full, once.
    const std::string cudaBroken = device::cudaUnusableReason();
    if (!cudaBroken.empty())
        err << "error: " << cudaBroken << '\n';
    // Interrupted says most; then a lost output, which the runs' own outcomes cannot show; then a broken context,
    // which left the later CUDA variants unmeasured.
    if (cancelled)
        return kExitCancelled;
    if (outputFailed)
        return kExitOutputFailed;
    if (!cudaBroken.empty())
        return kExitCudaBroken;
    if (code == kExitOk && std::any_of(decisions.begin(), decisions.end(), [](const Decision& d) {
            return d.verdict == DecisionVerdict::Undecided;
        }))
        return kExitUndecided;
    return code;
}

struct CompareArgs {
    std::string oldPath;
    std::string newPath;
    std::string threshold = "5%";
    std::string margin = "2%";
    double alpha = 0.01;
};

/// A percentage as the user writes it, "5%" or "5", as a fraction; throws ParameterError naming the option.
double parsePercent(const std::string& option, const std::string& text)
{
    std::string number = text;
    if (!number.empty() && number.back() == '%')
        number.pop_back();
    double value = 0.0;
    std::size_t used = 0;
    try {
        value = std::stod(number, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (number.empty() || used != number.size() || !std::isfinite(value) || value < 0.0)
        throw ParameterError(option + " '" + text + "' is not a percentage of at least 0 (such as 5%)");
    return value / 100.0;
}

/// The rows of two result files side by side with a verdict each; exit 3 when one got slower beyond the threshold.
int compareCommand(const CompareArgs& a, std::ostream& out, std::ostream& err)
{
    CompareOptions options;
    std::vector<Summary> before, after;
    try {
        options.threshold = parsePercent("--threshold", a.threshold);
        options.margin = parsePercent("--margin", a.margin);
        options.alpha = a.alpha;
        if (!(options.alpha > 0.0 && options.alpha < 1.0))
            throw ParameterError("--alpha " + fmt("%g", a.alpha) + " is not between 0 and 1");
        if (options.margin >= 1.0)
            throw ParameterError("--margin '" + a.margin + "' is not below 100%");
        before = readJson(a.oldPath);
        after = readJson(a.newPath);
    } catch (const ParameterError& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const data::DatasetError& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    }
    const Comparison comparison = compareRuns(before, after, options);

    char line[512];
    std::snprintf(line, sizeof line, "%-8s %-14s %12s %11s %11s %7s %9s %-14s  %s", "workload", "variant", "size",
        "old_ms", "new_ms", "ratio", "p", "verdict", "params / note");
    out << line << '\n';
    for (const auto& r : comparison.rows) {
        std::string note = r.params;
        const std::string why
            = r.regression ? "slower beyond the " + fmt("%g", options.threshold * 100.0) + "% threshold" : r.reason;
        if (!why.empty())
            note += (note.empty() ? "" : "; ") + why;
        std::snprintf(line, sizeof line, "%-8s %-14s %12llu %11s %11s %7s %9s %-14s  %s", r.workload.c_str(),
            r.variant.c_str(), static_cast<unsigned long long>(r.size),
            r.oldMedianMs ? fmt("%.4f", *r.oldMedianMs).c_str() : "-",
            r.newMedianMs ? fmt("%.4f", *r.newMedianMs).c_str() : "-", r.ratio ? fmt("%.3f", *r.ratio).c_str() : "-",
            r.test ? fmt("%.2g", r.test->pValue).c_str() : "-",
            (std::string(verdictName(r.verdict)) + (r.regression ? "!" : "")).c_str(), shortened(note, 90).c_str());
        out << line << '\n';
    }
    out << comparison.summaryLine() << '\n';
    return comparison.anyRegression() ? kExitSlower : kExitOk;
}

// ---------------------------------------------------------------------------------------------------------------
// Bring your own kernel: templates and compilation (running user kernels comes with the worker process).

/// The workloads with a user-kernel ABI, for messages.
std::string userKernelWorkloadList()
{
    std::string list;
    for (const std::string& w : userKernelWorkloads())
        list += (list.empty() ? "" : ", ") + w;
    return list;
}

const UserKernelAbi* requireUserKernelAbi(const std::string& workload, std::ostream& err)
{
    const UserKernelAbi* abi = findUserKernelAbi(workload);
    if (!abi)
        err << "error: workload '" << workload << "' takes no user kernels (those that do: " << userKernelWorkloadList()
            << ")\n";
    return abi;
}

int newKernelCommand(const std::string& workload, std::ostream& out, std::ostream& err)
{
    const UserKernelAbi* abi = requireUserKernelAbi(workload, err);
    if (!abi)
        return kExitBadInput;
    out << abi->templateSource;
    return kExitOk;
}

struct CompileArgs {
    std::string workload;
    std::string kernel;
    std::vector<std::string> nvrtcOptions;
    std::string arch;
    std::string cacheDir;
    std::string output;
    bool force = false; ///< --force: an --output that is a symbolic link writes to the file it leads to
};

/// The first CUDA device's architecture, else sm_90 (Hopper: what the device preset builds for).
std::string defaultArchitecture()
{
    const std::vector<DeviceInfo> devices = device::cudaDevices();
    if (!devices.empty())
        return device::archForCapability(devices.front().ccMajor, devices.front().ccMinor);
    return "sm_90";
}

int compileCommand(const CompileArgs& a, std::ostream& out, std::ostream& err)
{
    const UserKernelAbi* abi = requireUserKernelAbi(a.workload, err);
    if (!abi)
        return kExitBadInput;
    try {
        if (!a.output.empty()) {
            requireOutput("--output", a.output, a.force);
            if (sameFile(outputTarget(a.output, a.force), a.kernel))
                throw ParameterError("--output " + a.output + " is the kernel's own file: write the PTX elsewhere");
        }
    } catch (const ParameterError& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    }
    std::ifstream in(a.kernel, std::ios::binary);
    if (!in || std::filesystem::is_directory(a.kernel)) {
        err << "error: " << a.kernel << ": " << (std::filesystem::exists(a.kernel) ? "cannot be read" : "no such file")
            << '\n';
        return kExitBadInput;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const std::string arch = a.arch.empty() ? defaultArchitecture() : a.arch;
    if (!device::isRealArchitecture(arch)) {
        err << "error: --arch " << arch << " is not an architecture such as sm_90\n";
        return kExitBadInput;
    }

    // Both the declaration and the code are checked, so one pass shows every problem.
    bool failed = false;
    LaunchDeclaration declaration;
    try {
        declaration = parseLaunchDeclaration(source, a.kernel, abi->sizeNames);
    } catch (const UserKernelError& e) {
        err << e.what() << '\n';
        failed = true;
    }
    if (const std::string reason = device::nvrtcUnavailableReason(); !reason.empty()) {
        err << "error: cannot compile " << a.kernel << ": " << reason << '\n';
        return kExitBadInput;
    }

    device::CompileRequest request;
    request.program = userKernelProgram(*abi, source, a.kernel);
    request.programName = a.kernel;
    request.arch = arch;
    request.kind = device::CodeKind::Ptx;
    request.extraOptions = a.nvrtcOptions;
    device::KernelCache cache(
        a.cacheDir.empty() ? device::KernelCache::defaultDirectory() : std::filesystem::path(a.cacheDir));
    const device::CompiledKernel compiled = cache.compile(request);
    for (const device::CompileDiagnostic& d : compiled.diagnostics)
        err << d.text() << '\n';
    if (!compiled.ok)
        return kExitBadInput;
    for (const LaunchStep& step : declaration.steps)
        if (!std::regex_search(compiled.code, std::regex("\\.entry\\s+" + step.kernel + "\\s*\\("))) {
            err << a.kernel << ":" << step.line << ": kernel '" << step.kernel
                << "' is declared here but the file defines no extern \"C\" __global__ function of that name\n";
            failed = true;
        }
    if (failed)
        return kExitBadInput;

    if (!a.output.empty()) {
        try {
            AtomicFile ptx(outputTarget(a.output, a.force));
            ptx.stream() << compiled.code;
            ptx.commit();
        } catch (const std::exception& e) {
            err << "error: --output " << e.what() << '\n';
            return kExitBadInput;
        }
    }
    out << a.kernel << ": compiled for " << arch << " with NVRTC " << device::nvrtcVersion() << " (PTX, "
        << compiled.code.size() << " bytes" << (compiled.cacheHit ? ", cached" : "") << ")\n";
    int index = 0;
    for (const LaunchStep& step : declaration.steps)
        out << "  " << ++index << ". " << step.kernel << "  block=" << step.block.text()
            << "  grid=" << step.grid.text() << "  shared=" << step.shared.text() << '\n';
    if (declaration.scratchLine != 0)
        out << "  scratch=" << declaration.scratch.text() << " bytes\n";
    return kExitOk;
}
/// The worker's stdout: a JSON line per Sample as the runner reports it, and one when the kernel is prepared.
class WorkerLines final : public RunObserver {
public:
    explicit WorkerLines(std::ostream& out)
        : m_out(out)
    {
    }
    void onSample(const Sample& s) override { line({{"sample", toJson(s)}}); }
    void line(const nlohmann::ordered_json& j) { m_out << j.dump() << '\n' << std::flush; }

private:
    std::ostream& m_out;
};

/// `kernelscope-cli worker`: one user variant's run, isolated in this process (worker.h). Reads a WorkerRequest on
/// stdin, builds the dataset and the reference as run does, runs the user variant and writes its samples and
/// Summary as JSON lines on stdout. Problems before the run go to stderr, one line, and exit non-zero.
int workerCommand(std::istream& in, std::ostream& out, std::ostream& err, std::stop_token stop)
{
    WorkerRequest w;
    try {
        std::ostringstream text;
        text << in.rdbuf();
        w = workerRequestFromJson(nlohmann::ordered_json::parse(text.str()));
    } catch (const std::exception& e) {
        err << "error: unreadable worker request: " << e.what() << '\n';
        return kExitBadInput;
    }
    data::setMemoryLimit(w.memoryLimit);
    const Workload* workload = defaultRegistry().find(w.workload);
    if (!workload) {
        err << "error: unknown workload '" << w.workload << "'\n";
        return kExitBadInput;
    }
    RunArgs a;
    a.workload = w.workload;
    a.input = w.input;
    a.h5Path = w.h5Path;
    a.vector = w.vector;
    a.generate = w.generate;
    a.allowNonFinite = w.allowNonFinite;
    a.sizes = std::to_string(w.size);
    a.params = w.params;
    a.quiet = true;
    SweepRequest request;
    request.workload = workload;
    request.options = w.options;
    setDataOrigin(a, *workload, request, err, Reading::InProcess);
    SweepPlan plan = planSweep(request);

    WorkerLines lines(out);
    Variant user = makeUserVariant(w.workload, w.kernel, w.nvrtcOptions);
    if (user.prepare)
        user.prepare = [inner = user.prepare, &lines](
                           const data::Dataset& dataset, const ParamSet& params, const RunContext& context) {
            auto run = inner(dataset, params, context);
            // Compiled and uploaded: from here the parent's watchdog allows the run's time limit, not compiling's.
            lines.line({{"prepared", true}});
            return run;
        };
    Runner runner;
    if (w.noCalibrate)
        runner.setCeilingsProvider({});
    RunObserver silent;
    const SizeInputs inputs = prepareSize(plan, 0, runner, silent);
    Summary s = inputs.problem.empty()
        ? runner.run({workload, &user, inputs.dataset, plan.params, w.options, inputs.reference, w.runId}, lines, stop)
        : failedSweepRow(plan, user, w.size, w.runId, inputs.problem);
    s.result.reset(); // compared here already; the parent needs only the numbers
    lines.line({{"summary", toJson(s)}});
    return kExitOk;
}

} // namespace

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::stop_token stop)
{
    CLI::App app {"KernelScope " + std::string(version())
        + " — run CUDA kernel variants side by side, time them properly and check them against a reference"};
    app.name("kernelscope-cli");
    app.set_version_flag("--version", "kernelscope-cli " + std::string(version()));
    app.require_subcommand(1);

    std::string listWorkload;
    auto* list = app.add_subcommand("list", "List workloads, their variants (with why any cannot run) and parameters");
    list->add_option("--workload,-w", listWorkload, "Only this workload");
    std::string listKernels;
    std::vector<std::string> listNvrtcOptions;
    list->add_option(
        "--kernel,-k", listKernels, "User kernel files a.cu,b.cu to list as user:<stem> (with --workload)");
    list->add_option("--nvrtc-opt", listNvrtcOptions, "An extra NVRTC option (repeatable)")->allow_extra_args(false);

    auto* worker = app.add_subcommand("worker", "");
    worker->group(""); // internal: run --kernel's worker process, not for people
    auto* readWorker = app.add_subcommand("read-worker", "");
    readWorker->group(""); // internal: read a dataset file in a child process (reader_worker.h)

    bool noCalibrate = false, recalibrate = false;
    auto* info = app.add_subcommand("info", "Show the host and CUDA devices with their calibrated ceilings");
    info->add_flag("--no-calibrate", noCalibrate, "Do not measure or read the ceilings");
    info->add_flag("--recalibrate", recalibrate, "Measure the ceilings again, ignoring the cache");

    RunArgs r;
    auto* run = app.add_subcommand("run", "Run variants of a workload on a file or generated data");
    run->add_option("--workload,-w", r.workload, "Workload id (see list)")->required();
    run->add_option("--variant,-v", r.variants, "Variant ids, comma-separated, or all")->capture_default_str();
    auto* input = run->add_option("--input,-i", r.input, "Dataset file");
    run->add_option("--h5-path", r.h5Path, "Group or dataset to read from an HDF5 file with several candidates");
    run->add_option("--vector", r.vector,
        "Second operand file for workloads that multiply by one (spmv's x: one value per line, or an HDF5 1-D "
        "dataset); default: generated from a seed");
    auto* generate = run->add_option("--generate,-g", r.generate, "Generator parameters key=value,... (see list)");
    input->excludes(generate);
    run->add_option("--sizes,-s", r.sizes, "Sizes to sweep: N,N,... (2^K, 1e6 and A..B doubling accepted)");
    run->add_option("--param,-p", r.params, "Run parameter key=value (repeatable)");
    run->add_option("--csv", r.csv,
        "Write one CSV row per run: appended as runs finish to .NAME.kernelscope-XXXXXX beside it (tail -f that), "
        "renamed to NAME at the end");
    run->add_option("--json", r.json, "Write every summary with its samples as JSON");
    run->add_option("--output,-o", r.output, "Save the single variant's result (.csv or .h5)");
    run->add_flag("--force", r.force,
        "An output that is a symbolic link writes to the file it leads to (without it, refused); a device, FIFO or "
        "folder is always refused");
    run->add_option("--warmup", r.options.warmup, "Warm-up repetitions")->capture_default_str();
    auto* minReps = run->add_option("--min-reps", r.options.minRepetitions,
        "Minimum timed repetitions (with --decide: rounds before the first look, default 10)");
    minReps->capture_default_str();
    run->add_option("--max-reps", r.options.maxRepetitions, "Maximum timed repetitions")->capture_default_str();
    run->add_option("--noise", r.noiseTargetPct, "Stop when the relative standard error of the mean is under this %")
        ->capture_default_str();
    run->add_option("--time-limit", r.options.timeLimitS, "Seconds per run before it stops repeating")
        ->capture_default_str();
    run->add_option("--device", r.options.device, "CUDA device ordinal")->capture_default_str();
    run->add_option("--devices", r.devices,
           "The GPUs a multi-device variant (tiled_f32_multi, dmma_refined_multi, warp_shuffle_multi) spreads over: "
           "all, or ordinals such as 0,1")
        ->capture_default_str();
    run->add_flag("--no-flush", r.noFlush, "Do not flush the L2/CPU caches between repetitions");
    run->add_flag("--check-determinism", r.checkDeterminism,
        "Run each variant once more, freshly prepared, and say whether the two results are bit-identical (CSV/JSON "
        "'deterministic'; '~' in the table when not); runs with state (cnn) are always replayed");
    run->add_flag("--allow-nonfinite", r.allowNonFinite, "Keep NaN/Inf values in input files instead of rejecting");
    run->add_flag("--no-calibrate", r.noCalibrate, "Skip the ceilings (no % of peak)");
    run->add_option("--memory-limit", r.memoryLimit,
        "Refuse inputs that would need more memory than this (4G, 512M); the machine's available memory, ulimit -v "
        "and the cgroup's limit always apply");
    run->add_flag("--quiet,-q", r.quiet, "No progress on stderr");
    run->add_option("--kernel,-k", r.kernels,
        "User kernel files a.cu,b.cu (see new-kernel): each runs as user:<stem>, checked and timed like the built-in "
        "variants, in a worker process of its own; --variant user:<stem> places one in the order");
    run->add_option("--nvrtc-opt", r.nvrtcOptions, "An extra NVRTC option for --kernel (repeatable; --nvrtc-opt=-DX=1)")
        ->allow_extra_args(false);
    run->add_option("--decide", r.decide,
        "A,B[,C...]: run these variants interleaved until the confidence interval of each one's time ratio to A "
        "excludes 1 (faster/slower) or lies within --margin (equivalent), or --max-reps rounds or --time-limit per "
        "variant; exits 4 when a pair stays undecided");
    run->add_option("--margin", r.margin, "With --decide: ratios within 1 ± this are equivalent (0%: never)")
        ->capture_default_str();
    run->add_option("--confidence", r.confidence, "With --decide: confidence of each ratio's interval")
        ->capture_default_str();

    CompareArgs c;
    auto* compare = app.add_subcommand("compare",
        "Compare two --json result files row by row (Mann-Whitney U on the stored samples); exits 3 when a row got "
        "slower beyond --threshold");
    compare->add_option("old", c.oldPath, "The baseline's JSON results")->required();
    compare->add_option("new", c.newPath, "The JSON results to judge against it")->required();
    compare->add_option("--threshold", c.threshold, "A slower row whose medians' ratio exceeds 1 + this fails (exit 3)")
        ->capture_default_str();
    compare->add_option("--alpha", c.alpha, "Significance level of the test")->capture_default_str();
    compare->add_option("--margin", c.margin, "Ratios within 1 ± this are unchanged however significant")
        ->capture_default_str();

    std::string templateWorkload;
    auto* newKernel = app.add_subcommand("new-kernel",
        "Print a template user kernel for a workload: its launch declaration and extern \"C\" entry points, a correct, "
        "simple kernel to start from");
    newKernel->add_option("--workload,-w", templateWorkload, "Workload id (linreg, lrv, sdh, spmv)")->required();

    CompileArgs k;
    auto* compile = app.add_subcommand("compile",
        "Compile a user kernel to PTX with NVRTC (no GPU needed) and check its launch declaration; errors name the "
        "file and line, exit 2");
    compile->add_option("--workload,-w", k.workload, "Workload id (linreg, lrv, sdh, spmv)")->required();
    compile->add_option("--kernel,-k", k.kernel, "The user's .cu file")->required();
    compile->add_option("--nvrtc-opt", k.nvrtcOptions, "An extra NVRTC option (repeatable; --nvrtc-opt=-DX=1)")
        ->allow_extra_args(false);
    compile->add_option("--arch", k.arch, "Target architecture, sm_XY (default: the first GPU's, else sm_90)");
    compile->add_option("--cache-dir", k.cacheDir, "Compiled-kernel cache (default ~/.cache/kernelscope/kernels)");
    compile->add_option("--output,-o", k.output, "Write the PTX to this file");
    compile->add_flag("--force", k.force, "An --output that is a symbolic link writes to the file it leads to");

    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return kExitOk;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return kExitOk;
    } catch (const CLI::CallForVersion&) {
        out << "kernelscope-cli " << version() << '\n';
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        std::string message = e.what();
        if (message.empty())
            message = "invalid command line";
        err << "error: " << message << " (see kernelscope-cli --help)\n";
        return kExitBadInput;
    }

    try {
        if (*worker)
            return workerCommand(std::cin, out, err, stop);
        if (*readWorker)
            return readWorkerMain(std::cin, out, err);
        if (*list) {
            std::vector<std::string> kernels;
            for (const std::string& file : splitList(listKernels))
                if (!file.empty())
                    kernels.push_back(file);
            return listCommand(listWorkload, kernels, listNvrtcOptions, out, err);
        }
        if (*info)
            return infoCommand(!noCalibrate, recalibrate, out, err);
        if (*compare)
            return compareCommand(c, out, err);
        if (*newKernel)
            return newKernelCommand(templateWorkload, out, err);
        if (*compile)
            return compileCommand(k, out, err);
        r.minRepsGiven = minReps->count() > 0;
        return runCommand(r, out, err, stop);
    } catch (const std::exception& e) {
        err << "error: " << e.what() << '\n';
        return kExitRunProblems;
    }
}

} // namespace ks::cli
