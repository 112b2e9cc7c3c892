#include "PartyServerRole.h"
#include "ClientSampling.h"

#include "GlobalPolicies.h"
#include "LinkCodecs.h"
#include "ModeRegistry.h"
#include "PartyPolicies.h"
#include "RoleError.h"
#include "SchedulerClient.h"
#include "ShardedLinks.h"
#include "Vocabulary.h"
#include "WanLinks.h"

#include <QSet>
#include <algorithm>
#include <optional>
#include <cstdio>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

class PartyServer {
public:
    explicit PartyServer(RoleContext& ctx)
        : m_ctx(ctx),
          m_endpoint(ctx.topology.endpoint(ctx.node)),
          m_workers(Channel::router(ctx.zmq, ctx.node.id, m_endpoint)),
          m_partyScheduler(ctx, ctx.scheduler(false), m_endpoint),
          m_globalScheduler(ctx, ctx.scheduler(true), m_endpoint) {}

    int run() {
        m_partyScheduler.watchMembership();  // (from the join on: a restarted one is told who is down then)
        for (const PeerInfo& p : m_partyScheduler.join())
            if (p.role == QLatin1String("worker")) m_tier.workerIds.insert(p.id);
        // Key slicing: this server's shard is the global server's of the same rank (validation
        // makes every party run as many servers as there are global servers).
        const QList<PeerInfo> globals = serversByRank(m_globalScheduler.join(), QStringLiteral("global_server"), m_ctx.topology);
        if (m_ctx.node.rank >= globals.size())
            throw RoleError("this party server has rank " + std::to_string(m_ctx.node.rank) + " and the run " +
                            std::to_string(globals.size()) +
                            " global servers; every party needs as many servers as there are global servers");
        PeerInfo global = globals[m_ctx.node.rank];
        m_shardSize = shardMapOf(m_ctx.training(), int(globals.size())).shardSize(m_ctx.node.rank);
        const auto codecs = makeLinkCodecs(m_ctx);  // keyed by peer: one for both channels
        if (codecs) codecs->setAggregateOf(size_t(m_tier.workerIds.size()));  // it sends models to its workers only
        const auto shaper = makeWanShaper(m_ctx);
        const auto dial = [&] {
            Channel c = Channel::dealer(m_ctx.zmq, m_ctx.node.id, global.endpoint, global.id);
            c.setPayloadTransform(codecs);
            c.setLinkShaper(shaper);
            return c;
        };
        Channel upstream = dial();
        m_workers.setPayloadTransform(codecs);
        m_tier.upstream = &upstream;
        std::optional<SecureParty> secure;
        if (m_ctx.training().secureAggregation) m_tier.secure = &secure.emplace(m_ctx, upstream, global.id);
        m_tier.done = [this](const QString& worker) { m_servedFinal.insert(worker); };
        m_tier.publish = [this](qint64 round, const FloatBuffer& weights) { publish(round, weights); };
        // A resumed run goes on from the checkpoint's round: the party's rounds count on from it.
        m_tier.pushedRound = m_ctx.training().resumeRound * m_ctx.training().workerPushesPerRound();
        m_policy = makePartyPolicy(m_tier);
        upstream.send(Message(message::kPull, {{QStringLiteral("version"), 0}}));

        if (recoversGlobalServer(m_ctx.training())) m_globalScheduler.watchMembership();
        m_partyScheduler.watchWorkThread();
        m_globalScheduler.watchWorkThread();
        while (!everyWorkerServed()) {
            m_partyScheduler.throwIfAborted();
            m_globalScheduler.throwIfAborted();
            for (const MembershipChange& c : m_partyScheduler.takeMembershipChanges()) {
                if (c.up) m_down.remove(c.node);
                else m_down.insert(c.node);
                m_policy->onMembership(c.node, c.up);
            }
            for (const MembershipChange& c : m_globalScheduler.takeMembershipChanges()) {
                if (!c.up || !c.restarted || c.node != global.id) continue;
                if (!c.endpoint.isEmpty() && c.endpoint != global.endpoint) {  // it lost its host: on its standby now
                    const QString was = std::exchange(global.endpoint, c.endpoint);
                    switchToMovedServer(m_ctx.node.id, global.id, was, global.endpoint, upstream, dial());
                }
                m_policy->onUpstreamBack();
            }
            m_policy->onTick(Clock::now());
            const int ready = pollChannels({&m_workers, &upstream}, 200ms);
            if (ready < 0) continue;
            if (ready == 1) {
                if (auto e = upstream.receive(0ms); e && e->message.type == message::kModel) {
                    if (auto slice = ModelSlice::fromMessage(std::move(e->message), e->peer)) onSlice(std::move(*slice));
                } else if (e && secure && !secure->onMessage(*e)) {
                    m_log.reject(e->peer, QStringLiteral("unexpected message '%1'").arg(e->message.type));
                }
            } else if (auto e = m_workers.receive(0ms)) {
                if (!m_tier.workerIds.contains(e->peer)) {  // the model and the round are for this party's workers only
                    m_log.reject(e->peer, QStringLiteral("'%1' from a node that is not a worker of this party").arg(e->message.type));
                } else if (e->message.type == message::kPush) {
                    m_policy->onPush(*e);
                } else if (e->message.type == message::kPull) {
                    m_pulls.add(e->peer, e->message.integer(QStringLiteral("version")));
                } else {
                    m_log.reject(e->peer, QStringLiteral("unexpected message '%1'").arg(e->message.type));
                }
            }
            if (m_model.version >= 0) serveWaitingPulls();
        }
        reportTraffic();
        m_partyScheduler.leave();
        m_globalScheduler.leave();
        m_workers.lingerOnClose(5s, m_down);
        upstream.lingerOnClose(5s);
        return kRoleOk;
    }

private:
    // A model made here (an HFA party sync) becomes the one the party's workers pull.
    void publish(qint64 round, const FloatBuffer& weights) {
        const ModelVersion model = ModelVersion::fromBuffer(round, weights);
        m_model = PartyModel{round, round, model.size, model.size, {}, {}};
        for (size_t offset = 0; offset < model.size; offset += kSliceFloats) m_model.slices.push_back(sliceOf(model, offset));
    }

