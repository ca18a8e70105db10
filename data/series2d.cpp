#include "data/series2d.h"

#include "data/atomic_file.h"
#include "data/cancel.h"
#include "data/cancellable_loop.h"
#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/input_file.h"
#include "data/random.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <span>

namespace ks::data {

namespace {
/// How many dataset names the message about a file without x and y lists.
constexpr std::size_t kDatasetsListed = 8;

bool isNumber(const std::string& field)
{
    try {
        parseNumberField(field, "", 0, 0);
        return true;
    } catch (const DatasetError&) {
        return false;
    }
}
} // namespace

Series2D readSeriesText(const std::string& path, const ReadOptions& options)
{
    const std::string text = readTextFile(path);
    Series2D series;
    bool sawRow = false;
    // At most one point per line: x and y for each, checked against the memory budget before parsing, reserved so
    // that they never grow (growing holds the old arrays and the new at once).
    const std::uint64_t lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    requireHostMemory(
        saturatingMul(lines, 2 * sizeof(double)), path, "", "reading up to " + std::to_string(lines) + " rows");
    series.x.reserve(lines);
    series.y.reserve(lines);
    parseDelimitedText(text, path, {}, [&](TextRow& row) {
        if (!sawRow) {
            sawRow = true;
            const bool header = std::none_of(row.fields.begin(), row.fields.end(), isNumber);
            if (header) {
                if (row.fields.size() != 2)
                    throw DatasetError(path, linePlace(row.line),
                        "header has " + std::to_string(row.fields.size()) + " columns; expected 2 (x and y)");
                series.xName = row.fields[0];
                series.yName = row.fields[1];
                return true;
            }
        }
        if (row.fields.size() != 2)
            throw DatasetError(path, linePlace(row.line),
                "row has " + std::to_string(row.fields.size()) + (row.fields.size() == 1 ? " field" : " fields")
                    + "; expected 2 (x and y)");
        const double x = parseNumberField(row.fields[0], path, row.line, 1);
        const double y = parseNumberField(row.fields[1], path, row.line, 2);
        checkFinite(x, path, linePlace(row.line, 1), options);
        checkFinite(y, path, linePlace(row.line, 2), options);
        series.x.push_back(x);
        series.y.push_back(y);
        return true;
    });
    if (series.x.empty())
        throw DatasetError(path, "", sawRow ? "no data rows after the header" : "empty file: no data rows");
    series.x.shrink_to_fit();
    series.y.shrink_to_fit();
    return series;
}

Series2D readSeriesHdf5(const std::string& path, const ReadOptions& options)
{
    const h5::File file = h5::File::open(path);
    std::string group = options.h5Path;
    if (group.empty()) {
        // One pass over the file's objects: asking the library about each group's x and y in turn walks every
        // path from the root, which grows with the cube of the nesting depth.
        const h5::Contents contents = file.contents();
        std::vector<std::string> candidates;
        for (const auto& g : contents.groups)
            if (file.hasDataset(contents, h5::childPath(g, "x")) && file.hasDataset(contents, h5::childPath(g, "y")))
                candidates.push_back(g);
        if (candidates.empty())
            file.fail("",
                "no group holds datasets named x and y (the file has: "
                    + (contents.datasets.empty() ? std::string("no datasets")
                                                 : listing(contents.datasets, kDatasetsListed))
                    + ")");
        if (candidates.size() > 1)
            file.fail("", "several groups hold x and y (" + listing(candidates) + "); choose one with --h5-path");
        group = candidates.front();
    }
    if (!group.empty() && group.front() != '/')
        group.insert(group.begin(), '/');
    // A path naming the x dataset itself selects its group.
    if (file.hasDataset(group))
        group = h5::parentPath(group);
    if (!file.hasGroup(group))
        file.fail("group " + group, "no such group in the file");
    const std::string xPath = h5::childPath(group, "x");
    const std::string yPath = h5::childPath(group, "y");
    for (const char* name : {"x", "y"})
        if (!file.hasDataset(h5::childPath(group, name)))
            file.fail("group " + group, std::string("has no dataset named ") + name);

    const auto xInfo = file.info(xPath);
    const auto yInfo = file.info(yPath);
    for (const auto* info : {&xInfo, &yInfo}) {
        if (info->dims.size() != 1)
            file.fail(
                "dataset " + info->path, "has rank " + std::to_string(info->dims.size()) + "; expected a 1-D dataset");
        if (!info->isFloat || (info->type != "float32" && info->type != "float64"))
            file.fail("dataset " + info->path, "holds " + info->type + " values; expected float32 or float64");
    }
    if (xInfo.dims[0] != yInfo.dims[0])
        file.fail("group " + group,
            "x has " + std::to_string(xInfo.dims[0]) + " values but y has " + std::to_string(yInfo.dims[0])
                + "; they must be of equal length");
    if (xInfo.dims[0] == 0)
        file.fail("dataset " + xInfo.path, "is empty: no points");
    requireHostMemory(xInfo.dims[0] * 2 * sizeof(double), path, "group " + group, "reading x and y");

    Series2D series;
    series.x = file.readDoubles(xPath, 1, true);
    series.y = file.readDoubles(yPath, 1, true);
    series.storedType = xInfo.type == yInfo.type ? xInfo.type : xInfo.type + "/" + yInfo.type;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
        checkFinite(series.x[i], path, "dataset " + xInfo.path + ", element " + std::to_string(i), options);
        checkFinite(series.y[i], path, "dataset " + yInfo.path + ", element " + std::to_string(i), options);
    }
    return series;
}

