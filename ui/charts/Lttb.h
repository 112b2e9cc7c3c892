#pragma once
// Largest-Triangle-Three-Buckets decimation (Steinarsson, 2013): keeps the visual shape of a
// long series (peaks and dips survive) with a fixed number of points, so charts of 100,000
// points draw as fast as charts of a thousand.
#include <QList>
#include <QPointF>

namespace hips {

// Returns `points` unchanged when it has at most `threshold` points (or threshold < 3);
// otherwise `threshold` points including the first and the last. x must be non-decreasing.
QList<QPointF> lttb(const QList<QPointF>& points, int threshold);

}  // namespace hips
