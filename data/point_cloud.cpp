// Point clouds, the sdh workload's dataset: XYZ (multi-frame), PDB (fixed columns, MODEL/ENDMDL), PLY (ascii and
// binary of either byte order, "PLY — Polygon File Format", Turk 1994), plain x y z text and HDF5 N × 3 or
// frames × N × 3 readers, the HDF5 writer, the generators and the dataset with its metadata.

#include "data/point_cloud.h"

#include "data/dataset_error.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/host_memory.h"
#include "data/line_cursor.h"
#include "data/number_text.h"
#include "data/random.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace ks::data {

namespace {

constexpr const char* kGenerator = "generator";
constexpr const char* kAxisNames[3] = {"x", "y", "z"};
/// How many dataset names an HDF5 error lists before "and N more".
constexpr std::size_t kNamesListed = 8;

/// The next line of `lines` that is not blank; false at the end of the text.
bool nextNonBlank(LineCursor& lines, std::string_view& line)
{
    while (lines.next(line))
        if (!trimmed(line).empty())
            return true;
    return false;
}

/// Splits a line into blank-separated tokens, keeping the first `N` and counting all.
template <std::size_t N> std::size_t tokens(std::string_view line, std::array<std::string_view, N>& out)
{
    std::size_t count = 0;
    std::size_t pos = 0;
    for (std::string_view t = nextToken(line, pos); !t.empty(); t = nextToken(line, pos))
        if (count++ < N)
            out[count - 1] = t;
    return count;
}

bool isNumber(std::string_view token)
{
    double ignored = 0;
    return parseReal(token, ignored) == NumberStatus::Ok;
}

[[noreturn]] void nonFinite(double value, int axis, const std::string& file, const std::string& place)
{
    throw DatasetError(file, place,
        std::string(kAxisNames[axis]) + " coordinate is " + (std::isnan(value) ? "NaN" : "infinite") + kNonFiniteHint);
}

bool rejected(double value, const ReadOptions& options)
{
    return !options.allowNonFinite && !std::isfinite(value);
}

/// One coordinate of a text format at `line`, `column` (a field number, or a character column for PDB); DatasetError
/// naming the place when it is empty, not a number, out of range or (not allowed) non-finite. The place is only
/// formatted on failure: this runs millions of times.
double parseCoordinate(std::string_view token, int axis, const std::string& file, std::size_t line, std::size_t column,
    const ReadOptions& options)
{
    double value = 0;
    const NumberStatus status = parseReal(token, value);
    if (status == NumberStatus::Ok && !rejected(value, options))
        return value;
    const std::string place = linePlace(line, column);
    const std::string name = std::string(kAxisNames[axis]) + " coordinate";
    if (token.empty())
        throw DatasetError(file, place, name + " is empty");
    if (status == NumberStatus::NotANumber)
        throw DatasetError(file, place, name + " " + quotedToken(token) + " is not a number");
    if (status == NumberStatus::OutOfRange)
        throw DatasetError(file, place, name + " " + quotedToken(token) + " is out of the range of a double");
    nonFinite(value, axis, file, place);
}

/// ReadOptions::params["frame"], 1 when absent.
std::uint64_t frameParam(const ReadOptions& options, const std::string& file)
{
    const auto it = options.params.find("frame");
    if (it == options.params.end())
        return 1;
    const std::string_view s = trimmed(it->second);
    std::uint64_t frame = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), frame);
    if (ec != std::errc() || ptr != s.data() + s.size() || frame == 0)
        throw DatasetError(
            file, "parameter frame", quotedToken(it->second) + " is not a frame number (a whole number from 1)");
    return frame;
}

/// Formats with one frame take frame = 1 (the default) and refuse any other.
void requireSingleFrame(const ReadOptions& options, const std::string& file, const char* format)
{
    const std::uint64_t frame = frameParam(options, file);
    if (frame != 1)
        throw DatasetError(file, "parameter frame",
            "frame " + std::to_string(frame) + " requested, but " + format + " holds a single frame");
}

/// Reserves room for `count` points after checking the memory (three doubles each); `plausible` caps the reservation
/// where the count comes from the file (a header cannot make the reader allocate more than the file could hold).
void reservePoints(
    PointCloud& cloud, std::uint64_t count, std::uint64_t plausible, const std::string& file, const std::string& place)
{
    const std::uint64_t reserve = std::min(count, plausible);
    requireHostMemory(saturatingMul(reserve, 3 * sizeof(double)), file, place, "reading " + plural(count, "point"));
    cloud.x.reserve(reserve);
    cloud.y.reserve(reserve);
    cloud.z.reserve(reserve);
}

void push(PointCloud& cloud, double x, double y, double z)
{
    cloud.x.push_back(x);
    cloud.y.push_back(y);
    cloud.z.push_back(z);
}

// --- plain text -------------------------------------------------------------------------------------------------

