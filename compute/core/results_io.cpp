#include "compute/core/results_io.h"

#include "compute/core/atomic_file.h"
#include "compute/core/errors.h"
#include "compute/core/version.h"
#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/hdf5_file.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ks {

namespace {
std::string num(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
}

/// The shortest text that reads back as exactly `v` (std::to_chars): a saved result keeps every digit computed.
std::string exact(double v)
{
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
    return std::string(buffer, end);
}

/// Named numbers as "name=value;name=value" (Delta details, facts).
std::string namedText(const Facts& facts)
{
    std::string text;
    for (const auto& [k, v] : facts)
        text += (text.empty() ? "" : ";") + k + "=" + num(v);
    return text;
}

std::string lowerExtension(const std::string& path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    for (auto& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

/// JSON has no NaN: non-finite numbers are written as strings and read back.
nlohmann::ordered_json jnum(double v)
{
    if (std::isfinite(v))
        return v;
    return num(v);
}

double fromJnum(const nlohmann::ordered_json& j)
{
    if (j.is_number())
        return j.get<double>();
    if (j.is_string()) {
        const auto s = j.get<std::string>();
        if (s == "nan")
            return std::nan("");
        if (s == "inf")
            return INFINITY;
        if (s == "-inf")
            return -INFINITY;
    }
    return 0.0;
}

constexpr std::size_t kMaxResultValuesInJson = 4096;

const char* binsName(ErrorBins bins)
{
    return bins == ErrorBins::Log10 ? "log10" : "pow2";
}

/// An error histogram in JSON: its layout named (Log10 with its lowest edge and bins per decade, so a reader can
/// tell a layout it does not know), the counts without their trailing zeros.
nlohmann::ordered_json histogramJson(const ErrorHistogram& h)
{
    nlohmann::ordered_json j;
    j["measure"] = h.measure;
    j["bins"] = binsName(h.bins);
    if (h.bins == ErrorBins::Log10) {
        j["low_exponent"] = ErrorHistogram::kLowExponent;
        j["high_exponent"] = ErrorHistogram::kHighExponent;
        j["bins_per_decade"] = ErrorHistogram::kBinsPerDecade;
    }
    j["elements"] = h.elements;
    j["sampled"] = h.sampled;
    j["non_finite"] = h.nonFinite;
    if (h.tolerance)
        j["tolerance"] = jnum(*h.tolerance);
    const std::size_t used = h.highestBin() ? *h.highestBin() + 1 : 0;
    j["counts"] = std::vector<std::uint64_t>(h.counts.begin(), h.counts.begin() + static_cast<std::ptrdiff_t>(used));
    return j;
}

/// A histogram read back; nullopt for one of a layout this build does not know (or a malformed one), which is
/// dropped rather than misread.
std::optional<ErrorHistogram> histogramFromJson(const nlohmann::ordered_json& j)
{
    if (!j.is_object() || !j.contains("counts") || !j["counts"].is_array())
        return std::nullopt;
    const std::string bins = j.value("bins", std::string());
    ErrorBins layout = ErrorBins::Log10;
    if (bins == binsName(ErrorBins::PowersOfTwo))
        layout = ErrorBins::PowersOfTwo;
    else if (bins != binsName(ErrorBins::Log10) || j.value("low_exponent", 0) != ErrorHistogram::kLowExponent
        || j.value("high_exponent", 0) != ErrorHistogram::kHighExponent
        || j.value("bins_per_decade", 0) != ErrorHistogram::kBinsPerDecade)
        return std::nullopt;
    ErrorHistogram h(layout, j.value("measure", std::string()));
    const auto& counts = j["counts"];
    if (counts.size() > h.counts.size())
        return std::nullopt;
    for (std::size_t b = 0; b < counts.size(); ++b) {
        if (!counts[b].is_number_unsigned())
            return std::nullopt;
        h.counts[b] = counts[b].get<std::uint64_t>();
    }
    h.elements = j.value("elements", std::uint64_t(0));
    h.sampled = j.value("sampled", false);
    h.nonFinite = j.value("non_finite", std::uint64_t(0));
    if (j.contains("tolerance"))
        h.tolerance = fromJnum(j["tolerance"]);
    return h;
}
} // namespace

const std::vector<std::string>& csvColumns()
{
    static const std::vector<std::string> columns = {
        "run_id",
        "timestamp",
        "workload",
        "variant",
        "variant_name",
        "backend",
        "outcome",
        "dataset",
        "dataset_hash",
        "size",
        "params",
        "repetitions",
        "median_ms",
        "mean_ms",
        "min_ms",
        "max_ms",
        "stdev_ms",
        "noise_pct",
        "transfer_ms",
        "bytes",
        "gb_per_s",
        "flops",
        "gflop_per_s",
        "items",
        "item_name",
        "items_per_s",
        "peak_kind",
        "peak_value",
        "pct_of_peak",
        "delta_kind",
        "delta_value",
        "tolerance",
        "delta_details",
        "message",
        "device_kind",
        "device_index",
        "device_name",
        "sm_count",
        "compute_capability",
        "sm_clock_mhz",
        "mem_clock_mhz",
        "driver_version",
        "runtime_version",
        "ks_version",
        "deterministic",
        "facts",
        "cache_bytes",
        "fits_in_cache",
        // Clocks sampled around the repetitions (issue 12, item 3).
        "sm_clock_min_mhz",
        "sm_clock_max_mhz",
        "throttled_samples",
        "clock_source",
        "clock_reason",
        "median_rse_pct",
        "stop_reason",
        "noisy",
    };
    return columns;
}

std::vector<std::string> csvRow(const Summary& s)
{
    const auto& d = s.device;
    return {
        s.runId,
        s.timestamp,
        s.workload,
        s.variant,
        s.variantName,
        s.backend,
        outcomeName(s.outcome),
        s.datasetName,
        s.datasetHash,
        std::to_string(s.size),
        s.params.toString(),
        std::to_string(s.repetitions),
        num(s.medianMs),
        num(s.meanMs),
        num(s.minMs),
        num(s.maxMs),
        num(s.stdevMs),
        num(s.noisePct),
        num(s.transferMs),
        num(s.bytes),
        num(s.gbPerS),
        num(s.flops),
        num(s.gflopPerS),
        num(s.items),
        s.itemName,
        num(s.itemsPerS),
        s.peakKind,
        num(s.peakValue),
        num(s.pctOfPeak),
        s.delta.computed ? s.delta.kind : "",
        s.delta.computed ? num(s.delta.value) : "",
        s.delta.computed ? num(s.delta.tolerance) : "",
        namedText(s.delta.details),
        s.message,
        d.kind,
        std::to_string(d.index),
        d.name,
        std::to_string(d.smCount),
        d.kind == "cuda" ? std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) : "",
        std::to_string(d.smClockMHz),
        std::to_string(d.memClockMHz),
        d.driverVersion,
        d.runtimeVersion,
        s.version,
        s.deterministic ? (*s.deterministic ? "yes" : "no") : "",
        namedText(s.facts),
        s.cacheBytes > 0 ? std::to_string(s.cacheBytes) : "",
        s.cacheResident ? (*s.cacheResident ? "yes" : "no") : "",
        s.clockSource.empty() ? "" : num(s.clockMinMHz),
        s.clockSource.empty() ? "" : num(s.clockMaxMHz),
        s.clockSource.empty() ? "" : std::to_string(s.throttledSamples),
        s.clockSource,
        s.clockReason,
        s.medianRsePct ? num(*s.medianRsePct) : "",
        stopReasonName(s.stopReason),
        s.noisy() ? "yes" : "no",
    };
}

void writeCsv(const std::string& path, const std::vector<Summary>& summaries)
{
    AtomicFile file(path);
    std::ostream& out = file.stream();
    out << data::csvLine(csvColumns()) << '\n';
    for (const auto& s : summaries)
        out << data::csvLine(csvRow(s)) << '\n';
    file.commit();
}

namespace {
/// One data row of a results CSV, its fields found by column name; a column the file lacks reads as empty.
class CsvRecord {
public:
    CsvRecord(const std::map<std::string, std::size_t>& columns, const data::TextRow& row, const std::string& file)
        : m_columns(columns)
        , m_row(row)
        , m_file(file)
    {
    }

