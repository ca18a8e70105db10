#include "gui/panels/dataset_panel.h"

#include "compute/core/workload.h"
#include "data/hdf5_file.h"
#include "gui/panels/h5_picker_dialog.h"
#include "gui/panels/param_editor.h"
#include "gui/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks::gui {

namespace {

bool isHdf5(const QString& path)
{
    return !path.isEmpty() && data::h5::looksLikeHdf5(QFile::encodeName(path).toStdString());
}

QString htmlRow(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td style=\"padding-right:8px\"><b>%1</b></td><td>%2</td></tr>")
        .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
}

QLabel* makeInfoLabel(const QString& objectName, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->hide();
    return label;
}

} // namespace

DatasetPanel::DatasetPanel(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("datasetPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* sourceForm = new QFormLayout;
    m_sourceCombo = new QComboBox(this);
    m_sourceCombo->setObjectName(QStringLiteral("datasetSource"));
    m_sourceCombo->addItem(tr("Built-in generator"));
    m_sourceCombo->addItem(tr("File"));
    m_sourceCombo->setToolTip(tr("Generate synthetic data, or read a file the workload understands"));
    sourceForm->addRow(tr("Source"), m_sourceCombo);
    layout->addLayout(sourceForm);

    // Generator page.
    m_generatorPage = new QWidget(this);
    m_generatorPage->setObjectName(QStringLiteral("generatorPage"));
    auto* generatorLayout = new QVBoxLayout(m_generatorPage);
    generatorLayout->setContentsMargins(0, 0, 0, 0);
    m_generatorEditor = new ParamEditor(m_generatorPage);
    m_generatorEditor->setObjectName(QStringLiteral("generatorEditor"));
    generatorLayout->addWidget(m_generatorEditor);
    m_sizeNote = new QLabel(m_generatorPage);
    m_sizeNote->setObjectName(QStringLiteral("sizeParameterNote"));
    m_sizeNote->setWordWrap(true);
    m_sizeNote->setEnabled(false);
    m_sizeNote->hide();
    generatorLayout->addWidget(m_sizeNote);
    layout->addWidget(m_generatorPage);

    // File page.
    m_filePage = new QWidget(this);
    m_filePage->setObjectName(QStringLiteral("filePage"));
    auto* fileLayout = new QVBoxLayout(m_filePage);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    m_pathEdit = new QLineEdit(m_filePage);
    m_pathEdit->setObjectName(QStringLiteral("filePathEdit"));
    m_pathEdit->setReadOnly(true);
    m_pathEdit->setPlaceholderText(tr("No file chosen"));
    fileLayout->addWidget(m_pathEdit);

    auto* buttonRow = new QHBoxLayout;
    m_openButton = new QPushButton(tr("Open…"), m_filePage);
    m_openButton->setObjectName(QStringLiteral("openFileButton"));
    m_openButton->setToolTip(tr("Choose a data file (files can also be dropped on the window)"));
    buttonRow->addWidget(m_openButton);
    m_recentButton = new QToolButton(m_filePage);
    m_recentButton->setObjectName(QStringLiteral("recentFilesButton"));
    m_recentButton->setText(tr("Recent"));
    m_recentButton->setPopupMode(QToolButton::InstantPopup);
    m_recentMenu = new QMenu(m_recentButton);
    m_recentMenu->setObjectName(QStringLiteral("recentFilesMenu"));
    m_recentMenu->setToolTipsVisible(true);
    m_recentButton->setMenu(m_recentMenu);
    buttonRow->addWidget(m_recentButton);
    buttonRow->addStretch(1);
    fileLayout->addLayout(buttonRow);

    m_h5Row = new QWidget(m_filePage);
    m_h5Row->setObjectName(QStringLiteral("h5PathRow"));
    auto* h5Layout = new QHBoxLayout(m_h5Row);
    h5Layout->setContentsMargins(0, 0, 0, 0);
    h5Layout->addWidget(new QLabel(tr("HDF5 path"), m_h5Row));
    m_h5PathEdit = new QLineEdit(m_h5Row);
    m_h5PathEdit->setObjectName(QStringLiteral("h5PathEdit"));
    m_h5PathEdit->setPlaceholderText(tr("chosen by the reader"));
    m_h5PathEdit->setToolTip(tr("The group (or dataset) to read from the HDF5 file; press Enter to reload"));
    h5Layout->addWidget(m_h5PathEdit, 1);
    m_h5BrowseButton = new QToolButton(m_h5Row);
    m_h5BrowseButton->setObjectName(QStringLiteral("h5BrowseButton"));
    m_h5BrowseButton->setText(tr("…"));
    m_h5BrowseButton->setToolTip(tr("Show the file's groups and datasets"));
    h5Layout->addWidget(m_h5BrowseButton);
    m_h5Row->hide();
    fileLayout->addWidget(m_h5Row);

    m_allowNonFiniteCheck = new QCheckBox(tr("Allow NaN/Inf"), m_filePage);
    m_allowNonFiniteCheck->setObjectName(QStringLiteral("allowNonFiniteCheck"));
    m_allowNonFiniteCheck->setToolTip(
        tr("Keep NaN and infinite values instead of rejecting the file (results may then be NaN)"));
    fileLayout->addWidget(m_allowNonFiniteCheck);
    layout->addWidget(m_filePage);

    // Info block: exactly one of loading / error / info is visible at a time.
    m_loadingLabel = makeInfoLabel(QStringLiteral("datasetLoading"), this);
    m_errorLabel = makeInfoLabel(QStringLiteral("datasetError"), this);
    m_errorLabel->setTextFormat(Qt::PlainText);
    QPalette errorPalette = m_errorLabel->palette();
    errorPalette.setColor(QPalette::WindowText, alarmColor());
    m_errorLabel->setPalette(errorPalette);
    m_readerHint = makeInfoLabel(QStringLiteral("datasetReaderHint"), this);
    m_readerHint->setTextFormat(Qt::RichText);
    m_readerHint->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_readerHint, &QLabel::linkActivated, this, &DatasetPanel::workloadRequested);
    m_infoLabel = makeInfoLabel(QStringLiteral("datasetInfo"), this);
    m_infoLabel->setTextFormat(Qt::RichText);
    layout->addWidget(m_loadingLabel);
    layout->addWidget(m_errorLabel);
    layout->addWidget(m_readerHint);
    layout->addWidget(m_infoLabel);

    connect(m_sourceCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateSourcePages();
        emit sourceChanged();
    });
    connect(m_generatorEditor, &ParamEditor::changed, this, &DatasetPanel::generatorChanged);
    connect(m_openButton, &QPushButton::clicked, this, &DatasetPanel::browseForFile);
    connect(m_h5BrowseButton, &QToolButton::clicked, this, &DatasetPanel::chooseH5Path);
    // editingFinished also fires on focus loss; only a changed path is worth a reload.
    connect(m_h5PathEdit, &QLineEdit::editingFinished, this, [this] {
        if (m_h5PathEdit->isModified()) {
            m_h5PathEdit->setModified(false);
            requestReload();
        }
    });
    // clicked, not toggled: setFile sets the box without asking for a load.
    connect(m_allowNonFiniteCheck, &QCheckBox::clicked, this, &DatasetPanel::requestReload);

    rebuildRecentMenu();
    updateSourcePages();
}

