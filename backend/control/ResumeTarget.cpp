#include "ResumeTarget.h"

#include "AgentRoster.h"
#include "Checkpoint.h"
#include "RunStore.h"
#include "TopologyReader.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

namespace hips {

std::optional<ResumeTarget> resumeTarget(const RunStore& store, qint64 run, QString* error) {
    const std::optional<RunRecord> record = store.run(run);
    if (!record) return *error = QStringLiteral("%1 has no run %2 (hips history list shows them)").arg(store.path()).arg(run), std::nullopt;
    ResumeTarget target;
    target.historyRun = run;
    target.runDir = store.runDirectory(run);
    if (target.runDir.isEmpty())
        return *error = QStringLiteral("run %1 has no run directory on record; pass its directory instead").arg(run), std::nullopt;
    if (record->status == QLatin1String("running") || record->status == QLatin1String("finished"))
        return *error = QStringLiteral("run %1 is %2: only a run that stopped, failed or was interrupted can be resumed")
                            .arg(run).arg(record->status), std::nullopt;
    const TopologyLoad load = TopologyReader::readFile(QDir(target.runDir).filePath(QStringLiteral("topology.json")));
    if (!load.ok()) return *error = load.errorText(), std::nullopt;
    target.topology = *load.topology;
    // Its controller died, but its agents may still run it (orphan_timeout_s): a second set of roles
    // in the same directory and ports would collide with them.
    const double mayRunUntil = record->ended + target.topology.training.orphanTimeoutS;
    if (QFile::exists(AgentRoster::pathIn(target.runDir)) && double(QDateTime::currentMSecsSinceEpoch()) / 1000.0 < mayRunUntil)
        return *error = QStringLiteral("run %1 may still be going on its agents, which keep it for orphan_timeout_s (%2 s) "
                                       "after its controller went away: hips attach %1 (or Reattach in the studio's "
                                       "History tab) takes it up")
                            .arg(run).arg(target.topology.training.orphanTimeoutS), std::nullopt;
    const qint64 round = checkpointRound(target.runDir, error);
    if (round <= 0) return std::nullopt;
    target.topology.training.resumeRound = int(round);
    return target;
}

}  // namespace hips
