// The image set's own rules: its invariants (validateImageSet), the one way every reader and the generator turn raw
// bytes into normalised pixels (normaliseImages), and the re-expression of a split on another split's scale.

#include "data/image_set.h"
#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/reader_messages.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ks::data {

namespace {
std::string shapeText(const ImageSet& set)
{
    return std::to_string(set.channels) + " × " + std::to_string(set.height) + " × " + std::to_string(set.width);
}
} // namespace

void validateImageSet(const ImageSet& set, const std::string& file)
{
    if (set.channels == 0 || set.height == 0 || set.width == 0)
        throw DatasetError(file, "",
            "image shape " + std::to_string(set.channels) + " × " + std::to_string(set.height) + " × "
                + std::to_string(set.width) + " has a zero extent");
    if (set.classes == 0 || set.classes > 256)
        throw DatasetError(file, "", std::to_string(set.classes) + " classes; byte labels allow 1 to 256");
    const std::size_t n = set.labels.size();
    if (n == 0)
        throw DatasetError(file, "", "no images: the cnn workload needs at least one");
    if (set.pixels.size() != n * set.imageSize())
        throw DatasetError(file, "",
            std::to_string(set.pixels.size()) + " pixels for " + plural(n, "image") + " of "
                + std::to_string(set.imageSize()) + " values");
    if (set.channelMean.size() != set.channels || set.channelStd.size() != set.channels)
        throw DatasetError(file, "",
            std::to_string(set.channelMean.size()) + " means and " + std::to_string(set.channelStd.size())
                + " standard deviations for " + plural(set.channels, "channel"));
    for (std::uint32_t c = 0; c < set.channels; ++c)
        if (!(set.channelStd[c] > 0) || !std::isfinite(set.channelMean[c]))
            throw DatasetError(file, "channel " + std::to_string(c),
                "mean " + std::to_string(set.channelMean[c]) + ", std " + std::to_string(set.channelStd[c])
                    + ": a normalised channel needs a finite mean and a positive std");
    for (std::size_t i = 0; i < n; ++i)
        if (set.labels[i] >= set.classes)
            throw DatasetError(file, "image " + std::to_string(i),
                "label " + std::to_string(set.labels[i]) + " is not below " + std::to_string(set.classes)
                    + ", the number of classes");
    if (!set.classNames.empty() && set.classNames.size() != set.classes)
        throw DatasetError(file, "",
            std::to_string(set.classNames.size()) + " class names for " + std::to_string(set.classes) + " classes");
    if (set.heldOut) {
        const ImageSet& held = *set.heldOut;
        const std::string place = "held-out split";
        if (held.heldOut)
            throw DatasetError(file, place, "has a held-out split of its own");
        validateImageSet(held, file + " (held-out split)");
        if (held.channels != set.channels || held.height != set.height || held.width != set.width
            || held.classes != set.classes)
            throw DatasetError(file, place,
                "images of " + shapeText(held) + " in " + std::to_string(held.classes) + " classes do not match the "
                    + "training images' " + shapeText(set) + " in " + std::to_string(set.classes));
        if (held.channelMean != set.channelMean || held.channelStd != set.channelStd)
            throw DatasetError(file, place, "its pixels are not on the training images' scale (another mean or std)");
    }
}

void attachHeldOut(ImageSet& set, ImageSet heldOut, const std::string& file)
{
    if (heldOut.channels != set.channels || heldOut.height != set.height || heldOut.width != set.width)
        throw DatasetError(file, "image shape",
            "the held-out images are " + shapeText(heldOut) + " but the training images " + shapeText(set)
                + "; a network trained on one cannot score the other");
    if (heldOut.classes != set.classes)
        throw DatasetError(file, "classes",
            "the held-out split has " + std::to_string(heldOut.classes) + " classes, the training split "
                + std::to_string(set.classes));
    renormaliseImages(heldOut, set.channelMean, set.channelStd);
    heldOut.heldOut.reset();
    set.notes.push_back("held-out: " + listing(heldOut.sourceFiles) + ", " + plural(heldOut.size(), "image")
        + " (scored on the training split's scale)");
    set.heldOut = std::make_shared<const ImageSet>(std::move(heldOut));
}

