#include "PartyPolicies.h"

#include "AsyncPushes.h"
#include "ClientSampling.h"
#include "Collusion.h"
#include "DataPlan.h"
#include "ModeRegistry.h"
#include "RoleScope.h"
#include "RoundCollector.h"
#include "ShardedLinks.h"
#include "VectorMath.h"
#include "Vocabulary.h"

#include <QQueue>

namespace hips {

namespace {

// A round of the party (synchronous inside it): every worker's push folded into the party's sum,
// which goes up slice by slice as each is final, weighted by the samples behind it. The round is
// the party's own count, so the global tier may run rounds (fedavg) or take each party's sum as it
// comes (mixed_sync).
class Rounds : public PartyPolicy {
public:
    explicit Rounds(PartyTier& tier)
        : m_tier(tier),
          m_collector(tier.ctx.node.id, tier.workerIds,
                      withCollusion(makeAggregationRule(tier.ctx.training(), RuleTier::Party), tier.ctx.topology),
                      tier.ctx.training().quorumOf(int(tier.workerIds.size()))) {
        m_collector.foldOnArrival([this] { return RoundCollector::FoldTarget{m_tier.pool.acquire(m_tier.model.total), nullptr}; });
        m_collector.setPlan(tier.ctx.topology, tier.workerIds);
        if (partiesPassOnUnreached(tier.ctx.training())) m_collector.passOnUnreached();
        if (samplesClients(tier.ctx.topology))
            m_collector.setRoundContributors([&tier](qint64 round) { return sampledWorkers(tier.ctx.topology, round) & tier.workerIds; });
        const TrainingSettings& s = tier.ctx.training();
        if (s.continuesThroughFailures()) {
            m_collector.tolerateLatePushes();
            m_timeout = std::chrono::milliseconds(qint64(s.param(QStringLiteral("round_timeout_s")) * 1000));
        }
    }

    void onPush(Envelope& e) override {
        // A restarted server (fault_policy continue) hears its workers' open round again before
        // it has the global model (the global server may be down too): the pushes wait for it.
        if (m_tier.model.version < 0) return keepUntilTheModel(e);
        const qint64 round = m_tier.model.round + 1;
        if (e.message.fields.value(QStringLiteral("pull")).toBool()) m_tier.pulls.add(e.peer, e.message.integer(QStringLiteral("round")));
        const qint64 wasOpen = m_collector.openRound();
        const bool complete = m_tier.model.version >= 0 && m_collector.add(e, round, m_tier.model.total);
        // (A round that overtook an open one, the global tier having gone on without it, has its own deadline.)
        if (m_collector.roundOpen() && m_collector.openRound() != wasOpen) m_roundOpenedAt = std::chrono::steady_clock::now();
        progress(round, complete);
    }

    void onGlobalModel() override {
        // A round the global tier went on without (its quorum or deadline closed it first): what
        // it has is of an older model, and goes nowhere.
        if (m_collector.roundOpen() && m_collector.openRound() <= m_tier.model.round) m_collector.dropRound();
        m_earlyOf.clear();
        m_streamedSlices = false;  // (a round that went up in part and never closed: its workers went down)
        m_upstreamBackMidRound = false;  // (nor is that round's sum to go up whole later)
        for (Envelope& e : std::exchange(m_early, {})) onPush(e);
        if (sitsOut(m_tier.model.round + 1)) askForTheModel();
        else sitOutIfNoDrawnWorkerIsUp();
    }

    // Client sampling: a round none of this party's workers is drawn for sends nothing up; the
    // party asks for its model instead.
    bool sitsOut(qint64 round) const {
        return samplesClients(m_tier.ctx.topology) && round <= m_tier.ctx.training().rounds &&
               !sampledWorkers(m_tier.ctx.topology, round).intersects(m_tier.workerIds);
    }
    void askForTheModel(bool sittingOut = false) {
        Message pull(message::kPull, {{QStringLiteral("version"), m_tier.globalVersion + 1}});
        if (sittingOut) pull.fields.insert(QStringLiteral("sits_out"), true);
        m_tier.upstream->send(std::move(pull));
    }

    // Client sampling under fault_policy continue: a round every worker drawn for is down (and
    // none of them has pushed) has nothing to send up. The party says it sits the round out, so
    // that the global round does not wait for it, and asks for the round's model.
    void sitOutIfNoDrawnWorkerIsUp() {
        const qint64 round = m_tier.model.round + 1;
        if (!m_tier.ctx.training().continuesThroughFailures() || m_tier.model.version < 0 || round > m_tier.ctx.training().rounds ||
            round == m_satOut || m_tier.pushedRound >= round || !m_collector.noneCanDeliver(round))
            return;
        m_collector.dropRound();
        m_satOut = round;
        std::fprintf(roleErr(), "%s: round %lld: every worker of the party drawn for it is down; the party sits it out\n",
                     qPrintable(m_tier.ctx.node.id), static_cast<long long>(round));
        askForTheModel(true);
    }

