#pragma once

// What the expression-table files of this folder share: the reader settings, the matrix as a file stores it and the
// checks that make it an ExpressionTable (finishTable), names, and the shape check of a table. Internal to ks_data;
// the API is data/expression_table.h.

#include "data/expression_table.h"
#include "data/read_options.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks::data::expression {

/// The reader parameters of ReadOptions::params, checked.
struct ReaderSettings {
    bool featuresAsRows = false;
    bool replaceZeros = false;
    bool dropMissing = false;
    /// The table is propr's weights: every value finite and positive, no zeros replaced, no feature dropped.
    bool weights = false;
};

/// The ReadOptions::params key with which loadExpressionTable reads a table as propr's weights (ReaderSettings::
/// weights). It holds a space, which no parameter axis's name does, so no --param can set it.
inline constexpr const char* kWeightsTableParam = "weights table";

/// The reader parameters (orientation, zeros, na) from ReadOptions::params; DatasetError for a value not allowed.
ReaderSettings readerSettings(const ReadOptions& options, const std::string& file);

/// prefix1, prefix2, … prefix`count`.
std::vector<std::string> generatedNames(const char* prefix, std::size_t count);
/// The names, or generated ones when the list is empty.
std::vector<std::string> namesOf(const std::vector<std::string>& names, const char* prefix, std::size_t count);

/// The first repeated name as (index of its first occurrence, index of the repeat).
std::optional<std::pair<std::size_t, std::size_t>> findDuplicate(const std::vector<std::string>& names);
/// The problem of a feature name that repeats one at `otherPlace`.
std::string duplicateProblem(const std::string& name, const std::string& otherPlace);

/// a × b; a DatasetError at `place` when the product overflows 64 bits.
std::uint64_t checkedProduct(std::uint64_t a, std::uint64_t b, const std::string& file, const std::string& place);

/// A matrix as the file stores it (rows × cols, row-major), before the checks, the transpose and the drops.
struct RawMatrix {
    std::vector<double> cells;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<std::string> rowNames;
    std::vector<std::string> colNames;
};

/// Where a cell of the stored matrix is, for messages: "line 7, column 3" or "dataset /matrix, element [6, 1]".
using PlaceOf = std::function<std::string(std::size_t row, std::size_t col)>;

/// Checks the stored matrix (shape, missing values, infinities, negatives, zeros — the first offending cell in the
/// file's order is the one reported), drops features with missing values when asked, transposes to samples × features
/// and replaces zeros when asked. `missingToken` describes the first missing cell ("NA", "(empty cell)", "NaN").
ExpressionTable finishTable(RawMatrix raw, const std::string& file, const ReaderSettings& settings,
    const PlaceOf& placeOf, const std::string& missingToken, std::string storedType);

/// A DatasetError naming `file` when the table's values or name lists do not match its shape.
void checkShape(const ExpressionTable& table, const std::string& file);

} // namespace ks::data::expression
