#include "gui/panels/kernel_dock.h"

#include "gui/panels/kernel_editor.h"
#include "gui/theme.h"
#include "gui/user_kernels.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace ks::gui {

namespace {
/// How often a file that vanished mid-save (an editor writing a new file and renaming it over the old one) is looked
/// for again before the tab says it is gone.
constexpr int kMissingRetries = 10;

QByteArray digest(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

/// Options as one line that QProcess::splitCommand reads back: an option with a space or a quote is quoted.
QString joinOptions(const QStringList& options)
{
    QStringList quoted;
    for (QString o : options) {
        if (o.contains(QLatin1Char(' ')) || o.contains(QLatin1Char('"')) || o.isEmpty())
            o = QLatin1Char('"') + o.replace(QLatin1Char('"'), QStringLiteral("\"\"\"")) + QLatin1Char('"');
        quoted << o;
    }
    return quoted.join(QLatin1Char(' '));
}

/// In ms as the results table and the history chart show it, to four significant digits.
QString milliseconds(double ms)
{
    return QStringLiteral("%1 ms").arg(QLocale::c().toString(ms, 'g', 4));
}
} // namespace

/// One kernel's tab: the editor, the compiler's messages, and the history of its saves.
class KernelPage : public QWidget {
public:
    KernelPage(const QString& workloadId, const QString& file, QWidget* parent)
        : QWidget(parent)
        , workload(workloadId)
        , path(QFileInfo(file).absoluteFilePath())
        , id(userKernelId(file))
        , editor(new KernelEditor(this))
        , swatch(new QLabel(this))
        , status(new QLabel(this))
        , messages(new QListWidget(this))
        , table(new QTableWidget(0, 5, this))
        , chart(new QCustomPlot(this))
        , settleTimer(new QTimer(this))
        , save(new QPushButton(tr("Save"), this))
        , reload(new QPushButton(tr("Reload"), this))
        , close(new QPushButton(tr("Close"), this))
        , options(new QLineEdit(this))
    {
        setObjectName(QStringLiteral("kernelPage:") + id);
        editor->setObjectName(QStringLiteral("kernelEditor"));
        editor->setBannerEnabled(false); // the list under the status line shows every message, clickable
        status->setObjectName(QStringLiteral("kernelStatus"));
        messages->setObjectName(QStringLiteral("kernelMessages"));
        table->setObjectName(QStringLiteral("kernelHistory"));
        chart->setObjectName(QStringLiteral("kernelHistoryChart"));
        save->setObjectName(QStringLiteral("kernelSave"));
        reload->setObjectName(QStringLiteral("kernelReload"));
        save->setToolTip(
            tr("Write this text to %1 (Ctrl+S in the editor); a save is compiled and the comparison re-run").arg(file));
        reload->setToolTip(tr("Take the file's text from disk, dropping edits made here"));
        close->setToolTip(tr("Stop watching this file and remove its variant"));
        options->setObjectName(QStringLiteral("kernelNvrtcOptions"));
        options->setPlaceholderText(tr("NVRTC options, e.g. -DTILE=8 -maxrregcount=64"));
        options->setToolTip(tr("Passed to NVRTC after -lineinfo and the device's architecture, for this kernel only; "
                               "a change compiles it again and re-runs the comparison"));
        settleTimer->setSingleShot(true);
        status->setWordWrap(true);
        status->setTextInteractionFlags(Qt::TextSelectableByMouse);

        auto* name = new QLabel(QStringLiteral("<b>%1</b>  <span style='color:gray'>%2</span>")
                                    .arg(id.toHtmlEscaped(), this->path.toHtmlEscaped()),
            this);
        name->setTextInteractionFlags(Qt::TextSelectableByMouse);
        name->setToolTip(this->path);
        swatch->setFixedSize(14, 14);
        swatch->setToolTip(tr("This kernel's colour on every chart"));
        auto* header = new QHBoxLayout;
        header->addWidget(swatch);
        header->addWidget(name, 1);
        header->addWidget(save);
        header->addWidget(reload);
        header->addWidget(close);

        messages->setToolTip(tr("Compiler messages: click one to go to its line"));
        messages->hide();

        table->setHorizontalHeaderLabels({tr("Save"), tr("Saved at"), tr("Median"), tr("vs previous"), tr("Result")});
        table->verticalHeader()->hide();
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->setSelectionMode(QAbstractItemView::NoSelection);
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        table->horizontalHeader()->setStretchLastSection(true);
        table->setToolTip(tr("The medians of this kernel's last saves, each measured by the run its save started"));

        chart->setMinimumHeight(110);
        chart->xAxis->setLabel(tr("save"));
        chart->yAxis->setLabel(tr("median (ms)"));
        chart->addGraph();
        chart->addGraph(); // the saves that ran but were over the tolerance or failed: marked apart
        chart->graph(1)->setLineStyle(QCPGraph::lsNone);
        chart->graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, alarmColor(), 10));
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        chart->xAxis->setTicker(ticker);

