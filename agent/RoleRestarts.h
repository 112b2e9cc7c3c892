#pragma once
// fault_policy continue: a worker, party server or scheduler that crashes is started again by its
// agent, up to max_restarts times in a row, after 1 s, 2 s, 4 s, ... (restartDelayMs), from the
// launch of its last start; one that ran a minute or more before it crashed starts its count over
// (kSteadyRunMs). A restarted worker rejoins its party and goes on from the newest model; a
// restarted party server pulls the global model, takes up the global round, and its workers send
// it their open round's push again; a restarted scheduler has its members register again; a
// restarted master gets the newest round's model to evaluate; a restarted global server goes on
// from the model it last sent anyone, and its parties send their open round's push again; a
// restarted state service learns the workers from their next steps.
#include "RoleSupervisor.h"
#include "Topology.h"

#include <QHash>
#include <QStringList>
#include <functional>
#include <optional>

namespace hips {

// (The global servers where they recover their model: recoversGlobalServer.)
bool restartable(RoleKind kind, const TrainingSettings& training);

class RoleRestarts {
public:
    // `nowMs`: a monotonic clock in milliseconds (a test's own, to need no waiting).
    explicit RoleRestarts(std::function<qint64()> nowMs = steadyNowMs) : m_nowMs(std::move(nowMs)) {}
    static qint64 steadyNowMs();
    // A start from the controller: `maxRestarts` 0 for a role that is never restarted.
    void remember(const RoleLaunch& launch, int maxRestarts);
    // A role exited: the delay before its next start (then pending), or nothing when it is not
    // started again (it ended cleanly, it was superseded by a process of its node placed later
    // elsewhere, it may not be restarted, or its restarts are spent).
    std::optional<int> planRestart(const QString& node, const RoleExitInfo& info, int* attempt, int* maxRestarts);
    // The launch to start now, if its restart is still pending (not cancelled meanwhile).
    std::optional<RoleLaunch> takeDue(const QString& node);
    // The agent wrote `path` anew (a start for a role moved here: the controller's topology says
    // where the roles run now): the roles that read it restart with it, and check it by `sha256`.
    void fileRewritten(const QString& path, const QByteArray& sha256);
    // The run is stopping: no restart happens; returns the nodes whose restart was pending.
    QStringList cancelAll();
    // The controller stopped `node`: it is not started again (a stop's SIGKILL after the grace
    // period reads as a crash) until the controller starts it; true when its restart was pending.
    bool cancel(const QString& node);
    int pendingCount() const;  // restarts waiting for their backoff

private:
    struct Entry {
        RoleLaunch launch;
        int maxRestarts = 0, attempts = 0;  // attempts: restarts in a row
        bool pending = false;
        qint64 startedMs = 0;  // its last start
    };
    std::function<qint64()> m_nowMs;
    QHash<QString, Entry> m_entries;
};

}  // namespace hips
