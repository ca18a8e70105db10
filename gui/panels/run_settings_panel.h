#pragma once

#include "gui/run_settings.h"

#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <string>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace ks {
class Workload;
}

namespace ks::gui {

class ParamEditor;

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

Q_SIGNALS:
    void changed();
    void baselineChanged(const QString& variant);

private:
    QLineEdit* m_sizes;
    ParamEditor* m_params;
    QDoubleSpinBox* m_noiseTargetPct; ///< the stopping rule's target, in %
    QSpinBox* m_warmup;
    QSpinBox* m_minReps;
    QSpinBox* m_maxReps;
    QDoubleSpinBox* m_timeLimit;
    QCheckBox* m_flush;
    QCheckBox* m_checkDeterminism;
    QComboBox* m_device;
    QComboBox* m_baseline;
};

} // namespace ks::gui
