#include "gui/panels/h5_picker_dialog.h"

#include "cli/reader_worker.h"
#include "data/hdf5_file.h"
#include "gui/theme.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

#include <map>
#include <string>
#include <vector>

namespace ks::gui {

namespace {

std::string nativePath(const QString& path)
{
    return QFile::encodeName(path).toStdString();
}

bool isSeriesColumn(const data::h5::DatasetInfo* info)
{
    return info && info->dims.size() == 1 && info->isFloat && (info->type == "float32" || info->type == "float64");
}

/// The linreg reader's rule, applied to a listing: a group qualifies when its x and y are 1-D float datasets.
QStringList seriesGroups(const std::vector<std::string>& groups, const std::vector<data::h5::DatasetInfo>& datasets)
{
    std::map<std::string, const data::h5::DatasetInfo*> byPath;
    for (const auto& d : datasets)
        byPath[d.path] = &d;
    auto find = [&](const std::string& p) -> const data::h5::DatasetInfo* {
        const auto it = byPath.find(p);
        return it == byPath.end() ? nullptr : it->second;
    };
    QStringList out;
    for (const auto& g : groups) {
        const std::string prefix = g == "/" ? "/" : g + "/";
        if (isSeriesColumn(find(prefix + "x")) && isSeriesColumn(find(prefix + "y")))
            out << QString::fromStdString(g);
    }
    return out;
}

QString shapeText(const std::vector<std::uint64_t>& dims)
{
    if (dims.empty())
        return H5PickerDialog::tr("scalar");
    QStringList parts;
    for (auto d : dims)
        parts << QString::number(static_cast<qulonglong>(d));
    return parts.join(QStringLiteral(" × "));
}

QString lastComponent(const QString& path)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? path : path.mid(slash + 1);
}

QString parentPath(const QString& path)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return slash <= 0 ? QStringLiteral("/") : path.left(slash);
}

} // namespace

H5PickerDialog::H5PickerDialog(const QString& path, QWidget* parent)
    : QDialog(parent)
    , m_filePath(path)
{
    setObjectName(QStringLiteral("h5PickerDialog"));
    setWindowTitle(tr("Choose data in %1").arg(QFileInfo(path).fileName()));

    auto* layout = new QVBoxLayout(this);
    m_prompt = new QLabel(tr("Choose the group or dataset to read from %1. Groups in bold hold 1-D x and y datasets.")
                              .arg(QFileInfo(path).fileName()),
        this);
    m_prompt->setObjectName(QStringLiteral("h5PickerPrompt"));
    m_prompt->setWordWrap(true);
    layout->addWidget(m_prompt);

    m_errorLabel = new QLabel(this);
    m_errorLabel->setObjectName(QStringLiteral("h5PickerError"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette errorPalette = m_errorLabel->palette();
    errorPalette.setColor(QPalette::WindowText, alarmColor());
    m_errorLabel->setPalette(errorPalette);
    m_errorLabel->hide();
    layout->addWidget(m_errorLabel);

    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("h5Tree"));
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Name"), tr("Shape"), tr("Type"), tr("Filters")});
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_tree, 1);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->setObjectName(QStringLiteral("h5PickerButtons"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_tree, &QTreeWidget::itemSelectionChanged, this, &H5PickerDialog::updateButtons);
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        if (item && !item->data(NameColumn, kUnreadableRole).toBool())
            accept();
    });

    populate();
    updateButtons();
    resize(680, 440);
}

QTreeWidgetItem* H5PickerDialog::groupItem(const QString& groupPath)
{
    if (auto it = m_items.find(groupPath); it != m_items.end())
        return it.value();
    QTreeWidgetItem* item = nullptr;
    if (groupPath == QLatin1String("/")) {
        item = new QTreeWidgetItem(m_tree);
        item->setText(NameColumn, QStringLiteral("/"));
        item->setToolTip(NameColumn, m_filePath);
    } else {
        // Parents are created on demand so a listing in any order still forms a tree.
        item = new QTreeWidgetItem(groupItem(parentPath(groupPath)));
        item->setText(NameColumn, lastComponent(groupPath));
        item->setToolTip(NameColumn, groupPath);
    }
    item->setIcon(NameColumn, style()->standardIcon(QStyle::SP_DirIcon));
    item->setText(TypeColumn, tr("group"));
    item->setData(NameColumn, kPathRole, groupPath);
    item->setData(NameColumn, kIsGroupRole, true);
    m_items.insert(groupPath, item);
    return item;
}

