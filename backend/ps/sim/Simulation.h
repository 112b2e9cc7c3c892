#pragma once
// hips simulate: a whole run in one process on a virtual clock. The parties' servers and the
// global server are the deployed ones' round machinery (RoundCollector with the run's rules,
// quorum, client sampling and claim bounds; the server optimizers), fed in the order their pushes
// would arrive; the workers are VirtualWorkers; the master evaluates as the deployed one does.
// Time is what each step and message would cost deployed (SimNetwork.h, device_profile) and what
// the servers' aggregation measurably took, so a round over a 5 Mbit/s link or on a slow device
// costs no waiting. Records go to stdout as a role's do, stamped with the virtual clock, for the
// controller to keep as a run's (SimulatedFleet).
#include "Topology.h"

namespace hips::sim {

struct Options {
    QString outDir;  // net.params, net.meta, model.pt
    double clockOrigin = 0;  // unix seconds the virtual clock starts at (the run's start)
    int threads = 0;  // trainer threads; 0: one per core
};

// Runs it; throws RoleError or TrainError naming what went wrong (simulationRefusal's reason
// for a topology it cannot simulate).
void simulate(const Topology& topology, const Options& options);

}  // namespace hips::sim