/// `x y z` rows, blank or comma separated (decided per line), # comments, a first line of names skipped.
PointCloud parsePointText(std::string_view text, const std::string& file, const ReadOptions& options)
{
    text = withoutBom(text);
    PointCloud cloud;
    cloud.storedType = "text";
    reservePoints(cloud, static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1,
        std::numeric_limits<std::uint64_t>::max(), file, "");
    LineCursor lines(text);
    std::string_view line;
    bool firstRow = true;
    std::array<std::string_view, 3> fields;
    while (lines.next(line)) {
        const std::string_view body = trimmed(line);
        if (body.empty() || body.front() == '#')
            continue;
        std::size_t count = 0;
        if (body.find(',') != std::string_view::npos) {
            std::size_t start = 0;
            for (;;) {
                const std::size_t comma = body.find(',', start);
                const std::string_view field
                    = trimmed(body.substr(start, comma == std::string_view::npos ? comma : comma - start));
                if (count++ < fields.size())
                    fields[count - 1] = field;
                if (comma == std::string_view::npos)
                    break;
                start = comma + 1;
            }
        } else {
            count = tokens(body, fields);
        }
        if (firstRow) {
            firstRow = false;
            if (!isNumber(fields[0]) && !fields[0].empty())
                continue; // a header of names
        }
        const std::size_t number = lines.number();
        if (count < 3)
            throw DatasetError(
                file, linePlace(number), "short line: " + plural(count, "field") + ", expected 3 (x y z)");
        if (count > 3)
            throw DatasetError(file, linePlace(number), std::to_string(count) + " fields, expected 3 (x y z)");
        double v[3];
        for (int a = 0; a < 3; ++a)
            v[a] = parseCoordinate(fields[a], a, file, number, static_cast<std::size_t>(a) + 1, options);
        push(cloud, v[0], v[1], v[2]);
    }
    if (cloud.size() == 0)
        throw DatasetError(
            file, "", text.empty() ? "empty file: no points" : "no points (only blank, comment and header lines)");
    cloud.x.shrink_to_fit();
    cloud.y.shrink_to_fit();
    cloud.z.shrink_to_fit();
    return cloud;
}

// --- PLY --------------------------------------------------------------------------------------------------------

enum class PlyType { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

struct PlyTypeName {
    const char* name;
    PlyType type;
};

constexpr PlyTypeName kPlyTypes[] = {
    {"char", PlyType::Int8},
    {"uchar", PlyType::UInt8},
    {"short", PlyType::Int16},
    {"ushort", PlyType::UInt16},
    {"int", PlyType::Int32},
    {"uint", PlyType::UInt32},
    {"float", PlyType::Float32},
    {"double", PlyType::Float64},
    {"int8", PlyType::Int8},
    {"uint8", PlyType::UInt8},
    {"int16", PlyType::Int16},
    {"uint16", PlyType::UInt16},
    {"int32", PlyType::Int32},
    {"uint32", PlyType::UInt32},
    {"float32", PlyType::Float32},
    {"float64", PlyType::Float64},
};

const char* canonicalName(PlyType type)
{
    constexpr const char* kNames[] = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
    return kNames[static_cast<int>(type)];
}

std::size_t sizeOf(PlyType type)
{
    constexpr std::size_t kSizes[] = {1, 1, 2, 2, 4, 4, 4, 8};
    return kSizes[static_cast<int>(type)];
}

std::optional<PlyType> plyType(std::string_view name)
{
    for (const auto& t : kPlyTypes)
        if (name == t.name)
            return t.type;
    return std::nullopt;
}

struct PlyProperty {
    std::string name;
    PlyType type = PlyType::Float32; ///< the value type, or a list's item type
    bool isList = false;
    PlyType countType = PlyType::UInt8;
};

struct PlyElement {
    std::string name;
    std::uint64_t count = 0;
    std::vector<PlyProperty> properties;
    std::size_t line = 0;

