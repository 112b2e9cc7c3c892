#include "LaunchPlan.h"

#include "TopologyWriter.h"

#include <QJsonDocument>

namespace hips {

void LaunchPlan::makeKeys(const QList<Node>& nodes) {
    for (const Node& n : nodes) {
        const CurveKeyPair pair = CurveKeyPair::generate();
        m_nodeKeys.insert(n.id, pair);
        m_peerKeys.insert(n.id, pair.publicKey);
    }
}

QList<std::pair<Node, StartCommand>> LaunchPlan::commands(const Topology& t, const std::function<bool(const Node&)>& which,
                                                          const std::function<QString(const Node&)>& outDir, qint64 placement) const {
    // (Compact: it goes to every role in its start request, which an agent takes up to 1 MiB.)
    const QString json = QString::fromUtf8(QJsonDocument(TopologyWriter::toJsonObject(t)).toJson(QJsonDocument::Compact));
    const QList<Node> nodes = t.nodes();
    QList<std::pair<Node, StartCommand>> out;
    for (const bool schedulers : {true, false})
        for (const Node& n : nodes) {
            const bool isScheduler = n.kind == RoleKind::GlobalScheduler || n.kind == RoleKind::Scheduler;
            if (isScheduler != schedulers || !which(n)) continue;
            out.append({n, StartCommand{n.id, outDir(n), json, m_nodeKeys.value(n.id), m_peerKeys, t.training.threads, placement}});
        }
    return out;
}

}  // namespace hips
