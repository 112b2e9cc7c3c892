#include "Simulation.h"

#include "ClientSampling.h"
#include "Collusion.h"
#include "DataPlan.h"
#include "DeviceProbe.h"
#include "FedOptimizer.h"
#include "GlobalPolicies.h"
#include "LocalTrainer.h"
#include "MasterWorkerRole.h"
#include "ModeRegistry.h"
#include "ModelSlices.h"
#include "RoleError.h"
#include "RoundCollector.h"
#include "SimParty.h"
#include "SimRounds.h"
#include "SimCollective.h"
#include "SimEvaluation.h"
#include "SimMembership.h"
#include "ServerOptimizer.h"
#include "SimAvailability.h"
#include "SimulationCheck.h"
#include "VirtualWorkers.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

namespace hips::sim {

namespace {

using WallClock = std::chrono::steady_clock;

double wallSince(WallClock::time_point start) {
    return std::chrono::duration<double>(WallClock::now() - start).count();
}

double unixSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class Simulation {
public:
    Simulation(const Topology& t, const Options& o)
        : m_topology(t),
          m_settings(t.training),
          m_options(o),
          m_availability(t),
          m_workers(
              t, [this] { return m_options.clockOrigin + m_stamp; },
              o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency())) / std::max(1, t.training.threads)),
          m_global(globalNode(t)),
          m_master(masterNode(t)),
          m_traffic(t.centralParty()->id),
          m_masterTraffic(t.centralParty()->id),
          m_membership(t, [this](double at, const QString& id, const char* state, const char* why) { membership(at, id, state, why); }) {
        m_global.setClock([this] { return m_options.clockOrigin + m_stamp; }, true);
        m_master.setClock([this] { return m_options.clockOrigin + m_stamp; }, false);
        if (const QString why = simulationRefusal(t); !why.isEmpty()) throw RoleError(why.toStdString());
    }

    void run() {
        setTorchThreads(m_settings.threads);
        m_evaluation = std::make_unique<MasterEvaluation>(m_settings, m_options.outDir, m_options.clockOrigin);
        FloatBuffer initial = std::make_shared<std::vector<float>>(m_evaluation->evaluator().initialWeights());
        m_model = ModelVersion::fromBuffer(0, initial);
        m_master.report(metric::kDevice, describeDevice(QStringLiteral("cpu")));
        if (const QCborMap names = m_evaluation->startupRecord(); !names.isEmpty()) m_master.report(metric::kStartup, names);
        setUpTiers();
        m_stateService.init(m_workers.count(), m_settings.param(QStringLiteral("epsilon")));
        // As deployed: under continue, an absent worker is waited for heartbeat_timeout_s, then left out.
        if (m_settings.continuesThroughFailures()) m_stateService.setSilenceLimit(m_settings.heartbeatTimeoutS);
        // The clock starts at the launch, as a deployed run's: its first round begins once its
        // processes are up (started, data loaded, models built), this one's once it is.
        if (m_options.clockOrigin > 0) m_now = m_roundStart = std::max(0.0, unixSeconds() - m_options.clockOrigin);
        m_traffic.received(masterNode(m_topology), modelBytes());  // the master's initial model, as deployed
        m_masterTraffic.sent(globalId(), modelBytes());
        modelDown(1);
        const qint64 versions = qint64(m_settings.rounds) * m_settings.globalStepsPerRound();
        while (m_model.version < versions) step();
        reportGlobalTraffic(m_settings.rounds);  // the final model to the master too, as the deployed server's last record
        finishEvaluation();
    }

private:
    static QString globalNode(const Topology& t) { return t.centralParty()->id + QStringLiteral("/global_server0"); }
    static QString masterNode(const Topology& t) { return t.centralParty()->id + QStringLiteral("/master_worker"); }
    QString globalId() const { return globalNode(m_topology); }

