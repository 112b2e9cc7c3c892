#pragma once
// What hips simulate can run (Simulation.h): checked by the controller before a run begins and by
// the simulator itself.
#include "Topology.h"

namespace hips {

class JsonFields;

// A worker group's settings for hips simulate, as the topology's reader reads them (their issues
// into `f`): device_profile (seconds per local step, or "measured") and availability ("always", a
// probability per round, or a trace file's path).
void readSimulationFields(JsonFields& f, WorkerGroup& g);

// Why `topology` cannot be simulated, naming the setting and what to do instead; empty: it can.
QString simulationRefusal(const Topology& topology);

}  // namespace hips
