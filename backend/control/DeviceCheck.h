#pragma once
// Before any role starts: the GPUs a topology asks for against what each host's trainer can use
// (its agent's probe, `hips-trainer probe`), so that a run that cannot train fails at once with
// the host and the device named, not in a worker half-way through the start.
#include "Topology.h"

#include <QCborMap>

namespace hips {

// Whether a node on `host` (a worker, the master worker or a server) asks for a GPU ("" is every host: the local agent's case).
bool asksForGpu(const Topology& t, const QString& host);

// One message naming each node on `host` whose device the probe `devices` ({"torch", "cuda",
// "gpus"} or {"error"}) rules out, and what to do; empty when every one can run.
QString deviceProblems(const Topology& t, const QString& host, const QString& hostLabel, const QCborMap& devices);

}  // namespace hips