    std::string text(const std::string& name) const
    {
        const auto it = m_columns.find(name);
        return it == m_columns.end() ? std::string() : m_row.fields[it->second];
    }
    bool has(const std::string& name) const { return !text(name).empty(); }
    /// An empty cell (a column the file lacks, or a field csvRow leaves empty) is `fallback`.
    double real(const std::string& name, double fallback = 0.0) const
    {
        const auto it = m_columns.find(name);
        if (it == m_columns.end() || m_row.fields[it->second].empty())
            return fallback;
        return data::parseNumberField(m_row.fields[it->second], m_file, m_row.line, it->second + 1);
    }
    template <typename Int> Int integer(const std::string& name) const
    {
        const auto it = m_columns.find(name);
        if (it == m_columns.end() || m_row.fields[it->second].empty())
            return Int {};
        const std::string& field = m_row.fields[it->second];
        Int value {};
        const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
        if (ec != std::errc() || ptr != field.data() + field.size())
            fail(it->second, name + " '" + field + "' is not a whole number");
        return value;
    }
    std::optional<bool> yesNo(const std::string& name) const
    {
        const std::string field = text(name);
        if (field.empty())
            return std::nullopt;
        if (field == "yes" || field == "no")
            return field == "yes";
        fail(m_columns.at(name), name + " '" + field + "' is neither yes nor no");
    }
    /// "name=value;name=value", as namedText writes it.
    Facts named(const std::string& name) const
    {
        Facts facts;
        const std::string field = text(name);
        std::size_t start = 0;
        while (start < field.size()) {
            std::size_t end = field.find(';', start);
            if (end == std::string::npos)
                end = field.size();
            const std::string item = field.substr(start, end - start);
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos)
                fail(m_columns.at(name), name + " item '" + item + "' is not name=value");
            facts.emplace_back(item.substr(0, eq),
                data::parseNumberField(item.substr(eq + 1), m_file, m_row.line, m_columns.at(name) + 1));
            start = end + 1;
        }
        return facts;
    }
    [[noreturn]] void fail(std::size_t column, const std::string& problem) const
    {
        throw data::DatasetError(m_file, data::linePlace(m_row.line, column + 1), problem);
    }
    [[noreturn]] void fail(const std::string& problem) const
    {
        throw data::DatasetError(m_file, data::linePlace(m_row.line), problem);
    }

private:
    const std::map<std::string, std::size_t>& m_columns;
    const data::TextRow& m_row;
    const std::string& m_file;
};

Summary summaryFromCsv(const CsvRecord& r)
{
    Summary s;
    s.runId = r.text("run_id");
    s.timestamp = r.text("timestamp");
    s.workload = r.text("workload");
    s.variant = r.text("variant");
    s.variantName = r.text("variant_name");
    s.backend = r.text("backend");
    try {
        s.outcome = outcomeFromName(r.text("outcome"));
        s.params = ParamSet::fromString(r.text("params"));
    } catch (const ParameterError& e) {
        r.fail(e.what());
    }
    s.datasetName = r.text("dataset");
    s.datasetHash = r.text("dataset_hash");
    s.size = r.integer<std::uint64_t>("size");
    s.repetitions = r.integer<int>("repetitions");
    s.medianMs = r.real("median_ms");
    s.meanMs = r.real("mean_ms");
    s.minMs = r.real("min_ms");
    s.maxMs = r.real("max_ms");
    s.stdevMs = r.real("stdev_ms");
    s.noisePct = r.real("noise_pct");
    s.transferMs = r.real("transfer_ms");
    s.bytes = r.real("bytes");
    s.gbPerS = r.real("gb_per_s");
    s.flops = r.real("flops");
    s.gflopPerS = r.real("gflop_per_s");
    s.items = r.real("items");
    s.itemName = r.text("item_name");
    s.itemsPerS = r.real("items_per_s");
    s.peakKind = r.text("peak_kind");
    s.peakValue = r.real("peak_value");
    s.pctOfPeak = r.real("pct_of_peak");
    // csvRow leaves the Delta's cells empty when none was computed.
    s.delta.computed = r.has("delta_value");
    s.delta.kind = r.text("delta_kind");
    s.delta.value = r.real("delta_value");
    s.delta.tolerance = r.real("tolerance");
    s.delta.details = r.named("delta_details");
    s.message = r.text("message");
    s.device.kind = r.text("device_kind");
    s.device.index = r.has("device_index") ? r.integer<int>("device_index") : -1;
    s.device.name = r.text("device_name");
    s.device.smCount = r.integer<int>("sm_count");
    const std::string cc = r.text("compute_capability");
    if (auto dot = cc.find('.'); dot != std::string::npos) {
        s.device.ccMajor = std::atoi(cc.substr(0, dot).c_str());
        s.device.ccMinor = std::atoi(cc.substr(dot + 1).c_str());
    }
    s.device.smClockMHz = r.integer<int>("sm_clock_mhz");
    s.device.memClockMHz = r.integer<int>("mem_clock_mhz");
    s.device.driverVersion = r.text("driver_version");
    s.device.runtimeVersion = r.text("runtime_version");
    s.version = r.text("ks_version");
    s.deterministic = r.yesNo("deterministic");
    s.facts = r.named("facts");
    s.cacheBytes = r.integer<std::uint64_t>("cache_bytes");
    s.cacheResident = r.yesNo("fits_in_cache");
    s.clockMinMHz = r.real("sm_clock_min_mhz");
    s.clockMaxMHz = r.real("sm_clock_max_mhz");
    s.throttledSamples = r.integer<int>("throttled_samples");
    s.clockSource = r.text("clock_source");
    s.clockReason = r.text("clock_reason");
    if (r.has("median_rse_pct"))
        s.medianRsePct = r.real("median_rse_pct");
    s.stopReason = stopReasonFromName(r.text("stop_reason"));
    return s;
}
} // namespace

