#include "gui/panels/variant_panel.h"

#include "compute/core/workload.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ks::gui {

namespace {
constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kReasonRole = Qt::UserRole + 2;
constexpr int kUserRole = Qt::UserRole + 3; ///< true on a user kernel's row

/// A row's text, flags and tooltips: checkable when it can run here, greyed with the reason otherwise.
void fillRow(QTreeWidgetItem* item, const QString& id, const QString& name, const QString& backend,
    const QString& technique, const QString& reason)
{
    item->setData(0, kIdRole, id);
    item->setData(0, kReasonRole, reason);
    item->setText(0, name);
    item->setText(1, backend);
    item->setText(2, technique);
    const QString tip = QStringLiteral("%1 (%2)\n%3").arg(name, id, technique);
    if (reason.isEmpty()) {
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        item->setCheckState(0, Qt::Checked);
        for (int c = 0; c < 3; ++c)
            item->setToolTip(c, tip);
    } else {
        // Listed but greyed: the user sees the variant exists and why it cannot run here.
        item->setFlags(Qt::ItemIsSelectable);
        item->setCheckState(0, Qt::Unchecked);
        item->setText(2, VariantPanel::tr("unavailable: %1").arg(reason));
        for (int c = 0; c < 3; ++c)
            item->setToolTip(c, tip + QStringLiteral("\n\n") + VariantPanel::tr("Cannot run here: %1").arg(reason));
    }
}
} // namespace

VariantPanel::VariantPanel(QWidget* parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this))
    , m_decide(new QPushButton(tr("Decide"), this))
    , m_margin(new QDoubleSpinBox(this))
{
    m_tree->setObjectName(QStringLiteral("variantList"));
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Variant"), tr("Backend"), tr("Technique")});
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->setMinimumHeight(150);

    auto* all = new QPushButton(tr("All"), this);
    auto* none = new QPushButton(tr("None"), this);
    all->setObjectName(QStringLiteral("checkAllVariants"));
    none->setObjectName(QStringLiteral("checkNoVariants"));
    all->setToolTip(tr("Check every variant that can run here"));
    connect(all, &QPushButton::clicked, this, [this] { setCheckedVariants(allVariants()); });
    connect(none, &QPushButton::clicked, this, [this] { setCheckedVariants({}); });
    auto* addKernel = new QPushButton(tr("Add kernel…"), this);
    addKernel->setObjectName(QStringLiteral("addKernel"));
    addKernel->setToolTip(tr("Bring your own CUDA kernel: open a .cu file, or start from the workload's template; "
                             "it is compiled with NVRTC, checked against the reference and timed beside these"));
    connect(addKernel, &QPushButton::clicked, this, &VariantPanel::addKernelRequested);

    m_decide->setObjectName(QStringLiteral("decideVariants"));
    m_decide->setToolTip(tr("Run the checked variants interleaved, repetition by repetition, until the confidence "
                            "interval of each one's time ratio to the first says faster, slower or equivalent "
                            "within the margin; the Speedup tab shows the intervals and verdicts"));
    m_decide->setEnabled(false);
    m_margin->setObjectName(QStringLiteral("decideMargin"));
    m_margin->setRange(0.0, 50.0);
    m_margin->setDecimals(1);
    m_margin->setSingleStep(0.5);
    m_margin->setValue(1.0);
    m_margin->setPrefix(QStringLiteral("±"));
    m_margin->setSuffix(QStringLiteral(" %"));
    m_margin->setToolTip(tr("Ratios within 1 ± this are equivalent (0: never)"));
    connect(m_decide, &QPushButton::clicked, this, &VariantPanel::decideRequested);
    // A decision needs two variants: the button says so by being enabled only then.
    connect(
        this, &VariantPanel::selectionChanged, this, [this] { m_decide->setEnabled(checkedVariants().size() >= 2); });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(all);
    buttons->addWidget(none);
    buttons->addWidget(addKernel);
    buttons->addStretch();
    buttons->addWidget(m_decide);
    buttons->addWidget(m_margin);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    layout->addLayout(buttons);

    connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem*, int column) {
        if (column == 0)
            Q_EMIT selectionChanged();
    });
}

