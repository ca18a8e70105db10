// The HDF5 sparse-group reader and writer: groups as scipy, AnnData, h5sparse and 10x Genomics write them, written
// at test time through the HDF5 C API (so the tests control every type, attribute and malformation), every malformed
// case with the dataset it must name, and the writer's round trip.

#include "data/dataset_error.h"
#include "data/hdf5_file.h"
#include "data/sparse_matrix.h"

#include "hdf5_test_support.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::errorSays;
using test::RawId;

void writeRaw(hid_t location, const std::string& name, hid_t fileType, hid_t memType, const std::vector<hsize_t>& dims,
    const void* data)
{
    RawId space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    ASSERT_GE(space.get(), 0);
    RawId lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    RawId dataset(
        H5Dcreate2(location, name.c_str(), fileType, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(dataset.get(), 0) << name;
    hsize_t count = 1;
    for (auto d : dims)
        count *= d;
    if (count > 0) {
        ASSERT_GE(H5Dwrite(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
    }
}

void writeStringsRaw(hid_t location, const std::string& name, const std::vector<std::string>& values)
{
    RawId type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    std::vector<const char*> raw;
    for (const auto& v : values)
        raw.push_back(v.c_str());
    writeRaw(location, name, type.get(), type.get(), {values.size()}, raw.data());
}

void stringAttribute(hid_t object, const char* name, const std::string& value)
{
    RawId type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    RawId space(H5Screate(H5S_SCALAR), H5Sclose);
    RawId attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    ASSERT_GE(attribute.get(), 0) << name;
    const char* raw = value.c_str();
    ASSERT_GE(H5Awrite(attribute.get(), type.get(), &raw), 0) << name;
}

void int64Attribute(hid_t object, const char* name, const std::vector<std::int64_t>& values)
{
    const hsize_t extent = values.size();
    RawId space(H5Screate_simple(1, &extent, nullptr), H5Sclose);
    RawId attribute(H5Acreate2(object, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    ASSERT_GE(attribute.get(), 0) << name;
    ASSERT_GE(H5Awrite(attribute.get(), H5T_NATIVE_INT64, values.data()), 0) << name;
}

/// A sparse group as a writer would leave it; the defaults are kMatrix in CSR with a `shape` dataset and no format
/// attribute.
struct SparseGroup {
    std::string path = "/m";
    std::vector<double> data = {1, 2, 3, 4, 5};
    hid_t dataType = H5T_IEEE_F64LE;
    std::vector<hsize_t> dataDims; ///< empty: {data.size()}
    std::vector<std::int64_t> indices = {0, 2, 3, 0, 1};
    hid_t indicesType = H5T_STD_I32LE;
    std::vector<std::int64_t> indptr = {0, 2, 3, 5};
    hid_t indptrType = H5T_STD_I64LE;
    std::vector<std::int64_t> shapeDataset = {3, 4}; ///< empty: none
    hid_t shapeType = H5T_STD_I64LE;
    std::vector<std::int64_t> shapeAttribute; ///< empty: none
    const char* shapeAttributeName = "shape";
    std::string encodingType; ///< AnnData's attribute; empty: none
    std::string format; ///< scipy's attribute; empty: none
    bool writeData = true;
    bool writeIndices = true;
    bool writeIndptr = true;
};

void addGroup(hid_t file, const SparseGroup& g)
{
    RawId lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    RawId group(g.path == "/" ? H5Gopen2(file, "/", H5P_DEFAULT)
                              : H5Gcreate2(file, g.path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
        H5Gclose);
    ASSERT_GE(group.get(), 0) << g.path;
    if (g.writeData)
        writeRaw(group.get(), "data", g.dataType, H5T_NATIVE_DOUBLE,
            g.dataDims.empty() ? std::vector<hsize_t> {g.data.size()} : g.dataDims, g.data.data());
    if (g.writeIndices)
        writeRaw(group.get(), "indices", g.indicesType, H5T_NATIVE_INT64, {g.indices.size()}, g.indices.data());
    if (g.writeIndptr)
        writeRaw(group.get(), "indptr", g.indptrType, H5T_NATIVE_INT64, {g.indptr.size()}, g.indptr.data());
    if (!g.shapeDataset.empty())
        writeRaw(group.get(), "shape", g.shapeType, H5T_NATIVE_INT64, {g.shapeDataset.size()}, g.shapeDataset.data());
    if (!g.shapeAttribute.empty())
        int64Attribute(group.get(), g.shapeAttributeName, g.shapeAttribute);
    if (!g.encodingType.empty()) {
        stringAttribute(group.get(), "encoding-type", g.encodingType);
        stringAttribute(group.get(), "encoding-version", "0.1.0");
    }
    if (!g.format.empty())
        stringAttribute(group.get(), "format", g.format);
}

/// The 3 × 4 matrix every good file holds:
///   [1 0 2 0]
///   [0 0 0 3]
///   [4 5 0 0]
CsrMatrix expectedMatrix()
{
    CsrMatrix m;
    m.rows = 3;
    m.cols = 4;
    m.rowPtr = {0, 2, 3, 5};
    m.colIdx = {0, 2, 3, 0, 1};
    m.values = {1, 2, 3, 4, 5};
    return m;
}

/// The same matrix as CSC (column pointers over 4 columns, row indices).
SparseGroup cscGroup()
{
    SparseGroup g;
    g.data = {1, 4, 5, 2, 3};
    g.indices = {0, 2, 2, 0, 1};
    g.indptr = {0, 2, 3, 4, 5};
    return g;
}

void expectStructure(const CsrMatrix& actual, const CsrMatrix& expected)
{
    EXPECT_EQ(actual.rows, expected.rows);
    EXPECT_EQ(actual.cols, expected.cols);
    EXPECT_EQ(actual.rowPtr, expected.rowPtr);
    EXPECT_EQ(actual.colIdx, expected.colIdx);
    EXPECT_EQ(actual.values, expected.values);
    EXPECT_NO_THROW(validateCsr(actual, "read"));
}

bool hasNote(const CsrMatrix& m, const std::string& part)
{
    for (const auto& note : m.notes)
        if (note.find(part) != std::string::npos)
            return true;
    return false;
}

class SparseHdf5Test : public test::TempDirTest {
protected:
    std::string makeFile(const std::string& name, const std::function<void(hid_t)>& fill)
    {
        const std::string p = tempPath(name);
        RawId file(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        EXPECT_GE(file.get(), 0) << p;
        fill(file.get());
        return p;
    }
    std::string makeGroupFile(const std::string& name, const SparseGroup& g)
    {
        return makeFile(name, [&](hid_t f) { addGroup(f, g); });
    }
};

// --- the layouts writers use ------------------------------------------------------------------------------------

TEST_F(SparseHdf5Test, ScipyStyleCsrWithShapeDataset)
{
    SparseGroup g;
    g.format = "csr";
    const std::string p = makeGroupFile("csr.h5", g);
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_EQ(m.storedType, "float64");
    EXPECT_TRUE(m.notes.empty()) << m.notes.front();
    EXPECT_TRUE(m.rowNames.empty());
    EXPECT_TRUE(m.colNames.empty());
}

TEST_F(SparseHdf5Test, ScipyStyleCscIsConvertedToCsr)
{
    SparseGroup g = cscGroup();
    g.format = "csc";
    const std::string p = makeGroupFile("csc.h5", g);
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_TRUE(hasNote(m, "converted from CSC"));
}

TEST_F(SparseHdf5Test, AnnDataCsrWithShapeAttribute)
{
    const std::string p = makeFile("adata.h5ad", [](hid_t f) {
        stringAttribute(f, "encoding-type", "anndata");
        SparseGroup g;
        g.path = "/X";
        g.shapeDataset.clear();
        g.shapeAttribute = {3, 4};
        g.encodingType = "csr_matrix";
        g.indicesType = H5T_STD_I32LE;
        addGroup(f, g);
    });
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_TRUE(m.notes.empty());
}

TEST_F(SparseHdf5Test, AnnDataCscIsConvertedToCsr)
{
    SparseGroup g = cscGroup();
    g.path = "/X";
    g.shapeDataset.clear();
    g.shapeAttribute = {3, 4};
    g.encodingType = "csc_matrix";
    const std::string p = makeGroupFile("adata_csc.h5ad", g);
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_TRUE(hasNote(m, "converted from CSC"));
}

TEST_F(SparseHdf5Test, H5sparseShapeAttributeAndFormat)
{
    const std::string p = makeFile("h5sparse.h5", [](hid_t f) {
        SparseGroup g = cscGroup();
        g.shapeDataset.clear();
        g.shapeAttribute = {3, 4};
        g.shapeAttributeName = "h5sparse_shape";
        addGroup(f, g);
        RawId group(H5Gopen2(f, "/m", H5P_DEFAULT), H5Gclose);
        stringAttribute(group.get(), "h5sparse_format", "csc");
    });
    expectStructure(readSparseHdf5(p), expectedMatrix());
}

TEST_F(SparseHdf5Test, TenXGenomicsMatrixKeepsFeatureNamesAndBarcodes)
{
    // Cell Ranger's filtered_feature_bc_matrix.h5: /matrix is CSC over barcodes (columns), shape = features ×
    // barcodes, int32 counts, int64 indices and indptr, names under features/ and barcodes.
    const std::string p = makeFile("tenx.h5", [](hid_t f) {
        SparseGroup g = cscGroup();
        g.path = "/matrix";
        g.dataType = H5T_STD_I32LE;
        g.indicesType = H5T_STD_I64LE;
        g.shapeType = H5T_STD_I32LE;
        addGroup(f, g);
        writeStringsRaw(f, "/matrix/barcodes", {"AAAC-1", "AAAG-1", "AACT-1", "AAGT-1"});
        writeStringsRaw(f, "/matrix/features/name", {"CD3E", "MS4A1", "LYZ"});
        writeStringsRaw(f, "/matrix/features/id", {"ENSG1", "ENSG2", "ENSG3"});
        writeStringsRaw(f, "/matrix/features/feature_type", {"Gene Expression", "Gene Expression", "Gene Expression"});
    });
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_EQ(m.rowNames, (std::vector<std::string> {"CD3E", "MS4A1", "LYZ"}));
    EXPECT_EQ(m.colNames, (std::vector<std::string> {"AAAC-1", "AAAG-1", "AACT-1", "AAGT-1"}));
    EXPECT_EQ(m.storedType, "integer");
    EXPECT_TRUE(hasNote(m, "10x Genomics"));
}

TEST_F(SparseHdf5Test, TenXVersion2GeneNames)
{
    const std::string p = makeFile("tenx_v2.h5", [](hid_t f) {
        SparseGroup g = cscGroup();
        g.path = "/GRCh38";
        addGroup(f, g);
        writeStringsRaw(f, "/GRCh38/barcodes", {"A", "B", "C", "D"});
        writeStringsRaw(f, "/GRCh38/genes", {"ENSG1", "ENSG2", "ENSG3"});
        writeStringsRaw(f, "/GRCh38/gene_names", {"G1", "G2", "G3"});
    });
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_EQ(m.rowNames, (std::vector<std::string> {"G1", "G2", "G3"}));
    EXPECT_EQ(m.colNames.size(), 4u);
}

TEST_F(SparseHdf5Test, TenXNameCountMismatchNamesTheDataset)
{
    const std::string p = makeFile("tenx_bad.h5", [](hid_t f) {
        SparseGroup g = cscGroup();
        g.path = "/matrix";
        addGroup(f, g);
        writeStringsRaw(f, "/matrix/barcodes", {"A", "B", "C"});
        writeStringsRaw(f, "/matrix/features/name", {"G1", "G2", "G3"});
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /matrix/barcodes",
        "has 3 names but the matrix has 4 barcodes"));
}

TEST_F(SparseHdf5Test, Int64IndicesAndFloat32Data)
{
    SparseGroup g;
    g.dataType = H5T_IEEE_F32LE;
    g.indicesType = H5T_STD_I64LE;
    g.indptrType = H5T_STD_I32LE;
    g.data = {1.5, 2, 3, 4, 5};
    const std::string p = makeGroupFile("wide.h5", g);
    const CsrMatrix m = readSparseHdf5(p);
    EXPECT_EQ(m.colIdx, expectedMatrix().colIdx);
    EXPECT_EQ(m.values, (std::vector<double> {1.5, 2, 3, 4, 5}));
    EXPECT_EQ(m.storedType, "float32");
}

TEST_F(SparseHdf5Test, Uint64IndptrAndUint16Indices)
{
    SparseGroup g;
    g.indptrType = H5T_STD_U64LE;
    g.indicesType = H5T_STD_U16LE;
    expectStructure(readSparseHdf5(makeGroupFile("unsigned.h5", g)), expectedMatrix());
}

TEST_F(SparseHdf5Test, UnsortedAndDuplicateColumnsAreSortedAndSummed)
{
    SparseGroup g;
    // Row 0 holds columns 2, 0, 2 (values 1, 2, 3): sorted to 0, 2 and the two 2s summed. Row 2 holds 1, 0.
    g.data = {1, 2, 3, 7, 5, 4};
    g.indices = {2, 0, 2, 3, 1, 0};
    g.indptr = {0, 3, 4, 6};
    const std::string p = makeGroupFile("messy.h5", g);
    const CsrMatrix m = readSparseHdf5(p);
    EXPECT_EQ(m.rowPtr, (std::vector<std::int64_t> {0, 2, 3, 5}));
    EXPECT_EQ(m.colIdx, (std::vector<std::int32_t> {0, 2, 3, 0, 1}));
    EXPECT_EQ(m.values, (std::vector<double> {2, 4, 7, 4, 5}));
    EXPECT_NO_THROW(validateCsr(m, p));
    EXPECT_TRUE(hasNote(m, "sorted the column indices of 2 rows"));
    EXPECT_TRUE(hasNote(m, "summed 1 duplicate entry"));
}

TEST_F(SparseHdf5Test, DuplicatesInCscAreSummed)
{
    SparseGroup g = cscGroup();
    g.format = "csc";
    // Column 0 holds row 0 twice.
    g.data = {1, 10, 4, 5, 2, 3};
    g.indices = {0, 0, 2, 2, 0, 1};
    g.indptr = {0, 3, 4, 5, 6};
    const CsrMatrix m = readSparseHdf5(makeGroupFile("csc_dup.h5", g));
    EXPECT_EQ(m.values, (std::vector<double> {11, 2, 3, 4, 5}));
    EXPECT_TRUE(hasNote(m, "summed 1 duplicate entry"));
}

TEST_F(SparseHdf5Test, FormatIsInferredFromIndptrWithoutAttributes)
{
    // No attribute: indptr has columns + 1 entries, so CSC, and the note says why.
    const CsrMatrix csc = readSparseHdf5(makeGroupFile("inferred_csc.h5", cscGroup()));
    expectStructure(csc, expectedMatrix());
    EXPECT_TRUE(hasNote(csc, "read as CSC"));

    // A square matrix fits both: read as CSR, said so.
    SparseGroup square;
    square.shapeDataset = {3, 3};
    square.indices = {0, 2, 2, 0, 1};
    const CsrMatrix m = readSparseHdf5(makeGroupFile("square.h5", square));
    EXPECT_EQ(m.cols, 3u);
    EXPECT_TRUE(hasNote(m, "square: read as CSR"));
}

TEST_F(SparseHdf5Test, EmptyMatrixReads)
{
    SparseGroup g;
    g.data.clear();
    g.indices.clear();
    g.indptr = {0, 0, 0, 0};
    const CsrMatrix m = readSparseHdf5(makeGroupFile("empty.h5", g));
    EXPECT_EQ(m.rows, 3u);
    EXPECT_EQ(m.nnz(), 0u);
}

// --- choosing the group -----------------------------------------------------------------------------------------

TEST_F(SparseHdf5Test, SeveralGroupsNeedH5Path)
{
    const std::string p = makeFile("two.h5", [](hid_t f) {
        SparseGroup a;
        a.path = "/a";
        addGroup(f, a);
        SparseGroup b = cscGroup();
        b.path = "/deep/b";
        b.format = "csc";
        addGroup(f, b);
    });
    const auto error = catchDatasetError([&] { readSparseHdf5(p); });
    EXPECT_TRUE(errorSays(error, p, "", "several groups hold a sparse matrix"));
    EXPECT_TRUE(contains(error->problem(), "/a, /deep/b"));
    EXPECT_TRUE(contains(error->problem(), "--h5-path"));

    ReadOptions options;
    options.h5Path = "deep/b/";
    expectStructure(readSparseHdf5(p, options), expectedMatrix());
    options.h5Path = "/a/indptr"; // a dataset selects its group
    expectStructure(readSparseHdf5(p, options), expectedMatrix());
    options.h5Path = "/nothing";
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readSparseHdf5(p, options); }), p, "", "no group named /nothing (--h5-path)"));
}

TEST_F(SparseHdf5Test, AnnDataWithSeveralSparseGroupsReadsX)
{
    const std::string p = makeFile("obsp.h5ad", [](hid_t f) {
        stringAttribute(f, "encoding-type", "anndata");
        SparseGroup x;
        x.path = "/X";
        x.encodingType = "csr_matrix";
        addGroup(f, x);
        SparseGroup graph;
        graph.path = "/obsp/connectivities";
        graph.encodingType = "csr_matrix";
        graph.shapeDataset = {3, 3};
        graph.indices = {0, 2, 2, 0, 1};
        addGroup(f, graph);
    });
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_TRUE(hasNote(m, "/obsp/connectivities"));
}

TEST_F(SparseHdf5Test, AnnDataWithDenseXNotesTheGroupItRead)
{
    const std::string p = makeFile("dense_x.h5ad", [](hid_t f) {
        stringAttribute(f, "encoding-type", "anndata");
        const std::vector<double> x = {1, 0, 2, 0, 0, 0, 0, 3, 4, 5, 0, 0};
        writeRaw(f, "/X", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3, 4}, x.data());
        SparseGroup layer;
        layer.path = "/layers/counts";
        layer.encodingType = "csr_matrix";
        addGroup(f, layer);
    });
    const CsrMatrix m = readSparseHdf5(p);
    expectStructure(m, expectedMatrix());
    EXPECT_TRUE(hasNote(m, "/X is not a sparse matrix: read /layers/counts"));
}

TEST_F(SparseHdf5Test, GroupAtTheRoot)
{
    SparseGroup g;
    g.path = "/";
    expectStructure(readSparseHdf5(makeGroupFile("root.h5", g)), expectedMatrix());
}

// --- malformed files --------------------------------------------------------------------------------------------

TEST_F(SparseHdf5Test, MissingDatasetIsNamed)
{
    SparseGroup g;
    g.writeIndices = false;
    const std::string p = makeGroupFile("no_indices.h5", g);
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "group /m", "has no dataset named indices"));
    ReadOptions options;
    options.h5Path = "/m";
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readSparseHdf5(p, options); }), p, "group /m", "has no dataset named indices"));
}

