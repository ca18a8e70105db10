#pragma once

#include "gui/views/workload_view.h"

#include <QString>
#include <QVector>

namespace ks::gui {

/// The linreg workload's view: a scatter of the data and, for every finished run on that same data, the
/// variant's fitted line y = m·x + c, so a wrong slope (lost digits at a large x offset) is seen, not just read.
class LinregView : public WorkloadView {
    Q_OBJECT
public:
    /// A regression view of the runs in `model`; empty until setDataset.
    explicit LinregView(ResultsModel* model, QWidget* parent = nullptr);

    /// "Regression fit".
    QString title() const override;
    /// Takes an evenly spaced sample of the series (at most kMaxScatterPoints) and its x range.
    void setDataset(const data::Dataset& dataset) override;

    /// More points than a scatter can show usefully, few enough to redraw 30 times a second.
    static constexpr qsizetype kMaxScatterPoints = 4000;

protected:
    void rebuild() override;

private:
    QVector<double> m_sampleX;
    QVector<double> m_sampleY;
    std::uint64_t m_pointCount = 0;
    double m_xMin = 0.0;
    double m_xMax = 0.0;
    /// The sampled points' y range: the axis keeps to it (and half its height either side), so a fit far off the
    /// data (a float32 sum on offset data) cannot squash the points into one row of pixels.
    double m_yMin = 0.0;
    double m_yMax = 0.0;
    std::string m_datasetHash;
    QString m_xName = QStringLiteral("x");
    QString m_yName = QStringLiteral("y");
};

} // namespace ks::gui
