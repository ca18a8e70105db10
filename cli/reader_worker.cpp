#include "cli/reader_worker.h"

#include "cli/worker.h"
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "data/dataset_error.h"
#include "data/dataset_wire.h"
#include "data/host_memory.h"
#include "data/read_place.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <istream>
#include <limits>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks::cli {

namespace {
/// The worker's descriptor for the memfd, and where the dataset starts in it (after the place page).
constexpr int kDatasetFd = 3;
constexpr std::uint64_t kPageBytes = 4096;
static_assert(sizeof(data::ReadPlacePage) <= kPageBytes);

std::vector<std::string>& chosenArgv()
{
    static std::vector<std::string> argv;
    return argv;
}

/// An owned descriptor.
class Fd {
public:
    explicit Fd(int fd)
        : m_fd(fd)
    {
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    int get() const { return m_fd; }

private:
    int m_fd;
};

std::string signalName(int signal)
{
    const char* abbreviation = ::sigabbrev_np(signal);
    return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

/// What the readers noted last, read back from the memfd's first page after the worker ended.
struct NotedPlace {
    data::ReadPlacePage::Source source = data::ReadPlacePage::None;
    std::string file;
    std::string place;
};

NotedPlace notedPlace(const data::ReadPlacePage& page)
{
    auto text = [](const char* chars, std::uint32_t length) {
        // A length torn by a kill mid-note is bounded by the buffer and the text's NUL.
        const std::size_t n = std::min<std::size_t>(length, data::ReadPlacePage::kTextBytes - 1);
        return std::string(chars, ::strnlen(chars, n));
    };
    NotedPlace noted;
    noted.source = static_cast<data::ReadPlacePage::Source>(page.source.load());
    noted.file = text(page.file, page.fileLength.load());
    noted.place = text(page.place, page.placeLength.load());
    if (noted.source == data::ReadPlacePage::Text && page.line.load() > 0)
        noted.place = data::linePlace(static_cast<std::size_t>(page.line.load()));
    return noted;
}

NotedPlace notedPlace(int fd)
{
    void* mapped = ::mmap(nullptr, kPageBytes, PROT_READ, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED)
        return {};
    const NotedPlace noted = notedPlace(*static_cast<const data::ReadPlacePage*>(mapped));
    ::munmap(mapped, kPageBytes);
    return noted;
}

rlim_t cpuLimitSeconds(const ReadRequest& request)
{
    const double seconds = request.cpuLimitS > 0 ? request.cpuLimitS : readerCpuLimitS(request);
    return static_cast<rlim_t>(std::max(1.0, std::ceil(seconds)));
}

/// The bytes a read of `path` stands for: a file's size (gzip's times kReaderGzipExpansion), a folder's files'.
double inputWeight(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code error;
    auto weight = [](const fs::path& file, std::uintmax_t size) {
        const bool gzip = file.extension() == ".gz" || file.extension() == ".gzip";
        return static_cast<double>(size) * (gzip ? kReaderGzipExpansion : 1.0);
    };
    if (fs::is_directory(path, error)) {
        double total = 0;
        for (const auto& entry : fs::directory_iterator(path, error))
            if (std::error_code e; entry.is_regular_file(e))
                total += weight(entry.path(), entry.file_size(e));
        return total;
    }
    const std::uintmax_t size = fs::file_size(path, error);
    return error ? 0.0 : weight(path, size);
}

/// The one line a worker that ended without an answer becomes: the file and the place it was reading, and how it
/// ended.
data::DatasetError workerDeath(const ReadRequest& request, const ProcessEnd& end, const NotedPlace& noted)
{
    const std::string file = noted.file.empty() ? request.path : noted.file;
    const bool hdf5 = noted.source == data::ReadPlacePage::Hdf5;
    const std::string reader = hdf5 ? "the HDF5 library" : "the reader";
    const std::string here = noted.place.empty() ? "" : " here";
    const std::string corrupted = hdf5 ? "; the file is likely corrupted" : "";
    switch (end.kind) {
    case ProcessEnd::Kind::Watchdog: {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", end.watchdogS);
        return {file, noted.place, "reading took longer than " + std::string(seconds) + " s" + here + ": stopped"};
    }
    case ProcessEnd::Kind::Signalled: {
        const std::string cpu = std::to_string(cpuLimitSeconds(request)) + " s";
        if (end.signal == SIGXCPU)
            return {file, noted.place,
                reader + " used its " + cpu + " of CPU time" + here + " and was stopped" + corrupted};
        if (end.signal == SIGKILL)
            return {file, noted.place,
                reader + " was killed (SIGKILL)" + here + ": out of memory, or past its " + cpu + " CPU limit"};
        return {file, noted.place, reader + " crashed (" + signalName(end.signal) + ")" + here + corrupted};
    }
    default:
        return {file, noted.place, "the reader process failed: " + end.reason()};
    }
}

/// Rethrows the error the worker reported, as the type the reader threw.
[[noreturn]] void rethrow(const nlohmann::ordered_json& e, const ReadRequest& request)
{
    const std::string type = e.value("type", "");
    const std::string message = e.value("message", "");
    if (type == "dataset")
        throw data::DatasetError(
            e.value("file", request.path), e.value("place", std::string()), e.value("problem", std::string()));
    if (type == "parameter")
        throw ParameterError(message);
    if (type == "logic")
        throw std::logic_error(message);
    if (type == "memory")
        throw data::DatasetError(e.value("file", request.path), e.value("place", std::string()),
            "the reader ran out of memory here (it may map " + e.value("limit", std::string("?"))
                + ": the memory budget plus its slack)");
    throw std::runtime_error(message);
}

/// The test-only faults a worker can be told to make, so its tests need no real crashing file: KS_TEST_READER_CRASH
/// raises SIGSEGV, KS_TEST_READER_SPIN spins forever and KS_TEST_READER_ALLOC asks for as much memory as the
/// address-space limit, each when an HDF5 place containing its value is read, or before reading when it is "start".
const char* g_crashAt = nullptr;
const char* g_spinAt = nullptr;
const char* g_allocAt = nullptr;

void fault(const char* at, std::string_view place)
{
    if (!at || (std::string_view(at) != "start" && place.find(at) == std::string_view::npos))
        return;
    if (at == g_crashAt)
        std::raise(SIGSEGV);
    if (at == g_allocAt) {
        // What a reader's estimate missed: more than RLIMIT_AS leaves, so the allocation itself fails.
        rlimit limit {};
        ::getrlimit(RLIMIT_AS, &limit);
        // A direct call of operator new, which the compiler may not elide as it may a new-expression.
        void* const block = ::operator new(limit.rlim_cur == RLIM_INFINITY ? 0 : limit.rlim_cur);
        ::operator delete(block);
        return;
    }
    // Busy, as libhdf5's H5HG_read loop is: only the CPU limit or a kill ends it.
    std::atomic<std::uint64_t> spins {0};
    while (true)
        spins.fetch_add(1, std::memory_order_relaxed);
}

void faultAtPlace(std::string_view place)
{
    fault(g_crashAt, place);
    fault(g_allocAt, place);
    fault(g_spinAt, place);
}

/// RLIMIT_AS and RLIMIT_CPU, each lowered (never raised past what the parent had).
void limitSelf(const ReadRequest& request)
{
    if (request.memoryLimit > 0)
        data::setMemoryLimit(request.memoryLimit, request.memoryLimitName);
    const std::uint64_t space = data::saturatingAdd(
        data::saturatingAdd(data::mappedAddressSpace(), data::availableHostMemory()), kReaderSlackBytes);
    rlimit limit {};
    if (::getrlimit(RLIMIT_AS, &limit) == 0) {
        const rlim_t wanted = space >= static_cast<std::uint64_t>(RLIM_INFINITY) ? RLIM_INFINITY : space;
        if (limit.rlim_cur == RLIM_INFINITY || wanted < limit.rlim_cur)
            limit.rlim_cur = wanted;
        ::setrlimit(RLIMIT_AS, &limit);
    }
    if (::getrlimit(RLIMIT_CPU, &limit) == 0) {
        // SIGXCPU at the soft limit; the hard one a second later kills a process that survives it.
        const rlim_t seconds = cpuLimitSeconds(request);
        if (limit.rlim_cur == RLIM_INFINITY || seconds < limit.rlim_cur)
            limit.rlim_cur = seconds;
        if (limit.rlim_max == RLIM_INFINITY || seconds + 1 < limit.rlim_max)
            limit.rlim_max = seconds + 1;
        ::setrlimit(RLIMIT_CPU, &limit);
    }
}
/// A path or parameter as JSON: a string when it is valid UTF-8 (JSON can hold nothing else), otherwise its bytes
/// in hex ({"hex": "2f746d70…"}), so a file name in Latin-1 reaches the worker unchanged.
nlohmann::ordered_json bytesToJson(const std::string& bytes)
{
    try {
        (void)nlohmann::ordered_json(bytes).dump();
        return bytes;
    } catch (const nlohmann::json::type_error&) {
        static constexpr char kHex[] = "0123456789abcdef";
        std::string hex;
        for (const unsigned char c : bytes) {
            hex += kHex[c >> 4];
            hex += kHex[c & 15];
        }
        return {{"hex", hex}};
    }
}

std::string bytesFromJson(const nlohmann::ordered_json& j)
{
    if (j.is_string())
        return j.get<std::string>();
    const std::string hex = j.at("hex").get<std::string>();
    if (hex.size() % 2 != 0)
        throw std::invalid_argument("odd hex length");
    std::string bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2)
        bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return bytes;
}

/// JSON text of an answer: a reader's message may hold bytes that are not UTF-8 (they are replaced, not fatal).
std::string dumped(const nlohmann::ordered_json& j)
{
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
} // namespace

nlohmann::ordered_json toJson(const ReadRequest& r)
{
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [key, value] : r.options.params)
        params[key] = bytesToJson(value);
    return {{"workload", r.workload}, {"path", bytesToJson(r.path)}, {"h5_path", bytesToJson(r.options.h5Path)},
        {"vector", bytesToJson(r.options.vectorPath)}, {"allow_nonfinite", r.options.allowNonFinite},
        {"params", params}, {"memory_limit", r.memoryLimit}, {"memory_limit_name", r.memoryLimitName},
        {"cpu_limit_s", r.cpuLimitS}, {"listing", r.listing}};
}

ReadRequest readRequestFromJson(const nlohmann::ordered_json& j)
{
    ReadRequest r;
    r.workload = j.at("workload").get<std::string>();
    r.path = bytesFromJson(j.at("path"));
    r.options.h5Path = bytesFromJson(j.at("h5_path"));
    r.options.vectorPath = bytesFromJson(j.at("vector"));
    r.options.allowNonFinite = j.at("allow_nonfinite").get<bool>();
    for (const auto& [key, value] : j.at("params").items())
        r.options.params[key] = bytesFromJson(value);
    r.memoryLimit = j.at("memory_limit").get<std::uint64_t>();
    r.memoryLimitName = j.value("memory_limit_name", std::string("--memory-limit"));
    r.cpuLimitS = j.at("cpu_limit_s").get<double>();
    r.listing = j.at("listing").get<bool>();
    return r;
}

std::vector<std::string> readerWorkerArgv()
{
    return chosenArgv();
}

void setReaderWorkerArgv(std::vector<std::string> argv)
{
    chosenArgv() = std::move(argv);
}

std::vector<std::string> selfReaderWorkerArgv()
{
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return {ec ? std::string("/proc/self/exe") : self.string(), "read-worker"};
}

namespace {
/// Runs the reader worker on `request` with `memory` as its descriptor 3 and returns its answer line when it gave
/// one with exit status 0; rethrows the error it reported; turns a death into the DatasetError naming the place.
nlohmann::ordered_json askWorker(
    const std::vector<std::string>& argv, const ReadRequest& request, int memory, std::stop_token stop)
{
    SupervisedProcess process(argv, request.listing ? kListingWallLimitS : kReaderWallLimitS);
    process.inheritFd(memory, kDatasetFd);
    std::optional<nlohmann::ordered_json> answer;
    std::string protocolError;
    const ProcessEnd end = process.run(
        dumped(toJson(request)) + "\n",
        [&](const std::string& line) {
            try {
                answer = nlohmann::ordered_json::parse(line);
            } catch (const std::exception& e) {
                if (protocolError.empty())
                    protocolError = "unreadable line from the reader (" + std::string(e.what()) + ")";
            }
        },
        stop);
    if (end.kind == ProcessEnd::Kind::Cancelled)
        throw LoadCancelled();
    if (answer && answer->contains("error"))
        rethrow(answer->at("error"), request);
    if (end.kind == ProcessEnd::Kind::Exited && end.exitCode == 0 && answer)
        return *answer;
    if (end.kind == ProcessEnd::Kind::Exited && !protocolError.empty())
        throw data::DatasetError(request.path, "", protocolError);
    throw workerDeath(request, end, notedPlace(memory));
}

/// An anonymous memory file with room for the place page: it has no name to leave behind, whatever happens to
/// either process.
int placeMemory()
{
    const int fd = ::memfd_create("kernelscope-dataset", MFD_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(kPageBytes)) != 0) {
        const int error = errno;
        if (fd >= 0)
            ::close(fd);
        throw std::runtime_error(std::string("cannot create the reader's memory file: ") + std::strerror(error));
    }
    return fd;
}

nlohmann::ordered_json toJson(const data::h5::DatasetInfo& d)
{
    return {{"path", bytesToJson(d.path)}, {"dims", d.dims}, {"type", d.type}, {"float", d.isFloat},
        {"integer", d.isInteger}, {"chunked", d.chunked}, {"filters", d.filters}};
}

data::h5::DatasetInfo datasetInfoFromJson(const nlohmann::ordered_json& j)
{
    data::h5::DatasetInfo d;
    d.path = bytesFromJson(j.at("path"));
    d.dims = j.at("dims").get<std::vector<std::uint64_t>>();
    d.type = j.at("type").get<std::string>();
    d.isFloat = j.at("float").get<bool>();
    d.isInteger = j.at("integer").get<bool>();
    d.chunked = j.at("chunked").get<bool>();
    d.filters = j.at("filters").get<std::vector<std::string>>();
    return d;
}

Hdf5Listing listHdf5(const std::string& path)
{
    const auto file = data::h5::File::open(path);
    return {file.groups(), file.datasets()};
}
} // namespace

