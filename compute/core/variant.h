#pragma once

#include "compute/core/params.h"
#include "compute/core/result.h"
#include "compute/core/timing.h"
#include "data/dataset.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace ks {

enum class Backend { Cpu, Cuda, Library };
const char* backendName(Backend backend);

/// What prepare gets besides the dataset and parameters.
struct RunContext {
    int device = 0; ///< CUDA device ordinal (already selected on the calling thread)
    const Clock* clock = nullptr; ///< for CPU timers; never null when the runner calls prepare
    /// The run's stop request: CPU variants check it in their loops (CpuPreparedRun::cancelPoint, cancel.h) and throw
    /// RunCancelled out of run(); GPU variants leave it to the runner, which checks it between repetitions.
    std::stop_token stop {};
    /// A multi-device variant's devices (RunOptions::devices resolved: every device present when it named none).
    std::vector<int> devices {};
};

/// A variant prepared on one dataset: inputs uploaded, ready for repetitions. Owned by one thread.
class PreparedRun {
public:
    PreparedRun() = default;
    PreparedRun(const PreparedRun&) = delete;
    PreparedRun& operator=(const PreparedRun&) = delete;
    virtual ~PreparedRun() = default;

    /// One repetition: CPU variants compute synchronously; GPU variants enqueue on their stream.
    virtual void run() = 0;
    /// The result of the last repetition, on the host.
    virtual Result fetch() = 0;
    /// The timer bracketing run(): a clock for CPU work, CUDA events for GPU work.
    virtual RepTimer& timer() = 0;
    /// Evicts the inputs from caches between repetitions (outside the timed region).
    virtual void flushCaches() { }
    /// Restores what repetitions change (a training step's weights and step count) after the warm-ups, so the
    /// timed repetitions start from the prepared state. Nothing by default: most repetitions change nothing.
    virtual void reset() { }
    /// Host-to-device upload time of prepare, reported apart from the kernel time.
    virtual double transferMs() const { return 0.0; }
    /// A value streamed with each repetition's Sample (a training step's loss); none by default.
    virtual std::optional<double> metric() { return std::nullopt; }
    /// Bits standing for the state the repetitions left (a training run's weights, hashed). A run that has one is
    /// replayed by the runner: reset(), the same number of repetitions untimed, and the digest again; whether the two
    /// agree is Summary::deterministic. None by default: repetitions that leave no state.
    virtual std::optional<std::uint64_t> stateDigest() { return std::nullopt; }
    /// Numbers measured once after the repetitions and fetch() (a trained model's held-out accuracy, one step's time
    /// per layer): Summary::facts. None by default.
    virtual Facts facts() { return {}; }
    /// Anything worth recording in the result row (library algorithm chosen, conversion time).
    virtual std::string note() const { return {}; }
    /// The bytes a repetition moves, for a variant that stores its operands otherwise than the workload's cost model
    /// counts them (spmv's dia reads no column indices): the run's bytes, GB/s and % of peak are then these. None by
    /// default: the cost model's.
    virtual std::optional<double> bytesMoved() const { return std::nullopt; }
};

/// A variant's prepare function: a register.cpp declares each of its variants' factories with it
/// (`PrepareSignature prepareTiledF32;`) beside the row that registers it; the kernel file defines it.
using PrepareSignature = std::unique_ptr<PreparedRun>(const data::Dataset&, const ParamSet&, const RunContext&);
using PrepareFn = std::function<PrepareSignature>;

/// What the registry-wide test demands of a variant's result, declared on its registration row.
struct Expectation {
    enum class Kind {
        WithinTolerance, ///< the Delta is within the workload's tolerance on every input
        Exact, ///< within tolerance, and the Delta detail `detail` is exactly 0 (sdh's double variants: l1_pairs)
        MayLoseDigits, ///< a formula known to lose digits on the data classes named: run and compared, but allowed
                       ///< to come out incorrect there (everywhere when no class is named)
    };
    Kind kind = Kind::WithinTolerance;
    std::string detail; ///< Exact: the Delta detail that must be 0
    std::vector<std::string> dataClasses; ///< MayLoseDigits: the workload test plan's data classes

    /// Whether an incorrect outcome is allowed on the test plan's data class `dataClass`.
    bool allowsIncorrectOn(const std::string& dataClass) const;
};

/// A variant is a value: what it is, how it computes, and how to prepare it.
struct Variant {
    std::string id; ///< short and stable: "shared_tree"
    std::string name; ///< human: "Shared-memory tree reduction"
    std::string technique; ///< one line, in the seed's words
    Backend backend = Backend::Cpu;
    PrepareFn prepare; ///< empty when the variant was not built
    std::string notBuiltReason; ///< "built without CUDA" when prepare is empty
    /// Checked when the variant is about to be listed or run: empty when it can run, else why not (a vendor
    /// library that is loaded at run time and missing here).
    std::function<std::string()> runtimeCheck;
    Expectation expectation; ///< what the registry-wide test checks (within tolerance unless the row says otherwise)
    /// Runs on every device of RunContext::devices at once (one thread per device, NCCL between them) instead of
    /// RunContext::device alone.
    bool multiDevice = false;

    /// This variant's counts (or other Delta detail) must equal the reference's exactly.
    Variant exact(std::string detail) const;
    /// This variant's formula is known to lose digits on these data classes of the workload's test plan (all when
    /// none is named): the test runs and compares it there but accepts an incorrect outcome.
    Variant mayLoseDigitsOn(std::vector<std::string> dataClasses = {}) const;
};

/// A cpu variant.
Variant cpuVariant(std::string id, std::string name, std::string technique, PrepareFn prepare);
/// A cuda or library variant; `prepare` is empty in builds without CUDA (see KS_GPU_PREPARE).
Variant gpuVariant(std::string id, std::string name, std::string technique, Backend backend, PrepareFn prepare);

/// A cuda variant that spreads its work over RunContext::devices (Variant::multiDevice).
Variant multiDeviceVariant(std::string id, std::string name, std::string technique, PrepareFn prepare);
/// Empty when the variant can run here now; otherwise why not ("built without CUDA", "no CUDA device: …").
std::string unavailableReason(const Variant& variant);

} // namespace ks

/// The prepare function of a cuda/library variant: the function itself with CUDA, empty without (its .cu file is
/// not compiled then, so it must not be referenced).
#if KS_HAVE_CUDA
#define KS_GPU_PREPARE(fn) ::ks::PrepareFn(&(fn))
#else
#define KS_GPU_PREPARE(fn) ::ks::PrepareFn()
#endif
