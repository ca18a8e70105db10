#pragma once

#include "gui/views/workload_view.h"

#include <QFutureWatcher>
#include <QString>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCPBars;
class QCPItemText;
class QCPTextElement;

namespace ks::data {
struct CsrMatrix;
}

namespace ks::gui {

/// The spmv workload's view: how many rows of the current matrix have how many non-zeros, beside the numbers that
/// decide which kernel suits it (spread of the row lengths, empty rows, ELL's padding, the row-binning classes), so
/// a power-law matrix's long tail is seen before a scalar kernel is timed on it.
class SpmvView : public WorkloadView {
    Q_OBJECT
public:
    /// A row-length view of the current dataset; empty until setDataset gives it a sparse matrix.
    explicit SpmvView(ResultsModel* model, QWidget* parent = nullptr);
    ~SpmvView() override;

    /// "Row lengths".
    QString title() const override;
    /// Profiles the matrix's row lengths: here for up to kSynchronousRows rows, else on the thread pool with the
    /// result delivered back through a queued signal (the view says it is counting meanwhile). The same matrix
    /// again (by content hash) costs nothing.
    void setDataset(const data::Dataset& dataset) override;

    /// One bar: rows with `first`…`last` non-zeros.
    struct Bin {
        std::uint64_t first = 0;
        std::uint64_t last = 0;
        std::uint64_t rows = 0;
    };

    /// Everything the view shows about a matrix, from one pass over its row pointers.
    struct Profile {
        std::uint64_t rows = 0;
        std::uint64_t cols = 0;
        std::uint64_t nnz = 0;
        std::uint64_t shortest = 0;
        std::uint64_t longest = 0;
        double mean = 0.0;
        double stddev = 0.0; ///< population standard deviation: the rows are the whole matrix, not a sample
        std::uint64_t emptyRows = 0;
        /// Exact lengths 0…longest when longest ≤ kMaxExactLength; else 0, 1, 2–3, 4–7, … (powers of two).
        bool logBins = false;
        std::vector<Bin> bins; ///< bins[0] is always the empty rows
        // The classes of the row_binning and adaptive variants, by spmv::RowBinningThresholds and
        // spmv::AdaptiveThresholds (compute/workloads/spmv/spmv_policy.h).
        std::uint64_t threadRows = 0; ///< row binning: rows of 0–kShortMax non-zeros, a thread each
        std::uint64_t warpRows = 0; ///< row binning: kShortMax+1 – kMediumMax non-zeros, a warp each
        std::uint64_t blockRows = 0; ///< row binning: longer than kMediumMax, a block per LongRowThresholds::kChunk
        std::uint64_t adaptiveWarpRows = 0; ///< adaptive: longer than kScalarMax, the whole warp each
        std::uint64_t tileLongRows = 0; ///< row_tiles: longer than a tile's capacity, in blocks instead
        /// Thread per row: the share of lane time doing work when each warp of 32 consecutive rows waits for its
        /// longest (Σ lengths / Σ rows in warp × its longest); 0 when there are no non-zeros.
        double warpBalance = 0.0;
        /// Mean over the non-empty rows of (last column − first column + 1) / cols.
        double meanSpan = 0.0;
        /// Diagonals (col − row) holding the non-zeros, counted up to spmv::DiaThresholds::kMaxDiagonals + 1.
        std::uint64_t diagonals = 0;
        /// What the spmv `auto` variant runs on this matrix and why (spmv::chooseKernel).
        std::string autoVariant;
        std::string autoReason;
        bool cancelled = false; ///< a newer matrix replaced this one while it was being counted

        /// Stored slots per non-zero if every row were padded to the longest (ELL); 0 without non-zeros.
        double ellSlotsPerNonZero() const;
        /// Stored slots per non-zero if every diagonal were stored whole (DIA); 0 without non-zeros.
        double diaSlotsPerNonZero() const;
        /// nnz / (rows × cols).
        double density() const;
    };

    /// The profile of `matrix` in one pass; checks `cancel` every 65,536 rows and stops early (Profile::cancelled).
    static Profile profileOf(const data::CsrMatrix& matrix, const std::atomic<bool>* cancel = nullptr);
    /// "0", "1", "2–3", …: what a bin's tick says.
    static QString binLabel(const Bin& bin);

    /// The profile shown now; none while there is no matrix or it is still being counted.
    const std::optional<Profile>& profile() const { return m_profile; }
    /// True while a profile is being computed on the thread pool.
    bool computing() const { return m_computing; }
    /// The text summary beside the chart (empty without a profile).
    QString summaryText() const;

    /// Up to this many rows the profile is computed on the GUI thread: the pass takes about 3 ns a row (measured:
    /// 10–18 ms for 4M rows, more than a frame), so 2^18 rows cost under a millisecond.
    static constexpr std::uint64_t kSynchronousRows = std::uint64_t(1) << 18;
    /// Longest row up to which every length has its own bar.
    static constexpr std::uint64_t kMaxExactLength = 64;

signals:
    /// A new profile is shown (computed here or delivered from the thread pool).
    void profileReady();

protected:
    void rebuild() override;

private:
    void onProfileComputed();
    /// Shows `profile` and schedules the redraw.
    void setProfile(Profile profile);
    /// Empties the bars and the summary and centres `message` in the plot.
    void showMessage(const QString& message);
    /// Rebuilds the bars, ticks, axes and texts from m_profile.
    void showProfile();
    /// Bar, text and caption colours of the current palette.
    void applyColors();
    /// Stops a profile still being computed from being shown (and from finishing its pass).
    void cancelPending();

    std::string m_datasetHash;
    QString m_datasetName;
    std::optional<Profile> m_profile;
    QString m_summary;
    bool m_computing = false;
    bool m_stale = true; ///< the bars do not show m_profile (or the message) yet
    QString m_message;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QFutureWatcher<Profile> m_watcher;

    QCPBars* m_rowBars;
    QCPBars* m_emptyBars;
    QCPTextElement* m_caption;
    QCPTextElement* m_summaryText;
    QCPItemText* m_messageText;
};

} // namespace ks::gui