TEST_F(SparseHdf5Test, NoSparseGroupAtAll)
{
    const std::string p = makeFile("dense.h5", [](hid_t f) {
        const std::vector<double> v = {1, 2, 3, 4};
        writeRaw(f, "/matrix", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {2, 2}, v.data());
    });
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "",
        "no group holds the datasets data, indices and indptr of a sparse matrix (the file has: /matrix)"));
}

TEST_F(SparseHdf5Test, IndptrOfTheWrongLength)
{
    SparseGroup g;
    g.format = "csr";
    g.indptr = {0, 2, 5};
    const std::string p = makeGroupFile("short_indptr.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indptr",
        "has 3 entries; a CSR matrix of 3 rows needs 4"));

    // Without a format attribute neither rows + 1 nor columns + 1 fits.
    g.format.clear();
    const std::string q = makeGroupFile("short_indptr_inferred.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(q); }), q, "dataset /m/indptr",
        "needs rows + 1 = 4 (CSR) or columns + 1 = 5 (CSC)"));
}

TEST_F(SparseHdf5Test, IndptrNotStartingAtZero)
{
    SparseGroup g;
    g.indptr = {1, 2, 3, 5};
    const std::string p = makeGroupFile("indptr_start.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indptr, element 0",
        "is 1; indptr must start at 0"));
}

