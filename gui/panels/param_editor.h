#pragma once

#include "compute/core/params.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace ks::gui {

/// A form built from a list of parameter axes: one line edit per numeric or text axis, one combo box per enum axis.
/// Values are text in the forms ParamSet::parse accepts, so the CLI and the GUI agree on what is valid.
class ParamEditor : public QWidget {
    Q_OBJECT
public:
    /// An empty form; setAxes fills it.
    explicit ParamEditor(QWidget* parent = nullptr);
    ~ParamEditor() override;

    /// Rebuilds the form: one editor per axis, showing `values` where given and the axis default otherwise.
    void setAxes(const std::vector<ks::Axis>& axes, const std::map<std::string, std::string>& values = {});
    /// The axes the form was built from.
    const std::vector<ks::Axis>& axes() const { return m_axes; }

    /// Every axis's value as text, hidden ones included.
    std::map<std::string, std::string> values() const;
    /// Sets the values of the named axes (names without an axis are ignored); emits changed() once.
    void setValues(const std::map<std::string, std::string>& values);
    /// Puts every axis back to its default.
    void resetToDefaults();

    /// Hides the rows of these axes (their values still appear in values()); an empty list shows every row.
    void setHiddenNames(const QStringList& names);
    /// The names passed to setHiddenNames.
    QStringList hiddenNames() const { return m_hiddenNames; }

    /// Shows an axis's unit after its name ("bucket_width (Å)"; an empty unit shows the name alone) and `note` in
    /// its tooltip ("in the same unit as the coordinates").
    void setUnit(const QString& name, const QString& unit, const QString& note);

    /// The editor widget of an axis (a QLineEdit or a QComboBox), or nullptr.
    QWidget* editorFor(const QString& name) const;

    /// Empty when ParamSet::parse accepts values(), else its message.
    QString validationError() const;

signals:
    /// A value changed, by the user or through setValues/setAxes.
    void changed();
    /// The user typed in an axis's field or picked one of its choices (never emitted for setValues/setAxes).
    void edited(const QString& name);

private:
    struct Row {
        ks::Axis axis;
        QLabel* label = nullptr;
        QLineEdit* line = nullptr; ///< numeric and text axes
        QComboBox* combo = nullptr; ///< enum axes
        QString baseToolTip;
        QString unitNote; ///< setUnit's note, after the base tooltip
    };

    void clearRows();
    /// A folder button at the end of a text axis's field that picks the file with a dialog.
    void addBrowseAction(QLineEdit* line, const ks::Axis& axis);
    void setRowText(Row& row, const QString& text);
    QString rowText(const Row& row) const;
    /// Marks a row's editor red with the error as its tooltip, or clears the mark.
    void updateRowState(Row& row);
    QString toolTipOf(const Row& row) const;
    void onEdited();

    std::vector<ks::Axis> m_axes;
    std::vector<Row> m_rows;
    QStringList m_hiddenNames;
    QFormLayout* m_form = nullptr;
    QLabel* m_emptyLabel = nullptr;
    bool m_bulkUpdate = false;
};

} // namespace ks::gui
