// Matrix Market (NIST's "The Matrix Market Exchange Formats: Initial Design", Boisvert, Pozo & Remington 1996): the
// reader into CSR (through csrFromTriplets) and the `coordinate real general` writer.

#include "data/atomic_file.h"
#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/line_cursor.h"
#include "data/number_text.h"
#include "data/reader_messages.h"
#include "data/sparse_matrix.h"
#include "data/text_file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace ks::data {

namespace {

enum class MmFormat { Coordinate, Array };
enum class MmField { Real, Integer, Pattern };
enum class MmSymmetry { General, Symmetric, SkewSymmetric };

struct MmHeader {
    MmFormat format = MmFormat::Coordinate;
    MmField field = MmField::Real;
    MmSymmetry symmetry = MmSymmetry::General;
};

// The words' choices are named by the error about the word that is wrong; all of them would make too long a line.
constexpr std::string_view kBannerForm = "%%MatrixMarket matrix <format> <field> <symmetry>";

MmHeader parseBanner(std::string_view line, const std::string& file)
{
    const std::string place = linePlace(1);
    std::size_t pos = 0;
    const std::string_view first = nextToken(line, pos);
    if (lowerCase(first) != "%%matrixmarket")
        throw DatasetError(
            file, place, "not a Matrix Market file: the first line must be the banner " + std::string(kBannerForm));
    std::array<std::string_view, 4> words;
    std::size_t count = 0;
    for (std::string_view word = nextToken(line, pos); !word.empty(); word = nextToken(line, pos))
        if (count++ < words.size())
            words[count - 1] = word;
    if (count != 4)
        throw DatasetError(file, place,
            "bad banner: " + std::to_string(count)
                + " words after %%MatrixMarket, expected 4: " + std::string(kBannerForm));

    if (lowerCase(words[0]) != "matrix")
        throw DatasetError(file, place,
            "bad banner: object " + quotedToken(words[0]) + " is not supported; only 'matrix' is ("
                + std::string(kBannerForm) + ")");
    MmHeader header;
    const std::string format = lowerCase(words[1]);
    if (format == "coordinate")
        header.format = MmFormat::Coordinate;
    else if (format == "array")
        header.format = MmFormat::Array;
    else
        throw DatasetError(
            file, place, "bad banner: unknown format " + quotedToken(words[1]) + "; expected coordinate or array");

    const std::string field = lowerCase(words[2]);
    if (field == "real" || field == "double") // "double": not in the format, but some writers use it
        header.field = MmField::Real;
    else if (field == "integer")
        header.field = MmField::Integer;
    else if (field == "pattern")
        header.field = MmField::Pattern;
    else if (field == "complex")
        throw DatasetError(file, place, "complex matrices are not supported (spmv reads real, integer and pattern)");
    else
        throw DatasetError(file, place,
            "bad banner: unknown field " + quotedToken(words[2]) + "; expected real, integer, pattern or complex");

    const std::string symmetry = lowerCase(words[3]);
    if (symmetry == "general")
        header.symmetry = MmSymmetry::General;
    else if (symmetry == "symmetric")
        header.symmetry = MmSymmetry::Symmetric;
    else if (symmetry == "skew-symmetric")
        header.symmetry = MmSymmetry::SkewSymmetric;
    else if (symmetry == "hermitian")
        throw DatasetError(
            file, place, "hermitian matrices are not supported (spmv reads general, symmetric and skew-symmetric)");
    else
        throw DatasetError(file, place,
            "bad banner: unknown symmetry " + quotedToken(words[3])
                + "; expected general, symmetric, skew-symmetric or hermitian");

    if (header.field == MmField::Pattern && header.format == MmFormat::Array)
        throw DatasetError(file, place, "'pattern' is invalid with the 'array' format: an array stores every value");
    if (header.field == MmField::Pattern && header.symmetry == MmSymmetry::SkewSymmetric)
        throw DatasetError(
            file, place, "'pattern' is invalid with 'skew-symmetric': a pattern has no values to negate");
    return header;
}

struct SizeLine {
    std::uint64_t rows = 0;
    std::uint64_t cols = 0;
    std::uint64_t entries = 0; ///< coordinate: the declared entries; array: the values the file must hold
};

SizeLine parseSizeLine(std::string_view line, const MmHeader& header, const std::string& file, std::size_t lineNumber)
{
    const bool coordinate = header.format == MmFormat::Coordinate;
    const std::string place = linePlace(lineNumber);
    const char* form = coordinate ? "'rows columns entries' for a coordinate matrix" : "'rows columns' for an array";
    const char* names[] = {"row count", "column count", "entry count"};
    const std::size_t expected = coordinate ? 3 : 2;
    std::uint64_t numbers[3] = {0, 0, 0};
    std::size_t pos = 0;
    std::size_t count = 0;
    for (std::string_view token = nextToken(line, pos); !token.empty(); token = nextToken(line, pos), ++count) {
        if (count >= expected)
            continue;
        const NumberStatus status = parseUnsigned(token, numbers[count]);
        if (status == NumberStatus::OutOfRange)
            throw DatasetError(file, place,
                "bad size line: " + std::string(names[count]) + " " + quotedToken(token) + " does not fit in 64 bits");
        if (status != NumberStatus::Ok) {
            std::int64_t negative = 0;
            if (token.front() == '-' && parseInteger(token, negative) == NumberStatus::Ok)
                throw DatasetError(
                    file, place, "bad size line: negative " + std::string(names[count]) + " " + std::string(token));
            throw DatasetError(file, place,
                "bad size line: " + std::string(names[count]) + " " + quotedToken(token)
                    + " is not a non-negative integer; expected " + form);
        }
    }
    if (count != expected)
        throw DatasetError(
            file, place, "bad size line: " + std::to_string(count) + " fields; expected " + std::string(form));

    SizeLine size {numbers[0], numbers[1], numbers[2]};
    for (int d = 0; d < 2; ++d)
        if (numbers[d] > kMaxSparseDimension)
            throw DatasetError(file, place,
                "the " + std::string(names[d]) + " " + std::to_string(numbers[d]) + " exceeds "
                    + std::to_string(kMaxSparseDimension) + ", the most a sparse matrix with 32-bit indices holds");
    if (header.symmetry != MmSymmetry::General && size.rows != size.cols)
        throw DatasetError(file, place,
            std::string(header.symmetry == MmSymmetry::Symmetric ? "a symmetric" : "a skew-symmetric")
                + " matrix must be square, but the size line says " + std::to_string(size.rows) + " × "
                + std::to_string(size.cols));
    if (!coordinate) {
        // M, N < 2^31, so none of these products overflows 64 bits.
        const std::uint64_t n = size.rows;
        if (header.symmetry == MmSymmetry::General)
            size.entries = size.rows * size.cols;
        else if (header.symmetry == MmSymmetry::Symmetric)
            size.entries = n * (n + 1) / 2;
        else
            size.entries = n == 0 ? 0 : n * (n - 1) / 2;
    }
    return size;
}

/// Coordinate triplets as the reader collects them, 0-based.
struct Triplets {
    std::vector<std::int64_t> rows;
    std::vector<std::int32_t> cols;
    std::vector<double> values;