void VariantPanel::setWorkload(const ks::Workload* workload)
{
    const QSignalBlocker block(m_tree);
    m_tree->clear();
    if (workload) {
        for (const auto& v : workload->variants())
            fillRow(new QTreeWidgetItem(m_tree), QString::fromStdString(v.id), QString::fromStdString(v.name),
                QString::fromLatin1(backendName(v.backend)), QString::fromStdString(v.technique),
                QString::fromStdString(ks::unavailableReason(v)));
    }
    Q_EMIT selectionChanged();
}

bool VariantPanel::refreshAvailability(const ks::Workload* workload)
{
    if (!workload)
        return false;
    bool changed = false;
    {
        const QSignalBlocker block(m_tree);
        for (const auto& v : workload->variants()) {
            QTreeWidgetItem* item = itemFor(QString::fromStdString(v.id));
            const QString reason = QString::fromStdString(ks::unavailableReason(v));
            if (!item || reason.isEmpty() || item->data(0, kReasonRole).toString() == reason)
                continue;
            fillRow(item, QString::fromStdString(v.id), QString::fromStdString(v.name),
                QString::fromLatin1(backendName(v.backend)), QString::fromStdString(v.technique), reason);
            changed = true;
        }
    }
    if (changed)
        Q_EMIT selectionChanged();
    return changed;
}

void VariantPanel::addUserKernel(const QString& id, const QString& path, const QString& reason)
{
    {
        const QSignalBlocker block(m_tree);
        QTreeWidgetItem* item = itemFor(id);
        if (!item)
            item = new QTreeWidgetItem(m_tree);
        item->setData(0, kUserRole, true);
        fillRow(item, id, id, tr("user"), path, reason);
    }
    Q_EMIT selectionChanged();
}

void VariantPanel::removeUserKernel(const QString& id)
{
    QTreeWidgetItem* item = itemFor(id);
    if (!item || !item->data(0, kUserRole).toBool())
        return;
    delete item;
    Q_EMIT selectionChanged();
}

QStringList VariantPanel::userKernelIds() const
{
    QStringList ids;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->data(0, kUserRole).toBool())
            ids << m_tree->topLevelItem(i)->data(0, kIdRole).toString();
    return ids;
}

double VariantPanel::decideMargin() const
{
    return m_margin->value() / 100.0;
}

QStringList VariantPanel::checkedVariants() const
{
    QStringList ids;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        auto* item = m_tree->topLevelItem(i);
        if (item->checkState(0) == Qt::Checked)
            ids << item->data(0, kIdRole).toString();
    }
    return ids;
}

QStringList VariantPanel::allVariants() const
{
    QStringList ids;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        ids << m_tree->topLevelItem(i)->data(0, kIdRole).toString();
    return ids;
}

void VariantPanel::setCheckedVariants(const QStringList& ids)
{
    {
        const QSignalBlocker block(m_tree);
        for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
            auto* item = m_tree->topLevelItem(i);
            const bool available = item->data(0, kReasonRole).toString().isEmpty();
            const bool wanted = ids.contains(item->data(0, kIdRole).toString());
            item->setCheckState(0, available && wanted ? Qt::Checked : Qt::Unchecked);
        }
    }
    Q_EMIT selectionChanged();
}

QString VariantPanel::unavailableReason(const QString& id) const
{
    auto* item = itemFor(id);
    return item ? item->data(0, kReasonRole).toString() : tr("no such variant");
}

QTreeWidgetItem* VariantPanel::itemFor(const QString& id) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->data(0, kIdRole).toString() == id)
            return m_tree->topLevelItem(i);
    return nullptr;
}

} // namespace ks::gui
