#include "RuleValidation.h"

#include "AggregatorRegistry.h"
#include "ClientSampling.h"
#include "DracoCodes.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "ModeConflicts.h"
#include "ModeRegistry.h"
#include "Partition.h"
#include "PartyLauncher.h"
#include "PartyTransport.h"
#include "SecureAggregationCheck.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace hips {

namespace {

class RuleValidator {
public:
    RuleValidator(const Topology& t, TopologyIssues* issues) : m_t(t), m_issues(issues) {}

    void run() { checkStrategyParams(m_t.training); }

private:
    void add(const QString& path, const QString& message) { m_issues->append({path, message}); }

    void addIf(const QString& path, const QString& problem) {
        if (!problem.isEmpty()) add(path, problem);
    }

    // Names are checked where they are read; here, what the designer and `hips run` may have set:
    // a known mode and rule, and only their parameters, each in its declared range.
    void checkStrategyParams(const TrainingSettings& s) {
        const StrategyInfo* mode = ModeRegistry::find(s.mode);
        const StrategyInfo* rule = AggregatorRegistry::find(s.aggregation);
        const StrategyInfo* partition = PartitionRegistry::find(s.partition);
        if (!partition)
            add("$.training.partition", QCoreApplication::translate("TopologyCheck", "partition '%1' is not supported; use one of: %2")
                                            .arg(s.partition, strategyNames(PartitionRegistry::all()).join(QStringLiteral(", "))));
        if (!mode)
            add("$.training.mode", QCoreApplication::translate("TopologyCheck", "mode '%1' is not supported; use one of: %2")
                                       .arg(s.mode, strategyNames(ModeRegistry::all()).join(QStringLiteral(", "))));
        if (!rule)
            add("$.training.aggregation", QCoreApplication::translate("TopologyCheck", "aggregation '%1' is not supported; use one of: %2")
                                              .arg(s.aggregation, AggregatorRegistry::names().join(QStringLiteral(", "))));
        if (!AggregatorRegistry::find(s.partyAggregation))
            add("$.training.party_aggregation",
                QCoreApplication::translate("TopologyCheck", "aggregation '%1' is not supported; use one of: %2")
                    .arg(s.partyAggregation, AggregatorRegistry::names().join(QStringLiteral(", "))));
        const auto declared = s.declaredParams();
        for (auto it = s.params.begin(); it != s.params.end(); ++it) {
            const QString path = "$.training." + it.key();
            const auto spec = std::find_if(declared.begin(), declared.end(), [&](const auto& d) { return d.first == it.key(); });
            if (spec != declared.end()) addIf(path, spec->second->problem(*it));
            else
                add(path, QCoreApplication::translate("TopologyCheck",
                                                      "%1 is not a setting of mode %2, aggregation %3, party_aggregation %4, "
                                                      "partition %5, server_optimizer %6, compression %7 or party_compression %8; "
                                                      "remove it or choose the strategy it belongs to")
                              .arg(it.key(), s.mode, s.aggregation, s.partyAggregation, s.partition, s.serverOptimizer, s.compression,
                                   s.partyCompression));
        }
        if (mode && rule) checkRuleMinimums(s);
        checkDraco(s);
        checkServerOptimizer(s);
        checkFaultPolicy(s);
        if (s.transportSecurity != QLatin1String("curve") &&
            s.transportSecurity != QLatin1String("sealed"))  // (hips run --transport-security)
            add("$.training.transport_security",
                QCoreApplication::translate("TopologyCheck", "'%1' is not supported; use curve or sealed").arg(s.transportSecurity));
        checkModeConflicts(s, m_issues);
        checkSecureAggregation(m_t, m_issues);
        checkClientSampling(m_t, m_issues);
        checkPartyTransports(m_t, m_issues);
        checkLaunchers(m_t, m_issues);
        if (s.flat() && s.partyAggregation != QLatin1String(rule::kFedAvg))
            add("$.training.party_aggregation", QCoreApplication::translate("TopologyCheck",
                                                                            "a flat run has no party servers "
                                                                            "to run party_aggregation %1: set it to fedavg")
                                                    .arg(s.partyAggregation));
    }