    void reserve(std::uint64_t n)
    {
        rows.reserve(n);
        cols.reserve(n);
        values.reserve(n);
    }
    void push(std::uint64_t r, std::uint64_t c, double v)
    {
        rows.push_back(static_cast<std::int64_t>(r));
        cols.push_back(static_cast<std::int32_t>(c));
        values.push_back(v);
    }
};

/// Parses one value token of an entry; throws naming the line and field.
class ValueParser {
public:
    ValueParser(MmField field, const ReadOptions& options, const std::string& file)
        : m_field(field)
        , m_options(options)
        , m_file(file)
    {
    }

    double operator()(std::string_view token, std::size_t line, std::size_t column) const
    {
        if (m_field == MmField::Integer) {
            std::int64_t integer = 0;
            switch (parseInteger(token, integer)) {
            case NumberStatus::Ok:
                return static_cast<double>(integer);
            case NumberStatus::NotAnInteger:
                throw DatasetError(m_file, linePlace(line, column),
                    "value " + quotedToken(token) + " is not an integer, but the banner declares an integer matrix");
            case NumberStatus::OutOfRange:
                throw DatasetError(m_file, linePlace(line, column),
                    "integer value " + quotedToken(token) + " does not fit in 64 bits");
            default:
                throw DatasetError(m_file, linePlace(line, column), "value " + quotedToken(token) + " is not a number");
            }
        }
        double value = 0;
        switch (parseReal(token, value)) {
        case NumberStatus::Ok:
            break;
        case NumberStatus::OutOfRange:
            throw DatasetError(
                m_file, linePlace(line, column), "value " + quotedToken(token) + " is out of the range of a double");
        default:
            throw DatasetError(m_file, linePlace(line, column), "value " + quotedToken(token) + " is not a number");
        }
        if (!m_options.allowNonFinite && !std::isfinite(value))
            throw DatasetError(m_file, linePlace(line, column),
                std::string(std::isnan(value) ? "value NaN" : "an infinite value") + kNonFiniteHint);
        return value;
    }

private:
    MmField m_field;
    const ReadOptions& m_options;
    const std::string& m_file;
};

std::uint64_t parseIndex(std::string_view token, std::uint64_t dimension, const char* what, const std::string& file,
    std::size_t line, std::size_t column)
{
    std::uint64_t index = 0;
    const NumberStatus status = parseUnsigned(token, index);
    if (status == NumberStatus::Ok && index >= 1 && index <= dimension)
        return index - 1;
    if (status == NumberStatus::NotANumber) {
        std::int64_t negative = 0;
        if (parseInteger(token, negative) != NumberStatus::Ok)
            throw DatasetError(file, linePlace(line, column),
                std::string(what) + " index " + quotedToken(token) + " is not a positive integer");
    }
    const std::string range = dimension == 0 ? std::string("range: the matrix has no ") + what + "s"
                                             : "range 1.." + std::to_string(dimension);
    throw DatasetError(file, linePlace(line, column),
        std::string(what) + " index " + std::string(token) + " is out of " + range
            + " (Matrix Market indices are 1-based)");
}

void readCoordinateEntries(LineCursor& lines, const MmHeader& header, const SizeLine& size, std::size_t sizeLine,
    const ValueParser& parseValue, const std::string& file, Triplets& triplets, std::uint64_t& mirrored)
{
    const bool pattern = header.field == MmField::Pattern;
    const std::size_t fields = pattern ? 2 : 3;
    const char* form = pattern ? "(row, column)" : "(row, column, value)";
    const bool symmetric = header.symmetry != MmSymmetry::General;
    const bool skew = header.symmetry == MmSymmetry::SkewSymmetric;
    std::uint64_t found = 0;
    std::string_view line;
    while (lines.next(line)) {
        std::size_t pos = 0;
        const std::string_view rowToken = nextToken(line, pos);
        if (rowToken.empty() || rowToken.front() == '%')
            continue;
        const std::size_t lineNumber = lines.number();
        if (found == size.entries)
            throw DatasetError(file, linePlace(lineNumber),
                "more entries than the " + std::to_string(size.entries) + " the size line (line "
                    + std::to_string(sizeLine) + ") declares");
        const std::string_view colToken = nextToken(line, pos);
        const std::string_view valueToken = pattern ? std::string_view() : nextToken(line, pos);
        std::size_t count = colToken.empty() ? 1 : (pattern || !valueToken.empty()) ? fields : 2;
        if (count == fields)
            while (!nextToken(line, pos).empty())
                ++count;
        if (count != fields) {
            if (!pattern && count == 2)
                throw DatasetError(file, linePlace(lineNumber),
                    std::string("missing value: 2 fields, expected 3 (row, column, value) in ")
                        + (header.field == MmField::Integer ? "an integer" : "a real") + " matrix");
            throw DatasetError(file, linePlace(lineNumber),
                std::to_string(count) + " fields, expected " + std::to_string(fields) + " " + form);
        }
        const std::uint64_t r = parseIndex(rowToken, size.rows, "row", file, lineNumber, 1);
        const std::uint64_t c = parseIndex(colToken, size.cols, "column", file, lineNumber, 2);
        const double v = pattern ? 1.0 : parseValue(valueToken, lineNumber, 3);
        if (skew && r == c)
            throw DatasetError(file, linePlace(lineNumber),
                "diagonal entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1)
                    + ") in a skew-symmetric matrix, whose diagonal is zero and not stored");
        triplets.push(r, c, v);
        if (symmetric && r != c) {
            triplets.push(c, r, skew ? -v : v);
            ++mirrored;
        }
        ++found;
    }
    if (found < size.entries)
        throw DatasetError(file, "end of file",
            "found " + std::to_string(found) + " entries, but the size line (line " + std::to_string(sizeLine)
                + ") declares " + std::to_string(size.entries));
}

void readArrayValues(LineCursor& lines, const MmHeader& header, const SizeLine& size, std::size_t sizeLine,
    const ValueParser& parseValue, const std::string& file, Triplets& triplets, std::uint64_t& mirrored,
    std::uint64_t& zeros)
{
    const bool symmetric = header.symmetry != MmSymmetry::General;
    const bool skew = header.symmetry == MmSymmetry::SkewSymmetric;
    // Column-major; symmetric arrays hold the lower triangle with the diagonal, skew-symmetric ones without it.
    std::uint64_t r = skew ? 1 : 0;
    std::uint64_t c = 0;
    std::uint64_t found = 0;
    const char* what = header.symmetry == MmSymmetry::General ? ""
        : skew                                                ? " (the strict lower triangle, column by column)"
                                                              : " (the lower triangle, column by column)";
    std::string_view line;
    while (lines.next(line)) {
        std::size_t pos = 0;
        std::size_t column = 0;
        for (std::string_view token = nextToken(line, pos); !token.empty(); token = nextToken(line, pos)) {
            if (column == 0 && token.front() == '%')
                break;
            ++column;
            if (found == size.entries)
                throw DatasetError(file, linePlace(lines.number()),
                    "more values than the " + std::to_string(size.entries) + " a " + std::to_string(size.rows) + " × "
                        + std::to_string(size.cols) + " array" + what + " holds (size line " + std::to_string(sizeLine)
                        + ")");
            const double v = parseValue(token, lines.number(), column);
            if (v == 0) {
                ++zeros;
            } else {
                triplets.push(r, c, v);
                if (symmetric && r != c) {
                    triplets.push(c, r, skew ? -v : v);
                    ++mirrored;
                }
            }
            ++found;
            if (++r == size.rows) {
                ++c;
                r = symmetric ? c + (skew ? 1 : 0) : 0;
            }
        }
    }
    if (found < size.entries)
        throw DatasetError(file, "end of file",
            "found " + std::to_string(found) + " values, but a " + std::to_string(size.rows) + " × "
                + std::to_string(size.cols) + " array" + what + " holds " + std::to_string(size.entries)
                + " (size line " + std::to_string(sizeLine) + ")");
}

} // namespace

