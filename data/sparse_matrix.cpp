// The CSR model's own rules: its invariants (validateCsr) and the one way every reader builds it from coordinate
// triplets (csrFromTriplets).

#include "data/sparse_matrix.h"

#include "data/dataset_error.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace ks::data {

void validateCsr(const CsrMatrix& matrix, const std::string& file)
{
    if (matrix.rows > kMaxSparseDimension || matrix.cols > kMaxSparseDimension)
        throw DatasetError(file, "",
            "shape " + std::to_string(matrix.rows) + " × " + std::to_string(matrix.cols) + " exceeds "
                + std::to_string(kMaxSparseDimension) + ", the most a sparse matrix with 32-bit indices holds");
    if (matrix.rowPtr.size() != matrix.rows + 1)
        throw DatasetError(file, "",
            "the row pointers hold " + std::to_string(matrix.rowPtr.size()) + " entries; " + std::to_string(matrix.rows)
                + " rows need " + std::to_string(matrix.rows + 1));
    if (matrix.rowPtr[0] != 0)
        throw DatasetError(
            file, "row 0", "the row pointers start at " + std::to_string(matrix.rowPtr[0]) + " instead of 0");
    const std::uint64_t nnz = static_cast<std::uint64_t>(std::max<std::int64_t>(matrix.rowPtr.back(), 0));
    if (matrix.colIdx.size() != matrix.values.size())
        throw DatasetError(file, "",
            std::to_string(matrix.colIdx.size()) + " column indices but " + std::to_string(matrix.values.size())
                + " values");
    const std::int32_t cols = static_cast<std::int32_t>(matrix.cols);
    for (std::uint64_t r = 0; r < matrix.rows; ++r) {
        const std::int64_t begin = matrix.rowPtr[r];
        const std::int64_t end = matrix.rowPtr[r + 1];
        const std::string place = "row " + std::to_string(r);
        if (end < begin)
            throw DatasetError(file, place,
                "the row pointers decrease: rowPtr[" + std::to_string(r) + "] = " + std::to_string(begin) + " > rowPtr["
                    + std::to_string(r + 1) + "] = " + std::to_string(end));
        if (static_cast<std::uint64_t>(end) > matrix.colIdx.size())
            throw DatasetError(file, place,
                "the row ends at " + std::to_string(end) + ", past the " + std::to_string(matrix.colIdx.size())
                    + " stored entries");
        for (std::int64_t k = begin; k < end; ++k) {
            const std::int32_t c = matrix.colIdx[k];
            if (c < 0 || c >= cols)
                throw DatasetError(file, place,
                    "column index " + std::to_string(c) + " (entry " + std::to_string(k) + ") is outside 0.."
                        + std::to_string(static_cast<std::int64_t>(cols) - 1));
            if (k > begin && c <= matrix.colIdx[k - 1])
                throw DatasetError(file, place,
                    std::string(c == matrix.colIdx[k - 1] ? "duplicate" : "unsorted") + " column index "
                        + std::to_string(c) + " (entry " + std::to_string(k) + ") after "
                        + std::to_string(matrix.colIdx[k - 1]) + "; columns must be strictly ascending within a row");
        }
    }
    if (matrix.colIdx.size() != nnz)
        throw DatasetError(file, "",
            "the row pointers end at " + std::to_string(nnz) + " but " + std::to_string(matrix.colIdx.size())
                + " entries are stored");
    if (!matrix.rowNames.empty() && matrix.rowNames.size() != matrix.rows)
        throw DatasetError(file, "",
            std::to_string(matrix.rowNames.size()) + " row names for " + std::to_string(matrix.rows) + " rows");
    if (!matrix.colNames.empty() && matrix.colNames.size() != matrix.cols)
        throw DatasetError(file, "",
            std::to_string(matrix.colNames.size()) + " column names for " + std::to_string(matrix.cols) + " columns");
}

