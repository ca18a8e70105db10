#pragma once

// Shared by the libFuzzer targets of tests/fuzz: the readers take paths, so each input is written to a file of this
// process's own folder first, and the reader is called through its public function with tight options. A
// DatasetError is the expected answer to a bad input; anything else that leaves the reader (another exception, a
// sanitizer report, std::bad_alloc past the memory budget) reaches libFuzzer as a crash.

#include "data/dataset_error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks::fuzz {

/// The memory budget every target runs under: an input that makes a reader allocate more than this without asking
/// the budget first ends as libFuzzer's out-of-memory report (run with -malloc_limit_mb above it, as campaign.sh and
/// ci.sh do), never as a refused read.
inline constexpr std::uint64_t kMemoryBudget = 256ULL << 20;

/// What splits one input into several files (a MEX folder's three, an IDX pair's two): a line of its own, so
/// mutations of text keep it, and unlikely in the formats themselves.
inline constexpr std::string_view kFileSeparator = "\n--ks-fuzz-next-file--\n";

/// Sets the memory budget and makes this process's input folder (under $KS_FUZZ_TMPDIR, else /dev/shm when it is
/// writable, else /tmp), removed at exit. Called from LLVMFuzzerInitialize.
void initialise();

/// The path of `name` in this process's input folder.
std::string inputPath(const std::string& name);

/// Writes `bytes` to inputPath(name), replacing what was there, and returns the path.
std::string writeInput(const std::string& name, std::string_view bytes);

/// Removes inputPath(name) (a part the input did not give must not linger from the input before).
void removeInput(const std::string& name);

/// The input cut at each kFileSeparator into at most `parts` pieces (the last one keeps any further separators).
std::vector<std::string_view> splitInput(const std::uint8_t* data, std::size_t size, std::size_t parts);

/// Runs `read`, the expected DatasetError swallowed: any other exception leaves and libFuzzer reports it.
template <typename Read> int readExpectingDatasetError(Read&& read)
{
    try {
        read();
    } catch (const ks::data::DatasetError&) {
    }
    return 0;
}

} // namespace ks::fuzz

/// Each target's one-file form: its input written as `name` and read with `read(path)`.
#define KS_FUZZ_ONE_FILE_TARGET(name, read)                                                                            \
    extern "C" int LLVMFuzzerInitialize(int*, char***)                                                                 \
    {                                                                                                                  \
        ks::fuzz::initialise();                                                                                        \
        return 0;                                                                                                      \
    }                                                                                                                  \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)                                  \
    {                                                                                                                  \
        const std::string path                                                                                         \
            = ks::fuzz::writeInput(name, std::string_view(reinterpret_cast<const char*>(data), size));                 \
        return ks::fuzz::readExpectingDatasetError([&path] { (void)read(path); });                                     \
    }