        auto* history = new QWidget(this);
        auto* historyLayout = new QHBoxLayout(history);
        historyLayout->setContentsMargins(0, 0, 0, 0);
        historyLayout->addWidget(table, 3);
        historyLayout->addWidget(chart, 2);

        auto* split = new QSplitter(Qt::Vertical, this);
        split->addWidget(editor);
        split->addWidget(history);
        split->setStretchFactor(0, 3);
        split->setStretchFactor(1, 1);

        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(4, 4, 4, 4);
        layout->addLayout(header);
        layout->addWidget(options);
        layout->addWidget(status);
        layout->addWidget(messages);
        layout->addWidget(split, 1);

        connect(messages, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) { goTo(item); });
        connect(messages, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) { goTo(item); });
    }

    void goTo(QListWidgetItem* item)
    {
        const int line = item->data(Qt::UserRole).toInt();
        if (line > 0) {
            editor->goToLine(line);
            editor->setFocus();
        }
    }

    void setColor(const QColor& c)
    {
        color = c;
        swatch->setStyleSheet(QStringLiteral("background:%1;border:1px solid palette(mid);").arg(c.name()));
        refreshHistory();
    }

    void setStatus(const QString& text, bool problem)
    {
        status->setText(text);
        status->setStyleSheet(problem ? QStringLiteral("color:%1;").arg(alarmColor().name()) : QString());
    }

    void showDiagnostics(const QString& compilerText, bool ok)
    {
        const QList<KernelDiagnostic> diagnostics = parseKernelDiagnostics(path, compilerText);
        editor->setDiagnostics(diagnostics);
        messages->clear();
        for (const KernelDiagnostic& d : diagnostics) {
            const QString where = d.line > 0 ? tr("line %1").arg(d.line) : QFileInfo(path).fileName();
            auto* item = new QListWidgetItem(
                QStringLiteral("%1: %2: %3").arg(where, d.error ? tr("error") : tr("warning"), d.message), messages);
            item->setData(Qt::UserRole, d.line);
            item->setForeground(d.error ? alarmColor() : QColor(0xb0, 0x70, 0x00));
        }
        // A failure that names no line of the file (NVRTC missing, an unreadable file) still shows its text.
        if (!ok && diagnostics.isEmpty() && !compilerText.isEmpty())
            new QListWidgetItem(compilerText, messages);
        messages->setVisible(messages->count() > 0);
        if (messages->count() > 0) // as tall as its lines, up to five
            messages->setFixedHeight(
                std::min(static_cast<int>(messages->count()), 5) * (messages->fontMetrics().lineSpacing() + 4)
                + 2 * messages->frameWidth() + 4);
    }

    KernelSave* entryFor(int number)
    {
        for (KernelSave& s : saves)
            if (s.save == number)
                return &s;
        return nullptr;
    }

    void addSave()
    {
        KernelSave s;
        s.save = ++saveCount;
        s.when = QDateTime::currentDateTime();
        saves.append(s);
        while (saves.size() > KernelDock::kHistoryLength)
            saves.removeFirst();
        refreshHistory();
    }

    void refreshHistory()
    {
        table->setRowCount(0);
        QVector<double> xs;
        QVector<double> ys;
        QVector<double> badX;
        QVector<double> badY;
        const KernelSave* previous = nullptr;
        for (const KernelSave& s : std::as_const(saves)) {
            const int row = table->rowCount();
            table->insertRow(row);
            table->setItem(row, 0, new QTableWidgetItem(QString::number(s.save)));
            table->setItem(row, 1, new QTableWidgetItem(s.when.toString(QStringLiteral("HH:mm:ss"))));
            QString median = QStringLiteral("—");
            QString change;
            QString result = tr("not run");
            QColor resultColor;
            if (s.measured) {
                const bool timed = s.outcome == Outcome::Passed || s.outcome == Outcome::Incorrect;
                if (timed) {
                    median = milliseconds(s.medianMs);
                    // A change is worth reading only between correct saves.
                    if (previous && s.outcome == Outcome::Passed) {
                        const double pct = (s.medianMs / previous->medianMs - 1.0) * 100.0;
                        change = QStringLiteral("%1%2 %")
                                     .arg(pct > 0 ? QStringLiteral("+") : QString())
                                     .arg(pct, 0, 'f', 1);
                    }
                    (s.outcome == Outcome::Passed ? xs : badX).append(s.save);
                    (s.outcome == Outcome::Passed ? ys : badY).append(s.medianMs);
                    if (s.outcome == Outcome::Passed)
                        previous = &s;
                }
                result = s.outcome == Outcome::Passed ? tr("passed (Δ %1)").arg(s.delta, 0, 'g', 3)
                    : s.outcome == Outcome::Incorrect ? tr("incorrect (Δ %1)").arg(s.delta, 0, 'g', 3)
                                                      : QString::fromLatin1(outcomeName(s.outcome));
                if (s.outcome != Outcome::Passed)
                    resultColor = alarmColor();
            } else if (s.compileFailed) {
                result = tr("does not compile");
                resultColor = alarmColor();
            }
            table->setItem(row, 2, new QTableWidgetItem(median));
            auto* changeItem = new QTableWidgetItem(change);
            if (change.startsWith(QLatin1Char('-')))
                changeItem->setForeground(QColor(0x00, 0x80, 0x40));
            table->setItem(row, 3, changeItem);
            auto* resultItem = new QTableWidgetItem(result);
            if (resultColor.isValid())
                resultItem->setForeground(resultColor);
            if (!s.message.isEmpty())
                resultItem->setToolTip(s.message);
            table->setItem(row, 4, resultItem);
            if (s.size != 0)
                table->item(row, 2)->setToolTip(tr("median at size %1").arg(s.size));
        }
        table->scrollToBottom();
        chart->graph(0)->setPen(QPen(color, 2));
        chart->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 8));
        chart->graph(0)->setData(xs, ys, true);
        chart->graph(1)->setData(badX, badY, true);
        const double first = saves.isEmpty() ? 1.0 : saves.front().save;
        const double last = saves.isEmpty() ? 1.0 : saves.back().save;
        chart->xAxis->setRange(first - 0.5, last + 0.5);
        double top = 0.0;
        for (double y : std::as_const(ys))
            top = std::max(top, y);
        for (double y : std::as_const(badY))
            top = std::max(top, y);
        // From zero, so a bar of improvement reads as a share of the whole.
        chart->yAxis->setRange(0.0, top > 0.0 ? top * 1.15 : 1.0);
        chart->replot(QCustomPlot::rpQueuedReplot);
    }

    const QString workload;
    const QString path;
    const QString id;
    KernelEditor* editor;
    QLabel* swatch;
    QLabel* status;
    QListWidget* messages;
    QTableWidget* table;
    QCustomPlot* chart;
    QTimer* settleTimer;
    QPushButton* save;
    QPushButton* reload;
    QPushButton* close;
    QLineEdit* options;
    QStringList optionList; ///< the options the last compile used
    QColor color = Qt::gray;
    QByteArray lastDigest; ///< of the text last taken from (or written to) the file
    int saveCount = 0;
    int runSave = 0; ///< the save the running sweep measures
    int missingTries = 0;
    quint64 compileTicket = 0;
    QList<KernelSave> saves;
};