    /// Bytes per item in a binary body, 0 when a list property makes items vary.
    std::uint64_t fixedSize() const
    {
        std::uint64_t size = 0;
        for (const auto& p : properties) {
            if (p.isList)
                return 0;
            size += sizeOf(p.type);
        }
        return size;
    }
};

enum class PlyFormat { Ascii, BinaryLittleEndian, BinaryBigEndian };

struct PlyHeader {
    PlyFormat format = PlyFormat::Ascii;
    std::vector<PlyElement> elements;
    std::size_t bodyOffset = 0; ///< the byte after end_header's line break
    std::size_t bodyLine = 0; ///< the line number of the first body line (ascii)
};

PlyHeader parsePlyHeader(std::string_view bytes, const std::string& file)
{
    LineCursor lines(bytes);
    std::string_view line;
    if (!lines.next(line) || trimmed(line) != "ply")
        throw DatasetError(file, linePlace(1), "not a PLY file: the first line must be 'ply'");
    PlyHeader header;
    bool haveFormat = false;
    std::array<std::string_view, 5> t;
    while (lines.next(line)) {
        const std::size_t number = lines.number();
        const std::size_t count = tokens(line, t);
        if (count == 0)
            continue;
        const std::string_view keyword = t[0];
        if (keyword == "comment" || keyword == "obj_info")
            continue;
        if (keyword == "end_header") {
            if (!haveFormat)
                throw DatasetError(file, linePlace(number), "the header has no format line before end_header");
            header.bodyOffset = lines.position();
            header.bodyLine = number + 1;
            return header;
        }
        if (keyword == "format") {
            if (count != 3)
                throw DatasetError(file, linePlace(number),
                    "bad format line: expected 'format <ascii|binary_little_endian|binary_big_endian> 1.0'");
            if (t[1] == "ascii")
                header.format = PlyFormat::Ascii;
            else if (t[1] == "binary_little_endian")
                header.format = PlyFormat::BinaryLittleEndian;
            else if (t[1] == "binary_big_endian")
                header.format = PlyFormat::BinaryBigEndian;
            else
                throw DatasetError(file, linePlace(number),
                    "unknown format " + quotedToken(t[1])
                        + "; expected ascii, binary_little_endian or binary_big_endian");
            haveFormat = true;
        } else if (keyword == "element") {
            if (count != 3)
                throw DatasetError(file, linePlace(number), "bad element line: expected 'element <name> <count>'");
            PlyElement element;
            element.name = std::string(t[1]);
            element.line = number;
            const auto [ptr, ec] = std::from_chars(t[2].data(), t[2].data() + t[2].size(), element.count);
            if (ec != std::errc() || ptr != t[2].data() + t[2].size())
                throw DatasetError(file, linePlace(number, 3),
                    "element count " + quotedToken(t[2]) + " is not a non-negative whole number");
            header.elements.push_back(std::move(element));
        } else if (keyword == "property") {
            if (header.elements.empty())
                throw DatasetError(file, linePlace(number), "a property line before any element line");
            PlyProperty property;
            auto typeAt = [&](std::size_t index) {
                const auto type = plyType(t[index]);
                if (!type)
                    throw DatasetError(file, linePlace(number, index + 1),
                        "unknown property type " + quotedToken(t[index])
                            + "; expected char, uchar, short, ushort, int, uint, float, double or int8 ... float64");
                return *type;
            };
            if (count >= 2 && t[1] == "list") {
                if (count != 5)
                    throw DatasetError(file, linePlace(number),
                        "bad list property line: expected 'property list <count type> <item type> <name>'");
                property.isList = true;
                property.countType = typeAt(2);
                if (property.countType == PlyType::Float32 || property.countType == PlyType::Float64)
                    throw DatasetError(
                        file, linePlace(number, 3), "a list's count type must be an integer type, not float");
                property.type = typeAt(3);
                property.name = std::string(t[4]);
            } else {
                if (count != 3)
                    throw DatasetError(file, linePlace(number), "bad property line: expected 'property <type> <name>'");
                property.type = typeAt(1);
                property.name = std::string(t[2]);
            }
            header.elements.back().properties.push_back(std::move(property));
        } else {
            throw DatasetError(file, linePlace(number), "unknown header keyword " + quotedToken(keyword));
        }
    }
    throw DatasetError(file, "end of file", "the header has no end_header line");
}

/// A binary value at `p` of `type` in the file's byte order, as double.
double binaryValue(const unsigned char* p, PlyType type, bool swap)
{
    switch (type) {
    case PlyType::Int8:
        return static_cast<double>(static_cast<std::int8_t>(p[0]));
    case PlyType::UInt8:
        return static_cast<double>(p[0]);
    case PlyType::Int16:
    case PlyType::UInt16: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        if (swap)
            v = __builtin_bswap16(v);
        return type == PlyType::Int16 ? static_cast<double>(static_cast<std::int16_t>(v)) : static_cast<double>(v);
    }
    case PlyType::Int32:
    case PlyType::UInt32:
    case PlyType::Float32: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        if (swap)
            v = __builtin_bswap32(v);
        if (type == PlyType::Float32)
            return static_cast<double>(std::bit_cast<float>(v));
        return type == PlyType::Int32 ? static_cast<double>(static_cast<std::int32_t>(v)) : static_cast<double>(v);
    }
    case PlyType::Float64: {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        if (swap)
            v = __builtin_bswap64(v);
        return std::bit_cast<double>(v);
    }
    }
    return 0.0;
}

/// Where x, y and z are among the vertex element's properties.
std::array<std::size_t, 3> vertexAxes(const PlyElement& vertex, const std::string& file)
{
    std::array<std::size_t, 3> index {};
    for (int a = 0; a < 3; ++a) {
        const auto it = std::find_if(vertex.properties.begin(), vertex.properties.end(),
            [&](const PlyProperty& p) { return p.name == kAxisNames[a]; });
        if (it == vertex.properties.end()) {
            std::string names;
            for (const auto& p : vertex.properties)
                names += (names.empty() ? "" : ", ") + p.name;
            throw DatasetError(file, linePlace(vertex.line),
                std::string("the vertex element has no property ") + kAxisNames[a] + " (it has "
                    + (names.empty() ? std::string("none") : names) + ")");
        }
        if (it->isList)
            throw DatasetError(file, linePlace(vertex.line),
                std::string("the vertex property ") + kAxisNames[a] + " is a list; expected a number");
        index[a] = static_cast<std::size_t>(it - vertex.properties.begin());
    }
    return index;
}