    // Going on without a process needs rounds that can close without it: Draco's codes decode from
    // every member of a group (the modes' own reasons: ModeConflicts).
    void checkFaultPolicy(const TrainingSettings& s) {
        if (!FaultPolicyRegistry::find(s.faultPolicy)) {
            add("$.training.fault_policy", QCoreApplication::translate("TopologyCheck", "'%1' is not supported; use one of: %2")
                                               .arg(s.faultPolicy, strategyNames(FaultPolicyRegistry::all()).join(", ")));
            return;
        }
        if (!s.continuesThroughFailures()) return;
        const auto global = AggregatorRegistry::create(s.aggregation), party = AggregatorRegistry::create(s.partyAggregation);
        if (global && party && global->needsIndividuals() && party->foldsOnArrival() && !s.flat())
            add("$.training.fault_policy", QCoreApplication::translate("TopologyCheck",
                                                                       "aggregation %1 takes every worker's own update "
                                                                       "through its party server, and the global server cannot tell "
                                                                       "which are down: use fault_policy fail, or a party rule that "
                                                                       "keeps updates apart")
                                               .arg(s.aggregation));
        for (const QString& rule : {s.aggregation, s.partyAggregation})
            if (codesWorkers(rule))
                add("$.training.fault_policy", QCoreApplication::translate("TopologyCheck",
                                                                           "%1 decodes from every worker of a group and cannot "
                                                                           "go on without one: use fault_policy fail")
                                                   .arg(rule));
    }

    static bool codesWorkers(const QString& rule) {
        const auto r = AggregatorRegistry::create(rule);
        return r && r->codesWorkers();
    }

    // A server optimizer's name (what it needs of a mode: ModeConflicts).
    void checkServerOptimizer(const TrainingSettings& s) {
        const StrategyInfo* optimizer = ServerOptimizerRegistry::find(s.serverOptimizer);
        if (!optimizer) {
            add("$.training.server_optimizer", QCoreApplication::translate("TopologyCheck", "'%1' is not supported; use one of: %2")
                                                   .arg(s.serverOptimizer, strategyNames(ServerOptimizerRegistry::all()).join(", ")));
            return;
        }
    }

    // Draco's codes: the party's workers are the coded group, training in FedAvg rounds on data the
    // code assigns; a repetition group is whole.
    void checkDraco(const TrainingSettings& s) {
        if (codesWorkers(s.aggregation))
            add("$.training.aggregation", QCoreApplication::translate("TopologyCheck",
                                                                      "%1 codes the workers of one party: set it as party_aggregation "
                                                                      "(a single party reproduces Draco's flat setting)")
                                              .arg(s.aggregation));
        if (!codesWorkers(s.partyAggregation)) return;
        if (!ModeRegistry::policy(s.mode).plainRounds())
            add("$.training.party_aggregation", QCoreApplication::translate("TopologyCheck",
                                                                            "%1 needs mode %3 (workers whose rounds are the same "
                                                                            "local work on the same data); mode is %2")
                                                    .arg(s.partyAggregation, s.mode, ModeRegistry::namesWhere([](const ModePolicy& p) {
                                                                                         return p.plainRounds();
                                                                                     }).join(QStringLiteral(" or "))));
        if (s.trainCentralWorkers)
            add("$.training.train_central_workers",
                QCoreApplication::translate("TopologyCheck",
                                            "%1 codes the workers of the parties; central workers "
                                            "push to the global server uncoded: set train_central_workers "
                                            "to false")
                    .arg(s.partyAggregation));
        if (s.param(QStringLiteral("quorum")) > 0)  // (a short round shifts the groups, or cannot be decoded)
            add("$.training.quorum", QCoreApplication::translate("TopologyCheck",
                                                                 "%1 decodes each round's contributions as the code "
                                                                 "assigned them to the party's workers, and a quorum closes rounds "
                                                                 "without some of them: remove quorum, or use another party_aggregation")
                                         .arg(s.partyAggregation));
        // (The same for a draw: the drawn workers were decoded as if they were the party, by
        // position: one group's copies counted as two groups', or no round decoded at all.)
        const int all = m_t.trainingWorkerCount();
        bool drawsSome = s.clientsPerRound > 0 && clientsDrawn(s.clientsPerRound, all) < all;  // (one that draws all is none)
        for (const Party& p : m_t.parties)
            drawsSome = drawsSome || (p.clientsPerRound > 0 && clientsDrawn(p.clientsPerRound, p.workerCount()) < p.workerCount());
        if (drawsSome)
            add("$.training.clients_per_round",
                QCoreApplication::translate("TopologyCheck",
                                            "%1 decodes each round's contributions as the code assigned them to the party's "
                                            "workers, and client sampling draws some of them: remove clients_per_round, or use "
                                            "another party_aggregation")
                    .arg(s.partyAggregation));
        if (s.partyAggregation == QLatin1String(rule::kDracoCyclic) && s.partyCompression != QLatin1String("none"))
            add("$.training.party_compression", QCoreApplication::translate("TopologyCheck",
                                                                            "draco_cyclic decodes only exact codewords, and "
                                                                            "party_compression %1 rounds every worker's push: "
                                                                            "no round would decode; set it to none")
                                                    .arg(s.partyCompression));
        if (s.partyAggregation == QLatin1String(rule::kDracoCyclic)) checkCyclicSeparation(int(s.partyParam(QStringLiteral("draco_s"))));
        checkDracoTolerance(s);
        if (s.partyAggregation != QLatin1String(rule::kDracoRepetition)) return;
        const int r = int(s.partyParam(QStringLiteral("draco_r")));
        if (r < 1) return;  // (its range is said with the other parameters')
        for (const Party& p : m_t.parties)
            if (!p.central && p.workerCount() % r != 0)
                add("$.training.party_draco_r", QCoreApplication::translate("TopologyCheck",
                                                                            "party '%1' has %2 workers, not a whole number of groups of "
                                                                            "draco_r %3")
                                                    .arg(p.id)
                                                    .arg(p.workerCount())
                                                    .arg(r));
    }