Dataset makeSeriesDataset(Series2D series, std::string name, std::string source)
{
    DatasetMeta meta;
    meta.kind = "series2d";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    hasher.addSpan(std::span<const double>(series.x));
    hasher.addSpan(std::span<const double>(series.y));
    meta.contentHash = hasher.hex();
    meta.size = series.x.size();
    meta.properties = {
        {"points", std::to_string(series.x.size())},
        {series.xName + " range", formatRange(series.x)},
        {series.yName + " range", formatRange(series.y)},
        {"stored as", series.storedType},
    };
    // The four-sums fits sum x² and x·y in double: past DBL_MAX / n those sums may overflow, and such a fit is then
    // infinite where the long-double reference is not. Said up front, so an `incorrect` row has its reason.
    long double maxX = 0.0L, maxY = 0.0L;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
        maxX = std::max(maxX, std::fabs(static_cast<long double>(series.x[i])));
        maxY = std::max(maxY, std::fabs(static_cast<long double>(series.y[i])));
    }
    const long double limit
        = static_cast<long double>(std::numeric_limits<double>::max()) / static_cast<long double>(series.x.size());
    if (!series.x.empty() && (maxX * maxX > limit || maxX * maxY > limit)) {
        char text[256];
        std::snprintf(text, sizeof text,
            "|x| reaches %.4Lg and |y| %.4Lg: the sums of x² or x·y over %zu points may overflow float64, so fits from "
            "four sums in double can be infinite (the long-double reference is not)",
            maxX, maxY, series.x.size());
        meta.notes.push_back(text);
    }
    return Dataset::make(std::move(meta), std::move(series));
}

Dataset loadSeries2D(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path);
    Series2D series = h5::looksLikeHdf5(path) ? readSeriesHdf5(path, options) : readSeriesText(path, options);
    return makeSeriesDataset(std::move(series), baseName(path), path);
}

void writeSeriesCsv(const std::string& path, const Series2D& series)
{
    writeFileAtomically(path, [&series](AtomicFile& file) {
        std::ostream& out = file.stream();
        out << csvLine({series.xName, series.yName}) << '\n';
        char buffer[64];
        for (std::size_t i = 0; i < series.x.size(); ++i) {
            // %.17g round-trips every double exactly.
            std::snprintf(buffer, sizeof buffer, "%.17g,%.17g\n", series.x[i], series.y[i]);
            out << buffer;
        }
    });
}

void writeSeriesHdf5(const std::string& path, const Series2D& series, bool asFloat32)
{
    writeFileAtomically(path, [&series, asFloat32](AtomicFile& out) {
        h5::File file = h5::File::create(out.temporaryPath());
        const std::uint64_t n = series.x.size();
        if (asFloat32) {
            std::vector<float> xs(series.x.begin(), series.x.end());
            std::vector<float> ys(series.y.begin(), series.y.end());
            file.writeFloats("/x", xs, {n}, true);
            file.writeFloats("/y", ys, {n}, true);
        } else {
            file.writeDoubles("/x", series.x, {n}, true);
            file.writeDoubles("/y", series.y, {n}, true);
        }
    });
}

Series2D generateSeries(const SeriesGenerator& g)
{
    if (g.n == 0)
        throw DatasetError("generator", "n", "must be at least 1");
    if (!(g.xSpan >= 0.0) || !std::isfinite(g.xOffset) || !std::isfinite(g.slope) || !std::isfinite(g.intercept)
        || !(g.noise >= 0.0))
        throw DatasetError(
            "generator", "parameters", "slope, intercept and x_offset must be finite; noise and x_span non-negative");
    requireHostMemory(g.n * 2 * sizeof(double), "generator", "n=" + std::to_string(g.n), "generating the series");
    // A stop request (Ctrl-C, Cancel) is checked while the memory is first touched and before each block of points.
    const CancelPoint cancel = ambientCancelPoint();
    Series2D s;
    resizeCancellably(s.x, g.n, cancel);
    resizeCancellably(s.y, g.n, cancel);
    const CounterRng rng(g.seed);
    const auto n = static_cast<std::int64_t>(g.n);
    parallelForCancellable(n, cancel, [&](std::int64_t i) {
        const auto k = static_cast<std::uint64_t>(i);
        const double x = g.xOffset + g.xSpan * rng.uniform(0, k);
        s.x[k] = x;
        s.y[k] = g.slope * x + g.intercept + g.noise * rng.normal(1, k);
    });
    return s;
}

} // namespace ks::data