double readerCpuLimitS(const ReadRequest& request)
{
    double bytes = inputWeight(request.path);
    if (!request.options.vectorPath.empty())
        bytes += inputWeight(request.options.vectorPath);
    // Files a reader option names are read too (lrv's weights and reference).
    if (const Workload* workload = defaultRegistry().find(request.workload))
        for (const Axis& axis : workload->parameters())
            if (axis.readerOption && axis.kind == AxisKind::Text)
                if (const auto it = request.options.params.find(axis.name);
                    it != request.options.params.end() && !it->second.empty())
                    bytes += inputWeight(it->second);
    return std::min(kReaderCpuLimitS, kReaderMinCpuS + bytes / kReaderBytesPerCpuS);
}

data::Dataset loadInWorker(const ReadRequest& request, std::stop_token stop)
{
    const Workload* workload = defaultRegistry().find(request.workload);
    if (!workload)
        throw ParameterError("unknown workload '" + request.workload + "'");
    const std::vector<std::string> argv = readerWorkerArgv();
    if (argv.empty())
        return workload->load(request.path, request.options);
    if (stop.stop_requested())
        throw LoadCancelled();
    const Fd memory(placeMemory());
    // The worker's budget is this process's: its own limit when the request names none (the app's Run settings).
    ReadRequest limited = request;
    if (limited.memoryLimit == 0 && data::memoryLimit() != 0) {
        limited.memoryLimit = data::memoryLimit();
        limited.memoryLimitName = data::memoryLimitName();
    }
    const nlohmann::ordered_json answer = askWorker(argv, limited, memory.get(), stop);
    const auto bytes = answer.at("dataset").at("bytes").get<std::uint64_t>();
    struct stat info { };
    if (::fstat(memory.get(), &info) != 0 || static_cast<std::uint64_t>(info.st_size) < kPageBytes + bytes)
        throw data::DatasetError(request.path, "", "the reader process's dataset is truncated");
    data::requireHostMemory(bytes, request.path, "", "taking over the dataset read");
    try {
        return data::wire::readDataset(memory.get(), kPageBytes, bytes, true);
    } catch (const std::runtime_error& e) {
        throw data::DatasetError(request.path, "", e.what());
    }
}