    // A Draco code decodes exactly with at most so many liars in a party (s; a repetition group
    // outvotes (r − 1) / 2 of its r): one more, and a round may decode to the liars' sum with
    // nothing said (two in a group of three push the same bytes, and win the vote). Counted at
    // the most a round can have: the party's and its groups' attackers, and training.adversary's
    // count, which may fall on one party whole.
    void checkDracoTolerance(const TrainingSettings& s) {
        const bool cyclic = s.partyAggregation == QLatin1String(rule::kDracoCyclic);
        const int tolerated =
            cyclic ? int(s.partyParam(QStringLiteral("draco_s"))) : (int(s.partyParam(QStringLiteral("draco_r"))) - 1) / 2;
        for (const Party& p : m_t.parties) {
            if (p.central || p.workerCount() == 0) continue;
            // (Honest pushes are compared, or combined, bit for bit: a CPU and a GPU compute the
            // same update apart in its last bits, and the odd one out was outvoted every round.)
            for (const WorkerGroup& g : p.workers)
                if (g.device.section(QLatin1Char(':'), 0, 0) != p.workers.front().device.section(QLatin1Char(':'), 0, 0)) {
                    add(QStringLiteral("$.parties"),
                        QCoreApplication::translate("TopologyCheck",
                                                    "party '%1' has workers on %2 and on %3, and %4 compares their pushes bit for "
                                                    "bit, which devices of two kinds do not compute alike: put its workers on one")
                            .arg(p.id, p.workers.front().device, g.device, s.partyAggregation));
                    break;
                }
            int liars = s.adversary ? s.adversary->count : 0;
            for (const WorkerGroup& g : p.workers) liars += g.adversary || p.adversary ? g.count : 0;
            liars = std::min(liars, p.workerCount());
            if (liars <= tolerated) continue;
            // What would hold them: s = liars (with 2s + 1 workers at least), or the smallest r
            // above 2 × liars that makes whole groups of the party.
            const int n = p.workerCount();
            int r = 2 * liars + 1;
            while (r <= n && n % r != 0) ++r;
            const QString raise =
                cyclic ? (n >= 2 * liars + 1 ? QCoreApplication::translate("TopologyCheck", "raise party_draco_s to %1, or ").arg(liars)
                                             : QString())
                       : (r <= n ? QCoreApplication::translate("TopologyCheck", "raise party_draco_r to %1, or ").arg(r) : QString());
            add(s.adversary ? QStringLiteral("$.training.adversary.count") : QStringLiteral("$.parties"),
                QCoreApplication::translate("TopologyCheck",
                                            "party '%1' may have %2 attackers in a round, and %3 decodes exactly with at most %4 "
                                            "(more may win and say nothing): %5attack fewer workers")
                    .arg(p.id)
                    .arg(liars)
                    .arg(s.partyAggregation)
                    .arg(tolerated)
                    .arg(raise));
        }
    }

    // draco_cyclic tells liars at neighbouring ranks apart only among so many workers for its s
    // (DracoCyclicCode::separation): beyond, a round could decode wrong and say nothing.
    void checkCyclicSeparation(int adversaries) {
        if (adversaries < 1 || adversaries > 100) return;  // (its range is said with the other parameters')
        for (const Party& p : m_t.parties) {
            const int n = p.workerCount();
            if (p.central || n <= 2 * adversaries + 1) continue;  // (too few for s: checkRuleMinimums says so)
            if (n > DracoCyclicCode::kMostWorkers) {
                add("$.parties", QCoreApplication::translate("TopologyCheck",
                                                             "draco_cyclic codes at most %1 workers in a party, and "
                                                             "party '%2' has %3: split it")
                                     .arg(DracoCyclicCode::kMostWorkers)
                                     .arg(p.id)
                                     .arg(n));
                continue;
            }
            const int most = DracoCyclicCode::mostWorkers(adversaries);
            if (n <= most) continue;
            add("$.training.party_draco_s",
                QCoreApplication::translate("TopologyCheck",
                                            "draco_cyclic with draco_s %1 tells liars at neighbouring ranks apart among at most %2 "
                                            "workers at float precision, and party '%3' has %4: a round could decode wrong and say "
                                            "nothing; split the party, lower party_draco_s, or use draco_repetition")
                    .arg(adversaries)
                    .arg(most)
                    .arg(p.id)
                    .arg(n));
        }
    }