/// Reads a binary body: skips the elements before the vertex element (walking list properties item by item), then
/// reads the vertices; elements after it are never touched.
void readPlyBinary(std::string_view bytes, const PlyHeader& header, std::size_t vertexIndex,
    const std::array<std::size_t, 3>& axes, const std::string& file, const ReadOptions& options, PointCloud& cloud)
{
    const bool swap = (header.format == PlyFormat::BinaryBigEndian) != (std::endian::native == std::endian::big);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::uint64_t size = bytes.size();
    std::uint64_t offset = header.bodyOffset;
    auto truncated = [&](const PlyElement& e, std::uint64_t item) {
        throw DatasetError(file, "byte " + std::to_string(offset),
            "the body ends inside " + e.name + " " + std::to_string(item) + " of " + std::to_string(e.count)
                + " (the file is truncated, or its header declares more than it holds)");
    };
    /// Steps over one item's property `p`, reading its value when `value` is given.
    auto step = [&](const PlyElement& e, std::uint64_t item, const PlyProperty& p, double* value) {
        if (!p.isList) {
            const std::size_t n = sizeOf(p.type);
            if (size - offset < n)
                truncated(e, item);
            if (value)
                *value = binaryValue(data + offset, p.type, swap);
            offset += n;
            return;
        }
        const std::size_t countSize = sizeOf(p.countType);
        if (size - offset < countSize)
            truncated(e, item);
        const double length = binaryValue(data + offset, p.countType, swap);
        if (length < 0)
            throw DatasetError(file, "byte " + std::to_string(offset),
                "negative list length " + std::to_string(static_cast<long long>(length)) + " in property " + p.name
                    + " of " + e.name + " " + std::to_string(item));
        offset += countSize;
        const std::uint64_t skip = saturatingMul(static_cast<std::uint64_t>(length), sizeOf(p.type));
        if (size - offset < skip)
            truncated(e, item);
        offset += skip;
    };

    for (std::size_t k = 0; k < vertexIndex; ++k) {
        const PlyElement& e = header.elements[k];
        if (const std::uint64_t fixed = e.fixedSize(); fixed > 0) {
            const std::uint64_t skip = saturatingMul(fixed, e.count);
            if (size - offset < skip)
                truncated(e, (size - offset) / fixed);
            offset += skip;
            continue;
        }
        for (std::uint64_t item = 0; item < e.count; ++item)
            for (const auto& p : e.properties)
                step(e, item, p, nullptr);
    }

    const PlyElement& vertex = header.elements[vertexIndex];
    // A fixed-size vertex element must fit in the bytes left before anything is allocated.
    if (const std::uint64_t fixed = vertex.fixedSize(); fixed > 0 && size - offset < saturatingMul(fixed, vertex.count))
        throw DatasetError(file, "byte " + std::to_string(offset),
            "the body holds " + std::to_string(size - offset) + " bytes after the elements before it, but "
                + plural(vertex.count, "vertex", "vertices") + " of " + std::to_string(fixed) + " bytes need "
                + std::to_string(fixed * vertex.count) + " (the file is truncated?)");
    reservePoints(cloud, vertex.count, (size - offset) / 3 + 1, file, linePlace(vertex.line));
    std::vector<int> axisOf(vertex.properties.size(), -1);
    for (int a = 0; a < 3; ++a)
        axisOf[axes[static_cast<std::size_t>(a)]] = a;
    for (std::uint64_t item = 0; item < vertex.count; ++item) {
        const std::uint64_t start = offset;
        double v[3] = {0, 0, 0};
        for (std::size_t k = 0; k < vertex.properties.size(); ++k)
            step(vertex, item, vertex.properties[k], axisOf[k] >= 0 ? &v[axisOf[k]] : nullptr);
        for (int a = 0; a < 3; ++a)
            if (rejected(v[a], options))
                nonFinite(v[a], a, file, "vertex " + std::to_string(item) + " (byte " + std::to_string(start) + ")");
        push(cloud, v[0], v[1], v[2]);
    }
}

void readPlyAscii(std::string_view bytes, const PlyHeader& header, std::size_t vertexIndex,
    const std::array<std::size_t, 3>& axes, const std::string& file, const ReadOptions& options, PointCloud& cloud)
{
    const std::string_view body = bytes.substr(header.bodyOffset);
    LineCursor lines(body);
    const std::size_t lineBase = header.bodyLine - 1;
    std::string_view line;
    // One item per line (every ascii writer does so); items of the elements before the vertices are not looked at.
    for (std::size_t k = 0; k < vertexIndex; ++k) {
        const PlyElement& e = header.elements[k];
        for (std::uint64_t item = 0; item < e.count; ++item)
            if (!nextNonBlank(lines, line))
                throw DatasetError(file, "end of file",
                    "the body ends after " + std::to_string(item) + " of the " + std::to_string(e.count) + " " + e.name
                        + " items");
    }
    const PlyElement& vertex = header.elements[vertexIndex];
    reservePoints(cloud, vertex.count, lines.remainingBytes() / 6 + 1, file, linePlace(vertex.line));
    std::vector<int> axisOf(vertex.properties.size(), -1);
    for (int a = 0; a < 3; ++a)
        axisOf[axes[static_cast<std::size_t>(a)]] = a;
    for (std::uint64_t item = 0; item < vertex.count; ++item) {
        if (!nextNonBlank(lines, line))
            throw DatasetError(file, "end of file",
                "the body ends after " + std::to_string(item) + " of the " + plural(vertex.count, "vertex", "vertices")
                    + " the header declares");
        const std::size_t number = lineBase + lines.number();
        std::size_t pos = 0;
        std::size_t field = 0;
        auto nextValue = [&]() {
            const std::string_view token = nextToken(line, pos);
            ++field;
            if (token.empty())
                throw DatasetError(file, linePlace(number),
                    "vertex " + std::to_string(item) + ": the line ends at value " + std::to_string(field)
                        + ", before the vertex element's properties are all given");
            return token;
        };
        double v[3] = {0, 0, 0};
        for (std::size_t k = 0; k < vertex.properties.size(); ++k) {
            const PlyProperty& p = vertex.properties[k];
            const std::string_view token = nextValue();
            if (axisOf[k] >= 0) {
                v[axisOf[k]] = parseCoordinate(token, axisOf[k], file, number, field, options);
            } else if (p.isList) {
                std::uint64_t length = 0;
                const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), length);
                if (ec != std::errc() || ptr != token.data() + token.size())
                    throw DatasetError(file, linePlace(number, field),
                        "list length " + quotedToken(token) + " of property " + p.name
                            + " is not a non-negative whole number");
                for (std::uint64_t i = 0; i < length; ++i)
                    nextValue();
            }
        }
        if (!nextToken(line, pos).empty())
            throw DatasetError(file, linePlace(number),
                "vertex " + std::to_string(item) + ": more values than the vertex element's "
                    + std::to_string(vertex.properties.size())
                    + (vertex.properties.size() == 1 ? " property" : " properties") + " hold");
        push(cloud, v[0], v[1], v[2]);
    }
}