std::vector<Summary> readCsv(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw data::DatasetError(path, "", "cannot open");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::map<std::string, std::size_t> columns;
    std::size_t headerSize = 0;
    std::vector<Summary> out;
    const auto take = [&](const data::TextRow& row) {
        if (row.fields.size() != headerSize)
            throw data::DatasetError(path, data::linePlace(row.line),
                std::to_string(row.fields.size()) + " fields where the header has " + std::to_string(headerSize));
        out.push_back(summaryFromCsv(CsvRecord(columns, row, path)));
    };
    // A writer killed outright in the middle of a row (SIGKILL, a crash in another thread) can leave that row cut
    // short: Linux stops a write for a fatal signal at a page boundary, so the file then ends at a multiple of 4,096
    // bytes and without a line end. Such a last row, short of fields or inside a quoted field, is left out; any other
    // malformed row is an error.
    const bool cutByAKill = !text.empty() && text.back() != '\n' && text.size() % 4096 == 0;
    std::optional<data::TextRow> last; // taken once the next row (or a whole end) shows it is not cut
    data::DelimitedOptions options;
    options.delimiter = data::Delimiter::Comma;
    options.commentChar = '\0'; // csvField quotes a leading '#'; no line of ours is a comment
    try {
        data::parseDelimitedText(text, path, options, [&](data::TextRow& row) {
            if (headerSize == 0) {
                for (std::size_t i = 0; i < row.fields.size(); ++i)
                    columns.emplace(row.fields[i], i);
                headerSize = row.fields.size();
                for (const char* required : {"workload", "variant", "outcome", "size", "median_ms"})
                    if (!columns.contains(required))
                        throw data::DatasetError(path, data::linePlace(row.line),
                            std::string("no '") + required + "' column: not a KernelScope results CSV");
                return true;
            }
            if (last)
                take(*last);
            last = std::move(row);
            return true;
        });
    } catch (const data::DatasetError& e) {
        if (!cutByAKill || headerSize == 0 || e.problem() != "unterminated quoted field")
            throw;
        if (last) // the cut row never reached `last`: the one there is whole
            take(*last);
        return out;
    }
    if (headerSize == 0)
        throw data::DatasetError(path, "", "empty file: not a KernelScope results CSV");
    if (last && !(cutByAKill && last->fields.size() < headerSize))
        take(*last);
    return out;
}

