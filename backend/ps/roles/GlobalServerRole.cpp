#include "GlobalServerRole.h"

#include "Checkpoint.h"
#include "GlobalPolicies.h"
#include "LinkCodecs.h"
#include "ModeRegistry.h"
#include "PrivateFiles.h"
#include "RecoveryCopy.h"
#include "RoleError.h"
#include "SchedulerClient.h"
#include "ShardedLinks.h"
#include "VectorMath.h"
#include "Vocabulary.h"
#include "WanLinks.h"
#include "RoleScope.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cstdio>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

class GlobalServer {
public:
    explicit GlobalServer(RoleContext& ctx)
        : m_ctx(ctx),
          m_endpoint(ctx.topology.endpoint(ctx.node)),
          m_channel(Channel::router(ctx.zmq, ctx.node.id, m_endpoint)),
          m_scheduler(ctx, ctx.scheduler(true), m_endpoint),
          m_codecs(makeLinkCodecs(ctx)) {
        m_channel.setPayloadTransform(m_codecs);
        m_channel.setLinkShaper(makeWanShaper(ctx));
    }

    int run() {
        m_scheduler.watchMembership();  // (from the join on: a restarted one is told who is down then)
        for (const PeerInfo& p : m_scheduler.join()) {
            // Key slicing: the party servers of this server's rank relay to it (their shard is its).
            const bool relaysHere =
                p.role == QLatin1String("server") && m_ctx.topology.node(p.id) && m_ctx.topology.node(p.id)->rank == m_ctx.node.rank;
            if (relaysHere || p.role == QLatin1String("worker")) m_tier.contributors.insert(p.id);
            if (p.role == QLatin1String("master_worker")) m_master = p.id;
        }
        if (m_codecs) m_codecs->setAggregateOf(size_t(m_tier.contributors.size()));
        m_tier.addPull = [this](const QString& peer, qint64 version) { addPull(peer, version); };
        m_tier.served = [this](const QStringList& peers) { noteServed(peers); };
        m_tier.done = [this](const QString& peer) { m_servedFinal.insert(peer); };
        m_tier.roundDone = [this](qint64 round) { roundDone(round); };
        m_policy = makeGlobalPolicy(m_tier);
        if (!m_ctx.node.standbyHost.isEmpty() && !recoversGlobalServer(m_ctx.training()))
            throw RoleError("a standby host takes over from a recovery point, and this run's global server keeps none (mode " +
                            m_ctx.training().mode.toStdString() + ", aggregation " + m_ctx.training().aggregation.toStdString() +
                            "); remove standby_host, or run fedavg or ssgd with a rule that folds pushes as they come");
        if (recoversGlobalServer(m_ctx.training())) m_tier.beforePublish = [this] { keepRecoveryPoint(); };
        if (!recover() && m_ctx.training().resumeRound > 0) resume();
        if (m_tier.beforePublish && QFileInfo::exists(finishedMark())) return finishedBefore();
        m_roundStart = Clock::now();
        m_scheduler.watchWorkThread();
        while (!everyContributorServed() || !m_masterHasFinal) {
            m_scheduler.throwIfAborted();
            for (const MembershipChange& c : m_scheduler.takeMembershipChanges()) onMembership(c);
            m_policy->onTick(Clock::now());
            auto e = m_channel.receive(200ms);
            if (!e) continue;
            const QString& type = e->message.type;
            if (type == message::kInit) onInit(*e);
            else if (type == message::kPull) onPull(*e);
            else if (type == message::kPush) onPush(*e);
            else if (type == message::kEvaluated && e->peer == m_master)
                m_masterHasFinal = e->message.integer(QStringLiteral("round")) >= m_ctx.training().rounds;
            else if (!m_policy->onProtocolMessage(*e)) m_log.reject(e->peer, QStringLiteral("unexpected message '%1'").arg(type));
            if (m_model.version >= 0) {
                const QStringList ready = m_pulls.take(m_model.version);
                for (const QString& peer : ready) sendModel(m_channel, peer, m_model, message::kModel);
                noteServed(ready);
            }
        }
        // A restart from here on (killed while its last answers go out) has nothing left to do.
        // (Without it, such a restart waits for rounds that never come: said, as the run is done.)
        if (QFile mark(finishedMark()); m_tier.beforePublish && !mark.open(QIODevice::WriteOnly))
            std::fprintf(roleErr(), "%s: cannot write %s (%s)\n", qPrintable(m_ctx.node.id), qPrintable(finishedMark()),
                         qPrintable(mark.errorString()));
        m_scheduler.leave();
        m_channel.lingerOnClose(5s, m_down);
        // What a shaped link (an emulated WAN) held at the last round's record went out while it
        // lingered: the final model down to the parties. Its bytes in a last record.
        QCborMap traffic = trafficFields(m_channel);
        traffic.insert(QStringLiteral("round"), m_lastRound);
        m_ctx.metrics.report(metric::kTraffic, traffic);
        return kRoleOk;
    }

