// PDB: the coordinates of ATOM and HETATM records, from their fixed columns (PDB format 3.3), one MODEL of many.

#include "data/dataset_error.h"
#include "data/point_cloud.h"
#include "data/point_cloud/point_reader.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace ks::data {

using namespace points;

PointCloud readPdb(const std::string& path, const ReadOptions& options)
{
    const std::uint64_t wanted = frameParam(options, path);
    // Read a line at a time and left at the MODEL record after the model wanted: the other models are never held,
    // and those after it never read.
    TextStream lines(path);
    PointCloud cloud;
    cloud.storedType = "text";
    // About 81 bytes per ATOM record: enough for the first model without reallocation, never more than the file (a
    // compressed file grows as it is read, each growth checked against the memory budget).
    reservePoints(
        cloud, lines.compressed() ? 0 : lines.fileSize() / 81 + 1, std::numeric_limits<std::uint64_t>::max(), path, "");
    std::string_view line;
    bool modelsFollow = false;
    std::uint64_t models = 0;
    std::size_t chosenModelLine = 0;
    // Coordinates are the fixed columns 31–38, 39–46 and 47–54 (PDB format 3.3): fields may touch
    // ("-123.456-789.012"), so they are never split on blanks.
    constexpr std::size_t kColumn[3] = {31, 39, 47};
    while (lines.next(line)) {
        if (line.starts_with("MODEL ") || line == "MODEL") {
            if (models == wanted) {
                modelsFollow = true;
                break;
            }
            ++models;
            if (models == wanted)
                chosenModelLine = lines.number();
            continue;
        }
        const bool hetatm = line.starts_with("HETATM");
        // "ATOM  ", or "ATOM" with a serial number spilling into columns 5–6 (writers past 99,999 atoms).
        const bool atom = line.starts_with("ATOM")
            && (line.size() == 4 || line[4] == ' ' || std::isdigit(static_cast<unsigned char>(line[4])));
        if (!atom && !hetatm)
            continue;
        if (std::max<std::uint64_t>(models, 1) != wanted)
            continue;
        const std::size_t number = lines.number();
        if (line.size() < 54)
            throw DatasetError(path, linePlace(number),
                std::string(hetatm ? "HETATM" : "ATOM") + " record of " + std::to_string(line.size())
                    + " characters; its coordinates need columns 31–54 (x 31–38, y 39–46, z 47–54)");
        double v[3];
        for (int a = 0; a < 3; ++a) {
            const std::size_t column = kColumn[a];
            const std::string_view field = trimmed(line.substr(column - 1, 8));
            if (field.empty())
                throw DatasetError(path, linePlace(number, column),
                    std::string(kAxisNames[a]) + " coordinate (columns " + std::to_string(column) + "–"
                        + std::to_string(column + 7) + ") is blank");
            v[a] = parseCoordinate(field, a, path, number, column, options);
        }
        growIfFull(cloud, path, linePlace(number));
        push(cloud, v[0], v[1], v[2]);
    }
    const std::uint64_t inFile = std::max<std::uint64_t>(models, 1);
    if (wanted > inFile)
        throw DatasetError(path, "parameter frame",
            "model " + std::to_string(wanted) + " requested, but the file has " + plural(inFile, "model")
                + (models == 0 ? " (no MODEL records)" : ""));
    if (cloud.size() == 0)
        throw DatasetError(path, models > 0 ? linePlace(chosenModelLine) : "",
            models > 0 ? "model " + std::to_string(wanted) + " has no ATOM or HETATM records"
                       : "no ATOM or HETATM records: no atoms to read");
    if (modelsFollow)
        cloud.notes.push_back("read model " + std::to_string(wanted) + " (MODEL record at line "
            + std::to_string(chosenModelLine) + "), more models follow; choose another with --param frame=N");
    else if (models > 1)
        cloud.notes.push_back("read model " + std::to_string(wanted) + " of " + std::to_string(models)
            + " (MODEL record at line " + std::to_string(chosenModelLine) + "); choose another with --param frame=N");
    shrinkToFit(cloud);
    return cloud;
}

} // namespace ks::data
