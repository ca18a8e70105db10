#include "gui/panels/param_editor.h"

#include "compute/core/errors.h"
#include "gui/theme.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QStyle>
#include <QValidator>

#include <cmath>

namespace ks::gui {

namespace {

// Marks an enum combo entry that is not one of the axis's choices (a stale value from a saved workspace); it is
// kept visible, flagged invalid, instead of silently replaced by the default.
constexpr int kForeignChoiceRole = Qt::UserRole + 1;
constexpr const char* kInvalidProperty = "ksInvalid";

/// ParamSet's verdict on one axis's text: empty when accepted, else its message.
QString fieldError(const ks::Axis& axis, const QString& text)
{
    try {
        ks::ParamSet::parse({axis}, {{axis.name, text.trimmed().toStdString()}});
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString formatBound(const ks::Axis& axis, double value)
{
    const bool integral = axis.kind == ks::AxisKind::Integer || axis.kind == ks::AxisKind::PowerOfTwo;
    // Integer bounds up to 2^62 print exactly; beyond that the double no longer holds an exact int64.
    if (integral && std::fabs(value) < 4.6e18)
        return QString::number(static_cast<qlonglong>(value));
    return QString::number(value, 'g', 12);
}

QString rangeText(const ks::Axis& axis)
{
    const QString range = QStringLiteral("from %1 to %2").arg(formatBound(axis, axis.min), formatBound(axis, axis.max));
    switch (axis.kind) {
    case ks::AxisKind::Integer:
        return ParamEditor::tr("Integer %1 (written as 1000000, 1e6 or 2^20)").arg(range);
    case ks::AxisKind::PowerOfTwo:
        return ParamEditor::tr("Power of two %1 (written as 1024 or 2^10)").arg(range);
    case ks::AxisKind::Float:
        return ParamEditor::tr("Number %1").arg(range);
    case ks::AxisKind::Enum: {
        QStringList choices;
        for (const auto& c : axis.choices)
            choices << QString::fromStdString(c);
        return ParamEditor::tr("One of: %1").arg(choices.join(QStringLiteral(", ")));
    }
    case ks::AxisKind::Text:
        return axis.defaultValue.empty() ? ParamEditor::tr("Text; empty for none") : ParamEditor::tr("Text");
    }
    return {};
}

/// Lets through only characters ParamSet's number syntax can contain, and reports Acceptable exactly when
/// ParamSet accepts the text, so a field is never "valid" here and rejected by the engine.
class AxisValidator : public QValidator {
public:
    AxisValidator(ks::Axis axis, QObject* parent)
        : QValidator(parent)
        , m_axis(std::move(axis))
        , m_shape(m_axis.kind == ks::AxisKind::Float ? QStringLiteral("^[0-9+\\-.eE ]*$")
                                                     : QStringLiteral("^[0-9+\\-.eE^ ]*$"))
    {
    }

    State validate(QString& input, int&) const override
    {
        if (!m_shape.match(input).hasMatch())
            return Invalid;
        if (input.trimmed().isEmpty())
            return Intermediate;
        return fieldError(m_axis, input).isEmpty() ? Acceptable : Intermediate;
    }

private:
    ks::Axis m_axis;
    QRegularExpression m_shape;
};

} // namespace

ParamEditor::ParamEditor(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("paramEditor"));
    m_form = new QFormLayout(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_emptyLabel = new QLabel(tr("No parameters."), this);
    m_emptyLabel->setObjectName(QStringLiteral("paramEditorEmpty"));
    m_emptyLabel->setEnabled(false);
    m_form->addRow(m_emptyLabel);
}

ParamEditor::~ParamEditor() = default;

void ParamEditor::clearRows()
{
    m_rows.clear();
    // removeRow deletes the row's widgets; the empty label is the last row and stays.
    while (m_form->rowCount() > 1)
        m_form->removeRow(0);
}

void ParamEditor::setAxes(const std::vector<ks::Axis>& axes, const std::map<std::string, std::string>& values)
{
    m_bulkUpdate = true;
    clearRows();
    m_axes = axes;
    int position = 0;
    for (const auto& axis : m_axes) {
        Row row;
        row.axis = axis;
        const QString name = QString::fromStdString(axis.name);
        row.label = new QLabel(name, this);
        row.label->setObjectName(QStringLiteral("paramLabel_") + name);
        const QString description = QString::fromStdString(axis.description);
        row.baseToolTip = description.isEmpty() ? rangeText(axis) : description + QLatin1Char('\n') + rangeText(axis);
        row.baseToolTip += QLatin1Char('\n') + tr("Default: %1").arg(QString::fromStdString(axis.defaultValue));
        row.label->setToolTip(row.baseToolTip);

        QWidget* editor = nullptr;
        if (axis.kind == ks::AxisKind::Enum) {
            row.combo = new QComboBox(this);
            for (const auto& c : axis.choices)
                row.combo->addItem(QString::fromStdString(c));
            connect(row.combo, &QComboBox::currentIndexChanged, this, &ParamEditor::onEdited);
            connect(row.combo, &QComboBox::activated, this, [this, name] { emit edited(name); });
            editor = row.combo;
        } else {
            // Line edits rather than spin boxes: QSpinBox is int-only and the axes reach 2^62, and the text keeps
            // the user's own form (2^20, 1e6), which is what the CLI accepts too.
            row.line = new QLineEdit(this);
            // Text (a file path) takes any character; updateRowState still marks what ParamSet rejects.
            if (axis.kind != ks::AxisKind::Text)
                row.line->setValidator(new AxisValidator(axis, row.line));
            row.line->setPlaceholderText(QString::fromStdString(axis.defaultValue));
            connect(row.line, &QLineEdit::textChanged, this, &ParamEditor::onEdited);
            connect(row.line, &QLineEdit::textEdited, this, [this, name] { emit edited(name); });
            if (axis.kind == ks::AxisKind::Text)
                addBrowseAction(row.line, axis);
            editor = row.line;
        }
        editor->setObjectName(QStringLiteral("param_") + name);
        editor->setToolTip(row.baseToolTip);
        row.label->setBuddy(editor);
        m_form->insertRow(position++, row.label, editor);

        const auto given = values.find(axis.name);
        setRowText(row, QString::fromStdString(given != values.end() ? given->second : axis.defaultValue));
        m_rows.push_back(std::move(row));
    }
    m_emptyLabel->setVisible(m_rows.empty());
    for (auto& row : m_rows)
        updateRowState(row);
    setHiddenNames(m_hiddenNames);
    m_bulkUpdate = false;
    emit changed();
}

void ParamEditor::addBrowseAction(QLineEdit* line, const ks::Axis& axis)
{
    // A text axis is a file: one read with the dataset (lrv's weights) is opened, any other written (cnn's features).
    const bool input = axis.readerOption;
    auto* browse = line->addAction(style()->standardIcon(QStyle::SP_DirOpenIcon), QLineEdit::TrailingPosition);
    browse->setObjectName(QStringLiteral("browse_") + QString::fromStdString(axis.name));
    browse->setToolTip(input ? tr("Choose the file to read") : tr("Choose the file to write"));
    const QString name = QString::fromStdString(axis.name);
    connect(browse, &QAction::triggered, this, [this, line, input, name] {
        const QString start = line->text().trimmed();
        const QString chosen = input ? QFileDialog::getOpenFileName(this, tr("%1: a file to read").arg(name), start)
                                     : QFileDialog::getSaveFileName(this, tr("%1: a file to write").arg(name), start);
        if (chosen.isEmpty())
            return;
        line->setText(chosen);
        emit edited(name);
    });
}

void ParamEditor::setRowText(Row& row, const QString& text)
{
    if (row.line) {
        row.line->setText(text);
        return;
    }
    for (int i = row.combo->count() - 1; i >= 0; --i)
        if (row.combo->itemData(i, kForeignChoiceRole).toBool())
            row.combo->removeItem(i);
    int index = row.combo->findText(text);
    if (index < 0) {
        row.combo->addItem(text);
        index = row.combo->count() - 1;
        row.combo->setItemData(index, true, kForeignChoiceRole);
    }
    row.combo->setCurrentIndex(index);
}

QString ParamEditor::rowText(const Row& row) const
{
    return row.line ? row.line->text().trimmed() : row.combo->currentText();
}

void ParamEditor::updateRowState(Row& row)
{
    QWidget* editor = row.line ? static_cast<QWidget*>(row.line) : static_cast<QWidget*>(row.combo);
    const QString error = fieldError(row.axis, rowText(row));
    const bool invalid = !error.isEmpty();
    if (editor->property(kInvalidProperty).toBool() == invalid && !invalid)
        return;
    editor->setProperty(kInvalidProperty, invalid);
    if (invalid) {
        editor->setStyleSheet(QStringLiteral("%1 { border: 1px solid %2; }")
                                  .arg(QLatin1String(editor->metaObject()->className()), alarmColor().name()));
        editor->setToolTip(error + QStringLiteral("\n\n") + toolTipOf(row));
    } else {
        editor->setStyleSheet(QString());
        editor->setToolTip(toolTipOf(row));
    }
}

QString ParamEditor::toolTipOf(const Row& row) const
{
    return row.unitNote.isEmpty() ? row.baseToolTip : row.baseToolTip + QLatin1Char('\n') + row.unitNote;
}

void ParamEditor::setUnit(const QString& name, const QString& unit, const QString& note)
{
    for (auto& row : m_rows) {
        if (QString::fromStdString(row.axis.name) != name)
            continue;
        row.label->setText(unit.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, unit));
        row.unitNote = note;
        row.label->setToolTip(toolTipOf(row));
        QWidget* editor = row.line ? static_cast<QWidget*>(row.line) : static_cast<QWidget*>(row.combo);
        if (editor->property(kInvalidProperty).toBool())
            updateRowState(row); // the error, then the new tooltip
        else
            editor->setToolTip(toolTipOf(row));
    }
}

void ParamEditor::onEdited()
{
    for (auto& row : m_rows) {
        // A stale choice disappears once the user picks a real one.
        if (row.combo && !row.combo->currentData(kForeignChoiceRole).toBool())
            for (int i = row.combo->count() - 1; i >= 0; --i)
                if (row.combo->itemData(i, kForeignChoiceRole).toBool())
                    row.combo->removeItem(i);
        updateRowState(row);
    }
    if (!m_bulkUpdate)
        emit changed();
}

std::map<std::string, std::string> ParamEditor::values() const
{
    std::map<std::string, std::string> out;
    for (const auto& row : m_rows)
        out[row.axis.name] = rowText(row).toStdString();
    return out;
}

void ParamEditor::setValues(const std::map<std::string, std::string>& values)
{
    m_bulkUpdate = true;
    for (auto& row : m_rows) {
        const auto it = values.find(row.axis.name);
        if (it != values.end())
            setRowText(row, QString::fromStdString(it->second));
    }
    for (auto& row : m_rows)
        updateRowState(row);
    m_bulkUpdate = false;
    emit changed();
}

void ParamEditor::resetToDefaults()
{
    std::map<std::string, std::string> defaults;
    for (const auto& axis : m_axes)
        defaults[axis.name] = axis.defaultValue;
    setValues(defaults);
}

void ParamEditor::setHiddenNames(const QStringList& names)
{
    m_hiddenNames = names;
    for (auto& row : m_rows) {
        const bool hidden = names.contains(QString::fromStdString(row.axis.name));
        row.label->setHidden(hidden);
        (row.line ? static_cast<QWidget*>(row.line) : static_cast<QWidget*>(row.combo))->setHidden(hidden);
    }
}

QWidget* ParamEditor::editorFor(const QString& name) const
{
    for (const auto& row : m_rows)
        if (QString::fromStdString(row.axis.name) == name)
            return row.line ? static_cast<QWidget*>(row.line) : static_cast<QWidget*>(row.combo);
    return nullptr;
}

QString ParamEditor::validationError() const
{
    try {
        ks::ParamSet::parse(m_axes, values());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace ks::gui