CsvAppender::CsvAppender(const std::string& path)
    : m_path(path)
{
    // Refused before opening: opening a FIFO for writing would block, and a device is never appended to.
    if (const std::string problem = outputProblem(path, false); !problem.empty())
        throw std::runtime_error(path + ": " + problem);
    m_fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    if (m_fd < 0)
        throw std::runtime_error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
    struct stat info { };
    if (::fstat(m_fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(m_fd);
        m_fd = -1;
        throw std::runtime_error(path + ": not a regular file");
    }
    if (info.st_size == 0)
        writeWhole(data::csvLine(csvColumns()) + '\n');
}

CsvAppender::~CsvAppender()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void CsvAppender::append(const Summary& summary)
{
    writeWhole(data::csvLine(csvRow(summary)) + '\n');
}

void CsvAppender::writeWhole(const std::string& text)
{
    struct stat before { };
    const bool sized = ::fstat(m_fd, &before) == 0;
    const char* at = text.data();
    const char* end = at + text.size();
    while (at < end) {
        const ssize_t written = ::write(m_fd, at, static_cast<std::size_t>(end - at));
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            const int error = written < 0 ? errno : EIO;
            // The part of the row that went in is cut off: the file ends at its last whole row.
            if (sized && at != text.data())
                (void)::ftruncate(m_fd, before.st_size);
            throw std::runtime_error(m_path + ": write failed (" + std::strerror(error) + ")");
        }
        at += written;
    }
}