DatasetPanel::~DatasetPanel() = default;

void DatasetPanel::setWorkload(const ks::Workload* workload)
{
    if (workload == m_workload)
        return;
    m_workload = workload;
    if (!workload) {
        m_generatorEditor->setAxes({});
        m_sizeNote->hide();
        return;
    }
    m_generatorEditor->setAxes(workload->generatorParameters());
    const QString size = QString::fromStdString(workload->sizeParameter());
    m_sizeNote->setText(tr("%1 is the problem size; a size list in the run settings overrides it.").arg(size));
    m_sizeNote->setVisible(!size.isEmpty());
}

DatasetPanel::Source DatasetPanel::source() const
{
    return m_sourceCombo->currentIndex() == 1 ? Source::File : Source::Generator;
}

void DatasetPanel::setSource(Source source)
{
    m_sourceCombo->setCurrentIndex(source == Source::File ? 1 : 0);
}

std::map<std::string, std::string> DatasetPanel::generatorValues() const
{
    return m_generatorEditor->values();
}

QString DatasetPanel::filePath() const
{
    return m_filePath;
}

QString DatasetPanel::h5Path() const
{
    return m_h5PathEdit->text().trimmed();
}

bool DatasetPanel::allowNonFinite() const
{
    return m_allowNonFiniteCheck->isChecked();
}

QString DatasetPanel::validationError() const
{
    if (source() == Source::File)
        return m_filePath.isEmpty() ? tr("No file chosen: open a data file or use the built-in generator.") : QString();
    if (!m_workload)
        return tr("No workload selected.");
    return m_generatorEditor->validationError();
}

void DatasetPanel::setGenerator(const std::map<std::string, std::string>& values)
{
    m_generatorEditor->setValues(values);
}

