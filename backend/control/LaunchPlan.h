#pragma once
// How a run's roles are started: every node with a CURVE key pair of its own, new for each run,
// and the public keys of all (a role is admitted, and named, by its key alone, so no node, nor a
// stranger on loopback, can pose as another); schedulers first, since the others register with
// them.
#include "CurveSecurity.h"
#include "StartCommand.h"
#include "Topology.h"

#include <QHash>
#include <QList>
#include <functional>

namespace hips {

class LaunchPlan {
public:
    void makeKeys(const QList<Node>& nodes);
    // The start command of each node `which` picks, in starting order, with `outDir` its folder;
    // `placement` is when the controller placed them (ms since the epoch: the newest wins).
    QList<std::pair<Node, StartCommand>> commands(const Topology& t, const std::function<bool(const Node&)>& which,
                                                  const std::function<QString(const Node&)>& outDir, qint64 placement) const;

private:
    QHash<QString, CurveKeyPair> m_nodeKeys;  // every node's own key pair
    PeerKeys m_peerKeys;  // their public halves, which every role gets
};

}  // namespace hips
