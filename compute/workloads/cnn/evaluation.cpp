// A trained cnn network scored after its run: held-out accuracy and the features file (evaluation.h).
#include "compute/workloads/cnn/evaluation.h"

#include "compute/core/atomic_file.h"
#include "compute/core/cancel.h"
#include "compute/core/errors.h"
#include "compute/workloads/cnn/gpu_scoring.h"
#include "data/hdf5_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace ks::cnn {

namespace {

std::string lowerCase(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool isHdf5Path(const std::string& path)
{
    const std::string lower = lowerCase(path);
    return lower.ends_with(".h5") || lower.ends_with(".hdf5");
}

/// One LIBSVM line per row: the label, then index:value for each non-zero feature (1-based, 9 significant digits).
void writeLibsvm(const std::string& path, const FeatureRows& rows)
{
    AtomicFile file(path);
    std::ostream& out = file.stream();
    std::string line;
    char number[48];
    for (std::size_t r = 0; r < rows.size(); ++r) {
        line.assign(std::to_string(rows.labels[r]));
        const float* row = rows.values.data() + r * Layout::kHidden;
        for (int k = 0; k < Layout::kHidden; ++k) {
            if (row[k] == 0.0f)
                continue;
            const auto [end, ec] = std::to_chars(number, number + sizeof number, row[k], std::chars_format::general, 9);
            line += ' ';
            line += std::to_string(k + 1);
            line += ':';
            line.append(number, ec == std::errc() ? end : number);
        }
        line += '\n';
        out << line;
    }
    file.commit();
}

void writeHdf5Split(data::h5::File& file, const std::string& group, const FeatureRows& rows)
{
    file.writeFloats(group + "/features", rows.values, {rows.size(), std::uint64_t(Layout::kHidden)});
    file.writeUInt8s(group + "/labels", rows.labels, {rows.size()});
}

std::string percentText(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

/// Every image of `set` (its features and labels).
FeatureRows featuresOf(
    ScoringDevice device, const Layout& layout, std::span<const float> weights, const data::ImageSet& set)
{
    FeatureRows rows;
    rows.labels = set.labels;
    rows.values.resize(set.size() * Layout::kHidden);
    std::vector<std::uint8_t> predicted(set.size());
    scoreImages(device, layout, weights, set, set.size(), predicted, rows.values);
    return rows;
}

} // namespace

std::vector<float> trainedWeights(const Layout& layout, const Result& result)
{
    const auto& tensors = layout.tensors();
    if (result.arrays.size() != tensors.size())
        throw ComputeError("cnn: the result carries " + std::to_string(result.arrays.size())
            + " trained weight arrays; the network has " + std::to_string(tensors.size()) + " tensors");
    std::vector<float> weights(layout.parameterCount());
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        const NamedArray& a = result.arrays[t];
        if (a.name != tensors[t].name || a.values.size() != tensors[t].count)
            throw ComputeError("cnn: trained weight array " + std::to_string(t) + " is '" + a.name + "' of "
                + std::to_string(a.values.size()) + " values; the network's tensor " + std::to_string(t) + " is '"
                + tensors[t].name + "' of " + std::to_string(tensors[t].count));
        std::copy(a.values.begin(), a.values.end(), weights.begin() + static_cast<std::ptrdiff_t>(tensors[t].offset));
    }
    return weights;
}

void scoreImages(ScoringDevice device, const Layout& layout, std::span<const float> weights, const data::ImageSet& set,
    std::size_t count, std::span<std::uint8_t> predicted, std::span<float> features)
{
    if (count > set.size() || predicted.size() != count
        || (!features.empty() && features.size() != count * Layout::kHidden))
        throw std::invalid_argument("scoreImages: " + std::to_string(count) + " images of a set of "
            + std::to_string(set.size()) + ", " + std::to_string(predicted.size()) + " predictions, "
            + std::to_string(features.size()) + " feature values");
    if (weights.size() != layout.parameterCount())
        throw std::invalid_argument("scoreImages: weights of another layout");
    if (device == ScoringDevice::Gpu) {
#if KS_HAVE_CUDA
        scoreImagesOnGpu(layout, weights, set, count, kScoringBatch, predicted, features);
        return;
#else
        throw ComputeError("cnn: scoring on the GPU needs a build with CUDA");
#endif
    }
    const std::size_t imageSize = set.imageSize();
    std::vector<float> logits, batchFeatures;
    // Scoring follows a run, outside its RunContext: a stop request (Ctrl-C, Cancel) is seen between batches.
    const CancelPoint& cancel = ambientCancelPoint();
    for (std::size_t first = 0; first < count; first += kScoringBatch) {
        cancel.throwIfStopped();
        const int batch = static_cast<int>(std::min<std::size_t>(kScoringBatch, count - first));
        const std::size_t b = static_cast<std::size_t>(batch);
        logits.resize(b * Layout::kClasses);
        batchFeatures.resize(b * Layout::kHidden);
        inferenceForward<float>(layout, weights,
            std::span<const float>(set.pixels.data() + first * imageSize, b * imageSize), batch, logits, batchFeatures);
        const std::vector<std::uint8_t> classes = predictedClasses(logits, batch, Layout::kClasses);
        std::copy(classes.begin(), classes.end(), predicted.begin() + static_cast<std::ptrdiff_t>(first));
        if (!features.empty())
            std::copy(batchFeatures.begin(), batchFeatures.end(),
                features.begin() + static_cast<std::ptrdiff_t>(first * Layout::kHidden));
    }
}

std::vector<std::string> featureFileSuffixes()
{
    return {".h5", ".hdf5", ".libsvm", ".svm", ".txt"};
}

EvaluationSettings evaluationSettings(const ParamSet& params)
{
    EvaluationSettings s;
    s.eval = static_cast<std::uint64_t>(params.integer("eval"));
    s.features = params.text("features");
    return s;
}

std::size_t writeFeatures(const std::string& path, const FeatureRows& train, const FeatureRows* test,
    const std::vector<std::string>& classNames)
{
    for (const FeatureRows* rows : {&train, test})
        if (rows && rows->values.size() != rows->size() * Layout::kHidden)
            throw std::invalid_argument("writeFeatures: rows of another width than 128");
    const std::size_t written = train.size() + (test ? test->size() : 0);
    if (isHdf5Path(path)) {
        // Created beside `path` first (an unwritable place reads as the system says it, not as HDF5's error stack),
        // renamed over it when complete.
        AtomicFile file(path);
        {
            auto h5 = data::h5::File::create(file.temporaryPath());
            writeHdf5Split(h5, "/train", train);
            if (test)
                writeHdf5Split(h5, "/test", *test);
            if (!classNames.empty())
                h5.writeStrings("/class_names", classNames);
        }
        file.commit();
        return written;
    }
    const std::string lower = lowerCase(path);
    if (!lower.ends_with(".libsvm") && !lower.ends_with(".svm") && !lower.ends_with(".txt"))
        throw std::runtime_error(
            "cannot write " + path + ": features are written as .h5, .hdf5, .libsvm, .svm or .txt");
    writeLibsvm(path, train);
    if (test)
        writeLibsvm(path + ".t", *test);
    return written;
}

Facts evaluateTrained(
    const Result& result, const data::ImageSet& set, const EvaluationSettings& settings, ScoringDevice device)
{
    const data::ImageSet* heldOut = set.heldOut.get();
    const std::size_t scored
        = heldOut ? static_cast<std::size_t>(std::min<std::uint64_t>(settings.eval, heldOut->size())) : 0;
    if (scored == 0 && settings.features.empty())
        return {};
    const Layout layout({static_cast<int>(set.channels), static_cast<int>(set.height), static_cast<int>(set.width)});
    const std::vector<float> weights = trainedWeights(layout, result);

    Facts facts;
    std::string accuracy;
    if (scored > 0) {
        std::vector<std::uint8_t> predicted(scored);
        scoreImages(device, layout, weights, *heldOut, scored, predicted, {});
        std::size_t correct = 0;
        for (std::size_t i = 0; i < scored; ++i)
            correct += predicted[i] == heldOut->labels[i];
        const double percent = 100.0 * static_cast<double>(correct) / static_cast<double>(scored);
        facts.emplace_back("accuracy", percent);
        facts.emplace_back("accuracy_images", static_cast<double>(scored));
        accuracy = " (held-out accuracy " + percentText(percent) + " % on " + std::to_string(scored) + " images)";
    }
    if (!settings.features.empty()) {
        try {
            const FeatureRows train = featuresOf(device, layout, weights, set);
            FeatureRows test;
            if (heldOut)
                test = featuresOf(device, layout, weights, *heldOut);
            const std::size_t written
                = writeFeatures(settings.features, train, heldOut ? &test : nullptr, set.classNames);
            facts.emplace_back("features_written", static_cast<double>(written));
        } catch (const ComputeError&) {
            // A failing GPU call stays what it is: it may have left the CUDA context unusable (sticky).
            throw;
        } catch (const std::exception& e) {
            throw ComputeError(std::string("features not written: ") + e.what() + accuracy);
        }
    }
    return facts;
}

} // namespace ks::cnn
