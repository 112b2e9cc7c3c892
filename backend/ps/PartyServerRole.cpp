#include "PartyServerRole.h"

#include "RoleError.h"
#include "SchedulerClient.h"
#include "SchedulerRole.h"
#include "ServerCommon.h"
#include "PendingPulls.h"

#include <QSet>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

Node schedulerOf(const Topology& t, RoleKind kind, const QString& party) {
    for (const Node& n : t.nodes())
        if (n.kind == kind && (kind == RoleKind::GlobalScheduler || n.party == party)) return n;
    throw RoleError("the topology has no scheduler for party " + party.toStdString());
}

class PartyServer {
public:
    explicit PartyServer(RoleContext& ctx)
        : m_ctx(ctx), m_endpoint(ctx.topology.endpoint(ctx.node)),
          m_workers(Channel::router(ctx.zmq, ctx.node.id, m_endpoint)),
          m_partyScheduler(ctx, schedulerOf(ctx.topology, RoleKind::Scheduler, ctx.node.party), m_endpoint),
          m_globalScheduler(ctx, schedulerOf(ctx.topology, RoleKind::GlobalScheduler, {}), m_endpoint) {}

    int run() {
        QSet<QString> workers;
        for (const PeerInfo& p : m_partyScheduler.join())
            if (p.role == QLatin1String("worker")) workers.insert(p.id);
        const PeerInfo global = SchedulerClient::find(m_globalScheduler.join(), QStringLiteral("global_server"));
        Channel upstream = Channel::dealer(m_ctx.zmq, m_ctx.node.id, global.endpoint, global.id);
        RoundCollector collector(m_ctx.node.id, workers, makeAggregator(m_ctx.training()));
        upstream.send(Message(QStringLiteral("pull"), {{QStringLiteral("version"), 0}}));

        const qint64 rounds = m_ctx.training().rounds;
        QSet<QString> servedFinal;
        auto lastProgress = Clock::now();
        while (servedFinal.size() < workers.size()) {
            m_partyScheduler.throwIfAborted();
            m_globalScheduler.throwIfAborted();
            const int ready = pollChannels({&m_workers, &upstream}, 200ms);
            if (ready < 0) {
                if (Clock::now() - lastProgress > m_ctx.replyTimeout())
                    throw RoleError("no message from workers or the global server for " +
                                    std::to_string(m_ctx.training().replyTimeoutS) + " s in round " +
                                    std::to_string(m_model.version + 1));
                continue;
            }
            lastProgress = Clock::now();
            if (ready == 1) {
                if (auto e = upstream.receive(0ms); e && e->message.type == QLatin1String("model") && e->message.frames.size() == 1) {
                    m_model = ModelVersion::fromFrame(e->message.integer(QStringLiteral("version")), std::move(e->message.frames[0]));
                    reportTraffic(upstream);
                }
            } else if (auto e = m_workers.receive(0ms)) {
                if (e->message.type == QLatin1String("push")) {
                    if (e->message.fields.value(QStringLiteral("pull")).toBool())
                        m_pulls.add(e->peer, e->message.integer(QStringLiteral("round")));
                    if (m_model.version >= 0 && collector.add(*e, m_model.version + 1, m_model.size)) {
                        Message push(QStringLiteral("push"), {{QStringLiteral("round"), m_model.version + 1},
                                                              {QStringLiteral("pull"), true}});
                        FloatBuffer sum = m_pool.acquire(m_model.size);
                        std::copy(collector.result(), collector.result() + m_model.size, sum->begin());
                        push.frames.push_back(floatFrame(sum));
                        upstream.send(std::move(push));
                    }
                } else if (e->message.type == QLatin1String("pull")) {
                    m_pulls.add(e->peer, e->message.integer(QStringLiteral("version")));
                }
            }
            if (m_model.version >= 0)
                m_pulls.serve(m_model.version, [&](const QString& peer) {
                    m_workers.send(peer, m_model.toMessage(QStringLiteral("model")));
                    if (m_model.version >= rounds) servedFinal.insert(peer);
                });
        }
        reportTraffic(upstream);
        m_workers.lingerOnClose(5s);
        upstream.lingerOnClose(5s);
        return kRoleOk;
    }

private:
    void reportTraffic(const Channel& upstream) {
        QCborMap f = trafficFields(m_workers, &upstream);
        f.insert(QStringLiteral("round"), m_model.version);
        m_ctx.metrics.report(QStringLiteral("traffic"), f);
    }

    RoleContext& m_ctx;
    QString m_endpoint;
    Channel m_workers;
    SchedulerClient m_partyScheduler, m_globalScheduler;
    ModelVersion m_model;
    PendingPulls m_pulls;
    ModelBufferPool m_pool;
};

}  // namespace

int runPartyServer(RoleContext& ctx) { return PartyServer(ctx).run(); }

}  // namespace hips