void H5PickerDialog::populate()
{
    std::vector<std::string> groups;
    std::vector<data::h5::DatasetInfo> datasets;
    try {
        // Listed by the reader worker: a corrupted file that crashes libhdf5 is an error here, not the app's end.
        auto listing = cli::listHdf5InWorker(nativePath(m_filePath));
        groups = std::move(listing.groups);
        datasets = std::move(listing.datasets);
    } catch (const std::exception& e) {
        m_error = QString::fromStdString(e.what());
        m_errorLabel->setText(m_error);
        m_errorLabel->show();
        m_prompt->hide();
        return;
    }

    for (const auto& g : groups)
        groupItem(QString::fromStdString(g));
    for (const auto& d : datasets) {
        const QString path = QString::fromStdString(d.path);
        auto* item = new QTreeWidgetItem(groupItem(parentPath(path)));
        item->setText(NameColumn, lastComponent(path));
        item->setToolTip(NameColumn, path);
        item->setIcon(NameColumn, style()->standardIcon(QStyle::SP_FileIcon));
        item->setText(ShapeColumn, shapeText(d.dims));
        item->setText(TypeColumn, QString::fromStdString(d.type));
        QStringList filters;
        bool unreadable = false;
        for (const auto& f : d.filters) {
            filters << QString::fromStdString(f);
            unreadable = unreadable || f.find("not available") != std::string::npos;
        }
        if (d.chunked && filters.isEmpty())
            filters << tr("chunked");
        item->setText(FiltersColumn, filters.join(QStringLiteral(", ")));
        item->setData(NameColumn, kPathRole, path);
        item->setData(NameColumn, kIsGroupRole, false);
        item->setData(NameColumn, kUnreadableRole, unreadable);
        if (unreadable) {
            const QString why = tr("Needs a compression filter this HDF5 library does not have; it cannot be read "
                                   "here.");
            item->setIcon(FiltersColumn, style()->standardIcon(QStyle::SP_MessageBoxWarning));
            item->setForeground(FiltersColumn, alarmColor());
            item->setToolTip(FiltersColumn, why);
            item->setToolTip(NameColumn, path + QLatin1Char('\n') + why);
        }
        m_items.insert(path, item);
    }

    const QStringList candidates = seriesGroups(groups, datasets);
    for (const auto& c : candidates) {
        QTreeWidgetItem* item = m_items.value(c);
        QFont bold = item->font(NameColumn);
        bold.setBold(true);
        item->setFont(NameColumn, bold);
        item->setToolTip(NameColumn, c + QLatin1Char('\n') + tr("Holds 1-D x and y: readable as an x/y series."));
    }
    m_tree->expandAll();
    for (int c = 0; c < ColumnCount - 1; ++c)
        m_tree->resizeColumnToContents(c);
    if (!candidates.isEmpty())
        selectPath(candidates.front());
}

bool H5PickerDialog::selectPath(const QString& h5Path)
{
    QString key = h5Path.startsWith(QLatin1Char('/')) ? h5Path : QLatin1Char('/') + h5Path;
    if (key.size() > 1 && key.endsWith(QLatin1Char('/')))
        key.chop(1);
    QTreeWidgetItem* item = m_items.value(key);
    if (!item)
        return false;
    m_tree->setCurrentItem(item);
    m_tree->scrollToItem(item);
    return true;
}

QString H5PickerDialog::selectedPath() const
{
    const auto selected = m_tree->selectedItems();
    return selected.isEmpty() ? QString() : selected.front()->data(NameColumn, kPathRole).toString();
}

QStringList H5PickerDialog::listedPaths() const
{
    QStringList out;
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        out << (*it)->data(NameColumn, kPathRole).toString();
    return out;
}

void H5PickerDialog::updateButtons()
{
    const auto selected = m_tree->selectedItems();
    const bool usable = !selected.isEmpty() && !selected.front()->data(NameColumn, kUnreadableRole).toBool();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(usable);
}

std::optional<QString> H5PickerDialog::choose(const QString& path, QWidget* parent, QString* error)
{
    H5PickerDialog dialog(path, parent);
    if (error)
        *error = dialog.error();
    if (!dialog.error().isEmpty())
        return std::nullopt;
    if (dialog.exec() != QDialog::Accepted || dialog.selectedPath().isEmpty())
        return std::nullopt;
    return dialog.selectedPath();
}

QStringList H5PickerDialog::candidateGroups(const QString& path)
{
    try {
        const auto listing = cli::listHdf5InWorker(nativePath(path));
        return seriesGroups(listing.groups, listing.datasets);
    } catch (const std::exception&) {
        // Not listable means no candidates; the reader reports the actual problem when the file is loaded.
        return {};
    }
}

} // namespace ks::gui
