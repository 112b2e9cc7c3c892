// Taking up a run whose controller went away (hips attach): its agents are found through the
// roster (agents.json) their fleet wrote once they were all up. And a resumed run's records up
// to its checkpoint, taken up again (carryOn).
#include "RunController.h"

#include "RunRecorder.h"
#include "TopologyReader.h"
#include "Vocabulary.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QScopedValueRollback>
#include <QDir>
#include <QJsonArray>
#include <algorithm>

namespace hips {

namespace {

ProcessInfo::State stateNamed(const QString& name, qint64 pid) {
    for (ProcessInfo::State s : {ProcessInfo::State::Pending, ProcessInfo::State::Running, ProcessInfo::State::Exited,
                                 ProcessInfo::State::Failed, ProcessInfo::State::Stopped, ProcessInfo::State::Restarting})
        if (processStateName(s) == name) return s;
    // "interrupted": what a look at the history while no controller was there made of a process
    // still under way; the events the agent kept say what became of it.
    return pid > 0 ? ProcessInfo::State::Running : ProcessInfo::State::Pending;
}

}  // namespace

bool RunController::attach(qint64 historyRun) {
    auto refuse = [this](const QString& why) { return m_error = why, false; };
    if (m_state != RunState::Idle) return refuse(QStringLiteral("a run is already under way"));
    if (!m_store) return refuse(QStringLiteral("attaching needs the run history"));
    const std::optional<RunRecord> run = m_store->run(historyRun);
    if (!run) return refuse(QStringLiteral("%1 has no run %2 (hips history list shows them)").arg(m_store->path()).arg(historyRun));
    if (run->status != QLatin1String("running") && run->status != QLatin1String("interrupted"))
        return refuse(
            QStringLiteral("run %1 is %2: only a run whose controller went away can be attached to").arg(historyRun).arg(run->status));
    if (const std::optional<qint64> pid = m_store->liveController(historyRun))
        return refuse(QStringLiteral("run %1 is followed by its controller (pid %2), which is alive: stop that one first, "
                                     "or let it finish")
                          .arg(historyRun)
                          .arg(*pid));
    const QString runDir = m_store->runDirectory(historyRun);
    if (runDir.isEmpty()) return refuse(QStringLiteral("run %1 has no run directory on record").arg(historyRun));
    const TopologyLoad load = TopologyReader::readFile(QDir(runDir).filePath(QStringLiteral("topology.json")));
    if (!load.ok()) return refuse(load.errorText());
    QString error;
    const std::optional<AgentRoster> roster = AgentRoster::load(runDir, &error);
    if (!roster) return refuse(error);
    const QHash<QString, RunStore::AgentMark> marks = m_store->agentMarks(historyRun);
    qint64 storedBytes = 0;  // metrics.jsonl as far as the history holds it
    for (const RunStore::AgentMark& m : marks) storedBytes = std::max(storedBytes, m.metricsBytes);

    m_topology = *load.topology;
    if (m_topology.training.privacy) {  // (the restarts its first controller counted: RunFaults.cpp)
        m_rerunsNotInTopology = RunDirectory::privacyReruns(runDir, m_topology.training.rounds);
        m_topology.training.privacy->rerunRounds += m_rerunsNotInTopology;
        for (const auto& [first, last] : m_rerunsNotInTopology)
            if (first == last) m_restartUses.takeUpEarlier(first);
    }
    m_progress =
        std::make_unique<RunProgress>(m_topology.trainReportsPerRound(), m_topology.training.rounds, m_topology.training.evalEvery);
    takeUpProcesses(m_store->processes(historyRun));
    m_clock.start();
    m_runClock = m_store->clock(historyRun);
    m_elapsedCarry = m_runClock.elapsed(unixNow());
    {
        const QScopedValueRollback replaying(m_replaying, true);
        if (const QString e = m_dir.reattach(runDir, storedBytes, [this](const QJsonObject& r) { takeUpRecord(r); }); !e.isEmpty()) {
            m_progress.reset();
            return refuse(e);
        }
    }
    m_attached = true;
    m_recorder->reattach(historyRun, QStringLiteral("a controller (pid %1) attached to the run and takes it up from event %2")
                                         .arg(QCoreApplication::applicationPid())
                                         .arg(marks.isEmpty() ? 0 : marks.begin()->seq));
    for (const ProcessInfo& p : m_processes.all()) tellProcess(p);  // "interrupted" no more
    setState(RunState::Running);
    QHash<QString, qint64> seqs;  // each agent's last event the history holds
    for (auto it = marks.begin(); it != marks.end(); ++it) seqs.insert(it.key(), it->seq);
    useFleet(std::make_unique<AttachedFleet>(m_topology, realRunDir(), *roster, seqs));
    return true;
}

// Every node of the topology, as the history last had it.
void RunController::takeUpProcesses(const QList<ProcessRecord>& stored) {
    m_processes.reset(m_topology.nodes());
    for (const ProcessRecord& r : stored) {
        ProcessInfo* it = m_processes.find(r.node);
        if (!it) continue;
        it->pid = r.pid;
        it->started = r.started;
        it->ended = r.ended;
        it->exitCode = r.exitCode;
        it->crashed = r.crashed;
        it->error = r.error;
        it->state = stateNamed(r.state, r.pid);
    }
}

// A record the history holds: its round so far (printed and charted again), and what the
// controller keeps of it (each node's last traffic, each member's state).
void RunController::takeUpRecord(const QJsonObject& r) {
    m_feed.attachTo(r);
    const double at = m_runClock.elapsed(r.value(QStringLiteral("t")).toDouble());
    m_lastRecordAt = std::max(m_lastRecordAt, at);
    showReplayed(m_progress->ingest(r, at));
}

// A resumed run's rows up to its checkpoint come from the records kept then; the new processes'
// traffic counters start from zero, so each link's count at the checkpoint is carried on, and
// the clock goes on from the last kept record's time on the run's own clock (as the history's
// reports read it: from its start, earlier pauses left out).
void RunController::carryOn(const QList<QJsonObject>& kept) {
    m_runClock = RunClock(kept.isEmpty() ? 0 : kept.first().value(QStringLiteral("t")).toDouble());  // (no history)
    if (m_store && m_resumedRun > 0 && m_store->run(m_resumedRun)) m_runClock = m_store->clock(m_resumedRun);
    const QScopedValueRollback replaying(m_replaying, true);
    for (const QJsonObject& r : kept) {
        m_feed.resumeFrom(r);
        const double at = m_runClock.elapsed(r.value(QStringLiteral("t")).toDouble());
        m_elapsedCarry = std::max(m_elapsedCarry, at);
        showReplayed(m_progress->ingest(r, at));
    }
    showReplayed(m_progress->finish());
}

// Rounds the history already holds: shown at once, with their divergence notice (not stored again).
void RunController::showReplayed(const QList<RoundRow>& replayed) {
    for (const RoundRow& row : withEpsilon(replayed)) {
        noticeDivergence(row);
        Q_EMIT roundCompleted(row);
    }
}

}  // namespace hips
