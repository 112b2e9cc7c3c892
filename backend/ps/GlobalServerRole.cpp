#include "GlobalServerRole.h"

#include "PendingPulls.h"
#include "RoleError.h"
#include "RoundCollector.h"
#include "SchedulerClient.h"
#include "VectorMath.h"
#include "Vocabulary.h"


namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

class GlobalServer {
public:
    explicit GlobalServer(RoleContext& ctx)
        : m_ctx(ctx), m_endpoint(ctx.topology.endpoint(ctx.node)),
          m_channel(Channel::router(ctx.zmq, ctx.node.id, m_endpoint)),
          m_scheduler(ctx, ctx.scheduler(true), m_endpoint) {}

    int run() {
        QSet<QString> contributors;
        for (const PeerInfo& p : m_scheduler.join()) {
            if (p.role == QLatin1String("server") || p.role == QLatin1String("worker")) contributors.insert(p.id);
            if (p.role == QLatin1String("master_worker")) m_master = p.id;
        }
        m_contributors = contributors;
        RoundCollector collector(m_ctx.node.id, contributors, makeAggregator(m_ctx.training()));
        collector.foldOnArrival([this] { return RoundCollector::FoldTarget{m_pool.acquire(m_model.size), m_model.data}; });
        auto lastProgress = Clock::now();
        auto roundStart = Clock::now();
        while (m_servedFinal.size() < contributors.size() || !m_masterHasFinal) {
            m_scheduler.throwIfAborted();
            auto e = m_channel.receive(200ms);
            if (!e) {
                if (Clock::now() - lastProgress > m_ctx.replyTimeout())
                    throw RoleError("no push or pull for " + std::to_string(m_ctx.training().replyTimeoutS) +
                                    " s while waiting for round " + std::to_string(m_model.version + 1));
                continue;
            }
            lastProgress = Clock::now();
            const QString& type = e->message.type;
            if (type == message::kInit) onInit(*e);
            else if (type == message::kPull) addPull(e->peer, e->message.integer(QStringLiteral("version")));
            else if (type == message::kPush) {
                if (e->message.fields.value(QStringLiteral("pull")).toBool())
                    addPull(e->peer, e->message.integer(QStringLiteral("round")));
                const bool complete = m_model.version >= 0 && collector.add(*e, m_model.version + 1, m_model.size);
                if (const auto slice = collector.takeFinalSlice())  // out before the round is complete
                    m_streamer.sliceFinal(m_channel, m_pulls.waiting(m_model.version + 1), m_model.version + 1,
                                          collector.foldBuffer(), *slice);
                if (complete) {
                    apply(collector, roundStart);
                    roundStart = Clock::now();
                }
            } else {
                m_log.reject(e->peer, QStringLiteral("unexpected message '%1'").arg(type));
            }
            if (m_model.version >= 0) {
                const QStringList ready = m_pulls.take(m_model.version);
                for (const QString& peer : ready) sendModel(m_channel, peer, m_model, message::kModel);
                noteServed(ready);
            }
        }
        m_scheduler.leave();
        m_channel.lingerOnClose(5s);
        return kRoleOk;
    }

private:
    // The model goes only to the nodes this server serves: the party servers, the central
    // workers and the master. Anyone else's pull is refused, not answered.
    void addPull(const QString& peer, qint64 version) {
        if (m_contributors.contains(peer) || peer == m_master) m_pulls.add(peer, version);
        else m_log.reject(peer, QStringLiteral("a pull from a node this server does not serve"));
    }

    void onInit(Envelope& e) {
        const size_t expected = modelParameterCount(m_ctx.training().model) * sizeof(float);
        if (e.peer != m_master || m_model.version >= 0 || e.message.frames.size() != 1 ||
            (expected > 0 && e.message.frames[0].size() != expected)) {
            m_log.reject(e.peer, QStringLiteral("an init not from the master, a second init, or not one frame of the model"));
            return;
        }
        ModelVersion initial = ModelVersion::fromFrame(0, std::move(e.message.frames[0]));
        if (!allFinite(initial.data, initial.size)) {
            m_log.reject(e.peer, QStringLiteral("an initial model with NaN or infinite values"));
            return;
        }
        m_model = std::move(initial);
        m_ctx.metrics.report(metric::kModelInit, {{QStringLiteral("parameters"), qint64(m_model.size)}});
    }

    void noteServed(const QStringList& peers) {
        if (m_model.version < m_ctx.training().rounds) return;
        for (const QString& p : peers)
            if (m_contributors.contains(p)) m_servedFinal.insert(p);
    }

    // w ← w + ΣΔ into a pooled buffer (the old one may still be on its way to a peer), each
    // slice sent to the waiting pullers as soon as it is computed.
    void apply(RoundCollector& round, Clock::time_point roundStart) {
        const auto start = Clock::now();
        const QStringList ready = m_pulls.take(m_model.version + 1);
        m_model = applyAndSend(m_channel, m_model, round, ready, m_pool, &m_streamer);
        noteServed(ready);
        const double applySeconds = std::chrono::duration<double>(Clock::now() - start).count();
        const qint64 v = m_model.version;
        m_ctx.metrics.report(metric::kAggregate,
                             {{metric::kRound, v}, {metric::kApplySeconds, applySeconds},
                              {metric::kRoundSeconds, std::chrono::duration<double>(Clock::now() - roundStart).count()}});
        QCborMap traffic = trafficFields(m_channel);
        traffic.insert(QStringLiteral("round"), v);
        m_ctx.metrics.report(metric::kTraffic, traffic);
        const bool final = v >= m_ctx.training().rounds;
        if (final || v % m_ctx.training().evalEvery == 0) {
            sendModel(m_channel, m_master, m_model, QStringLiteral("snapshot"));
            m_masterHasFinal = final;
        }
    }

    RoleContext& m_ctx;
    QString m_endpoint;
    Channel m_channel;
    SchedulerClient m_scheduler;
    QString m_master;
    ModelVersion m_model;
    PendingPulls m_pulls;
    ModelBufferPool m_pool;
    ModelStreamer m_streamer;
    QSet<QString> m_contributors, m_servedFinal;
    RejectionLog m_log{m_ctx.node.id};
    bool m_masterHasFinal = false;
};

}  // namespace

int runGlobalServer(RoleContext& ctx) { return GlobalServer(ctx).run(); }

}  // namespace hips
