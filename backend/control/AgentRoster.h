#pragma once
// How a run's agents are reached, kept in its directory (agents.json, mode 0600: it holds the
// controller's secret key) once they are up, so that `hips attach` can reconnect to them after
// the controller that started the run died or was stopped: each agent's endpoint and public
// key, and the controller key pair every agent admits.
#include "CurveSecurity.h"

#include <QList>
#include <QString>
#include <optional>

namespace hips {

struct AgentRoster {
    struct Agent {
        QString host;  // host id ("" for the one local agent that runs every role)
        QString label;  // what messages call it
        QString endpoint;
        QByteArray publicKey;
    };
    CurveKeyPair controller;
    QList<Agent> agents;
    bool local() const { return agents.size() == 1 && agents.first().host.isEmpty(); }

    static QString pathIn(const QString& runDir);
    QString save(const QString& runDir) const;  // empty on success, else why not
    static std::optional<AgentRoster> load(const QString& runDir, QString* error);
};

}  // namespace hips