TEST_F(SparseHdf5Test, DecreasingIndptr)
{
    SparseGroup g;
    g.indptr = {0, 3, 2, 5};
    const std::string p = makeGroupFile("indptr_down.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indptr, element 2",
        "is 2, less than element 1 (3); indptr must not decrease"));
}

TEST_F(SparseHdf5Test, IndptrEndingBeforeOrAfterNnz)
{
    SparseGroup g;
    g.indptr = {0, 2, 3, 4};
    const std::string p = makeGroupFile("indptr_end.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indptr, element 3",
        "is 4 but data and indices hold 5 entries"));
    g.indptr = {0, 2, 3, 6};
    const std::string q = makeGroupFile("indptr_past.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(q); }), q, "dataset /m/indptr, element 3",
        "is 6 but data and indices hold 5 entries"));
}

TEST_F(SparseHdf5Test, IndexOutOfRange)
{
    SparseGroup g;
    g.indices = {0, 2, 4, 0, 1};
    const std::string p = makeGroupFile("index_high.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indices, element 2",
        "is 4; the matrix has 4 columns, so indices must be below 4"));

    // In CSC the indices are rows.
    SparseGroup c = cscGroup();
    c.format = "csc";
    c.indices = {0, 3, 2, 0, 1};
    const std::string q = makeGroupFile("csc_index_high.h5", c);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(q); }), q, "dataset /m/indices, element 1",
        "the matrix has 3 rows, so indices must be below 3"));
}