    // The party's workers see the party's rounds as versions (the global server's count other
    // things under mixed_sync and hfa, and workers push for round = their model's version + 1).
    // Workers whose pull it answers get each slice as soon as it is here.
    void onSlice(ModelSlice slice) {
        if (m_policy->onUpstreamSlice(slice)) return;
        // The global server's slices are checked too: one of another model's size, or of a version
        // no run reaches, would have the party's model assembled past its end.
        if (slice.total != m_shardSize || slice.version > kMostVersions)
            return (void)m_log.reject(QStringLiteral("the global server"),
                                      QStringLiteral("a model slice of %1 floats (version %2); this party's shard has %3")
                                          .arg(slice.total)
                                          .arg(slice.version)
                                          .arg(m_shardSize));
        if (slice.version < m_tier.globalVersion) return;
        // A second answer to the same push (sent again to a restarted global server that had it).
        if (slice.version == m_tier.globalVersion && m_model.complete()) return;
        if (slice.version > m_tier.globalVersion) {
            m_tier.globalVersion = slice.version;
            // Left behind (fault_policy continue: this server was down while the other parties went
            // on; a quorum closed global rounds without its late pushes; client sampling drew none
            // of its workers): the party's rounds go on from the global model's, and its workers
            // with them. (Otherwise its next push would be late again, or answered by the model it
            // has and never answered at all.) Not where the global server applies pushes as they
            // come (mixed_sync): its versions count every party's pushes, not rounds.
            const TrainingSettings& s = m_ctx.training();
            if (s.continuesThroughFailures() || samplesClients(m_ctx.topology) || ModeRegistry::policy(s.mode).global == TierSync::Rounds)
                m_tier.pushedRound = std::max(m_tier.pushedRound, slice.version * s.workerPushesPerRound() / s.globalStepsPerRound());
            m_model = PartyModel{m_tier.pushedRound, m_tier.pushedRound, slice.total, 0, {}, {}};
            m_tier.newestVersion = std::max(m_tier.newestVersion, slice.version);
            reportTraffic();
        }
        // A second copy of a slice (a restarted global server's answer again) counts once.
        if (std::any_of(m_model.slices.begin(), m_model.slices.end(), [&](const ModelSlice& s) { return s.offset == slice.offset; }))
            return;
        slice.version = m_model.version;
        for (const QString& peer : m_model.forwarding) m_workers.send(peer, slice.toMessage(message::kModel));
        m_model.received += slice.floats.size;
        m_model.slices.push_back(std::move(slice));
        if (!m_model.complete()) return;
        m_policy->onGlobalModel();
        noteServed(m_model.forwarding);
    }

    void serveWaitingPulls() {
        const QStringList ready = m_pulls.take(m_model.round);
        for (const QString& peer : ready)
            for (const ModelSlice& s : m_model.slices) m_workers.send(peer, s.toMessage(message::kModel));
        if (m_model.complete()) noteServed(ready);
        else m_model.forwarding += ready;
    }

    // Every worker has had the final model, but those down (fault_policy continue): they may
    // still come back for it until then.
    bool everyWorkerServed() const {
        qsizetype waiting = 0;
        for (const QString& w : m_tier.workerIds) waiting += !m_servedFinal.contains(w) && !m_down.contains(w);
        return waiting == 0;
    }

    void noteServed(const QStringList& peers) {
        if (m_model.round < m_ctx.training().rounds * m_ctx.training().workerPushesPerRound()) return;
        for (const QString& p : peers)
            if (m_tier.workerIds.contains(p)) m_servedFinal.insert(p);
    }

    void reportTraffic() {
        if (!m_tier.upstream) return;
        QCborMap f = trafficFields(m_workers, m_tier.upstream);
        // The global round, as every other role's records count (the party's own rounds are its
        // workers' pushes: local_iters of them a global round in ssgd and esync, k2 in hfa).
        const qint64 perRound = std::max<qint64>(1, m_ctx.training().workerPushesPerRound());
        f.insert(QStringLiteral("round"), (m_model.round + perRound - 1) / perRound);
        f.insert(metric::kLatePushes, qint64(m_tier.latePushes));
        f.insert(metric::kOverclaims, qint64(m_tier.overclaims));
        m_ctx.metrics.report(metric::kTraffic, f);
    }

    RoleContext& m_ctx;
    QString m_endpoint;
    Channel m_workers;
    SchedulerClient m_partyScheduler, m_globalScheduler;
    PartyModel m_model;
    PendingPulls m_pulls;
    ModelBufferPool m_pool;
    PartyTier m_tier{m_ctx, m_workers, nullptr, m_model, m_pulls, m_pool, {}, 0, -1, 0, 0, 0, {}, {}};
    std::unique_ptr<PartyPolicy> m_policy;
    QSet<QString> m_servedFinal, m_down;
    RejectionLog m_log{m_ctx.node.id};
    size_t m_shardSize = 0;  // of the model, this server's (its global server's)
    static constexpr qint64 kMostVersions = qint64(1) << 40;
};

}  // namespace

int runPartyServer(RoleContext& ctx) {
    return PartyServer(ctx).run();
}

}  // namespace hips
