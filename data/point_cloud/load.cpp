// The point dataset with its metadata, and the choice of reader for a file: by extension, or HDF5 by its signature.

#include "data/dataset_error.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/input_file.h"
#include "data/line_cursor.h"
#include "data/point_cloud.h"
#include "data/point_cloud/point_reader.h"
#include "data/text_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <span>

namespace ks::data {

using points::kAxisNames;

Dataset makePointDataset(PointCloud cloud, std::string name, std::string source)
{
    const std::size_t n = cloud.x.size();
    if (cloud.y.size() != n || cloud.z.size() != n)
        throw DatasetError(source, "",
            "the cloud's x, y and z hold different numbers of values (" + std::to_string(n) + ", "
                + std::to_string(cloud.y.size()) + ", " + std::to_string(cloud.z.size()) + ")");
    if (n == 0)
        throw DatasetError(source, "", "no points: the sdh histogram needs at least one point");
    const std::vector<double>* axes[3] = {&cloud.x, &cloud.y, &cloud.z};
    double extent[3];
    std::string box;
    for (int a = 0; a < 3; ++a) {
        const std::vector<double>& values = *axes[a];
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isfinite(values[i]))
                throw DatasetError(source, "point " + std::to_string(i),
                    std::string(kAxisNames[a]) + " coordinate is " + (std::isnan(values[i]) ? "NaN" : "infinite")
                        + "; pair distances need finite coordinates (even with --allow-nonfinite)");
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        extent[a] = *hi - *lo;
        box += std::string(a == 0 ? "" : ", ") + kAxisNames[a] + " " + formatRange(values);
    }
    // The largest possible pair distance, computed as the workload's bucket count is.
    const double diagonal = std::sqrt((extent[0] * extent[0] + extent[1] * extent[1]) + extent[2] * extent[2]);
    char diagonalText[40];
    std::snprintf(diagonalText, sizeof diagonalText, "%.6g", diagonal);

    DatasetMeta meta;
    meta.kind = "points";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    const std::uint64_t count = n;
    hasher.add(&count, sizeof count);
    for (const auto* values : axes)
        hasher.addSpan(std::span<const double>(*values));
    meta.contentHash = hasher.hex();
    meta.size = n;
    meta.properties = {
        {"points", std::to_string(n)},
        {"bounding box", box},
        {"bounding-box diagonal", diagonalText},
        {"stored as", cloud.storedType},
    };
    meta.notes = cloud.notes;
    return Dataset::make(std::move(meta), std::move(cloud));
}

Dataset loadPointCloud(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path);
    std::string name = baseName(path);
    std::string lower = lowerCase(name);
    const bool hdf5Extension = lower.ends_with(".h5") || lower.ends_with(".hdf5");
    if (lower.ends_with(".gz"))
        lower.resize(lower.size() - 3);
    const std::string extension = std::filesystem::path(lower).extension().string();
    PointCloud cloud;
    if (hdf5Extension || h5::looksLikeHdf5(path))
        cloud = readPointHdf5(path, options);
    else if (extension == ".xyz")
        cloud = readXyz(path, options);
    else if (extension == ".pdb" || extension == ".ent")
        cloud = readPdb(path, options);
    else if (extension == ".ply")
        cloud = readPly(path, options);
    else
        cloud = readPointText(path, options);
    return makePointDataset(std::move(cloud), std::move(name), path);
}

} // namespace ks::data
