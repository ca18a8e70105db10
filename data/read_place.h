#pragma once

// Where a reader is in its file, for the reader worker (cli/reader_worker.h): when libhdf5 crashes or loops on a
// corrupted file, the worker process dies, and the parent names the file and the place from what the readers noted
// last. Outside the worker nothing is noted: each hook is one test of a null pointer.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ks::data {

/// Where notes go: a page shared with the parent (the worker maps it; nobody else has one). Text is written before
/// its length, and a reader of a torn note (the process killed mid-write) gets the older length or NUL-terminated
/// text it can escape; every field is fixed-size so nothing here allocates.
struct ReadPlacePage {
    static constexpr std::size_t kTextBytes = 1024;
    enum Source : std::uint32_t { None = 0, Hdf5 = 1, Text = 2 };
    std::atomic<std::uint32_t> source {None}; ///< who noted the place: libhdf5's object or a text line
    std::atomic<std::uint32_t> fileLength {0};
    std::atomic<std::uint32_t> placeLength {0};
    std::atomic<std::uint64_t> line {0}; ///< the text line being read (Text), from 1
    char file[kTextBytes] {};
    char place[kTextBytes] {};
};

/// The page notes go to (null: none, the default).
extern ReadPlacePage* g_readPlacePage;

/// The worker's page, and a hook called with each HDF5 place (its tests use it to fault at a chosen place).
void setReadPlacePage(ReadPlacePage* page, void (*onHdf5Place)(std::string_view place) = nullptr);

/// The file a reader opens now (text or HDF5); the place and line start again.
void noteReadFile(std::string_view file);

/// The HDF5 object libhdf5 is about to read ("/matrix/feature_names", "/x@units" for an attribute).
void noteHdf5Place(std::string_view file, std::string_view place);

/// The text line a reader has reached (cheap enough for every line: one relaxed store when a page is set).
inline void noteReadLine(std::uint64_t line)
{
    if (ReadPlacePage* page = g_readPlacePage) [[unlikely]] {
        page->line.store(line, std::memory_order_relaxed);
        page->source.store(ReadPlacePage::Text, std::memory_order_relaxed);
    }
}

} // namespace ks::data