TEST_F(SparseHdf5Test, NegativeIndex)
{
    SparseGroup g;
    g.indices = {0, -1, 3, 0, 1};
    const std::string p = makeGroupFile("index_negative.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indices, element 1",
        "is -1; indices must not be negative"));
    g.indicesType = H5T_STD_I64LE;
    const std::string q = makeGroupFile("index_negative64.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(q); }), q, "dataset /m/indices, element 1",
        "is -1; indices must not be negative"));
}

TEST_F(SparseHdf5Test, Int64IndexBeyond32BitsIsReportedAsStored)
{
    SparseGroup g;
    g.indicesType = H5T_STD_I64LE;
    g.indices = {0, 5000000000LL, 3, 0, 1};
    const std::string p = makeGroupFile("index_huge.h5", g);
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indices, element 1", "is 5000000000"));
}

TEST_F(SparseHdf5Test, TwoDimensionalData)
{
    SparseGroup g;
    g.dataDims = {5, 1};
    const std::string p = makeGroupFile("data_2d.h5", g);
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/data", "has rank 2; expected a 1-D"));
}

TEST_F(SparseHdf5Test, StringData)
{
    const std::string p = makeFile("data_strings.h5", [](hid_t f) {
        SparseGroup g;
        g.writeData = false;
        addGroup(f, g);
        writeStringsRaw(f, "/m/data", {"a", "b", "c", "d", "e"});
    });
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/data", "holds string values; expected numbers"));
}

