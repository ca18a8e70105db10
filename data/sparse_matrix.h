#pragma once

// Sparse matrices in CSR, the spmv workload's dataset: the value type and its invariants (data/sparse_matrix.cpp), its
// readers (Matrix Market, 10x Genomics MEX folders, HDF5 sparse groups as scipy, AnnData and 10x Genomics write them),
// writers, the x vector and the generators, each one file of data/sparse_matrix/.

#include "data/dataset.h"
#include "data/read_options.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ks::data {

/// The largest row or column count (and column index + 1) a CsrMatrix holds: indices are 32-bit signed, as the
/// kernels and cuSPARSE's CUSPARSE_INDEX_32I use them. Readers reject larger files with a DatasetError.
inline constexpr std::uint64_t kMaxSparseDimension = 0x7fffffffULL;

/// A sparse matrix in compressed sparse row form, rows sorted by column, no duplicates (readers sum them).
/// Row pointers are 64-bit so the non-zero count is never wrapped; a variant that needs 32-bit row pointers says
/// so when nnz exceeds them.
struct CsrMatrix {
    std::uint64_t rows = 0;
    std::uint64_t cols = 0;
    std::vector<std::int64_t> rowPtr; ///< rows + 1 entries, rowPtr[0] = 0, non-decreasing, rowPtr[rows] = nnz
    std::vector<std::int32_t> colIdx; ///< nnz column indices, ascending within each row
    std::vector<double> values; ///< nnz values
    std::vector<std::string> rowNames; ///< empty, or one per row (a MEX folder's features)
    std::vector<std::string> colNames; ///< empty, or one per column (a MEX folder's barcodes)
    std::string storedType = "float64"; ///< value type in the file: float64, float32, integer, pattern
    std::vector<std::string> notes; ///< what the reader did: symmetric expanded, CSC converted, duplicates summed

    std::uint64_t nnz() const { return rowPtr.empty() ? 0 : static_cast<std::uint64_t>(rowPtr.back()); }
};

/// Checks the CSR invariants (sizes, monotone row pointers, column range, sorted unique columns); throws a
/// DatasetError naming `file` and the first offending row (0-based) otherwise.
void validateCsr(const CsrMatrix& matrix, const std::string& file);

/// Builds a CsrMatrix from coordinate triplets (0-based, any order): sorted by row then column, duplicates
/// summed (counted into *duplicates when not null). The triplet vectors are consumed (left empty). Triplets with an
/// index out of range are a logic error: readers check them first, with the file place.
CsrMatrix csrFromTriplets(std::uint64_t rows, std::uint64_t cols, std::vector<std::int64_t>& rowIdx,
    std::vector<std::int32_t>& colIdx, std::vector<double>& values, std::uint64_t* duplicates = nullptr);

/// Reads a Matrix Market file (`.mtx`, or gzip-compressed: recognised by its bytes): `coordinate` or `array`;
/// `real`, `integer` or `pattern` (values 1); `general`, `symmetric` or `skew-symmetric` (expanded to the full
/// matrix); comments; 1-based indices in any order; duplicates summed. DatasetError (with the line) for a bad
/// banner, `complex` or `hermitian` (unsupported, said so), a bad size line, an index out of range, fewer or more
/// entries than the size line says, a non-numeric value, NaN/Inf (unless ReadOptions::allowNonFinite), dimensions
/// beyond kMaxSparseDimension, or a size line that would need more memory than the machine has (checked before
/// allocating).
CsrMatrix readMatrixMarket(const std::string& path, const ReadOptions& options = {});

/// Reads a 10x Genomics "MEX" folder: matrix.mtx(.gz) (features × barcodes) with features.tsv(.gz) or genes.tsv(.gz)
/// naming the rows (second column when there is one, else the first) and barcodes.tsv(.gz) naming the columns.
/// A name file whose line count differs from the matrix is a DatasetError naming it; a missing one leaves the
/// names empty, with a note.
CsrMatrix readMexFolder(const std::string& directory, const ReadOptions& options = {});
/// True when `path` is a directory holding matrix.mtx or matrix.mtx.gz.
bool isMexFolder(const std::string& path);

