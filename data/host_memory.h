#pragma once

#include <cstdint>
#include <string>

namespace ks::data {

/// The memory budget: the bytes this process may still allocate now, the smallest of the machine's available memory
/// (MemAvailable), the address-space limit's headroom (RLIMIT_AS, `ulimit -v`, less what the process maps now), its
/// cgroup's headroom (memory.max less memory.current, cgroup v2 or v1) and the limit setMemoryLimit was given
/// (`--memory-limit`). Readers and generators refuse inputs with it before allocating.
std::uint64_t availableHostMemory();

/// Which of those limits the budget is now, for messages: "ulimit -v", "cgroup limit", "--memory-limit", or empty
/// for the machine's available memory.
std::string memoryBudgetSource();

/// The address space this process maps now (VmSize), what RLIMIT_AS counts.
std::uint64_t mappedAddressSpace();

/// A limit of this process's own (0: none), as `--memory-limit` gives it; `name` is what messages call it (the app's
/// field: "Memory limit in Run settings").
void setMemoryLimit(std::uint64_t bytes, const std::string& name = "--memory-limit");
/// The limit setMemoryLimit gave (0: none) and its name, for the worker processes this one starts.
std::uint64_t memoryLimit();
std::string memoryLimitName();

/// "4G", "512M", "1.5GiB", "1000000" (bytes) as bytes; throws std::invalid_argument for anything else.
std::uint64_t parseByteSize(const std::string& text);

/// The cgroup headroom of a process whose /proc/self/cgroup text is `cgroupText`, with the cgroup file systems
/// under `root` (normally /sys/fs/cgroup); the largest uint64 when no limit applies or nothing can be read.
std::uint64_t cgroupHeadroom(const std::string& cgroupText, const std::string& root);

/// Throws DatasetError naming file and place when `bytes` would not fit in the memory budget (and which limit it is).
void requireHostMemory(std::uint64_t bytes, const std::string& file, const std::string& place, const std::string& what);

/// a × b, or the largest uint64 when it overflows: sizes computed from a file's header ask for "too much memory" (or
/// more bytes than the file holds) instead of wrapping round to a small number.
std::uint64_t saturatingMul(std::uint64_t a, std::uint64_t b);

/// a + b, or the largest uint64 when it overflows (see saturatingMul).
std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b);

/// "1.50 GiB"
std::string formatBytes(std::uint64_t bytes);

} // namespace ks::data
