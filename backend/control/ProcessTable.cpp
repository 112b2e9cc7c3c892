#include "ProcessTable.h"

#include "PartyLauncher.h"

#include <QDateTime>
#include <algorithm>
#include <cstring>

namespace hips {

QString processStateName(ProcessInfo::State s) {
    switch (s) {
        case ProcessInfo::State::Pending: return QStringLiteral("pending");
        case ProcessInfo::State::Running: return QStringLiteral("running");
        case ProcessInfo::State::Exited: return QStringLiteral("exited");
        case ProcessInfo::State::Failed: return QStringLiteral("failed");
        case ProcessInfo::State::Stopped: return QStringLiteral("stopped");
        case ProcessInfo::State::Restarting: return QStringLiteral("restarting");
    }
    return {};
}

QString describeExit(const ProcessInfo& p) {
    const QString what =
        p.crashed ? QStringLiteral("was killed by signal %1 (%2)").arg(p.exitCode).arg(QString::fromLocal8Bit(strsignal(p.exitCode)))
                  : QStringLiteral("exited with status %1").arg(p.exitCode);
    QString text = QStringLiteral("%1 (pid %2) %3").arg(p.node.id).arg(p.pid).arg(what);
    if (!p.error.isEmpty()) text += QStringLiteral(": ") + p.error;
    return text;
}

double unixNow() {
    return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

void ProcessTable::reset(const QList<Node>& nodes) {
    m_processes.clear();
    for (const Node& n : nodes) m_processes.insert(n.id, ProcessInfo{n, ProcessInfo::State::Pending, 0, 0, 0, 0, false, {}, 0});
}

ProcessInfo* ProcessTable::find(const QString& node) {
    const auto it = m_processes.find(node);
    return it == m_processes.end() ? nullptr : &*it;
}

void ProcessTable::started(ProcessInfo& p, qint64 pid) {
    p.pid = pid;
    p.started = unixNow();
    p.state = ProcessInfo::State::Running;
}

bool ProcessTable::exited(ProcessInfo& p, const QCborMap& e, bool ends) {
    p.exitCode = int(e.value(QStringLiteral("code")).toInteger());
    p.crashed = e.value(QStringLiteral("crashed")).toBool();
    p.error = e.value(QStringLiteral("error")).toString();
    p.ended = unixNow();
    const bool clean = p.exitCode == 0 && !p.crashed;
    const bool restarting = !clean && !ends && e.value(QStringLiteral("restarting")).toBool();
    if (restarting) p.state = ProcessInfo::State::Restarting, ++p.restarts;
    else if (ends && !clean) p.state = ProcessInfo::State::Stopped;
    else p.state = clean ? ProcessInfo::State::Exited : ProcessInfo::State::Failed;
    return restarting;
}

bool agentHolds(const Topology& topology, const QString& agentHost, const Node& node) {
    return agentHost.isEmpty() ? !slurmPartyOf(topology, node.host) : node.host == agentHost;
}

QList<std::pair<ProcessInfo*, bool>> ProcessTable::goneWithAgent(const std::function<bool(const Node&)>& held, const QString& how) {
    QList<std::pair<ProcessInfo*, bool>> gone;
    for (ProcessInfo& p : m_processes) {
        if (!held(p.node) || !p.unfinished()) continue;
        const bool wasUp = p.state == ProcessInfo::State::Running;
        p.state = ProcessInfo::State::Restarting;
        p.ended = unixNow();
        p.error = QStringLiteral("ended with its agent, which ") + how;
        if (wasUp) ++p.restarts;  // (one restarting already was counted by its exit; one pending never ran)
        gone.append({&p, wasUp});
    }
    return gone;
}

QList<ProcessInfo*> ProcessTable::stopUnfinished() {
    QList<ProcessInfo*> stopped;
    for (ProcessInfo& p : m_processes)
        if (p.unfinished()) {
            p.state = ProcessInfo::State::Stopped;
            p.ended = unixNow();
            stopped.append(&p);
        }
    return stopped;
}

bool ProcessTable::allStarted() const {
    return std::none_of(m_processes.begin(), m_processes.end(),
                        [](const ProcessInfo& p) { return p.state == ProcessInfo::State::Pending; });
}

bool ProcessTable::allDone() const {
    return std::none_of(m_processes.begin(), m_processes.end(), [](const ProcessInfo& p) { return p.unfinished(); });
}

bool ProcessTable::roundsDone() const {
    return std::all_of(m_processes.begin(), m_processes.end(), [](const ProcessInfo& p) {
        return (p.node.kind != RoleKind::GlobalServer && p.node.kind != RoleKind::MasterWorker) || p.state == ProcessInfo::State::Exited;
    });
}

}  // namespace hips
