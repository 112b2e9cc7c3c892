#include "Lttb.h"

#include <cmath>

namespace hips {

QList<QPointF> lttb(const QList<QPointF>& points, int threshold) {
    const qsizetype n = points.size();
    if (threshold < 3 || n <= threshold) return points;
    QList<QPointF> out;
    out.reserve(threshold);
    out << points.first();
    // The n-2 inner points go into threshold-2 buckets; each bucket keeps the point that makes
    // the largest triangle with the point kept before it and the average of the next bucket.
    const double bucket = double(n - 2) / (threshold - 2);
    qsizetype kept = 0;
    for (int b = 0; b < threshold - 2; ++b) {
        const qsizetype begin = qsizetype(b * bucket) + 1;
        const qsizetype end = qsizetype((b + 1) * bucket) + 1;
        const qsizetype nextEnd = std::min<qsizetype>(qsizetype((b + 2) * bucket) + 1, n);
        double avgX = 0, avgY = 0;
        for (qsizetype i = end; i < nextEnd; ++i) avgX += points[i].x(), avgY += points[i].y();
        const qsizetype nextCount = std::max<qsizetype>(1, nextEnd - end);
        avgX /= double(nextCount), avgY /= double(nextCount);
        if (nextEnd <= end) avgX = points.last().x(), avgY = points.last().y();

        const QPointF a = points[kept];
        double bestArea = -1;
        qsizetype best = begin;
        for (qsizetype i = begin; i < end; ++i) {
            const double area = std::abs((a.x() - avgX) * (points[i].y() - a.y()) - (a.x() - points[i].x()) * (avgY - a.y()));
            if (area > bestArea) bestArea = area, best = i;
        }
        out << points[best];
        kept = best;
    }
    out << points.last();
    return out;
}

}  // namespace hips