    // At most one round of each worker's pushes (this server's shard of the model: its bytes, in
    // as many messages as it has slices): what a worker sends beyond its own round before the
    // model is here is refused, not kept, and cannot crowd out the others' (empty pushes count).
    void keepUntilTheModel(Envelope& e) {
        const size_t shardFloats =
            shardMapOf(m_tier.ctx.training(), int(m_tier.ctx.topology.centralParty()->servers.size())).shardSize(m_tier.ctx.node.rank);
        size_t bytes = 0;
        for (const zmq::message_t& f : e.message.frames) bytes += f.size();
        Early& kept = m_earlyOf[e.peer];
        if (kept.bytes + bytes > sizeof(float) * shardFloats || kept.pushes + 1 > sliceCount(shardFloats)) {
            m_log.reject(e.peer, QStringLiteral("more pushes than a round's before the global model is here"));
            return;
        }
        kept.bytes += bytes;
        ++kept.pushes;
        m_early.push_back(std::move(e));
    }

    // fault_policy continue: a worker down is left out of the rounds until it is back.
    void onMembership(const QString& node, bool up) override {
        if (!m_tier.workerIds.contains(node)) return;
        const bool closed = m_collector.setAbsent(node, !up);  // (before the first model: noted for it)
        if (m_tier.model.version < 0) return;
        progress(m_tier.model.round + 1, closed);
        if (!up) sitOutIfNoDrawnWorkerIsUp();
    }

    // round_timeout_s: a round open that long closes with the workers that pushed, if enough did.
    void onTick(std::chrono::steady_clock::time_point now) override {
        if (m_timeout.count() <= 0 || m_collector.openRound() != m_tier.model.round + 1 || now - m_roundOpenedAt < m_timeout) return;
        if (m_collector.closeWithWhatCame(minWorkers(m_tier.model.round + 1))) progress(m_tier.model.round + 1, true);
    }

    // min_workers of those that push `round`: under client sampling the workers drawn for it (a
    // fraction of all of the party's could ask more than are drawn, and the deadline would never
    // close the round).
    int minWorkers(qint64 round) {
        return requiredContributors(m_tier.ctx.training().param(QStringLiteral("min_workers")),
                                    drawnAmong(m_tier.ctx.topology, m_tier.workerIds, round));
    }

protected:
    // What the last change made final goes up; a complete round is finished.
    void progress(qint64 round, bool complete) {
        m_tier.latePushes = m_collector.late();
        m_tier.overclaims = m_collector.overclaims();
        while (const auto slice = m_collector.takeFinalSlice()) {
            if (!streams()) continue;
            m_tier.pushedRound = round;
            m_streamedSlices = true;
            sendPushSlice(*m_tier.upstream, round, m_tier.globalVersion, m_collector.foldBuffer(), *slice, true, {},
                          m_collector.openWeight());
        }
        if (!complete) return;
        if (const QCborMap r = m_collector.ruleRecord(round); !r.isEmpty()) m_tier.ctx.metrics.report(metric::kRobust, r);
        FloatBuffer sum = m_collector.takeFolded();
        const bool streamed = std::exchange(m_streamedSlices, false);  // it went up slice by slice
        if (!sum) {  // a rule that does not fold: the sum at the end
            sum = m_tier.pool.acquire(m_tier.model.total);
            m_collector.write(sum->data(), nullptr, 0, m_tier.model.total);
        }
        m_lastUp = LastPush{round, m_tier.globalVersion, sum, m_collector.roundWeight()};
        if (!streamed) roundComplete(round, sum);
        // Its first slices went to a global server that died before it restarted: all of it again
        // (the slices the new one has are refused there one by one, as a second copy).
        else if (std::exchange(m_upstreamBackMidRound, false))
            sendPush(*m_tier.upstream, round, m_tier.globalVersion, sum, true, {}, m_collector.roundWeight());
    }

public:
    // Its last push went to a global server that died before answering it: the restarted one
    // gets it again (with the pull for its answer). One it already had is refused there as a
    // second push, and its answer comes all the same. A round this party sits out (client
    // sampling) asks again for its model: the dead server held that pull.
    void onUpstreamBack() override {
        if (m_tier.globalVersion < 0) return (void)m_tier.upstream->send(Message(message::kPull, {{QStringLiteral("version"), 0}}));
        if (m_streamedSlices) m_upstreamBackMidRound = true;  // (this round's sum is going up: all of it once complete)
        else if (m_lastUp.values && m_lastUp.round > m_tier.model.round)
            sendPush(*m_tier.upstream, m_lastUp.round, m_lastUp.base, m_lastUp.values, true, {}, m_lastUp.weight);
        else if (sitsOut(m_tier.model.round + 1)) askForTheModel();
        else if (m_satOut == m_tier.model.round + 1) askForTheModel(true);
    }

protected:
    // A masked sum goes up whole (its masks are drawn for the whole of it).
    virtual bool streams() const { return !m_tier.secure; }
    virtual void roundComplete(qint64 round, const FloatBuffer& sum) {
        m_tier.pushedRound = round;
        if (m_tier.secure) return m_tier.secure->push(round, m_tier.globalVersion, sum, m_collector.roundWeight());
        sendPush(*m_tier.upstream, round, m_tier.globalVersion, sum, true, {}, m_collector.roundWeight());
    }

