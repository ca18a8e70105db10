#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ks::data {

/// A problem with an input: names the file, the place in it (line, column, dataset path) and what was wrong.
///
/// All three are stored escaped (escapedText): readers quote file content with quotedToken, and this catches what
/// they pass on unquoted, such as an HDF5 path, a name read from the file or libhdf5's own error text. The place is
/// cut at kPlaceChars characters and the problem so that both together stay within kDetailChars: with a file name of
/// up to 50 characters, the CLI's "error: FILE: PLACE: PROBLEM" line stays within 200. The file name is escaped but
/// never cut: the user typed it and needs all of it to know which file is meant.
class DatasetError : public std::runtime_error {
public:
    static constexpr std::size_t kPlaceChars = 80;
    static constexpr std::size_t kDetailChars = 136;

    DatasetError(std::string file, std::string place, std::string problem);

    const std::string& file() const { return m_file; }
    const std::string& place() const { return m_place; }
    const std::string& problem() const { return m_problem; }

private:
    struct Parts {
        std::string file;
        std::string place;
        std::string problem;
    };
    static Parts cleaned(std::string_view file, std::string_view place, std::string_view problem);
    explicit DatasetError(Parts parts);

    std::string m_file;
    std::string m_place;
    std::string m_problem;
};

/// "line 12" or "line 12, column 3" — the place format every text reader uses.
std::string linePlace(std::size_t line, std::size_t column = 0);

} // namespace ks::data
