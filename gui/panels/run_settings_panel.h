#pragma once

#include "gui/run_settings.h"

#include <QSet>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <map>
#include <string>

class QCheckBox;
class QComboBox;
class QListWidget;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace ks {
class Workload;
}

namespace ks::gui {

class ParamEditor;

/// The loaded file the sizes apply to: a size above `size` cannot run, one below times a prefix of the file.
struct DatasetExtent {
    std::uint64_t size = 0; ///< the dataset's size measure; 0 when the data is generated (or nothing is loaded)
    QString noun; ///< what `size` counts: "points", "rows", "features"
    QString name; ///< the file's name
};

/// The "Run settings" section: sizes to sweep, the workload's parameters, the stopping rule, cache flushing, the
/// determinism check, the CUDA device and the baseline variant for speedups.
class RunSettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunSettingsPanel(QWidget* parent = nullptr);

    /// Rebuilds the parameter editor and the baseline choices for a workload.
    void setWorkload(const ks::Workload* workload);
    RunSettings settings() const;
    void setSettings(const RunSettings& settings);
    /// Empty when the settings can run; otherwise what is wrong (a bad size list, a parameter out of range).
    QString validationError() const;
    /// The sizes the settings name (empty: one run at the data's own size). Throws ks::ParameterError.
    std::vector<std::uint64_t> sizes() const;
    /// The values of the parameters a reader uses when a file is loaded (axes marked asReaderOption: lrv's
    /// orientation, sdh's frame); a change to one of them changes what the file loads as.
    std::map<std::string, std::string> readerOptions() const;

    /// The loaded file the sizes are checked against (a size above it is an error shown under the field; sizes
    /// below it are said to time a prefix); a default DatasetExtent for generated data.
    void setDatasetExtent(const DatasetExtent& extent);
    /// A file was opened by the user: the sizes field empties (the run measures the whole file) unless "Keep these
    /// sizes" is ticked, and parameters the user set are theirs no longer (suggestParam may set them again).
    void startNewFile();
    /// Whether the sizes stay when a file opens (the user's explicit choice of a sweep for every file).
    bool keepSizes() const;
    void setKeepSizes(bool keep);
    /// Sets a parameter to a value derived from the data, unless the user set it since the file was opened.
    void suggestParam(const QString& name, const QString& value);
    /// Whether a parameter holds the value suggestParam set last (the user has not changed it since).
    bool holdsSuggestion(const QString& name) const;
    /// Whether the user typed or chose this parameter's value since the last startNewFile or setWorkload.
    bool userSetParam(const QString& name) const { return m_userSetParams.contains(name); }
    /// Shows a parameter's unit after its name and a note about it in its tooltip (ParamEditor::setUnit).
    void setParamUnit(const QString& name, const QString& unit, const QString& note);
    /// Applies the "Memory limit" field (as `kernelscope --memory-limit` does: 4G, 512M, empty for none) to the
    /// process's memory budget, which every reader, generator and user-kernel worker obeys; false, with the reason
    /// under the field, for text that is not a size (the budget stays as it was).
    bool applyMemoryLimit();

Q_SIGNALS:
    void changed();
    void baselineChanged(const QString& variant);

private:
    /// Checks the sizes against the extent; marks the field and writes the line under it (error, or what runs).
    void updateSizesState();
    /// Empty when the sizes parse and fit the loaded file, else the message shown under the field.
    QString sizesError() const;

    QLineEdit* m_sizes;
    QLabel* m_sizesMessage;
    QCheckBox* m_keepSizes;
    DatasetExtent m_extent;
    /// The sizes startNewFile emptied, named under the field until the user types again.
    QString m_clearedSizes;
    QSet<QString> m_userSetParams;
    std::map<QString, QString> m_suggestions; ///< the values suggestParam set, by parameter
    ParamEditor* m_params;
    QDoubleSpinBox* m_noiseTargetPct; ///< the stopping rule's target, in %
    QSpinBox* m_warmup;
    QSpinBox* m_minReps;
    QSpinBox* m_maxReps;
    QDoubleSpinBox* m_timeLimit;
    QCheckBox* m_flush;
    QCheckBox* m_checkDeterminism;
    QComboBox* m_device;
    QListWidget* m_devices; ///< the multi-device variants' GPUs, one checkable row each
    QComboBox* m_baseline;
    QLineEdit* m_memoryLimit;
    QLabel* m_memoryMessage; ///< the budget now and which limit sets it, or why the field is refused
};

} // namespace ks::gui
