// The spmv dataset: A and x with their metadata, and the choice of reader for a path (a MEX folder, HDF5 by its
// signature, Matrix Market otherwise).

#include "data/dataset_error.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/input_file.h"
#include "data/sparse_matrix.h"
#include "data/text_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <span>

namespace ks::data {

namespace {

std::string datasetName(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    return baseName(path);
}

} // namespace

Dataset makeSparseDataset(SparseSystem system, std::string name, std::string source)
{
    const CsrMatrix& m = system.matrix;
    validateCsr(m, source);
    if (system.x.size() != m.cols)
        throw DatasetError(system.vectorSource, "",
            "the vector has " + std::to_string(system.x.size()) + " values but the matrix " + name + " has "
                + std::to_string(m.cols) + " columns; x must have one value per column");

    DatasetMeta meta;
    meta.kind = "csr";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    // The shape too: the same entries in a wider matrix are different data.
    const std::uint64_t shape[2] = {m.rows, m.cols};
    hasher.add(shape, sizeof shape);
    hasher.addSpan(std::span<const std::int64_t>(m.rowPtr));
    hasher.addSpan(std::span<const std::int32_t>(m.colIdx));
    hasher.addSpan(std::span<const double>(m.values));
    hasher.addSpan(std::span<const double>(system.x));
    meta.contentHash = hasher.hex();
    meta.size = m.rows;

    const std::uint64_t nnz = m.nnz();
    std::int64_t shortest = m.rows == 0 ? 0 : std::numeric_limits<std::int64_t>::max();
    std::int64_t longest = 0;
    for (std::uint64_t r = 0; r < m.rows; ++r) {
        const std::int64_t length = m.rowPtr[r + 1] - m.rowPtr[r];
        shortest = std::min(shortest, length);
        longest = std::max(longest, length);
    }
    const double cells = static_cast<double>(m.rows) * static_cast<double>(m.cols);
    char density[32];
    std::snprintf(density, sizeof density, "%.4g", cells > 0 ? static_cast<double>(nnz) / cells : 0.0);
    char lengths[96];
    std::snprintf(lengths, sizeof lengths, "%lld / %.4g / %lld", static_cast<long long>(shortest),
        m.rows > 0 ? static_cast<double>(nnz) / static_cast<double>(m.rows) : 0.0, static_cast<long long>(longest));
    meta.properties = {
        {"shape", std::to_string(m.rows) + " × " + std::to_string(m.cols)},
        {"nnz", std::to_string(nnz)},
        {"density", density},
        {"row length (min / mean / max)", lengths},
        {"value range", formatRange(m.values)},
        {"stored as", m.storedType},
        {"x", system.vectorSource},
    };
    meta.notes = m.notes;
    return Dataset::make(std::move(meta), std::move(system));
}

Dataset loadSparseMatrix(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path, InputShape::FileOrFolder);
    if (!options.vectorPath.empty())
        requireReadableKind(options.vectorPath);
    SparseSystem system;
    const std::filesystem::path file(path);
    const std::string leaf = file.filename().string();
    // A MEX folder opens whole whether the folder itself or its matrix file is given (a file dialog picks files).
    const bool mexMatrix
        = (leaf == "matrix.mtx" || leaf == "matrix.mtx.gz") && isMexFolder(file.parent_path().string());
    if (isMexFolder(path))
        system.matrix = readMexFolder(path, options);
    else if (mexMatrix)
        system.matrix = readMexFolder(file.parent_path().string(), options);
    else if (h5::looksLikeHdf5(path))
        system.matrix = readSparseHdf5(path, options);
    else
        system.matrix = readMatrixMarket(path, options);
    if (!options.vectorPath.empty()) {
        // h5Path names the matrix's group, not the vector: the vector file's only 1-D dataset is read.
        ReadOptions vectorOptions;
        vectorOptions.allowNonFinite = options.allowNonFinite;
        system.x = readVector(options.vectorPath, vectorOptions, system.matrix.cols);
        system.vectorSource = options.vectorPath;
    } else {
        // Its length is the column count the file declares: refused here, naming the file, when it cannot fit.
        requireHostMemory(saturatingMul(system.matrix.cols, sizeof(double)), path,
            std::to_string(system.matrix.cols) + " columns", "generating its x");
        system.x = generateVector(system.matrix.cols, 1);
        system.vectorSource = "generated (seed 1)";
    }
    return makeSparseDataset(std::move(system), datasetName(path), path);
}

} // namespace ks::data