TEST_F(SparseHdf5Test, FloatIndices)
{
    SparseGroup g;
    g.indicesType = H5T_IEEE_F64LE;
    const std::string p = makeGroupFile("float_indices.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indices",
        "holds float64 values; expected integers"));
}

TEST_F(SparseHdf5Test, DataAndIndicesOfDifferentLengths)
{
    SparseGroup g;
    g.data = {1, 2, 3, 4};
    const std::string p = makeGroupFile("short_data.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/indices",
        "has 5 entries but /m/data has 4; they must be of equal length"));
}

TEST_F(SparseHdf5Test, MissingShape)
{
    SparseGroup g;
    g.shapeDataset.clear();
    const std::string p = makeGroupFile("no_shape.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "group /m", "has no shape"));
}

TEST_F(SparseHdf5Test, MalformedShape)
{
    SparseGroup g;
    g.shapeDataset = {3, 4, 1};
    const std::string p = makeGroupFile("shape3.h5", g);
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/shape", "expected two numbers"));

    g.shapeDataset = {3, -4};
    const std::string q = makeGroupFile("shape_negative.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(q); }), q, "dataset /m/shape",
        "the column count is not a non-negative whole number"));

    g.shapeDataset.clear();
    g.shapeAttribute = {3};
    const std::string r = makeGroupFile("shape_attribute1.h5", g);
    EXPECT_TRUE(errorSays(
        catchDatasetError([&] { readSparseHdf5(r); }), r, "group /m, attribute shape", "holds 1 values; expected two"));
}