    int finishedBefore() {
        std::fprintf(roleErr(), "%s: restarted after it had served every round; nothing is left to do\n", qPrintable(m_ctx.node.id));
        m_scheduler.leave();
        return kRoleOk;
    }

private:
    // fault_policy continue. A collective party's new pushing worker takes its first one's place
    // in the rounds (its pushes count as that one's, under its claim of the party's samples): the
    // place is out while neither is up.
    void onMembership(const MembershipChange& c) {
        if (c.up) m_down.remove(c.node);
        else m_down.insert(c.node);
        if (c.up && !c.standsFor.isEmpty()) {
            m_standsFor.insert(c.node, c.standsFor);
            m_tier.contributors.insert(c.node);  // (its pulls are served, and it is served the final model)
            if (const auto held = m_heldPulls.constFind(c.node); held != m_heldPulls.constEnd()) m_pulls.add(c.node, *held);
            m_heldPulls.remove(c.node);
        }
        const QString place = m_standsFor.value(c.node, c.node);
        bool held = false;  // by another who pushes for that party and is up
        for (auto it = m_standsFor.cbegin(); it != m_standsFor.cend(); ++it)
            held |= it.key() != c.node && it.value() == place && !m_down.contains(it.key());
        held |= place != c.node && !m_down.contains(place);
        if (!held || c.up) m_policy->onMembership(place, c.up);
    }

    // A pull that says `sits_out`: its party server will not push that round (none of the
    // party's workers drawn for it is up), and waits for its model all the same.
    void onPull(const Envelope& e) {
        const qint64 version = e.message.integer(QStringLiteral("version"));
        addPull(e.peer, version);
        if (e.message.fields.value(QStringLiteral("sits_out")).toBool()) m_policy->onSitOut(e.peer, version);
    }

    void onPush(Envelope& e) {
        if (const auto place = m_standsFor.constFind(e.peer); place != m_standsFor.constEnd()) {
            if (e.message.fields.value(QStringLiteral("pull")).toBool()) addPull(e.peer, e.message.integer(QStringLiteral("round")));
            e.message.fields.remove(QStringLiteral("pull"));  // (the answer goes to the sender)
            e.peer = *place;
        }
        m_policy->onPush(e);
    }

    // The model goes only to the nodes this server serves: the party servers, the central
    // workers and the master. Anyone else's pull is refused, not answered.
    void addPull(const QString& peer, qint64 version) {
        if (m_tier.contributors.contains(peer) || peer == m_master) m_pulls.add(peer, version);
        else if (mayStandIn(peer)) m_heldPulls.insert(peer, version);  // (answered once the scheduler says it stands in)
        else m_log.reject(peer, QStringLiteral("a pull from a node this server does not serve"));
    }

    // fault_policy continue: a collective party's worker, which may come to push for its party,
    // and whose pull can come before the scheduler's word that it does.
    bool mayStandIn(const QString& peer) const {
        if (!m_ctx.training().continuesThroughFailures()) return false;
        const std::optional<Node> node = m_ctx.topology.node(peer);
        const Party* party = node ? m_ctx.topology.party(node->party) : nullptr;
        return party && node->kind == RoleKind::Worker && party->collective();
    }

    void onInit(Envelope& e) {
        if (e.peer == m_master && m_model.version >= 0) return masterRestarted();
        const size_t expected = m_shardSize * sizeof(float);
        if (e.peer != m_master || e.message.frames.size() != 1 || (expected > 0 && e.message.frames[0].size() != expected)) {
            m_log.reject(e.peer, QStringLiteral("an init not from the master, or not one frame of the model"));
            return;
        }
        ModelVersion initial = ModelVersion::fromFrame(0, std::move(e.message.frames[0]));
        if (!allFinite(initial.data, initial.size)) {
            m_log.reject(e.peer, QStringLiteral("an initial model with NaN or infinite values"));
            return;
        }
        m_model = std::move(initial);
        if (m_tier.beforePublish) m_tier.beforePublish();  // (kept before it is said: a restart finds it)
        m_ctx.metrics.report(metric::kModelInit, {{QStringLiteral("parameters"), qint64(m_model.size)}});
    }

