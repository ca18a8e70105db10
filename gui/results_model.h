#pragma once

#include "compute/core/stats.h"
#include "compute/core/summary.h"

#include <QAbstractTableModel>
#include <QList>
#include <QStringList>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

class QTableView;

namespace ks::gui {

/// Every run of the session, one row per run (a variant at a size), live while it runs: the results table and every
/// chart are views of it, so a Sample shows up in all of them at once.
class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        VariantColumn,
        BackendColumn,
        SizeColumn,
        ParamsColumn,
        OutcomeColumn,
        RepetitionsColumn,
        MedianColumn,
        NoiseColumn,
        GbPerSColumn,
        ItemRateColumn,
        PctOfPeakColumn,
        DeltaColumn,
        MessageColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< numbers as numbers for sorting
        RunningRole, ///< bool: the run has not finished
        OverToleranceRole, ///< bool: the Delta is over the tolerance (shown in red everywhere)
        NoisyRole, ///< bool: the run stopped on a limit before reaching the noise target (Summary::noisy)
    };
    /// Marks appended to a cell's text, explained in its tooltip.
    static constexpr const char* kNoisyMark = "?"; ///< on the noise: stopped before the noise target
    static constexpr const char* kNondeterministicMark = "~"; ///< on the Delta: two runs gave different bits

    explicit ResultsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// Repetitions of runs (a batch from the worker): creates a run's row on its first Sample and updates its
    /// live statistics incrementally, so a fast stream costs O(1) per sample.
    void addSamples(const QList<ks::Sample>& samples);
    void addSample(const Sample& sample) { addSamples({sample}); }
    /// A finished run: completes its row (or adds one, for runs that never sampled: skipped, failed).
    void addSummary(const Summary& summary);
    /// Replaces everything (a reopened workspace).
    void setSummaries(const std::vector<Summary>& summaries);
    void clear();

    /// The run's Summary; for a running row, its statistics so far.
    const Summary& summary(int row) const;
    bool isRunning(int row) const { return m_rows[static_cast<std::size_t>(row)].running; }
    /// The charts show the current workload's rows only (the table keeps every row, with its workload): a row of
    /// another workload is never joined to this one's lines. Every row is in view while no workload is set.
    bool inView(int row) const
    {
        return m_viewWorkload.empty() || m_rows[static_cast<std::size_t>(row)].summary.workload == m_viewWorkload;
    }
    /// Sets the workload the charts show (empty: all), and has them redrawn.
    void setViewWorkload(const std::string& workload);
    /// -1 when no row has this run id.
    int rowForRun(const std::string& runId) const;
    /// Finished runs in order (what files and workspaces hold).
    std::vector<Summary> finishedSummaries() const;

    /// The order variants are listed in (the workload's), so each keeps its colour in every chart.
    void setVariantOrder(const QStringList& variants);
    /// 0-based position of a variant in that order (variants seen later are appended).
    int variantIndex(const QString& variant) const;

signals:
    /// New samples were appended to the run in `row` (the timeline listens to this).
    void samplesAppended(int row);

private:
    struct Row {
        Summary summary;
        bool running = false;
        RunningStats stats; ///< of the samples so far, while running
        bool medianStale = false; ///< the median is computed when asked for, not per sample
    };
    void appendToRow(Row& row, const Sample& sample);
    /// The Parameters cell: the values that differ from the workload's defaults ("precision=f32, block=256") and
    /// that the row's variant reads, "defaults" when none does; every value when the workload is not known here (a
    /// file from a newer build).
    QString paramsText(const Summary& s) const;
    /// Every parameter of the run, one per line, defaults and those the variant does not read marked (the
    /// Parameters cell's tooltip).
    QString paramsToolTip(const Summary& s) const;
    /// What the Parameters cell needs of a workload's axes (empty for a workload this build does not have).
    struct WorkloadParams {
        std::map<std::string, std::string> defaults; ///< default values by name
        std::map<std::string, Axis> axes; ///< by name
    };
    const WorkloadParams& workloadParams(const std::string& workload) const;

    mutable std::vector<Row> m_rows;
    std::unordered_map<std::string, int> m_rowByRun;
    mutable QStringList m_variantOrder;
    std::string m_viewWorkload;
    mutable std::map<std::string, WorkloadParams> m_workloadParams; ///< by workload
};

/// Sizes the results table's columns to their headers and contents, again whenever rows come or change (coalesced,
/// growing only, so a running row does not make the columns jitter); a column is at most kMaxColumnWidth wide, its
/// long text elided with the whole of it in the tooltip.
void fitResultsColumns(QTableView* table);
inline constexpr int kMaxColumnWidth = 380;

/// The display text of a run's rate column: GB/s, or the workload's own unit per second.
QString formatRate(const Summary& summary);
/// "3.2e-16" or "—".
QString formatDelta(const Summary& summary);

} // namespace ks::gui
