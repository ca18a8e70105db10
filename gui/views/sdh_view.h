#pragma once

#include "gui/views/workload_view.h"

#include <QString>
#include <QVector>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCheckBox;
class QCPItemText;
class QCPLayoutGrid;
class QCPTextElement;

namespace ks {
struct Result;
struct Summary;
} // namespace ks

namespace ks::gui {

/// The sdh workload's view: the reference's histogram of pair distances and, over it, every other variant's
/// histogram of the same dataset and bucket width, each as a step line in its colour, with a line per variant
/// under the chart saying how many pairs it put in another bucket than the reference (L1) and whether it counted
/// all N(N−1)/2 pairs. Only the newest run's dataset and bucket width are shown: histograms of other widths do not
/// share bucket edges.
class SdhView : public WorkloadView {
    Q_OBJECT
public:
    /// A histogram view of the runs in `model`; shows the newest sdh run until setDataset narrows it.
    explicit SdhView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Distance histogram".
    QString title() const override;
    /// Only runs on this point cloud are shown from now on (not a point cloud: the newest run with a histogram).
    void setDataset(const data::Dataset& dataset) override;

    /// Whether the pair-count axis is logarithmic (the checkbox above the chart).
    bool logScale() const;
    void setLogScale(bool on);

    /// What the line under the chart says about one variant's histogram.
    struct Check {
        std::string variant;
        std::optional<double> l1Pairs; ///< pairs in another bucket than the reference's, summed over buckets
        std::optional<double> maxRelBucketErr; ///< the worst bucket's |difference| / reference count
        std::optional<double> totalMinusPairs; ///< Σ counts − N(N−1)/2: 0 when every pair was counted once
        bool overTolerance = false;
        QString text;
    };
    /// One per variant shown, the reference first, in the order of the graphs after it.
    const std::vector<Check>& checks() const { return m_checks; }
    /// The bucket width shown; nullopt while nothing is.
    std::optional<double> shownBucketWidth() const { return m_shownWidth; }

    /// Buckets drawn as steps at most: more are summed in groups of adjacent buckets (a 10^8-bucket histogram
    /// would be a graph no screen shows and no replot affords).
    static constexpr std::size_t kMaxSteps = 2048;
    /// Where an empty bucket sits on the logarithmic axis: below one pair, the fewest a non-empty bucket holds.
    static constexpr double kLogFloor = 0.5;

protected:
    void rebuild() override;

private:
    /// A histogram as drawn: step edges k·g·W (g buckets a step) and each step's count, the last repeated at the
    /// right edge so that the last step is drawn whole. Computed once per result.
    struct Steps {
        std::weak_ptr<const Result> source;
        double width = 0.0;
        std::uint64_t bucketsPerStep = 1;
        QVector<double> edges;
        QVector<double> counts;
        double tallest = 0.0;
        std::uint64_t total = 0; ///< Σ counts, exact
    };
    /// The steps of `result` at `width`, from the cache when this very result was drawn before (a stream of
    /// samples from another run redraws without a pass over millions of buckets).
    Steps stepsFor(const std::shared_ptr<const Result>& result, double width);
    /// Empties the chart and the checks and centres `message` in the plot.
    void showMessage(const QString& message);
    /// The line under the chart for the run `s`, against the reference shown (null when there is none).
    Check checkFor(const Summary& s, const Result* reference) const;
    void applyColors();

    std::string m_datasetHash;
    QCheckBox* m_logBox;
    QCPTextElement* m_caption;
    QCPLayoutGrid* m_checkGrid;
    QCPItemText* m_message;
    std::vector<Check> m_checks;
    std::vector<Steps> m_steps;
    std::optional<double> m_shownWidth;
};

} // namespace ks::gui
