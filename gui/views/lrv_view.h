#pragma once

#include "gui/views/workload_view.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemText;
class QCPTextElement;
class QTableWidget;

namespace ks {
struct Result;
}

namespace ks::gui {

/// The lrv workload's view: a heat map of log₁₀ lrv over every feature pair of the newest run on the current data,
/// beside a table of the most proportional pairs by name, so the pairs the workload exists to find are seen at once.
class LrvView : public WorkloadView {
    Q_OBJECT
public:
    /// A proportionality view of the runs in `model`; shows the newest lrv result until setDataset narrows it.
    explicit LrvView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Proportionality".
    QString title() const override;
    /// Only runs on this dataset are shown from now on (an empty dataset: the newest run with a result).
    void setDataset(const data::Dataset& dataset) override;

    /// Cells per side at most: finer than a screen shows, and a 2^26-value result still colours in a few ms.
    static constexpr std::size_t kMaxCells = 512;
    /// Rows of the most-proportional-pairs table.
    static constexpr std::size_t kTopPairs = 20;
    /// Up to this many features, the axes are ticked with their names.
    static constexpr std::size_t kMaxNamedTicks = 40;

    /// One of the most proportional pairs: features i > j, in propr's order.
    struct Pair {
        double lrv;
        std::size_t i;
        std::size_t j;
    };

protected:
    void rebuild() override;

private:
    /// The row to show, newest first: a run with an lrv result, else one whose result was dropped (`*dropped`), or -1.
    int rowToShow(bool* dropped) const;
    /// Recomputes the heat map and the table from `result` (the expensive part, once per result).
    void showResult(int row, const Result& result);
    /// Empties the map and the table and centres `message` in the plot.
    void showMessage(const QString& message);
    /// The gradient and the texts in the current palette's colours.
    void applyColors();
    /// Frames the selected pair's cell and its mirror.
    void highlightSelectedPair();

    std::string m_datasetHash;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPTextElement* m_caption;
    QCPItemText* m_message;
    QCPItemRect* m_highlight[2];
    QTableWidget* m_table;

    /// What is shown: the row and its result's identity (a weak reference, so a cleared model frees the matrix).
    int m_shownRow = -1;
    std::weak_ptr<const Result> m_shownResult;
    std::vector<Pair> m_pairs;
    std::size_t m_features = 0;
    std::size_t m_block = 1;
    bool m_overTolerance = false;
    bool m_darkGradient = false;
    bool m_gradientSet = false;
};

} // namespace ks::gui
