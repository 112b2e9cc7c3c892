#include "WorkerRole.h"

#include "ClientSampling.h"

#include "PrivacyMechanism.h"

#include "Channel.h"
#include "Adversary.h"
#include "AggregatorRegistry.h"
#include "Checkpoint.h"
#include "Collusion.h"
#include "DataPlan.h"
#include "DracoCodes.h"
#include "DeviceProbe.h"
#include "LocalTrainer.h"
#include "MasterWorkerRole.h"
#include "ModelFrame.h"
#include "ModeRegistry.h"
#include "ModelSlices.h"
#include "PartyCollective.h"
#include "ShardedLinks.h"
#include "PrivateFiles.h"
#include "RoleError.h"
#include "SchedulerClient.h"
#include "VectorMath.h"
#include "ShardSummary.h"
#include "StartupClock.h"
#include "Vocabulary.h"
#include "WorkerStrategy.h"
#include "RoleScope.h"

#include <QCborArray>
#include <QFile>
#include <QFileInfo>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

class Worker {
public:
    explicit Worker(RoleContext& ctx) : m_ctx(ctx) {}

    int run() {
        const Topology& t = m_ctx.topology;
        const bool central = t.party(m_ctx.node.party)->central;
        StartupClock startup;
        const DataPlan plan = dataPlanOf(t, m_ctx.node);
        for (const auto& [shard, coefficient] : plan.parts) {
            m_trainers.push_back(std::make_unique<LocalTrainer>(
                m_ctx.training(), TrainingData{plan.source, plan.owner, shard, plan.partitions, plan.stream}, m_ctx.node.device));
            m_trainers.back()->setSlowdown(m_ctx.node.slowdown);
            m_coefficients.push_back(coefficient);
        }
        LocalTrainer& trainer = *m_trainers.front();
        m_ctx.metrics.report(metric::kDevice, describeDevice(m_ctx.node.device));
        startup.mark(QStringLiteral("data_s"));

        const bool direct = central || m_ctx.training().flat();  // straight to the global server
        // A collective party (its `transport`): no party server; the workers sum among themselves.
        if (!direct && t.party(m_ctx.node.party)->collective()) m_party = std::make_unique<PartyCollective>(m_ctx);
        SchedulerClient& scheduler = m_ownScheduler.emplace(m_ctx, m_ctx.scheduler(direct), m_party ? m_party->endpoint() : QString());
        m_scheduler = &scheduler;
        const bool continues = m_ctx.training().continuesThroughFailures();
        if (m_party && continues) {  // the party goes on without a member it loses
            scheduler.watchMembership();
            m_party->followLosses(scheduler);
        }
        const QList<PeerInfo> table = scheduler.join();
        QList<PeerInfo> servers;  // those it pushes to (none: a collective party's other workers)
        if (!m_party) {
            servers = serversByRank(table, direct ? "global_server" : "server", t);
        } else {
            if (scheduler.joinedLate())
                throw PartyCannotGoOn("this process was started again after " + m_ctx.node.party.toStdString() + "'s " +
                                      m_party->transport().toStdString() +
                                      " formed without it; a collective party takes no member in mid-run (not supported yet), so "
                                      "the party goes on without it and this worker leaves the run");
            m_party->setWhileWaiting([this] { throwIfAborted(); });  // (its sealed links' offers wait too)
            const QList<PeerInfo> globalTable = m_party->connect(table);
            if (m_party->pushes()) servers = serversByRank(globalTable, "global_server", t);
        }
        SchedulerClient* up = m_party ? m_party->globalScheduler() : nullptr;  // the pushing worker's second scheduler
        startup.mark(QStringLiteral("join_s"));
        for (const auto& each : m_trainers)  // each step (and each wait for a compute slot) vouches for the heartbeats
            each->setProgress([&scheduler, up] {
                scheduler.working();
                if (up) up->working();
                // A thread of a shared trainer asked to stop: no socket call of a round to fail at.
                if (const RoleScope* scope = threadRoleScope(); scope && scope->stopRequested())
                    throw RoleError("asked to stop while it trained");
            });
        scheduler.watchWorkThread();
        if (up) up->watchWorkThread();
        if (!servers.isEmpty()) m_up.emplace(m_ctx, servers, trainer.parameterCount());
        ShardedLinks* links = m_up ? &*m_up : nullptr;  // (none for a collective party's other workers)
        if (m_party) m_party->setTakeOver([this, floats = trainer.parameterCount()] { return takeOverThePush(floats); });
        const ModePolicy policy = ModeRegistry::policy(m_ctx.training().mode);
        const std::unique_ptr<WorkerStrategy> strategy = makeWorkerStrategy(m_ctx);
        strategy->setWhileWaiting([this] { throwIfAborted(); });
        strategy->start(trainer);
        if (continues && !m_party) scheduler.watchMembership();  // its server may come back
        m_servers = servers;
        ModelVersion global = exchange(links, 0, 0, nullptr, 0, trainer.parameterCount());
        startup.mark(QStringLiteral("first_model_s"));
        QCborMap fields = startup.fields();  // and what the partition gave this worker
        for (const auto& [key, value] : describeShards(plan, m_trainers, m_ctx.training().regression())) fields.insert(key, value);
        m_ctx.metrics.report(metric::kStartup, fields);
        if (global.size != trainer.parameterCount())
            throw RoleError("the server's model has " + std::to_string(global.size) + " parameters, this worker's " +
                            std::to_string(trainer.parameterCount()) + "; all roles must use the same model");

        // Each push is answered by the next model (or a newer one). A push is for round = its base
        // version + 1. Where the server runs rounds, the run ends for this worker with the final
        // version, even if some of its pushes came late (a quorum closed those rounds without
        // them); where each push is applied as it comes, after its last push.
        const qint64 pushesPerRound = m_ctx.training().workerPushesPerRound();
        // (A central worker's tier is the global one: in mixed_sync its pushes are applied as they
        // come, and its versions count every party's; going by them it left after a push or two.)
        const bool eachAsItComes = (direct ? policy.global : policy.party) == TierSync::AsPushesCome;
        const qint64 finalVersion = m_ctx.training().rounds * pushesPerRound;
        const qint64 resumeRound = m_ctx.training().resumeRound;
        // A worker restarted mid-run (fault_policy continue) goes on from the round of the model it got.
        qint64 pushes = std::max(resumeRound * pushesPerRound, eachAsItComes ? 0 : global.version);
        // (Not one restarted later in the resumed run: the checkpoint's state is rounds behind it.)
        if (resumeRound > 0 && pushes == resumeRound * pushesPerRound) restoreState(resumeRound);
        RoundStats stats;
        qint64 pushesInStats = 0;  // (fewer than a round's when a newer model overtook this worker)
        double commSeconds = 0, waitSeconds = 0;
        bool attacked = false;
        const bool sampling = samplesClients(m_ctx.topology);
        while (eachAsItComes ? pushes < finalVersion : global.version < finalVersion) {
            // Client sampling: a round this worker is not drawn for, it sits out and pulls its model.
            if (sampling && !sampledWorkers(m_ctx.topology, global.version + 1).contains(m_ctx.node.id)) {
                keepState(global.version + 1);
                m_lastPush = LastPush{global.version + 1, global.version, nullptr, 0};
                links->pull(global.version + 1);
                global = awaitModel(*links, global.version + 1);
                pushes = global.version;
                evaluateHeldOut(global.version, global);  // (the party's own test counts every worker's rows)
                continue;
            }
            const AdversarySpec* attack = attackOf(pushes / pushesPerRound + 1);
            const RoundStats s = work(*strategy, global, attack && flipsLabels(attack->kind));
            const auto commStart = Clock::now();
            auto update = std::make_shared<std::vector<float>>(global.size);
            writeUpdate(*strategy, global, update->data());
            if (attack) {
                corruptUpdate(*attack, update->data(), update->size(), noiseSeed(pushes));
                attacked = true;
            }
            if (const auto& dp = m_ctx.training().privacy; dp && !dp->atParty()) {  // local DP: noised before it leaves
                privacy::clipToNorm(update->data(), update->size(), dp->clipNorm);
                privacy::addGaussianNoise(update->data(), update->size(), dp->noiseMultiplier * dp->clipNorm);
            }
            if ((pushes + 1) % pushesPerRound == 0) keepState((pushes + 1) / pushesPerRound);
            const double weight = double(std::max<int64_t>(s.samples, 1));  // the samples behind it
            m_lastPush = LastPush{global.version + 1, global.version, update, weight};
            const auto sent = Clock::now();
            // The answer to this push, or newer.
            global = exchange(links, global.version + 1, global.version, update, weight, trainer.parameterCount());
            commSeconds += std::chrono::duration<double>(Clock::now() - commStart).count();
            waitSeconds += std::chrono::duration<double>(m_firstSliceAt - sent).count();
            stats.loss += s.loss / double(pushesPerRound);
            ++pushesInStats;
            stats.samples += s.samples;
            stats.computeSeconds += s.computeSeconds;
            stats.steps += s.steps;
            // Its collective party lost its pushing worker before the sum went up, and all took up
            // an earlier model again: this push's work is done again, and reported then.
            const bool trainedAgain = m_party && global.version <= pushes;
            if (++pushes % pushesPerRound == 0 && !trainedAgain) {  // its work is reported under the round it pushed for
                // The mean over the pushes it made (a loss that counted the skipped ones as 0 was too low).
                if (pushesInStats < pushesPerRound) stats.loss *= double(pushesPerRound) / double(pushesInStats);
                report(pushes / pushesPerRound, stats, {commSeconds, waitSeconds}, m_up ? &*m_up : nullptr, pushesInStats,
                       std::exchange(attacked, false));
                // (Scored under the round of the model it got: after a late push, a newer one.)
                evaluateHeldOut((eachAsItComes ? pushes : std::max(pushes, global.version)) / pushesPerRound, global);
                stats = {};
                pushesInStats = 0;
                commSeconds = waitSeconds = 0;
            }
            // A push that came late (its round closed without it: a quorum, a round timeout, a
            // worker left out): it goes on from the newest model's round. (Or an earlier one: its
            // collective party lost its pushing worker, and all took up the same model again.)
            if (!eachAsItComes && (global.version > pushes || (m_party && global.version < pushes))) {
                pushes = global.version;
                stats = {};
                pushesInStats = 0;
                commSeconds = waitSeconds = 0;
            }
        }
        strategy->finish();
        scheduler.leave();
        if (m_party) m_party->leave();
        if (m_up) m_up->lingerOnClose(2s);
        return kRoleOk;
    }

