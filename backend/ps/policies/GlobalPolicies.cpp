#include "GlobalPolicies.h"

#include "AsyncGlobalTier.h"
#include "ClientSampling.h"
#include "Collusion.h"
#include "DataPlan.h"
#include "FedOptimizer.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "RoleScope.h"
#include "RoundCollector.h"
#include "SecureSum.h"
#include "ShardedLinks.h"
#include "ServerOptimizer.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <optional>

namespace hips {

namespace {

using Clock = std::chrono::steady_clock;

// Rounds: every contributor's push of round v + 1 (or the first `quorum` of them) folded as it
// arrives, each final slice sent to the waiting pullers at once, then the next version.
// The contributions of the global tier's rounds: the peers that push (party servers, central
// workers), or, where party servers relay their workers' pushes, those workers themselves.
QSet<QString> roundContributors(const GlobalTier& tier, QHash<QString, QString>* relayOf) {
    if (!partiesRelayWorkers(tier.ctx.training())) return tier.contributors;
    QSet<QString> out;
    for (const Node& n : tier.ctx.topology.nodes()) {
        if (n.kind != RoleKind::Worker) continue;
        const QString relay = n.party + QStringLiteral("/server%1").arg(tier.ctx.node.rank);  // of this shard
        if (tier.contributors.contains(relay)) relayOf->insert(n.id, relay);
        else if (!tier.contributors.contains(n.id)) continue;  // a party without a server here: not in this run
        out.insert(n.id);
    }
    return out;
}

// Under secure aggregation the round's collector has one contributor, the parties' sum, which
// SecureSum hands it slice by slice as each is unmasked.
QSet<QString> collectorContributors(const GlobalTier& tier, const QSet<QString>& contributors) {
    return tier.ctx.training().secureAggregation ? QSet<QString>{SecureSum::sumId()} : contributors;
}

class Rounds final : public GlobalPolicy {
public:
    explicit Rounds(GlobalTier& tier)
        : m_tier(tier),
          m_contributors(roundContributors(tier, &m_relayOf)),
          m_collector(tier.ctx.node.id, collectorContributors(tier, m_contributors),
                      withCollusion(makeAggregationRule(tier.ctx.training(), RuleTier::Global), tier.ctx.topology),
                      tier.ctx.training().quorumOf(int(m_contributors.size()))) {
        m_collector.setRelays(m_relayOf);
        m_collector.setPlan(tier.ctx.topology, m_contributors);  // (claims: its workers', flat or central; shares: its parties')
        const TrainingSettings& s = tier.ctx.training();
        if (s.secureAggregation) m_secure.emplace(tier.ctx, tier.channel, m_contributors);
        if (samplesClients(tier.ctx.topology))
            m_collector.setRoundContributors(
                [this](qint64 round) { return sampledContributors(m_tier.ctx.topology, m_contributors, round); });
        if (ModeRegistry::policy(s.mode).gradientEveryStep)  // pushes are gradients: their sum, then the optimizer's step
            m_optimizer.emplace(float(s.learningRate), float(s.momentum));
        else m_fedOptimizer = serverOptimizerFor(s, int(tier.ctx.topology.centralParty()->servers.size()), tier.ctx.node.rank);
        m_collector.foldOnArrival([this] {
            return RoundCollector::FoldTarget{m_tier.pool.acquire(m_tier.model.size), stepsItself() ? nullptr : m_tier.model.data};
        });
        if (s.continuesThroughFailures()) {
            m_collector.tolerateLatePushes();
            m_timeout = std::chrono::milliseconds(qint64(s.param(QStringLiteral("round_timeout_s")) * 1000));
        }
    }

    void onPush(Envelope& e) override {
        ModelVersion& model = m_tier.model;
        if (m_secure) return (void)m_log.reject(e.peer, QStringLiteral("a push in the clear, and this run aggregates securely"));
        if (e.message.fields.value(QStringLiteral("pull")).toBool()) m_tier.addPull(e.peer, e.message.integer(QStringLiteral("round")));
        const bool wasOpen = m_collector.roundOpen();
        const bool complete = model.version >= 0 && m_collector.add(e, model.version + 1, model.size);
        if (!wasOpen && m_collector.roundOpen()) m_roundOpenedAt = Clock::now();
        progress(complete);
    }