// --- HDF5 -------------------------------------------------------------------------------------------------------

std::string extents(const std::vector<std::uint64_t>& dims)
{
    std::string text;
    for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i == 0 ? "" : " × ") + std::to_string(dims[i]);
    return text.empty() ? "a scalar" : text;
}

bool isPointShape(const h5::DatasetInfo& d)
{
    return (d.isFloat || d.isInteger) && (d.dims.size() == 2 || d.dims.size() == 3) && d.dims.back() == 3;
}

/// The dataset to read: ReadOptions::h5Path (a dataset, or a group to search), else the only N × 3 or
/// frames × N × 3 numeric dataset; a file holding one dataset of another shape reads it, so the error names it.
std::string choosePoints(const h5::File& file, const ReadOptions& options)
{
    const h5::DatasetSearch search = h5::searchDatasets(file, options.h5Path, isPointShape);
    if (!search.chosen.empty())
        return search.chosen;
    if (search.fitting.size() > 1) {
        std::vector<std::string> paths;
        for (const auto& d : search.fitting)
            paths.push_back(d.path);
        file.fail("",
            "several N × 3 datasets in " + search.where() + " (" + listing(paths, kNamesListed)
                + "); choose one with --h5-path");
    }
    if (search.all.size() == 1)
        return search.all.front().path;
    std::vector<std::string> all;
    for (const auto& d : search.all)
        all.push_back(d.path + " (" + d.type + " " + extents(d.dims) + ")");
    file.fail("",
        "no N × 3 or frames × N × 3 numeric dataset in " + search.where() + " (it has "
            + (all.empty() ? std::string("no datasets") : listing(all, kNamesListed)) + ")");
}

// --- generators -------------------------------------------------------------------------------------------------

// CounterRng streams: coordinate a of point i is a function of (seed, stream + a, i) only, so the cloud is the same
// for any thread count. normal(s) draws from streams 2s and 2s + 1, hence the spacing.
constexpr std::uint64_t kUniformStream = 1; // uniform, streams 1..3, index = point
constexpr std::uint64_t kCentreStream = 8; // uniform, streams 8..10, index = cluster
constexpr std::uint64_t kMemberStream = 12; // uniform, index = point: its cluster
constexpr std::uint64_t kOffsetStream = 16; // normal(): streams 32..37, index = point

void checkGenerator(const CloudGenerator& g)
{
    if (g.points < 1)
        throw DatasetError(kGenerator, "points", "must be at least 1");
    if (!std::isfinite(g.box) || !(g.box > 0.0))
        throw DatasetError(kGenerator, "box", "must be positive and finite, got " + formatNumber(g.box));
    if (g.shape == CloudShape::GaussianClusters) {
        if (g.clusters < 1)
            throw DatasetError(kGenerator, "clusters", "must be at least 1");
        if (!std::isfinite(g.spread) || g.spread < 0.0)
            throw DatasetError(kGenerator, "spread", "must be non-negative and finite, got " + formatNumber(g.spread));
    }
}

} // namespace

// --- readers ----------------------------------------------------------------------------------------------------

PointCloud readPointText(const std::string& path, const ReadOptions& options)
{
    requireSingleFrame(options, path, "a plain text file");
    const std::string text = readTextFile(path);
    return parsePointText(text, path, options);
}

