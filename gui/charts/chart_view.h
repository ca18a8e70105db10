#pragma once

#include <QColor>
#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <QVector>
#include <cstdint>
#include <map>

class QCustomPlot;
class QCPAxis;
class QCPGraph;
class QCPScatterStyle;
class QCPItemText;

namespace ks::gui {

class ResultsModel;

/// Base of every chart: a QCustomPlot that redraws itself from the ResultsModel whenever the model changes, at most
/// about 30 times a second (changes in between are coalesced into one queued replot), recolours itself when the
/// palette changes, zooms and pans with the mouse, and exports to PNG, PDF and SVG.
class ChartView : public QWidget {
    Q_OBJECT
public:
    explicit ChartView(ResultsModel* model, QWidget* parent = nullptr);
    ~ChartView() override;

    QCustomPlot* plot() const { return m_plot; }
    /// The tab title ("Timeline", "Sweep", ...).
    virtual QString title() const = 0;

    /// Writes the chart as PNG, PDF or SVG (chosen by the suffix). On failure returns false and sets `error`.
    bool exportTo(const QString& path, QString* error = nullptr);
    /// Whether SVG export was built in (Qt's SVG module present at build time).
    static bool svgAvailable();

    /// Data points drawn right now, over every graph and bar set (tests read it).
    int pointCount() const;
    /// Replots done so far (tests of the throttle read it).
    int replotCount() const { return m_replots; }
    /// The tooltip at a pixel of the plot (its coordinates); empty where there is none. Charts with tooltips override
    /// it and connect the plot's mouseMove to showToolTip.
    virtual QString toolTipAt(const QPoint& pixel) const;
    /// A byte count for a tooltip: "50 MiB", "3.81 KiB" (three significant digits, binary units).
    static QString bytesText(double bytes);

    static constexpr int kMinReplotIntervalMs = 33;

public slots:
    /// Marks the chart out of date; it rebuilds from the model within kMinReplotIntervalMs if it is visible, or
    /// when it is next shown (a chart on a hidden tab costs nothing while data streams in).
    void scheduleRebuild();
    /// Rebuilds and replots now (exports and tests call it).
    void rebuildNow();

protected:
    /// Redraws every graph from the model. Called by the throttle; must not call replot itself.
    virtual void rebuild() = 0;

    ResultsModel* model() const { return m_model; }
    /// The variant's colour, the same in every chart.
    QColor colorFor(const QString& variant) const;
    QColor textColor() const;
    QColor gridColor() const;
    QColor backgroundColor() const;
    bool darkTheme() const;
    /// Applies the theme's colours to an axis (ticks, labels, grid).
    void styleAxis(QCPAxis* axis) const;
    /// Shows toolTipAt the pointer, or hides the tooltip where there is none.
    void showToolTip(QMouseEvent* event);
    /// Rescales both axes to the data with a small margin (log axes stay positive).
    void rescaleWithMargin();
    /// Makes an axis logarithmic with decade ticks; `format` is QCustomPlot's number format ("eb": 10^k). A range of
    /// under two decades gets 1-2-5 ticks (or plain ones) labelled with as many digits as tell them apart.
    static void setLogAxis(QCPAxis* axis, const QString& format = QStringLiteral("eb"));
    /// Gives a linear axis labels that tell its ticks apart: as many digits as they need, and on a range far from
    /// zero for its width (x from 1 000 000 to 1 000 200) offsets from a round value, the axis label saying so
    /// ("x − 1 000 000"). rescaleWithMargin applies it to both axes; call it again after setting a range by hand.
    void fitLinearTicks(QCPAxis* axis);
    /// A variant's pen: its own colour, dashed when its result is over tolerance.
    QPen variantPen(const QString& variant, bool overTolerance, double width) const;
    /// The mark of a point over tolerance, in the variant's colour: a cross ("✗") over a hollow circle.
    static QCPScatterStyle overToleranceScatter(const QColor& color, double size = 11.0);
    /// What a legend entry of a result over tolerance ends in.
    static QString overToleranceSuffix();
    /// variant index → size → row of the latest finished run with timings there (what sweep-shaped charts plot);
    /// rows loaded from `exceptSource` (a pinned baseline file, drawn as an overlay instead) are left out.
    std::map<int, std::map<std::uint64_t, int>> latestTimedRunsBySize(const QString& exceptSource = {}) const;
    /// A line with markers in the variant's colour (markers only for a single point).
    QCPGraph* addVariantGraph(const QString& variant, const QVector<double>& keys, const QVector<double>& values);
    /// Crosses in the variant's colour over its points whose results are over tolerance, drawn last so they cover
    /// the variant's own dots, with a legend entry "variant ✗ over tolerance" (one per variant, no shared red one).
    void addOverToleranceMarkers(QCPGraph* variantGraph, const QVector<double>& keys, const QVector<double>& values);
    /// A line of text over the plot (why nothing, or not everything, is drawn), anchored by `alignment` at (x, y) as
    /// fractions of the axis rectangle, in the chart's font and `color`.
    QCPItemText* addNote(const QString& text, double x, double y, Qt::Alignment alignment, const QColor& color);

    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void applyTheme();
    void flush();
    /// rebuild(), then the legend hidden while it has no entry (an empty box says nothing).
    void rebuildAndTidy();

    ResultsModel* m_model;
    QCustomPlot* m_plot;
    QTimer m_throttle;
    QElapsedTimer m_sinceReplot;
    bool m_dirty = false;
    int m_replots = 0;
    bool m_legendHiddenEmpty = false; ///< the legend was hidden for want of entries, not by the chart
};

} // namespace ks::gui
