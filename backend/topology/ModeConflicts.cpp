#include "ModeConflicts.h"

#include "AggregatorRegistry.h"
#include "FedOptimizer.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"

#include <QCoreApplication>
#include <algorithm>

namespace hips {

namespace {

// "fedavg, ssgd or hfa": the modes whose policy has it.
QString modesThat(bool (*has)(const ModePolicy&)) {
    QStringList names = ModeRegistry::namesWhere(has);
    if (names.size() < 2) return names.join(QString());
    const QString last = names.takeLast();
    return QCoreApplication::translate("TopologyCheck", "%1 or %2").arg(names.join(QStringLiteral(", ")), last);
}

// Rules a tier that applies each push as it comes can run: those that fold a push in as it arrives.
bool foldsOnArrival(const QString& rule) {
    const auto r = AggregatorRegistry::create(rule);
    return !r || r->foldsOnArrival();  // (an unknown name is refused on its own)
}

QString rulesThatFoldOnArrival() {
    QStringList names;
    for (const QString& rule : AggregatorRegistry::names())
        if (foldsOnArrival(rule)) names.append(rule);
    return names.join(QStringLiteral(", "));
}

// Draco's rules: they decode identical copies of one update, which no two noised copies are.
bool codesWorkers(const QString& rule) {
    const auto r = AggregatorRegistry::create(rule);
    return r && r->codesWorkers();
}

QString codingRuleUnderPrivacy(const TrainingSettings& s) {
    if (!s.privacy) return {};
    if (codesWorkers(s.aggregation)) return s.aggregation;
    return !s.flat() && codesWorkers(s.partyAggregation) ? s.partyAggregation : QString();
}

bool trainsRoundsAtTheGlobalServer(const ModePolicy& p) {
    return p.global == TierSync::Rounds && !p.standalone;
}

struct ModeConflict {
    const char* path;
    bool (*conflicts)(const ModePolicy&, const TrainingSettings&);
    QString (*message)(const TrainingSettings&);
};

const ModeConflict kConflicts[] = {
    {"$.training.train_central_workers",
     [](const ModePolicy& p, const TrainingSettings& s) { return p.hierarchicalFrequency && s.trainCentralWorkers; },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 syncs workers with their party server; central workers have none: set train_central_workers to false")
             .arg(s.mode);
     }},
    {"$.training.local_epochs", [](const ModePolicy& p, const TrainingSettings& s) { return p.roundOfSyncs && s.localEpochs > 0; },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 counts a round in synchronisations: set local_iters (synchronisations per round) instead of local_epochs")
             .arg(s.mode);
     }},
    {"$.training.model",
     [](const ModePolicy& p, const TrainingSettings& s) { return p.gradientEveryStep && ModelRegistry::hasRunningStatistics(s.model); },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 pushes gradients, and model %2's BatchNorm statistics have none: they would never leave their initial "
                    "values; choose a mode that pushes models (%3) or another model")
             .arg(s.mode, s.model, modesThat([](const ModePolicy& p) { return p.pushesModelChanges() && !p.standalone; }));
     }},
    {"$.training.resume_round", [](const ModePolicy& p, const TrainingSettings& s) { return s.resumeRound > 0 && !p.resumable(); },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 applies pushes as they come and keeps no checkpoints; only the modes with rounds at the global server "
                    "resume (%2)")
             .arg(s.mode, modesThat([](const ModePolicy& p) { return p.resumable() && !p.standalone; }));
     }},
    {"$.training.hierarchy", [](const ModePolicy& p, const TrainingSettings& s) { return s.flat() && !p.runsFlat; },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate("TopologyCheck",
                                            "a flat run has no party servers; mode %1 needs them: use %2, or hierarchy two_layer")
             .arg(s.mode, modesThat([](const ModePolicy& p) { return p.runsFlat; }));
     }},
    // A tier that applies each push as it comes has no round of contributions to choose from.
    {"$.training.aggregation",
     [](const ModePolicy& p, const TrainingSettings& s) { return p.global == TierSync::AsPushesCome && !foldsOnArrival(s.aggregation); },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 applies each push at the global server as it comes; aggregation %2 needs a round's contributions: use %3, "
                    "or a mode with rounds (%4)")
             .arg(s.mode, s.aggregation, rulesThatFoldOnArrival(), modesThat(trainsRoundsAtTheGlobalServer));
     }},
    {"$.training.party_aggregation",
     [](const ModePolicy& p, const TrainingSettings& s) {
         return p.party == TierSync::AsPushesCome && !foldsOnArrival(s.partyAggregation);
     },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 forwards each push from the party servers as it comes; party_aggregation %2 needs a round's "
                    "contributions: use %3, or a mode with rounds (%4)")
             .arg(s.mode, s.partyAggregation, rulesThatFoldOnArrival(),
                  modesThat([](const ModePolicy& p) { return p.party == TierSync::Rounds && !p.standalone; }));
     }},
    // Going on without a process needs rounds that can close without it: the asynchronous modes
    // have none. (ESync's state service stops waiting for a worker silent for heartbeat_timeout_s.)
    {"$.training.fault_policy",
     [](const ModePolicy& p, const TrainingSettings& s) { return s.continuesThroughFailures() && !p.resumable(); },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate("TopologyCheck",
                                            "mode %1 cannot go on without one of its processes (%2): use fault_policy fail, or %3")
             .arg(s.mode, QCoreApplication::translate("TopologyCheck", "it has no rounds to close without it"),
                  modesThat([](const ModePolicy& p) { return p.resumable() && !p.standalone; }));
     }},
    // A server optimizer turns a round's sum of model deltas into a step: it needs rounds at the
    // global server and deltas (ssgd's gradients have the server's own SGD with momentum).
    {"$.training.server_optimizer",
     [](const ModePolicy& p, const TrainingSettings& s) {
         const bool plain =
             FedOptimizer::kindOf(s.serverOptimizer) == FedOptimizer::Kind::Sgd && s.param(QStringLiteral("server_lr")) == 1.0;
         return !plain && ServerOptimizerRegistry::find(s.serverOptimizer) && (p.global != TierSync::Rounds || p.gradientEveryStep);
     },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 has no round of model deltas at the global server for server optimizer %2 to step with: use %3, or "
                    "server_optimizer sgd with server_lr 1")
             .arg(s.mode, s.serverOptimizer,
                  modesThat([](const ModePolicy& p) { return trainsRoundsAtTheGlobalServer(p) && p.pushesModelChanges(); }));
     }},
    // (As read from the file by the controller, or given with the topology: a run's own copy.)
    {"$.training.model",
     [](const ModePolicy& p, const TrainingSettings& s) { return p.gradientEveryStep && s.torchScript() && s.modelBufferTensors > 0; },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate("TopologyCheck",
                                            "mode %1 pushes gradients, and the TorchScript model has %2 floating buffers (BatchNorm's "
                                            "running statistics, say) that no gradient moves: they would never leave the file's "
                                            "values; choose a mode that pushes models (%3) or a model without them")
             .arg(s.mode)
             .arg(s.modelBufferTensors)
             .arg(modesThat([](const ModePolicy& p) { return p.pushesModelChanges() && !p.standalone; }));
     }},
    {"$.training.proximal_mu", [](const ModePolicy& p, const TrainingSettings& s) { return s.proximalMu > 0 && p.gradientEveryStep; },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate(
                    "TopologyCheck",
                    "mode %1 takes one step from the global model each push; FedProx's proximal term needs local steps: set "
                    "proximal_mu to 0")
             .arg(s.mode);
     }},
    // The accountant counts one Gaussian mechanism per round: each worker's one delta of a round.
    {"$.training.privacy",
     [](const ModePolicy& p, const TrainingSettings& s) {
         return s.privacy && (!p.resumable() || !p.pushesModelChanges() || p.hierarchicalFrequency || p.stateService || p.standalone);
     },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate("TopologyCheck",
                                            "privacy accounts one noised update per worker and round, and mode %1 pushes otherwise: "
                                            "use mode fedavg")
             .arg(s.mode);
     }},
    {"$.training.privacy.where", [](const ModePolicy&, const TrainingSettings& s) { return s.privacy && s.privacy->atParty() && s.flat(); },
     [](const TrainingSettings&) {
         return QCoreApplication::translate("TopologyCheck",
                                            "privacy where \"party\" noises at the party servers, and hierarchy flat has none: use "
                                            "hierarchy two_layer, or where \"worker\"");
     }},
    // Draco decodes r equal copies of each update; each noised on its own, no two copies agree and
    // no round decodes (the model would stay as it started), and the r copies of one shard would
    // average the noise down by sqrt(r) against whoever sees them all.
    {"$.training.privacy", [](const ModePolicy&, const TrainingSettings& s) { return !codingRuleUnderPrivacy(s).isEmpty(); },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate("TopologyCheck",
                                            "aggregation %1 decodes identical copies of each update, and privacy noises every copy on "
                                            "its own: no copies would agree and the model would not train; turn privacy off or "
                                            "choose another aggregation")
             .arg(codingRuleUnderPrivacy(s));
     }},
    // Central workers push straight to the global server: under noise at the party, nothing
    // would clip or noise their updates, and every party would get them in the global model.
    {"$.training.train_central_workers",
     [](const ModePolicy&, const TrainingSettings& s) { return s.privacy && s.privacy->atParty() && !s.flat() && s.trainCentralWorkers; },
     [](const TrainingSettings&) {
         return QCoreApplication::translate("TopologyCheck",
                                            "privacy where \"party\" noises at the party servers, and central workers push to the "
                                            "global server without one: set train_central_workers to false, or where \"worker\"");
     }},
    {"$.training.party_aggregation",
     [](const ModePolicy&, const TrainingSettings& s) {
         return s.privacy && s.privacy->atParty() && !s.flat() && s.partyAggregation != QLatin1String("fedavg");
     },
     [](const TrainingSettings& s) {
         return QCoreApplication::translate("TopologyCheck",
                                            "privacy where \"party\" clips each worker's update and sums them at the party server; "
                                            "party_aggregation %1 would choose among them: use fedavg")
             .arg(s.partyAggregation);
     }},
};

}  // namespace