void DatasetPanel::setFile(const QString& path, const QString& h5Path, bool allowNonFinite)
{
    m_filePath = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
    m_pathEdit->setText(m_filePath);
    m_pathEdit->setToolTip(m_filePath);
    m_h5PathEdit->setText(h5Path);
    m_h5PathEdit->setModified(false);
    m_allowNonFiniteCheck->setChecked(allowNonFinite);
    updateFileFields();
    if (!m_filePath.isEmpty())
        setSource(Source::File);
}

void DatasetPanel::openFile(const QString& path)
{
    if (path.isEmpty())
        return;
    const QFileInfo info(path);
    const QString absolute = info.absoluteFilePath();
    if (!info.exists() || info.isDir()) {
        showInfoWidget(m_errorLabel);
        m_errorLabel->setText(info.isDir() ? tr("%1 is a folder, not a data file.").arg(absolute)
                                           : tr("%1 does not exist (any more).").arg(absolute));
        if (m_recentFiles.removeAll(absolute) > 0) {
            rebuildRecentMenu();
            emit recentFilesChanged();
        }
        return;
    }

    QString group;
    // Only the x/y reader has a rule for picking a group; other readers take the h5 path field as typed.
    if (m_workload && m_workload->datasetKind() == "series2d" && isHdf5(absolute)) {
        const QStringList candidates = H5PickerDialog::candidateGroups(absolute);
        if (candidates.size() > 1) {
            QString error;
            const auto chosen = H5PickerDialog::choose(absolute, this, &error);
            if (!chosen) {
                if (!error.isEmpty()) {
                    showInfoWidget(m_errorLabel);
                    m_errorLabel->setText(tr("Could not list %1:\n%2").arg(info.fileName(), error));
                }
                return;
            }
            group = *chosen;
        } else if (candidates.size() == 1) {
            // Named explicitly: the reader's own search also counts x/y groups it would then reject.
            group = candidates.front();
        }
    }

    m_filePath = absolute;
    m_pathEdit->setText(absolute);
    m_pathEdit->setToolTip(absolute);
    m_h5PathEdit->setText(group);
    m_h5PathEdit->setModified(false);
    updateFileFields();
    setSource(Source::File);
    emit fileChosen(absolute);
    emit loadRequested(absolute, group, allowNonFinite());
}

void DatasetPanel::browseForFile()
{
    QString filter;
    if (m_workload)
        filter
            = tr("%1 data (%2);;")
                  .arg(QString::fromStdString(m_workload->name()), QString::fromStdString(m_workload->filePatterns()));
    filter += tr("All files (*)");
    QString directory;
    if (!m_filePath.isEmpty())
        directory = QFileInfo(m_filePath).absolutePath();
    else if (!m_recentFiles.isEmpty())
        directory = QFileInfo(m_recentFiles.front()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open dataset"), directory, filter);
    if (!path.isEmpty())
        openFile(path);
}

void DatasetPanel::chooseH5Path()
{
    if (m_filePath.isEmpty())
        return;
    H5PickerDialog dialog(m_filePath, this);
    if (!dialog.error().isEmpty()) {
        showInfoWidget(m_errorLabel);
        m_errorLabel->setText(tr("Could not list %1:\n%2").arg(QFileInfo(m_filePath).fileName(), dialog.error()));
        return;
    }
    if (!h5Path().isEmpty())
        dialog.selectPath(h5Path());
    if (dialog.exec() != QDialog::Accepted || dialog.selectedPath().isEmpty())
        return;
    m_h5PathEdit->setText(dialog.selectedPath());
    m_h5PathEdit->setModified(false);
    requestReload();
}

void DatasetPanel::requestReload()
{
    if (m_filePath.isEmpty())
        return;
    emit loadRequested(m_filePath, h5Path(), allowNonFinite());
}

void DatasetPanel::updateSourcePages()
{
    const bool file = source() == Source::File;
    m_generatorPage->setVisible(!file);
    m_filePage->setVisible(file);
}

void DatasetPanel::updateFileFields()
{
    // The h5 path row only means something for HDF5 files; a path restored from a workspace keeps it visible.
    m_h5Row->setVisible(isHdf5(m_filePath) || !m_h5PathEdit->text().isEmpty());
    m_h5BrowseButton->setEnabled(!m_filePath.isEmpty());
}

void DatasetPanel::showInfoWidget(QWidget* which)
{
    for (QWidget* w : {static_cast<QWidget*>(m_loadingLabel), static_cast<QWidget*>(m_errorLabel),
             static_cast<QWidget*>(m_infoLabel)})
        w->setVisible(w == which);
    m_readerHint->hide(); // shown by showReaderHint, after showError
}

void DatasetPanel::showReaderHint(const QList<QPair<QString, QString>>& workloads)
{
    QStringList links;
    for (const auto& [id, name] : workloads)
        links << QStringLiteral("<a href=\"%1\">%2 (%1)</a>").arg(id.toHtmlEscaped(), name.toHtmlEscaped());
    m_readerHint->setText(workloads.isEmpty()
            ? QString()
            : tr("This file looks made for %1: click to switch workload.").arg(links.join(tr(" or "))));
    m_readerHint->setVisible(!workloads.isEmpty() && m_errorLabel->isVisibleTo(this));
}

void DatasetPanel::clearFile()
{
    setFile(QString(), QString(), allowNonFinite());
    clearInfo();
}

void DatasetPanel::markLoaded(const QString& path)
{
    addRecent(QFileInfo(path).absoluteFilePath());
}

void DatasetPanel::markFailed(const QString& path)
{
    if (m_recentFiles.removeAll(QFileInfo(path).absoluteFilePath()) > 0) {
        rebuildRecentMenu();
        emit recentFilesChanged();
    }
}

void DatasetPanel::showDataset(const ks::data::Dataset& dataset)
{
    const auto& meta = dataset.meta();
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">");
    html += htmlRow(tr("Name"), QString::fromStdString(meta.name));
    html += htmlRow(tr("Kind"), QString::fromStdString(meta.kind));
    html += htmlRow(tr("Size"), QString::number(static_cast<qulonglong>(meta.size)));
    for (const auto& [key, value] : meta.properties)
        html += htmlRow(QString::fromStdString(key), QString::fromStdString(value));
    if (!meta.source.empty() && meta.source != "generator")
        html += htmlRow(tr("Source"), QString::fromStdString(meta.source));
    html += htmlRow(tr("Content hash"), QString::fromStdString(meta.contentHash));
    html += QStringLiteral("</table>");
    if (!meta.notes.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul style=\"margin-left:12px; -qt-list-indent:0\">").arg(tr("Notes"));
        for (const auto& note : meta.notes)
            html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(note).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    m_infoLabel->setText(html);
    showInfoWidget(m_infoLabel);
}