    bool onProtocolMessage(Envelope& e) override {
        const QString& type = e.message.type;
        const ModelVersion& model = m_tier.model;
        if (!m_secure || (type != message::kMaskedPush && !SecureSum::isProtocolMessage(type))) return false;
        if (type != message::kMaskedPush) return collect(m_secure->onMessage(e, model.version + 1, model.size)), true;
        if (e.message.fields.value(QStringLiteral("pull")).toBool()) m_tier.addPull(e.peer, e.message.integer(QStringLiteral("round")));
        if (model.version >= 0) collect(m_secure->onPush(e, model.version + 1, model.size));
        return true;
    }

    // fault_policy continue: a party server (or a central worker) down is out of the rounds until
    // it is back; the scheduler stops the run when fewer than min_parties are left.
    void onMembership(const QString& node, bool up) override {
        if (!m_contributors.contains(node)) return;
        if (m_secure) {  // (before the first model too: a member down then held the first keys back for ever)
            collect(m_secure->setAbsent(node, !up, m_tier.model.version + 1, m_tier.model.size));
            return;
        }
        const bool closed = m_collector.setAbsent(node, !up);  // (before the first model: noted for it)
        if (m_tier.model.version >= 0) progress(closed);
    }

    // (Only where a party's workers may be down for good: under fault_policy fail the run ends.)
    void onSitOut(const QString& peer, qint64 round) override {
        if (!m_tier.ctx.training().continuesThroughFailures() || m_secure || m_tier.model.version < 0 || round != m_tier.model.version + 1)
            return;
        progress(m_collector.sitOut(peer, round));
    }

    void onTick(Clock::time_point now) override {
        if (m_timeout.count() <= 0 || !m_collector.roundOpen() || now - m_roundOpenedAt < m_timeout) return;
        if (m_collector.closeWithWhatCame(minContributors(m_tier.model.version + 1))) progress(true);
    }

    // min_parties of the parties that push `round` (in a flat run, min_workers of the workers):
    // under client sampling those drawn for it (more than are drawn, and the deadline would
    // never close the round).
    int minContributors(qint64 round) {
        const TrainingSettings& s = m_tier.ctx.training();
        return requiredContributors(s.param(s.flat() ? QStringLiteral("min_workers") : QStringLiteral("min_parties")),
                                    drawnAmong(m_tier.ctx.topology, m_contributors, round));
    }

private:
    // The workers drawn for a round, in the run's metrics (`sample`): the draw is recorded, not
    // only reproducible. Global server 0 says it, once a round, as the round closes (a server
    // restarted within a round said it again as it opened it again).
    void reportDraw(qint64 round) {
        if (!samplesClients(m_tier.ctx.topology) || m_tier.ctx.node.rank != 0 || round <= m_reportedDraw) return;
        m_reportedDraw = round;
        QStringList workers(sampledWorkers(m_tier.ctx.topology, round).values());
        workers.sort();
        m_tier.ctx.metrics.report(metric::kSample,
                                  {{QString(metric::kRound), round}, {QStringLiteral("workers"), QCborArray::fromStringList(workers)}});
    }

    // The parties' sum, unmasked slice by slice (secure aggregation), into the round.
    void collect(SecureSum::Unmasked slices) {
        for (Envelope& slice : slices) {
            const bool wasOpen = m_collector.roundOpen();
            const bool complete = m_collector.add(slice, m_tier.model.version + 1, m_tier.model.size);
            if (!wasOpen && m_collector.roundOpen()) m_roundOpenedAt = Clock::now();
            progress(complete);
        }
    }

