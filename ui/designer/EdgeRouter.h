#pragma once
// Orthogonal edge routing, as node editors draw their links: a line leaves a box at the middle
// of one of its sides, runs only horizontally and vertically, keeps `clearance` away from every
// box on the way (its own two included) and bends as little as it can. Pure geometry, so the
// designer's lines and its tests share one definition of "around the boxes".
#include <QList>
#include <QPolygonF>
#include <QRectF>

namespace hips::designer {

struct Route {
    QPolygonF points;  // from a side of `from` to a side of `to`; empty when nothing was found
    bool found() const { return points.size() >= 2; }
};

// The shortest route (length plus a penalty per bend) from `from` to `to` around `obstacles`.
Route routeOrthogonal(const QRectF& from, const QRectF& to, const QList<QRectF>& obstacles, qreal clearance = 20);

// `route` moved sideways by `distance` (to the left of its direction when positive), its corners
// kept square: a second line along the same way, beside the first.
QPolygonF offsetRoute(const QPolygonF& route, qreal distance);

// Whether a polyline's segments enter the inside of `box` (its border does not count).
bool routeEnters(const QPolygonF& route, const QRectF& box);

}  // namespace hips::designer
