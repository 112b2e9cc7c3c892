// A run's outcome: its states' names, its figures (what summary.json, the history and `hips
// run`'s last line say), and how RunController settles it once its agents are gone.
#include "RunController.h"

#include "PrivacyBudget.h"

#include "RunRecorder.h"
#include "TopologyWriter.h"

#include <QFile>
#include <QJsonArray>

#include <cmath>

namespace hips {

QString runStateName(RunState s) {
    switch (s) {
        case RunState::Idle: return QStringLiteral("idle");
        case RunState::Deploying: return QStringLiteral("deploying");
        case RunState::Starting: return QStringLiteral("starting");
        case RunState::Running: return QStringLiteral("running");
        case RunState::Stopping: return QStringLiteral("stopping");
        case RunState::Finished: return QStringLiteral("finished");
        case RunState::Stopped: return QStringLiteral("stopped");
        case RunState::Failed: return QStringLiteral("failed");
    }
    return {};
}

void RunSummary::takeFigures(const RunProgress& progress, bool isRegression) {
    rounds = progress.aggregatedRounds();
    if (!std::isnan(progress.finalScore())) finalAccuracy = progress.finalScore();
    regression = isRegression;
    const double best = regression ? progress.bestRmse() : progress.bestAccuracy();  // a regression's best is its lowest
    evaluated = !std::isnan(best);
    bestAccuracy = evaluated ? best : 0;
    bytesInside = progress.bytesInside();
    bytesAcross = progress.bytesAcross();
    samples = progress.totalSamples();
}

QJsonObject RunSummary::toJson() const {
    QJsonObject o{{"ok", ok},
                  {"stopped", stopped},
                  {"reason", reason},
                  {"run_dir", runDir},
                  {"rounds", rounds},
                  {"seconds", seconds},
                  {"bytes_inside", double(bytesInside)},
                  {"bytes_across", double(bytesAcross)},
                  {"samples", double(samples)}};
    // A run that ended before its first evaluation has no score: null, not a 0 (a perfect RMSE).
    o.insert("evaluated", evaluated);
    o.insert(regression ? "final_test_rmse" : "final_test_acc", evaluated ? QJsonValue(finalAccuracy) : QJsonValue());
    o.insert(regression ? "best_test_rmse" : "best_test_acc", evaluated ? QJsonValue(bestAccuracy) : QJsonValue());
    if (!privacy.isEmpty()) o.insert("privacy", privacy);
    if (!slurmJobs.isEmpty()) {
        QJsonObject jobs;
        for (auto it = slurmJobs.begin(); it != slurmJobs.end(); ++it) jobs.insert(it.key(), QJsonArray::fromStringList(it.value()));
        o.insert("slurm_jobs", jobs);
    }
    return o;
}

void RunController::emitFinished() {
    if (m_concluding) return;
    m_concluding = true;
    RunSummary s;
    s.ok = m_failure.isEmpty();
    s.stopped = m_userStopped;
    s.reason = m_failure;
    s.runDir = m_dir.path();
    s.seconds = recordTimes() ? m_lastRecordAt : elapsed();
    s.slurmJobs = m_slurmJobs;
    if (m_progress) {
        // Rounds that trained but whose evaluation never came (a stopped or failed run) are
        // rows too, without accuracy: every trained round is charted and kept.
        const QList<RoundRow> rows = m_progress->finish();
        for (const RoundRow& row : rows) noticeDivergence(row);
        showOnceStored(rows);
        s.takeFigures(*m_progress, m_topology.training.regression());
    }
    // A role that failed because a peer vanished is usually the echo of an agent or host that
    // died; by now such an agent has been silent for a while, so the reason can name it.
    if (!s.ok && !s.stopped && m_fleet && m_failure != m_fleet->controllerSilentReason())  // (their silence was ours)
        s.reason = m_fleet->silentAgentsPrefix() + s.reason;
    if (s.ok && s.rounds < m_topology.training.rounds) {
        s.ok = false;
        s.reason = QStringLiteral("the roles ended after %1 of %2 rounds").arg(s.rounds).arg(m_topology.training.rounds);
    }
    // What the rounds it trained spent; a run that stopped or failed short of its rounds counts the
    // round it was in too: its noised updates may have left (a round is recorded once answered).
    const int spent = !s.ok && s.rounds < m_topology.training.rounds ? s.rounds + 1 : s.rounds;
    s.privacy = privacyGuarantee(m_topology, spent, m_privacyCut && s.ok);
    if (!m_rerunsNotInTopology.isEmpty() && !m_dir.path().isEmpty()) {  // (rounds restarts released again: RunFaults.cpp)
        Topology own = m_topology;
        own.training.resumeRound = 0;  // (as the run directory keeps it)
        if (m_dir.writeTopology(TopologyWriter::toJson(own)).isEmpty()) m_dir.forgetPrivacyReruns();
    }
    // The run directory first (its first write error, summary.json's included, fails the run),
    // then the history, so both tell the same outcome; a history that could not store it is the
    // last word, and summary.json is written again to say so.
    if (!m_dir.path().isEmpty()) m_dir.writeSummary(s.toJson());
    if ((s.ok || s.stopped) && !m_dir.error().isEmpty()) {
        s.ok = s.stopped = false;
        s.reason = m_dir.error();
    }
    m_recorder->forgetAgents();
    m_recorder->finish(s, [this, s](bool stored) { concludeRun(s, stored); });
}

void RunController::concludeRun(RunSummary s, bool stored) {
    if (!stored && (s.ok || s.stopped)) {  // the run trained, but its record is not all stored
        s.ok = s.stopped = false;
        s.reason = m_recorder->error();
        if (!m_dir.path().isEmpty()) m_dir.writeSummary(s.toJson());
    }
    // The run is over: its controller key (which standby agents admit) is not left lying around.
    if (!m_dir.path().isEmpty()) QFile::remove(AgentRoster::pathIn(m_dir.path()));
    setState(s.ok ? RunState::Finished : s.stopped ? RunState::Stopped : RunState::Failed);
    if (m_fleet) m_fleet->close();
    Q_EMIT finished(s);
}

}  // namespace hips
