#pragma once
// The CURVE keys of one deployment, kept on the controller's machine (mode 0600) so that a
// later `hips stop` (or run) can still reach the agents it started: the controller's key pair
// and each agent's public key.
#include "CurveSecurity.h"
#include "Topology.h"

#include <QHash>
#include <optional>

namespace hips {

struct DeploymentKeys {
    CurveKeyPair controller;
    QHash<QString, QByteArray> agents;  // host id → the agent's public key (Z85)

    static DeploymentKeys generate();
    static QString pathFor(const Topology& topology);  // under the user's application data directory
    QString save(const QString& path) const;  // empty on success, else why not
    static std::optional<DeploymentKeys> load(const QString& path, QString* error);
    CurveConfig clientFor(const QString& host) const { return {controller, agents.value(host)}; }
};

}  // namespace hips
