#include "gui/panels/run_settings_panel.h"

#include "compute/core/errors.h"
#include "compute/core/runner.h"
#include "compute/core/sweep.h"
#include "compute/core/workload.h"
#include "compute/device/device_info.h"
#include "data/host_memory.h"
#include "gui/panels/param_editor.h"
#include "gui/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <stdexcept>

namespace ks::gui {

RunSettingsPanel::RunSettingsPanel(QWidget* parent)
    : QWidget(parent)
    , m_sizes(new QLineEdit(this))
    , m_sizesMessage(new QLabel(this))
    , m_keepSizes(new QCheckBox(tr("Keep these sizes when a file opens"), this))
    , m_params(new ParamEditor(this))
    , m_noiseTargetPct(new QDoubleSpinBox(this))
    , m_warmup(new QSpinBox(this))
    , m_minReps(new QSpinBox(this))
    , m_maxReps(new QSpinBox(this))
    , m_timeLimit(new QDoubleSpinBox(this))
    , m_flush(new QCheckBox(tr("Flush caches between repetitions"), this))
    , m_checkDeterminism(new QCheckBox(tr("Check determinism (run twice, compare bits)"), this))
    , m_device(new QComboBox(this))
    , m_devices(new QListWidget(this))
    , m_baseline(new QComboBox(this))
    , m_memoryLimit(new QLineEdit(this))
    , m_memoryMessage(new QLabel(this))
{
    m_sizes->setObjectName(QStringLiteral("sizes"));
    m_sizes->setPlaceholderText(tr("the dataset's own size"));
    m_sizes->setToolTip(tr("Sizes to sweep: N, 2^K, 1e6, comma-separated, or A..B for every power of two from A to "
                           "B. Empty: one run at the dataset's own size.\nGenerated data is made afresh for each "
                           "size; a loaded file is cut to its first N elements, so each size must fit in it.\n"
                           "Opening a file empties this field (the run measures the whole file) unless \"Keep these "
                           "sizes when a file opens\" is ticked."));
    m_sizesMessage->setObjectName(QStringLiteral("sizesMessage"));
    m_sizesMessage->setWordWrap(true);
    m_sizesMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sizesMessage->hide();
    m_keepSizes->setObjectName(QStringLiteral("keepSizes"));
    m_keepSizes->setToolTip(tr("Off: opening a file empties the sizes, so the run measures the whole file.\nOn: "
                               "every file opened is swept at these sizes (each must fit in the file)."));
    m_params->setObjectName(QStringLiteral("runParams"));
    m_noiseTargetPct->setObjectName(QStringLiteral("noiseTarget"));
    m_noiseTargetPct->setRange(0.01, 50.0);
    m_noiseTargetPct->setDecimals(2);
    m_noiseTargetPct->setSuffix(QStringLiteral(" %"));
    m_noiseTargetPct->setToolTip(tr("Stop repeating once the relative standard error of the mean is under this"));
    m_warmup->setObjectName(QStringLiteral("warmup"));
    m_warmup->setRange(0, 1000);
    m_minReps->setObjectName(QStringLiteral("minRepetitions"));
    m_minReps->setRange(1, 1'000'000);
    m_maxReps->setObjectName(QStringLiteral("maxRepetitions"));
    m_maxReps->setRange(1, 10'000'000);
    m_timeLimit->setObjectName(QStringLiteral("timeLimit"));
    m_timeLimit->setRange(0.01, 86400.0);
    m_timeLimit->setDecimals(2);
    m_timeLimit->setSuffix(QStringLiteral(" s"));
    m_timeLimit->setToolTip(tr("Wall time per run, warm-ups included; at least one repetition always runs"));
    m_flush->setObjectName(QStringLiteral("flushCaches"));
    m_flush->setToolTip(tr("Evict the inputs from the GPU's L2 (or the CPU's last-level cache) before each "
                           "repetition, so small inputs are timed from memory, not from cache"));
    m_checkDeterminism->setObjectName(QStringLiteral("checkDeterminism"));
    m_checkDeterminism->setToolTip(
        tr("After the repetitions, prepare each variant afresh on the same input, run it once "
           "more untimed and compare the two results bit for bit (atomics-based variants "
           "usually differ). Runs that keep state, such as training, are always replayed."));
    m_device->setObjectName(QStringLiteral("device"));
    m_baseline->setObjectName(QStringLiteral("baseline"));
    m_baseline->setToolTip(tr("The variant the speedup chart divides by"));

    m_devices->setObjectName(QStringLiteral("devices"));
    m_devices->setToolTip(tr("The GPUs the multi-GPU variants (tiled_f32_multi, dmma_refined_multi, "
                             "warp_shuffle_multi) spread their work over, a thread and an NCCL rank each; the other "
                             "variants run on Device alone"));
    const auto devices = device::cudaDevices();
    if (devices.empty()) {
        m_device->addItem(tr("no CUDA device"), 0);
        m_device->setToolTip(QString::fromStdString(device::cudaUnavailableReason()));
        m_device->setEnabled(false);
        m_devices->addItem(tr("no CUDA device"));
        m_devices->setEnabled(false);
    } else {
        for (const auto& d : devices) {
            const QString label = QStringLiteral("%1: %2").arg(d.index).arg(QString::fromStdString(d.name));
            m_device->addItem(label, d.index);
            auto* item = new QListWidgetItem(label, m_devices);
            item->setData(Qt::UserRole, d.index);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Checked);
        }
    }
    // As tall as its rows, up to four; a scroll bar beyond.
    const int rows = std::min(m_devices->count(), 4);
    m_devices->setFixedHeight(rows * std::max(m_devices->sizeHintForRow(0), 16) + 2 * m_devices->frameWidth() + 2);

