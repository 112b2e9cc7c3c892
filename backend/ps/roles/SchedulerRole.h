#pragma once
// A scheduler (global or party): rendezvous, node table, barriers, heartbeats, dead-node
// detection. It knows from the topology which nodes must register; when all have, it
// sends each the table. A node silent for heartbeat_timeout_s aborts the run (fault_policy
// continue: it is declared down to the others). It exits when every node has said bye. One
// restarted during the run (its agent restarts it under continue) knows it from a heartbeat by a
// member that never registered with it: it takes the run up and has every member register again.
#include "RoleContext.h"

namespace hips {

int runScheduler(RoleContext& ctx);

// The nodes that register with `scheduler` (its party's servers and workers, or for the
// global scheduler the global servers, the master worker, party servers, central workers).
QList<Node> membersOf(const Topology& topology, const Node& scheduler);

}  // namespace hips
