#include "EdgeRouter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

namespace hips::designer {

namespace {

constexpr qreal kBendCost = 80;  // a bend costs as much as this many pixels of line

enum Axis : int { Horizontal = 0, Vertical = 1 };

// A side of a box: the point at its middle, the stub point `clearance` out, and the axis a line
// leaving it runs along.
struct Port {
    QPointF onBox, stub;
    Axis axis;
};

std::array<Port, 4> portsOf(const QRectF& box, qreal clearance) {
    const QPointF c = box.center();
    return {{{{c.x(), box.top()}, {c.x(), box.top() - clearance}, Vertical},
             {{c.x(), box.bottom()}, {c.x(), box.bottom() + clearance}, Vertical},
             {{box.left(), c.y()}, {box.left() - clearance, c.y()}, Horizontal},
             {{box.right(), c.y()}, {box.right() + clearance, c.y()}, Horizontal}}};
}

bool strictlyInside(const QRectF& r, QPointF p) {
    constexpr qreal e = 0.01;  // a point on a border is outside
    return p.x() > r.left() + e && p.x() < r.right() - e && p.y() > r.top() + e && p.y() < r.bottom() - e;
}

std::vector<qreal> sortedUnique(std::vector<qreal> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end(), [](qreal a, qreal b) { return std::abs(a - b) < 0.5; }), v.end());
    return v;
}

// The grid the search walks: every line a box's (inflated) side or a port's stub lies on, and
// the middle between neighbouring ones, so that lines can run down the middle of a gap.
struct Grid {
    std::vector<qreal> xs, ys;
    std::vector<QRectF> blocked;

    int index(int i, int j) const { return j * int(xs.size()) + i; }
    QPointF at(int i, int j) const { return {xs[i], ys[j]}; }
    bool free(QPointF p) const {
        return std::none_of(blocked.begin(), blocked.end(), [&](const QRectF& r) { return strictlyInside(r, p); });
    }
    int find(QPointF p) const {
        auto near = [](const std::vector<qreal>& v, qreal x) {
            for (size_t k = 0; k < v.size(); ++k)
                if (std::abs(v[k] - x) < 0.5) return int(k);
            return -1;
        };
        const int i = near(xs, p.x()), j = near(ys, p.y());
        return i < 0 || j < 0 ? -1 : index(i, j);
    }
};

Grid gridFor(const std::vector<QRectF>& blocked, const std::array<Port, 4>& a, const std::array<Port, 4>& b) {
    Grid g;
    g.blocked = blocked;
    std::vector<qreal> xs, ys;
    for (const QRectF& r : blocked) xs.insert(xs.end(), {r.left(), r.right()}), ys.insert(ys.end(), {r.top(), r.bottom()});
    for (const auto* ports : {&a, &b})
        for (const Port& p : *ports) xs.push_back(p.stub.x()), ys.push_back(p.stub.y());
    for (auto* v : {&xs, &ys}) {
        *v = sortedUnique(*v);
        const size_t n = v->size();
        for (size_t k = 0; k + 1 < n; ++k) v->push_back(((*v)[k] + (*v)[k + 1]) / 2);
        *v = sortedUnique(*v);
    }
    g.xs = std::move(xs);
    g.ys = std::move(ys);
    return g;
}

QPolygonF withoutStraightPoints(const QPolygonF& in) {
    QPolygonF out;
    for (const QPointF& p : in) {
        if (!out.isEmpty() && std::abs(out.last().x() - p.x()) < 0.01 && std::abs(out.last().y() - p.y()) < 0.01) continue;
        if (out.size() >= 2) {
            const QPointF a = out[out.size() - 2], b = out.last();
            const bool sameX = std::abs(a.x() - b.x()) < 0.01 && std::abs(b.x() - p.x()) < 0.01;
            const bool sameY = std::abs(a.y() - b.y()) < 0.01 && std::abs(b.y() - p.y()) < 0.01;
            if (sameX || sameY) out.removeLast();
        }
        out << p;
    }
    return out;
}

