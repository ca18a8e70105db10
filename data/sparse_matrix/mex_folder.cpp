// 10x Genomics "MEX" folders: matrix.mtx (Matrix Market, features × barcodes) with the feature and barcode names
// beside it, as Cell Ranger writes them.

#include "data/dataset_error.h"
#include "data/line_cursor.h"
#include "data/reader_messages.h"
#include "data/sparse_matrix.h"
#include "data/text_file.h"

#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace ks::data {

namespace {

std::string firstExisting(const std::filesystem::path& directory, std::initializer_list<const char*> names)
{
    for (const char* name : names) {
        std::error_code ec;
        const auto candidate = directory / name;
        if (std::filesystem::is_regular_file(candidate, ec))
            return candidate.string();
    }
    return {};
}

/// One name per line of a features/genes/barcodes file: the tab-separated field `preferredField` (0-based) when
/// the line has it, else the first.
std::vector<std::string> readNames(const std::string& path, std::size_t preferredField)
{
    const std::string text = readTextFile(path);
    std::vector<std::string> names;
    LineCursor lines(text);
    std::string_view line;
    while (lines.next(line)) {
        std::size_t start = 0;
        std::size_t field = 0;
        std::string_view chosen;
        for (;;) {
            const std::size_t tab = line.find('\t', start);
            const std::string_view piece
                = line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
            if (field == 0 || field == preferredField)
                chosen = piece;
            if (field == preferredField || tab == std::string_view::npos)
                break;
            start = tab + 1;
            ++field;
        }
        names.emplace_back(chosen);
    }
    // A final line break ends the last line rather than starting an empty one; blank lines at the very end are
    // padding, not names.
    while (!names.empty() && names.back().empty())
        names.pop_back();
    return names;
}

void checkNameCount(const std::vector<std::string>& names, std::uint64_t expected, const std::string& namesFile,
    const std::string& matrixFile, const char* dimension)
{
    if (names.size() != expected)
        throw DatasetError(namesFile, "",
            plural(names.size(), "name (line)", "names (lines)") + ", but " + baseName(matrixFile) + " has "
                + plural(expected, dimension));
}

} // namespace

bool isMexFolder(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec))
        return false;
    return !firstExisting(path, {"matrix.mtx", "matrix.mtx.gz"}).empty();
}

CsrMatrix readMexFolder(const std::string& directory, const ReadOptions& options)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(directory, ec))
        throw DatasetError(directory, "", "not a directory (a 10x Genomics MEX folder was expected)");
    const std::string matrixFile = firstExisting(directory, {"matrix.mtx", "matrix.mtx.gz"});
    if (matrixFile.empty())
        throw DatasetError(directory, "",
            "no matrix.mtx or matrix.mtx.gz: a 10x Genomics MEX folder holds matrix.mtx, features.tsv (or genes.tsv) "
            "and barcodes.tsv, each optionally gzipped");
    CsrMatrix matrix = readMatrixMarket(matrixFile, options);

    const std::string featuresFile
        = firstExisting(directory, {"features.tsv", "features.tsv.gz", "genes.tsv", "genes.tsv.gz"});
    if (featuresFile.empty()) {
        matrix.notes.push_back("no features.tsv or genes.tsv: rows are unnamed");
    } else {
        // Cell Ranger writes "id<TAB>name<TAB>type" (genes.tsv: "id<TAB>name"): the name is the second field.
        std::vector<std::string> names = readNames(featuresFile, 1);
        checkNameCount(names, matrix.rows, featuresFile, matrixFile, "row");
        matrix.rowNames = std::move(names);
    }
    const std::string barcodesFile = firstExisting(directory, {"barcodes.tsv", "barcodes.tsv.gz"});
    if (barcodesFile.empty()) {
        matrix.notes.push_back("no barcodes.tsv: columns are unnamed");
    } else {
        std::vector<std::string> names = readNames(barcodesFile, 0);
        checkNameCount(names, matrix.cols, barcodesFile, matrixFile, "column");
        matrix.colNames = std::move(names);
    }
    return matrix;
}

} // namespace ks::data