    size_t size() const { return m_model.size; }
    quint64 modelBytes() const { return wireBytes(m_model.size); }
    bool relays() const { return partiesRelayWorkers(m_settings); }

    // Who pushes to whom, as the deployed run wires it: party servers over their workers (or only
    // relaying them), and the global server over the party servers, the central workers, or
    // (flat, relayed) the workers themselves.
    void setUpTiers() {
        const TrainingSettings& s = m_settings;
        const bool relay = relays();
        QSet<QString> globalContributors;
        QHash<QString, int> partyOf;
        for (const Party& p : m_topology.parties) {
            if (p.central || s.flat() || (p.servers.isEmpty() && !p.collective())) continue;
            Node node;
            node.id = p.id + (p.collective() ? QStringLiteral("/worker0") : QStringLiteral("/server0"));
            node.kind = p.collective() ? RoleKind::Worker : RoleKind::Server;
            node.party = p.id;
            auto server = std::make_unique<PartyServer>(node);
            if (p.collective()) std::tie(server->collective, server->weights) = partyCollectives(p, s);
            server->link = acrossLink(p);
            server->metrics.setClock([this] { return m_options.clockOrigin + m_stamp; }, false);
            partyOf.insert(p.id, int(m_parties.size()));
            m_parties.push_back(std::move(server));
        }
        m_partyOf.assign(size_t(m_workers.count()), nullptr);
        for (int i = 0; i < m_workers.count(); ++i) {
            VirtualWorker& w = m_workers.at(i);
            const int party = partyOf.value(w.node.party, -1);
            if (party < 0) {  // central workers, or flat: straight to the global server
                w.server = globalId();
                w.link = workerLink(m_topology, w.node, true);
                m_direct.push_back(i);
                globalContributors.insert(w.node.id);
                continue;
            }
            PartyServer& p = *m_parties[size_t(party)];
            w.server = p.collective ? QString() : p.node.id;  // (a collective party's links: collectiveRound)
            w.link = kLan;
            p.workers.insert(w.node.id);
            p.members.push_back(i);
            m_partyOf[size_t(i)] = &p;
            if (relay) {  // its push goes on whole to the global server, through its party server
                const Party* own = m_topology.party(p.node.party);
                w.beyond = p.link;
                if (w.beyond.bytesPerS > 0) w.beyond.bytesPerS /= double(std::max(1, own->workerCount()));
                m_direct.push_back(i);
                globalContributors.insert(w.node.id);
            }
        }
        for (const auto& p : m_parties)  // (a collective's ranks: its workers by rank)
            std::sort(p->members.begin(), p->members.end(),
                      [this](int a, int b) { return m_workers.at(a).node.rank < m_workers.at(b).node.rank; });
        if (!relay)
            for (const auto& p : m_parties) {
                if (p->workers.isEmpty()) continue;
                globalContributors.insert(p->node.id);
                if (p->collective) continue;
                p->collector = std::make_unique<RoundCollector>(p->node.id, p->workers,
                                                                withCollusion(makeAggregationRule(s, RuleTier::Party), m_topology),
                                                                s.quorumOf(int(p->workers.size())));
                PartyServer* raw = p.get();
                p->collector->foldOnArrival([this, raw] { return RoundCollector::FoldTarget{raw->pool.acquire(size()), nullptr}; });
                p->collector->setPlan(m_topology, p->workers);
                if (partiesPassOnUnreached(s)) p->collector->passOnUnreached();
                p->collector->setRoundContributors([this, raw](qint64) { return m_drawn & raw->workers; });
                if (s.continuesThroughFailures()) {
                    p->collector->tolerateLatePushes();
                    p->deadline = {s.param(QStringLiteral("round_timeout_s")), s.param(QStringLiteral("min_workers"))};
                }
            }
        setUpGlobal(globalContributors);
    }