void checkModeConflicts(const TrainingSettings& s, TopologyIssues* issues) {
    if (!ModeRegistry::find(s.mode)) return;  // refused on its own
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    for (const ModeConflict& c : kConflicts)
        if (c.conflicts(policy, s)) issues->append({QString::fromLatin1(c.path), c.message(s)});
}

namespace {

struct IgnoredSetting {
    QStringList keys;
    bool (*ignored)(const ModePolicy&, const TrainingSettings&);
    const char* why;  // TopologyCheck's; %1: the mode
};

const IgnoredSetting kIgnored[] = {
    {{"aggregation", "party_aggregation", "hierarchy", "servers", "slice_bound", "server_optimizer", "compression", "party_compression",
      "proximal_mu", "fault_policy", "partition", "train_central_workers"},
     [](const ModePolicy& p, const TrainingSettings&) { return p.standalone; },
     QT_TRANSLATE_NOOP("TopologyCheck",
                       "mode %1 trains the master worker alone on the whole training set: nothing is sent or "
                       "aggregated, so this has no effect")},
    {{"party_aggregation", "party_compression"},
     [](const ModePolicy& p, const TrainingSettings& s) { return !p.standalone && s.flat(); },
     QT_TRANSLATE_NOOP("TopologyCheck",
                       "mode %1 with hierarchy flat: the workers push straight to the global server, and there is "
                       "no party tier for this to act on")},
    {{"checkpoint_every"},
     [](const ModePolicy& p, const TrainingSettings&) { return !p.resumable() && !p.standalone; },
     QT_TRANSLATE_NOOP("TopologyCheck", "mode %1 applies pushes as they come and keeps no checkpoints")},
};

}  // namespace

