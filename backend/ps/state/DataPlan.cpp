#include "DataPlan.h"

#include "PartyTransport.h"

#include "AggregatorRegistry.h"
#include "DracoCodes.h"
#include "ModeRegistry.h"

namespace hips {

namespace {

// The party's workers that read the same source as `worker` (its party's, or a host's own): the
// shards of that source go to them in rank order. The same declaration, not an equal one: two
// hosts' own sources with the same settings are two data sets, each on its host.
std::pair<int, int> rankAmongReaders(const Topology& t, const Party& party, const Node& worker, const DataSource& source) {
    int rank = 0, readers = 0, index = 0;
    for (const WorkerGroup& g : party.workers)
        for (int i = 0; i < g.count; ++i, ++index) {
            if (t.dataSourceOf(party.id, g.host) != &source) continue;
            if (index == worker.rank) rank = readers;
            ++readers;
        }
    return {rank, std::max(readers, 1)};
}

DataPlan ownDataPlan(const Topology& t, const Party& party, const Node& worker, const DataSource& source) {
    const TrainingSettings& s = t.training;
    DataPlan plan;
    plan.source = source;
    const Host* host = t.host(worker.host);
    plan.owner = host && host->data ? QStringLiteral("host '%1'").arg(host->id) : QStringLiteral("party '%1'").arg(party.id);
    plan.stream = sourceStream(plan.owner);
    if (s.partyAggregation == QLatin1String(rule::kDracoRepetition) && !party.central) {  // one source per party: DataValidation
        const int r = int(s.partyParam(QStringLiteral("draco_r")));
        plan.partitions = (party.workerCount() + r - 1) / r;
        plan.parts.append({worker.rank / r, 1.0});
        return plan;
    }
    if (s.partyAggregation == QLatin1String(rule::kDracoCyclic) && !party.central) {
        const DracoCyclicCode code(party.workerCount(), int(s.partyParam(QStringLiteral("draco_s"))));
        plan.partitions = party.workerCount();
        for (int k = 0; k < code.window(); ++k) plan.parts.append({code.partition(worker.rank, k), code.coefficient(k)});
        return plan;
    }
    const auto [rank, readers] = rankAmongReaders(t, party, worker, source);
    plan.partitions = readers;
    plan.parts.append({rank, 1.0});
    return plan;
}

}  // namespace

DataPlan dataPlanOf(const Topology& t, const Node& worker) {
    const TrainingSettings& s = t.training;
    DataPlan plan;
    const int index = t.trainingWorkerIndex(worker.id);
    const int partyFirst = index - worker.rank;  // the party's workers are consecutive training indices
    const Party* party = t.party(worker.party);
    if (const DataSource* own = t.dataSourceOf(worker.party, worker.host); own && party) return ownDataPlan(t, *party, worker, *own);
    if (s.partyAggregation == QLatin1String(rule::kDracoRepetition) && party && !party->central) {
        const int r = int(s.partyParam(QStringLiteral("draco_r")));
        int groupsBefore = 0, groups = 0;
        for (const Party& p : t.parties) {
            if (p.central) continue;
            if (p.id == worker.party) groupsBefore = groups;
            groups += (p.workerCount() + r - 1) / r;
        }
        plan.partitions = groups;
        plan.parts.append({groupsBefore + worker.rank / r, 1.0});
        return plan;
    }
    if (s.partyAggregation == QLatin1String(rule::kDracoCyclic) && party && !party->central) {
        const DracoCyclicCode code(party->workerCount(), int(s.partyParam(QStringLiteral("draco_s"))));
        plan.partitions = t.trainingWorkerCount();
        for (int k = 0; k < code.window(); ++k) plan.parts.append({partyFirst + code.partition(worker.rank, k), code.coefficient(k)});
        return plan;
    }
    plan.partitions = t.trainingWorkerCount();
    plan.parts.append({index, 1.0});
    return plan;
}

// The most local steps one push holds: local_iters, an HFA party sync's k1; 0 where no plan says
// (local_epochs: the shard's size decides; ESync: its state service does).
static qint64 stepsPerPush(const TrainingSettings& s) {
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    if (policy.stateService || s.localIters <= 0) return 0;
    return policy.hierarchicalFrequency ? qint64(s.param(QStringLiteral("k1"))) : s.localIters;
}

QHash<QString, double> claimBounds(const Topology& t, const QSet<QString>& contributors) {
    QHash<QString, double> bounds;
    const qint64 steps = stepsPerPush(t.training);
    if (steps <= 0) return bounds;
    for (const QString& id : contributors)
        if (const std::optional<Node> node = t.node(id); node && node->kind == RoleKind::Worker) {
            // A collective party's pushing worker claims the samples of the party's every worker.
            const int pushers = pushesForItsParty(t, *node) ? t.party(node->party)->workerCount() : 1;
            bounds.insert(
                id, double(t.training.batchSize) * double(steps) * std::max<qsizetype>(1, dataPlanOf(t, *node).parts.size()) * pushers);
        }
    return bounds;
}

QHash<QString, double> workersBehind(const Topology& t, const QSet<QString>& contributors) {
    QHash<QString, double> shares;
    for (const QString& id : contributors) {
        const std::optional<Node> node = t.node(id);
        if (!node || !(node->kind == RoleKind::Server || (node->kind == RoleKind::Worker && pushesForItsParty(t, *node)))) continue;
        if (const Party* party = t.party(node->party); party && party->workerCount() > 1) shares.insert(id, party->workerCount());
    }
    return shares;
}

double scaleToAll(const QHash<QString, double>& shares, const QStringList& contributors, const QSet<QString>& present) {
    double all = 0, here = 0;
    for (const QString& c : contributors) {
        const double share = shares.value(c, 1.0);
        all += share;
        if (present.contains(c)) here += share;
    }
    return here > 0 ? all / here : 0.0;
}

}  // namespace hips
