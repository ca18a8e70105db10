#pragma once

#include <cstdint>
#include <string>

namespace ks::data {

/// Bytes of host memory available to allocate now (MemAvailable), used to refuse inputs before allocating.
std::uint64_t availableHostMemory();

/// Throws DatasetError naming file and place when `bytes` would not fit in available host memory.
void requireHostMemory(std::uint64_t bytes, const std::string& file, const std::string& place, const std::string& what);

/// "1.50 GiB"
std::string formatBytes(std::uint64_t bytes);

} // namespace ks::data
