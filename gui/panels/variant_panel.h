#pragma once

#include <QStringList>
#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;

namespace ks {
class Workload;
}

namespace ks::gui {

/// The workload's variants as a checklist: name, backend and technique; a variant that cannot run here is greyed,
/// cannot be checked, and says why.
class VariantPanel : public QWidget {
    Q_OBJECT
public:
    explicit VariantPanel(QWidget* parent = nullptr);

    /// Lists the workload's variants; every available one starts checked.
    void setWorkload(const ks::Workload* workload);
    /// Ids of the checked variants, in the workload's order.
    QStringList checkedVariants() const;
    /// Checks exactly these (unavailable ones stay unchecked).
    void setCheckedVariants(const QStringList& ids);
    /// Every variant id of the workload, in order.
    QStringList allVariants() const;
    /// Why a variant cannot run here; empty when it can.
    QString unavailableReason(const QString& id) const;

Q_SIGNALS:
    void selectionChanged();

private:
    QTreeWidgetItem* itemFor(const QString& id) const;
    QTreeWidget* m_tree;
};

} // namespace ks::gui
