#include "gui/views/cnn_runs.h"

#include "gui/results_model.h"

#include <QLocale>
#include <QObject>
#include <algorithm>
#include <array>
#include <cmath>

namespace ks::gui::cnn {

namespace {
constexpr std::string_view kTimePrefix = "time ";
constexpr std::string_view kForward = " forward";
constexpr std::string_view kBackward = " backward";

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Tableau 10's hues (Stone 2016), one per layer, far enough apart to name a segment at a glance; the variants'
/// own palette is left to the variants, which the breakdown names on its axis instead.
const std::array<QColor, 8> kLayerColors
    = {QColor(0x4e, 0x79, 0xa7), QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48),
        QColor(0xf2, 0x8e, 0x2b), QColor(0xb0, 0x7a, 0xa1), QColor(0xe1, 0x57, 0x59), QColor(0x9c, 0x75, 0x5f)};
} // namespace

const std::vector<QString>& knownLayers()
{
    static const std::vector<QString> layers
        = {QStringLiteral("conv1"), QStringLiteral("pool1"), QStringLiteral("conv2"), QStringLiteral("pool2"),
            QStringLiteral("fc1"), QStringLiteral("fc2"), QStringLiteral("loss"), QStringLiteral("update")};
    return layers;
}

std::vector<Phase> stepPhases(const Facts& facts)
{
    std::vector<Phase> phases;
    for (const auto& [name, ms] : facts) {
        const std::string_view full(name);
        if (full.substr(0, kTimePrefix.size()) != kTimePrefix || !std::isfinite(ms))
            continue;
        const std::string_view phase = full.substr(kTimePrefix.size());
        Phase p;
        p.name = QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size()));
        p.ms = ms;
        std::string_view layer = phase;
        if (endsWith(phase, kBackward)) {
            p.backward = true;
            layer = phase.substr(0, phase.size() - kBackward.size());
        } else if (endsWith(phase, kForward)) {
            layer = phase.substr(0, phase.size() - kForward.size());
        }
        p.layer = QString::fromUtf8(layer.data(), static_cast<qsizetype>(layer.size()));
        phases.push_back(std::move(p));
    }
    return phases;
}

std::optional<double> fact(const Facts& facts, std::string_view name)
{
    for (const auto& [n, value] : facts)
        if (n == name)
            return value;
    return std::nullopt;
}

QString determinismText(const std::optional<bool>& deterministic)
{
    if (!deterministic)
        return QObject::tr("not checked");
    return *deterministic ? QObject::tr("bit-identical on replay") : QObject::tr("differs on replay");
}

QString accuracyText(const Facts& facts)
{
    const auto accuracy = fact(facts, "accuracy");
    if (!accuracy)
        return QObject::tr("not measured");
    QString text = QLocale().toString(*accuracy, 'f', 1) + QStringLiteral(" %");
    if (const auto images = fact(facts, "accuracy_images"); images && *images > 0)
        text += QObject::tr(" of %1 images").arg(QLocale().toString(static_cast<qlonglong>(std::llround(*images))));
    return text;
}

std::map<int, int> latestRuns(const ResultsModel& model, const std::string& datasetHash, bool includeRunning)
{
    std::map<int, int> rowByVariant;
    for (int row = 0; row < model.rowCount(); ++row) {
        const Summary& s = model.summary(row);
        if (s.workload != "cnn" || (s.repetitions <= 0 && s.samplesMs.empty() && s.sampleMetrics.empty()))
            continue;
        if (model.isRunning(row) ? !includeRunning : (!datasetHash.empty() && s.datasetHash != datasetHash))
            continue;
        rowByVariant[model.variantIndex(QString::fromStdString(s.variant))] = row;
    }
    return rowByVariant;
}

QColor phaseColor(const QString& layer, bool backward)
{
    const auto& layers = knownLayers();
    const auto known = std::find(layers.begin(), layers.end(), layer);
    QColor c;
    if (known != layers.end()) {
        c = kLayerColors[static_cast<std::size_t>(known - layers.begin())];
    } else {
        // A layer this view does not know (a fused phase, "conv1+pool1"): a hue from its name, the same every time.
        const double hue = std::fmod(0.07 + 0.618033988749895 * double(qHash(layer) % 97u), 1.0);
        c = QColor::fromHsvF(static_cast<float>(hue), 0.55f, 0.75f);
    }
    if (!backward)
        return c;
    // Half way to white: the same hue, told apart from the forward phase beside it.
    return QColor((c.red() + 255) / 2, (c.green() + 255) / 2, (c.blue() + 255) / 2);
}

QString lossAgainstCudnn(const Summary& run, const std::vector<const Summary*>& runs)
{
    if (run.variant == "cudnn" || run.sampleMetrics.empty())
        return {};
    const auto sameTraining = [&](const Summary& other) {
        for (const char* name : {"batch", "lr", "momentum", "seed"})
            if (run.params.has(name) != other.params.has(name)
                || (run.params.has(name) && run.params.text(name) != other.params.text(name)))
                return false;
        return true;
    };
    for (const Summary* other : runs) {
        if (other->variant != "cudnn" || other->sampleMetrics.empty() || !sameTraining(*other))
            continue;
        const std::size_t k = std::min(run.sampleMetrics.size(), other->sampleMetrics.size());
        const double theirs = other->sampleMetrics[k - 1];
        if (!(theirs > 0.0))
            return {};
        const double relative = 100.0 * (run.sampleMetrics[k - 1] - theirs) / theirs;
        return QStringLiteral("%1%2 % at step %3")
            .arg(relative >= 0.0 ? QStringLiteral("+") : QString())
            .arg(relative, 0, 'f', 2)
            .arg(k);
    }
    return {};
}

} // namespace ks::gui::cnn
