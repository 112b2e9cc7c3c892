#include "ResumeTarget.h"

#include "AgentRoster.h"
#include "Checkpoint.h"
#include "PrivacyBudget.h"
#include "RunDirectory.h"
#include "RunStore.h"
#include "TopologyReader.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

namespace hips {

std::optional<ResumeTarget> resumeTarget(const RunStore& store, qint64 run, QString* error, int rounds) {
    const std::optional<RunRecord> record = store.run(run);
    if (!record) return *error = QStringLiteral("%1 has no run %2 (hips history list shows them)").arg(store.path()).arg(run), std::nullopt;
    ResumeTarget target;
    target.historyRun = run;
    target.runDir = store.runDirectory(run);
    if (target.runDir.isEmpty())
        return *error = QStringLiteral("run %1 has no run directory on record; pass its directory instead").arg(run), std::nullopt;
    if (record->status == QLatin1String("running"))
        return *error = QStringLiteral(
                            "run %1 is running: only a run that stopped, failed or was interrupted can be "
                            "resumed (or one that finished, with more rounds)")
                            .arg(run),
               std::nullopt;
    const TopologyLoad load = TopologyReader::readFile(QDir(target.runDir).filePath(QStringLiteral("topology.json")));
    if (!load.ok()) return *error = load.errorText(), std::nullopt;
    target.topology = *load.topology;
    const int ran = target.topology.training.rounds;
    if (std::optional<PrivacySettings>& privacy = target.topology.training.privacy)  // (those its controller counted and died with)
        privacy->rerunRounds += RunDirectory::privacyReruns(target.runDir, ran);
    if (record->status == QLatin1String("finished") && rounds <= ran)
        return *error = QStringLiteral(
                            "run %1 finished its %2 rounds: it goes on only with more, e.g. hips run --resume %1 "
                            "--rounds %3")
                            .arg(run)
                            .arg(ran)
                            .arg(ran * 2),
               std::nullopt;
    // Its controller died, but its agents may still run it (orphan_timeout_s): a second set of roles
    // in the same directory and ports would collide with them.
    const double mayRunUntil = record->ended + target.topology.training.orphanTimeoutS;
    if (QFile::exists(AgentRoster::pathIn(target.runDir)) && double(QDateTime::currentMSecsSinceEpoch()) / 1000.0 < mayRunUntil)
        return *error = QStringLiteral(
                            "run %1 may still be going on its agents, which keep it for orphan_timeout_s (%2 s) "
                            "after its controller went away: hips attach %1 (or Reattach in the studio's "
                            "History tab) takes it up")
                            .arg(run)
                            .arg(target.topology.training.orphanTimeoutS),
               std::nullopt;
    const qint64 round = checkpointRound(target.runDir, error);
    if (round <= 0) return std::nullopt;
    if (rounds > 0 && rounds <= round)
        return *error = QStringLiteral("run %1 goes on from the checkpoint of round %2: give it more rounds than that").arg(run).arg(round),
               std::nullopt;
    target.topology.training.resumeRound = int(round);
    // The rounds after the checkpoint that had been trained are trained again: under privacy,
    // each worker's data is used in them once more, and its guarantee counts that. (Up to the
    // rounds the run had before --rounds: no round past them was trained.)
    // (An interrupted run's roles may have gone on without a controller to record them.)
    const bool orphaned = record->status == QLatin1String("interrupted") && target.topology.training.orphanTimeoutS > 0;
    noteRerunRounds(&target.topology, int(round), RunDirectory::lastRoundRecorded(target.runDir), orphaned);
    if (rounds > 0) target.topology.training.rounds = rounds;
    return target;
}

}  // namespace hips
