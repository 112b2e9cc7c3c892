#include "PartyServerRole.h"

#include "PendingPulls.h"
#include "RoleError.h"
#include "RoundCollector.h"
#include "SchedulerClient.h"
#include "SchedulerRole.h"
#include "Vocabulary.h"

#include <QSet>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

class PartyServer {
public:
    explicit PartyServer(RoleContext& ctx)
        : m_ctx(ctx), m_endpoint(ctx.topology.endpoint(ctx.node)),
          m_workers(Channel::router(ctx.zmq, ctx.node.id, m_endpoint)),
          m_partyScheduler(ctx, ctx.scheduler(false), m_endpoint),
          m_globalScheduler(ctx, ctx.scheduler(true), m_endpoint) {}

    int run() {
        QSet<QString> workers;
        for (const PeerInfo& p : m_partyScheduler.join())
            if (p.role == QLatin1String("worker")) workers.insert(p.id);
        const PeerInfo global = SchedulerClient::find(m_globalScheduler.join(), QStringLiteral("global_server"));
        Channel upstream = Channel::dealer(m_ctx.zmq, m_ctx.node.id, global.endpoint, global.id);
        m_upstream = &upstream;
        m_workerIds = workers;
        RoundCollector collector(m_ctx.node.id, workers, makeAggregator(m_ctx.training()));
        collector.foldOnArrival([this] { return RoundCollector::FoldTarget{m_pool.acquire(m_model.total), nullptr}; });
        upstream.send(Message(message::kPull, {{QStringLiteral("version"), 0}}));

        auto lastProgress = Clock::now();
        while (m_servedFinal.size() < workers.size()) {
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
                if (auto e = upstream.receive(0ms); e && e->message.type == message::kModel)
                    if (auto slice = ModelSlice::fromMessage(std::move(e->message), e->peer)) onSlice(std::move(*slice));
            } else if (auto e = m_workers.receive(0ms)) {
                if (!workers.contains(e->peer)) {  // the model and the round are for this party's workers only
                    m_log.reject(e->peer, QStringLiteral("'%1' from a node that is not a worker of this party").arg(e->message.type));
                } else if (e->message.type == message::kPush) {
                    if (e->message.fields.value(QStringLiteral("pull")).toBool())
                        m_pulls.add(e->peer, e->message.integer(QStringLiteral("round")));
                    const bool complete = m_model.version >= 0 && collector.add(*e, m_model.version + 1, m_model.total);
                    if (const auto slice = collector.takeFinalSlice())  // the party's sum goes up slice by slice
                        sendPushSlice(upstream, m_model.version + 1, collector.foldBuffer(), *slice, true);
                    if (complete && !collector.takeFolded()) {  // a rule that does not fold: the sum at the end
                        FloatBuffer sum = m_pool.acquire(m_model.total);
                        collector.write(sum->data(), nullptr, 0, m_model.total);
                        sendPush(upstream, m_model.version + 1, sum, true);
                    }
                } else if (e->message.type == message::kPull) {
                    m_pulls.add(e->peer, e->message.integer(QStringLiteral("version")));
                } else {
                    m_log.reject(e->peer, QStringLiteral("unexpected message '%1'").arg(e->message.type));
                }
            }
            if (m_model.version >= 0) serveWaitingPulls();
        }
        reportTraffic(upstream);
        m_partyScheduler.leave();
        m_globalScheduler.leave();
        m_workers.lingerOnClose(5s);
        upstream.lingerOnClose(5s);
        return kRoleOk;
    }

private:
    // The model as it arrives from the global server, slice by slice. Workers whose pull it
    // answers get each slice as soon as it is here.
    struct IncomingModel {
        qint64 version = -1;
        size_t total = 0, received = 0;
        std::vector<ModelSlice> slices;
        QStringList forwarding;  // pullers being served this version as it arrives
        bool complete() const { return received == total && total > 0; }
    };

    void onSlice(ModelSlice slice) {
        if (slice.version < m_model.version) return;
        if (slice.version > m_model.version) {
            m_model = IncomingModel{slice.version, slice.total, 0, {}, {}};
            reportTraffic();
        }
        for (const QString& peer : m_model.forwarding) m_workers.send(peer, slice.toMessage(message::kModel));
        m_model.received += slice.floats.size;
        m_model.slices.push_back(std::move(slice));
        if (m_model.complete()) noteServed(m_model.forwarding);
    }

    void serveWaitingPulls() {
        const QStringList ready = m_pulls.take(m_model.version);
        for (const QString& peer : ready)
            for (const ModelSlice& s : m_model.slices) m_workers.send(peer, s.toMessage(message::kModel));
        if (m_model.complete()) noteServed(ready);
        else m_model.forwarding += ready;
    }

    void noteServed(const QStringList& peers) {
        if (m_model.version < m_ctx.training().rounds) return;
        for (const QString& p : peers)
            if (m_workerIds.contains(p)) m_servedFinal.insert(p);
    }

    void reportTraffic() {
        if (m_upstream) reportTraffic(*m_upstream);
    }

    void reportTraffic(const Channel& upstream) {
        QCborMap f = trafficFields(m_workers, &upstream);
        f.insert(QStringLiteral("round"), m_model.version);
        m_ctx.metrics.report(metric::kTraffic, f);
    }

    RoleContext& m_ctx;
    QString m_endpoint;
    Channel m_workers;
    SchedulerClient m_partyScheduler, m_globalScheduler;
    IncomingModel m_model;
    PendingPulls m_pulls;
    ModelBufferPool m_pool;
    QSet<QString> m_workerIds, m_servedFinal;
    RejectionLog m_log{m_ctx.node.id};
    const Channel* m_upstream = nullptr;
};

}  // namespace

int runPartyServer(RoleContext& ctx) { return PartyServer(ctx).run(); }

}  // namespace hips
