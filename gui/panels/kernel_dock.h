#pragma once

// Bring your own kernel, the pane: each user kernel file in its own tab, with an editor, its compiler messages and
// the medians of its last saves. The file is watched: a save from this pane or from the user's own editor is
// compiled, and when it compiles the dock says so (kernelChanged) and the window re-runs the comparison.

#include "compute/core/summary.h"

#include <QColor>
#include <QDateTime>
#include <QDockWidget>
#include <QMap>
#include <QStringList>
#include <memory>

class QFileSystemWatcher;
class QTabWidget;
class QTimer;

namespace ks::gui {

class KernelEditor;
class KernelPage;

/// One save of a kernel, as a run measured it.
struct KernelSave {
    int save = 0; ///< 1 for the file as it was opened, then one more per changed save
    QDateTime when; ///< when that save was seen
    bool compileFailed = false; ///< this save did not compile (so nothing ran it)
    bool measured = false; ///< a run of this save reported a Summary
    Outcome outcome = Outcome::Skipped;
    double medianMs = 0.0;
    std::uint64_t size = 0; ///< the problem size the median is for (the largest the run had)
    double delta = 0.0;
    bool withinTolerance = false;
    QString message; ///< a failure's or skip's reason
};

class KernelDock : public QDockWidget {
    Q_OBJECT
public:
    explicit KernelDock(QWidget* parent = nullptr);
    ~KernelDock() override;

    /// How many saves each kernel's history keeps (and its chart shows).
    static constexpr int kHistoryLength = 8;
    /// Saves arrive in bursts (an editor writes, renames, touches): one change is handled this long after the last.
    static constexpr int kSettleMs = 150;

    /// Opens a kernel file written for `workload` in its own tab, watches it and compiles it (compileFinished says
    /// how that went). An id already open shows its tab. False, with a one-line reason, when the file cannot be
    /// read or another open file has the same id.
    bool openKernel(
        const QString& workload, const QString& path, QString* error = nullptr, const QStringList& nvrtcOptions = {});
    void closeKernel(const QString& id);
    /// Every open kernel's id, or those written for one workload, in tab order.
    QStringList kernelIds(const QString& workload = {}) const;
    QString kernelPath(const QString& id) const;
    QString kernelWorkload(const QString& id) const;
    KernelEditor* editor(const QString& id) const;
    /// Writes the pane's text of a kernel to its file; the save is then handled as any change of the file is.
    bool saveKernel(const QString& id, QString* error = nullptr);
    /// The kernel's own NVRTC options (the field above its editor), e.g. -DTILE=8 -maxrregcount=64. Setting them
    /// is a change of the kernel: it is compiled again and, when it compiles, kernelChanged asks for a re-run.
    QStringList nvrtcOptions(const QString& id) const;
    void setNvrtcOptions(const QString& id, const QStringList& options);
    /// The colour of the kernel's variant on the charts, shown on its tab.
    void setKernelColor(const QString& id, const QColor& color);
    /// The compile status line of a kernel's tab.
    QString compileStatus(const QString& id) const;
    /// The number of the kernel's current save (1 as opened).
    int currentSave(const QString& id) const;
    /// The kernel's saves, oldest first (at most kHistoryLength), with what runs measured of them.
    QList<KernelSave> history(const QString& id) const;

    /// The sweep that starts now measures each kernel as currently saved: its Summaries count for that save.
    void markRunStarted();
    /// Records a user variant's Summary against the save its sweep measured (the largest size's counts).
    void recordSummary(const Summary& summary);

Q_SIGNALS:
    /// A kernel's file changed and the new text compiles: re-run the comparison (the dock runs nothing itself).
    void kernelChanged(const QString& id);
    /// A kernel was compiled (on opening, or after a change); ok is false with errors in its editor's margin.
    void compileFinished(const QString& id, bool ok);
    void kernelClosed(const QString& id);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    KernelPage* page(const QString& id) const;
    /// A watched path changed (or the pane saved it): after kSettleMs, read it and act on the new text.
    void onFileChanged(const QString& path);
    void settle(const QString& id);
    void compile(const QString& id, bool changed);

    QTabWidget* m_tabs;
    QFileSystemWatcher* m_watcher;
    QMap<QString, KernelPage*> m_pages; ///< by variant id
    quint64 m_compileTicket = 0;
};

} // namespace ks::gui
