#pragma once
// The topology as a picture: the central party on top, the other parties below it, each a
// container of its hosts, each host listing its role processes; the links that cross party
// boundaries (party server ⇄ global server) are drawn between the containers.
#include "Topology.h"

#include <QImage>

namespace hips {

// At `scale` pixels a point, or fewer where its longest side would pass kDiagramMaxPixels (a
// hundred parties of a hundred workers: 30,000 × 5,400 px, 650 MB, at 2).
constexpr int kDiagramMaxPixels = 6000;
QImage drawTopologyDiagram(const Topology& topology, qreal scale = 2.0);
QColor roleColor(RoleKind kind);  // shared with the designer, so both read the same

}  // namespace hips
