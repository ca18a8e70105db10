#pragma once

// What the cnn workload measures of a trained network after a run (CnnWorkload::resultFacts): its accuracy on the
// held-out images, and the 128-d features (fc1's ReLU output) of every image with its label, written for the seed's
// SVM pipeline. The forward pass runs in batches of at most kScoringBatch images, on the CPU (network.h's layers) or,
// for a variant that ran on the GPU, with the GPU variants' forward kernels (gpu_scoring.h).

#include "compute/core/params.h"
#include "compute/core/result.h"
#include "compute/workloads/cnn/network.h"
#include "data/image_set.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ks::cnn {

/// The most images one scoring pass holds at once: a few tens of MB of activations at 28 × 28 or 32 × 32.
inline constexpr int kScoringBatch = 256;

/// The trained weights a cnn Result carries (its arrays, one per tensor in the layout's order) as one flat vector in
/// the layout's order. ComputeError when the arrays do not match the layout's tensors.
std::vector<float> trainedWeights(const Layout& layout, const Result& result);

/// Where a scoring pass runs.
enum class ScoringDevice { Cpu, Gpu };

/// Runs the first `count` images of `set` through the network with `weights`, kScoringBatch at a time: each image's
/// predicted class into `predicted` (count values) and, unless `features` is empty, its 128 features into `features`
/// (count × 128). Gpu needs a build with CUDA and a usable device (ComputeError otherwise).
void scoreImages(ScoringDevice device, const Layout& layout, std::span<const float> weights, const data::ImageSet& set,
    std::size_t count, std::span<std::uint8_t> predicted, std::span<float> features);

/// The endings the `features` parameter accepts: HDF5, or LIBSVM text.
std::vector<std::string> featureFileSuffixes();

/// What resultFacts measures, from the run parameters `eval` and `features`.
struct EvaluationSettings {
    std::uint64_t eval = 1000; ///< held-out images scored (the first ones); 0: none
    std::string features; ///< the features file; empty: none
};
EvaluationSettings evaluationSettings(const ParamSet& params);

/// Features of a split, row by row (count × 128), with each row's label.
struct FeatureRows {
    std::vector<float> values;
    std::vector<std::uint8_t> labels;
    std::size_t size() const { return labels.size(); }
};

/// Writes the features by the path's ending (featureFileSuffixes, case-insensitive):
///   .h5, .hdf5               one file: /train/features [N, 128] float32, /train/labels [N] uint8, and /test/… the same
///                            for `test` when given; /class_names when `classNames` is not empty.
///   .libsvm, .svm, .txt      LIBSVM text, a row a line: "label 1:v1 2:v2 …" (1-based indices, zeros left out, 9
///                            significant digits); the training rows in `path`, the test rows in `path` + ".t"
///                            (LIBSVM's name for a test set).
/// Returns the rows written. Throws std::runtime_error (a DatasetError for HDF5) naming the file when it cannot be
/// written.
std::size_t writeFeatures(const std::string& path, const FeatureRows& train, const FeatureRows* test,
    const std::vector<std::string>& classNames);

/// The facts a trained network yields: "accuracy" (% of the scored held-out images classified right) and
/// "accuracy_images" (how many were scored) when the set has a held-out split and eval > 0; "features_written" (rows
/// written: every training image, then every held-out image) when a features file is asked for. Throws ComputeError
/// when the result carries no trained weights that fit, or when the features cannot be written (the message then
/// names the file and still gives the accuracy).
Facts evaluateTrained(
    const Result& result, const data::ImageSet& set, const EvaluationSettings& settings, ScoringDevice device);

} // namespace ks::cnn