    void setUpGlobal(const QSet<QString>& contributors) {
        const TrainingSettings& s = m_settings;
        m_globalContributors = contributors;
        m_collector =
            std::make_unique<RoundCollector>(globalId(), contributors, withCollusion(makeAggregationRule(s, RuleTier::Global), m_topology),
                                             s.quorumOf(int(contributors.size())));
        m_collector->setPlan(m_topology, contributors);
        m_collector->setRoundContributors([this](qint64) { return m_drawnContributors; });
        if (ModeRegistry::policy(s.mode).gradientEveryStep) m_optimizer.emplace(float(s.learningRate), float(s.momentum));
        else m_fedOptimizer = serverOptimizerFor(s);
        m_collector->foldOnArrival([this] {
            return RoundCollector::FoldTarget{m_pool.acquire(size()), m_optimizer || m_fedOptimizer ? nullptr : m_model.data};
        });
        if (s.continuesThroughFailures()) {
            m_collector->tolerateLatePushes();
            m_globalDeadline = {s.param(QStringLiteral("round_timeout_s")),
                                s.param(s.flat() ? QStringLiteral("min_workers") : QStringLiteral("min_parties"))};
        }
    }

    qint64 roundOf(qint64 push) const { return (push - 1) / m_settings.workerPushesPerRound() + 1; }

    // The workers that train in `round`: drawn (clients_per_round) and available then.
    void draw(qint64 round, double at) {
        if (round == m_drawnRound) return;
        m_drawnRound = round;
        const QSet<QString> sampled = samplesClients(m_topology) ? sampledWorkers(m_topology, round) : QSet<QString>{};
        m_drawn.clear();
        QHash<QString, double> perHost;  // the threads that train there: the drawn workers, the master evaluating
        for (int i = 0; i < m_workers.count(); ++i) {
            const VirtualWorker& w = m_workers.at(i);
            if ((sampled.isEmpty() || sampled.contains(w.node.id)) && m_availability.available(w.node, w.index, round, at) &&
                m_membership.mayTrain(w.node.id, at)) {
                m_drawn.insert(w.node.id);
                ++perHost[w.node.host];
            }
        }
        if (const auto master = m_topology.node(masterNode(m_topology)); master && hostCores(m_topology, master->host) > 0) {
            const double workersPerCore = perHost.value(master->host) / double(hostCores(m_topology, master->host));
            perHost[master->host] += m_evaluation->load(m_lastRoundSeconds, std::max(1.0, workersPerCore));
        }
        for (int i = 0; i < m_workers.count(); ++i) {  // (the servers' share of a host is left out: theirs is the aggregation)
            VirtualWorker& w = m_workers.at(i);
            const int cores = hostCores(m_topology, w.node.host);
            w.contention = cores > 0 ? std::max(1.0, perHost.value(w.node.host) / double(cores)) : 1.0;
        }
        countDrawnContributors();
        if (samplesClients(m_topology) && std::exchange(m_reportedDraw, round) < round) {  // (once: a wait draws again)
            QStringList workers(sampled.begin(), sampled.end());
            workers.sort();
            m_global.report(metric::kSample,
                            {{QString(metric::kRound), round}, {QStringLiteral("workers"), QCborArray::fromStringList(workers)}});
        }
    }

