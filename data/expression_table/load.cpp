// The expression dataset with its metadata, and the choice of reader for a file (HDF5 by its signature, else text).

#include "data/expression_table.h"
#include "data/expression_table/table.h"
#include "data/hash.h"
#include "data/hdf5_file.h"
#include "data/input_file.h"
#include "data/text_file.h"

#include <span>

namespace ks::data {

using namespace expression;

Dataset makeExpressionDataset(ExpressionTable table, std::string name, std::string source)
{
    checkShape(table, source);
    if (table.sampleNames.empty())
        table.sampleNames = generatedNames("S", table.samples);
    if (table.featureNames.empty())
        table.featureNames = generatedNames("F", table.features);
    DatasetMeta meta;
    meta.kind = "expression";
    meta.name = std::move(name);
    meta.source = std::move(source);
    ContentHasher hasher;
    // The shape too: a 2 × 6 and a 3 × 4 table of the same values are different data.
    const std::uint64_t shape[2] = {table.samples, table.features};
    hasher.add(shape, sizeof shape);
    hasher.addSpan(std::span<const double>(table.values));
    meta.contentHash = hasher.hex();
    meta.size = table.features;
    meta.properties = {
        {"samples", std::to_string(table.samples)},
        {"features", std::to_string(table.features)},
        {"value range", formatRange(table.values)},
        {"stored as", table.storedType},
    };
    meta.notes = table.notes;
    return Dataset::make(std::move(meta), std::move(table));
}

Dataset loadExpressionTable(const std::string& path, const ReadOptions& options)
{
    requireReadableKind(path);
    ExpressionTable table
        = h5::looksLikeHdf5(path) ? readExpressionHdf5(path, options) : readExpressionText(path, options);
    return makeExpressionDataset(std::move(table), baseName(path), path);
}

} // namespace ks::data
