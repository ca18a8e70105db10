// XYZ: a count line, a comment line, then `element x y z` rows, repeated per frame (the multi-frame trajectories
// of molecular dynamics); a file whose first line already holds three numbers is headerless x y z text.

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/point_cloud.h"
#include "data/point_cloud/point_reader.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <charconv>

namespace ks::data {

using namespace points;

PointCloud readXyz(const std::string& path, const ReadOptions& options)
{
    const std::uint64_t wanted = frameParam(options, path);
    // Read a line at a time and left after the frame wanted: a trajectory's other frames are never held, and those
    // after it never read.
    TextStream lines(path);
    std::string_view line;
    if (!nextNonBlank(lines, line))
        throw DatasetError(path, "", "empty file: no atom count line");
    {
        // Sniff: a first line of three numbers (or more) is headerless x y z text, one frame read whole.
        std::array<std::string_view, 3> t;
        if (tokens(line, t) >= 3 && isNumber(t[0]) && isNumber(t[1]) && isNumber(t[2])) {
            requireSingleFrame(options, path, "a headerless x y z file");
            const std::string bytes = readTextFile(path);
            return parsePointText(withoutBom(bytes), path, options);
        }
    }

    PointCloud cloud;
    cloud.storedType = "text";
    std::uint64_t frames = 0;
    std::uint64_t previousCount = 0;
    std::size_t previousCountLine = 0;
    std::array<std::string_view, 4> t;
    // The atom count of the count line in `line`, or the error a count line expected there gets.
    const auto countOf = [&](std::size_t countLine) {
        const std::size_t fields = tokens(line, t);
        std::uint64_t count = 0;
        const auto [ptr, ec] = std::from_chars(t[0].data(), t[0].data() + t[0].size(), count);
        if (fields != 1 || ec != std::errc() || ptr != t[0].data() + t[0].size()) {
            if (frames > 0 && fields >= 4)
                throw DatasetError(path, linePlace(countLine),
                    "more atom rows than the " + std::to_string(previousCount) + " the count line (line "
                        + std::to_string(previousCountLine) + ") declares");
            throw DatasetError(path, linePlace(countLine),
                "bad count line: expected the number of atoms (a non-negative whole number), found "
                    + quotedToken(trimmed(line)));
        }
        return count;
    };
    bool more = true;
    while (more) {
        const std::size_t countLine = lines.number();
        const std::uint64_t count = countOf(countLine);
        ++frames;
        previousCount = count;
        previousCountLine = countLine;
        if (!lines.next(line))
            throw DatasetError(
                path, "end of file", "no comment line after the count line (line " + std::to_string(countLine) + ")");
        const bool keep = frames == wanted;
        if (keep) {
            // The count is checked against the memory budget before any row is read.
            requireHostMemory(saturatingMul(count, 3 * sizeof(double)), path, linePlace(countLine),
                "frame " + std::to_string(frames) + " of " + plural(count, "atom"));
            reservePoints(cloud, count, lines.remainingBound() / 8 + 1, path, linePlace(countLine));
        }
        for (std::uint64_t i = 0; i < count; ++i) {
            if (!lines.next(line))
                throw DatasetError(path, "end of file",
                    "found " + plural(i, "atom") + ", but the count line (line " + std::to_string(countLine)
                        + ") declares " + std::to_string(count));
            if (!keep)
                continue;
            const std::size_t number = lines.number();
            const std::size_t n = tokens(line, t);
            if (n < 4)
                throw DatasetError(
                    path, linePlace(number), "short line: " + plural(n, "field") + ", expected 4 (element x y z)");
            double v[3];
            for (int a = 0; a < 3; ++a)
                v[a] = parseCoordinate(
                    t[static_cast<std::size_t>(a) + 1], a, path, number, static_cast<std::size_t>(a) + 2, options);
            push(cloud, v[0], v[1], v[2]);
        }
        more = nextNonBlank(lines, line);
        if (!keep)
            continue;
        if (count == 0)
            throw DatasetError(path, linePlace(countLine),
                "frame " + std::to_string(wanted) + " has no atoms (its count line says 0)");
        if (more) {
            // Only the next count line is looked at: an extra atom row of this frame is still an error.
            countOf(lines.number());
            cloud.notes.push_back("read frame " + std::to_string(wanted) + " (count line " + std::to_string(countLine)
                + "), more frames follow; choose another with --param frame=N");
        } else if (frames > 1) {
            cloud.notes.push_back("read frame " + std::to_string(wanted) + " of " + std::to_string(frames)
                + " (count line " + std::to_string(countLine) + "); choose another with --param frame=N");
        }
        return cloud;
    }
    throw DatasetError(path, "parameter frame",
        "frame " + std::to_string(wanted) + " requested, but the file has " + plural(frames, "frame"));
}

} // namespace ks::data