    void progress(bool complete) {
        progressRound(complete);
        // A round that every contributor drawn for is down for, or sits out, goes by with the
        // model unchanged (as `hips simulate`'s does); so may the rounds after it.
        const qint64 last = m_tier.ctx.training().rounds * m_tier.ctx.training().globalStepsPerRound();
        ModelVersion& model = m_tier.model;
        while (model.version >= 0 && model.version < last && m_collector.closeEmpty(model.version + 1, model.size)) {
            std::fprintf(roleErr(), "%s: round %lld: every contributor drawn for it is down or sits it out; the model goes on unchanged\n",
                         qPrintable(m_tier.ctx.node.id), static_cast<long long>(model.version + 1));
            progressRound(true);
        }
    }

    void progressRound(bool complete) {
        ModelVersion& model = m_tier.model;
        while (const auto slice = m_collector.takeFinalSlice())
            if (!stepsItself() && !m_tier.beforePublish)  // out before the round is complete
                m_tier.streamer.sliceFinal(m_tier.channel, m_tier.pulls.waiting(model.version + 1), model.version + 1,
                                           m_collector.foldBuffer(), *slice);
        if (!complete) return;
        reportDraw(model.version + 1);
        m_tier.latePushes = m_collector.late() + (m_secure ? m_secure->late() : 0);
        m_tier.overclaims = m_collector.overclaims();
        if (const QCborMap r = m_collector.ruleRecord(model.version + 1); !r.isEmpty()) m_tier.ctx.metrics.report(metric::kRobust, r);
        apply();
    }

public:
    std::vector<float> optimizerState() const override {
        if (m_fedOptimizer) return m_fedOptimizer->state();
        return m_optimizer ? m_optimizer->velocity() : std::vector<float>{};
    }
    void restoreOptimizerState(std::vector<float> state) override {
        if (m_fedOptimizer) m_fedOptimizer->setState(std::move(state));
        else if (m_optimizer && !state.empty()) m_optimizer->setVelocity(std::move(state));
    }

private:
    // w ← w + ΣΔ into a pooled buffer (the old one may still be on its way to a peer), each slice
    // sent to the waiting pullers as soon as it is computed. Under synchronous SGD the round's
    // result is the gradient sum, which the optimizer turns into the next weights.
    void apply() {
        const auto start = Clock::now();
        ModelVersion& model = m_tier.model;
        const QStringList ready = m_tier.pulls.take(model.version + 1);
        if (m_collector.closedEmpty()) {  // no update came, or each was refused: the model as it was (not a server
            m_collector.takeFolded();  // optimizer's step on nothing, nor slices of one that went down)
            FloatBuffer same = m_tier.pool.acquire(model.size);
            std::copy(model.data, model.data + model.size, same->data());
            model = ModelVersion::fromBuffer(model.version + 1, same);
            if (m_tier.beforePublish) m_tier.beforePublish();
            m_tier.streamer.finish(m_tier.channel, ready, model);
        } else if (stepsItself()) {
            FloatBuffer aggregate = m_collector.takeFolded();
            if (!aggregate) {  // a rule that does not fold
                aggregate = m_tier.pool.acquire(model.size);
                m_collector.write(aggregate->data(), nullptr, 0, model.size);
            }
            FloatBuffer next = m_tier.pool.acquire(model.size);
            if (m_optimizer) m_optimizer->step(next->data(), model.data, aggregate->data(), model.size);
            else m_fedOptimizer->step(next->data(), model.data, aggregate->data(), model.size);
            model = ModelVersion::fromBuffer(model.version + 1, next);
            if (m_tier.beforePublish) m_tier.beforePublish();
            for (const QString& peer : ready) sendModel(m_tier.channel, peer, model, message::kModel);
        } else if (m_tier.beforePublish) {
            model = applyAndSend(m_tier.channel, model, m_collector, {}, m_tier.pool);
            m_tier.beforePublish();
            for (const QString& peer : ready) sendModel(m_tier.channel, peer, model, message::kModel);
        } else {
            model = applyAndSend(m_tier.channel, model, m_collector, ready, m_tier.pool, &m_tier.streamer);
        }
        m_tier.served(ready);
        m_tier.applySeconds += std::chrono::duration<double>(Clock::now() - start).count();
        const qint64 steps = m_tier.ctx.training().globalStepsPerRound();  // a round of synchronous SGD is many steps
        if (model.version % steps == 0) m_tier.roundDone(model.version / steps);
    }