void normaliseImages(ImageSet& set, std::span<const std::uint8_t> raw, const std::string& file)
{
    const std::size_t n = set.labels.size();
    const std::size_t plane = static_cast<std::size_t>(set.height) * set.width;
    const std::size_t imageSize = set.imageSize();
    if (raw.size() != n * imageSize)
        throw std::logic_error("normaliseImages: " + std::to_string(raw.size()) + " raw values for " + std::to_string(n)
            + " images of " + std::to_string(imageSize));
    requireHostMemory(saturatingMul(raw.size(), sizeof(float)), file, "", "normalising " + plural(n, "image"));

    // Byte histograms per channel: exact sums whatever the order, so mean and std are the same on every machine.
    std::vector<std::uint64_t> histogram(static_cast<std::size_t>(set.channels) * 256, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t c = 0; c < set.channels; ++c) {
            const std::uint8_t* values = raw.data() + i * imageSize + c * plane;
            std::uint64_t* counts = histogram.data() + static_cast<std::size_t>(c) * 256;
            for (std::size_t k = 0; k < plane; ++k)
                ++counts[values[k]];
        }
    set.channelMean.assign(set.channels, 0.0);
    set.channelStd.assign(set.channels, 1.0);
    int lowest = 255;
    int highest = 0;
    const double count = static_cast<double>(n) * static_cast<double>(plane);
    for (std::uint32_t c = 0; c < set.channels; ++c) {
        const std::uint64_t* counts = histogram.data() + static_cast<std::size_t>(c) * 256;
        double sum = 0;
        for (int v = 0; v < 256; ++v) {
            sum += static_cast<double>(counts[v]) * v;
            if (counts[v] > 0) {
                lowest = std::min(lowest, v);
                highest = std::max(highest, v);
            }
        }
        const double mean = count > 0 ? sum / count : 0.0;
        double squares = 0;
        for (int v = 0; v < 256; ++v)
            squares += static_cast<double>(counts[v]) * (v - mean) * (v - mean);
        const double sd = count > 0 ? std::sqrt(squares / count) : 0.0;
        set.channelMean[c] = mean;
        set.channelStd[c] = sd > 0 ? sd : 1.0;
    }
    set.rawMin = n > 0 ? lowest : 0;
    set.rawMax = n > 0 ? highest : 0;

    // One table per channel: every byte value maps to the same float wherever it occurs.
    std::vector<float> table(static_cast<std::size_t>(set.channels) * 256);
    for (std::uint32_t c = 0; c < set.channels; ++c)
        for (int v = 0; v < 256; ++v)
            table[static_cast<std::size_t>(c) * 256 + v]
                = static_cast<float>((v - set.channelMean[c]) / set.channelStd[c]);
    set.pixels.resize(raw.size());
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t c = 0; c < set.channels; ++c) {
            const std::size_t offset = i * imageSize + c * plane;
            const float* map = table.data() + static_cast<std::size_t>(c) * 256;
            for (std::size_t k = 0; k < plane; ++k)
                set.pixels[offset + k] = map[raw[offset + k]];
        }
}

void renormaliseImages(ImageSet& set, const std::vector<double>& mean, const std::vector<double>& stdDev)
{
    if (mean.size() != set.channels || stdDev.size() != set.channels)
        throw std::invalid_argument("renormaliseImages: " + std::to_string(mean.size()) + " means and "
            + std::to_string(stdDev.size()) + " stds for " + std::to_string(set.channels) + " channels");
    for (double s : stdDev)
        if (!(s > 0))
            throw std::invalid_argument("renormaliseImages: a std is not positive");
    const std::size_t plane = static_cast<std::size_t>(set.height) * set.width;
    const std::size_t imageSize = set.imageSize();
    for (std::uint32_t c = 0; c < set.channels; ++c) {
        // raw = p·oldStd + oldMean, so p' = (raw − mean) / std = p·scale + shift.
        const double scale = set.channelStd[c] / stdDev[c];
        const double shift = (set.channelMean[c] - mean[c]) / stdDev[c];
        for (std::size_t i = 0; i < set.size(); ++i) {
            float* p = set.pixels.data() + i * imageSize + c * plane;
            for (std::size_t k = 0; k < plane; ++k)
                p[k] = static_cast<float>(p[k] * scale + shift);
        }
    }
    set.channelMean = mean;
    set.channelStd = stdDev;
}

std::string imageSplit(const ReadOptions& options, const std::string& file)
{
    const auto it = options.params.find("split");
    if (it == options.params.end())
        return "train";
    if (it->second != "train" && it->second != "test")
        throw DatasetError(file, "parameter split", quotedToken(it->second) + " is not a split: train or test");
    return it->second;
}

} // namespace ks::data
