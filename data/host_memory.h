#pragma once

#include <cstdint>
#include <string>

namespace ks::data {

/// Bytes of host memory available to allocate now (MemAvailable), used to refuse inputs before allocating.
std::uint64_t availableHostMemory();

/// Throws DatasetError naming file and place when `bytes` would not fit in available host memory.
void requireHostMemory(std::uint64_t bytes, const std::string& file, const std::string& place, const std::string& what);

/// a × b, or the largest uint64 when it overflows: sizes computed from a file's header ask for "too much memory" (or
/// more bytes than the file holds) instead of wrapping round to a small number.
std::uint64_t saturatingMul(std::uint64_t a, std::uint64_t b);

/// a + b, or the largest uint64 when it overflows (see saturatingMul).
std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b);

/// "1.50 GiB"
std::string formatBytes(std::uint64_t bytes);

} // namespace ks::data
