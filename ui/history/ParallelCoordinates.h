#pragma once
// Runs' settings against their final score, as parallel coordinates (W&B's view of a sweep): an
// axis per setting that differs between the runs (numbers on a linear scale, anything else as
// evenly spaced values), the score last, and each run a line across them coloured by its score.
// A click on a line picks its run; the selected runs are drawn thick.
#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QWidget>
#include <limits>

namespace hips {

class ParallelCoordinates : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxAxes = 10;  // settings; the ones of most distinct values first

    struct Run {
        qint64 id = 0;
        QString name;
        QJsonObject settings;  // flat (RunSettings.h)
        double score = std::numeric_limits<double>::quiet_NaN();  // NaN: none (no evaluated round)
    };

    explicit ParallelCoordinates(QWidget* parent = nullptr);

    // `lowerIsBetter`: a regression's RMSE (its best runs get the best colour).
    void setRuns(const QList<Run>& runs, const QString& scoreName, bool lowerIsBetter);
    void setSelected(const QList<qint64>& ids);
    QStringList axes() const;  // the settings drawn, then the score's name
    // Where run `id`'s line crosses axis `axis` (widget coordinates); a null point where it does not.
    QPointF pointOf(qint64 id, int axis) const;

    QSize sizeHint() const override { return {640, 300}; }

Q_SIGNALS:
    void runClicked(qint64 id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // tooltips: the run under the cursor

private:
    struct Axis {
        QString key;
        bool numeric = true;
        double min = 0, max = 0;
        QStringList values;  // not numeric: its values, in order
    };
    void chooseAxes();
    double fractionOf(const Axis& axis, const QJsonValue& value) const;  // 0 bottom … 1 top; NaN: none
    double axisX(int axis) const;
    QRectF plot() const;
    QColor colourOf(const Run& run) const;
    qint64 runAt(QPointF at) const;  // the run whose line passes within a few pixels; 0: none

    QList<Run> m_runs;
    QList<Axis> m_axes;  // the score's is the last
    QString m_scoreName;
    bool m_lowerIsBetter = false;
    QList<qint64> m_selected;
};

}  // namespace hips
