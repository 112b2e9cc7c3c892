// RunController under fault_policy continue: agents started again with their roles, a global
// server moved to its standby host when its own is lost, and the roles left once the rounds
// are done stopped; and a Slurm party's jobs and nodes. (The run's state machine is RunController.cpp.)
#include "RunController.h"

#include "PrivacyAccountant.h"
#include "RunRecorder.h"
#include "TopologyWriter.h"

#include <QSet>
#include <QTimer>
#include <algorithm>

namespace hips {

// fault_policy continue: the agent died and took its roles with it; it is started again, and then
// they are (startRolesAgain), each as a restart of its own (the same keys, so the same identity).
void RunController::onAgentRestarting(const QString& host, const QString& how, int attempt, int maxRestarts, int delayMs) {
    m_agentsRestarting.insert(host);
    const QString agent = host.isEmpty() ? QStringLiteral("the local agent") : QStringLiteral("the agent on ") + host;
    recordNotice(QStringLiteral("agent"), QStringLiteral("%1 %2 and took its roles with it; restart %3 of %4 in %5 s")
                                              .arg(agent, how)
                                              .arg(attempt)
                                              .arg(maxRestarts)
                                              .arg(double(delayMs) / 1000.0));
    const auto held = [&](const Node& n) { return agentHolds(m_topology, host, n); };
    for (const auto& [p, wasUp] : m_processes.goneWithAgent(held, how)) {
        tellProcess(*p);
        if (!wasUp) continue;
        countRestartAgainstPrivacy(p->node);
        m_feed.processEnded(p->node.id);
        recordNotice(p->node.id,
                     QStringLiteral("%1 (pid %2) %3; it starts again with the agent").arg(p->node.id).arg(p->pid).arg(p->error));
    }
}

// Under privacy, a role that adds the noise and starts again mid-round trains (a worker) or sums
// (a party server) the open round again and sends it with fresh noise: whoever had the first
// copy has two. The round counts once more (privacy.rerun_rounds), in the run's guarantee and in
// its topology.json, which a resume goes on with (written as the run ends: a role restarted
// later checks the file it was started with; till then in privacy-reruns.json).
void RunController::countRestartAgainstPrivacy(const Node& node) {
    std::optional<PrivacySettings>& privacy = m_topology.training.privacy;
    if (!privacy || !m_progress) return;
    const bool noises = privacy->where == QLatin1String("worker") ? node.kind == RoleKind::Worker : node.kind == RoleKind::Server;
    const int round = m_progress->aggregatedRounds() + 1;
    if (!noises || round > m_topology.training.rounds) return;
    if (!m_restartUses.countRestart(round, node.id)) return;  // (RestartUses: whose use counts)
    privacy->rerunRounds.append({round, round});
    m_privacyTally.reset();  // (the rows' epsilon counts it from now on)
    m_rerunsNotInTopology.append({round, round});
    m_dir.keepPrivacyReruns(m_rerunsNotInTopology);  // (its error is the run's first write error)
    warnOfPrivacyOverrun(round, node.id);
}

// A restart under target_epsilon may spend more than the run was planned for. The roles know
// their rounds from the start, so the run is not cut; the user is told by when to stop it.
void RunController::warnOfPrivacyOverrun(int round, const QString& role) {
    const PrivacySettings& privacy = *m_topology.training.privacy;
    const int rounds = m_topology.training.rounds;
    if (!privacy.targetEpsilon || privacyEpsilon(m_topology, rounds) <= *privacy.targetEpsilon) return;
    const qint64 uses = privacy::usesWithin(1, privacy.noiseMultiplier, privacy.delta, *privacy.targetEpsilon);
    const int within = uses < 1 ? 0 : roundsWithinDraws(m_topology, rounds, int(std::min<qint64>(uses, rounds)));
    // (A stopped run counts the round under way too: its noised updates may have left.)
    const QString advice = within > round    ? QStringLiteral("stop the run once round %1 is done to stay within it").arg(within - 1)
                           : within == round ? QStringLiteral("stop the run now to stay within it")
                                             : QStringLiteral("it is spent already");
    recordNotice(QStringLiteral("privacy"), QStringLiteral("%1 restarted in round %2 and sends it again with fresh noise: after "
                                                           "round %3 epsilon would be %4, above target_epsilon %5; %6")
                                                .arg(role)
                                                .arg(round)
                                                .arg(rounds)
                                                .arg(privacyEpsilon(m_topology, rounds), 0, 'f', 3)
                                                .arg(*privacy.targetEpsilon)
                                                .arg(advice));
}

void RunController::startRolesAgain(const QString& host) {
    m_agentsRestarting.remove(host);
    // (A stop's shutdown follows; once the rounds are done, its roles were stopped while it was away.)
    if ((m_state != RunState::Starting && m_state != RunState::Running) || m_endingStragglers) return;
    startRoles([&](const ProcessInfo& p) { return p.state == ProcessInfo::State::Restarting && agentHolds(m_topology, host, p.node); });
}

// A host that cannot be reached (its agent went silent, and deploying it again failed): a global
// server there with a standby host starts on it, from the global scheduler's copy of its recovery
// point; a master with one starts there and evaluates from the newest model; a state service with
// one starts there and learns the workers from their next steps. The two hosts swap
// roles (should the standby be lost in turn, the role goes back). A host with nothing left to run
// is no longer tried again.
void RunController::moveOffLostHost(const QString& host, const QString& error) {
    if ((m_state != RunState::Starting && m_state != RunState::Running) || m_endingStragglers) return;
    // Every role moves before any starts: each start carries the topology, which the standby
    // host's agent writes for all its roles, so all must say where every role runs now.
    QSet<QString> moved;
    for (ProcessInfo& p : m_processes) {
        if (p.node.host != host || p.state != ProcessInfo::State::Restarting || p.node.standbyHost.isEmpty() ||
            !m_fleet->hasAgent(p.node.standbyHost))
            continue;
        Party& central = m_topology.parties[centralPartyIndex()];
        QString how = QStringLiteral("from the global scheduler's copy of its recovery point");
        if (p.node.kind == RoleKind::MasterWorker) {
            std::swap(central.masterWorker->host, central.masterWorker->standbyHost);
            how = QStringLiteral("and evaluates from the newest model");
        } else if (p.node.kind == RoleKind::StateService) {
            std::swap(central.stateService->host, central.stateService->standbyHost);
            how = QStringLiteral("and learns the workers from their next steps");
        } else {
            std::swap(central.servers[p.node.rank].host, central.servers[p.node.rank].standbyHost);
        }
        p.node = *m_topology.node(p.node.id);
        recordNotice(
            p.node.id,
            QStringLiteral("%1 lost its host %2 (%3); it starts on its standby host %4 %5").arg(p.node.id, host, error, p.node.host, how));
        tellProcess(p);
        moved.insert(p.node.id);
    }
    if (!moved.isEmpty()) {
        m_fleet->followMoves(m_topology);
        if (const QString e = m_dir.writeTopology(TopologyWriter::toJson(m_topology)); !e.isEmpty()) {
            recordNotice(QStringLiteral("controller"), e + QStringLiteral(" (hips attach would look for it on ") + host + ')');
        } else if (!m_rerunsNotInTopology.isEmpty()) {  // (it holds them now: kept twice, a resume counted them twice)
            m_rerunsNotInTopology.clear();
            m_dir.forgetPrivacyReruns();
        }
        startRoles([&](const ProcessInfo& q) { return moved.contains(q.node.id); });
    }
    const bool rolesLeft = std::any_of(m_processes.all().begin(), m_processes.all().end(), [&](const ProcessInfo& p) {
        return p.node.host == host && (p.state == ProcessInfo::State::Restarting || p.state == ProcessInfo::State::Pending);
    });
    if (!rolesLeft) m_fleet->giveUpHost(host);
}

void RunController::placeHosts(const QMap<QString, QString>& addresses) {
    for (Host& h : m_topology.hosts)
        if (addresses.contains(h.id)) h.address = addresses.value(h.id);
}

// The job ids go to the history (an event each), the log and the summary.
void RunController::recordSlurmJob(const QString& party, const QString& jobId, int attempt) {
    m_slurmJobs[party] << jobId;
    const QString text =
        attempt == 1 ? QStringLiteral("party %1 runs as Slurm job %2").arg(party, jobId)
                     : QStringLiteral("party %1 submitted again as Slurm job %2 (job %3 of the run)").arg(party, jobId).arg(attempt);
    m_recorder->event(QStringLiteral("info"), QStringLiteral("controller"), text);
    Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stdout"), text);  // (the deployment's lines show its state)
}

int RunController::centralPartyIndex() const {
    for (int i = 0; i < m_topology.parties.size(); ++i)
        if (m_topology.parties[i].central) return i;
    return -1;
}

// fault_policy continue: the global servers and the master have finished cleanly, so the run's
// rounds are done. A role still there (a worker declared down and never back, or waiting for a
// restart; a party server that came back after the last round) has nothing to rejoin: after a
// grace for those just finishing, the agents stop it and cancel its restart.
void RunController::endStragglersSoon() {
    constexpr int kStragglerGraceMs = 5000;  // the roles that got the final model exit within it
    QTimer::singleShot(kStragglerGraceMs, this, [this] {
        if (m_processes.allDone() || m_endingStragglers || m_state != RunState::Running) return;
        m_endingStragglers = true;
        for (ProcessInfo& p : m_processes) {
            if (p.state == ProcessInfo::State::Exited || p.state == ProcessInfo::State::Failed) continue;
            recordNotice(p.node.id, QStringLiteral("%1 is stopped: the run finished its rounds without it").arg(p.node.id));
            // Waiting for its agent to be started again: no agent will say it stopped.
            const bool agentAway = std::any_of(m_agentsRestarting.begin(), m_agentsRestarting.end(),
                                               [&](const QString& agent) { return agentHolds(m_topology, agent, p.node); });
            // Nor for a Slurm party's role that waits for its job to be submitted again: the job
            // runs on (the role died of its own, out of restarts), and no agent holds a restart.
            if (p.state == ProcessInfo::State::Restarting && (agentAway || slurmPartyOf(m_topology, p.node.host))) {
                p.state = ProcessInfo::State::Stopped;
                tellProcess(p);
            }
        }
        m_fleet->broadcast(QStringLiteral("stop_all"));
        if (m_processes.allDone()) finishWhenQuiet();
    });
}

}  // namespace hips