    // fault_policy continue: each model is kept before anyone gets any of it (GlobalTier::
    // beforePublish), in the run directory's recovery/, apart from the checkpoints that
    // hips run --resume takes (those come with every worker's state, every checkpoint_every rounds).
    // (One per global server, and per launch in it: a resumed run's first start finds none of an
    // earlier launch's.)
    QString nodeRecoveryDirectory() const { return QDir(m_ctx.outDir).filePath(QStringLiteral("recovery/") + m_ctx.node.id); }
    QString recoveryDirectory() const { return QDir(nodeRecoveryDirectory()).filePath(m_ctx.launch); }
    QString finishedMark() const { return QDir(recoveryDirectory()).filePath(QStringLiteral("finished")); }

    void keepRecoveryPoint() {
        if (!std::exchange(m_keptRecoveryPoint, true)) {  // an earlier launch's go
            QDir all(nodeRecoveryDirectory());
            for (const QString& launch : all.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
                if (launch != m_ctx.launch) QDir(all.filePath(launch)).removeRecursively();
        }
        const qint64 steps = m_ctx.training().globalStepsPerRound();
        const Checkpoint c{m_model.version / steps, m_model.version, std::vector<float>(m_model.data, m_model.data + m_model.size),
                           m_policy->optimizerState()};
        QString e = makePrivateDirectory(QDir(m_ctx.outDir).filePath(QStringLiteral("recovery")));
        if (e.isEmpty()) e = makePrivateDirectory(nodeRecoveryDirectory());
        if (e.isEmpty()) e = makePrivateDirectory(recoveryDirectory());
        if (e.isEmpty()) e = writeCheckpoint(recoveryDirectory(), c, m_ctx.training(), m_ctx.node.rank, /*keepPrevious=*/false);
        // Without it a restart would go back further than the parties: that is no longer a restart.
        if (!e.isEmpty()) throw RoleError("cannot keep the model a restart would recover: " + e.toStdString());
        confirmCopy(c);
    }

    // A server with a standby host publishes only models the global scheduler holds a copy of.
    // Published unconfirmed (the scheduler cut off from this host, the parties not), the parties
    // went on ahead of the copy its standby host would start from, and their rounds were lost.
    void confirmCopy(const Checkpoint& c) {
        if (m_ctx.node.standbyHost.isEmpty() || m_scheduler.keepCopy(recoveryPointMessage(c), c.version)) return;
        throw RoleError(QStringLiteral("the global scheduler did not confirm its copy of model version %1 within %2 s "
                                       "(reply_timeout_s); this server publishes nothing its standby host %3 could "
                                       "not go on from. Check that the scheduler's host reaches this one")
                            .arg(c.version)
                            .arg(m_ctx.training().replyTimeoutS)
                            .arg(m_ctx.node.standbyHost)
                            .toStdString());
    }

    // A global server restarted by its agent (fault_policy continue) finds the model it last kept
    // and goes on from there; the party servers send their open round's push again when the global
    // scheduler tells them it is back. Returns false when there is nothing to recover (a first start).
    // One started on its standby host (its own host was lost) has none on disk: it goes on from
    // the copy the global scheduler handed over with the table.
    bool recover() {
        if (!m_tier.beforePublish) return false;
        // (A recovery point half written when it died was never published: nothing to go back to.)
        if (!hasCheckpoint(recoveryDirectory(), m_ctx.node.rank)) return recoverFromCopy();
        if (QFileInfo::exists(finishedMark())) return true;  // (run() leaves at once)
        QString error;
        std::optional<Checkpoint> c = readCheckpoint(recoveryDirectory(), m_ctx.training(), m_shardSize, &error, m_ctx.node.rank, true);
        if (!c) throw RoleError("restarted, but cannot recover the model: " + error.toStdString());
        // Back on a host it had left (its standby was lost in turn), its own point here is older
        // than what it kept on the standby: the global scheduler's copy is the newer one.
        if (!m_ctx.node.standbyHost.isEmpty()) {
            QString copyError;
            std::optional<Checkpoint> copy = m_scheduler.recoveryPoint(m_shardSize, &copyError);
            if (copyError.isEmpty() && copy && copy->version > c->version) c = std::move(copy);
            else if (!copy || copy->version < c->version) confirmCopy(*c);  // (its last was never confirmed: it stopped)
        }
        return goOnFrom(std::move(*c));
    }

    bool recoverFromCopy() {
        QString error;
        std::optional<Checkpoint> c = m_scheduler.recoveryPoint(m_shardSize, &error);
        if (!error.isEmpty()) throw RoleError("the global scheduler's copy of the model to recover is unusable: " + error.toStdString());
        if (!c) return false;  // a first start
        std::fprintf(roleErr(), "%s: started on %s from the global scheduler's copy of its recovery point\n", qPrintable(m_ctx.node.id),
                     qPrintable(m_ctx.node.host));
        return goOnFrom(std::move(*c));
    }

    bool goOnFrom(Checkpoint&& c) {
        m_policy->restoreOptimizerState(std::move(c.optimizer));
        m_model = ModelVersion::fromBuffer(c.version, std::make_shared<std::vector<float>>(std::move(c.model)));
        m_lastRound = c.round;
        m_lastRoundModel = m_model;
        std::fprintf(roleErr(), "%s: restarted; it goes on from the model of round %lld\n", qPrintable(m_ctx.node.id),
                     static_cast<long long>(c.round));
        m_ctx.metrics.report(metric::kModelInit,
                             {{QStringLiteral("parameters"), qint64(m_model.size)}, {QStringLiteral("recovered_round"), c.round}});
        reportRoundAgain(c.round, QStringLiteral("recovered"));
        return true;
    }

    // The round a restart or a resume goes on from: its record may have died unsent with the
    // process before (or with the controller: a resumed run lacked that round's row when its
    // controller was killed between the checkpoint and the record's arrival). The controller
    // keeps the first record of a round, so one it has already is dropped there.
    void reportRoundAgain(qint64 round, const QString& why) {
        if (round > 0)
            m_ctx.metrics.report(metric::kAggregate, {{metric::kRound, round},
                                                      {metric::kApplySeconds, 0.0},
                                                      {metric::kLatePushes, qint64(0)},
                                                      {metric::kRoundSeconds, 0.0},
                                                      {why, true}});
    }

    // A second init from the master: it was restarted (fault_policy continue), or this server was
    // and the master says it is there. The model goes on, and the master gets the newest round's
    // to evaluate: the snapshots it missed are gone.
    void masterRestarted() {
        std::fprintf(roleErr(), "%s: the master is in touch again; it evaluates from round %lld on\n", qPrintable(m_ctx.node.id),
                     static_cast<long long>(m_lastRound));
        if (m_lastRound <= 0 || !m_lastRoundModel.data) return;  // the first round's snapshot is still to come
        ModelVersion snapshot = m_lastRoundModel;  // (the model now may be steps into the next round: ssgd, esync)
        snapshot.version = m_lastRound;
        sendModel(m_channel, m_master, snapshot, QStringLiteral("snapshot"));
    }

    // The model (and the optimizer's state) of the checkpoint the run resumes from, in place of
    // the master's initial model.
    void resume() {
        QString error;
        std::optional<Checkpoint> c =
            readCheckpoint(m_ctx.outDir, m_ctx.training(), m_shardSize, &error, m_ctx.node.rank, false, m_ctx.training().resumeRound);
        if (!c) throw RoleError("cannot resume: " + error.toStdString());
        if (c->round != m_ctx.training().resumeRound)
            throw RoleError("cannot resume from round " + std::to_string(m_ctx.training().resumeRound) + ": the checkpoint in " +
                            m_ctx.outDir.toStdString() + " is of round " + std::to_string(c->round));
        m_policy->restoreOptimizerState(std::move(c->optimizer));
        m_model = ModelVersion::fromBuffer(c->version, std::make_shared<std::vector<float>>(std::move(c->model)));
        m_lastRound = c->round;
        m_lastRoundModel = m_model;
        // A restart in the first resumed round (on its standby host too) goes on from it.
        if (m_tier.beforePublish) m_tier.beforePublish();
        m_ctx.metrics.report(metric::kModelInit,
                             {{QStringLiteral("parameters"), qint64(m_model.size)}, {QStringLiteral("resumed_round"), c->round}});
        reportRoundAgain(c->round, QStringLiteral("resumed"));
    }

    // Every checkpoint_every rounds. A checkpoint that cannot be written is a warning: the run
    // goes on, and the previous checkpoint stays the one to resume from.
    void keepCheckpoint(qint64 round) {
        const int every = m_ctx.training().checkpointEvery;
        if (every <= 0 || round % every != 0 || !ModeRegistry::policy(m_ctx.training().mode).resumable()) return;
        const Checkpoint c{round, m_model.version, std::vector<float>(m_model.data, m_model.data + m_model.size),
                           m_policy->optimizerState()};
        if (const QString e = writeCheckpoint(m_ctx.outDir, c, m_ctx.training(), m_ctx.node.rank); !e.isEmpty())
            std::fprintf(roleErr(), "checkpoint of round %lld not kept: %s\n", static_cast<long long>(round), qPrintable(e));
    }

    // Every contributor has had the final model, but those down (fault_policy continue).
    // (A collective party's first pushing worker, once another stands in for it, is not waited
    // for: the party takes no member back mid-run. A scheduler restarted before it declared that
    // one down would never declare it: it never hears from it. Until 2026-12-02 the run hung.)
    bool everyContributorServed() const {
        const QList<QString> replaced = m_standsFor.values();
        qsizetype waiting = 0;
        for (const QString& c : m_tier.contributors) waiting += !m_servedFinal.contains(c) && !m_down.contains(c) && !replaced.contains(c);
        return waiting == 0;
    }

    void noteServed(const QStringList& peers) {
        if (m_model.version < m_ctx.training().rounds * m_ctx.training().globalStepsPerRound()) return;
        for (const QString& p : peers)
            if (m_tier.contributors.contains(p)) m_servedFinal.insert(p);
    }

    // A round's metrics and checkpoint, and the model to the master every eval_every rounds and at
    // the end, labelled with the round (in the asynchronous modes the version counts pushes).
    void roundDone(qint64 round) {
        m_ctx.metrics.report(metric::kAggregate,
                             {{metric::kRound, round},
                              {metric::kApplySeconds, std::exchange(m_tier.applySeconds, 0.0)},
                              {metric::kLatePushes, qint64(m_tier.latePushes)},
                              {metric::kOverclaims, qint64(m_tier.overclaims)},
                              {metric::kRoundSeconds, std::chrono::duration<double>(Clock::now() - m_roundStart).count()}});
        m_roundStart = Clock::now();
        m_lastRound = round;
        m_lastRoundModel = m_model;
        keepCheckpoint(round);
        QCborMap traffic = trafficFields(m_channel);
        traffic.insert(QStringLiteral("round"), round);
        m_ctx.metrics.report(metric::kTraffic, traffic);
        const bool final = round >= m_ctx.training().rounds;
        if (final || round % m_ctx.training().evalEvery == 0) {
            ModelVersion snapshot = m_model;
            snapshot.version = round;
            sendModel(m_channel, m_master, snapshot, QStringLiteral("snapshot"));
        }
    }

    RoleContext& m_ctx;
    // Floats of the model this server holds: all of it, or its shard when several global servers
    // cut the model's keys between them.
    size_t m_shardSize = shardMapOf(m_ctx.training(), int(m_ctx.topology.centralParty()->servers.size())).shardSize(m_ctx.node.rank);
    QString m_endpoint;
    Channel m_channel;
    SchedulerClient m_scheduler;
    std::shared_ptr<LinkCodecs> m_codecs;  // nullptr when neither tier compresses
    QString m_master;
    ModelVersion m_model;
    PendingPulls m_pulls;
    ModelBufferPool m_pool;
    ModelStreamer m_streamer;
    GlobalTier m_tier{m_ctx, m_channel, m_model, m_pool, m_pulls, m_streamer, {}, {}, {}, {}, {}};
    std::unique_ptr<GlobalPolicy> m_policy;
    QSet<QString> m_servedFinal, m_down;
    QHash<QString, qint64> m_heldPulls;  // a collective party's worker's pull, before it is known to stand in (one each)
    QHash<QString, QString> m_standsFor;  // a collective party's new pushing worker → the first one, whose place in the rounds it takes
    RejectionLog m_log{m_ctx.node.id};
    bool m_masterHasFinal = false;  // the master evaluated the final round's model (kEvaluated)
    qint64 m_lastRound = 0;  // the last round done
    ModelVersion m_lastRoundModel;  // the model it ended with (what a restarted master evaluates)
    bool m_keptRecoveryPoint = false;
    Clock::time_point m_roundStart;
};

}  // namespace

int runGlobalServer(RoleContext& ctx) {
    return GlobalServer(ctx).run();
}

}  // namespace hips
