#pragma once
// What every role process knows: the topology, which node it is, where to write, and
// the shared ZeroMQ context and metrics reporter.
#include "MetricsReporter.h"
#include "RoleError.h"
#include "Topology.h"

#include <chrono>
#include <zmq.hpp>

namespace hips {

struct RoleContext {
    Topology topology;
    Node node;
    QString outDir;
    zmq::context_t zmq{1};
    MetricsReporter metrics{node.id};
    // This launch of the run (from the node's key, new for each hips run and --resume, the same
    // when the agent restarts the role): what a restarted role kept for itself is found under it.
    QString launch;
    // When the controller placed this node where it runs (its clock, ms; 0 when unknown): of two
    // processes of one node, the scheduler keeps the later placed (SchedulerIncarnations.h).
    qint64 placement = 0;

    RoleContext(Topology t, Node n, QString out) : topology(std::move(t)), node(std::move(n)), outDir(std::move(out)), metrics(node.id) {}

    const TrainingSettings& training() const { return topology.training; }
    std::chrono::milliseconds replyTimeout() const { return std::chrono::seconds(training().replyTimeoutS); }
    // The global scheduler (`central`), or this node's party's scheduler; a role cannot run
    // without it (validation makes sure every topology has both).
    Node scheduler(bool central) const {
        const auto s = topology.scheduler(central ? RoleKind::GlobalScheduler : RoleKind::Scheduler, node.party);
        if (!s)
            throw RoleError("the topology has no " + std::string(central ? "global scheduler" : "scheduler for party ") +
                            (central ? "" : node.party.toStdString()));
        return *s;
    }
};

}  // namespace hips