nlohmann::ordered_json toJson(const Summary& s)
{
    nlohmann::ordered_json j;
    const auto& columns = csvColumns();
    const auto row = csvRow(s);
    for (std::size_t i = 0; i < columns.size(); ++i)
        j[columns[i]] = row[i];
    // Numbers as numbers, not the CSV's text.
    j["size"] = s.size;
    j["repetitions"] = s.repetitions;
    for (auto [key, value] :
        {std::pair {"median_ms", s.medianMs}, {"mean_ms", s.meanMs}, {"min_ms", s.minMs}, {"max_ms", s.maxMs},
            {"stdev_ms", s.stdevMs}, {"noise_pct", s.noisePct}, {"transfer_ms", s.transferMs}, {"bytes", s.bytes},
            {"gb_per_s", s.gbPerS}, {"flops", s.flops}, {"gflop_per_s", s.gflopPerS}, {"items", s.items},
            {"items_per_s", s.itemsPerS}, {"peak_value", s.peakValue}, {"pct_of_peak", s.pctOfPeak}})
        j[key] = jnum(value);
    j["delta_computed"] = s.delta.computed;
    j["delta_value"] = jnum(s.delta.value);
    j["tolerance"] = jnum(s.delta.tolerance);
    nlohmann::ordered_json details = nlohmann::ordered_json::object();
    for (const auto& [k, v] : s.delta.details)
        details[k] = jnum(v);
    j["delta_details"] = details;
    if (s.delta.relError || s.delta.stepError) {
        nlohmann::ordered_json distribution = nlohmann::ordered_json::object();
        if (s.delta.relError)
            distribution["rel_err"] = histogramJson(*s.delta.relError);
        if (s.delta.stepError)
            distribution["step_err"] = histogramJson(*s.delta.stepError);
        j["delta_distribution"] = distribution;
    }
    if (s.deterministic)
        j["deterministic"] = *s.deterministic;
    else
        j["deterministic"] = nullptr;
    nlohmann::ordered_json facts = nlohmann::ordered_json::object();
    for (const auto& [k, v] : s.facts)
        facts[k] = jnum(v);
    j["facts"] = facts;
    j["device_index"] = s.device.index;
    j["sm_count"] = s.device.smCount;
    j["sm_clock_mhz"] = s.device.smClockMHz;
    j["mem_clock_mhz"] = s.device.memClockMHz;
    j["device_uuid"] = s.device.uuid;
    j["device_memory_bytes"] = s.device.totalMemory;
    j["device_l2_bytes"] = s.device.l2Bytes;
    j["device_llc_bytes"] = s.device.lastLevelCacheBytes;
    if (s.cacheBytes > 0)
        j["cache_bytes"] = s.cacheBytes;
    else
        j["cache_bytes"] = nullptr;
    if (s.cacheResident)
        j["fits_in_cache"] = *s.cacheResident;
    else
        j["fits_in_cache"] = nullptr;
    // Clocks: the range and count as numbers (null when not sampled), and one array entry per repetition.
    const bool clocked = !s.clockSource.empty();
    j["sm_clock_min_mhz"] = clocked ? nlohmann::ordered_json(jnum(s.clockMinMHz)) : nullptr;
    j["sm_clock_max_mhz"] = clocked ? nlohmann::ordered_json(jnum(s.clockMaxMHz)) : nullptr;
    j["throttled_samples"] = clocked ? nlohmann::ordered_json(s.throttledSamples) : nullptr;
    auto reals = [](const std::vector<double>& values) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (double v : values)
            a.push_back(jnum(v));
        return a;
    };
    j["rep_sm_clock_mhz"] = reals(s.clockMHz);
    j["rep_mem_clock_mhz"] = reals(s.memClockMHz);
    j["rep_temperature_c"] = reals(s.temperatureC);
    j["rep_power_w"] = reals(s.powerW);
    j["rep_throttle_reasons"] = s.throttleReasons;
    j["rep_throttled"] = s.throttled;
    if (s.medianRsePct)
        j["median_rse_pct"] = jnum(*s.medianRsePct);
    else
        j["median_rse_pct"] = nullptr;
    j["noisy"] = s.noisy();
    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (double v : s.samplesMs)
        samples.push_back(jnum(v));
    j["samples_ms"] = samples;
    nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
    for (double v : s.sampleMetrics)
        metrics.push_back(jnum(v));
    j["sample_metrics"] = metrics;
    const bool resultFits = s.result && s.result->values.size() + s.result->counts.size() <= kMaxResultValuesInJson;
    j["result_dropped"] = s.resultDropped || (s.result && !resultFits);
    if (resultFits) {
        nlohmann::ordered_json r;
        r["quantity"] = s.result->quantity;
        r["labels"] = s.result->labels;
        nlohmann::ordered_json values = nlohmann::ordered_json::array();
        for (double v : s.result->values)
            values.push_back(jnum(v));
        r["values"] = values;
        r["counts"] = s.result->counts;
        j["result"] = r;
    }
    return j;
}

