#include "data/sniff.h"

#include "data/hdf5_file.h"
#include "data/number_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <string_view>

namespace ks::data {

namespace {

constexpr std::size_t kSniffBytes = 64 * 1024;
/// Enough data rows to tell a table's shape; a header and a comment block come before them.
constexpr int kSniffRows = 40;

std::string lowerCase(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool isNumber(std::string_view field)
{
    field = trimmed(field);
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
        field = field.substr(1, field.size() - 2);
    double value = 0;
    return parseReal(trimmed(field), value) == NumberStatus::Ok;
}

std::vector<std::string_view> lines(std::string_view text)
{
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        out.push_back(line);
        if (end == std::string_view::npos)
            break;
        text.remove_prefix(end + 1);
    }
    return out;
}

/// Splits on the delimiter the table readers would pick: a tab, then ';', then ',', else runs of blanks.
std::vector<std::string_view> fields(std::string_view line, char delimiter)
{
    std::vector<std::string_view> out;
    if (delimiter == ' ') {
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            const std::size_t start = i;
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            if (i > start)
                out.push_back(line.substr(start, i - start));
        }
        return out;
    }
    std::size_t start = 0;
    while (true) {
        const auto end = line.find(delimiter, start);
        out.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return out;
        start = end + 1;
    }
}

char delimiterOf(std::string_view line)
{
    for (const char c : {'\t', ';', ','})
        if (line.find(c) != std::string_view::npos)
            return c;
    return ' ';
}

void add(std::vector<std::string>& kinds, const std::string& kind)
{
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        kinds.push_back(kind);
}

/// The kinds a plain-text file's first bytes point to.
std::vector<std::string> sniffText(std::string_view text)
{
    std::vector<std::string> kinds;
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    if (lowerCase(std::string(text.substr(0, 14))) == "%%matrixmarket")
        return {"csr"};
    if (text.starts_with("ply\n") || text.starts_with("ply\r\n"))
        return {"points"};
    const auto all = lines(text);
    // PDB: fixed-column ATOM/HETATM records, whatever precedes them (HEADER, REMARK, CRYST1 ...).
    for (const auto line : all)
        if (line.starts_with("ATOM  ") || line.starts_with("HETATM"))
            return {"points"};
    // XYZ: a count alone on the first line, a comment, then `element x y z` rows.
    if (all.size() >= 3) {
        std::uint64_t count = 0;
        const auto first = fields(all[0], ' ');
        const auto row = fields(all[2], ' ');
        if (first.size() == 1 && parseUnsigned(first[0], count) == NumberStatus::Ok && row.size() >= 4
            && !isNumber(row[0]) && isNumber(row[1]) && isNumber(row[2]) && isNumber(row[3]))
            return {"points"};
    }

    // A table: the shape of its data rows (blank lines and '#' comments skipped; the first line may be a header).
    bool namedRows = false;
    bool numericRows = false;
    std::size_t columns = 0;
    int rows = 0;
    for (const auto raw : all) {
        const std::string_view line = trimmed(raw);
        if (line.empty() || line.front() == '#')
            continue;
        // Lines before the first data row are a header (quoted names may span lines); after it, a row that is
        // not data means the text is no table.
        const bool header = !numericRows && !namedRows;
        auto row = fields(line, delimiterOf(line));
        auto numericCount = [&row] {
            return static_cast<std::size_t>(std::count_if(row.begin(), row.end(), [](auto f) { return isNumber(f); }));
        };
        std::size_t numeric = numericCount();
        // Whitespace-separated text mixes tabs and spaces ("1.25<TAB>-2.5   3.75").
        if (numeric < row.size()) {
            auto blankSplit = fields(line, ' ');
            if (std::all_of(blankSplit.begin(), blankSplit.end(), [](auto f) { return isNumber(f); })) {
                row = std::move(blankSplit);
                numeric = row.size();
            }
        }
        if (numeric == row.size()) {
            numericRows = true;
            columns = std::max(columns, row.size());
        } else if (numeric + 1 == row.size() && !isNumber(row.front()) && numeric >= 1) {
            namedRows = true;
            columns = std::max(columns, row.size());
        } else if (!header) {
            return {}; // text that is no table: nothing tells which reader it is for
        }
        if (++rows >= kSniffRows)
            break;
    }
    if (namedRows) {
        add(kinds, "expression");
    } else if (numericRows) {
        if (columns == 2)
            add(kinds, "series2d");
        if (columns == 3)
            add(kinds, "points");
        if (columns >= 2)
            add(kinds, "expression");
    }
    return kinds;
}

} // namespace

std::vector<std::string> sniffDatasetKinds(const std::string& path)
{
    try {
        std::string name = lowerCase(path.substr(path.find_last_of('/') + 1));
        const bool compressed = endsWith(name, ".gz");
        if (compressed)
            name.resize(name.size() - 3);
        if (endsWith(name, ".pdb") || endsWith(name, ".ent") || endsWith(name, ".ply"))
            return {"points"};
        if (endsWith(name, ".mtx") || endsWith(name, ".mm"))
            return {"csr"};
        if (endsWith(name, "-idx3-ubyte") || endsWith(name, "-idx1-ubyte") || endsWith(name, ".bin"))
            return {"images"};
        if (compressed || h5::looksLikeHdf5(path))
            return {};
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return {};
        std::string head(kSniffBytes, '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        head.resize(static_cast<std::size_t>(in.gcount()));
        if (head.find('\0') != std::string::npos)
            return {};
        // A cut last line would count as a short row.
        if (head.size() == kSniffBytes)
            if (const auto end = head.find_last_of('\n'); end != std::string::npos)
                head.resize(end + 1);
        auto kinds = sniffText(head);
        if (endsWith(name, ".xyz") && kinds.empty())
            kinds.push_back("points");
        return kinds;
    } catch (const std::exception&) {
        return {};
    }
}

} // namespace ks::data
