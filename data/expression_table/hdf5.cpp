// Expression tables in HDF5: a 2-D numeric dataset with its names in 1-D string datasets beside it; the reader and
// the writer.

#include "data/atomic_file.h"
#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/expression_table/table.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/reader_messages.h"

#include <initializer_list>
#include <optional>
#include <utility>

namespace ks::data {

using namespace expression;

namespace {

bool isMatrix(const h5::DatasetInfo& d)
{
    return d.dims.size() == 2 && (d.isFloat || d.isInteger);
}

/// The matrix to read: ReadOptions::h5Path when it names a dataset, else the only 2-D numeric dataset in the file
/// (or in the group h5Path names).
std::string chooseMatrix(const h5::File& file, const std::string& h5Path)
{
    const h5::DatasetSearch search = h5::searchDatasets(file, h5Path, isMatrix);
    if (!search.chosen.empty())
        return search.chosen;
    const std::string place = search.group == "/" ? "" : "group " + search.group;
    if (search.fitting.empty())
        file.fail(place,
            "no 2-D numeric dataset (an expression matrix) in " + search.where() + " (it has "
                + (search.all.empty() ? std::string("no datasets") : listing(h5::describe(search.all))) + ")");
    file.fail(place,
        "several 2-D numeric datasets in " + search.where() + " (" + listing(h5::describe(search.fitting))
            + "); choose one with --h5-path");
}

/// Names and the dataset they came from: the first of `candidates` (in the matrix's group) that is a 1-D string
/// dataset of `expected` names; generated (and no dataset) when none exists; an error naming the first candidate
/// that exists but does not fit when none fits.
std::pair<std::vector<std::string>, std::string> readNames(const h5::File& file, const std::string& matrixPath,
    std::initializer_list<const char*> candidates, std::size_t expected, std::size_t otherExtent, const char* what,
    const char* prefix, bool featuresAsRows)
{
    const std::string group = h5::parentPath(matrixPath);
    std::optional<std::pair<std::string, std::string>> misfit; // place, problem
    for (const char* name : candidates) {
        const std::string path = h5::childPath(group, name);
        if (path == matrixPath || !file.hasDataset(path))
            continue;
        const h5::DatasetInfo info = file.info(path);
        const std::string wanted = "expected a 1-D list of " + std::to_string(expected) + " " + what + " names";
        std::string problem;
        if (info.type != "string")
            problem = "holds " + info.type + " values; " + wanted + " (strings)";
        else if (info.dims.size() != 1)
            problem = "has rank " + std::to_string(info.dims.size()) + "; " + wanted;
        else if (info.dims[0] != expected) {
            problem = "has " + std::to_string(info.dims[0]) + " names but the matrix " + shownName(matrixPath) + " has "
                + std::to_string(expected) + " " + what + "s";
            if (info.dims[0] == otherExtent && otherExtent != expected)
                problem += std::string("; stored ") + (featuresAsRows ? "samples × features" : "features × samples")
                    + "? use --param orientation=" + (featuresAsRows ? "samples-as-rows" : "features-as-rows");
        } else {
            return {file.readStrings(path), path};
        }
        if (!misfit)
            misfit.emplace("dataset " + path, problem);
    }
    if (misfit)
        file.fail(misfit->first, misfit->second);
    return {generatedNames(prefix, expected), std::string()};
}

} // namespace

ExpressionTable readExpressionHdf5(const std::string& path, const ReadOptions& options)
{
    const ReaderSettings settings = readerSettings(options, path);
    const h5::File file = h5::File::open(path);
    const std::string matrixPath = chooseMatrix(file, options.h5Path);
    const h5::DatasetInfo info = file.info(matrixPath);
    const std::string place = "dataset " + matrixPath;
    const char* const layout = settings.featuresAsRows ? "features × samples" : "samples × features";
    if (info.dims.size() != 2)
        file.fail(place, "has rank " + std::to_string(info.dims.size()) + "; expected a 2-D matrix (" + layout + ")");
    if (!info.isFloat && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected numbers (float or integer)");
    if (info.dims[0] == 0 || info.dims[1] == 0)
        file.fail(place, "is empty (" + std::to_string(info.dims[0]) + "×" + std::to_string(info.dims[1]) + ")");

    RawMatrix raw;
    raw.rows = static_cast<std::size_t>(info.dims[0]);
    raw.cols = static_cast<std::size_t>(info.dims[1]);
    const bool secondCopy = settings.featuresAsRows || settings.dropMissing;
    requireHostMemory(checkedProduct(checkedProduct(raw.rows, raw.cols, path, place),
                          sizeof(double) * (secondCopy ? 2 : 1), path, place),
        path, place, "reading the " + std::to_string(raw.rows) + " × " + std::to_string(raw.cols) + " matrix");

    const std::size_t samples = settings.featuresAsRows ? raw.cols : raw.rows;
    const std::size_t features = settings.featuresAsRows ? raw.rows : raw.cols;
    // rownames/colnames name the stored matrix's rows and columns, so they swap with the orientation.
    auto [featureNames, featureSource] = readNames(file, matrixPath,
        {"feature_names", "features", "genes", "var_names", settings.featuresAsRows ? "rownames" : "colnames"},
        features, samples, "feature", "F", settings.featuresAsRows);
    auto [sampleNames, sampleSource] = readNames(file, matrixPath,
        {"sample_names", "samples", "obs_names", "barcodes", settings.featuresAsRows ? "colnames" : "rownames"},
        samples, features, "sample", "S", settings.featuresAsRows);
    if (const auto dup = findDuplicate(featureNames))
        file.fail("dataset " + featureSource,
            duplicateProblem(featureNames[dup->second],
                "element " + std::to_string(dup->first) + "; it repeats at element " + std::to_string(dup->second)));

    raw.cells = file.readDoubles(matrixPath, 2, false);
    raw.rowNames = std::move(settings.featuresAsRows ? featureNames : sampleNames);
    raw.colNames = std::move(settings.featuresAsRows ? sampleNames : featureNames);
    const PlaceOf placeOf = [&](std::size_t r, std::size_t c) {
        return place + ", element [" + std::to_string(r) + ", " + std::to_string(c) + "]";
    };
    return finishTable(std::move(raw), path, settings, placeOf, "NaN", info.type);
}

void writeExpressionHdf5(const std::string& path, const ExpressionTable& table)
{
    checkShape(table, path);
    writeFileAtomically(path, [&table](AtomicFile& out) {
        h5::File file = h5::File::create(out.temporaryPath());
        file.writeDoubles("/matrix", table.values, {table.samples, table.features}, true);
        file.writeStrings("/feature_names", namesOf(table.featureNames, "F", table.features));
        file.writeStrings("/sample_names", namesOf(table.sampleNames, "S", table.samples));
    });
}

} // namespace ks::data
