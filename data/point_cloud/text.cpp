// Plain x y z text: one point per line, blank or comma separated, # comments, an optional first line of names.

#include "data/dataset_error.h"
#include "data/point_cloud.h"
#include "data/point_cloud/point_reader.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <limits>

namespace ks::data {

namespace points {

PointCloud parsePointText(std::string_view text, const std::string& file, const ReadOptions& options)
{
    text = withoutBom(text);
    // Its banner would pass for a header of names, and its index triples for points.
    if (text.substr(0, 14) == "%%MatrixMarket")
        throw DatasetError(
            file, linePlace(1), "a Matrix Market file (a sparse matrix), not x y z points: spmv reads it");
    PointCloud cloud;
    cloud.storedType = "text";
    reservePoints(cloud, static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1,
        std::numeric_limits<std::uint64_t>::max(), file, "");
    LineCursor lines(text);
    std::string_view line;
    bool firstRow = true;
    std::array<std::string_view, 3> fields;
    while (lines.next(line)) {
        const std::string_view body = trimmed(line);
        if (body.empty() || body.front() == '#')
            continue;
        std::size_t count = 0;
        if (body.find(',') != std::string_view::npos) {
            std::size_t start = 0;
            for (;;) {
                const std::size_t comma = body.find(',', start);
                const std::string_view field
                    = trimmed(body.substr(start, comma == std::string_view::npos ? comma : comma - start));
                if (count++ < fields.size())
                    fields[count - 1] = field;
                if (comma == std::string_view::npos)
                    break;
                start = comma + 1;
            }
        } else {
            count = tokens(body, fields);
        }
        if (firstRow) {
            firstRow = false;
            if (!isNumber(fields[0]) && !fields[0].empty())
                continue; // a header of names
        }
        const std::size_t number = lines.number();
        if (count < 3)
            throw DatasetError(
                file, linePlace(number), "short line: " + plural(count, "field") + ", expected 3 (x y z)");
        if (count > 3)
            throw DatasetError(file, linePlace(number), std::to_string(count) + " fields, expected 3 (x y z)");
        double v[3];
        for (int a = 0; a < 3; ++a)
            v[a] = parseCoordinate(fields[a], a, file, number, static_cast<std::size_t>(a) + 1, options);
        push(cloud, v[0], v[1], v[2]);
    }
    if (cloud.size() == 0)
        throw DatasetError(
            file, "", text.empty() ? "empty file: no points" : "no points (only blank, comment and header lines)");
    shrinkToFit(cloud);
    return cloud;
}

} // namespace points

PointCloud readPointText(const std::string& path, const ReadOptions& options)
{
    points::requireSingleFrame(options, path, "a plain text file");
    const std::string text = readTextFile(path);
    return points::parsePointText(text, path, options);
}

} // namespace ks::data
