#pragma once
// A line chart for data that keeps arriving: appends are cheap (they only store the point), and
// the chart redraws at most 25 times a second whatever the rate, each line decimated (LTTB) to a
// few thousand drawn points so that a 100,000-point series stays responsive. Offers an x axis of
// round, wall-clock time or time since start; EMA smoothing with the raw line shown faintly; a
// log y axis; every line's value at the cursor (a tooltip, and the line under the chart); legend
// entries that toggle lines; rubber-band zoom and reset; export as PNG or CSV.
#include <QColor>
#include <QElapsedTimer>
#include <QTimer>
#include <QVector>
#include <QWidget>
#include <optional>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QAbstractAxis;
class QGraphicsLineItem;

namespace hips {

class LiveChart : public QWidget {
    Q_OBJECT
public:
    enum class XAxis { Round, WallTime, Elapsed };
    static constexpr int kMaxDrawnPoints = 800;
    static constexpr int kMarkedPoints = 40;  // up to this many drawn points, each is marked
    static constexpr int kMinRedrawMs = 40;  // at most 25 redraws a second

    LiveChart(const QString& title, const QString& yTitle, QWidget* parent = nullptr);
    ~LiveChart() override;

    int addLine(const QString& name, const QColor& color, Qt::PenStyle style = Qt::SolidLine);
    // One point of `line`: its round, wall-clock time (ms since the epoch), seconds since the start, value.
    void append(int line, double round, double wallMs, double elapsed, double value);
    // The line's last point given again (a party's mean over its workers as more of them report);
    // a line without points gets it appended.
    void replaceLast(int line, double round, double wallMs, double elapsed, double value);
    void clear();  // removes every line, and the axes' range and zoom with them
    void setYTitle(const QString& title);
    void setTitle(const QString& title);
    void setLineName(int line, const QString& name);

    void setXAxis(XAxis axis);
    void setSmoothing(double alpha);  // 0: none; else EMA weight of the past, below 1
    void setLogY(bool log);
    void setLineVisible(int line, bool visible);
    void resetZoom();
    void redrawNow();
    void setLive(bool live);  // while live, the x axis keeps room ahead of the data

    int lineCount() const { return int(m_lines.size()); }
    QString lineName(int line) const { return m_lines[line].name; }
    qsizetype pointCount(int line) const { return m_lines[line].samples.size(); }
    qsizetype drawnPointCount(int line) const;
    bool lineVisible(int line) const { return m_lines[line].visible; }
    int redrawCount() const { return m_redraws; }
    QChart* chart() const { return m_chart; }
    QString hoverText() const;
    // Each returns an error text naming the file, empty on success.
    QString savePng(const QString& path) const;  // the chart as drawn
    QString saveCsv(const QString& path) const;  // every point of every line
    // A vertical line at x (in this chart's x units) where the cursor is on another chart;
    // nullopt hides it. crosshair(): where it is shown, if it is.
    void setCrosshair(std::optional<double> x);
    std::optional<double> crosshair() const { return m_crosshairX; }

Q_SIGNALS:
    void cursorAt(double x);  // the mouse rests at x (the nearest point's) over the plot
    void cursorLeft();

private:
    struct Sample {
        double round, wallMs, elapsed, value;
    };
    struct Line {
        QString name;
        QColor color;
        QVector<Sample> samples;
        QVector<double> smoothed;  // EMA of value, kept up to date as points arrive
        double ema = 0, emaDecay = 1;  // the EMA from 0 and alpha^n, which debiases it
        double emaBefore = 0, emaDecayBefore = 1;  // as they were before the last point
        QLineSeries* raw = nullptr;
        QLineSeries* smooth = nullptr;
        bool visible = true;
    };
    void smoothNext(Line& line, double value);
    void scheduleRedraw();
    void redraw();
    void rebuildAxes();
    double xOf(const Sample& s) const;
    void onHover(int line, const QPointF& point, bool state);
    bool eventFilter(QObject* watched, QEvent* event) override;
    bool showValuesAt(const QPoint& viewportPos, const QPoint& globalPos);  // false outside the plot
    QString xLabel(double x) const;

    QChart* m_chart;
    QChartView* m_view;
    QLabel* m_hover;
    QList<Line> m_lines;
    QAbstractAxis* m_x = nullptr;
    QAbstractAxis* m_y = nullptr;
    XAxis m_xAxis = XAxis::Round;
    double m_alpha = 0;
    bool m_logY = false;
    bool m_dirty = false;
    bool m_rangeFresh = false;  // the axes fit the data; only data leaving them moves them
    bool m_live = false;  // points keep arriving (a run under way): leave room on the x axis
    QTimer m_timer;
    QElapsedTimer m_sinceRedraw;
    int m_redraws = 0;
    QGraphicsLineItem* m_crosshair;
    std::optional<double> m_crosshairX;
};

}  // namespace hips