    m_memoryLimit->setObjectName(QStringLiteral("memoryLimit"));
    m_memoryLimit->setPlaceholderText(tr("none of its own"));
    m_memoryLimit->setToolTip(tr("A memory budget of this app's own (4G, 512M, 1.5GiB), as kernelscope --memory-limit "
                                 "sets it: a dataset or generated input that would need more is refused with the "
                                 "figure before anything is allocated; user kernels' workers get it too. The budget "
                                 "is the smallest of this, the machine's available memory, ulimit -v and the cgroup's "
                                 "limit. Empty: no limit of its own."));
    m_memoryMessage->setObjectName(QStringLiteral("memoryMessage"));
    m_memoryMessage->setWordWrap(true);
    m_memoryMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (std::uint64_t limit = data::memoryLimit(); limit != 0) {
        // As the user would type it: "2G" for 2 GiB, a plain byte count when no unit divides it.
        const char* unit = "";
        for (const char* u : {"K", "M", "G", "T"}) {
            if (limit % 1024 != 0)
                break;
            limit /= 1024;
            unit = u;
        }
        m_memoryLimit->setText(QString::number(limit) + QLatin1String(unit));
    }

    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    // The field, what it will run (or why it cannot) right under it, and the choice to keep it for every file.
    auto* sizesBox = new QWidget(this);
    auto* sizesLayout = new QVBoxLayout(sizesBox);
    sizesLayout->setContentsMargins(0, 0, 0, 0);
    sizesLayout->setSpacing(2);
    sizesLayout->addWidget(m_sizes);
    sizesLayout->addWidget(m_sizesMessage);
    sizesLayout->addWidget(m_keepSizes);
    form->addRow(tr("Sizes"), sizesBox);
    form->addRow(tr("Parameters"), m_params);
    form->addRow(tr("Noise target"), m_noiseTargetPct);
    form->addRow(tr("Warm-up runs"), m_warmup);
    form->addRow(tr("Min repetitions"), m_minReps);
    form->addRow(tr("Max repetitions"), m_maxReps);
    form->addRow(tr("Time limit"), m_timeLimit);
    form->addRow(QString(), m_flush);
    form->addRow(QString(), m_checkDeterminism);
    form->addRow(tr("Device"), m_device);
    form->addRow(tr("Multi-GPU devices"), m_devices);
    form->addRow(tr("Baseline"), m_baseline);
    auto* memoryBox = new QWidget(this);
    auto* memoryLayout = new QVBoxLayout(memoryBox);
    memoryLayout->setContentsMargins(0, 0, 0, 0);
    memoryLayout->setSpacing(2);
    memoryLayout->addWidget(m_memoryLimit);
    memoryLayout->addWidget(m_memoryMessage);
    form->addRow(tr("Memory limit"), memoryBox);
    applyMemoryLimit();
    connect(m_memoryLimit, &QLineEdit::editingFinished, this, &RunSettingsPanel::applyMemoryLimit);

