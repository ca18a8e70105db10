// ks_fuzz_seeds TESTDATA_DIR OUT_DIR: the seed corpus of every fuzz target, one folder each under OUT_DIR (emptied
// first). Text seeds are the committed corpus files of tests/data, copied by extension; the binary formats (HDF5,
// IDX, CIFAR-10, gzip) and the multi-file inputs (MEX folders, IDX pairs) are written here with the project's own
// writers, so no generated file is kept in git.

#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/hdf5_file.h"
#include "data/point_cloud.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"
#include "tests/fuzz/fuzz_support.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace ks::data;

fs::path gOut;

std::string slurp(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void put(const std::string& target, const std::string& name, const std::string& bytes)
{
    const fs::path dir = gOut / target;
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + (dir / name).string());
}

std::string gzipped(const std::string& bytes)
{
    z_stream stream {};
    // 16 + MAX_WBITS: a gzip header and trailer, as gzip(1) writes.
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2 failed");
    std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream.avail_in = static_cast<uInt>(bytes.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

/// Every regular file under `dir` (recursively) whose extension is one of `extensions` (all when empty), sorted.
std::vector<fs::path> filesUnder(const fs::path& dir, const std::set<std::string>& extensions)
{
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file() && (extensions.empty() || extensions.count(entry.path().extension().string())))
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

/// A seed's name: its path below tests/data with '/' as '-', so good and bad files of the same name both stay.
std::string seedName(const fs::path& file, const fs::path& root)
{
    std::string name = fs::relative(file, root).string();
    for (char& c : name)
        if (c == '/')
            c = '-';
    return name;
}

void copyText(const fs::path& data, const std::string& target, const std::string& workload,
    const std::set<std::string>& extensions, const std::string& prefix = "")
{
    for (const fs::path& file : filesUnder(data / workload, extensions))
        if (prefix.empty() || file.filename().string().rfind(prefix, 0) == 0)
            put(target, seedName(file, data), slurp(file));
}

std::string bigEndian32(std::uint32_t value)
{
    return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
        static_cast<char>(value)};
}

std::string idxImages(std::uint32_t count, std::uint32_t rows, std::uint32_t cols)
{
    std::string bytes = bigEndian32(0x00000803) + bigEndian32(count) + bigEndian32(rows) + bigEndian32(cols);
    for (std::uint32_t k = 0; k < count * rows * cols; ++k)
        bytes.push_back(static_cast<char>((k * 37) & 0xff));
    return bytes;
}

std::string idxLabels(std::uint32_t count)
{
    std::string bytes = bigEndian32(0x00000801) + bigEndian32(count);
    for (std::uint32_t k = 0; k < count; ++k)
        bytes.push_back(static_cast<char>(k % 10));
    return bytes;
}

std::string cifarRecords(std::uint32_t count)
{
    std::string bytes;
    for (std::uint32_t r = 0; r < count; ++r) {
        bytes.push_back(static_cast<char>(r % 10));
        for (std::uint32_t k = 0; k < 3072; ++k)
            bytes.push_back(static_cast<char>((k * 13 + r) & 0xff));
    }
    return bytes;
}

/// Writes one HDF5 seed with `write(path)` into a scratch file and returns its bytes.
template <typename Write> std::string hdf5Bytes(Write&& write)
{
    const fs::path scratch = gOut / ".scratch.h5";
    write(scratch.string());
    std::string bytes = slurp(scratch);
    fs::remove(scratch);
    return bytes;
}

std::vector<std::pair<std::string, std::string>> hdf5Seeds(const fs::path& data)
{
    std::vector<std::pair<std::string, std::string>> seeds;
    const CsrMatrix matrix = readMatrixMarket((data / "spmv/good/general_real.mtx").string());
    seeds.emplace_back("csr.h5", hdf5Bytes([&](const std::string& p) { writeSparseHdf5(p, matrix); }));
    CsrMatrix named = matrix;
    for (std::uint64_t r = 0; r < named.rows; ++r)
        named.rowNames.push_back("gene" + std::to_string(r));
    for (std::uint64_t c = 0; c < named.cols; ++c)
        named.colNames.push_back("cell" + std::to_string(c));
    seeds.emplace_back("csr_named.h5", hdf5Bytes([&](const std::string& p) { writeSparseHdf5(p, named, "/X"); }));
    // 10x Genomics' layout: /matrix in CSC with a shape dataset and no encoding attribute.
    seeds.emplace_back("csc_10x.h5", hdf5Bytes([](const std::string& p) {
        h5::File file = h5::File::create(p);
        file.createGroup("/matrix");
        file.writeDoubles("/matrix/data", std::vector<double> {1, 2, 3, 4}, {4});
        file.writeInt64s("/matrix/indices", std::vector<std::int64_t> {0, 2, 1, 2}, {4});
        file.writeInt64s("/matrix/indptr", std::vector<std::int64_t> {0, 2, 3, 4}, {4});
        file.writeInt32s("/matrix/shape", std::vector<std::int32_t> {3, 3}, {2});
        file.createGroup("/matrix/features");
        file.writeStrings("/matrix/features/name", {"a", "b", "c"});
        file.writeStrings("/matrix/barcodes", {"AAAC", "AAAG", "AAAT"});
    }));

    ExpressionGenerator generator;
    generator.samples = 6;
    generator.features = 5;
    generator.plantedPairs = 1;
    const ExpressionTable table = generateExpression(generator);
    seeds.emplace_back("expression.h5", hdf5Bytes([&](const std::string& p) { writeExpressionHdf5(p, table); }));

    CloudGenerator cloudGenerator;
    cloudGenerator.points = 8;
    const PointCloud cloud = generateCloud(cloudGenerator);
    seeds.emplace_back("points.h5", hdf5Bytes([&](const std::string& p) { writePointHdf5(p, cloud); }));
    seeds.emplace_back("frames.h5", hdf5Bytes([&](const std::string& p) {
        h5::File file = h5::File::create(p);
        std::vector<float> frames(2 * 4 * 3);
        for (std::size_t k = 0; k < frames.size(); ++k)
            frames[k] = static_cast<float>(k) * 0.5f;
        file.writeFloats("/trajectory", frames, {2, 4, 3});
    }));

    SeriesGenerator seriesGenerator;
    seriesGenerator.n = 16;
    const Series2D series = generateSeries(seriesGenerator);
    seeds.emplace_back("series.h5", hdf5Bytes([&](const std::string& p) { writeSeriesHdf5(p, series); }));
    seeds.emplace_back("series_f32.h5", hdf5Bytes([&](const std::string& p) { writeSeriesHdf5(p, series, true); }));
    // Large enough to be chunked and gzip-filtered: the filter pipeline is read too.
    seriesGenerator.n = 4096;
    const Series2D longSeries = generateSeries(seriesGenerator);
    seeds.emplace_back("series_gzip.h5", hdf5Bytes([&](const std::string& p) {
        h5::File file = h5::File::create(p);
        file.createGroup("/run");
        file.writeDoubles("/run/x", longSeries.x, {longSeries.x.size()}, true);
        file.writeDoubles("/run/y", longSeries.y, {longSeries.y.size()}, true);
    }));

    seeds.emplace_back("vector.h5", hdf5Bytes([](const std::string& p) {
        h5::File file = h5::File::create(p);
        file.writeDoubles("/x", std::vector<double> {1.5, -2, 0.25, 4}, {4});
    }));
    return seeds;
}

void writeSeeds(const fs::path& data)
{
    const std::string sep(ks::fuzz::kFileSeparator);

    copyText(data, "matrix_market", "spmv", {".mtx"});
    put("matrix_market", "sdh-bad-text_matrix_market.mtx", slurp(data / "sdh/bad/text_matrix_market.mtx"));
    for (const fs::path& file : filesUnder(data / "spmv/good", {".mtx"}))
        put("matrix_market", seedName(file, data) + ".gz", gzipped(slurp(file)));

    for (const fs::path& file : filesUnder(data / "spmv/good", {".mtx"})) {
        const CsrMatrix m = readMatrixMarket(file.string());
        std::string features;
        std::string barcodes;
        for (std::uint64_t r = 0; r < m.rows; ++r)
            features += "ENSG" + std::to_string(r) + "\tgene" + std::to_string(r) + "\tGene Expression\n";
        for (std::uint64_t c = 0; c < m.cols; ++c)
            barcodes += "AAAC" + std::to_string(c) + "-1\n";
        put("mex_folder", seedName(file, data), slurp(file) + sep + features + sep + barcodes);
    }
    put("mex_folder", "matrix_only", slurp(data / "spmv/good/general_real.mtx"));

    copyText(data, "series_text", "linreg", {});
    copyText(data, "expression_text", "lrv", {".csv", ".tsv", ".txt"});
    put("expression_text", "lrv-good-corner_label.tsv.gz", gzipped(slurp(data / "lrv/good/corner_label.tsv")));
    copyText(data, "pdb", "sdh", {".pdb"});
    copyText(data, "xyz", "sdh", {".xyz"});
    copyText(data, "ply", "sdh", {".ply"});
    copyText(data, "point_text", "sdh", {".txt", ".csv"});
    // Binary PLY, both byte orders, from the ascii cube's header.
    const std::string binaryHeader = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\n"
                                     "property float y\nproperty float z\nproperty uchar red\nend_header\n";
    std::string littleBody;
    std::string bigBody;
    for (int vertex = 0; vertex < 2; ++vertex) {
        for (int axis = 0; axis < 3; ++axis) {
            const float value = static_cast<float>(vertex * 3 + axis) * 1.5f;
            const auto* bytes = reinterpret_cast<const char*>(&value);
            const std::string word(bytes, 4);
            littleBody += word;
            bigBody.append(word.rbegin(), word.rend());
        }
        littleBody.push_back('\x7f');
        bigBody.push_back('\x7f');
    }
    put("ply", "binary_le.ply", binaryHeader + littleBody);
    std::string bigEndianHeader = binaryHeader;
    bigEndianHeader.replace(bigEndianHeader.find("little"), 6, "big");
    put("ply", "binary_be.ply", bigEndianHeader + bigBody);

    put("vector_text", "plain.txt", "1\n2.5\n-3e2\n");
    put("vector_text", "comments.txt", "# x\n\n0.5\n  7  \n# end\n");
    put("vector_text", "crlf_bom.txt",
        "\xEF\xBB\xBF"
        "1\r\n2\r\n");
    put("vector_text", "plain.txt.gz", gzipped("1\n2\n3\n4\n"));
    put("vector_text", "nan.txt", "1\nnan\n");

    put("idx", "pair", idxImages(3, 4, 5) + sep + idxLabels(3));
    put("idx", "pair_gzip", gzipped(idxImages(2, 3, 3)) + sep + gzipped(idxLabels(2)));
    put("idx", "counts_differ", idxImages(3, 2, 2) + sep + idxLabels(2));
    put("idx", "swapped", idxLabels(2) + sep + idxImages(2, 2, 2));
    put("cifar", "one_record.bin", cifarRecords(1));
    put("cifar", "three_records.bin", cifarRecords(3));

    for (const auto& [name, bytes] : hdf5Seeds(data))
        for (const char* target : {"sparse_hdf5", "expression_hdf5", "point_hdf5", "series_hdf5", "vector_hdf5"})
            put(target, name, bytes);

    for (const char* workload : {"linreg", "lrv", "sdh", "spmv"})
        copyText(data, "sniff", workload, {".csv", ".tsv", ".txt", ".mtx", ".pdb", ".xyz", ".ply"});
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: ks_fuzz_seeds TESTDATA_DIR OUT_DIR\n";
        return 2;
    }
    try {
        gOut = argv[2];
        fs::remove_all(gOut);
        fs::create_directories(gOut);
        writeSeeds(argv[1]);
    } catch (const std::exception& error) {
        std::cerr << "ks_fuzz_seeds: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
