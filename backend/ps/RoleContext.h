#pragma once
// What every role process knows: the topology, which node it is, where to write, and
// the shared ZeroMQ context and metrics reporter.
#include "MetricsReporter.h"
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

    RoleContext(Topology t, Node n, QString out)
        : topology(std::move(t)), node(std::move(n)), outDir(std::move(out)), metrics(node.id) {}

    const TrainingSettings& training() const { return topology.training; }
    std::chrono::milliseconds replyTimeout() const { return std::chrono::seconds(training().replyTimeoutS); }
};

}  // namespace hips
