#include "compute/device/cuda_check.cuh"
#include "compute/device/dynamic_library.h"
#include "compute/device/nccl_loader.cuh"

namespace ks::device {

namespace {
struct Loaded {
    NcclApi api;
    std::string reason;
    int version = 0;
};

const Loaded& load()
{
    static const Loaded loaded = [] {
        Loaded l;
        static DynamicLibrary library {"libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2",
            "/usr/local/cuda/lib64/libnccl.so.2", "/usr/local/cuda/targets/x86_64-linux/lib/libnccl.so.2"};
        if (!library.loaded()) {
            l.reason = "NCCL 2 is not installed here (" + library.error() + ")";
            return l;
        }
        const bool ok = library.bind(l.api.getVersion, "ncclGetVersion")
            && library.bind(l.api.commInitAll, "ncclCommInitAll") && library.bind(l.api.commDestroy, "ncclCommDestroy")
            && library.bind(l.api.allReduce, "ncclAllReduce") && library.bind(l.api.allGather, "ncclAllGather")
            && library.bind(l.api.errorString, "ncclGetErrorString");
        if (!ok) {
            l.reason = "the NCCL found here is unusable: " + library.error();
            return l;
        }
        // ncclAllGather's and ncclCommInitAll's signatures are NCCL 2's; 2.12 is the oldest this was written against.
        if (l.api.getVersion(&l.version) != kNcclSuccess || l.version < 21200)
            l.reason = "the NCCL found here is older than 2.12 (version code " + std::to_string(l.version) + ")";
        return l;
    }();
    return loaded;
}
} // namespace

std::string ncclUnavailableReason()
{
    return load().reason;
}

std::string ncclVersionText()
{
    const int v = load().version;
    if (v == 0)
        return {};
    // Codes from 2.9 on are major·10000 + minor·100 + patch.
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

const NcclApi& nccl()
{
    const Loaded& l = load();
    if (!l.reason.empty())
        throw ComputeError(l.reason);
    return l.api;
}

void throwOnNcclError(NcclResult result, const char* expression, const char* file, int line)
{
    if (result == kNcclSuccess)
        return;
    const char* text = load().api.errorString ? load().api.errorString(result) : "unknown NCCL result";
    throwLibraryError("NCCL: " + std::string(text), expression, file, line);
}

NcclComms::NcclComms(const std::vector<int>& devices)
    : m_comms(devices.size(), nullptr)
{
    KS_NCCL_CHECK(nccl().commInitAll(m_comms.data(), static_cast<int>(devices.size()), devices.data()));
}

NcclComms::~NcclComms()
{
    for (NcclComm comm : m_comms)
        if (comm)
            nccl().commDestroy(comm);
}

} // namespace ks::device
