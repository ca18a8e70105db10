// The generator behind the built-in cnn data: balanced classes of stripe-and-blob images, each image a function of
// (seed, index) only, built in parallel and quantised to bytes so it is normalised exactly like a file.

#include "data/cancel.h"
#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/image_set.h"
#include "data/random.h"
#include "data/reader_messages.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace ks::data {

namespace {

// CounterRng streams, far apart so no two uses share one: the label shuffle (index = position), each image's pattern
// draws (DrawSequence, index = image) and the pixel noise (index = pixel of the whole set), and the held-out split's
// label shuffle (its images take the indices after the training images').
constexpr std::uint64_t kLabelStream = 1ULL << 40;
constexpr std::uint64_t kPatternStream = 2ULL << 40;
constexpr std::uint64_t kNoiseStream = 3ULL << 40;
constexpr std::uint64_t kHeldOutLabelStream = 4ULL << 40;

/// Limits that keep the shapes sensible for a network and the labels in a byte.
constexpr std::uint32_t kMaxChannels = 16;
constexpr std::uint32_t kMinSide = 4;
constexpr std::uint32_t kMaxSide = 1024;
constexpr std::uint32_t kMaxClasses = 256;

/// Pattern amplitudes on the [0, 1] scale before quantisation: strong enough for a small CNN to learn within a few
/// hundred steps, noisy enough that it has to.
constexpr double kStripeAmplitude = 0.22;
constexpr double kBlobAmplitude = 0.35;
constexpr double kNoiseSd = 0.12;

const char* const kGenerator = "generator";

std::string describe(const ImageGenerator& g)
{
    return "generated images: " + std::to_string(g.count) + " of " + std::to_string(g.channels) + " × "
        + std::to_string(g.height) + " × " + std::to_string(g.width) + ", " + std::to_string(g.classes)
        + " classes, seed " + std::to_string(g.seed);
}

void checkGenerator(const ImageGenerator& g)
{
    if (g.count == 0)
        throw DatasetError(kGenerator, "count", "must be at least 1");
    if (g.channels == 0 || g.channels > kMaxChannels)
        throw DatasetError(kGenerator, "channels",
            "must be between 1 and " + std::to_string(kMaxChannels) + ", got " + std::to_string(g.channels));
    if (g.height < kMinSide || g.height > kMaxSide || g.width < kMinSide || g.width > kMaxSide)
        throw DatasetError(kGenerator, g.height < kMinSide || g.height > kMaxSide ? "height" : "width",
            "height and width must be between " + std::to_string(kMinSide) + " and " + std::to_string(kMaxSide)
                + ", got " + std::to_string(g.height) + " × " + std::to_string(g.width));
    if (g.classes < 2 || g.classes > kMaxClasses)
        throw DatasetError(kGenerator, "classes",
            "must be between 2 and " + std::to_string(kMaxClasses) + " (byte labels), got "
                + std::to_string(g.classes));
}

/// `count` images at the indices first … first + count − 1, with balanced labels shuffled on `labelStream`,
/// normalised with their own statistics.
ImageSet generateSplit(
    const ImageGenerator& g, const CounterRng& rng, std::uint64_t count, std::uint64_t first, std::uint64_t labelStream)
{
    const std::uint64_t imageSize = static_cast<std::uint64_t>(g.channels) * g.height * g.width;
    ImageSet set;
    set.channels = g.channels;
    set.height = g.height;
    set.width = g.width;
    set.classes = g.classes;
    // Balanced: i mod classes, shuffled (Fisher–Yates), so every class has count/classes images, ±1.
    set.labels.resize(count);
    for (std::uint64_t i = 0; i < count; ++i)
        set.labels[i] = static_cast<std::uint8_t>(i % g.classes);
    for (std::uint64_t i = count - 1; i > 0; --i) {
        DrawSequence draws(rng, labelStream, i);
        std::swap(set.labels[i], set.labels[draws.below(i + 1)]);
    }

    // A stop request (Ctrl-C, Cancel) is checked while the memory is first touched and once an image: the images
    // left are skipped, then it throws.
    const CancelPoint cancel = ambientCancelPoint();
    std::vector<std::uint8_t> raw;
    resizeCancellably(raw, count * imageSize, cancel);
    const double side = std::min(g.height, g.width);
    const double classes = g.classes;
    const auto images = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
    for (std::int64_t image = 0; image < images; ++image) {
        if (cancel.stopRequested())
            continue;
        const auto local = static_cast<std::uint64_t>(image);
        const std::uint64_t i = first + local;
        const double k = set.labels[local];
        DrawSequence draws(rng, kPatternStream, i);
        // The class fixes the stripes' orientation and frequency and the blob's place on a circle round the centre;
        // the image draws a phase, a shift of a few pixels and an amplitude.
        const double angle = std::numbers::pi * k / classes;
        const double cycles = 1.5 + static_cast<double>(static_cast<std::uint64_t>(k) % 3);
        const double phase = 2.0 * std::numbers::pi * draws.uniform();
        const double shiftX = (draws.uniform() - 0.5) * 0.12 * side;
        const double shiftY = (draws.uniform() - 0.5) * 0.12 * side;
        const double amplitude = 0.8 + 0.4 * draws.uniform();
        const double blobAngle = 2.0 * std::numbers::pi * k / classes;
        const double blobX = 0.5 * g.width + 0.28 * side * std::cos(blobAngle) + shiftX;
        const double blobY = 0.5 * g.height + 0.28 * side * std::sin(blobAngle) + shiftY;
        const double blobSigma = 0.12 * side;
        const double cosA = std::cos(angle);
        const double sinA = std::sin(angle);
        for (std::uint32_t c = 0; c < g.channels; ++c) {
            // Colour images tint each channel by class, so colour carries information too.
            const double tint = g.channels == 1
                ? 1.0
                : 0.7 + 0.3 * std::cos(2.0 * std::numbers::pi * (k / classes + static_cast<double>(c) / g.channels));
            for (std::uint32_t y = 0; y < g.height; ++y)
                for (std::uint32_t x = 0; x < g.width; ++x) {
                    const double u = (x - shiftX) / side;
                    const double v = (y - shiftY) / side;
                    const double stripe = std::sin(2.0 * std::numbers::pi * cycles * (u * cosA + v * sinA) + phase);
                    const double dx = x - blobX;
                    const double dy = y - blobY;
                    const double blob = std::exp(-(dx * dx + dy * dy) / (2.0 * blobSigma * blobSigma));
                    const std::uint64_t pixel
                        = i * imageSize + (static_cast<std::uint64_t>(c) * g.height + y) * g.width + x;
                    const double value = 0.4 + tint * (kStripeAmplitude * amplitude * stripe + kBlobAmplitude * blob)
                        + kNoiseSd * rng.normal(kNoiseStream, pixel);
                    raw[pixel - first * imageSize]
                        = static_cast<std::uint8_t>(std::lround(std::clamp(value, 0.0, 1.0) * 255.0));
                }
        }
    }
    cancel.throwIfStopped();
    normaliseImages(set, raw, kGenerator);
    set.storedType = "uint8 (generated)";
    return set;
}

} // namespace

ImageSet generateImages(const ImageGenerator& g)
{
    checkGenerator(g);
    const std::string what = describe(g);
    const std::uint64_t imageSize = static_cast<std::uint64_t>(g.channels) * g.height * g.width;
    requireHostMemory(saturatingMul(saturatingMul(saturatingAdd(g.count, g.heldOut), imageSize), 1 + sizeof(float)),
        kGenerator, what, "the generated images");
    const CounterRng rng(g.seed);

    ImageSet set = generateSplit(g, rng, g.count, 0, kLabelStream);
    set.sourceFiles = {what};
    if (g.heldOut > 0) {
        // More images of the same generator at the indices after the training images: the same classes and patterns,
        // never seen in training.
        ImageSet heldOut = generateSplit(g, rng, g.heldOut, g.count, kHeldOutLabelStream);
        heldOut.sourceFiles
            = {"generated images " + std::to_string(g.count) + " … " + std::to_string(g.count + g.heldOut - 1)};
        attachHeldOut(set, std::move(heldOut), kGenerator);
    }
    return set;
}

} // namespace ks::data