    // fault_policy continue, a collective party's worker that cannot go on with its party: it
    // says why and leaves the run cleanly (its agent does not start it again).
    int leaveRun(const PartyCannotGoOn& why) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(m_ctx.node.id), why.what());
        m_ctx.metrics.report(metric::kMembership, {{QStringLiteral("member"), m_ctx.node.id},
                                                   {QStringLiteral("state"), QStringLiteral("left")},
                                                   {QStringLiteral("reason"), QString::fromUtf8(why.what())}});
        if (m_party) m_party->leave();  // (a pushing worker says bye at the global tier too)
        if (m_ownScheduler) m_ownScheduler->leave();
        return kRoleOk;
    }

private:
    // A round of local work on every part of the data plan, from the global model.
    RoundStats work(WorkerStrategy& strategy, const ModelVersion& global, bool flipLabels) {
        RoundStats total;
        for (auto& trainer : m_trainers) {
            trainer->setWeights(global.data);
            trainer->setLabelFlip(flipLabels);
            const RoundStats s = strategy.work(*trainer, global.version + 1);
            total.loss += s.loss / double(m_trainers.size());
            total.samples += s.samples;
            total.steps += s.steps;
            total.computeSeconds += s.computeSeconds;
        }
        return total;
    }

    // The push: the update of the one part, or the code's combination of every part's (Draco's).
    void writeUpdate(const WorkerStrategy& strategy, const ModelVersion& global, float* out) {
        if (m_trainers.size() == 1 && m_coefficients.front() == 1.0) return strategy.update(*m_trainers.front(), global, out);
        CodedSum push(global.size);
        std::vector<float> part(global.size);
        for (size_t k = 0; k < m_trainers.size(); ++k) {
            strategy.update(*m_trainers[k], global, part.data());
            push.add(m_coefficients[k], part.data());
        }
        push.write(out);
    }

    // This worker's state at the end of a checkpoint round, kept before the push that completes
    // the round: by the time the global server keeps its checkpoint of the round, every worker's
    // state of it is on disk. One that cannot be written is a warning, as a checkpoint is.
    // (Each of its trainers': a Draco cyclic worker's parts resumed afresh would no longer agree
    // with the other workers' same parts, and no round after would decode.)
    void keepState(qint64 round) {
        const int every = m_ctx.training().checkpointEvery;
        if (every <= 0 || round % every != 0 || !ModeRegistry::policy(m_ctx.training().mode).resumable()) return;
        QString error = makePrivateDirectory(checkpointDirectory(m_ctx.outDir));
        for (size_t k = 0; k < m_trainers.size() && error.isEmpty(); ++k)
            error = writeFileAtomically(workerStatePath(m_ctx.outDir, m_ctx.node.id, round, int(k)), m_trainers[k]->saveState());
        if (!error.isEmpty())
            return (void)std::fprintf(roleErr(), "state of round %lld not kept: %s\n", static_cast<long long>(round), qPrintable(error));
        // Two checkpoints back: the global server keeps round r's checkpoint after it sends r's
        // model, so a worker that keeps r + 1 first may see r − 1 still be the newest.
        removeOlderWorkerStates(m_ctx.outDir, m_ctx.node.id, round - 2 * every);
    }

    // A resumed run: the state this worker kept at the checkpoint's round. Without it (the worker
    // had not reached that round, or the file is gone) it goes on with fresh momentum and order;
    // a Draco worker cannot (see keepState), and stops naming the part: a cyclic worker's parts,
    // or a repetition member, would no longer agree with the same parts elsewhere (a member
    // outvoted every round, spending its group's tolerance unseen).
    void restoreState(qint64 round) {
        for (size_t k = 0; k < m_trainers.size(); ++k) restoreState(*m_trainers[k], round, int(k));
    }
    void restoreState(LocalTrainer& trainer, qint64 round, int part) {
        QFile f(workerStatePath(m_ctx.outDir, m_ctx.node.id, round, part));
        if (f.exists() && !QFileInfo(f).isFile())  // (a link to /dev/zero would be read until memory runs out)
            throw RoleError(f.fileName().toStdString() + " is not a regular file; a worker's state is a file it wrote: remove it");
        const bool coded = m_trainers.size() > 1 || m_ctx.training().partyAggregation == QLatin1String(rule::kDracoRepetition);
        if (!f.open(QIODevice::ReadOnly) && coded)
            throw RoleError("no state of round " + std::to_string(round) + " for part " + std::to_string(part) + " (" +
                            f.fileName().toStdString() + ": " + f.errorString().toStdString() +
                            "): a Draco worker's parts resumed afresh would no longer agree with the other workers' same "
                            "parts, and its rounds would not decode or would outvote it; start the run afresh");
        if (!f.isOpen()) {
            std::fprintf(roleErr(), "no state of round %lld (%s): this worker resumes with fresh momentum and data order\n",
                         static_cast<long long>(round), qPrintable(f.errorString()));
            return;
        }
        const int64_t bound = trainer.stateBytesBound();
        const QByteArray bytes = f.read(bound + 1);
        if (bytes.size() > bound)
            throw RoleError(f.fileName().toStdString() + " is larger than any state of this worker (" + std::to_string(bound) +
                            " bytes at most); it is damaged or not this run's: remove it");
        trainer.loadState(bytes);
    }

    // The model that answers this worker's push for `round` (`update`; none: a pull): its
    // servers' answer, or in a collective party the party's sum goes up from its pushing worker
    // (PartyCollective.h) and the answer comes back down from it.
    ModelVersion exchange(ShardedLinks* links, qint64 round, qint64 base, const FloatBuffer& update, double weight, size_t floats) {
        if (!m_party) {
            if (update) links->push(round, base, update, weight);  // (and a pull of the answer)
            else links->pull(round);
            return awaitModel(*links, round);
        }
        if (update && m_hfa) return hfaSync(links, round, update, m_party->sum(*update, weight, round), floats);
        const ModelVersion answer = m_party->exchange(
            update, weight, round, floats, [&](const FloatBuffer& sum, double total) { return upstream(*m_up, round, base, sum, total); });
        if (m_hfa) keepHfaBase(answer);
        return answer;
    }

    // fault_policy continue: its collective party's pushing worker was lost, and this worker, the
    // lowest rank left, pushes for the party from now on: it joins the global tier in its place
    // and starts from the newest global model, which its party takes up too.
    ModelVersion takeOverThePush(size_t floats) {
        const QList<PeerInfo> globalTable = m_party->joinGlobal();
        if (!m_up) {
            m_servers = serversByRank(globalTable, "global_server", m_ctx.topology);
            m_up.emplace(m_ctx, m_servers, floats);
        }
        m_lastPush = LastPush{};
        // (Its pull may come before its global servers heard from their scheduler that it pushes
        // for the party, and be refused: it says it again until answered.)
        for (auto again = Clock::now();;) {
            throwIfAborted();
            if (Clock::now() >= again) {
                m_up->pull(0);
                again = Clock::now() + 1s;
            }
            if (auto newest = m_up->receive(message::kModel, 0, 200ms)) return std::move(*newest);
        }
    }

    // A collective party's pushing worker: the party's sum (none: a pull) up for global round
    // `round`, and the answer.
    ModelVersion upstream(ShardedLinks& links, qint64 round, qint64 base, const FloatBuffer& sum, double weight) {
        m_lastPush = LastPush{round, base, sum, weight};  // (what goes again to a global server that was restarted)
        if (sum) links.push(round, base, sum, weight);
        else links.pull(round);
        return awaitModel(links, round);
    }

    // A collective party's way up and down: its pushing worker pushes `up` for global round
    // `upRound` (none: a pull) and waits for the answer; every worker then has it, shared under
    // the party's `round`.
    ModelVersion upAndDown(ShardedLinks* links, qint64 upRound, qint64 base, const FloatBuffer& up, double weight, size_t floats,
                           qint64 round) {
        ModelVersion answer;
        if (m_party->pushes()) answer = upstream(*links, upRound, base, up, weight);
        return m_party->share(answer, floats, round);
    }

    // HFA in a collective party (what the Hfa party policy does at a party server): the party's
    // model moves by its workers' summed deltas every sync; every k2-th sync its progress since
    // the global model goes up, weighted by the party's share of the workers.
    ModelVersion hfaSync(ShardedLinks* links, qint64 round, const FloatBuffer& sum, double weight, size_t floats) {
        addInto(m_hfaParty->data(), sum->data(), floats);
        if (round % m_hfaSyncs != 0) return ModelVersion::fromBuffer(round, std::make_shared<std::vector<float>>(*m_hfaParty));
        FloatBuffer up;
        if (m_party->pushes()) {
            const Topology& t = m_ctx.topology;
            const float share = float(t.party(m_ctx.node.party)->workerCount()) / float(t.trainingWorkerCount());
            up = std::make_shared<std::vector<float>>(floats);
            for (size_t i = 0; i < floats; ++i) (*up)[i] = ((*m_hfaParty)[i] - (*m_hfaGlobal)[i]) * share;
        }
        keepHfaBase(upAndDown(links, round / m_hfaSyncs, m_hfaGlobalVersion, up, weight, floats, round));
        return ModelVersion::fromBuffer(round, std::make_shared<std::vector<float>>(*m_hfaParty));  // (the party's rounds)
    }

    void keepHfaBase(const ModelVersion& global) {
        m_hfaGlobalVersion = global.version;
        m_hfaGlobal = std::make_shared<std::vector<float>>(global.data, global.data + global.size);
        m_hfaParty = std::make_shared<std::vector<float>>(*m_hfaGlobal);
    }

    // Its schedulers' abort (a peer died): raised here, on the work thread.
    void throwIfAborted() const {
        m_scheduler->throwIfAborted();
        if (m_party && m_party->globalScheduler()) m_party->globalScheduler()->throwIfAborted();
    }

    // No deadline of its own: the answer waits for the other workers' compute, which may be 8x
    // slower than this one's. A peer that dies or hangs stops heartbeating, and the scheduler's
    // abort (within heartbeat_timeout_s, naming it) ends the wait.
    // m_firstSliceAt: when the answer's first slice came (the end of the wait for the others).
    ModelVersion awaitModel(ShardedLinks& links, qint64 version) {
        bool first = true;
        for (;;) {
            throwIfAborted();
            // (A collective party's pushing worker hears of its global servers from the global
            // scheduler; its party's losses are the collective's.)
            SchedulerClient* servers = m_party ? m_party->globalScheduler() : m_scheduler;
            for (const MembershipChange& c : servers ? servers->takeMembershipChanges() : QList<MembershipChange>{})
                if (c.up && std::any_of(m_servers.begin(), m_servers.end(), [&](const PeerInfo& p) { return p.id == c.node; })) {
                    links.follow(c.node, c.endpoint);  // (a global server on its standby host: flat runs, central workers)
                    resend(links);
                }
            bool slice = false;
            auto whole = links.receive(message::kModel, version, 200ms, &slice);
            if (slice && std::exchange(first, false)) m_firstSliceAt = Clock::now();
            if (whole) return std::move(*whole);
        }
    }

    // fault_policy continue: its server came back (restarted), having lost what it held. The push
    // it waits for the answer to goes again (or the first pull); a round that closed meanwhile
    // makes it late, and the answer is the newest model either way.
    void resend(ShardedLinks& links) {
        if (m_lastPush.update) links.push(m_lastPush.round, m_lastPush.base, m_lastPush.update, m_lastPush.weight);
        else links.pull(m_lastPush.round);  // (0 before the first model; a drawn-out round's otherwise)
    }

    // The attack this worker makes in `round`, if any (Collusion.h: the servers draw the same).
    const AdversarySpec* attackOf(qint64 round) const { return hips::attackOf(m_ctx.topology, m_ctx.node, round); }

    uint64_t noiseSeed(qint64 push) const {
        return (uint64_t(m_ctx.training().seed) << 32) ^ (uint64_t(m_ctx.topology.trainingWorkerIndex(m_ctx.node.id)) << 20) ^
               uint64_t(push);
    }

    // commAndWait: seconds from the end of the local work to the next model, and the part of them
    // spent waiting for the answer's first slice (the other workers' compute, the servers' work).
    // The party's own test: the rows its source holds out (`holdout`), under the model the round
    // gave, on the master's evaluation rounds. Counts and accuracy only leave the party.
    void evaluateHeldOut(qint64 round, const ModelVersion& global) {
        LocalTrainer& trainer = *m_trainers.front();
        const TrainingSettings& s = m_ctx.training();
        if (trainer.heldOutSize() == 0 || (round % std::max(1, s.evalEvery) != 0 && round != s.rounds)) return;
        const EvalStats e = trainer.evaluateHeldOut(global.data);
        QCborMap fields = scoreFields(e);
        fields.remove(metric::kTestTop5);
        fields.insert(metric::kRound, round);
        fields.insert(metric::kSamples, qint64(e.samples));
        if (e.rmse < 0) fields.insert(metric::kCorrect, qint64(std::llround(e.accuracy * double(e.samples))));
        m_ctx.metrics.report(metric::kPartyEval, fields);
    }

    void report(qint64 round, const RoundStats& s, std::pair<double, double> commAndWait, ShardedLinks* links, qint64 pushes,
                bool attacked) {
        // The traffic first: a round's bytes are taken as its last train record comes (RunProgress),
        // and the last worker's upload was left to the next round.
        std::vector<const Channel*> channels = m_party ? m_party->channels() : std::vector<const Channel*>{};
        for (int i = 0; links && i < links->count(); ++i) channels.push_back(&links->channel(i));
        QCborMap traffic = trafficFields(channels);
        if (m_party) {  // (the sealed links' chunks pass no channel)
            QCborArray perLink = traffic.value(QStringLiteral("links")).toArray();
            for (const QCborValue& l : m_party->sealedTraffic()) perLink.append(l);
            traffic.insert(QStringLiteral("links"), linksByPeer(perLink));
            // (its refusals too: a forged or replayed chunk on the mesh is as much a wire error)
            traffic.insert(QStringLiteral("wire_errors"),
                           traffic.value(QStringLiteral("wire_errors")).toInteger() + qint64(m_party->refused()));
        }
        traffic.insert(QStringLiteral("round"), round);
        m_ctx.metrics.report(metric::kTraffic, traffic);
        m_ctx.metrics.report(metric::kTrain, {{metric::kRound, round},
                                              {metric::kLoss, s.loss},
                                              {metric::kAttacked, attacked ? 1 : 0},
                                              {metric::kRedundancy, qint64(m_trainers.size())},
                                              {metric::kSamples, qint64(s.samples)},
                                              {metric::kComputeSeconds, s.computeSeconds},
                                              {metric::kLocalSteps, qint64(s.steps)},
                                              {metric::kStepsPerPush, double(s.steps) / double(pushes)},
                                              {metric::kCommSeconds, commAndWait.first},
                                              {metric::kWaitSeconds, commAndWait.second}});
    }

    RoleContext& m_ctx;
    std::vector<std::unique_ptr<LocalTrainer>> m_trainers;  // one per part of the data plan
    std::vector<double> m_coefficients;
    Clock::time_point m_firstSliceAt;
    QList<PeerInfo> m_servers;
    std::optional<ShardedLinks> m_up;  // to its servers (a collective party's pushing worker's: to the global servers)
    std::optional<SchedulerClient> m_ownScheduler;  // (a member: it says bye when the worker leaves its party's run)
    SchedulerClient* m_scheduler = nullptr;  // its party's (or, central and flat, the global one)
    std::unique_ptr<PartyCollective> m_party;  // a collective party's exchange; null with a party server
    // HFA in a collective party: syncs a global round (k2), the party's model, the global model it started from.
    bool m_hfa = ModeRegistry::policy(m_ctx.training().mode).hierarchicalFrequency;
    qint64 m_hfaSyncs = m_ctx.training().workerPushesPerRound();
    FloatBuffer m_hfaParty, m_hfaGlobal;
    qint64 m_hfaGlobalVersion = 0;
    struct LastPush {
        qint64 round = 0, base = 0;
        FloatBuffer update;
        double weight = 0;
    } m_lastPush;
};

}  // namespace

int runWorker(RoleContext& ctx) {
    Worker worker(ctx);
    try {
        return worker.run();
    } catch (const PartyCannotGoOn& e) {  // (fault_policy continue: the run goes on without this party's collective or this worker)
        return worker.leaveRun(e);
    }
}

}  // namespace hips