CsrMatrix csrFromTriplets(std::uint64_t rows, std::uint64_t cols, std::vector<std::int64_t>& rowIdx,
    std::vector<std::int32_t>& colIdx, std::vector<double>& values, std::uint64_t* duplicates)
{
    const std::size_t n = rowIdx.size();
    if (colIdx.size() != n || values.size() != n)
        throw std::logic_error("csrFromTriplets: row, column and value arrays differ in length");
    if (rows > kMaxSparseDimension || cols > kMaxSparseDimension)
        throw std::logic_error("csrFromTriplets: shape beyond 32-bit indices");

    CsrMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.rowPtr.assign(rows + 1, 0);
    // Counting sort by row (stable, so entries of a row keep their file order).
    for (std::size_t k = 0; k < n; ++k) {
        const std::int64_t r = rowIdx[k];
        const std::int32_t c = colIdx[k];
        if (r < 0 || static_cast<std::uint64_t>(r) >= rows || c < 0 || static_cast<std::uint64_t>(c) >= cols)
            throw std::logic_error("csrFromTriplets: triplet " + std::to_string(k) + " (" + std::to_string(r) + ", "
                + std::to_string(c) + ") is outside the " + std::to_string(rows) + " × " + std::to_string(cols)
                + " matrix");
        ++m.rowPtr[static_cast<std::size_t>(r) + 1];
    }
    for (std::uint64_t r = 0; r < rows; ++r)
        m.rowPtr[r + 1] += m.rowPtr[r];
    m.colIdx.resize(n);
    m.values.resize(n);
    {
        std::vector<std::int64_t> cursor(m.rowPtr.begin(), m.rowPtr.end() - 1);
        for (std::size_t k = 0; k < n; ++k) {
            const std::int64_t p = cursor[static_cast<std::size_t>(rowIdx[k])]++;
            m.colIdx[p] = colIdx[k];
            m.values[p] = values[k];
        }
    }
    // The triplets are consumed: their memory goes back before the rows are sorted.
    std::vector<std::int64_t>().swap(rowIdx);
    std::vector<std::int32_t>().swap(colIdx);
    std::vector<double>().swap(values);

    // Sort each row by column (stable: duplicates are summed in file order), then sum duplicates while compacting.
    std::vector<std::pair<std::int32_t, double>> scratch;
    std::uint64_t summed = 0;
    std::int64_t write = 0;
    std::int64_t begin = 0;
    for (std::uint64_t r = 0; r < rows; ++r) {
        const std::int64_t end = m.rowPtr[r + 1];
        const auto first = m.colIdx.begin() + begin;
        const auto last = m.colIdx.begin() + end;
        if (!std::is_sorted(first, last)) {
            if (end - begin <= 32) {
                // Insertion sort: stable, in place, and the fastest for the short rows most matrices have.
                for (std::int64_t k = begin + 1; k < end; ++k) {
                    const std::int32_t c = m.colIdx[k];
                    const double v = m.values[k];
                    std::int64_t j = k;
                    for (; j > begin && m.colIdx[j - 1] > c; --j) {
                        m.colIdx[j] = m.colIdx[j - 1];
                        m.values[j] = m.values[j - 1];
                    }
                    m.colIdx[j] = c;
                    m.values[j] = v;
                }
            } else {
                scratch.clear();
                for (std::int64_t k = begin; k < end; ++k)
                    scratch.emplace_back(m.colIdx[k], m.values[k]);
                std::stable_sort(
                    scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
                for (std::int64_t k = begin; k < end; ++k) {
                    m.colIdx[k] = scratch[k - begin].first;
                    m.values[k] = scratch[k - begin].second;
                }
            }
        }
        const std::int64_t rowStart = write;
        for (std::int64_t k = begin; k < end; ++k) {
            if (write > rowStart && m.colIdx[write - 1] == m.colIdx[k]) {
                m.values[write - 1] += m.values[k];
                ++summed;
                continue;
            }
            m.colIdx[write] = m.colIdx[k];
            m.values[write] = m.values[k];
            ++write;
        }
        begin = end;
        m.rowPtr[r + 1] = write;
    }
    if (summed > 0) {
        m.colIdx.resize(static_cast<std::size_t>(write));
        m.values.resize(static_cast<std::size_t>(write));
        m.colIdx.shrink_to_fit();
        m.values.shrink_to_fit();
    }
    if (duplicates)
        *duplicates = summed;
    return m;
}

} // namespace ks::data