Summary summaryFromJson(const nlohmann::ordered_json& j)
{
    Summary s;
    auto text = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    auto real = [&](const char* key) { return j.contains(key) ? fromJnum(j[key]) : 0.0; };
    s.runId = text("run_id");
    s.timestamp = text("timestamp");
    s.workload = text("workload");
    s.variant = text("variant");
    s.variantName = text("variant_name");
    s.backend = text("backend");
    s.outcome = outcomeFromName(text("outcome"));
    s.datasetName = text("dataset");
    s.datasetHash = text("dataset_hash");
    s.size = j.value("size", std::uint64_t(0));
    try {
        s.params = ParamSet::fromString(text("params"));
    } catch (const ParameterError& e) {
        throw std::runtime_error(std::string("params: ") + e.what());
    }
    s.repetitions = j.value("repetitions", 0);
    s.medianMs = real("median_ms");
    s.meanMs = real("mean_ms");
    s.minMs = real("min_ms");
    s.maxMs = real("max_ms");
    s.stdevMs = real("stdev_ms");
    s.noisePct = real("noise_pct");
    s.transferMs = real("transfer_ms");
    s.bytes = real("bytes");
    s.gbPerS = real("gb_per_s");
    s.flops = real("flops");
    s.gflopPerS = real("gflop_per_s");
    s.items = real("items");
    s.itemName = text("item_name");
    s.itemsPerS = real("items_per_s");
    s.peakKind = text("peak_kind");
    s.peakValue = real("peak_value");
    s.pctOfPeak = real("pct_of_peak");
    s.delta.computed = j.value("delta_computed", false);
    s.delta.kind = text("delta_kind");
    s.delta.value = real("delta_value");
    s.delta.tolerance = real("tolerance");
    if (j.contains("delta_details") && j["delta_details"].is_object())
        for (auto it = j["delta_details"].begin(); it != j["delta_details"].end(); ++it)
            s.delta.details.emplace_back(it.key(), fromJnum(it.value()));
    if (j.contains("delta_distribution") && j["delta_distribution"].is_object()) {
        const auto& distribution = j["delta_distribution"];
        if (distribution.contains("rel_err"))
            s.delta.relError = histogramFromJson(distribution["rel_err"]);
        if (distribution.contains("step_err"))
            s.delta.stepError = histogramFromJson(distribution["step_err"]);
    }
    s.message = text("message");
    if (j.contains("deterministic") && j["deterministic"].is_boolean())
        s.deterministic = j["deterministic"].get<bool>();
    if (j.contains("facts") && j["facts"].is_object())
        for (auto it = j["facts"].begin(); it != j["facts"].end(); ++it)
            s.facts.emplace_back(it.key(), fromJnum(it.value()));
    s.device.kind = text("device_kind");
    s.device.index = j.value("device_index", -1);
    s.device.name = text("device_name");
    s.device.smCount = j.value("sm_count", 0);
    const std::string cc = text("compute_capability");
    if (auto dot = cc.find('.'); dot != std::string::npos) {
        s.device.ccMajor = std::atoi(cc.substr(0, dot).c_str());
        s.device.ccMinor = std::atoi(cc.substr(dot + 1).c_str());
    }
    s.device.smClockMHz = j.value("sm_clock_mhz", 0);
    s.device.memClockMHz = j.value("mem_clock_mhz", 0);
    s.device.driverVersion = text("driver_version");
    s.device.runtimeVersion = text("runtime_version");
    s.device.uuid = text("device_uuid");
    s.device.totalMemory = j.value("device_memory_bytes", std::uint64_t(0));
    s.device.l2Bytes = j.value("device_l2_bytes", std::uint64_t(0));
    s.device.lastLevelCacheBytes = j.value("device_llc_bytes", std::uint64_t(0));
    // Files written before residency existed have neither key: the verdict stays empty rather than guessed.
    if (j.contains("cache_bytes") && j["cache_bytes"].is_number_unsigned())
        s.cacheBytes = j["cache_bytes"].get<std::uint64_t>();
    if (j.contains("fits_in_cache") && j["fits_in_cache"].is_boolean())
        s.cacheResident = j["fits_in_cache"].get<bool>();
    // Files written before clocks were sampled have none of these keys: no clocks, and no reason either.
    s.clockSource = text("clock_source");
    s.clockReason = text("clock_reason");
    s.clockMinMHz = real("sm_clock_min_mhz");
    s.clockMaxMHz = real("sm_clock_max_mhz");
    if (j.contains("throttled_samples") && j["throttled_samples"].is_number_integer())
        s.throttledSamples = j["throttled_samples"].get<int>();
    auto readReals = [&](const char* key, std::vector<double>& out) {
        if (j.contains(key) && j[key].is_array())
            for (const auto& v : j[key])
                out.push_back(fromJnum(v));
    };
    readReals("rep_sm_clock_mhz", s.clockMHz);
    readReals("rep_mem_clock_mhz", s.memClockMHz);
    readReals("rep_temperature_c", s.temperatureC);
    readReals("rep_power_w", s.powerW);
    if (j.contains("rep_throttle_reasons") && j["rep_throttle_reasons"].is_array())
        for (const auto& v : j["rep_throttle_reasons"])
            s.throttleReasons.push_back(v.is_number_unsigned() ? v.get<std::uint64_t>() : 0);
    if (j.contains("rep_throttled") && j["rep_throttled"].is_array())
        for (const auto& v : j["rep_throttled"])
            s.throttled.push_back(v.is_boolean() && v.get<bool>());
    // Older files have neither: no standard error, no stop reason, so never noisy (which is derived from the reason).
    if (j.contains("median_rse_pct") && !j["median_rse_pct"].is_null())
        s.medianRsePct = fromJnum(j["median_rse_pct"]);
    s.stopReason = stopReasonFromName(text("stop_reason"));
    s.version = text("ks_version");
    if (j.contains("samples_ms"))
        for (const auto& v : j["samples_ms"])
            s.samplesMs.push_back(fromJnum(v));
    if (j.contains("sample_metrics"))
        for (const auto& v : j["sample_metrics"])
            s.sampleMetrics.push_back(fromJnum(v));
    if (j.contains("result") && j["result"].is_object()) {
        auto r = std::make_shared<Result>();
        const auto& jr = j["result"];
        r->quantity = jr.value("quantity", std::string());
        r->labels = jr.value("labels", std::vector<std::string>());
        if (jr.contains("values"))
            for (const auto& v : jr["values"])
                r->values.push_back(fromJnum(v));
        r->counts = jr.value("counts", std::vector<std::uint64_t>());
        s.result = r;
    }
    // Files written before "result_dropped" existed dropped large results silently: a run that measured and has
    // no result in the file had one.
    s.resultDropped = j.contains("result_dropped") ? j["result_dropped"].get<bool>()
                                                   : !s.result && s.repetitions > 0 && s.delta.computed;
    return s;
}

