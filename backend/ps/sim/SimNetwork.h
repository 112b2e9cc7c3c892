#pragma once
// What a message costs on hips simulate's virtual clock: its link's latency plus its bytes over
// the link's bandwidth. Inside a party the link is a LAN (kLan); across parties it is the party's
// `wan` as a deployed run emulates it (WanLinks.cpp: the party's bandwidth, shared by its nodes
// that cross, each way), else a LAN too.
#include "Topology.h"
#include "TrafficCounter.h"

#include <QCborMap>

namespace hips::sim {

struct LinkCost {
    double latencyS = 0;
    double bytesPerS = 0;  // 0: free
    double seconds(quint64 bytes) const { return latencyS + (bytesPerS > 0 ? double(bytes) / bytesPerS : 0); }
};

// A switched LAN between a party's hosts: 10 Gbit/s, 0.1 ms.
inline constexpr LinkCost kLan{1e-4, 10e9 / 8};

// The link between party `p`'s nodes and the central party's.
LinkCost acrossLink(const Party& p);
// The link from `worker` to the server it pushes to (`direct`: the global server; else its party's).
LinkCost workerLink(const Topology& t, const Node& worker, bool direct);
// The cores of `host` its workers share, where known: this machine's for a host at a loopback
// address (the topologies that run every role here); 0 for another (each worker its own core).
int hostCores(const Topology& t, const QString& host);
// The calling thread's CPU seconds: what its work costs on a core of its own, whatever else this
// process runs meanwhile.
double threadCpuSeconds();
// The bytes `floats` floats take on the wire: their payload in 1 MiB slices, each with its header.
quint64 wireBytes(size_t floats);
// A node's traffic record of `round`, as a deployed node reports it (the simulator's messages
// all arrive whole: no wire errors, nothing undeliverable).
QCborMap trafficRecord(const TrafficCounter& traffic, qint64 round);

}  // namespace hips::sim
