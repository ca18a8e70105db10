#pragma once

#include <QDialog>
#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

class QDialogButtonBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ks::gui {

/// Shows the groups and datasets of an HDF5 file (shape, type, filters) and lets the user pick the one to read,
/// for files where the reader cannot tell on its own (several x/y groups, several candidate matrices).
class H5PickerDialog : public QDialog {
    Q_OBJECT
public:
    /// Tree columns.
    enum Column { NameColumn = 0, ShapeColumn, TypeColumn, FiltersColumn, ColumnCount };
    /// Item data roles: the object's absolute HDF5 path, whether it is a group, whether it cannot be read here.
    static constexpr int kPathRole = Qt::UserRole + 1;
    static constexpr int kIsGroupRole = Qt::UserRole + 2;
    static constexpr int kUnreadableRole = Qt::UserRole + 3;

    /// Lists `path` at once (no exec needed); a file that cannot be listed leaves error() set and the tree empty.
    explicit H5PickerDialog(const QString& path, QWidget* parent = nullptr);

    /// Empty when the file was listed, else the reader's message.
    QString error() const { return m_error; }
    /// The file being shown.
    QString filePath() const { return m_filePath; }
    /// Selects the group or dataset at `h5Path` ("/a", "/a/x"); false when the file has no such object.
    bool selectPath(const QString& h5Path);
    /// The HDF5 path of the selected group or dataset; empty when nothing is selected.
    QString selectedPath() const;
    /// Every listed object's HDF5 path, groups and datasets, in tree order.
    QStringList listedPaths() const;
    /// The tree widget (for tests and keyboard focus).
    QTreeWidget* tree() const { return m_tree; }

    /// Opens the picker modally; the chosen path, or nullopt when cancelled or when the file cannot be listed
    /// (then `error`, when given, receives the reason; it is cleared on cancel).
    static std::optional<QString> choose(const QString& path, QWidget* parent = nullptr, QString* error = nullptr);
    /// Groups holding 1-D float32/float64 datasets named x and y (what the linreg reader accepts), "/" first;
    /// empty when the file cannot be listed.
    static QStringList candidateGroups(const QString& path);

private:
    void populate();
    QTreeWidgetItem* groupItem(const QString& groupPath);
    void updateButtons();

    QString m_filePath;
    QString m_error;
    QLabel* m_prompt = nullptr;
    QLabel* m_errorLabel = nullptr;
    QTreeWidget* m_tree = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QHash<QString, QTreeWidgetItem*> m_items;
};

} // namespace ks::gui