PointCloud readXyz(const std::string& path, const ReadOptions& options)
{
    const std::uint64_t wanted = frameParam(options, path);
    const std::string bytes = readTextFile(path);
    const std::string_view text = withoutBom(bytes);
    LineCursor lines(text);
    std::string_view line;
    if (!nextNonBlank(lines, line))
        throw DatasetError(path, "", "empty file: no atom count line");
    {
        // Sniff: a first line of three numbers (or more) is headerless x y z text.
        std::array<std::string_view, 3> t;
        if (tokens(line, t) >= 3 && isNumber(t[0]) && isNumber(t[1]) && isNumber(t[2])) {
            requireSingleFrame(options, path, "a headerless x y z file");
            return parsePointText(text, path, options);
        }
    }

    PointCloud cloud;
    cloud.storedType = "text";
    std::uint64_t frames = 0;
    std::uint64_t previousCount = 0;
    std::size_t previousCountLine = 0;
    std::size_t chosenCountLine = 0;
    std::array<std::string_view, 4> t;
    LineCursor cursor(text);
    while (nextNonBlank(cursor, line)) {
        const std::size_t countLine = cursor.number();
        const std::size_t fields = tokens(line, t);
        std::uint64_t count = 0;
        const auto [ptr, ec] = std::from_chars(t[0].data(), t[0].data() + t[0].size(), count);
        if (fields != 1 || ec != std::errc() || ptr != t[0].data() + t[0].size()) {
            if (frames > 0 && fields >= 4)
                throw DatasetError(path, linePlace(countLine),
                    "more atom rows than the " + std::to_string(previousCount) + " the count line (line "
                        + std::to_string(previousCountLine) + ") declares");
            throw DatasetError(path, linePlace(countLine),
                "bad count line: expected the number of atoms (a non-negative whole number), found "
                    + quotedToken(trimmed(line)));
        }
        ++frames;
        previousCount = count;
        previousCountLine = countLine;
        if (!cursor.next(line))
            throw DatasetError(
                path, "end of file", "no comment line after the count line (line " + std::to_string(countLine) + ")");
        const bool keep = frames == wanted;
        if (keep) {
            chosenCountLine = countLine;
            reservePoints(cloud, count, cursor.remainingBytes() / 8 + 1, path, linePlace(countLine));
        }
        for (std::uint64_t i = 0; i < count; ++i) {
            if (!cursor.next(line))
                throw DatasetError(path, "end of file",
                    "found " + plural(i, "atom") + ", but the count line (line " + std::to_string(countLine)
                        + ") declares " + std::to_string(count));
            if (!keep)
                continue;
            const std::size_t number = cursor.number();
            const std::size_t n = tokens(line, t);
            if (n < 4)
                throw DatasetError(
                    path, linePlace(number), "short line: " + plural(n, "field") + ", expected 4 (element x y z)");
            double v[3];
            for (int a = 0; a < 3; ++a)
                v[a] = parseCoordinate(
                    t[static_cast<std::size_t>(a) + 1], a, path, number, static_cast<std::size_t>(a) + 2, options);
            push(cloud, v[0], v[1], v[2]);
        }
    }
    if (wanted > frames)
        throw DatasetError(path, "parameter frame",
            "frame " + std::to_string(wanted) + " requested, but the file has " + plural(frames, "frame"));
    if (cloud.size() == 0)
        throw DatasetError(path, linePlace(chosenCountLine),
            "frame " + std::to_string(wanted) + " has no atoms (its count line says 0)");
    if (frames > 1)
        cloud.notes.push_back("read frame " + std::to_string(wanted) + " of " + std::to_string(frames) + " (count line "
            + std::to_string(chosenCountLine) + "); choose another with --param frame=N");
    return cloud;
}

PointCloud readPdb(const std::string& path, const ReadOptions& options)
{
    const std::uint64_t wanted = frameParam(options, path);
    const std::string text = readTextFile(path);
    PointCloud cloud;
    cloud.storedType = "text";
    // About 81 bytes per ATOM record: enough for the first model without reallocation, never more than the file.
    reservePoints(cloud, text.size() / 81 + 1, std::numeric_limits<std::uint64_t>::max(), path, "");
    LineCursor lines(text);
    std::string_view line;
    std::uint64_t models = 0;
    std::size_t chosenModelLine = 0;
    // Coordinates are the fixed columns 31–38, 39–46 and 47–54 (PDB format 3.3): fields may touch
    // ("-123.456-789.012"), so they are never split on blanks.
    constexpr std::size_t kColumn[3] = {31, 39, 47};
    while (lines.next(line)) {
        if (line.starts_with("MODEL ") || line == "MODEL") {
            ++models;
            if (models == wanted)
                chosenModelLine = lines.number();
            continue;
        }
        const bool hetatm = line.starts_with("HETATM");
        // "ATOM  ", or "ATOM" with a serial number spilling into columns 5–6 (writers past 99,999 atoms).
        const bool atom = line.starts_with("ATOM")
            && (line.size() == 4 || line[4] == ' ' || std::isdigit(static_cast<unsigned char>(line[4])));
        if (!atom && !hetatm)
            continue;
        if (std::max<std::uint64_t>(models, 1) != wanted)
            continue;
        const std::size_t number = lines.number();
        if (line.size() < 54)
            throw DatasetError(path, linePlace(number),
                std::string(hetatm ? "HETATM" : "ATOM") + " record of " + std::to_string(line.size())
                    + " characters; its coordinates need columns 31–54 (x 31–38, y 39–46, z 47–54)");
        double v[3];
        for (int a = 0; a < 3; ++a) {
            const std::size_t column = kColumn[a];
            const std::string_view field = trimmed(line.substr(column - 1, 8));
            if (field.empty())
                throw DatasetError(path, linePlace(number, column),
                    std::string(kAxisNames[a]) + " coordinate (columns " + std::to_string(column) + "–"
                        + std::to_string(column + 7) + ") is blank");
            v[a] = parseCoordinate(field, a, path, number, column, options);
        }
        push(cloud, v[0], v[1], v[2]);
    }
    const std::uint64_t inFile = std::max<std::uint64_t>(models, 1);
    if (wanted > inFile)
        throw DatasetError(path, "parameter frame",
            "model " + std::to_string(wanted) + " requested, but the file has " + plural(inFile, "model")
                + (models == 0 ? " (no MODEL records)" : ""));
    if (cloud.size() == 0)
        throw DatasetError(path, models > 0 ? linePlace(chosenModelLine) : "",
            models > 0 ? "model " + std::to_string(wanted) + " has no ATOM or HETATM records"
                       : "no ATOM or HETATM records: no atoms to read");
    if (models > 1)
        cloud.notes.push_back("read model " + std::to_string(wanted) + " of " + std::to_string(models)
            + " (MODEL record at line " + std::to_string(chosenModelLine) + "); choose another with --param frame=N");
    cloud.x.shrink_to_fit();
    cloud.y.shrink_to_fit();
    cloud.z.shrink_to_fit();
    return cloud;
}

