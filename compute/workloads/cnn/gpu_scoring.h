#pragma once

// The forward pass of a trained cnn network on the GPU, with the kernels the GPU variants train with
// (cuda_variants.cu). Plain C++; declared only in builds with CUDA, where that file is compiled.

#include "compute/workloads/cnn/network.h"
#include "data/image_set.h"

#include <cstddef>
#include <cstdint>
#include <span>

#if KS_HAVE_CUDA
namespace ks::cnn {

/// evaluation.h's scoreImages on the current CUDA device: the first `count` images of `set`, a batch of at most
/// `batch` images at a time; each image's predicted class and, unless `features` is empty, its fc1 features.
void scoreImagesOnGpu(const Layout& layout, std::span<const float> weights, const data::ImageSet& set,
    std::size_t count, int batch, std::span<std::uint8_t> predicted, std::span<float> features);

} // namespace ks::cnn
#endif
