#include "tests/fuzz/fuzz_support.h"

#include "data/host_memory.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace ks::fuzz {

namespace {

namespace fs = std::filesystem;

fs::path& inputFolder()
{
    static fs::path folder;
    return folder;
}

fs::path tempRoot()
{
    if (const char* chosen = std::getenv("KS_FUZZ_TMPDIR"); chosen && *chosen)
        return chosen;
    // A RAM file system spares the disk millions of small writes.
    if (::access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    return fs::temp_directory_path();
}

void removeInputFolder()
{
    std::error_code ignored;
    fs::remove_all(inputFolder(), ignored);
}

} // namespace

void initialise()
{
    ks::data::setMemoryLimit(kMemoryBudget);
    // One folder per process: libFuzzer's -jobs/-workers run several processes at once.
    inputFolder() = tempRoot() / ("ks-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(inputFolder());
    std::atexit(removeInputFolder);
}

std::string inputPath(const std::string& name)
{
    return (inputFolder() / name).string();
}

std::string writeInput(const std::string& name, std::string_view bytes)
{
    const std::string path = inputPath(name);
    if (name.find('/') != std::string::npos)
        fs::create_directories(fs::path(path).parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
        throw std::runtime_error("ks-fuzz: cannot write the input file " + path);
    return path;
}

void removeInput(const std::string& name)
{
    std::error_code ignored;
    fs::remove(inputPath(name), ignored);
}

std::vector<std::string_view> splitInput(const std::uint8_t* data, std::size_t size, std::size_t parts)
{
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> pieces;
    while (pieces.size() + 1 < parts) {
        const std::size_t at = rest.find(kFileSeparator);
        if (at == std::string_view::npos)
            break;
        pieces.push_back(rest.substr(0, at));
        rest.remove_prefix(at + kFileSeparator.size());
    }
    pieces.push_back(rest);
    return pieces;
}

} // namespace ks::fuzz

/// LeakSanitizer's suppressions, built in so that every way of running a target has them: libhdf5 1.10 leaks the
/// metadata cache entries of objects it fails to load from a corrupted file (allocated in its free lists, reported
/// only now and then as the cache's state carries over between inputs). Memory the readers allocate themselves is
/// still checked; what libhdf5 allocates for them (variable-length strings) is not.
extern "C" const char* __lsan_default_suppressions()
{
    return "leak:libhdf5\n";
}
