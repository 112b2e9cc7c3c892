#include "PartyTransport.h"

#include "AggregatorRegistry.h"
#include "ModeRegistry.h"

#include <QCoreApplication>

namespace hips {

namespace {

// Why the run's settings cannot go with a collective party; empty when they can.
QString runConflict(const TrainingSettings& s) {
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    if (policy.party != TierSync::Rounds || policy.global != TierSync::Rounds || policy.standalone)
        return QCoreApplication::translate(
                   "TopologyCheck",
                   "mode %1 does not sum a party's workers in rounds; a collective does: use fedavg, ssgd, esync or hfa, "
                   "or transport server")
            .arg(s.mode);
    if (s.flat())
        return QCoreApplication::translate("TopologyCheck",
                                           "a flat run has no party tier to sum in: remove transport, or use hierarchy two_layer");
    if (s.partyAggregation != QLatin1String(rule::kFedAvg))
        return QCoreApplication::translate(
                   "TopologyCheck",
                   "party_aggregation %1 needs each worker's own update at a party server, and a collective only ever holds "
                   "sums: use party_aggregation fedavg, or transport server")
            .arg(s.partyAggregation);
    if (const auto rule = AggregatorRegistry::create(s.aggregation); rule && !rule->foldsOnArrival())
        return QCoreApplication::translate(
                   "TopologyCheck",
                   "aggregation %1 takes every worker's own update through its party server: use fedavg, or transport server")
            .arg(s.aggregation);
    if (s.partyCompression != QLatin1String("none") && s.partyCompression != QLatin1String("fp16"))
        return QCoreApplication::translate(
                   "TopologyCheck",
                   "party_compression %1 codes the links to a party server, and a collective party has none; its chunks "
                   "travel as floats, or as half floats with fp16: set it to none or fp16, or use transport server")
            .arg(s.partyCompression);
    if (s.secureAggregation)
        return QCoreApplication::translate("TopologyCheck",
                                           "secure aggregation masks a party server's sum: turn it off, or use transport server");
    if (s.privacy && s.privacy->atParty())
        return QCoreApplication::translate("TopologyCheck",
                                           "privacy where party adds its noise at a party server: use where worker, or transport server");
    if (s.continuesThroughFailures() && policy.hierarchicalFrequency)
        return QCoreApplication::translate(
                   "TopologyCheck",
                   "fault_policy %1 with mode %2: a collective party sums between syncs with no model from above to agree on, so "
                   "a worker lost mid-sum could leave the others apart: use fault_policy fail, another mode, or transport server")
            .arg(s.faultPolicy, s.mode);
    if (s.param(QStringLiteral("quorum")) > 0)
        return QCoreApplication::translate(
            "TopologyCheck",
            "a quorum closes a round without some workers, and a collective sums every one: remove quorum, or use "
            "transport server");
    if (s.clientsPerRound > 0)
        return QCoreApplication::translate(
            "TopologyCheck",
            "clients_per_round leaves workers out of a round, and a collective sums every one: remove it, or use "
            "transport server");
    return {};
}

}  // namespace

void checkPartyTransports(const Topology& t, TopologyIssues* issues) {
    bool any = false;
    for (int i = 0; i < t.parties.size(); ++i) {
        const Party& p = t.parties[i];
        if (!p.collective()) continue;
        any = true;
        const QString path = QStringLiteral("$.parties[%1].transport").arg(i);
        if (p.central)
            issues->append({path, QCoreApplication::translate("TopologyCheck",
                                                              "the central party's workers push to the global servers "
                                                              "themselves; transport is for the other parties: remove it")});
        if (p.clientsPerRound > 0)
            issues->append({path, QCoreApplication::translate("TopologyCheck",
                                                              "party %1 draws clients_per_round, and its collective sums every "
                                                              "worker: remove one")
                                      .arg(p.id)});
    }
    if (!any) return;
    if (const QString conflict = runConflict(t.training); !conflict.isEmpty()) issues->append({QStringLiteral("$.parties"), conflict});
}

bool pushesForItsParty(const Topology& t, const Node& node) {
    if (node.kind != RoleKind::Worker || node.rank != 0 || t.training.flat()) return false;
    const Party* p = t.party(node.party);
    return p && p->collective() && !p->central;
}

}  // namespace hips