QMap<QString, QString> settingsIgnoredByMode(const TrainingSettings& s) {
    QMap<QString, QString> ignored;
    if (!ModeRegistry::find(s.mode)) return ignored;
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    TopologyIssues refused;
    checkModeConflicts(s, &refused);
    for (const IgnoredSetting& row : kIgnored) {
        if (!row.ignored(policy, s)) continue;
        QStringList keys = row.keys;
        // With a setting go its strategy's parameters: every one but the mode's own when nothing is
        // sent, the party tier's (party_codec_ratio, …) when there is no party tier.
        for (const auto& [param, spec] : s.declaredParams()) {
            const bool modes = ModeRegistry::find(s.mode)->param(param) != nullptr;
            if ((policy.standalone && !modes) ||
                (keys.contains(QLatin1String("party_compression")) && param.startsWith(QLatin1String("party_"))))
                keys.append(param);
        }
        for (const QString& key : keys) {
            const bool isRefused = std::any_of(refused.begin(), refused.end(),
                                               [&](const TopologyIssue& i) { return i.path == QStringLiteral("$.training.") + key; });
            if (!isRefused && !ignored.contains(key))
                ignored.insert(key, QCoreApplication::translate("TopologyCheck", row.why).arg(s.mode));
        }
    }
    return ignored;
}

}  // namespace hips