void DatasetPanel::showError(const QString& message)
{
    QString text = message;
    if (source() == Source::File && !m_filePath.isEmpty())
        text = tr("Could not load %1:\n%2").arg(QFileInfo(m_filePath).fileName(), message);
    else if (source() == Source::Generator)
        text = tr("Could not generate data:\n%1").arg(message);
    m_errorLabel->setText(text);
    showInfoWidget(m_errorLabel);
}

void DatasetPanel::showLoading(const QString& what)
{
    m_loadingLabel->setText(tr("Loading %1… (Esc cancels)").arg(what));
    showInfoWidget(m_loadingLabel);
}

void DatasetPanel::showNotice(const QString& text)
{
    m_loadingLabel->setText(text);
    showInfoWidget(m_loadingLabel);
}

void DatasetPanel::clearInfo()
{
    m_loadingLabel->clear();
    m_errorLabel->clear();
    m_infoLabel->clear();
    showInfoWidget(nullptr);
}

void DatasetPanel::setRecentFiles(const QStringList& files)
{
    m_recentFiles.clear();
    for (const auto& f : files)
        if (!f.isEmpty() && !m_recentFiles.contains(f) && m_recentFiles.size() < kMaxRecentFiles)
            m_recentFiles << f;
    rebuildRecentMenu();
}

void DatasetPanel::addRecent(const QString& path)
{
    m_recentFiles.removeAll(path);
    m_recentFiles.prepend(path);
    while (m_recentFiles.size() > kMaxRecentFiles)
        m_recentFiles.removeLast();
    rebuildRecentMenu();
    emit recentFilesChanged();
}

void DatasetPanel::rebuildRecentMenu()
{
    m_recentMenu->clear();
    if (m_recentFiles.isEmpty()) {
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    int number = 1;
    for (const auto& path : m_recentFiles) {
        const QFileInfo info(path);
        // Accelerators 1-9 then 0, as most editors number their recent lists.
        const QString text = QStringLiteral("&%1  %2  (%3)").arg(number % 10).arg(info.fileName(), info.absolutePath());
        QAction* action = m_recentMenu->addAction(text);
        action->setToolTip(path);
        action->setData(path);
        // Queued: openFile rebuilds this menu, which must not delete the action while it is still emitting.
        connect(
            action, &QAction::triggered, this, [this, path] { openFile(path); }, Qt::QueuedConnection);
        ++number;
    }
    m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("Clear list"));
    clear->setObjectName(QStringLiteral("clearRecentAction"));
    connect(
        clear, &QAction::triggered, this,
        [this] {
            m_recentFiles.clear();
            rebuildRecentMenu();
            emit recentFilesChanged();
        },
        Qt::QueuedConnection);
}

} // namespace ks::gui