    // The traffic of the model (m_model) down to every worker that takes it for `round`, as the
    // deployed run sends it once applied (version 0 before round 1): a worker that sits the round
    // out (clients_per_round) pulls it too; one that is off does not. (Its time is charged where
    // each drawn worker's round starts: turnsOf.) With `since`, only to those on since then.
    void modelDown(qint64 round, std::optional<double> since = {}) {
        const quint64 bytes = modelBytes();
        round = std::min<qint64>(round, m_settings.rounds);
        const auto on = [&](int i, double at) {
            const VirtualWorker& w = m_workers.at(i);
            return !m_membership.hasLeft(w.node.id) && m_availability.available(w.node, w.index, round, at);
        };
        const auto takes = [&](int i) { return on(i, m_now) && !(since && on(i, *since)); };
        for (const auto& p : m_parties) {  // (relayed ones too: one model to the party server, on to each worker)
            std::vector<int> takers;
            std::copy_if(p->members.begin(), p->members.end(), std::back_inserter(takers), takes);
            if (takers.empty()) continue;
            // (a collective party's model goes to its pushing worker: the lowest rank that takes it)
            m_traffic.sent(p->collective ? m_workers.at(takers.front()).node.id : p->node.id, bytes);
            if (p->collective) {  // to its pushing worker, then down the chain by rank, its version beside it
                m_workers.at(takers.front()).traffic.received(globalId(), bytes);
                const bool fanOut = m_settings.continuesThroughFailures();  // (then from it to each: PartyCollective::fanOut)
                for (size_t k = 0; k + 1 < takers.size(); ++k) {
                    VirtualWorker &w = m_workers.at(takers[fanOut ? 0 : k]), &next = m_workers.at(takers[k + 1]);
                    w.traffic.sent(next.node.id, bytes + 8);
                    next.traffic.received(w.node.id, bytes + 8);
                }
                continue;
            }
            p->traffic.received(globalId(), bytes);
            for (int i : takers) {
                p->traffic.sent(m_workers.at(i).node.id, bytes);
                m_workers.at(i).traffic.received(p->node.id, bytes);
            }
        }
        for (int i : m_direct)
            if (!m_partyOf[size_t(i)] && takes(i)) {
                VirtualWorker& w = m_workers.at(i);
                m_traffic.sent(w.node.id, bytes);
                w.traffic.received(w.server, bytes);
            }
    }

    // The global tier's contributors with a drawn worker: the direct ones, the parties of one.
    void countDrawnContributors() {
        m_drawnContributors.clear();
        for (const QString& c : m_globalContributors) {
            const auto party = std::find_if(m_parties.begin(), m_parties.end(), [&c](const auto& p) { return p->node.id == c; });
            if (party == m_parties.end() ? m_drawn.contains(c) : (*party)->workers.intersects(m_drawn)) m_drawnContributors.insert(c);
        }
    }

    // The drawn members of `which`, with when the model reaches each.
    std::pair<std::vector<int>, std::vector<double>> turnsOf(const std::vector<int>& which, double modelLeaves) {
        std::pair<std::vector<int>, std::vector<double>> out;
        for (int i : which) {
            const VirtualWorker& w = m_workers.at(i);
            if (!m_drawn.contains(w.node.id)) continue;
            out.first.push_back(i);
            out.second.push_back(modelLeaves + downSeconds(i));
        }
        return out;
    }

    // The model's way down to worker `i`: its link, or its party's link (one model for the party, at
    // the link's whole bandwidth) and then its LAN. (A relayed worker's push's way up is its share
    // of the party link, as its party's workers push at once: VirtualWorker::beyond.)
    double downSeconds(int i, quint64 bytes = 0) {  // (0: the model)
        bytes = bytes ? bytes : modelBytes();
        if (const PartyServer* via = m_partyOf[size_t(i)]) return via->link.seconds(bytes) + kLan.seconds(bytes);
        return m_workers.at(i).modelSeconds(bytes);
    }

    // A push as its server takes it, or its worker declared down heartbeat_timeout_s after it went off
    // before the push was in (its trace's interval it was on in as the model left, `leaves`, ended).
    Arrival arrivalOf(const Push& p, double leaves) {
        const VirtualWorker& w = m_workers.at(p.worker);
        const double off = m_availability.offAfter(w.node, leaves), at = p.arrivesAt;
        m_workers.countPush(p, off);
        if (off >= at) return {w.node.id, p.update, p.weight, at};
        // (Under fail the run stops; under continue its scheduler says it: the CLI and the Run tab show it.)
        const double declared = m_membership.wentOff(w.node.id, off, roundOf(m_model.version + 1));
        // Out of the round's later syncs (ssgd, esync), as deployed once it is declared down: it
        // trained on in each, and each waited heartbeat_timeout_s for it again. This one waits till
        // it is declared down (step: it was left out at once, and closed on the pushes that came).
        m_wentOff.push_back(w.node.id);
        return {w.node.id, nullptr, 0, declared, true};
    }

