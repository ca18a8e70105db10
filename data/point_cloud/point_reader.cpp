#include "data/point_cloud/point_reader.h"

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/number_text.h"
#include "data/reader_messages.h"

#include <algorithm>
#include <charconv>

namespace ks::data::points {

bool isNumber(std::string_view token)
{
    double ignored = 0;
    return parseReal(token, ignored) == NumberStatus::Ok;
}

void nonFinite(double value, int axis, const std::string& file, const std::string& place)
{
    throw DatasetError(file, place,
        std::string(kAxisNames[axis]) + " coordinate is " + (std::isnan(value) ? "NaN" : "infinite") + kNonFiniteHint);
}

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

void requireSingleFrame(const ReadOptions& options, const std::string& file, const char* format)
{
    const std::uint64_t frame = frameParam(options, file);
    if (frame != 1)
        throw DatasetError(file, "parameter frame",
            "frame " + std::to_string(frame) + " requested, but " + format + " holds a single frame");
}

void reservePoints(
    PointCloud& cloud, std::uint64_t count, std::uint64_t plausible, const std::string& file, const std::string& place)
{
    const std::uint64_t reserve = std::min(count, plausible);
    requireHostMemory(saturatingMul(reserve, 3 * sizeof(double)), file, place, "reading " + plural(count, "point"));
    cloud.x.reserve(reserve);
    cloud.y.reserve(reserve);
    cloud.z.reserve(reserve);
}

void growIfFull(PointCloud& cloud, const std::string& file, const std::string& place)
{
    if (cloud.x.size() < cloud.x.capacity())
        return;
    const std::uint64_t grown = std::max<std::uint64_t>(2 * cloud.x.size(), 1024);
    requireHostMemory(saturatingMul(saturatingAdd(cloud.x.size(), grown), 3 * sizeof(double)), file, place,
        "reading more than " + plural(cloud.x.size(), "point"));
    cloud.x.reserve(grown);
    cloud.y.reserve(grown);
    cloud.z.reserve(grown);
}

void shrinkToFit(PointCloud& cloud)
{
    cloud.x.shrink_to_fit();
    cloud.y.shrink_to_fit();
    cloud.z.shrink_to_fit();
}

} // namespace ks::data::points
