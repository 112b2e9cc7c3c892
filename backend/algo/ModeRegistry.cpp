#include "ModeRegistry.h"

#include <algorithm>

namespace hips {

namespace {

const ParamSpec kWholePush{QStringLiteral("whole_push"),
                           ParamSpec::Type::Integer,
                           0,
                           1,
                           0,
                           QStringLiteral("1: each push applied whole, w <- w + delta (ASGD as published); 0: HiPS's "
                                          "damped w <- w + delta / N")};

const ParamSpec kQuorum{QStringLiteral("quorum"),
                        ParamSpec::Type::CountOrFraction,
                        0,
                        100000,
                        0,
                        QStringLiteral("contributions each server aggregates per round (backup workers): later pushes are counted and "
                                       "dropped, and their workers go on from the new model")};

}  // namespace

ModePolicy ModePolicy::with(std::initializer_list<bool ModePolicy::*> traits, TierSync party, TierSync global) {
    ModePolicy p;
    p.party = party, p.global = global;
    for (bool ModePolicy::*trait : traits) p.*trait = true;
    return p;
}

double ModeRegistry::pushShare(const QString& mode, double wholePush, int trainingWorkers) {
    return policy(mode).wholePushOption && wholePush > 0 ? 1.0 : 1.0 / double(std::max(trainingWorkers, 1));
}

const QList<ModeInfo>& ModeRegistry::modes() {
    using P = ModePolicy;
    constexpr TierSync rounds = TierSync::Rounds, async = TierSync::AsPushesCome;
    static const QList<ModeInfo> modes{
        {{mode::kFedAvg,
          QStringLiteral("HiPS's synchronous federated averaging: every worker trains local_iters steps from the "
                         "global model, both tiers sum the deltas, w <- w + sum of (w_i - w) / N."),
          {kQuorum},
          {QStringLiteral("sync")}},
         P::with({&P::runsFlat})},
        {{mode::kSsgd,
          QStringLiteral("Synchronous SGD: every worker pushes its gradient after every step, both tiers average, "
                         "the global server applies SGD with momentum (its optimizer state lives there) and every "
                         "worker pulls the new weights; a round is local_iters steps."),
          {kQuorum},
          {}},
         P::with({&P::gradientEveryStep, &P::roundOfSyncs, &P::runsFlat})},
        {{mode::kHfa,
          QStringLiteral("GeoMX's hierarchical frequency aggregation: workers sync with their party server every k1 "
                         "local steps (the party averages), parties sync with the global server every k2 party syncs "
                         "(weighted by workers); a round is one global sync, k1 * k2 steps."),
          {{QStringLiteral("k1"), ParamSpec::Type::Integer, 1, 1000000, 25, QStringLiteral("local steps between party syncs")},
           {QStringLiteral("k2"), ParamSpec::Type::Integer, 1, 1000000, 2, QStringLiteral("party syncs between global syncs")},
           kQuorum},
          {}},
         P::with({&P::hierarchicalFrequency})},
        {{mode::kEsync,
          QStringLiteral("ESync: synchronous rounds on heterogeneous devices; after every local step a worker asks "
                         "the state service whether to go on, so fast devices do as many steps as fit while the "
                         "slowest does one; w <- w + global_lr * sum of (w_i - w) / N (learning_rate is the local rate); a "
                         "round is local_iters synchronisations."),
          {{QStringLiteral("epsilon"), ParamSpec::Type::Number, -1, 3600, -1,
            QStringLiteral("seconds of margin: a worker stops when one more step would end later than the slowest's step, less "
                           "this; -1: a tenth of the slowest worker's step time as measured (ESync's 0.5 s was for second-long "
                           "steps, and lets millisecond steps stop after one)")},
           {QStringLiteral("global_lr"), ParamSpec::Type::Number, 0.0001, 100, 1,
            QStringLiteral("the global learning rate applied to the workers' average delta")},
           {QStringLiteral("max_steps"), ParamSpec::Type::Integer, 0, 1000000, 1000,
            QStringLiteral("most local steps a worker takes in one synchronisation, whatever the others (0: no limit): a "
                           "worker that claims to be the slowest and never steps cannot keep the others stepping for ever")}},
          {}},
         P::with({&P::stateService, &P::roundOfSyncs})},
        {{mode::kAsgd,
          QStringLiteral("HiPS's asynchronous mode: party servers forward each worker's push as it comes, the global "
                         "server applies it at once and answers with the newest model; the staleness of each push is a "
                         "metric. By default HiPS's damped form, w <- w + delta / N (N training workers); with "
                         "whole_push 1 the ASGD of the literature, w <- w + delta (with local_iters 1 and momentum 0: w - lr * g; a "
                         "worker's local momentum carries over from push to push)."),
          {kWholePush},
          {}},
         P::with({&P::wholePushOption}, async, async)},
        {{mode::kDcAsgd,
          QStringLiteral("asgd with delay compensation at the global server (DC-ASGD): g' = g + lambda * g * g * (w_now - "
                         "w_backup(sender)), g the gradient of each of the push's local steps, -(1 - momentum) * delta / "
                         "(learning_rate * local_iters) before the 1/N share (as the worker's momentum moved them), so lambda "
                         "is the paper's whatever N, local_iters and momentum."),
          {{QStringLiteral("dc_lambda"), ParamSpec::Type::Number, 0, 1000, 0.04,
            QStringLiteral("lambda, the strength of the delay compensation")},
           kWholePush},
          {}},
         P::with({&P::delayCompensation, &P::wholePushOption}, async, async)},
        {{mode::kMixedSync,
          QStringLiteral("GeoMX's MixedSync: synchronous inside each party (every worker every round), "
                         "asynchronous across parties (the global server applies each party's sum as it comes)."),
          {},
          {}},
         P::with({}, rounds, async)},
        {{mode::kLocal,
          QStringLiteral("The standalone baseline: the master trains the same model alone on the whole training set "
                         "(same batch size, learning rate and evaluation cadence); no other role starts."),
          {},
          {}},
         P::with({&P::standalone})},
    };
    return modes;
}

const StrategyList& ModeRegistry::all() {
    static const StrategyList strategies = strategiesOf(modes());
    return strategies;
}

ModePolicy ModeRegistry::policy(const QString& name) {
    for (const ModeInfo& m : modes())
        if (m.info.answersTo(name)) return m.policy;
    return modes().front().policy;
}

QStringList ModeRegistry::namesWhere(const std::function<bool(const ModePolicy&)>& has) {
    QStringList names;
    for (const ModeInfo& m : modes())
        if (has(m.policy)) names.append(m.info.name);
    return names;
}

}  // namespace hips