KernelDock::KernelDock(QWidget* parent)
    : QDockWidget(tr("Kernels"), parent)
    , m_tabs(new QTabWidget(this))
    , m_watcher(new QFileSystemWatcher(this))
{
    setObjectName(QStringLiteral("kernelDock"));
    m_tabs->setObjectName(QStringLiteral("kernelTabs"));
    m_tabs->setDocumentMode(true);
    setWidget(m_tabs);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &KernelDock::onFileChanged);
}

KernelDock::~KernelDock() = default;

bool KernelDock::eventFilter(QObject* watched, QEvent* event)
{
    const bool shortcut = event->type() == QEvent::ShortcutOverride;
    if (shortcut || event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->matches(QKeySequence::Save)) {
            for (KernelPage* p : std::as_const(m_pages))
                if (p->editor == watched) {
                    event->accept();
                    if (!shortcut) {
                        QString why;
                        if (!saveKernel(p->id, &why))
                            p->setStatus(why, true);
                    }
                    return true;
                }
        }
    }
    return QDockWidget::eventFilter(watched, event);
}

KernelPage* KernelDock::page(const QString& id) const
{
    return m_pages.value(id, nullptr);
}

bool KernelDock::openKernel(
    const QString& workload, const QString& path, QString* error, const QStringList& nvrtcOptions)
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    const QString id = userKernelId(path);
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (KernelPage* existing = page(id)) {
        if (existing->path != absolute)
            return fail(tr("%1 is already open as %2: kernel files need different names").arg(path, id));
        m_tabs->setCurrentWidget(existing);
        return true;
    }
    QFile file(path);
    if (QFileInfo(path).isDir() || !file.open(QIODevice::ReadOnly))
        return fail(tr("%1: %2").arg(path, QFileInfo::exists(path) ? tr("cannot be read") : tr("no such file")));
    const QByteArray bytes = file.readAll();

    auto* p = new KernelPage(workload, path, m_tabs);
    p->optionList = nvrtcOptions;
    p->options->setText(joinOptions(nvrtcOptions));
    p->editor->setPlainText(QString::fromUtf8(bytes));
    p->editor->document()->setModified(false);
    p->lastDigest = digest(bytes);
    p->addSave();
    m_pages.insert(id, p);
    m_tabs->addTab(p, id);
    m_tabs->setCurrentWidget(p);
    m_watcher->addPath(p->path);

    connect(p->save, &QPushButton::clicked, this, [this, id] {
        QString why;
        if (!saveKernel(id, &why))
            if (KernelPage* q = page(id))
                q->setStatus(why, true);
    });
    connect(p->reload, &QPushButton::clicked, this, [this, id] {
        if (KernelPage* q = page(id)) {
            q->lastDigest.clear(); // take the file's text even when it is what was last read
            q->editor->document()->setModified(false);
            settle(id);
        }
    });
    connect(p->close, &QPushButton::clicked, this, [this, id] { closeKernel(id); });
    // Ctrl+S in the editor saves the kernel; elsewhere it stays the window's (File → Save Workspace).
    p->editor->installEventFilter(this);
    connect(p->options, &QLineEdit::editingFinished, this,
        [this, p] { setNvrtcOptions(p->id, QProcess::splitCommand(p->options->text())); });
    connect(p->settleTimer, &QTimer::timeout, this, [this, id] { settle(id); });
    connect(p->editor->document(), &QTextDocument::modificationChanged, this, [this, p](bool modified) {
        m_tabs->setTabText(m_tabs->indexOf(p), modified ? p->id + QStringLiteral(" •") : p->id);
    });
    show();
    compile(id, false);
    return true;
}