Hdf5Listing listHdf5InWorker(const std::string& path, std::stop_token stop)
{
    const std::vector<std::string> argv = readerWorkerArgv();
    if (argv.empty())
        return listHdf5(path);
    if (stop.stop_requested())
        throw LoadCancelled();
    ReadRequest request;
    request.path = path;
    request.listing = true;
    request.cpuLimitS = kListingCpuLimitS;
    request.memoryLimit = data::memoryLimit();
    request.memoryLimitName = data::memoryLimitName();
    const Fd memory(placeMemory());
    const nlohmann::ordered_json answer = askWorker(argv, request, memory.get(), stop);
    try {
        Hdf5Listing listing;
        for (const auto& g : answer.at("listing").at("groups"))
            listing.groups.push_back(bytesFromJson(g));
        for (const auto& d : answer.at("listing").at("datasets"))
            listing.datasets.push_back(datasetInfoFromJson(d));
        return listing;
    } catch (const std::exception& e) {
        throw data::DatasetError(path, "", "unreadable listing from the reader (" + std::string(e.what()) + ")");
    }
}

int readWorkerMain(std::istream& in, std::ostream& out, std::ostream& err)
{
    // Killed with its parent: a reader left spinning after the app died would hold a core until its CPU limit.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ReadRequest request;
    try {
        std::ostringstream text;
        text << in.rdbuf();
        request = readRequestFromJson(nlohmann::ordered_json::parse(text.str()));
    } catch (const std::exception& e) {
        err << "error: unreadable read request: " << e.what() << '\n';
        return 2;
    }
    void* page = ::mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, kDatasetFd, 0);
    if (page == MAP_FAILED) {
        err << "error: the read-worker needs its parent's memory file as descriptor 3\n";
        return 2;
    }
    g_crashAt = std::getenv("KS_TEST_READER_CRASH");
    g_spinAt = std::getenv("KS_TEST_READER_SPIN");
    g_allocAt = std::getenv("KS_TEST_READER_ALLOC");
    auto* place = new (page) data::ReadPlacePage;
    data::setReadPlacePage(place, g_crashAt || g_spinAt || g_allocAt ? faultAtPlace : nullptr);
    data::noteReadFile(request.path);
    limitSelf(request);
    faultAtPlace({});

    auto answer = [&out](const nlohmann::ordered_json& j) { out << dumped(j) << '\n' << std::flush; };
    try {
        if (request.listing) {
            const Hdf5Listing listing = listHdf5(request.path);
            nlohmann::ordered_json groups = nlohmann::ordered_json::array(), datasets = nlohmann::ordered_json::array();
            for (const auto& g : listing.groups)
                groups.push_back(bytesToJson(g));
            for (const auto& d : listing.datasets)
                datasets.push_back(toJson(d));
            answer({{"listing", {{"groups", groups}, {"datasets", datasets}}}});
            return 0;
        }
        const Workload* workload = defaultRegistry().find(request.workload);
        if (!workload)
            throw ParameterError("unknown workload '" + request.workload + "'");
        const data::Dataset dataset = workload->load(request.path, request.options);
        if (::lseek(kDatasetFd, static_cast<off_t>(kPageBytes), SEEK_SET) < 0)
            throw std::runtime_error(std::string("cannot seek in the memory file: ") + std::strerror(errno));
        data::wire::writeDataset(kDatasetFd, dataset);
        const off_t end = ::lseek(kDatasetFd, 0, SEEK_CUR);
        answer({{"dataset", {{"bytes", static_cast<std::uint64_t>(end) - kPageBytes}}}});
        return 0;
    } catch (const data::DatasetError& e) {
        answer({{"error", {{"type", "dataset"}, {"file", e.file()}, {"place", e.place()}, {"problem", e.problem()}}}});
    } catch (const ParameterError& e) {
        answer({{"error", {{"type", "parameter"}, {"message", e.what()}}}});
    } catch (const std::logic_error& e) {
        answer({{"error", {{"type", "logic"}, {"message", e.what()}}}});
    } catch (const std::bad_alloc&) {
        // RLIMIT_AS stopped an allocation no budget check foresaw: named with the place the readers noted.
        rlimit limit {};
        ::getrlimit(RLIMIT_AS, &limit);
        const NotedPlace noted = notedPlace(*place);
        answer({{"error",
            {{"type", "memory"}, {"file", noted.file.empty() ? request.path : noted.file}, {"place", noted.place},
                {"limit", limit.rlim_cur == RLIM_INFINITY ? "no limit" : data::formatBytes(limit.rlim_cur)}}}});
    } catch (const std::exception& e) {
        answer({{"error", {{"type", "other"}, {"message", e.what()}}}});
    }
    return 2;
}

} // namespace ks::cli
