#include "GlobalServerRole.h"

#include "AsyncGlobalTier.h"
#include "Checkpoint.h"
#include "ModeRegistry.h"
#include "PendingPulls.h"
#include "RoleError.h"
#include "ServerOptimizer.h"
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
        std::optional<AsyncGlobalTier> async;  // the asynchronous modes' policy, else rounds
        if (ModeRegistry::policy(m_ctx.training().mode).global == TierSync::AsPushesCome) async.emplace(m_ctx, contributors);
        RoundCollector collector(m_ctx.node.id, contributors, makeAggregationRule(m_ctx.training()),
                                 m_ctx.training().quorumOf(int(contributors.size())));
        const ModePolicy policy = ModeRegistry::policy(m_ctx.training().mode);
        if (policy.gradientEveryStep)  // pushes are gradients: their sum, then the optimizer's step
            m_optimizer.emplace(float(m_ctx.training().learningRate), float(m_ctx.training().momentum));
        if (m_ctx.training().resumeRound > 0) resume();
        collector.foldOnArrival([this] {
            return RoundCollector::FoldTarget{m_pool.acquire(m_model.size), m_optimizer ? nullptr : m_model.data};
        });
        auto roundStart = Clock::now();
        while (m_servedFinal.size() < contributors.size() || !m_masterHasFinal) {
            m_scheduler.throwIfAborted();
            // No deadline for pushes: a round lasts as long as its slowest contributor computes;
            // a contributor that dies or hangs is found by the heartbeats (throwIfAborted).
            auto e = m_channel.receive(200ms);
            if (!e) continue;
            const QString& type = e->message.type;
            if (type == message::kInit) onInit(*e);
            else if (type == message::kPull) addPull(e->peer, e->message.integer(QStringLiteral("version")));
            else if (type == message::kPush && async) {
                onAsyncPush(*async, *e, roundStart);
            } else if (type == message::kPush) {
                if (e->message.fields.value(QStringLiteral("pull")).toBool())
                    addPull(e->peer, e->message.integer(QStringLiteral("round")));
                const bool complete = m_model.version >= 0 && collector.add(*e, m_model.version + 1, m_model.size);
                if (const auto slice = collector.takeFinalSlice(); slice && !m_optimizer)  // out before the round is complete
                    m_streamer.sliceFinal(m_channel, m_pulls.waiting(m_model.version + 1), m_model.version + 1,
                                          collector.foldBuffer(), *slice);
                if (complete) {
                    m_latePushes = collector.late();
                    apply(collector, roundStart);
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
        const size_t expected = modelParameterCount(m_ctx.training()) * sizeof(float);
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

    // The model (and the optimizer's state) of the checkpoint the run resumes from, in place of
    // the master's initial model.
    void resume() {
        QString error;
        std::optional<Checkpoint> c =
            readCheckpoint(m_ctx.outDir, m_ctx.training(), modelParameterCount(m_ctx.training()), &error);
        if (!c) throw RoleError("cannot resume: " + error.toStdString());
        if (c->round != m_ctx.training().resumeRound)
            throw RoleError("cannot resume from round " + std::to_string(m_ctx.training().resumeRound) +
                            ": the checkpoint in " + m_ctx.outDir.toStdString() + " is of round " + std::to_string(c->round));
        if (m_optimizer && !c->optimizer.empty()) m_optimizer->setVelocity(std::move(c->optimizer));
        auto weights = std::make_shared<std::vector<float>>(std::move(c->model));
        m_model = ModelVersion::fromBuffer(c->version, weights);
        m_ctx.metrics.report(metric::kModelInit, {{QStringLiteral("parameters"), qint64(m_model.size)},
                                                   {QStringLiteral("resumed_round"), c->round}});
    }

    // Every checkpoint_every rounds. A checkpoint that cannot be written is a warning: the run
    // goes on, and the previous checkpoint stays the one to resume from.
    void keepCheckpoint(qint64 round) {
        const int every = m_ctx.training().checkpointEvery;
        if (every <= 0 || round % every != 0 || !ModeRegistry::policy(m_ctx.training().mode).resumable()) return;
        Checkpoint c{round, m_model.version, std::vector<float>(m_model.data, m_model.data + m_model.size),
                     m_optimizer ? m_optimizer->velocity() : std::vector<float>{}};
        if (const QString e = writeCheckpoint(m_ctx.outDir, c, m_ctx.training()); !e.isEmpty())
            std::fprintf(stderr, "checkpoint of round %lld not kept: %s\n", static_cast<long long>(round), qPrintable(e));
    }

    void noteServed(const QStringList& peers) {
        if (m_model.version < m_ctx.training().rounds * m_ctx.training().globalStepsPerRound()) return;
        for (const QString& p : peers)
            if (m_contributors.contains(p)) m_servedFinal.insert(p);
    }

    // w ← w + ΣΔ into a pooled buffer (the old one may still be on its way to a peer), each
    // slice sent to the waiting pullers as soon as it is computed.
    // Under synchronous SGD the round's result is the gradient sum, which the optimizer turns
    // into the next weights.
    void apply(RoundCollector& round, Clock::time_point& roundStart) {
        const auto start = Clock::now();
        const QStringList ready = m_pulls.take(m_model.version + 1);
        if (m_optimizer) {
            FloatBuffer gradient = round.takeFolded();
            if (!gradient) {  // a rule that does not fold
                gradient = m_pool.acquire(m_model.size);
                round.write(gradient->data(), nullptr, 0, m_model.size);
            }
            FloatBuffer next = m_pool.acquire(m_model.size);
            m_optimizer->step(next->data(), m_model.data, gradient->data(), m_model.size);
            m_model = ModelVersion::fromBuffer(m_model.version + 1, next);
            for (const QString& peer : ready) sendModel(m_channel, peer, m_model, message::kModel);
        } else {
            m_model = applyAndSend(m_channel, m_model, round, ready, m_pool, &m_streamer);
        }
        noteServed(ready);
        m_applySeconds += std::chrono::duration<double>(Clock::now() - start).count();
        const qint64 pushes = m_ctx.training().globalStepsPerRound();  // a round of synchronous SGD is many steps
        if (m_model.version % pushes == 0) roundDone(m_model.version / pushes, roundStart);
    }

    // One push applied as it came; its sender gets the new model at once (asynchronous modes).
    void onAsyncPush(AsyncGlobalTier& tier, Envelope& e, Clock::time_point& roundStart) {
        if (m_model.version < 0) {
            m_log.reject(e.peer, QStringLiteral("a push before the initial model"));
            return;
        }
        const auto start = Clock::now();
        const auto applied = tier.add(e, m_model, m_pool);
        if (!applied) return;
        sendModel(m_channel, applied->sender, m_model, message::kModel);
        if (applied->senderDone) m_servedFinal.insert(applied->sender);
        m_applySeconds += std::chrono::duration<double>(Clock::now() - start).count();
        m_ctx.metrics.report(metric::kAsyncPush,
                             {{QStringLiteral("from"), applied->sender}, {QStringLiteral("origin"), applied->origin},
                              {QStringLiteral("version"), m_model.version},
                              {metric::kStaleness, applied->staleness}, {QStringLiteral("refused"), applied->refused},
                              {QStringLiteral("compensated"), applied->compensated}});
        if (applied->roundDone) roundDone(*applied->roundDone, roundStart);
    }

    // A round's metrics, and the model to the master every eval_every rounds and at the end,
    // labelled with the round (in the asynchronous modes the version counts pushes).
    void roundDone(qint64 round, Clock::time_point& roundStart) {
        m_ctx.metrics.report(metric::kAggregate,
                             {{metric::kRound, round}, {metric::kApplySeconds, std::exchange(m_applySeconds, 0.0)},
                              {metric::kLatePushes, qint64(m_latePushes)},
                              {metric::kRoundSeconds, std::chrono::duration<double>(Clock::now() - roundStart).count()}});
        roundStart = Clock::now();
        keepCheckpoint(round);
        QCborMap traffic = trafficFields(m_channel);
        traffic.insert(QStringLiteral("round"), round);
        m_ctx.metrics.report(metric::kTraffic, traffic);
        const bool final = round >= m_ctx.training().rounds;
        if (final || round % m_ctx.training().evalEvery == 0) {
            ModelVersion snapshot = m_model;
            snapshot.version = round;
            sendModel(m_channel, m_master, snapshot, QStringLiteral("snapshot"));
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
    double m_applySeconds = 0;  // this round's, so far
    quint64 m_latePushes = 0;   // so far in the run
    std::optional<MomentumSgd> m_optimizer;  // synchronous SGD: the optimizer lives here
};

}  // namespace

int runGlobalServer(RoleContext& ctx) { return GlobalServer(ctx).run(); }

}  // namespace hips