    PartyTier& m_tier;
    RoundCollector m_collector;
    struct LastPush {
        qint64 round = 0, base = 0;
        FloatBuffer values;  // (held: the pool does not hand it out again meanwhile)
        double weight = 0;
    } m_lastUp;  // the party's last round's sum as it went up
    bool m_streamedSlices = false;  // this round's sum went up slice by slice (every worker counts)
    bool m_upstreamBackMidRound = false;  // the global server restarted while this round's slices went up
    qint64 m_satOut = -1;  // the last round the party sat out for want of a drawn worker that is up
    std::chrono::steady_clock::time_point m_roundOpenedAt;
    std::chrono::milliseconds m_timeout{0};
    std::vector<Envelope> m_early;  // pushes before the first global model
    struct Early {
        size_t bytes = 0, pushes = 0;
    };
    QHash<QString, Early> m_earlyOf;  // m_early's, by worker
    RejectionLog m_log{m_tier.ctx.node.id};
};

// HFA: the party's model moves by its workers' average every party sync; every k2-th sync, the
// party's progress since the last global model goes up, weighted by the party's share of the
// workers, so the global sum is the workers-weighted average of the party models.
class Hfa final : public Rounds {
public:
    explicit Hfa(PartyTier& tier)
        : Rounds(tier),
          m_syncsPerGlobal(qint64(tier.ctx.training().param(QStringLiteral("k2")))),
          m_share(float(tier.workerIds.size()) / float(tier.ctx.topology.trainingWorkerCount())) {}

    // The global model, kept whole as the base of the party's syncs.
    void onGlobalModel() override {
        m_globalWeights = m_tier.pool.acquire(m_tier.model.total);
        for (const ModelSlice& s : m_tier.model.slices)
            std::copy(s.floats.data, s.floats.data + s.floats.size, m_globalWeights->data() + s.offset);
        m_partyWeights = m_globalWeights;
        Rounds::onGlobalModel();
    }

private:
    bool streams() const override { return false; }
    void roundComplete(qint64 round, const FloatBuffer& sum) override {
        const size_t n = m_tier.model.total;
        FloatBuffer next = m_tier.pool.acquire(n);
        sumInto(next->data(), m_partyWeights->data(), sum->data(), n);
        m_partyWeights = next;
        if (round % m_syncsPerGlobal != 0) return m_tier.publish(round, next);
        FloatBuffer up = m_tier.pool.acquire(n);
        for (size_t i = 0; i < n; ++i) (*up)[i] = ((*next)[i] - (*m_globalWeights)[i]) * m_share;
        m_tier.pushedRound = round;
        sendPush(*m_tier.upstream, round / m_syncsPerGlobal, m_tier.globalVersion, up, true);
    }

    qint64 m_syncsPerGlobal;
    float m_share;
    FloatBuffer m_partyWeights, m_globalWeights;
};

// Rounds where the global rule needs every worker's own update (a robust rule above a party that
// would otherwise send a sum): each push slice goes up as it came, naming its worker, and the global
// model that answers the round comes back to the workers as in Rounds.
class Relay final : public PartyPolicy {
public:
    explicit Relay(PartyTier& tier) : m_tier(tier) {}

