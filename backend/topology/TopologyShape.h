#pragma once
#include "Topology.h"

#include <QList>
#include <utility>

namespace hips {

// A topology's shape in a few numbers, to set runs side by side where their training settings
// are the same but their parties are not: parties, hosts, processes, training_workers,
// servers_per_party (key slices), in that order.
QList<std::pair<QString, qint64>> topologyShape(const Topology& t);

}  // namespace hips
