#include "TopologyShape.h"

#include <QSet>

namespace hips {

QList<std::pair<QString, qint64>> topologyShape(const Topology& t) {
    const QList<Node> nodes = t.nodes();
    QSet<QString> hosts;
    for (const Node& n : nodes) hosts.insert(n.host);
    const Party* central = t.centralParty();
    return {{QStringLiteral("parties"), t.parties.size()},
            {QStringLiteral("hosts"), hosts.size()},
            {QStringLiteral("processes"), nodes.size()},
            {QStringLiteral("training_workers"), t.trainingWorkerCount()},
            {QStringLiteral("servers_per_party"), central ? central->servers.size() : 0}};
}

}  // namespace hips
