#include "data/dataset_error.h"

#include "data/quote.h"

namespace ks::data {

namespace {
std::string composeMessage(const std::string& file, const std::string& place, const std::string& problem)
{
    std::string message;
    message.reserve(file.size() + place.size() + problem.size() + 16);
    message.append(file.empty() ? "<input>" : file);
    if (!place.empty())
        message.append(": ").append(place);
    message.append(": ").append(problem);
    return message;
}

/// Characters, not bytes: the place may end in a three-byte "…".
std::size_t characterCount(const std::string& text)
{
    std::size_t count = 0;
    for (const char c : text)
        count += (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
    return count;
}
} // namespace

DatasetError::Parts DatasetError::cleaned(std::string_view file, std::string_view place, std::string_view problem)
{
    Parts parts {escapedText(file), escapedText(place, kPlaceChars), {}};
    parts.problem = escapedText(problem, kDetailChars - characterCount(parts.place));
    return parts;
}

DatasetError::DatasetError(std::string file, std::string place, std::string problem)
    : DatasetError(cleaned(file, place, problem))
{
}

DatasetError::DatasetError(Parts parts)
    : std::runtime_error(composeMessage(parts.file, parts.place, parts.problem))
    , m_file(std::move(parts.file))
    , m_place(std::move(parts.place))
    , m_problem(std::move(parts.problem))
{
}

std::string linePlace(std::size_t line, std::size_t column)
{
    std::string place = "line " + std::to_string(line);
    if (column > 0)
        place += ", column " + std::to_string(column);
    return place;
}

} // namespace ks::data