TEST_F(SparseHdf5Test, DimensionBeyond32BitIndices)
{
    SparseGroup g;
    g.shapeDataset = {3, 3000000000LL};
    const std::string p = makeGroupFile("too_wide.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/shape",
        "the column count 3000000000 exceeds the largest supported dimension 2147483647"));
}

TEST_F(SparseHdf5Test, UnknownEncodingOrFormat)
{
    SparseGroup g;
    g.encodingType = "array";
    const std::string p = makeGroupFile("encoding.h5", g);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "group /m",
        "has encoding-type 'array'; expected csr_matrix or csc_matrix"));
    SparseGroup f;
    f.format = "coo";
    const std::string q = makeGroupFile("format.h5", f);
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(q); }), q, "group /m", "has format 'coo'"));
}

TEST_F(SparseHdf5Test, NonFiniteValuesAreRejectedUnlessAllowed)
{
    SparseGroup g;
    g.data = {1, 2, std::numeric_limits<double>::quiet_NaN(), 4, 5};
    const std::string p = makeGroupFile("nan.h5", g);
    EXPECT_TRUE(
        errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "dataset /m/data, element 2", "NaN (non-finite"));
    ReadOptions options;
    options.allowNonFinite = true;
    EXPECT_TRUE(std::isnan(readSparseHdf5(p, options).values[2]));
}