void KernelDock::closeKernel(const QString& id)
{
    KernelPage* p = page(id);
    if (!p)
        return;
    m_watcher->removePath(p->path);
    m_pages.remove(id);
    m_tabs->removeTab(m_tabs->indexOf(p));
    p->deleteLater();
    Q_EMIT kernelClosed(id);
}

QStringList KernelDock::kernelIds(const QString& workload) const
{
    QStringList ids;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* p = static_cast<KernelPage*>(m_tabs->widget(i)); workload.isEmpty() || p->workload == workload)
            ids << p->id;
    return ids;
}

QString KernelDock::kernelPath(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->path : QString();
}

QString KernelDock::kernelWorkload(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->workload : QString();
}

KernelEditor* KernelDock::editor(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->editor : nullptr;
}

bool KernelDock::saveKernel(const QString& id, QString* error)
{
    KernelPage* p = page(id);
    if (!p)
        return false;
    QSaveFile file(p->path);
    const QByteArray bytes = p->editor->toPlainText().toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = tr("%1: cannot be written (%2)").arg(p->path, file.errorString());
        return false;
    }
    p->editor->document()->setModified(false);
    // Handled now rather than when the watcher reports it, which it may not for a file replaced by rename.
    settle(id);
    return true;
}

void KernelDock::setKernelColor(const QString& id, const QColor& color)
{
    if (KernelPage* p = page(id)) {
        p->setColor(color);
        QPixmap dot(12, 12);
        dot.fill(color);
        m_tabs->setTabIcon(m_tabs->indexOf(p), QIcon(dot));
    }
}

QStringList KernelDock::nvrtcOptions(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->optionList : QStringList();
}

void KernelDock::setNvrtcOptions(const QString& id, const QStringList& options)
{
    KernelPage* p = page(id);
    if (!p || options == p->optionList)
        return;
    p->optionList = options;
    p->options->setText(joinOptions(options));
    // Other options make other code: a new entry in the history, measured by the run it starts.
    p->addSave();
    compile(id, true);
}

QString KernelDock::compileStatus(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->status->text() : QString();
}

int KernelDock::currentSave(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->saveCount : 0;
}

QList<KernelSave> KernelDock::history(const QString& id) const
{
    const KernelPage* p = page(id);
    return p ? p->saves : QList<KernelSave>();
}

void KernelDock::markRunStarted()
{
    for (KernelPage* p : std::as_const(m_pages))
        p->runSave = p->saveCount;
}

