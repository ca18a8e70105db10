#pragma once

// Expression tables, the lrv workload's dataset: the value type, its readers and writers (TSV/CSV text, HDF5), the
// generator and the dataset. Each format is one file of data/expression_table/.

#include "data/dataset.h"
#include "data/read_options.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ks::data {

/// An expression matrix Y: N samples × p features (counts or intensities), the lrv workload's dataset.
struct ExpressionTable {
    std::size_t samples = 0; ///< N, rows of Y
    std::size_t features = 0; ///< p, columns of Y
    std::vector<double> values; ///< N × p, row-major: values[k * features + i]
    std::vector<std::string> sampleNames; ///< N ("S1", "S2", ... when the file has none)
    std::vector<std::string> featureNames; ///< p ("F1", ... when the file has none)
    std::string storedType = "float64"; ///< value type in the file it came from (float64 for text)
    std::vector<std::string> notes; ///< what the reader changed: zeros replaced, features dropped for NA
    /// propr's weights W, laid out like `values` (N × p): empty when unweighted. From the `weights` reader option.
    std::vector<double> weights;
    /// The alpha transform's reference Yfull (referenceSamples × p, row-major), whose features' means scale Y's:
    /// empty for Y itself. From the `reference` reader option.
    std::size_t referenceSamples = 0;
    std::vector<double> reference;
    /// Wfull, the reference's weights (referenceSamples × p): empty when none. From `reference_weights`.
    std::vector<double> referenceWeights;
    /// The files the companions came from (empty for generated ones), for the dataset's properties.
    std::string weightsSource;
    std::string referenceSource;
    std::string referenceWeightsSource;

    /// The reference Yfull: `reference` when one was given, else Y.
    const std::vector<double>& fullValues() const { return reference.empty() ? values : reference; }
    std::size_t fullSamples() const { return reference.empty() ? samples : referenceSamples; }
    /// Wfull: `referenceWeights` with a reference, else W (empty when unweighted, or a reference without weights).
    const std::vector<double>& fullWeights() const { return reference.empty() ? weights : referenceWeights; }
};

// Reader parameters (ReadOptions::params; the default when absent):
//   orientation = samples-as-rows | features-as-rows   how the file stores the matrix; features-as-rows transposes
//   zeros       = error | replace                      replace: every zero becomes the smallest positive value
//   na          = error | drop                         drop: every feature holding a missing value is dropped
//   weights     = FILE                                 propr's weights W: a table of Y's shape (same orientation),
//                                                      finite and positive; features and samples matched by name
//   reference   = FILE                                 Yfull for the alpha transform: any number of samples, Y's
//                                                      features (matched by name), read with Y's zeros and na
//   reference_weights = FILE                           Wfull: the reference's weights, of its shape
// Log-ratios need finite, strictly positive values: infinities and negatives are always errors, and
// ReadOptions::allowNonFinite does not apply to this reader.

/// Reads a TSV/CSV table (delimiter detected; quoting, CRLF, UTF-8 BOM, gzip). The first row names the columns;
/// the first column names the rows unless every data row's first field is numeric and the header is as wide as
/// the rows. Both the R write.table form (no corner cell) and the corner-cell form are read.
ExpressionTable readExpressionText(const std::string& path, const ReadOptions& options = {});
/// Reads a 2-D numeric (float or integer) dataset, chosen by ReadOptions::h5Path or as the file's only one, with
/// names from 1-D string datasets beside it (feature_names, features, genes, var_names, colnames; sample_names,
/// samples, obs_names, barcodes, rownames).
ExpressionTable readExpressionHdf5(const std::string& path, const ReadOptions& options = {});
/// HDF5 by its signature, text otherwise; returns the dataset with its metadata.
Dataset loadExpressionTable(const std::string& path, const ReadOptions& options = {});

/// Samples as rows: a header of feature names after an empty corner cell, then one row per sample led by its name.
void writeExpressionCsv(const std::string& path, const ExpressionTable& table);
/// Writes /matrix (N × p float64), /feature_names and /sample_names.
void writeExpressionHdf5(const std::string& path, const ExpressionTable& table);

/// The generator behind the built-in lrv data: Gamma–Poisson (negative binomial) counts plus one, with a
/// log-normal spread of the feature means, and `plantedPairs` nearly proportional feature pairs whose log-ratio
/// variance is about proportionalNoise².
struct ExpressionGenerator {
    std::size_t samples = 80;
    std::size_t features = 1000;
    std::size_t plantedPairs = 10;
    double meanCount = 100;
    double dispersion = 0.5; ///< variance of the Gamma multiplier of each count (0: plain Poisson)
    double proportionalNoise = 1e-4; ///< standard deviation of the planted pairs' log-ratios
    std::uint64_t seed = 1;
    bool weights = false; ///< log-normal weights W (and Wfull with a reference)
    /// Samples of Yfull beyond Y's: 0 for none; otherwise the reference is Y's samples and these many more.
    std::size_t referenceSamples = 0;
};
ExpressionTable generateExpression(const ExpressionGenerator& generator);
/// The planted nearly proportional pairs of a generated table, as (i, j) feature indices with i > j: feature i is
/// feature j times a constant and a small per-sample noise. No feature is in two pairs; ascending in j.
std::vector<std::pair<std::size_t, std::size_t>> plantedPairs(const ExpressionGenerator& generator);

/// The dataset of kind "expression" (size = features) with its shape, value range and stored type as properties
/// and the table's notes. Empty name lists are filled with generated names; a table whose value count or name
/// lists do not match its shape is a DatasetError.
Dataset makeExpressionDataset(ExpressionTable table, std::string name, std::string source);

} // namespace ks::data