nlohmann::ordered_json resultsDocument(const std::vector<Summary>& summaries)
{
    nlohmann::ordered_json j;
    j["kernelscope_version"] = version();
    j["summaries"] = nlohmann::ordered_json::array();
    for (const auto& s : summaries)
        j["summaries"].push_back(toJson(s));
    return j;
}

void writeJsonDocument(const std::string& path, const nlohmann::ordered_json& document)
{
    AtomicFile file(path);
    file.stream() << document.dump(1) << '\n';
    file.commit();
}

nlohmann::ordered_json readJsonDocument(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw data::DatasetError(path, "", "cannot open");
    try {
        return nlohmann::ordered_json::parse(in);
    } catch (const nlohmann::ordered_json::parse_error& e) {
        throw data::DatasetError(path, "byte " + std::to_string(e.byte), "not valid JSON");
    }
}

void writeJson(const std::string& path, const std::vector<Summary>& summaries)
{
    writeJsonDocument(path, resultsDocument(summaries));
}

std::vector<Summary> readJson(const std::string& path)
{
    const nlohmann::ordered_json j = readJsonDocument(path);
    if (!j.is_object() || !j.contains("summaries") || !j["summaries"].is_array())
        throw data::DatasetError(path, "", "no \"summaries\" array: not a KernelScope results file");
    std::vector<Summary> out;
    std::size_t index = 0;
    for (const auto& item : j["summaries"]) {
        try {
            out.push_back(summaryFromJson(item));
        } catch (const std::exception& e) {
            throw data::DatasetError(path, "summaries[" + std::to_string(index) + "]", e.what());
        }
        ++index;
    }
    return out;
}

