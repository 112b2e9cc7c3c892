#pragma once
// What the chart tests read off a chart's axes.
#include <QStringList>
#include <QValueAxis>

// The tick labels of a value axis as the chart draws them: tickCount ticks spread evenly over
// its range, in its label format.
inline QStringList tickLabels(const QValueAxis* axis) {
    if (axis->tickType() != QValueAxis::TicksFixed || axis->tickCount() < 2) return {"(no fixed ticks)"};
    QStringList labels;
    for (int k = 0; k < axis->tickCount(); ++k)
        labels << QString::asprintf(axis->labelFormat().toLatin1().constData(),
                                    axis->min() + k * (axis->max() - axis->min()) / (axis->tickCount() - 1));
    return labels;
}