    void membership(double at, const QString& member, const char* state, const char* reason) {
        const QCborMap record{{QStringLiteral("member"), member},
                              {QStringLiteral("state"), QLatin1String(state)},
                              {QStringLiteral("reason"), QLatin1String(reason)}};
        stamped(at, [&] { m_global.report(metric::kMembership, record); });
    }

    // One model version: every drawn worker's push, the parties' sums, the global step.
    void step() {
        const qint64 push = m_model.version + 1, round = roundOf(push);
        draw(round, m_now);
        if (m_drawnContributors.isEmpty() && !waitForAWorker(round))
            return unchangedRound(push, m_now, "no worker is available, and no trace turns one on later (availability)");
        if (m_drawnContributors.isEmpty()) return;  // (drawn again at the time one comes on)
        const double leaves = m_now;
        if (m_esync) trainEsync(leaves);
        std::vector<Arrival> atGlobal;
        std::vector<Push> trained;
        for (const auto& p : m_parties) {
            if ((!p->collector && !p->collective) || !p->workers.intersects(m_drawn)) continue;
            const std::vector<Push> pushes = pushesOf(p->members, leaves);
            if (p->collective) {
                atGlobal.push_back(collectiveRound(*p, pushes, push, leaves));
                trained.insert(trained.end(), pushes.begin(), pushes.end());
                continue;
            }
            std::vector<Arrival> arrivals;
            for (const Push& x : pushes) {
                arrivals.push_back(arrivalOf(x, leaves));
                if (!arrivals.back().absent) p->traffic.received(m_workers.at(x.worker).node.id, modelBytes());
            }
            atGlobal.push_back(partyRound(*p, arrivals, push));
            trained.insert(trained.end(), pushes.begin(), pushes.end());
        }
        for (const Push& x : pushesOf(m_direct, leaves)) {
            atGlobal.push_back(arrivalOf(x, leaves));
            if (!atGlobal.back().absent) carriedUp(x.worker);
            trained.push_back(x);
        }
        applyRound(push, atGlobal, trained);
        for (const QString& id : m_wentOff) m_drawn.remove(id);  // (after the sync they went off in: arrivalOf)
        if (!std::exchange(m_wentOff, {}).empty()) countDrawnContributors();
    }

    // The links a push to the global server crosses: a relayed one's through its party server.
    void carriedUp(int worker) {
        const QString& id = m_workers.at(worker).node.id;
        PartyServer* via = m_partyOf[size_t(worker)];  // (one of m_direct's: relayed)
        if (!via) return m_traffic.received(id, modelBytes());
        via->traffic.received(id, modelBytes());
        via->traffic.sent(globalId(), modelBytes());
        m_traffic.received(via->node.id, modelBytes());
    }

    // The pushes of the drawn members of `which`: trained now on the pool, or (esync) taken from
    // the round's, trained together since the state service weighs every worker against the slowest.
    std::vector<Push> pushesOf(const std::vector<int>& which, double leaves) {
        const auto [members, modelAt] = turnsOf(which, leaves);
        if (!m_esync) return m_workers.train(members, modelAt, m_model);
        std::vector<Push> out;
        for (int i : members) out.push_back(m_esyncPushes.take(i));
        return out;
    }

