// The spmv x vector: read from its own file (one value per line, or an HDF5 1-D dataset) or generated from a seed.

#include "data/cancel.h"
#include "data/cancellable_loop.h"
#include "data/dataset_error.h"
#include "data/delimited_text.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/input_file.h"
#include "data/line_cursor.h"
#include "data/random.h"
#include "data/reader_messages.h"
#include "data/sparse_matrix.h"
#include "data/text_file.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace ks::data {

namespace {

/// The CounterRng stream of generateVector (index = element), apart from the sparse generator's (1..4 << 40).
constexpr std::uint64_t kVectorStream = 5ULL << 40;
constexpr const char* kGenerator = "generator";

/// "x must have one value per column", after what was found ("the vector has 3 values").
std::string wrongLength(const std::string& found, std::uint64_t columns)
{
    return found + " but the matrix has " + std::to_string(columns) + " columns; x must have one value per column";
}

std::string vectorHas(const std::string& count)
{
    return "the vector has " + count + " values";
}

/// Read a line at a time, so a vector longer than the matrix is refused at the first value too many, and only the
/// values kept are in memory.
std::vector<double> readVectorText(
    const std::string& path, const ReadOptions& options, std::optional<std::uint64_t> columns)
{
    TextStream lines(path);
    std::vector<double> x;
    if (columns) {
        // Every value but the last takes two bytes at least ("1\n"): a plain file too small for that is refused
        // unread.
        const std::uint64_t atMost = lines.remainingBound() / 2 + 1;
        if (!lines.compressed() && *columns > atMost)
            throw DatasetError(path, "",
                wrongLength("a file of " + formatBytes(lines.fileSize()) + " holds at most " + std::to_string(atMost)
                        + " values",
                    *columns));
        requireHostMemory(
            saturatingMul(*columns, sizeof(double)), path, "", "the vector of " + std::to_string(*columns) + " values");
        x.reserve(static_cast<std::size_t>(*columns));
    }
    std::string_view line;
    bool anyLine = false;
    while (lines.next(line)) {
        anyLine = true;
        const std::string_view field = trimmed(line);
        if (field.empty() || field.front() == '#')
            continue;
        if (columns && x.size() == *columns)
            throw DatasetError(path, linePlace(lines.number()),
                wrongLength(vectorHas("more than " + std::to_string(*columns)), *columns));
        // Growing holds the old values and twice as many at once.
        if (x.size() == x.capacity())
            requireHostMemory(saturatingMul(x.size() + 1, 3 * sizeof(double)), path, linePlace(lines.number()),
                "the vector of " + std::to_string(x.size() + 1) + " values");
        const double value = parseNumberField(field, path, lines.number(), 0);
        checkFinite(value, path, linePlace(lines.number()), options);
        x.push_back(value);
    }
    if (x.empty())
        throw DatasetError(path, "", !anyLine ? "empty file: no values" : "no values (only blank and comment lines)");
    if (columns && x.size() != *columns)
        throw DatasetError(path, "", wrongLength(vectorHas(std::to_string(x.size())), *columns));
    x.shrink_to_fit();
    return x;
}

/// The vector dataset: ReadOptions::h5Path (a dataset, or a group to search), else the only 1-D numeric dataset
/// that is not part of a sparse group (data, indices, indptr and shape beside them), so x can live in the matrix's
/// file.
std::string chooseVector(const h5::File& file, const ReadOptions& options)
{
    const auto isVector = [&file](const h5::DatasetInfo& d) {
        const std::string parent = h5::parentPath(d.path);
        const bool inSparseGroup = file.hasDataset(h5::childPath(parent, "data"))
            && file.hasDataset(h5::childPath(parent, "indices")) && file.hasDataset(h5::childPath(parent, "indptr"));
        return d.dims.size() == 1 && (d.isFloat || d.isInteger) && !inSparseGroup;
    };
    const h5::DatasetSearch search = h5::searchDatasets(file, options.h5Path, isVector);
    if (!search.chosen.empty())
        return search.chosen;
    if (search.fitting.empty())
        file.fail("",
            "no 1-D numeric dataset (a vector) in " + search.where() + " (it has "
                + (search.all.empty() ? std::string("no datasets") : listing(h5::describe(search.all))) + ")");
    file.fail("",
        "several 1-D numeric datasets in " + search.where() + " (" + listing(h5::describe(search.fitting))
            + "); choose one with --h5-path");
}

std::vector<double> readVectorHdf5(
    const std::string& path, const ReadOptions& options, std::optional<std::uint64_t> columns)
{
    const h5::File file = h5::File::open(path);
    const std::string dataset = chooseVector(file, options);
    const auto info = file.info(dataset);
    const std::string place = "dataset " + dataset;
    if (info.dims.size() != 1)
        file.fail(place, "has rank " + std::to_string(info.dims.size()) + "; expected a 1-D vector");
    if (!info.isFloat && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected numbers (float or integer)");
    if (info.dims[0] == 0)
        file.fail(place, "is empty: no values");
    // The extent is metadata: a vector of the wrong length is refused before its values are read.
    if (columns && info.dims[0] != *columns)
        file.fail(place, wrongLength(vectorHas(std::to_string(info.dims[0])), *columns));
    std::vector<double> x = file.readDoubles(dataset, 1, false);
    for (std::size_t i = 0; i < x.size(); ++i)
        checkFinite(x[i], path, place + ", element " + std::to_string(i), options);
    return x;
}

} // namespace

std::vector<double> generateVector(std::uint64_t length, std::uint64_t seed)
{
    requireHostMemory(
        length * sizeof(double), kGenerator, "x of " + std::to_string(length) + " values", "generating the vector");
    const CounterRng rng(seed);
    const CancelPoint cancel = ambientCancelPoint();
    std::vector<double> x;
    resizeCancellably(x, length, cancel);
    const auto n = static_cast<std::int64_t>(length);
    parallelForCancellable(n, cancel, [&](std::int64_t i) {
        x[static_cast<std::size_t>(i)] = 2.0 * rng.uniform(kVectorStream, static_cast<std::uint64_t>(i)) - 1.0;
    });
    return x;
}

std::vector<double> readVector(
    const std::string& path, const ReadOptions& options, std::optional<std::uint64_t> columns)
{
    requireReadableKind(path);
    return h5::looksLikeHdf5(path) ? readVectorHdf5(path, options, columns) : readVectorText(path, options, columns);
}

} // namespace ks::data