PointCloud readPly(const std::string& path, const ReadOptions& options)
{
    requireSingleFrame(options, path, "a PLY file");
    const std::string bytes = readTextFile(path);
    const PlyHeader header = parsePlyHeader(bytes, path);
    const auto vertexIt = std::find_if(
        header.elements.begin(), header.elements.end(), [](const PlyElement& e) { return e.name == "vertex"; });
    if (vertexIt == header.elements.end())
        throw DatasetError(path, linePlace(header.bodyLine - 1), "the header declares no vertex element");
    const auto vertexIndex = static_cast<std::size_t>(vertexIt - header.elements.begin());
    const PlyElement& vertex = *vertexIt;
    const auto axes = vertexAxes(vertex, path);
    if (vertex.count == 0)
        throw DatasetError(path, linePlace(vertex.line), "the vertex element has no vertices (count 0)");

    PointCloud cloud;
    if (header.format == PlyFormat::Ascii)
        readPlyAscii(bytes, header, vertexIndex, axes, path, options, cloud);
    else
        readPlyBinary(bytes, header, vertexIndex, axes, path, options, cloud);

    const char* types[3];
    for (int a = 0; a < 3; ++a)
        types[a] = canonicalName(vertex.properties[axes[static_cast<std::size_t>(a)]].type);
    cloud.storedType = std::strcmp(types[0], types[1]) == 0 && std::strcmp(types[1], types[2]) == 0
        ? std::string(types[0])
        : std::string(types[0]) + "/" + types[1] + "/" + types[2];
    std::string skipped;
    for (const auto& e : header.elements)
        if (e.name != "vertex")
            skipped += (skipped.empty() ? "" : ", ") + e.name + " (" + std::to_string(e.count) + ")";
    if (!skipped.empty())
        cloud.notes.push_back("read the vertex element; skipped " + skipped);
    return cloud;
}