    void trainEsync(double leaves) {
        std::vector<int> members;
        std::vector<double> modelAt;
        const auto take = [&](const std::vector<int>& which) {
            const auto [m, at] = turnsOf(which, leaves);
            members.insert(members.end(), m.begin(), m.end());
            modelAt.insert(modelAt.end(), at.begin(), at.end());
        };
        for (const auto& p : m_parties)
            if (p->collector || p->collective) take(p->members);  // (relayed: its workers are among m_direct)
        take(m_direct);
        m_esyncPushes.clear();
        for (Push& x : m_workers.trainUntilReady(members, modelAt, m_model, m_stateService)) m_esyncPushes.insert(x.worker, std::move(x));
    }

    // A party server's round: its sum, and when it reaches the global server.
    Arrival partyRound(PartyServer& p, std::vector<Arrival>& arrivals, qint64 push) {
        const auto start = WallClock::now();
        const Outcome o = collect(*p.collector, arrivals, push, size(), p.deadline, drawnAmong(m_topology, p.workers, roundOf(push)));
        if (!o.complete) return sitOut(p.node.id, arrivals);
        p.late += o.late;
        FloatBuffer sum = p.collector->takeFolded();
        if (!sum) {
            sum = p.pool.acquire(size());
            p.collector->write(sum->data(), nullptr, 0, size());
        }
        const double doneAt = o.at + wallSince(start);
        if (const QCborMap r = p.collector->ruleRecord(push); !r.isEmpty()) stamped(doneAt, [&] { p.metrics.report(metric::kRobust, r); });
        p.traffic.sent(globalId(), modelBytes());
        m_traffic.received(p.node.id, modelBytes());
        return {p.node.id, sum, p.collector->roundWeight(), doneAt + p.link.seconds(modelBytes())};
    }

