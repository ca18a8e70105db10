#pragma once

// Untrusted input in a child process: a dataset file is read by a reader worker (`kernelscope-cli read-worker`, or
// `kernelscope read-worker` for the app), so a reader that crashes (libhdf5 on a corrupted file: SIGSEGV in
// H5HG_read) or loops ends only that process, and the app or the CLI says which file and where. The parent sends one
// ReadRequest as JSON on the worker's stdin and hands it an anonymous memory file (memfd) as descriptor 3: its first
// page is where the readers note the place they read (data/read_place.h), the dataset follows it
// (data/dataset_wire.h). The worker answers with one JSON line on stdout: {"dataset": {"bytes": N}} or
// {"error": {...}}. It runs under limits it sets itself before reading: an address space of what it maps at start
// plus the memory budget (and kReaderSlackBytes), and CPU time by the input's size (readerCpuLimitS).

#include "data/dataset.h"
#include "data/hdf5_file.h"
#include "data/read_options.h"

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

namespace ks::cli {

/// CPU time a read may take (RLIMIT_CPU), by the input's size: kReaderMinCpuS plus a second per kReaderBytesPerCpuS
/// of input (gzip counted at kReaderGzipExpansion times its size), at most kReaderCpuLimitS. Our readers parse 50 MB
/// and more of text per CPU second, so a real file of any size reads well within it; a reader spinning on a
/// corrupted file (libhdf5's loops in H5HG_read and elsewhere ignore SIGINT) is ended by it — after 10 s for a small
/// file, not 10 minutes.
inline constexpr double kReaderMinCpuS = 10.0;
inline constexpr double kReaderBytesPerCpuS = 2.0e6;
inline constexpr double kReaderGzipExpansion = 20.0;
inline constexpr double kReaderCpuLimitS = 600.0;
/// Wall-clock time a read may take before the worker is killed (a file on a stalled network share).
inline constexpr double kReaderWallLimitS = 3600.0;
/// Address space beyond the memory budget: the readers' estimates count the dataset, not the libraries' own working
/// memory, so the budget checks refuse a file with their figures before RLIMIT_AS makes an allocation fail.
inline constexpr std::uint64_t kReaderSlackBytes = 512ull << 20;

/// One dataset file to read, as the worker needs it: the workload whose reader reads it, the path and the reader's
/// options, the run's --memory-limit (0: the limit this process has, data::memoryLimit) so the worker's budget is the
/// parent's, and its CPU time limit.
struct ReadRequest {
    std::string workload;
    std::string path;
    data::ReadOptions options;
    std::uint64_t memoryLimit = 0;
    std::string memoryLimitName = "--memory-limit"; ///< what the worker's messages call the limit
    double cpuLimitS = 0.0; ///< whole seconds (RLIMIT_CPU), at least 1; 0: readerCpuLimitS of the files
    bool listing = false; ///< list the HDF5 file's groups and datasets instead of reading (listHdf5InWorker)
};

/// The CPU time a read of the request's files may take (the rule at kReaderMinCpuS): the file, or a folder's files
/// (MEX), and the vector file, by their sizes on disk.
double readerCpuLimitS(const ReadRequest& request);

nlohmann::ordered_json toJson(const ReadRequest& request);
/// Throws nlohmann::json::exception for a malformed request.
ReadRequest readRequestFromJson(const nlohmann::ordered_json& json);

/// Listing an HDF5 file's tree is metadata only and the app waits for it: a corrupted file that makes libhdf5 spin
/// is stopped after this much CPU time (and this much wall time).
inline constexpr double kListingCpuLimitS = 10.0;
inline constexpr double kListingWallLimitS = 30.0;

/// A load ended by the stop token (Ctrl-C, the app's Cancel): the worker was killed.
class LoadCancelled : public std::runtime_error {
public:
    LoadCancelled()
        : std::runtime_error("load cancelled")
    {
    }
};

/// Reads `request.path` with the workload's reader in a reader worker (readerWorkerArgv()), or in this process when
/// no worker is set (unit tests, and a worker that is itself the child process: the user-kernel worker). Throws
/// what the reader threw (data::DatasetError, ParameterError, std::bad_alloc, ...) with the same message; a worker
/// that crashed or ran out of CPU time is a data::DatasetError naming the file and the place it was reading;
/// LoadCancelled when `stop` was set.
data::Dataset loadInWorker(const ReadRequest& request, std::stop_token stop = {});

/// An HDF5 file's groups ("/" first) and datasets, as h5::File::groups and datasets() list them.
struct Hdf5Listing {
    std::vector<std::string> groups;
    std::vector<data::h5::DatasetInfo> datasets;
};

/// Lists an HDF5 file in a reader worker (the app's group picker), or in this process when no worker is set. Throws
/// as loadInWorker does.
Hdf5Listing listHdf5InWorker(const std::string& path, std::stop_token stop = {});

/// The reader worker's argv (empty: read in-process). kernelscope-cli and the app set it to themselves with
/// `read-worker`; tests that drive them in-process set kernelscope-cli's.
std::vector<std::string> readerWorkerArgv();
void setReaderWorkerArgv(std::vector<std::string> argv);
/// This executable (/proc/self/exe) and `read-worker`.
std::vector<std::string> selfReaderWorkerArgv();

/// The worker's side (`read-worker`): reads a ReadRequest from `in`, sets its limits, reads the file and writes the
/// dataset to descriptor 3 and its answer to `out`. Returns the exit status.
int readWorkerMain(std::istream& in, std::ostream& out, std::ostream& err);

} // namespace ks::cli