    void onPush(Envelope& e) override {
        const qint64 round = m_tier.model.round + 1;
        Message& m = e.message;
        if (m.fields.value(QStringLiteral("pull")).toBool()) m_tier.pulls.add(e.peer, m.integer(QStringLiteral("round")));
        if (m_tier.model.version < 0 || m.integer(QStringLiteral("round")) != round) {
            m_log.reject(e.peer,
                         QStringLiteral("push for round %1 while round %2 is open").arg(m.integer(QStringLiteral("round"))).arg(round));
            return;
        }
        if (m.frames.size() != 1 || m.frames[0].size() % sizeof(float) != 0 ||
            m.integer(QStringLiteral("total")) != qint64(m_tier.model.total) ||
            !isCanonicalSlice(m.integer(QStringLiteral("offset")), m.integer(QStringLiteral("total")),
                              m.frames[0].size() / sizeof(float))) {
            m_log.reject(e.peer, QStringLiteral("a push that is not one slice of this model"));
            return;
        }
        // Only what the global server reads goes up, and the party's word on who sent it.
        Message up(message::kPush, {{QStringLiteral("round"), round},
                                    {QStringLiteral("base"), m_tier.globalVersion},
                                    {QStringLiteral("offset"), m.integer(QStringLiteral("offset"))},
                                    {QStringLiteral("total"), m.integer(QStringLiteral("total"))},
                                    {QStringLiteral("pull"), true},
                                    {QStringLiteral("origin"), e.peer}});
        if (const QCborValue w = m.fields.value(QStringLiteral("weight")); !w.isUndefined()) up.fields.insert(QStringLiteral("weight"), w);
        up.frames = std::move(m.frames);
        m_tier.pushedRound = round;
        m_tier.upstream->send(std::move(up));
    }

private:
    PartyTier& m_tier;
    RejectionLog m_log{m_tier.ctx.node.id};
};

// Asynchronous inside the party (asgd, dcasgd): each worker's push goes up alone as soon as it is
// whole, and the global server's answer to it goes back to that worker. The global server answers
// a contributor's pushes in order, so the answers come in the order of m_awaiting.
class Forwarding final : public PartyPolicy {
public:
    explicit Forwarding(PartyTier& tier) : m_tier(tier), m_pushes(tier.ctx.node.id, tier.workerIds) {}

    void onPush(Envelope& e) override {
        if (!m_tier.model.complete()) {
            m_log.reject(e.peer, QStringLiteral("a push before the initial model"));
            return;
        }
        std::optional<WholePush> push = m_pushes.add(e, m_tier.model.total, m_tier.newestVersion);
        if (!push) return;
        // A refused push (not finite) goes up as no change, so that its worker is still answered.
        FloatBuffer values = push->values ? push->values : std::make_shared<std::vector<float>>(m_tier.model.total, 0.0f);
        sendPush(*m_tier.upstream, ++m_sent, push->base, values, true, push->sender);
        m_awaiting.enqueue(push->sender);
    }

    // After the initial model, what comes from the global server are answers to forwarded pushes.
    bool onUpstreamSlice(const ModelSlice& slice) override {
        if (!m_tier.model.complete()) return false;
        if (!m_answers) m_answers.emplace(m_tier.model.total);
        std::optional<ModelVersion> model = m_answers->add(slice);
        if (!model) return true;
        if (m_awaiting.isEmpty()) {
            m_log.reject(QStringLiteral("the global server"), QStringLiteral("a model no worker of this party waits for"));
            return true;
        }
        const QString worker = m_awaiting.dequeue();
        m_tier.newestVersion = std::max(m_tier.newestVersion, model->version);
        sendModel(m_tier.workers, worker, *model, message::kModel);
        if (++m_answered[worker] >= m_tier.ctx.training().rounds) m_tier.done(worker);
        if (++m_answeredAll % m_tier.workerIds.size() == 0) {  // a round's worth of pushes
            QCborMap f = trafficFields(m_tier.workers, m_tier.upstream);
            f.insert(QStringLiteral("round"), m_answeredAll / m_tier.workerIds.size());
            m_tier.ctx.metrics.report(metric::kTraffic, f);
        }
        return true;
    }

private:
    PartyTier& m_tier;
    AsyncPushes m_pushes;
    QQueue<QString> m_awaiting;
    QHash<QString, qint64> m_answered;
    qint64 m_sent = 0, m_answeredAll = 0;
    std::optional<ModelAssembler> m_answers;
    RejectionLog m_log{m_tier.ctx.node.id};
};

}  // namespace

std::unique_ptr<PartyPolicy> makePartyPolicy(PartyTier& tier) {
    const ModePolicy policy = ModeRegistry::policy(tier.ctx.training().mode);
    if (policy.party == TierSync::AsPushesCome) return std::make_unique<Forwarding>(tier);
    if (policy.hierarchicalFrequency) return std::make_unique<Hfa>(tier);
    if (partiesRelayWorkers(tier.ctx.training())) return std::make_unique<Relay>(tier);
    return std::make_unique<Rounds>(tier);
}

}  // namespace hips
