#pragma once
#include "Topology.h"

#include <QList>
#include <utility>

namespace hips {

// A topology's shape in a few numbers, to set runs side by side where their training settings
// are the same but their parties are not: parties, hosts, processes, training_workers,
// servers_per_party (key slices), in that order.
QList<std::pair<QString, qint64>> topologyShape(const Topology& t);

// Every setting of the parties and hosts (training's are the run's settings), each leaf of the
// topology file with its path, parties and hosts named by their ids: "party1.workers[0].slowdown"
// = "2", "hosts.lab.address" = "10.0.0.7". What History's compare and `hips history show` set
// side by side, so that a per-group slowdown, device, adversary or data source is seen too.
QList<std::pair<QString, QString>> topologySettings(const Topology& t);

}  // namespace hips