TEST_F(SparseHdf5Test, NotHdf5)
{
    const std::string p = writeFile("fake.h5", "%%MatrixMarket matrix coordinate real general\n1 1 0\n");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(p); }), p, "", "not an HDF5 file"));
    const std::string missing = tempPath("missing.h5");
    EXPECT_TRUE(errorSays(catchDatasetError([&] { readSparseHdf5(missing); }), missing, "", "no such file"));
}

// --- the writer -------------------------------------------------------------------------------------------------

TEST_F(SparseHdf5Test, WriteReadRoundTripWithNames)
{
    CsrMatrix m = expectedMatrix();
    m.values = {0.1, -2.5e-300, 3e300, 4, 1.0 / 3.0};
    m.rowNames = {"r1", "r2", "r3"};
    m.colNames = {"c1", "c2", "c3", "c4"};
    const std::string p = tempPath("round.h5");
    writeSparseHdf5(p, m);
    const CsrMatrix back = readSparseHdf5(p);
    expectStructure(back, m);
    EXPECT_EQ(back.rowNames, m.rowNames);
    EXPECT_EQ(back.colNames, m.colNames);
    EXPECT_EQ(back.storedType, "float64");
    EXPECT_TRUE(back.notes.empty());

    // The layout AnnData reads: types, shape dataset and attribute, encoding attributes.
    const h5::File file = h5::File::open(p);
    EXPECT_EQ(file.info("/matrix/data").type, "float64");
    EXPECT_EQ(file.info("/matrix/indices").type, "int32");
    EXPECT_EQ(file.info("/matrix/indptr").type, "int64");
    EXPECT_EQ(file.info("/matrix/shape").type, "int64");
    EXPECT_EQ(file.readStringAttribute("/matrix", "encoding-type"), "csr_matrix");
    EXPECT_EQ(file.readStringAttribute("/matrix", "encoding-version"), "0.1.0");
    EXPECT_EQ(file.readNumericAttribute("/matrix", "shape"), (std::vector<double> {3, 4}));
    EXPECT_EQ(file.readDoubles("/matrix/shape", 1, false), (std::vector<double> {3, 4}));
}

TEST_F(SparseHdf5Test, WriterCreatesIntermediateGroupsAndOmitsAbsentNames)
{
    const std::string p = tempPath("deep.h5");
    writeSparseHdf5(p, expectedMatrix(), "a/b/c");
    const h5::File file = h5::File::open(p);
    EXPECT_TRUE(file.hasGroup("/a/b/c"));
    EXPECT_FALSE(file.hasDataset("/a/b/c/row_names"));
    EXPECT_FALSE(file.hasDataset("/a/b/c/col_names"));
    const CsrMatrix back = readSparseHdf5(p);
    expectStructure(back, expectedMatrix());
    EXPECT_TRUE(back.rowNames.empty());
}

TEST_F(SparseHdf5Test, WriterRejectsAnInvalidMatrix)
{
    CsrMatrix m = expectedMatrix();
    m.colIdx = {2, 0, 3, 0, 1}; // row 0 unsorted
    const std::string p = tempPath("bad.h5");
    EXPECT_TRUE(catchDatasetError([&] { writeSparseHdf5(p, m); }).has_value());
}

} // namespace
} // namespace ks::data