    setSettings(RunSettings {});
    auto emitChanged = [this] { Q_EMIT changed(); };
    connect(m_sizes, &QLineEdit::textEdited, this, [this] { m_clearedSizes.clear(); });
    connect(m_sizes, &QLineEdit::textChanged, this, [this] {
        updateSizesState();
        Q_EMIT changed();
    });
    connect(m_params, &ParamEditor::changed, this, emitChanged);
    connect(m_params, &ParamEditor::edited, this, [this](const QString& name) { m_userSetParams.insert(name); });
    connect(m_noiseTargetPct, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(m_warmup, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_minReps, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_maxReps, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_timeLimit, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(m_flush, &QCheckBox::toggled, this, emitChanged);
    connect(m_checkDeterminism, &QCheckBox::toggled, this, emitChanged);
    connect(m_device, &QComboBox::currentIndexChanged, this, emitChanged);
    connect(m_devices, &QListWidget::itemChanged, this, [this, emitChanged](QListWidgetItem* item) {
        // At least one GPU stays ticked: a multi-GPU run on none is no run.
        bool any = false;
        for (int r = 0; r < m_devices->count(); ++r)
            any = any || m_devices->item(r)->checkState() == Qt::Checked;
        if (!any) {
            const QSignalBlocker block(m_devices);
            item->setCheckState(Qt::Checked);
            return;
        }
        emitChanged();
    });
    connect(m_baseline, &QComboBox::currentIndexChanged, this, [this] {
        Q_EMIT baselineChanged(m_baseline->currentData().toString());
        Q_EMIT changed();
    });
}

void RunSettingsPanel::setWorkload(const ks::Workload* workload)
{
    const QString previous = m_baseline->currentData().toString();
    m_userSetParams.clear();
    m_suggestions.clear();
    m_params->setAxes(workload ? workload->parameters() : std::vector<Axis> {});
    const QSignalBlocker block(m_baseline);
    m_baseline->clear();
    if (workload) {
        for (const auto& v : workload->variants())
            m_baseline->addItem(QString::fromStdString(v.name), QString::fromStdString(v.id));
        // The seed's own CPU formula is the natural baseline where there is one; else the reference.
        int index = m_baseline->findData(previous);
        if (index < 0)
            index = m_baseline->findData(QStringLiteral("reference"));
        m_baseline->setCurrentIndex(std::max(index, 0));
    }
    Q_EMIT baselineChanged(m_baseline->currentData().toString());
}

RunSettings RunSettingsPanel::settings() const
{
    RunSettings s;
    s.sizes = m_sizes->text().trimmed();
    s.params = m_params->values();
    s.options.noiseTarget = m_noiseTargetPct->value() / 100.0;
    s.options.warmup = m_warmup->value();
    s.options.minRepetitions = m_minReps->value();
    s.options.maxRepetitions = m_maxReps->value();
    s.options.timeLimitS = m_timeLimit->value();
    s.options.flushL2 = m_flush->isChecked();
    s.options.checkDeterminism = m_checkDeterminism->isChecked();
    s.options.device = m_device->currentData().toInt();
    // Every GPU ticked is "all" (an empty list), so a saved setting follows the machine it is opened on.
    std::vector<int> ticked;
    for (int r = 0; r < m_devices->count(); ++r)
        if (m_devices->item(r)->checkState() == Qt::Checked && m_devices->isEnabled())
            ticked.push_back(m_devices->item(r)->data(Qt::UserRole).toInt());
    if (static_cast<int>(ticked.size()) < m_devices->count())
        s.options.devices = ticked;
    s.baseline = m_baseline->currentData().toString();
    return s;
}

void RunSettingsPanel::setSettings(const RunSettings& s)
{
    m_sizes->setText(s.sizes);
    if (!s.params.empty())
        m_params->setValues(s.params);
    m_noiseTargetPct->setValue(s.options.noiseTarget * 100.0);
    m_warmup->setValue(s.options.warmup);
    m_minReps->setValue(s.options.minRepetitions);
    m_maxReps->setValue(s.options.maxRepetitions);
    m_timeLimit->setValue(s.options.timeLimitS);
    m_flush->setChecked(s.options.flushL2);
    m_checkDeterminism->setChecked(s.options.checkDeterminism);
    if (const int d = m_device->findData(s.options.device); d >= 0)
        m_device->setCurrentIndex(d);
    if (m_devices->isEnabled()) {
        // A list naming none of this machine's GPUs (saved elsewhere) means all of them.
        const auto named = [&](int index) {
            return s.options.devices.empty()
                || std::find(s.options.devices.begin(), s.options.devices.end(), index) != s.options.devices.end();
        };
        bool any = false;
        for (int r = 0; r < m_devices->count(); ++r)
            any = any || named(m_devices->item(r)->data(Qt::UserRole).toInt());
        const QSignalBlocker block(m_devices);
        for (int r = 0; r < m_devices->count(); ++r) {
            QListWidgetItem* item = m_devices->item(r);
            item->setCheckState(!any || named(item->data(Qt::UserRole).toInt()) ? Qt::Checked : Qt::Unchecked);
        }
    }
    if (!s.baseline.isEmpty())
        if (const int b = m_baseline->findData(s.baseline); b >= 0)
            m_baseline->setCurrentIndex(b);
}

bool RunSettingsPanel::applyMemoryLimit()
{
    const std::string text = m_memoryLimit->text().trimmed().toStdString();
    std::uint64_t limit = 0;
    bool ok = true;
    if (!text.empty()) {
        try {
            limit = data::parseByteSize(text);
        } catch (const std::invalid_argument& e) {
            ok = false;
            m_memoryMessage->setText(QString::fromStdString(e.what()));
        }
    }
    m_memoryLimit->setProperty("ksInvalid", !ok);
    m_memoryLimit->setStyleSheet(
        ok ? QString() : QStringLiteral("QLineEdit { border: 1px solid %1; }").arg(alarmColor().name()));
    QPalette palette = m_memoryMessage->palette();
    palette.setColor(QPalette::WindowText, ok ? this->palette().color(QPalette::PlaceholderText) : alarmColor());
    m_memoryMessage->setPalette(palette);
    if (!ok)
        return false;
    data::setMemoryLimit(limit, "Memory limit in Run settings");
    const std::string source = data::memoryBudgetSource();
    m_memoryMessage->setText(
        tr("Budget now: %1 (%2)")
            .arg(QString::fromStdString(data::formatBytes(data::availableHostMemory())),
                source.empty() ? tr("the machine's available memory") : QString::fromStdString(source)));
    return true;
}

std::vector<std::uint64_t> RunSettingsPanel::sizes() const
{
    const QString text = m_sizes->text().trimmed();
    if (text.isEmpty())
        return {};
    return parseSizeList(text.toStdString());
}

std::map<std::string, std::string> RunSettingsPanel::readerOptions() const
{
    const auto values = m_params->values();
    std::map<std::string, std::string> options;
    for (const auto& axis : m_params->axes())
        if (axis.readerOption)
            if (const auto it = values.find(axis.name); it != values.end())
                options.insert(*it);
    return options;
}

QString RunSettingsPanel::validationError() const
{
    if (const QString e = sizesError(); !e.isEmpty())
        return e;
    if (const QString p = m_params->validationError(); !p.isEmpty())
        return tr("Parameters: %1").arg(p);
    if (m_minReps->value() > m_maxReps->value())
        return tr("The minimum number of repetitions is above the maximum");
    return {};
}

QString RunSettingsPanel::sizesError() const
{
    std::vector<std::uint64_t> list;
    try {
        list = sizes();
    } catch (const ParameterError& e) {
        return tr("Sizes: %1").arg(QString::fromStdString(e.what()));
    }
    if (m_extent.size == 0)
        return {};
    for (const std::uint64_t size : list)
        if (size > m_extent.size)
            return tr("Sizes: %1 is more than the %2 %3 of %4; use 1..%2, or leave it empty for all of them")
                .arg(size)
                .arg(m_extent.size)
                .arg(m_extent.noun, m_extent.name);
    return {};
}

void RunSettingsPanel::updateSizesState()
{
    const QString error = sizesError();
    const bool invalid = !error.isEmpty();
    m_sizes->setProperty("ksInvalid", invalid);
    m_sizes->setStyleSheet(
        invalid ? QStringLiteral("QLineEdit { border: 1px solid %1; }").arg(alarmColor().name()) : QString());
    QPalette palette = m_sizesMessage->palette();
    palette.setColor(QPalette::WindowText, invalid ? alarmColor() : this->palette().color(QPalette::PlaceholderText));
    m_sizesMessage->setPalette(palette);
    if (invalid) {
        m_sizesMessage->setText(error);
        m_sizesMessage->show();
        return;
    }
    if (m_extent.size == 0) {
        m_sizesMessage->clear();
        m_sizesMessage->hide();
        return;
    }
    // A size below the file's times only a prefix of it: say so, as the run's rows carry only the size.
    std::vector<std::uint64_t> list = sizes();
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    const auto whole = std::find(list.begin(), list.end(), m_extent.size);
    const bool all = whole != list.end();
    if (all)
        list.erase(whole);
    QString text;
    if (list.empty()) {
        text = tr("Measures all %1 %2 of %3").arg(m_extent.size).arg(m_extent.noun, m_extent.name);
        if (!m_clearedSizes.isEmpty() && m_sizes->text().trimmed().isEmpty())
            text += tr(" (the sizes %1 were cleared for this file)").arg(m_clearedSizes);
    } else {
        const QString prefix = list.size() == 1 ? QString::number(list.front())
                                                : QStringLiteral("%1 … %2").arg(list.front()).arg(list.back());
        text = tr("Times only the first %1 of %2 %3 of %4")
                   .arg(prefix)
                   .arg(m_extent.size)
                   .arg(m_extent.noun, m_extent.name);
        if (all)
            text += tr(", then all of them");
    }
    m_sizesMessage->setText(text);
    m_sizesMessage->show();
}

void RunSettingsPanel::setDatasetExtent(const DatasetExtent& extent)
{
    m_extent = extent;
    updateSizesState();
}

void RunSettingsPanel::startNewFile()
{
    m_userSetParams.clear();
    if (!m_keepSizes->isChecked()) {
        m_clearedSizes = m_sizes->text().trimmed();
        m_sizes->clear();
    }
}

bool RunSettingsPanel::keepSizes() const
{
    return m_keepSizes->isChecked();
}

void RunSettingsPanel::setKeepSizes(bool keep)
{
    m_keepSizes->setChecked(keep);
}

void RunSettingsPanel::suggestParam(const QString& name, const QString& value)
{
    if (m_userSetParams.contains(name))
        return;
    m_params->setValues({{name.toStdString(), value.toStdString()}});
    m_suggestions[name] = value;
}

bool RunSettingsPanel::holdsSuggestion(const QString& name) const
{
    const auto it = m_suggestions.find(name);
    if (it == m_suggestions.end())
        return false;
    const auto values = m_params->values();
    const auto value = values.find(name.toStdString());
    return value != values.end() && QString::fromStdString(value->second) == it->second;
}

void RunSettingsPanel::setParamUnit(const QString& name, const QString& unit, const QString& note)
{
    m_params->setUnit(name, unit, note);
}

} // namespace ks::gui
