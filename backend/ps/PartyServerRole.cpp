#include "PartyServerRole.h"

#include "AsyncPushes.h"
#include "ModeRegistry.h"
#include "PendingPulls.h"
#include "RoleError.h"
#include "RoundCollector.h"
#include "SchedulerClient.h"
#include "SchedulerRole.h"
#include "VectorMath.h"
#include "Vocabulary.h"

#include <QQueue>
#include <QSet>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// HFA's state at a party server (a namespace-level type: clang wants an optional's aggregate
// complete, default member initialisers included, before the class that holds it is).
struct Hfa {
    qint64 syncsPerGlobal = 1;
    float share = 1;
    FloatBuffer partyWeights, globalWeights;
};

class PartyServer {
public:
    explicit PartyServer(RoleContext& ctx)
        : m_ctx(ctx), m_endpoint(ctx.topology.endpoint(ctx.node)),
          m_workers(Channel::router(ctx.zmq, ctx.node.id, m_endpoint)),
          m_partyScheduler(ctx, ctx.scheduler(false), m_endpoint),
          m_globalScheduler(ctx, ctx.scheduler(true), m_endpoint) {}

    int run() {
        for (const PeerInfo& p : m_partyScheduler.join())
            if (p.role == QLatin1String("worker")) m_workerIds.insert(p.id);
        const PeerInfo global = SchedulerClient::find(m_globalScheduler.join(), QStringLiteral("global_server"));
        Channel upstream = Channel::dealer(m_ctx.zmq, m_ctx.node.id, global.endpoint, global.id);
        m_upstream = &upstream;
        RoundCollector collector(m_ctx.node.id, m_workerIds, makeAggregationRule(m_ctx.training()),
                                 m_ctx.training().quorumOf(int(m_workerIds.size())));
        collector.foldOnArrival([this] { return RoundCollector::FoldTarget{m_pool.acquire(m_model.total), nullptr}; });
        const ModePolicy policy = ModeRegistry::policy(m_ctx.training().mode);
        if (policy.party == TierSync::AsPushesCome) m_forwarding.emplace(m_ctx.node.id, m_workerIds);
        if (policy.hierarchicalFrequency) {
            m_hfa.emplace();
            m_hfa->syncsPerGlobal = qint64(m_ctx.training().param(QStringLiteral("k2")));
            m_hfa->share = float(m_workerIds.size()) / float(m_ctx.topology.trainingWorkerCount());
        }
        // A resumed run goes on from the checkpoint's round: the party's rounds count on from it.
        m_pushedRound = m_ctx.training().resumeRound * m_ctx.training().workerPushesPerRound();
        upstream.send(Message(message::kPull, {{QStringLiteral("version"), 0}}));

        while (m_servedFinal.size() < m_workerIds.size()) {
            m_partyScheduler.throwIfAborted();
            m_globalScheduler.throwIfAborted();
            // No deadline: a round lasts as long as its slowest worker computes; a peer that dies or
            // hangs is found by the heartbeats (throwIfAborted).
            const int ready = pollChannels({&m_workers, &upstream}, 200ms);
            if (ready < 0) continue;
            if (ready == 1) {
                if (auto e = upstream.receive(0ms); e && e->message.type == message::kModel)
                    if (auto slice = ModelSlice::fromMessage(std::move(e->message), e->peer)) onSlice(std::move(*slice));
            } else if (auto e = m_workers.receive(0ms)) {
                if (!m_workerIds.contains(e->peer)) {  // the model and the round are for this party's workers only
                    m_log.reject(e->peer, QStringLiteral("'%1' from a node that is not a worker of this party").arg(e->message.type));
                } else if (e->message.type == message::kPush && m_forwarding) {
                    forward(*e);
                } else if (e->message.type == message::kPush) {
                    collect(*e, collector);
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
    // A round of the party (synchronous inside it): every worker's push folded into the party's
    // sum, which goes up slice by slice as each is final. The round is the party's own count, so
    // the global tier may run rounds (fedavg) or take each party's sum as it comes (mixed_sync).
    void collect(Envelope& e, RoundCollector& collector) {
        const qint64 round = m_model.round + 1;
        if (e.message.fields.value(QStringLiteral("pull")).toBool())
            m_pulls.add(e.peer, e.message.integer(QStringLiteral("round")));
        const bool complete = m_model.version >= 0 && collector.add(e, round, m_model.total);
        m_latePushes = collector.late();
        if (const auto slice = collector.takeFinalSlice(); slice && !m_hfa) {
            m_pushedRound = round;
            m_streamedSlices = true;
            sendPushSlice(*m_upstream, round, m_globalVersion, collector.foldBuffer(), *slice, true, {}, collector.openWeight());
        }
        if (!complete) return;
        FloatBuffer sum = collector.takeFolded();
        if (std::exchange(m_streamedSlices, false)) return;  // it went up slice by slice
        if (!sum) {  // a rule that does not fold: the sum at the end
            sum = m_pool.acquire(m_model.total);
            collector.write(sum->data(), nullptr, 0, m_model.total);
        }
        if (m_hfa) return hfaSync(round, sum);
        m_pushedRound = round;
        sendPush(*m_upstream, round, m_globalVersion, sum, true, {}, collector.roundWeight());
    }

    // HFA: the party's model moves by its workers' average every party sync; every k2-th sync,
    // the party's progress since the last global model goes up, weighted by the party's share of
    // the workers, so the global sum is the workers-weighted average of the party models.
    void hfaSync(qint64 round, const FloatBuffer& sum) {
        const size_t n = m_model.total;
        FloatBuffer next = m_pool.acquire(n);
        sumInto(next->data(), m_hfa->partyWeights->data(), sum->data(), n);
        m_hfa->partyWeights = next;
        if (round % m_hfa->syncsPerGlobal != 0) return publish(round, next);
        FloatBuffer up = m_pool.acquire(n);
        for (size_t i = 0; i < n; ++i) (*up)[i] = ((*next)[i] - (*m_hfa->globalWeights)[i]) * m_hfa->share;
        m_pushedRound = round;
        sendPush(*m_upstream, round / m_hfa->syncsPerGlobal, m_globalVersion, up, true);
    }

    // A model made here (an HFA party sync) becomes the one the party's workers pull.
    void publish(qint64 round, const FloatBuffer& weights) {
        const ModelVersion model = ModelVersion::fromBuffer(round, weights);
        m_model = IncomingModel{round, round, model.size, model.size, {}, {}};
        for (size_t offset = 0; offset < model.size; offset += kSliceFloats) m_model.slices.push_back(sliceOf(model, offset));
    }

    // Asynchronous inside the party (asgd, dcasgd): each worker's push goes up alone as soon as it
    // is whole, and the global server's answer to it goes back to that worker. The global server
    // answers a contributor's pushes in order, so the answers come in the order of m_awaiting.
    struct Forwarding {
        Forwarding(const QString& self, const QSet<QString>& workers) : pushes(self, workers) {}
        AsyncPushes pushes;
        QQueue<QString> awaiting;
        QHash<QString, qint64> answered;
        qint64 sent = 0, answeredAll = 0;
        std::optional<ModelAssembler> answers;
    };

    void forward(Envelope& e) {
        if (!m_model.complete()) {
            m_log.reject(e.peer, QStringLiteral("a push before the initial model"));
            return;
        }
        std::optional<WholePush> push = m_forwarding->pushes.add(e, m_model.total, m_newestVersion);
        if (!push) return;
        // A refused push (not finite) goes up as no change, so that its worker is still answered.
        FloatBuffer values = push->values ? push->values : std::make_shared<std::vector<float>>(m_model.total, 0.0f);
        sendPush(*m_upstream, ++m_forwarding->sent, push->base, values, true, push->sender);
        m_forwarding->awaiting.enqueue(push->sender);
    }

    void onAnswer(const ModelSlice& slice) {
        if (!m_forwarding->answers) m_forwarding->answers.emplace(m_model.total);
        std::optional<ModelVersion> model = m_forwarding->answers->add(slice);
        if (!model) return;
        if (m_forwarding->awaiting.isEmpty()) {
            m_log.reject(QStringLiteral("the global server"), QStringLiteral("a model no worker of this party waits for"));
            return;
        }
        const QString worker = m_forwarding->awaiting.dequeue();
        m_newestVersion = std::max(m_newestVersion, model->version);
        sendModel(m_workers, worker, *model, message::kModel);
        if (++m_forwarding->answered[worker] >= m_ctx.training().rounds) m_servedFinal.insert(worker);
        if (++m_forwarding->answeredAll % m_workerIds.size() == 0) {  // a round's worth of pushes
            QCborMap f = trafficFields(m_workers, m_upstream);
            f.insert(QStringLiteral("round"), m_forwarding->answeredAll / m_workerIds.size());
            m_ctx.metrics.report(metric::kTraffic, f);
        }
    }

    // The model as it arrives from the global server, slice by slice. Workers whose pull it
    // answers get each slice as soon as it is here.
    struct IncomingModel {
        qint64 version = -1;
        qint64 round = 0;  // the party round whose push this model answers (0: the initial model)
        size_t total = 0, received = 0;
        std::vector<ModelSlice> slices;
        QStringList forwarding;  // pullers being served this version as it arrives
        bool complete() const { return received == total && total > 0; }
    };

    // The party's workers see the party's rounds as versions (the global server's count other
    // things under mixed_sync and hfa, and workers push for round = their model's version + 1);
    // under HFA the global model is also kept whole here, as the base of the party's syncs.
    void onSlice(ModelSlice slice) {
        if (m_forwarding && m_model.complete()) return onAnswer(slice);  // after the initial model: answers
        if (slice.version < m_globalVersion) return;
        if (slice.version > m_globalVersion) {
            m_globalVersion = slice.version;
            m_model = IncomingModel{m_pushedRound, m_pushedRound, slice.total, 0, {}, {}};
            m_newestVersion = std::max(m_newestVersion, slice.version);
            if (m_hfa) m_hfa->globalWeights = m_pool.acquire(slice.total);
            reportTraffic();
        }
        if (m_hfa) std::copy(slice.floats.data, slice.floats.data + slice.floats.size, m_hfa->globalWeights->data() + slice.offset);
        slice.version = m_model.version;
        for (const QString& peer : m_model.forwarding) m_workers.send(peer, slice.toMessage(message::kModel));
        m_model.received += slice.floats.size;
        m_model.slices.push_back(std::move(slice));
        if (!m_model.complete()) return;
        if (m_hfa) m_hfa->partyWeights = m_hfa->globalWeights;
        noteServed(m_model.forwarding);
    }

    void serveWaitingPulls() {
        const QStringList ready = m_pulls.take(m_model.round);
        for (const QString& peer : ready)
            for (const ModelSlice& s : m_model.slices) m_workers.send(peer, s.toMessage(message::kModel));
        if (m_model.complete()) noteServed(ready);
        else m_model.forwarding += ready;
    }

    void noteServed(const QStringList& peers) {
        if (m_model.round < m_ctx.training().rounds * m_ctx.training().workerPushesPerRound()) return;
        for (const QString& p : peers)
            if (m_workerIds.contains(p)) m_servedFinal.insert(p);
    }

    void reportTraffic() {
        if (m_upstream) reportTraffic(*m_upstream);
    }

    void reportTraffic(const Channel& upstream) {
        QCborMap f = trafficFields(m_workers, &upstream);
        f.insert(QStringLiteral("round"), m_model.round);
        f.insert(metric::kLatePushes, qint64(m_latePushes));
        m_ctx.metrics.report(metric::kTraffic, f);
    }

    RoleContext& m_ctx;
    QString m_endpoint;
    Channel m_workers;
    SchedulerClient m_partyScheduler, m_globalScheduler;
    IncomingModel m_model;
    qint64 m_pushedRound = 0, m_newestVersion = 0, m_globalVersion = -1;
    quint64 m_latePushes = 0;
    bool m_streamedSlices = false;  // this round's sum went up slice by slice (every worker counts)
    PendingPulls m_pulls;
    ModelBufferPool m_pool;
    QSet<QString> m_workerIds, m_servedFinal;
    RejectionLog m_log{m_ctx.node.id};
    Channel* m_upstream = nullptr;
    std::optional<Forwarding> m_forwarding;  // set in the asynchronous modes
    std::optional<Hfa> m_hfa;                // set in mode hfa
};

}  // namespace

int runPartyServer(RoleContext& ctx) { return PartyServer(ctx).run(); }

}  // namespace hips