/// Reads an HDF5 sparse group — `data`, `indices`, `indptr` and the shape (a `shape` dataset as 10x and scipy
/// write it, or a `shape` or `h5sparse_shape` attribute as AnnData writes it) — chosen by ReadOptions::h5Path or
/// found as the file's only such group (10x's `/matrix` is features × barcodes in CSC). CSR or CSC is detected
/// (AnnData's `encoding-type` attribute "csr_matrix"/"csc_matrix", scipy's `format` attribute "csr"/"csc", and 10x's
/// `/matrix` being CSC) and CSC converted. Validates indptr (length, start at 0, monotone, end at nnz) and index
/// ranges before building, with the dataset path in the message. 10x feature and barcode names are kept.
CsrMatrix readSparseHdf5(const std::string& path, const ReadOptions& options = {});
/// Writes a CSR group `group` (default "/matrix"): data (float64), indices (int32), indptr (int64), shape (int64[2])
/// as a dataset and an attribute, encoding-type = "csr_matrix" and encoding-version = "0.1.0", and row_names /
/// col_names when the matrix has names, so readSparseHdf5 and AnnData both read it back.
void writeSparseHdf5(const std::string& path, const CsrMatrix& matrix, const std::string& group = "/matrix");
/// Writes a Matrix Market `coordinate real general` file.
void writeMatrixMarket(const std::string& path, const CsrMatrix& matrix);

/// Reads the spmv x vector: one value per line (text, gzip allowed; blank lines and # comments skipped), or an
/// HDF5 1-D numeric dataset (ReadOptions::h5Path or the file's only one outside a sparse group). Errors name the line
/// or dataset. With `columns` (the matrix's column count) a vector of another length is refused as early as it shows:
/// an HDF5 dataset by its extent before any value is read, a plain text file too small to hold that many values before
/// reading, a longer text at the first value too many; the memory for `columns` values is checked first.
std::vector<double> readVector(
    const std::string& path, const ReadOptions& options = {}, std::optional<std::uint64_t> columns = std::nullopt);

/// The generators behind the built-in spmv data.
enum class SparsePattern {
    Uniform, ///< rows × cols, each entry present with probability `density` (row lengths binomial)
             /// Row lengths from a Zipf-like law: the row ranked i gets min(cols, C·i^(−1/(exponent−1))), C set for a
             /// mean
    /// of `density`·cols, ranks shuffled over the rows; columns uniform. Exponent ≥ 1.05; near 1.5 most rows are
    /// empty, at 2 the longest rows are full.
    PowerLaw,
    Laplacian2d, ///< the 5-point Laplacian of a side × side grid (rows = cols = side²)
    Laplacian3d, ///< the 7-point Laplacian of a side³ grid (rows = cols = side³)
    Banded, ///< rows × rows with `bandwidth` diagonals on each side of the main one
};
struct SparseGenerator {
    SparsePattern pattern = SparsePattern::Uniform;
    std::uint64_t rows = 50'000; ///< Uniform, PowerLaw, Banded
    std::uint64_t cols = 50'000; ///< Uniform, PowerLaw
    double density = 0.001; ///< Uniform: probability of an entry; PowerLaw: mean row length / cols
    double exponent = 2.0; ///< PowerLaw: row length ∝ rank^(−1/(exponent−1)) (heavier tail as it nears 1)
    std::uint64_t side = 160; ///< Laplacian2d, Laplacian3d
    std::uint64_t bandwidth = 3; ///< Banded
    std::uint64_t seed = 1;
};
/// What generateSparse allocates for these parameters, estimated before anything is (the expected non-zeros and the
/// row arrays), with `withVector` the x generateVector makes for it too; DatasetError for parameters it refuses.
std::uint64_t sparseGeneratorBytes(const SparseGenerator& generator, bool withVector = false);
/// Refuses (DatasetError) parameters whose matrix does not fit in the memory budget before allocating.
CsrMatrix generateSparse(const SparseGenerator& generator);

/// The x vector generated from a seed: uniform in [−1, 1), the same for every variant and repetition.
std::vector<double> generateVector(std::uint64_t length, std::uint64_t seed);

/// The spmv dataset's payload: A and the x it multiplies (cols values), and where x came from.
struct SparseSystem {
    CsrMatrix matrix;
    std::vector<double> x;
    std::string vectorSource; ///< "generated (seed 1)" or the vector file's path
};

/// The dataset of kind "csr" (size = rows) with shape, nnz, row-length statistics (min, mean, max), value range,
/// stored type and the vector's source as properties, and the matrix's notes. An x whose length is not the
/// column count is a DatasetError naming the vector's source.
Dataset makeSparseDataset(SparseSystem system, std::string name, std::string source);

/// Matrix Market (or gzip of it), a MEX folder, or HDF5 by its signature, with x from ReadOptions::vectorPath
/// (readVector) or generateVector(cols, 1); returns the dataset with its metadata.
Dataset loadSparseMatrix(const std::string& path, const ReadOptions& options = {});

} // namespace ks::data