// Dijkstra over (grid point, axis of the last step): a step costs its length, a change of axis
// kBendCost more. It starts at every free stub of `from` and ends at the cheapest stub of `to`.
Route search(const QRectF& from, const QRectF& to, const QList<QRectF>& obstacles, qreal clearance) {
    std::vector<QRectF> blocked;
    for (const QRectF& r : obstacles) blocked.push_back(r.adjusted(-clearance, -clearance, clearance, clearance));
    for (const QRectF& r : {from, to}) blocked.push_back(r.adjusted(-clearance, -clearance, clearance, clearance));
    const auto starts = portsOf(from, clearance), ends = portsOf(to, clearance);
    const Grid g = gridFor(blocked, starts, ends);
    const int nx = int(g.xs.size()), ny = int(g.ys.size()), states = nx * ny * 2;
    std::vector<qreal> cost(states, std::numeric_limits<qreal>::infinity());
    std::vector<int> previous(states, -1);
    using Entry = std::pair<qreal, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    for (const Port& p : starts) {
        const int node = g.find(p.stub);
        if (node < 0 || !g.free(p.stub)) continue;
        const int state = node * 2 + p.axis;
        cost[state] = 0;
        queue.push({0, state});
    }
    while (!queue.empty()) {
        const auto [c, state] = queue.top();
        queue.pop();
        if (c > cost[state]) continue;
        const int node = state / 2, axis = state % 2, i = node % nx, j = node / nx;
        constexpr std::array<std::array<int, 3>, 4> steps{{{1, 0, Horizontal}, {-1, 0, Horizontal}, {0, 1, Vertical}, {0, -1, Vertical}}};
        for (const auto& [di, dj, stepAxis] : steps) {
            const int ni = i + di, nj = j + dj;
            if (ni < 0 || nj < 0 || ni >= nx || nj >= ny) continue;
            const QPointF a = g.at(i, j), b = g.at(ni, nj);
            if (!g.free(b) || !g.free((a + b) / 2)) continue;
            const qreal next = c + std::abs(b.x() - a.x()) + std::abs(b.y() - a.y()) + (stepAxis == axis ? 0 : kBendCost);
            const int nextState = g.index(ni, nj) * 2 + stepAxis;
            if (next < cost[nextState]) cost[nextState] = next, previous[nextState] = state, queue.push({next, nextState});
        }
    }
    // The cheapest arrival: one that enters `to` along its side's axis needs no last bend.
    int best = -1;
    qreal bestCost = std::numeric_limits<qreal>::infinity();
    const Port* bestPort = nullptr;
    for (const Port& p : ends) {
        const int node = g.find(p.stub);
        if (node < 0) continue;
        for (int axis : {Horizontal, Vertical}) {
            const qreal c = cost[node * 2 + axis] + (axis == p.axis ? 0 : kBendCost);
            if (c < bestCost) bestCost = c, best = node * 2 + axis, bestPort = &p;
        }
    }
    if (best < 0) return {};
    QPolygonF reversed{bestPort->onBox};
    for (int s = best; s >= 0; s = previous[s]) reversed << g.at((s / 2) % nx, (s / 2) / nx);
    const QPointF first = reversed.last();
    for (const Port& p : starts)
        if (std::abs(p.stub.x() - first.x()) < 0.5 && std::abs(p.stub.y() - first.y()) < 0.5) reversed << p.onBox;
    std::reverse(reversed.begin(), reversed.end());
    return {withoutStraightPoints(reversed)};
}

}  // namespace

Route routeOrthogonal(const QRectF& from, const QRectF& to, const QList<QRectF>& obstacles, qreal clearance) {
    QList<QRectF> others;  // from and to are kept clear of in any case
    for (const QRectF& r : obstacles)
        if (r != from && r != to) others << r;
    // Boxes close together leave no room at the full clearance: the line then runs nearer them.
    for (qreal c : {clearance, clearance / 2, qreal(2)})
        if (Route r = search(from, to, others, c); r.found()) return r;
    return {};
}

QPolygonF offsetRoute(const QPolygonF& route, qreal distance) {
    if (route.size() < 2) return route;
    // Each segment's shift: to the left of its direction (x right, y down: (dy, -dx)).
    auto shift = [&](int k) {
        QPointF d = route[k + 1] - route[k];
        const qreal length = std::hypot(d.x(), d.y());
        return length > 0 ? QPointF(d.y(), -d.x()) * (distance / length) : QPointF();
    };
    QPolygonF out;
    out << route.first() + shift(0);
    for (int k = 1; k + 1 < route.size(); ++k) {
        const QPointF before = shift(k - 1), after = shift(k);
        // Square corners: the shifted vertical segment gives the x, the horizontal one the y.
        const bool beforeVertical = std::abs(route[k].x() - route[k - 1].x()) < 0.01;
        out << (beforeVertical ? QPointF(route[k].x() + before.x(), route[k].y() + after.y())
                               : QPointF(route[k].x() + after.x(), route[k].y() + before.y()));
    }
    out << route.last() + shift(route.size() - 2);
    return out;
}

bool routeEnters(const QPolygonF& route, const QRectF& box) {
    constexpr qreal e = 0.01;
    auto opensOver = [](qreal a, qreal b, qreal low, qreal high) {
        return std::max(std::min(a, b), low) < std::min(std::max(a, b), high) - e;
    };
    for (int k = 0; k + 1 < route.size(); ++k) {
        const QPointF a = route[k], b = route[k + 1];
        if (std::abs(a.y() - b.y()) < e) {  // horizontal
            if (a.y() > box.top() + e && a.y() < box.bottom() - e && opensOver(a.x(), b.x(), box.left(), box.right())) return true;
        } else if (std::abs(a.x() - b.x()) < e) {  // vertical
            if (a.x() > box.left() + e && a.x() < box.right() - e && opensOver(a.y(), b.y(), box.top(), box.bottom())) return true;
        } else {
            for (int s = 0; s <= 256; ++s)  // not a route of ours: sampled
                if (strictlyInside(box, a + (b - a) * (s / 256.0))) return true;
        }
    }
    return false;
}

}  // namespace hips::designer