    GlobalTier& m_tier;
    Clock::time_point m_roundOpenedAt;
    std::chrono::milliseconds m_timeout{0};
    QHash<QString, QString> m_relayOf;  // relayed worker → its party server
    QSet<QString> m_contributors;
    RoundCollector m_collector;
    // The round's aggregate is a step for an optimizer here, not the next model's difference.
    bool stepsItself() const { return m_optimizer || m_fedOptimizer; }

    std::optional<MomentumSgd> m_optimizer;  // synchronous SGD: the optimizer lives here
    std::optional<FedOptimizer> m_fedOptimizer;  // a server optimizer of FedOpt (FedAvgM, FedAdam, …)
    std::optional<SecureSum> m_secure;  // secure aggregation: the parties' sums come masked
    qint64 m_reportedDraw = 0;
    RejectionLog m_log{m_tier.ctx.node.id};
};

// Pushes as they come: each applied alone as soon as it is whole, its sender answered at once.
class AsPushesCome final : public GlobalPolicy {
public:
    explicit AsPushesCome(GlobalTier& tier) : m_tier(tier), m_async(tier.ctx, tier.contributors) {}

    void onPush(Envelope& e) override {
        ModelVersion& model = m_tier.model;
        if (model.version < 0) {
            m_log.reject(e.peer, QStringLiteral("a push before the initial model"));
            return;
        }
        const auto start = Clock::now();
        const auto applied = m_async.add(e, model, m_tier.pool);
        if (!applied) return;
        sendModel(m_tier.channel, applied->sender, model, message::kModel);
        if (applied->senderDone) m_tier.done(applied->sender);
        m_tier.applySeconds += std::chrono::duration<double>(Clock::now() - start).count();
        m_tier.ctx.metrics.report(metric::kAsyncPush, {{QStringLiteral("from"), applied->sender},
                                                       {QStringLiteral("origin"), applied->origin},
                                                       {QStringLiteral("version"), model.version},
                                                       {metric::kStaleness, applied->staleness},
                                                       {QStringLiteral("refused"), applied->refused},
                                                       {QStringLiteral("compensated"), applied->compensated}});
        if (applied->roundDone) m_tier.roundDone(*applied->roundDone);
    }

private:
    GlobalTier& m_tier;
    AsyncGlobalTier m_async;
    RejectionLog m_log{m_tier.ctx.node.id};
};

}  // namespace

std::optional<FedOptimizer> serverOptimizerFor(const TrainingSettings& s, int servers, int server) {
    if (s.serverOptimizer == QLatin1String("sgd") && s.param(QStringLiteral("server_lr")) == 1.0) return std::nullopt;
    FedOptimizer optimizer(FedOptimizer::kindOf(s.serverOptimizer), float(s.param(QStringLiteral("server_lr"))),
                           float(s.param(QStringLiteral("server_beta1"))), float(s.param(QStringLiteral("server_beta2"))),
                           float(s.param(QStringLiteral("server_tau"))));
    optimizer.stepOnlyFirst(shardMapOf(s, servers).floatsBelow(server, ModelRegistry::trainableFloats(s.modelSpec())));
    return optimizer;
}

bool recoversGlobalServer(const TrainingSettings& settings) {
    const ModePolicy policy = ModeRegistry::policy(settings.mode);
    // (Not under secure aggregation: a restarted server would hold none of the parties' keys.)
    return settings.continuesThroughFailures() && policy.resumable() && !policy.hierarchicalFrequency && !partiesRelayWorkers(settings) &&
           !settings.secureAggregation;
}

std::unique_ptr<GlobalPolicy> makeGlobalPolicy(GlobalTier& tier) {
    if (ModeRegistry::policy(tier.ctx.training().mode).global == TierSync::AsPushesCome) return std::make_unique<AsPushesCome>(tier);
    return std::make_unique<Rounds>(tier);
}

}  // namespace hips
