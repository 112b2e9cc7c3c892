#include "SimulationCheck.h"

#include "ModeRegistry.h"

namespace hips {

QString simulationRefusal(const Topology& t) {
    const TrainingSettings& s = t.training;
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    if (policy.party != TierSync::Rounds || policy.global != TierSync::Rounds || policy.hierarchicalFrequency || policy.standalone)
        return QStringLiteral(
                   "hips simulate runs the modes that aggregate in rounds at both tiers (fedavg, ssgd, esync); mode %1 "
                   "runs deployed: use hips run")
            .arg(s.mode);
    if (policy.stateService)
        for (const Party& p : t.parties)
            for (const WorkerGroup& g : p.workers)
                if (!g.availability.isEmpty())
                    return QStringLiteral(
                               "party %1: esync's state service waits for the slowest worker, so hips simulate does not take "
                               "availability with it; remove availability, or simulate fedavg")
                        .arg(p.id);
    if (s.secureAggregation)
        return QStringLiteral("hips simulate does not mask the parties' sums; turn secure_aggregation off to simulate, or use hips run");
    if (s.compression != QLatin1String("none") || s.partyCompression != QLatin1String("none"))
        return QStringLiteral("hips simulate sends floats as they are; set compression and party_compression to none, or use hips run");
    if (s.resumeRound > 0) return QStringLiteral("a simulated run keeps no checkpoints to resume from; simulate it again from the start");
    return {};
}

}  // namespace hips
