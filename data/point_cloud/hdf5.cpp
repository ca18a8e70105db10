// HDF5 point clouds: an N × 3 numeric dataset, or frames × N × 3 (a trajectory), read; an N × 3 float64 written.

#include "data/atomic_file.h"
#include "data/dataset_error.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/point_cloud.h"
#include "data/point_cloud/point_reader.h"
#include "data/reader_messages.h"

#include <vector>

namespace ks::data {

using namespace points;

namespace {

/// How many dataset names an HDF5 error lists before "and N more".
constexpr std::size_t kNamesListed = 8;

std::string extents(const std::vector<std::uint64_t>& dims)
{
    std::string text;
    for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i == 0 ? "" : " × ") + std::to_string(dims[i]);
    return text.empty() ? "a scalar" : text;
}

bool isPointShape(const h5::DatasetInfo& d)
{
    return (d.isFloat || d.isInteger) && (d.dims.size() == 2 || d.dims.size() == 3) && d.dims.back() == 3;
}

/// The dataset to read: ReadOptions::h5Path (a dataset, or a group to search), else the only N × 3 or
/// frames × N × 3 numeric dataset; a file holding one dataset of another shape reads it, so the error names it.
std::string choosePoints(const h5::File& file, const ReadOptions& options)
{
    const h5::DatasetSearch search = h5::searchDatasets(file, options.h5Path, isPointShape);
    if (!search.chosen.empty())
        return search.chosen;
    if (search.fitting.size() > 1) {
        std::vector<std::string> paths;
        for (const auto& d : search.fitting)
            paths.push_back(d.path);
        file.fail("",
            "several N × 3 datasets in " + search.where() + " (" + listing(paths, kNamesListed)
                + "); choose one with --h5-path");
    }
    if (search.all.size() == 1)
        return search.all.front().path;
    std::vector<std::string> all;
    for (const auto& d : search.all)
        all.push_back(d.path + " (" + d.type + " " + extents(d.dims) + ")");
    file.fail("",
        "no N × 3 or frames × N × 3 numeric dataset in " + search.where() + " (it has "
            + (all.empty() ? std::string("no datasets") : listing(all, kNamesListed)) + ")");
}

} // namespace

PointCloud readPointHdf5(const std::string& path, const ReadOptions& options)
{
    const std::uint64_t wanted = frameParam(options, path);
    const h5::File file = h5::File::open(path);
    const std::string dataset = choosePoints(file, options);
    const h5::DatasetInfo info = file.info(dataset);
    const std::string place = "dataset " + dataset;
    const std::size_t rank = info.dims.size();
    const char* const expected = "expected N × 3 points or frames × N × 3";
    if (rank != 2 && rank != 3)
        file.fail(place, "has rank " + std::to_string(rank) + " (" + extents(info.dims) + "); " + expected);
    if (info.dims.back() != 3)
        file.fail(
            place, "has extents " + extents(info.dims) + "; " + expected + " (the last extent must be 3: x, y, z)");
    if (!info.isFloat && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected numbers (float or integer)");
    const std::uint64_t frames = rank == 3 ? info.dims[0] : 1;
    const std::uint64_t points = info.dims[rank - 2];
    if (points == 0 || frames == 0)
        file.fail(place, "is empty (" + extents(info.dims) + "): no points");
    if (wanted > frames)
        throw DatasetError(path, "parameter frame",
            "frame " + std::to_string(wanted) + " requested, but " + place + " (" + extents(info.dims) + ") has "
                + plural(frames, "frame"));

    // Checked on the extents before the read, which reads the one frame asked for (a hyperslab of the trajectory).
    requireHostMemory(saturatingMul(points, 2 * 3 * sizeof(double)), path, place,
        "reading " + plural(points, "point")
            + (rank == 3 ? " of frame " + std::to_string(wanted) + " of " + std::to_string(frames) : std::string()));
    const std::vector<double> values = rank == 3 ? file.readDoubleRows(dataset, static_cast<int>(rank), wanted - 1, 1)
                                                 : file.readDoubles(dataset, static_cast<int>(rank), false);
    PointCloud cloud;
    cloud.storedType = info.type;
    cloud.x.resize(points);
    cloud.y.resize(points);
    cloud.z.resize(points);
    double* axes[3] = {cloud.x.data(), cloud.y.data(), cloud.z.data()};
    for (std::uint64_t i = 0; i < points; ++i)
        for (int a = 0; a < 3; ++a) {
            const double v = values[i * 3 + static_cast<std::uint64_t>(a)];
            if (rejected(v, options))
                nonFinite(v, a, path,
                    place + ", element [" + (rank == 3 ? std::to_string(wanted - 1) + ", " : std::string())
                        + std::to_string(i) + ", " + std::to_string(a) + "]");
            axes[a][i] = v;
        }
    if (rank == 3)
        cloud.notes.push_back("read frame " + std::to_string(wanted) + " of " + std::to_string(frames) + " of "
            + dataset + "; choose another with --param frame=N");
    return cloud;
}

void writePointHdf5(const std::string& path, const PointCloud& cloud)
{
    if (cloud.y.size() != cloud.x.size() || cloud.z.size() != cloud.x.size())
        throw DatasetError(path, "", "the cloud's x, y and z hold different numbers of values");
    std::vector<double> interleaved(cloud.size() * 3);
    for (std::size_t i = 0; i < cloud.size(); ++i) {
        interleaved[3 * i] = cloud.x[i];
        interleaved[3 * i + 1] = cloud.y[i];
        interleaved[3 * i + 2] = cloud.z[i];
    }
    writeFileAtomically(path, [&](AtomicFile& out) {
        h5::File file = h5::File::create(out.temporaryPath());
        file.writeDoubles("/points", interleaved, {cloud.size(), 3}, true);
    });
}

} // namespace ks::data
