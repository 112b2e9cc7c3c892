#pragma once
// The run's processes, one per node, and what each one's state becomes on its agent's word:
// started; exited cleanly, badly, to be started again (fault_policy continue) or with the run
// ending; gone with its agent. RunController records and shows each change; this table says what
// the change is.
#include "Topology.h"

#include <QCborMap>
#include <QList>
#include <QMap>
#include <functional>
#include <utility>

namespace hips {

struct ProcessInfo {
    // Restarting: it died, and its agent starts it again after a backoff (fault_policy continue).
    enum class State { Pending, Running, Exited, Failed, Stopped, Restarting };
    Node node;
    State state = State::Pending;
    qint64 pid = 0;
    double started = 0, ended = 0;  // unix seconds
    int exitCode = 0;
    bool crashed = false;
    QString error;
    int restarts = 0;  // times its agent started it again

    bool unfinished() const { return state == State::Pending || state == State::Running || state == State::Restarting; }
};

QString processStateName(ProcessInfo::State s);
// "party1/worker0 (pid 42) was killed by signal 9 (Killed): <its error>", as the run tells a death.
QString describeExit(const ProcessInfo& p);
double unixNow();
// Whether the agent on `agentHost` runs `node`: "" is the local agent, which runs every host but
// a Slurm party's (their agents come with the party's job, and outlive the local one).
bool agentHolds(const Topology& topology, const QString& agentHost, const Node& node);

class ProcessTable {
public:
    void reset(const QList<Node>& nodes);  // every node pending
    ProcessInfo* find(const QString& node);
    const QMap<QString, ProcessInfo>& all() const { return m_processes; }
    QMap<QString, ProcessInfo>::iterator begin() { return m_processes.begin(); }
    QMap<QString, ProcessInfo>::iterator end() { return m_processes.end(); }

    void started(ProcessInfo& p, qint64 pid);
    // An exit its agent reported ({code, crashed, error, restarting}). While the run `ends` (it
    // stops, or stops the roles left after its last round) a bad exit is a stop and nothing is
    // started again. Returns whether its agent starts it again.
    bool exited(ProcessInfo& p, const QCborMap& event, bool ends);
    // An agent died and took its processes (those `held` says it ran) with it: each that had not
    // ended is Restarting; returns those, each with whether it had been running.
    QList<std::pair<ProcessInfo*, bool>> goneWithAgent(const std::function<bool(const Node&)>& held, const QString& how);
    // Every process not ended is Stopped (its agent went, and the run with it); returns those.
    QList<ProcessInfo*> stopUnfinished();

    bool allStarted() const;  // none is pending
    bool allDone() const;  // none is pending, running or restarting
    bool roundsDone() const;  // the global servers and the master have exited cleanly

private:
    QMap<QString, ProcessInfo> m_processes;
};

}  // namespace hips
