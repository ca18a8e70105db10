#pragma once

// What the point-cloud readers (one file per format in this folder) share: the frame parameter, a coordinate parsed
// and checked with its place in the file, and the cloud filled a point at a time. Internal to ks_data; the API is
// data/point_cloud.h.

#include "data/line_cursor.h"
#include "data/point_cloud.h"
#include "data/read_options.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ks::data::points {

inline constexpr const char* kAxisNames[3] = {"x", "y", "z"};

/// True when the whole token is a number (parseReal).
bool isNumber(std::string_view token);

/// True when `value` is NaN or infinite and the options do not allow it.
inline bool rejected(double value, const ReadOptions& options)
{
    return !options.allowNonFinite && !std::isfinite(value);
}

/// The DatasetError for a rejected coordinate on `axis` (0, 1, 2) at `place`.
[[noreturn]] void nonFinite(double value, int axis, const std::string& file, const std::string& place);

/// One coordinate of a text format at `line`, `column` (a field number, or a character column for PDB); DatasetError
/// naming the place when it is empty, not a number, out of range or (not allowed) non-finite. The place is only
/// formatted on failure: this runs millions of times.
double parseCoordinate(std::string_view token, int axis, const std::string& file, std::size_t line, std::size_t column,
    const ReadOptions& options);

/// ReadOptions::params["frame"], 1 when absent.
std::uint64_t frameParam(const ReadOptions& options, const std::string& file);

/// Formats with one frame take frame = 1 (the default) and refuse any other.
void requireSingleFrame(const ReadOptions& options, const std::string& file, const char* format);

/// Reserves room for `count` points after checking the memory (three doubles each); `plausible` caps the reservation
/// where the count comes from the file (a header cannot make the reader allocate more than the file could hold).
void reservePoints(
    PointCloud& cloud, std::uint64_t count, std::uint64_t plausible, const std::string& file, const std::string& place);

inline void push(PointCloud& cloud, double x, double y, double z)
{
    cloud.x.push_back(x);
    cloud.y.push_back(y);
    cloud.z.push_back(z);
}

/// Before a push into a full cloud whose size the file does not declare: checks that growing it (the old arrays and
/// the new, twice as long, held at once) fits in the memory budget, naming `place`, and grows it.
void growIfFull(PointCloud& cloud, const std::string& file, const std::string& place);

/// Gives back what reservePoints reserved beyond the points read.
void shrinkToFit(PointCloud& cloud);

/// The next line of `lines` (a LineCursor or a TextStream) that is not blank; false at the end of the text.
template <class Lines> bool nextNonBlank(Lines& lines, std::string_view& line)
{
    while (lines.next(line))
        if (!trimmed(line).empty())
            return true;
    return false;
}

/// Splits a line into blank-separated tokens, keeping the first `N` and counting all.
template <std::size_t N> std::size_t tokens(std::string_view line, std::array<std::string_view, N>& out)
{
    std::size_t count = 0;
    std::size_t pos = 0;
    for (std::string_view t = nextToken(line, pos); !t.empty(); t = nextToken(line, pos))
        if (count++ < N)
            out[count - 1] = t;
    return count;
}

/// `x y z` rows, blank or comma separated (decided per line), # comments, a first line of names skipped: plain
/// text, and an XYZ file whose first line already holds coordinates.
PointCloud parsePointText(std::string_view text, const std::string& file, const ReadOptions& options);

} // namespace ks::data::points
