// HDF5 sparse groups (data, indices, indptr and a shape) as scipy, AnnData, h5sparse and 10x Genomics write them:
// the reader, which treats the file as untrusted (every extent, index and pointer is checked before it is used),
// and the writer.

#include "data/atomic_file.h"
#include "data/dataset_error.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/line_cursor.h"
#include "data/number_text.h"
#include "data/reader_messages.h"
#include "data/sparse_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <utility>

namespace ks::data {

namespace {

/// How many group names an error lists before "and N more".
constexpr std::size_t kGroupsListed = 8;

/// The group to read: ReadOptions::h5Path (a group, or a dataset in it), else the file's only group holding data,
/// indices and indptr. An AnnData file (root attribute encoding-type = "anndata") with several sparse groups reads /X,
/// its main matrix, when /X is one of them (obsp and layers often hold more); a note says so, and says which group
/// was read when /X is not sparse.
std::string chooseGroup(const h5::File& file, const ReadOptions& options, std::vector<std::string>& notes)
{
    if (!options.h5Path.empty()) {
        std::string group = h5::normalisedPath(options.h5Path);
        if (file.hasDataset(group))
            group = h5::parentPath(group);
        else if (!file.hasGroup(group))
            file.fail("", "no group named " + group + " (--h5-path)");
        return group;
    }
    std::vector<std::string> candidates;
    std::vector<std::pair<std::string, std::vector<std::string>>> partial; // groups holding some of the three
    const h5::Contents contents = file.contents();
    for (const auto& group : contents.groups) {
        std::vector<std::string> missing;
        for (const char* name : {"data", "indices", "indptr"})
            if (!file.hasDataset(contents, h5::childPath(group, name)))
                missing.emplace_back(name);
        if (missing.empty())
            candidates.push_back(group);
        else if (missing.size() == 1)
            partial.emplace_back(group, std::move(missing));
    }
    const bool annData = file.readStringAttribute("/", "encoding-type") == "anndata";
    if (candidates.size() == 1) {
        if (annData && candidates.front() != "/X")
            notes.push_back("AnnData file whose /X is not a sparse matrix: read " + candidates.front());
        return candidates.front();
    }
    if (candidates.empty()) {
        if (partial.size() == 1)
            file.fail("group " + partial.front().first,
                "has no dataset named " + partial.front().second.front()
                    + " (a sparse group holds data, indices and indptr)");
        file.fail("",
            "no group holds the datasets data, indices and indptr of a sparse matrix (the file has: "
                + (contents.datasets.empty() ? std::string("no datasets") : listing(contents.datasets, kGroupsListed))
                + ")");
    }
    if (annData && std::find(candidates.begin(), candidates.end(), "/X") != candidates.end()) {
        std::vector<std::string> others;
        for (const auto& c : candidates)
            if (c != "/X")
                others.push_back(c);
        notes.push_back("AnnData file: read its matrix /X (other sparse groups: " + listing(others, kGroupsListed)
            + "; choose one with --h5-path)");
        return "/X";
    }
    file.fail("",
        "several groups hold a sparse matrix (data, indices, indptr): " + listing(candidates, kGroupsListed)
            + "; choose one with --h5-path");
}

/// A whole number as it was stored: digits while they are exact in a double (below 2^53), else "1e+300". Casting a
/// double beyond 2^64 to an integer is undefined and printed such a shape as 0.
std::string wholeNumberText(double value)
{
    char text[32];
    if (value < 9007199254740992.0)
        std::snprintf(text, sizeof text, "%.0f", value);
    else
        std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

std::uint64_t checkedExtent(double value, const h5::File& file, const std::string& place, const char* what)
{
    if (!std::isfinite(value) || value < 0 || value != std::floor(value))
        file.fail(place, std::string("the ") + what + " is not a non-negative whole number");
    if (value > static_cast<double>(kMaxSparseDimension))
        file.fail(place,
            std::string("the ") + what + " " + wholeNumberText(value) + " exceeds the largest supported dimension "
                + std::to_string(kMaxSparseDimension) + " (indices are 32-bit)");
    return static_cast<std::uint64_t>(value);
}

/// rows × cols from a `shape` dataset, or a `shape` or `h5sparse_shape` attribute of the group.
std::pair<std::uint64_t, std::uint64_t> readShape(const h5::File& file, const std::string& group)
{
    std::vector<double> shape;
    std::string place;
    const std::string shapeDataset = h5::childPath(group, "shape");
    if (file.hasDataset(shapeDataset)) {
        place = "dataset " + shapeDataset;
        const auto info = file.info(shapeDataset);
        if (info.dims.size() != 1 || info.dims[0] != 2 || !(info.isInteger || info.isFloat))
            file.fail(place, "expected two numbers (rows, columns)");
        shape = file.readDoubles(shapeDataset, 1, false);
    } else {
        for (const char* name : {"shape", "h5sparse_shape"}) {
            if (!file.hasAttribute(group, name))
                continue;
            place = "group " + group + ", attribute " + name;
            shape = file.readNumericAttribute(group, name);
            if (shape.size() != 2)
                file.fail(place, "holds " + std::to_string(shape.size()) + " values; expected two (rows, columns)");
            break;
        }
        if (place.empty())
            file.fail("group " + group,
                "has no shape: expected a `shape` dataset (10x, scipy) or a `shape` or `h5sparse_shape` attribute "
                "(AnnData, h5sparse)");
    }
    return {checkedExtent(shape[0], file, place, "row count"), checkedExtent(shape[1], file, place, "column count")};
}

struct Layout {
    bool csc = false;
    bool tenX = false;
    std::string note; ///< how the format was decided, when the file did not say
};

bool isTenXGroup(const h5::File& file, const std::string& group)
{
    return file.hasDataset(h5::childPath(group, "barcodes"))
        && (file.hasGroup(h5::childPath(group, "features")) || file.hasDataset(h5::childPath(group, "genes"))
            || file.hasDataset(h5::childPath(group, "gene_names")));
}

/// CSR or CSC: AnnData's encoding-type, scipy's format or h5sparse's h5sparse_format attribute, 10x's layout, or
/// (none of them) the length of indptr.
Layout detectLayout(
    const h5::File& file, const std::string& group, std::uint64_t indptrLength, std::uint64_t rows, std::uint64_t cols)
{
    Layout layout;
    const std::string encoding = file.readStringAttribute(group, "encoding-type");
    if (!encoding.empty()) {
        if (encoding != "csr_matrix" && encoding != "csc_matrix")
            file.fail("group " + group,
                "has encoding-type " + quotedToken(encoding)
                    + "; expected csr_matrix or csc_matrix for a sparse matrix");
        layout.csc = encoding == "csc_matrix";
        return layout;
    }
    for (const char* name : {"format", "h5sparse_format"}) {
        const std::string format = lowerCase(file.readStringAttribute(group, name));
        if (format.empty())
            continue;
        if (format != "csr" && format != "csc" && format != "csr_matrix" && format != "csc_matrix")
            file.fail("group " + group,
                std::string("has ") + name + " " + quotedToken(format) + "; expected csr or csc for a sparse matrix");
        layout.csc = format.compare(0, 3, "csc") == 0;
        return layout;
    }
    if (isTenXGroup(file, group)) {
        layout.csc = true;
        layout.tenX = true;
        return layout;
    }
    const bool fitsCsr = indptrLength == rows + 1;
    const bool fitsCsc = indptrLength == cols + 1;
    if (fitsCsr && fitsCsc) {
        if (rows == cols)
            layout.note = "no CSR/CSC format attribute and the matrix is square: read as CSR";
        return layout;
    }
    if (fitsCsc) {
        layout.csc = true;
        layout.note = "no CSR/CSC format attribute: indptr has columns + 1 entries, so read as CSC";
        return layout;
    }
    if (!fitsCsr)
        file.fail("dataset " + h5::childPath(group, "indptr"),
            "has " + std::to_string(indptrLength) + " entries; a " + std::to_string(rows) + " × " + std::to_string(cols)
                + " matrix needs rows + 1 = " + std::to_string(rows + 1)
                + " (CSR) or columns + 1 = " + std::to_string(cols + 1) + " (CSC)");
    return layout;
}

/// Sorts each row's columns (stably, so repeated columns are summed in file order) and sums repeated columns;
/// notes what it changed.
void canonicaliseRows(CsrMatrix& m)
{
    bool clean = true;
    for (std::uint64_t r = 0; r < m.rows && clean; ++r)
        for (auto k = m.rowPtr[r] + 1; k < m.rowPtr[r + 1]; ++k)
            if (m.colIdx[k] <= m.colIdx[k - 1]) {
                clean = false;
                break;
            }
    if (clean)
        return;
    std::uint64_t sortedRows = 0;
    std::uint64_t duplicates = 0;
    std::vector<std::pair<std::int32_t, double>> scratch;
    std::int64_t write = 0;
    std::int64_t begin = 0;
    for (std::uint64_t r = 0; r < m.rows; ++r) {
        const std::int64_t end = m.rowPtr[r + 1];
        if (!std::is_sorted(m.colIdx.begin() + begin, m.colIdx.begin() + end)) {
            ++sortedRows;
            scratch.clear();
            for (auto k = begin; k < end; ++k)
                scratch.emplace_back(m.colIdx[k], m.values[k]);
            std::stable_sort(
                scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            for (auto k = begin; k < end; ++k) {
                m.colIdx[k] = scratch[k - begin].first;
                m.values[k] = scratch[k - begin].second;
            }
        }
        const std::int64_t rowStart = write;
        for (auto k = begin; k < end; ++k) {
            if (write > rowStart && m.colIdx[write - 1] == m.colIdx[k]) {
                m.values[write - 1] += m.values[k];
                ++duplicates;
            } else {
                m.colIdx[write] = m.colIdx[k];
                m.values[write] = m.values[k];
                ++write;
            }
        }
        m.rowPtr[r + 1] = write;
        begin = end;
    }
    m.colIdx.resize(static_cast<std::size_t>(write));
    m.values.resize(static_cast<std::size_t>(write));
    if (sortedRows > 0)
        m.notes.push_back("sorted the column indices of " + std::to_string(sortedRows)
            + (sortedRows == 1 ? " row" : " rows") + " (the file held them out of order)");
    if (duplicates > 0)
        m.notes.push_back("summed " + std::to_string(duplicates) + " duplicate "
            + (duplicates == 1 ? "entry" : "entries") + " (a column repeated within a row)");
}

/// The CSR form of a CSC matrix, by a counting sort of the entries by row (rows come out with ascending columns).
CsrMatrix transposeCsc(std::uint64_t rows, std::uint64_t cols, const std::vector<std::int64_t>& colPtr,
    const std::vector<std::int32_t>& rowIdx, const std::vector<double>& data)
{
    CsrMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.rowPtr.assign(rows + 1, 0);
    for (const auto r : rowIdx)
        ++m.rowPtr[static_cast<std::size_t>(r) + 1];
    for (std::uint64_t r = 0; r < rows; ++r)
        m.rowPtr[r + 1] += m.rowPtr[r];
    std::vector<std::int64_t> next(m.rowPtr.begin(), m.rowPtr.end() - 1);
    m.colIdx.resize(rowIdx.size());
    m.values.resize(rowIdx.size());
    for (std::uint64_t c = 0; c < cols; ++c)
        for (auto k = colPtr[c]; k < colPtr[c + 1]; ++k) {
            const auto p = next[static_cast<std::size_t>(rowIdx[k])]++;
            m.colIdx[p] = static_cast<std::int32_t>(c);
            m.values[p] = data[k];
        }
    return m;
}

/// Names from a 1-D string dataset that must hold `expected` of them.
std::vector<std::string> readNames(
    const h5::File& file, const std::string& path, std::uint64_t expected, const char* what)
{
    const auto info = file.info(path);
    if (info.type != "string" || info.dims.size() != 1)
        file.fail("dataset " + path, std::string("expected a 1-D list of ") + what + " names (strings)");
    if (info.dims[0] != expected)
        file.fail("dataset " + path,
            "has " + std::to_string(info.dims[0]) + " names but the matrix has " + std::to_string(expected) + " " + what
                + "s");
    return file.readStrings(path);
}

std::optional<std::string> firstDataset(const h5::File& file, std::initializer_list<std::string> paths)
{
    for (const auto& p : paths)
        if (file.hasDataset(p))
            return p;
    return std::nullopt;
}

} // namespace

CsrMatrix readSparseHdf5(const std::string& path, const ReadOptions& options)
{
    const h5::File file = h5::File::open(path);
    std::vector<std::string> notes;
    const std::string group = chooseGroup(file, options, notes);
    for (const char* name : {"data", "indices", "indptr"})
        if (!file.hasDataset(h5::childPath(group, name)))
            file.fail("group " + group,
                std::string("has no dataset named ") + name + " (a sparse group holds data, indices and indptr)");
    const std::string dataPath = h5::childPath(group, "data");
    const std::string indicesPath = h5::childPath(group, "indices");
    const std::string indptrPath = h5::childPath(group, "indptr");
    const auto dataInfo = file.info(dataPath);
    const auto indicesInfo = file.info(indicesPath);
    const auto indptrInfo = file.info(indptrPath);
    for (const auto* info : {&dataInfo, &indicesInfo, &indptrInfo})
        if (info->dims.size() != 1)
            file.fail(
                "dataset " + info->path, "has rank " + std::to_string(info->dims.size()) + "; expected a 1-D array");
    if (!dataInfo.isFloat && !dataInfo.isInteger)
        file.fail("dataset " + dataPath, "holds " + dataInfo.type + " values; expected numbers (float or integer)");
    for (const auto* info : {&indicesInfo, &indptrInfo})
        if (!info->isInteger)
            file.fail("dataset " + info->path, "holds " + info->type + " values; expected integers");

    const auto [rows, cols] = readShape(file, group);
    const std::uint64_t nnz = dataInfo.dims[0];
    if (indicesInfo.dims[0] != nnz)
        file.fail("dataset " + indicesPath,
            "has " + std::to_string(indicesInfo.dims[0]) + " entries but " + dataPath + " has " + std::to_string(nnz)
                + "; they must be of equal length");
    const Layout layout = detectLayout(file, group, indptrInfo.dims[0], rows, cols);
    const std::uint64_t major = layout.csc ? cols : rows;
    const std::uint64_t minor = layout.csc ? rows : cols;
    const char* const majorName = layout.csc ? "columns" : "rows";
    const char* const minorName = layout.csc ? "rows" : "columns";
    if (indptrInfo.dims[0] != major + 1)
        file.fail("dataset " + indptrPath,
            "has " + std::to_string(indptrInfo.dims[0]) + " entries; a " + (layout.csc ? "CSC" : "CSR") + " matrix of "
                + std::to_string(major) + " " + majorName + " needs " + std::to_string(major + 1));

    // Everything that will be held at once, before any of it is read: indptr, indices (and their 64-bit form while
    // narrowing), data, and the transposed copy for CSC.
    const bool wideIndices = indicesInfo.type != "int8" && indicesInfo.type != "int16" && indicesInfo.type != "int32"
        && indicesInfo.type != "uint8" && indicesInfo.type != "uint16";
    if (nnz > std::numeric_limits<std::uint64_t>::max() / 64)
        file.fail("dataset " + dataPath, "its extent overflows 64-bit sizes");
    std::uint64_t bytes = 8 * (major + 1) + 12 * nnz + (wideIndices ? 8 * nnz : 0);
    if (layout.csc)
        bytes += 16 * (rows + 1) + 12 * nnz;
    requireHostMemory(bytes, path, "group " + group,
        "the " + std::to_string(rows) + " × " + std::to_string(cols) + " sparse matrix (" + std::to_string(nnz)
            + " non-zeros)");

    std::vector<std::int64_t> indptr = file.readInt64s(indptrPath, 1);
    if (indptr[0] != 0)
        file.fail(
            "dataset " + indptrPath + ", element 0", "is " + std::to_string(indptr[0]) + "; indptr must start at 0");
    for (std::uint64_t i = 1; i <= major; ++i)
        if (indptr[i] < indptr[i - 1])
            file.fail("dataset " + indptrPath + ", element " + std::to_string(i),
                "is " + std::to_string(indptr[i]) + ", less than element " + std::to_string(i - 1) + " ("
                    + std::to_string(indptr[i - 1]) + "); indptr must not decrease");
    if (static_cast<std::uint64_t>(indptr[major]) != nnz)
        file.fail("dataset " + indptrPath + ", element " + std::to_string(major),
            "is " + std::to_string(indptr[major]) + " but data and indices hold " + std::to_string(nnz)
                + " entries; indptr must end at the number of non-zeros");

    auto indexProblem = [&](std::uint64_t k, std::int64_t value) {
        file.fail("dataset " + indicesPath + ", element " + std::to_string(k),
            "is " + std::to_string(value)
                + (value < 0 ? "; indices must not be negative"
                             : "; the matrix has " + std::to_string(minor) + " " + minorName
                            + ", so indices must be below " + std::to_string(minor)));
    };
    std::vector<std::int32_t> indices;
    if (wideIndices) {
        std::vector<std::int64_t> wide = file.readInt64s(indicesPath, 1);
        indices.resize(wide.size());
        for (std::uint64_t k = 0; k < nnz; ++k) {
            if (wide[k] < 0 || static_cast<std::uint64_t>(wide[k]) >= minor)
                indexProblem(k, wide[k]);
            indices[k] = static_cast<std::int32_t>(wide[k]);
        }
    } else {
        indices = file.readInt32s(indicesPath, 1);
        for (std::uint64_t k = 0; k < nnz; ++k)
            if (indices[k] < 0 || static_cast<std::uint64_t>(indices[k]) >= minor)
                indexProblem(k, indices[k]);
    }

    std::vector<double> data = file.readDoubles(dataPath, 1, false);
    if (!options.allowNonFinite)
        for (std::uint64_t k = 0; k < nnz; ++k)
            if (!std::isfinite(data[k]))
                file.fail("dataset " + dataPath + ", element " + std::to_string(k),
                    std::string(std::isnan(data[k]) ? "NaN" : "an infinite value " + formatNumber(data[k]))
                        + kNonFiniteHint);

    CsrMatrix m;
    if (layout.csc) {
        m = transposeCsc(rows, cols, indptr, indices, data);
        m.notes.push_back(layout.tenX ? "10x Genomics matrix (features × barcodes, stored CSC): converted to CSR"
                                      : "converted from CSC (compressed sparse columns) to CSR");
    } else {
        m.rows = rows;
        m.cols = cols;
        m.rowPtr = std::move(indptr);
        m.colIdx = std::move(indices);
        m.values = std::move(data);
    }
    if (!layout.note.empty())
        m.notes.insert(m.notes.begin(), layout.note);
    m.notes.insert(m.notes.begin(), notes.begin(), notes.end());
    canonicaliseRows(m);
    m.storedType = dataInfo.isFloat ? dataInfo.type : "integer";

    if (layout.tenX) {
        if (const auto features = firstDataset(file,
                {h5::childPath(group, "features/name"), h5::childPath(group, "gene_names"),
                    h5::childPath(group, "genes")}))
            m.rowNames = readNames(file, *features, rows, "feature");
        m.colNames = readNames(file, h5::childPath(group, "barcodes"), cols, "barcode");
    } else {
        if (file.hasDataset(h5::childPath(group, "row_names")))
            m.rowNames = readNames(file, h5::childPath(group, "row_names"), rows, "row");
        if (file.hasDataset(h5::childPath(group, "col_names")))
            m.colNames = readNames(file, h5::childPath(group, "col_names"), cols, "column");
    }
    return m;
}

void writeSparseHdf5(const std::string& path, const CsrMatrix& matrix, const std::string& group)
{
    validateCsr(matrix, path);
    const std::string g = h5::normalisedPath(group);
    writeFileAtomically(path, [&](AtomicFile& out) {
        h5::File file = h5::File::create(out.temporaryPath());
        file.createGroup(g);
        const std::uint64_t nnz = matrix.nnz();
        file.writeDoubles(h5::childPath(g, "data"), matrix.values, {nnz});
        file.writeInt32s(h5::childPath(g, "indices"), matrix.colIdx, {nnz});
        file.writeInt64s(h5::childPath(g, "indptr"), matrix.rowPtr, {matrix.rows + 1});
        const std::int64_t shape[2] = {static_cast<std::int64_t>(matrix.rows), static_cast<std::int64_t>(matrix.cols)};
        file.writeInt64s(h5::childPath(g, "shape"), shape, {2});
        file.writeInt64Attribute(g, "shape", shape);
        file.writeStringAttribute(g, "encoding-type", "csr_matrix");
        file.writeStringAttribute(g, "encoding-version", "0.1.0");
        if (!matrix.rowNames.empty())
            file.writeStrings(h5::childPath(g, "row_names"), matrix.rowNames);
        if (!matrix.colNames.empty())
            file.writeStrings(h5::childPath(g, "col_names"), matrix.colNames);
    });
}

} // namespace ks::data