    // A collective party's round: its workers' sum, by the party's collective once the last is done;
    // its lowest rank pushes the sum up. Each link inside the party carries what the collective sent
    // on it. A member off before its part was ready is lost (as arrivalOf's): under continue it is
    // declared down heartbeat_timeout_s later, and the sum done again over those left.
    Arrival collectiveRound(PartyServer& p, const std::vector<Push>& all, qint64 push, double leaves) {
        std::vector<Push> pushes;
        std::vector<Arrival> lost;
        double start = 0;
        for (const Push& x : all) {
            Arrival a = arrivalOf(Push{x.worker, x.update, x.weight, x.startedAt, x.finishedAt, x.finishedAt}, leaves);
            if (a.absent) lost.push_back(std::move(a));
            else pushes.push_back(x);
            start = std::max(start, a.absent ? a.at : x.finishedAt);
        }
        if (pushes.empty()) return sitOut(p.node.id, lost);
        std::vector<const float*> updates;
        std::vector<double> weights;
        for (const Push& x : pushes) {
            updates.push_back(x.update->data());
            weights.push_back(x.weight);
        }
        const auto c = sumCollectively(*p.collective, p.weights.get(), updates, weights, size(), p.members.size(), push, kLan,
                                       partiesPassOnUnreached(m_settings) ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
        VirtualWorker& pusher = m_workers.at(pushes.front().worker);
        for (size_t from = 0; from < pushes.size(); ++from) {
            VirtualWorker& w = m_workers.at(pushes[from].worker);
            for (size_t to = 0; to < pushes.size(); ++to)
                if (const quint64 bytes = c.bytes[from][to]; bytes > 0) {
                    w.traffic.sent(m_workers.at(pushes[to].worker).node.id, bytes);
                    m_workers.at(pushes[to].worker).traffic.received(w.node.id, bytes);
                }
        }
        pusher.traffic.sent(globalId(), modelBytes());
        m_traffic.received(pusher.node.id, modelBytes());
        const double doneAt = start + c.seconds;
        return {p.node.id, c.sum, c.weight, doneAt + p.link.seconds(modelBytes())};
    }

    // No worker drawn for `round` is on, by their availability traces: the round waits for the
    // first to come on, as a deployed server waits for pushes (and they pull the model then).
    // False when no trace turns one on again.
    bool waitForAWorker(qint64 round) {
        const QSet<QString> sampled = samplesClients(m_topology) ? sampledWorkers(m_topology, round) : QSet<QString>{};
        double next = std::numeric_limits<double>::infinity();
        for (int i = 0; i < m_workers.count(); ++i)
            if (const Node& n = m_workers.at(i).node; (sampled.isEmpty() || sampled.contains(n.id)) && !m_membership.hasLeft(n.id))
                next = std::min(next, m_availability.nextOn(n, m_now));
        if (!std::isfinite(next)) return false;
        const double before = std::exchange(m_now, next);
        m_drawnRound = -1;  // drawn again at the new time
        modelDown(round, before);
        return true;
    }

    // The round cannot train (`why`): the model goes on as it is, version `push`, at `at`.
    void unchangedRound(qint64 push, double at, const char* why) {
        std::printf("round %lld: %s; the model goes on unchanged\n", static_cast<long long>(roundOf(push)), why);
        m_model = ModelVersion::fromBuffer(push, std::make_shared<std::vector<float>>(m_model.data, m_model.data + size()));
        roundEnd(push, at);
    }

    void applyRound(qint64 push, std::vector<Arrival>& arrivals, const std::vector<Push>& trained) {
        const auto start = WallClock::now();
        const Outcome o =
            collect(*m_collector, arrivals, push, size(), m_globalDeadline, drawnAmong(m_topology, m_globalContributors, roundOf(push)));
        if (!o.complete) return unchangedRound(push, latestArrival(arrivals), "every contributor dropped out (availability)");
        FloatBuffer next = m_collector->takeFolded();
        if (m_collector->closedEmpty()) {  // every update was refused: the model as it was (as deployed)
            next = std::make_shared<std::vector<float>>(m_model.data, m_model.data + size());
        } else if (m_optimizer || m_fedOptimizer) {
            FloatBuffer aggregate = next;
            if (!aggregate) {
                aggregate = m_pool.acquire(size());
                m_collector->write(aggregate->data(), nullptr, 0, size());
            }
            next = m_pool.acquire(size());
            if (m_optimizer) m_optimizer->step(next->data(), m_model.data, aggregate->data(), size());
            else m_fedOptimizer->step(next->data(), m_model.data, aggregate->data(), size());
        } else if (!next) {
            next = m_pool.acquire(size());
            m_collector->write(next->data(), m_model.data, 0, size());
        }
        m_model = ModelVersion::fromBuffer(push, next);
        const double apply = wallSince(start);
        m_applySeconds += apply;
        const double doneAt = o.at + apply;
        m_late += o.late;
        if (const QCborMap r = m_collector->ruleRecord(push); !r.isEmpty()) stamped(doneAt, [&] { m_global.report(metric::kRobust, r); });
        // Each worker's wait as deployed, from its push's leaving to the answer's first slice; its comm.
        for (const Push& x : trained) {
            VirtualWorker& w = m_workers.at(x.worker);
            const double answered = doneAt + downSeconds(x.worker);
            w.waitSeconds += std::max(0.0, doneAt + downSeconds(x.worker, wireBytes(std::min(size(), kSliceFloats))) - x.finishedAt);
            w.commSeconds += std::max(0.0, answered - x.finishedAt);
        }
        roundEnd(push, doneAt);
    }

    // The version's records: the workers' rounds, the servers' traffic, the aggregate, the evaluation.
    void roundEnd(qint64 version, double doneAt) {
        m_now = doneAt;
        modelDown(roundOf(version + 1));
        const qint64 perRound = m_settings.workerPushesPerRound(), steps = m_settings.globalStepsPerRound();
        if (version % perRound == 0)
            for (int i = 0; i < m_workers.count(); ++i) {
                VirtualWorker& w = m_workers.at(i);
                if (m_membership.isDown(w.node.id)) w.dropRound();  // (it went off before its push was in)
                else if (w.trained) stamped(doneAt + downSeconds(i), [&] { m_workers.reportRound(w, version / perRound, perRound); });
            }
        if (version % steps != 0) return;
        const qint64 round = version / steps;
        stamped(doneAt, [&] {
            for (const auto& p : m_parties)
                if (!p->collective)  // (no party server: its links are its workers')
                    p->metrics.report(metric::kTraffic, p->trafficOf(round));
            reportGlobalTraffic(round);
            m_global.report(metric::kAggregate, {{metric::kRound, round},
                                                 {metric::kApplySeconds, std::exchange(m_applySeconds, 0.0)},
                                                 {metric::kLatePushes, qint64(m_late)},
                                                 {metric::kOverclaims, qint64(m_collector->overclaims())},
                                                 {metric::kRoundSeconds, doneAt - m_roundStart}});
        });
        m_lastRoundSeconds = doneAt - m_roundStart;
        m_roundStart = doneAt;
        if (round % std::max(1, m_settings.evalEvery) == 0 || round >= m_settings.rounds) evaluate(round, doneAt);
    }

    void reportGlobalTraffic(qint64 round) { m_global.report(metric::kTraffic, trafficRecord(m_traffic, round)); }

    // The master's evaluation of the round's model (SimEvaluation.h).
    void evaluate(qint64 round, double at) {
        finishEvaluation();
        m_traffic.sent(masterNode(m_topology), modelBytes());
        m_masterTraffic.received(globalId(), modelBytes());
        stamped(at, [&] { m_master.report(metric::kTraffic, trafficRecord(m_masterTraffic, round)); });
        m_evaluation->start(round, at, m_model);
    }

    void finishEvaluation() {
        const auto done = m_evaluation->finish();
        if (!done) return;
        const double stamp = m_stamp;
        stamped(done->at, [&] { m_master.report(metric::kEval, done->record); });
        m_stamp = stamp;
    }

    // Runs `report` with the records stamped `at` on the virtual clock.
    template <typename Report>
    void stamped(double at, Report report) {
        m_stamp = at;
        report();
    }

    const Topology& m_topology;
    const TrainingSettings& m_settings;
    Options m_options;
    double m_stamp = 0;  // the virtual time records are stamped with
    Availability m_availability;
    VirtualWorkers m_workers;
    MetricsReporter m_global, m_master;
    TrafficCounter m_traffic;  // the global server's
    TrafficCounter m_masterTraffic;  // the master's: its initial model up, each model it evaluates down
    SimMembership m_membership;
    std::unique_ptr<MasterEvaluation> m_evaluation;
    ModelVersion m_model;
    ModelBufferPool m_pool;
    std::vector<std::unique_ptr<PartyServer>> m_parties;
    std::vector<int> m_direct;  // workers that push to the global server (flat, central, relayed)
    std::vector<PartyServer*> m_partyOf;  // by worker: its party's server (or collective), if any
    QSet<QString> m_globalContributors;
    std::unique_ptr<RoundCollector> m_collector;
    std::optional<MomentumSgd> m_optimizer;
    std::optional<FedOptimizer> m_fedOptimizer;
    Deadline m_globalDeadline;
    const bool m_esync = ModeRegistry::policy(m_settings.mode).stateService;
    EsyncState m_stateService;  // esync: the state service's rule, on the virtual clock
    QHash<int, Push> m_esyncPushes;  // esync: this version's, by worker
    qint64 m_drawnRound = -1, m_reportedDraw = 0;
    QSet<QString> m_drawn, m_drawnContributors;  // of m_drawnRound
    std::vector<QString> m_wentOff;  // the workers that went off in this sync (arrivalOf)
    double m_now = 0, m_roundStart = 0, m_lastRoundSeconds = 0, m_applySeconds = 0;
    quint64 m_late = 0;
};

}  // namespace

void simulate(const Topology& topology, const Options& options) {
    Simulation(topology, options).run();
}

}  // namespace hips::sim