CsrMatrix readMatrixMarket(const std::string& path, const ReadOptions& options)
{
    std::string text = readTextFile(path);
    const std::string_view view = withoutBom(text);
    LineCursor lines(view);
    std::string_view line;
    if (std::all_of(view.begin(), view.end(), [](char c) { return isBlank(c) || c == '\n'; }))
        throw DatasetError(path, "", "empty file: no %%MatrixMarket banner");
    lines.next(line);
    const MmHeader header = parseBanner(line, path);

    bool haveSizeLine = false;
    while (lines.next(line)) {
        std::size_t pos = 0;
        const std::string_view first = nextToken(line, pos);
        if (first.empty() || first.front() == '%')
            continue;
        haveSizeLine = true;
        break;
    }
    if (!haveSizeLine)
        throw DatasetError(path, "end of file", "no size line after the banner");
    const std::size_t sizeLine = lines.number();
    const SizeLine size = parseSizeLine(line, header, path, sizeLine);

    // Validate before allocating: the triplets (8 + 4 + 8 bytes), then the CSR (4 + 8 per entry, two row-pointer
    // arrays) — each entry of a symmetric file may become two.
    const bool symmetric = header.symmetry != MmSymmetry::General;
    const std::uint64_t stored = header.format == MmFormat::Array ? saturatingMul(size.rows, size.cols) : size.entries;
    const std::uint64_t expanded
        = header.format == MmFormat::Coordinate && symmetric ? saturatingMul(size.entries, 2) : stored;
    const std::uint64_t bytes
        = saturatingAdd(saturatingMul(expanded, 8 + 4 + 8 + 4 + 8), saturatingMul(saturatingAdd(size.rows, 1), 2 * 8));
    std::string what = header.format == MmFormat::Coordinate
        ? "the " + std::to_string(size.entries) + " entries the size line declares"
            + (symmetric ? " (up to " + std::to_string(expanded) + " after expanding the symmetry)" : "")
        : "a " + std::to_string(size.rows) + " × " + std::to_string(size.cols) + " array";
    requireHostMemory(bytes, path, linePlace(sizeLine), what);

    // Reserve no more than the rest of the text can hold, so a truncated file cannot make us allocate its promise:
    // an entry takes at least 4 bytes ("1 1\n"), an array value 2 ("1\n").
    Triplets triplets;
    const std::uint64_t holdable = lines.remainingBytes() / (header.format == MmFormat::Coordinate ? 4 : 2) + 1;
    triplets.reserve(std::min(std::min(size.entries, holdable) * (symmetric ? 2 : 1), expanded));

    const ValueParser parseValue(header.field, options, path);
    std::uint64_t mirrored = 0;
    std::uint64_t zeros = 0;
    if (header.format == MmFormat::Coordinate)
        readCoordinateEntries(lines, header, size, sizeLine, parseValue, path, triplets, mirrored);
    else
        readArrayValues(lines, header, size, sizeLine, parseValue, path, triplets, mirrored, zeros);
    std::string().swap(text);

    std::uint64_t duplicates = 0;
    CsrMatrix matrix
        = csrFromTriplets(size.rows, size.cols, triplets.rows, triplets.cols, triplets.values, &duplicates);
    matrix.storedType = header.field == MmField::Real ? "float64"
        : header.field == MmField::Integer            ? "integer"
                                                      : "pattern";
    if (header.symmetry == MmSymmetry::Symmetric)
        matrix.notes.push_back(
            "symmetric: expanded to the full matrix (" + plural(mirrored, "mirrored entry", "mirrored entries") + ")");
    else if (header.symmetry == MmSymmetry::SkewSymmetric)
        matrix.notes.push_back("skew-symmetric: expanded to the full matrix ("
            + plural(mirrored, "mirrored entry", "mirrored entries") + ", negated)");
    if (duplicates > 0)
        matrix.notes.push_back(plural(duplicates, "duplicate entry", "duplicate entries") + " summed");
    if (zeros > 0)
        matrix.notes.push_back(
            "array: " + plural(zeros, "zero value", "zero values") + " left out of the sparse structure");
    return matrix;
}

void writeMatrixMarket(const std::string& path, const CsrMatrix& matrix)
{
    validateCsr(matrix, path);
    writeFileAtomically(path, [&](AtomicFile& file) {
        std::ostream& out = file.stream();
        out << "%%MatrixMarket matrix coordinate real general\n% written by KernelScope\n"
            << matrix.rows << ' ' << matrix.cols << ' ' << matrix.nnz() << '\n';
        char entry[96];
        for (std::uint64_t r = 0; r < matrix.rows && !file.failed(); ++r)
            for (std::int64_t k = matrix.rowPtr[r]; k < matrix.rowPtr[r + 1]; ++k) {
                const int length = std::snprintf(entry, sizeof entry, "%llu %d %.17g\n",
                    static_cast<unsigned long long>(r + 1), matrix.colIdx[k] + 1, matrix.values[k]);
                out.write(entry, length);
            }
    });
}

} // namespace ks::data