    // A robust rule needs enough contributions for its parameters (Krum: n > 2f + 2): at the party
    // servers, each party's workers; at the global server, the parties that push to it.
    void checkRuleMinimums(const TrainingSettings& s) {
        const auto partyRule = AggregatorRegistry::create(s.partyAggregation, [&s](const QString& n) { return s.partyParam(n); });
        const auto globalRule = AggregatorRegistry::create(s.aggregation, [&s](const QString& n) { return s.param(n); });
        if (!partyRule || !globalRule) return;
        int pushingToGlobal = 0;
        for (const Party& p : m_t.parties) {
            if (p.central) {
                if (s.trainCentralWorkers) pushingToGlobal += p.workerCount();
                continue;
            }
            if (p.workerCount() > 0) ++pushingToGlobal;
            const int n = s.quorumOf(p.workerCount());  // what a round holds: a quorum's share of the workers
            if (p.workerCount() > 0 && n < partyRule->minimumContributions())
                add("$.training.party_aggregation",
                    QCoreApplication::translate("TopologyCheck",
                                                "%1 needs at least %2 contributions (%3), and party '%4' has %5: add workers, "
                                                "lower party_byzantine_f or raise the quorum")
                        .arg(s.partyAggregation)
                        .arg(partyRule->minimumContributions())
                        .arg(partyRule->minimumReason(), p.id, contributionsText(p.workerCount(), n, QStringLiteral("workers"))));
            if (p.workerCount() > 0)
                checkTrim(s.partyAggregation, s.partyParam(QStringLiteral("trim_beta")), n, "$.training.party_trim_beta",
                          QStringLiteral("party '%1''s round").arg(p.id));
        }
        // A rule that needs each worker's update above parties that would send a sum gets every
        // worker's, relayed by the party servers (partiesRelayWorkers).
        const ModePolicy policy = ModeRegistry::policy(s.mode);
        const bool relayed = globalRule->needsIndividuals() && partyRule->foldsOnArrival() && !policy.hierarchicalFrequency;
        if (relayed) pushingToGlobal = m_t.trainingWorkerCount();
        const QString senders = relayed ? QStringLiteral("workers") : QStringLiteral("parties");
        const int n = s.quorumOf(pushingToGlobal);
        if (pushingToGlobal > 0 && n < globalRule->minimumContributions())
            add("$.training.aggregation",
                QCoreApplication::translate("TopologyCheck",
                                            "%1 needs at least %2 contributions (%3), and the global server's rounds have "
                                            "%4: add them, lower byzantine_f or raise the quorum")
                    .arg(s.aggregation)
                    .arg(globalRule->minimumContributions())
                    .arg(globalRule->minimumReason(), contributionsText(pushingToGlobal, n, senders)));
        if (pushingToGlobal > 0)
            checkTrim(s.aggregation, s.param(QStringLiteral("trim_beta")), n, "$.training.trim_beta",
                      QStringLiteral("the global server's round"));
    }

    // "4 workers", or "a quorum of 3 of 4 workers".
    static QString contributionsText(int all, int quorum, const QString& senders) {
        if (quorum == all) return QStringLiteral("%1 %2").arg(all).arg(senders);
        return QStringLiteral("a quorum of %1 of %2 %3").arg(quorum).arg(all).arg(senders);
    }

    void checkTrim(const QString& rule, double beta, int n, const char* path, const QString& round) {
        if (const QString why = trimmedMeanDoesNotTrim(rule, beta, n, round); !why.isEmpty()) add(path, why);
    }

    const Topology& m_t;
    TopologyIssues* m_issues;
};

}  // namespace

QString trimmedMeanDoesNotTrim(const QString& rule, double beta, int n, const QString& round) {
    if (rule != QLatin1String(rule::kTrimmedMean) || n < 1 || int(std::floor(beta * n)) > 0) return {};
    const double least = std::ceil(100.0 / n) / 100.0;  // the smallest share that cuts one value
    const QString fix = least <= 0.49 ? QCoreApplication::translate("TopologyCheck", "set it to at least %1, or use median").arg(least)
                                      : QCoreApplication::translate("TopologyCheck", "use median");
    return QCoreApplication::translate("TopologyCheck",
                                       "trimmed_mean with trim_beta %1 cuts floor(%1 x %2) = 0 values at each end "
                                       "of %3 (%2 contributions): it is the plain mean, which one liar moves anywhere; %4")
        .arg(beta)
        .arg(n)
        .arg(round, fix);
}

void checkRules(const Topology& topology, TopologyIssues* issues) {
    RuleValidator(topology, issues).run();
}

}  // namespace hips
