#pragma once

#include <stdexcept>
#include <string>

namespace ks::data {

/// A problem with an input: names the file, the place in it (line, column, dataset path) and what was wrong.
class DatasetError : public std::runtime_error {
public:
    DatasetError(std::string file, std::string place, std::string problem);

    const std::string& file() const { return m_file; }
    const std::string& place() const { return m_place; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_file;
    std::string m_place;
    std::string m_problem;
};

/// "line 12" or "line 12, column 3" — the place format every text reader uses.
std::string linePlace(std::size_t line, std::size_t column = 0);

} // namespace ks::data