void KernelDock::recordSummary(const Summary& summary)
{
    KernelPage* p = page(QString::fromStdString(summary.variant));
    if (!p || summary.outcome == Outcome::Cancelled)
        return;
    KernelSave* s = p->entryFor(p->runSave);
    if (!s)
        return; // that save has left the history
    // A sweep over several sizes: the largest size stands for the save (later rows of the same size replace it).
    if (s->measured && summary.size < s->size)
        return;
    s->measured = true;
    s->outcome = summary.outcome;
    s->medianMs = summary.medianMs;
    s->size = summary.size;
    s->delta = summary.delta.value;
    s->withinTolerance = summary.delta.withinTolerance();
    s->message = QString::fromStdString(summary.message);
    p->refreshHistory();
}

void KernelDock::onFileChanged(const QString& path)
{
    for (KernelPage* p : std::as_const(m_pages))
        if (p->path == path) {
            p->missingTries = 0;
            p->settleTimer->start(kSettleMs);
        }
}

void KernelDock::settle(const QString& id)
{
    KernelPage* p = page(id);
    if (!p)
        return;
    QFile file(p->path);
    if (!file.open(QIODevice::ReadOnly)) {
        // An editor that saves by writing a new file and renaming it leaves a moment with no file at this path.
        if (++p->missingTries <= kMissingRetries) {
            p->settleTimer->start(kSettleMs);
            return;
        }
        p->setStatus(tr("%1 is gone (deleted or renamed); Save writes it again").arg(p->path), true);
        return;
    }
    // The watcher drops a path that was replaced by rename: watch the new file.
    if (!m_watcher->files().contains(p->path))
        m_watcher->addPath(p->path);
    const QByteArray bytes = file.readAll();
    const QByteArray d = digest(bytes);
    if (d == p->lastDigest)
        return; // the same text again (a touch, or the watcher's echo of our own save)
    const QString text = QString::fromUtf8(bytes);
    if (p->editor->document()->isModified() && p->editor->toPlainText() != text) {
        p->setStatus(tr("The file changed on disk while this pane has unsaved edits: Reload takes the file's text, "
                        "Save writes this one"),
            true);
        return;
    }
    p->lastDigest = d;
    if (p->editor->toPlainText() != text) {
        // Another editor saved it: take its text, keeping the view where the user was.
        const int position = p->editor->textCursor().position();
        const int scroll = p->editor->verticalScrollBar()->value();
        p->editor->setPlainText(text);
        QTextCursor cursor = p->editor->textCursor();
        cursor.setPosition(std::min(position, static_cast<int>(text.size())));
        p->editor->setTextCursor(cursor);
        p->editor->verticalScrollBar()->setValue(scroll);
    }
    p->editor->document()->setModified(false);
    p->addSave();
    compile(id, true);
}

void KernelDock::compile(const QString& id, bool changed)
{
    KernelPage* p = page(id);
    if (!p)
        return;
    const quint64 ticket = ++m_compileTicket;
    p->compileTicket = ticket;
    p->setStatus(tr("Compiling save %1…").arg(p->saveCount), false);
    QPointer<KernelDock> self(this);
    const QString workload = p->workload;
    const QString path = p->path;
    const QStringList options = p->optionList;
    QThreadPool::globalInstance()->start([self, id, ticket, workload, path, options, changed] {
        const CompileCheck check = checkUserKernel(workload, path, options);
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, id, ticket, check, changed] {
                KernelPage* q = self ? self->page(id) : nullptr;
                if (!q || q->compileTicket != ticket)
                    return; // closed, or a newer save is compiling
                q->showDiagnostics(check.messages, check.ok);
                if (KernelSave* save = q->entryFor(q->saveCount)) {
                    save->compileFailed = !check.ok;
                    q->refreshHistory();
                }
                if (check.ok) {
                    q->setStatus(
                        tr("Save %1: %2").arg(q->saveCount).arg(check.summary.section(QLatin1Char('\n'), 0, 0)), false);
                } else {
                    const int errors = static_cast<int>(std::count_if(q->editor->diagnostics().begin(),
                        q->editor->diagnostics().end(), [](const KernelDiagnostic& d) { return d.error; }));
                    q->setStatus(errors > 0
                            ? tr("Save %1 does not compile: %n error(s), marked in the margin", nullptr, errors)
                                  .arg(q->saveCount)
                            : tr("Save %1 does not compile: %2")
                                  .arg(q->saveCount)
                                  .arg(check.messages.section(QLatin1Char('\n'), 0, 0)),
                        true);
                }
                Q_EMIT self->compileFinished(id, check.ok);
                if (check.ok && changed)
                    Q_EMIT self->kernelChanged(id);
            },
            Qt::QueuedConnection);
    });
}

} // namespace ks::gui
