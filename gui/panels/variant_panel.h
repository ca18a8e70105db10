#pragma once

#include <QStringList>
#include <QWidget>

class QDoubleSpinBox;
class QPushButton;
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
    /// Greys, with its reason, each built-in variant of `workload` that can no longer run (a variant broke the CUDA
    /// context: every CUDA variant is unavailable until restart). True when a row changed.
    bool refreshAvailability(const ks::Workload* workload);
    /// Why a variant cannot run here; empty when it can.
    QString unavailableReason(const QString& id) const;
    /// The equivalence margin for a decision, as a fraction (the spin box shows %).
    double decideMargin() const;
    /// Lists a user's kernel file below the built-in variants (backend "user", its path as the technique), checked
    /// when it can run here, greyed with `reason` when not. Adding an id again updates its row.
    void addUserKernel(const QString& id, const QString& path, const QString& reason);
    void removeUserKernel(const QString& id);
    /// The listed user kernels' ids, in order.
    QStringList userKernelIds() const;

Q_SIGNALS:
    void selectionChanged();
    /// The user asked to decide between the checked variants (the first checked is A).
    void decideRequested();
    /// The "Add kernel…" button: the user wants to bring a .cu file.
    void addKernelRequested();

private:
    QTreeWidgetItem* itemFor(const QString& id) const;
    QTreeWidget* m_tree;
    QPushButton* m_decide;
    QDoubleSpinBox* m_margin;
};

} // namespace ks::gui
