#include "data/dataset_error.h"

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
} // namespace

DatasetError::DatasetError(std::string file, std::string place, std::string problem)
    : std::runtime_error(composeMessage(file, place, problem))
    , m_file(std::move(file))
    , m_place(std::move(place))
    , m_problem(std::move(problem))
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