namespace {
/// A result's named arrays: in HDF5 one float32 dataset per array under its own name, with its dimensions and the
/// quantity as an attribute; in CSV one `array,index,value` row per value (9 significant digits: a float exactly).
void writeArrays(const std::string& path, const std::string& ext, const Result& result)
{
    if (ext == ".csv") {
        AtomicFile file(path);
        std::ostream& out = file.stream();
        out << "array,index,value\n";
        char buffer[40];
        for (const auto& a : result.arrays)
            for (std::size_t i = 0; i < a.values.size(); ++i) {
                std::snprintf(buffer, sizeof buffer, ",%zu,%.9g\n", i, static_cast<double>(a.values[i]));
                out << data::csvField(a.name) << buffer;
            }
        file.commit();
        return;
    }
    AtomicFile file(path);
    {
        auto h5 = data::h5::File::create(file.temporaryPath());
        for (const auto& a : result.arrays) {
            const std::string at = "/" + a.name;
            h5.writeFloats(at, a.values, a.dims, true);
            h5.writeStringAttribute(at, "quantity", result.arraysQuantity);
        }
    }
    file.commit();
}
} // namespace

void writeResultFile(const std::string& path, const Result& result)
{
    const std::string ext = lowerExtension(path);
    if (!result.arrays.empty() && (ext == ".csv" || ext == ".h5" || ext == ".hdf5")) {
        writeArrays(path, ext, result);
        return;
    }
    if (ext == ".csv") {
        AtomicFile file(path);
        std::ostream& out = file.stream();
        const bool labelled = !result.labels.empty() && result.labels.size() == result.values.size();
        if (labelled) {
            out << "quantity,value\n";
            for (std::size_t i = 0; i < result.values.size(); ++i)
                out << data::csvField(result.labels[i]) << ',' << exact(result.values[i]) << '\n';
        } else {
            out << data::csvField(result.quantity.empty() ? "value" : result.quantity) << '\n';
            for (double v : result.values)
                out << exact(v) << '\n';
            for (auto c : result.counts)
                out << c << '\n';
        }
        file.commit();
        return;
    }
    if (ext == ".h5" || ext == ".hdf5") {
        AtomicFile file(path);
        {
            auto h5 = data::h5::File::create(file.temporaryPath());
            if (!result.counts.empty()) {
                h5.writeUInt64s("/result", result.counts, {result.counts.size()}, true);
            } else {
                h5.writeDoubles("/result", result.values, {result.values.size()}, true);
            }
            h5.writeStringAttribute("/result", "quantity", result.quantity);
            if (!result.labels.empty())
                h5.writeStrings("/labels", result.labels);
            if (!result.names.empty())
                h5.writeStrings("/feature_names", result.names);
        }
        file.commit();
        return;
    }
    throw std::runtime_error(path + ": " + resultFileFormatProblem(path));
}

std::string resultFileFormatProblem(const std::string& path)
{
    const std::string ext = lowerExtension(path);
    if (ext == ".csv" || ext == ".h5" || ext == ".hdf5")
        return {};
    return "unknown output format '" + ext + "' (use .csv, .h5 or .hdf5)";
}

} // namespace ks