PointCloud readPointHdf5(const std::string& path, const ReadOptions& options)
{
    const std::uint64_t wanted = frameParam(options, path);
    const h5::File file = h5::File::open(path);
    const std::string dataset = choosePoints(file, options);
    const h5::DatasetInfo info = file.info(dataset);
    const std::string place = "dataset " + dataset;
    const std::size_t rank = info.dims.size();
    const char* const expected = "expected N × 3 points or frames × N × 3";
    if (rank != 2 && rank != 3)
        file.fail(place, "has rank " + std::to_string(rank) + " (" + extents(info.dims) + "); " + expected);
    if (info.dims.back() != 3)
        file.fail(
            place, "has extents " + extents(info.dims) + "; " + expected + " (the last extent must be 3: x, y, z)");
    if (!info.isFloat && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected numbers (float or integer)");
    const std::uint64_t frames = rank == 3 ? info.dims[0] : 1;
    const std::uint64_t points = info.dims[rank - 2];
    if (points == 0 || frames == 0)
        file.fail(place, "is empty (" + extents(info.dims) + "): no points");
    if (wanted > frames)
        throw DatasetError(path, "parameter frame",
            "frame " + std::to_string(wanted) + " requested, but " + place + " (" + extents(info.dims) + ") has "
                + plural(frames, "frame"));

    const std::vector<double> values = file.readDoubles(dataset, static_cast<int>(rank), false);
    PointCloud cloud;
    cloud.storedType = info.type;
    const std::uint64_t first = (wanted - 1) * points * 3;
    cloud.x.resize(points);
    cloud.y.resize(points);
    cloud.z.resize(points);
    double* axes[3] = {cloud.x.data(), cloud.y.data(), cloud.z.data()};
    for (std::uint64_t i = 0; i < points; ++i)
        for (int a = 0; a < 3; ++a) {
            const double v = values[first + i * 3 + static_cast<std::uint64_t>(a)];
            if (rejected(v, options))
                nonFinite(v, a, path,
                    place + ", element [" + (rank == 3 ? std::to_string(wanted - 1) + ", " : std::string())
                        + std::to_string(i) + ", " + std::to_string(a) + "]");
            axes[a][i] = v;
        }
    if (rank == 3)
        cloud.notes.push_back("read frame " + std::to_string(wanted) + " of " + std::to_string(frames) + " of "
            + dataset + "; choose another with --param frame=N");
    return cloud;
}

void writePointHdf5(const std::string& path, const PointCloud& cloud)
{
    if (cloud.y.size() != cloud.x.size() || cloud.z.size() != cloud.x.size())
        throw DatasetError(path, "", "the cloud's x, y and z hold different numbers of values");
    std::vector<double> interleaved(cloud.size() * 3);
    for (std::size_t i = 0; i < cloud.size(); ++i) {
        interleaved[3 * i] = cloud.x[i];
        interleaved[3 * i + 1] = cloud.y[i];
        interleaved[3 * i + 2] = cloud.z[i];
    }
    h5::File file = h5::File::create(path);
    file.writeDoubles("/points", interleaved, {cloud.size(), 3}, true);
}

// --- generators -------------------------------------------------------------------------------------------------

PointCloud generateCloud(const CloudGenerator& g)
{
    checkGenerator(g);
    requireHostMemory(saturatingMul(g.points, 3 * sizeof(double)), kGenerator, plural(g.points, "point"),
        "generating the point cloud");
    const CounterRng rng(g.seed);
    PointCloud cloud;
    cloud.storedType = "float64";
    cloud.x.resize(g.points);
    cloud.y.resize(g.points);
    cloud.z.resize(g.points);
    double* axes[3] = {cloud.x.data(), cloud.y.data(), cloud.z.data()};
    const auto n = static_cast<std::int64_t>(g.points);
    if (g.shape == CloudShape::UniformBox) {
#pragma omp parallel for schedule(static)
        for (std::int64_t q = 0; q < n; ++q) {
            const auto i = static_cast<std::uint64_t>(q);
            for (std::uint64_t a = 0; a < 3; ++a)
                axes[a][i] = g.box * rng.uniform(kUniformStream + a, i);
        }
        return cloud;
    }
    std::vector<double> centres(g.clusters * 3);
    for (std::uint64_t c = 0; c < g.clusters; ++c)
        for (std::uint64_t a = 0; a < 3; ++a)
            centres[c * 3 + a] = g.box * rng.uniform(kCentreStream + a, c);
    const double sigma = g.spread * g.box;
#pragma omp parallel for schedule(static)
    for (std::int64_t q = 0; q < n; ++q) {
        const auto i = static_cast<std::uint64_t>(q);
        const std::uint64_t c = std::min<std::uint64_t>(g.clusters - 1,
            static_cast<std::uint64_t>(rng.uniform(kMemberStream, i) * static_cast<double>(g.clusters)));
        for (std::uint64_t a = 0; a < 3; ++a)
            axes[a][i] = centres[c * 3 + a] + sigma * rng.normal(kOffsetStream + a, i);
    }
    cloud.notes.push_back(plural(g.clusters, "Gaussian cluster") + " of standard deviation " + formatNumber(sigma)
        + "; points may lie outside the box");
    return cloud;
}

// --- the dataset ------------------------------------------------------------------------------------------------

Dataset makePointDataset(PointCloud cloud, std::string name, std::string source)
{
    const std::size_t n = cloud.x.size();
    if (cloud.y.size() != n || cloud.z.size() != n)
        throw DatasetError(source, "",
            "the cloud's x, y and z hold different numbers of values (" + std::to_string(n) + ", "
                + std::to_string(cloud.y.size()) + ", " + std::to_string(cloud.z.size()) + ")");
    if (n == 0)
        throw DatasetError(source, "", "no points: the sdh histogram needs at least one point");
    const std::vector<double>* axes[3] = {&cloud.x, &cloud.y, &cloud.z};
    double extent[3];
    std::string box;
    for (int a = 0; a < 3; ++a) {
        const std::vector<double>& values = *axes[a];
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isfinite(values[i]))
                throw DatasetError(source, "point " + std::to_string(i),
                    std::string(kAxisNames[a]) + " coordinate is " + (std::isnan(values[i]) ? "NaN" : "infinite")
                        + "; pair distances need finite coordinates (even with --allow-nonfinite)");
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        extent[a] = *hi - *lo;
        box += std::string(a == 0 ? "" : ", ") + kAxisNames[a] + " " + formatRange(values);
    }
    // The largest possible pair distance, computed as the workload's bucket count is.
    const double diagonal = std::sqrt((extent[0] * extent[0] + extent[1] * extent[1]) + extent[2] * extent[2]);
    char diagonalText[40];
    std::snprintf(diagonalText, sizeof diagonalText, "%.6g", diagonal);

    DatasetMeta meta;
    meta.kind = "points";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    const std::uint64_t count = n;
    hasher.add(&count, sizeof count);
    for (const auto* values : axes)
        hasher.addSpan(std::span<const double>(*values));
    meta.contentHash = hasher.hex();
    meta.size = n;
    meta.properties = {
        {"points", std::to_string(n)},
        {"bounding box", box},
        {"bounding-box diagonal", diagonalText},
        {"stored as", cloud.storedType},
    };
    meta.notes = cloud.notes;
    return Dataset::make(std::move(meta), std::move(cloud));
}

Dataset loadPointCloud(const std::string& path, const ReadOptions& options)
{
    std::string name = baseName(path);
    std::string lower = lowerCase(name);
    const bool hdf5Extension = lower.ends_with(".h5") || lower.ends_with(".hdf5");
    if (lower.ends_with(".gz"))
        lower.resize(lower.size() - 3);
    const std::string extension = std::filesystem::path(lower).extension().string();
    PointCloud cloud;
    if (hdf5Extension || h5::looksLikeHdf5(path))
        cloud = readPointHdf5(path, options);
    else if (extension == ".xyz")
        cloud = readXyz(path, options);
    else if (extension == ".pdb" || extension == ".ent")
        cloud = readPdb(path, options);
    else if (extension == ".ply")
        cloud = readPly(path, options);
    else
        cloud = readPointText(path, options);
    return makePointDataset(std::move(cloud), std::move(name), path);
}

} // namespace ks::data
