#pragma once
// What hips simulate can run (Simulation.h): checked by the controller before a run begins and by
// the simulator itself.
#include "Topology.h"

namespace hips {

// Why `topology` cannot be simulated, naming the setting and what to do instead; empty: it can.
QString simulationRefusal(const Topology& topology);

}  // namespace hips
