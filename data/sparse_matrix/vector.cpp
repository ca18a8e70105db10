// The spmv x vector: read from its own file (one value per line, or an HDF5 1-D dataset) or generated from a seed.

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
#include <string_view>

namespace ks::data {

namespace {

/// The CounterRng stream of generateVector (index = element), apart from the sparse generator's (1..4 << 40).
constexpr std::uint64_t kVectorStream = 5ULL << 40;
constexpr const char* kGenerator = "generator";

std::vector<double> readVectorText(const std::string& path, const ReadOptions& options)
{
    const std::string text = readTextFile(path);
    std::vector<double> x;
    x.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    LineCursor lines(withoutBom(text));
    std::string_view line;
    while (lines.next(line)) {
        const std::string_view field = trimmed(line);
        if (field.empty() || field.front() == '#')
            continue;
        const double value = parseNumberField(field, path, lines.number(), 0);
        checkFinite(value, path, linePlace(lines.number()), options);
        x.push_back(value);
    }
    if (x.empty())
        throw DatasetError(
            path, "", text.empty() ? "empty file: no values" : "no values (only blank and comment lines)");
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

std::vector<double> readVectorHdf5(const std::string& path, const ReadOptions& options)
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
    std::vector<double> x(length);
    const auto n = static_cast<std::int64_t>(length);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
        x[static_cast<std::size_t>(i)] = 2.0 * rng.uniform(kVectorStream, static_cast<std::uint64_t>(i)) - 1.0;
    return x;
}

std::vector<double> readVector(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path);
    return h5::looksLikeHdf5(path) ? readVectorHdf5(path, options) : readVectorText(path, options);
}

} // namespace ks::data
