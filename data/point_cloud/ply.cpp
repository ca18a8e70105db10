// PLY ("PLY — Polygon File Format", Turk 1994): ascii, binary_little_endian and binary_big_endian; the vertex
// element's x, y and z of any numeric type, every other property and element skipped.

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/point_cloud.h"
#include "data/point_cloud/point_reader.h"
#include "data/reader_messages.h"
#include "data/text_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace ks::data {

using namespace points;

namespace {

/// How many of the vertex element's property names a message lists.
constexpr std::size_t kPropertiesListed = 8;

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
            std::vector<std::string> names;
            for (const auto& p : vertex.properties)
                names.push_back(p.name);
            throw DatasetError(file, linePlace(vertex.line),
                std::string("the vertex element has no property ") + kAxisNames[a] + " (it has "
                    + (names.empty() ? std::string("none") : listing(names, kPropertiesListed)) + ")");
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
            "the body ends inside " + shownName(e.name) + " " + std::to_string(item) + " of " + std::to_string(e.count)
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
                "negative list length " + std::to_string(static_cast<long long>(length)) + " in property "
                    + shownName(p.name) + " of " + shownName(e.name) + " " + std::to_string(item));
        offset += countSize;
        const std::uint64_t skip = saturatingMul(static_cast<std::uint64_t>(length), sizeOf(p.type));
        if (size - offset < skip)
            truncated(e, item);
        offset += skip;
    };

    for (std::size_t k = 0; k < vertexIndex; ++k) {
        const PlyElement& e = header.elements[k];
        // An element without properties holds no bytes, however many items it declares (a count of 2^64 - 1 must
        // not be stepped through one item at a time).
        if (e.properties.empty())
            continue;
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
                    "the body ends after " + std::to_string(item) + " of the " + std::to_string(e.count) + " "
                        + shownName(e.name) + " items");
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
                        "list length " + quotedToken(token) + " of property " + shownName(p.name)
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

} // namespace

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
            skipped += (skipped.empty() ? "" : ", ") + shownName(e.name) + " (" + std::to_string(e.count) + ")";
    if (!skipped.empty())
        cloud.notes.push_back("read the vertex element; skipped " + skipped);
    return cloud;
}

} // namespace ks::data
