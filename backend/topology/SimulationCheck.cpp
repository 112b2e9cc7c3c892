#include "SimulationCheck.h"

#include "ModeRegistry.h"

namespace hips {

namespace {

// party_compression fp16 where it is only the collectives' half precision (the simulator runs the
// deployed Collective): no party server has links inside its party to compress.
bool halvesOnlyInCollectives(const Topology& t) {
    if (t.training.partyCompression != QLatin1String("fp16") || t.training.flat()) return false;
    for (const Party& p : t.parties)
        if (!p.central && !p.workers.isEmpty() && !p.collective()) return false;
    return true;
}

}  // namespace

QString simulationRefusal(const Topology& t) {
    const TrainingSettings& s = t.training;
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    if (policy.party != TierSync::Rounds || policy.global != TierSync::Rounds || policy.hierarchicalFrequency || policy.standalone)
        return QStringLiteral(
                   "hips simulate runs the modes that aggregate in rounds at both tiers (fedavg, ssgd, esync); mode %1 "
                   "runs deployed: use hips run")
            .arg(s.mode);
    if (policy.stateService && !s.continuesThroughFailures())
        for (const Party& p : t.parties)
            for (const WorkerGroup& g : p.workers)
                if (!g.availability.isEmpty())
                    return QStringLiteral(
                               "party %1: esync's state service waits for every worker under fault_policy fail, so an "
                               "absent one would hold the round forever; set fault_policy continue (the service then "
                               "leaves out a worker silent for heartbeat_timeout_s), or remove availability")
                        .arg(p.id);
    if (s.secureAggregation)
        return QStringLiteral("hips simulate does not mask the parties' sums; turn secure_aggregation off to simulate, or use hips run");
    if (s.compression != QLatin1String("none") || (s.partyCompression != QLatin1String("none") && !halvesOnlyInCollectives(t)))
        return QStringLiteral(
            "hips simulate sends floats as they are (but for party_compression fp16 where every party with workers sums by a "
            "collective transport); set compression and party_compression to none, or use hips run");
    if (s.resumeRound > 0) return QStringLiteral("a simulated run keeps no checkpoints to resume from; simulate it again from the start");
    return {};
}

}  // namespace hips
