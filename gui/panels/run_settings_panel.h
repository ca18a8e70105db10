#pragma once

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
struct RunOptions;
} // namespace ks

namespace ks::gui {

class ParamEditor;

/// Everything about how a sweep runs, as the user set it (saved in workspaces and settings).
struct RunSettings {
    QString sizes; ///< "" (the dataset's or generator's own size) or a size list: "1e4,1e6", "2^16..2^24"
    std::map<std::string, std::string> params; ///< the workload's run parameters
    double noisePct = 0.5;
    int warmup = 1;
    int minRepetitions = 5;
    int maxRepetitions = 500;
    double timeLimitS = 5.0;
    bool flushL2 = true;
    int device = 0;
    QString baseline; ///< variant the speedup chart divides by

    /// The runner's options from these settings.
    ks::RunOptions runOptions() const;
};

/// The "Run settings" section: sizes to sweep, the workload's parameters, the stopping rule, cache flushing, the
/// CUDA device and the baseline variant for speedups.
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

Q_SIGNALS:
    void changed();
    void baselineChanged(const QString& variant);

private:
    QLineEdit* m_sizes;
    ParamEditor* m_params;
    QDoubleSpinBox* m_noise;
    QSpinBox* m_warmup;
    QSpinBox* m_minReps;
    QSpinBox* m_maxReps;
    QDoubleSpinBox* m_timeLimit;
    QCheckBox* m_flush;
    QComboBox* m_device;
    QComboBox* m_baseline;
};

} // namespace ks::gui
