#include "VirtualWorkers.h"

#include "Adversary.h"
#include "DracoCodes.h"
#include "Collusion.h"
#include "DataPlan.h"
#include "DeviceProbe.h"
#include "PrivacyMechanism.h"
#include "ShardSummary.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <atomic>
#include <exception>
#include <mutex>
#include <queue>
#include <thread>
#include <time.h>

namespace hips::sim {

namespace {

// A question to ESync's state service (its step count, step time, round and number), framed.
constexpr quint64 kQuestionBytes = 128;

// What a piece of local work cost, for the clock: with one LibTorch thread a step runs wholly on
// the calling thread, and its CPU time is its cost on a core of its own, whatever else this
// process ran meanwhile (the pool's other threads, the master's evaluation). The wall time would
// count that contention too, which the clock charges once, as the host's (VirtualWorker::contention):
// measured so, a step cost 12.6 ms in a round of the pool and 8.4 ms alone (ESync's steps).
// With more LibTorch threads, part of the work is on theirs: the wall time.
template <typename Work>
RoundStats measured(int torchThreads, Work&& work) {
    const double before = threadCpuSeconds();
    RoundStats stats = work();
    if (torchThreads <= 1) stats.computeSeconds = threadCpuSeconds() - before;
    return stats;
}

}  // namespace

VirtualWorkers::VirtualWorkers(const Topology& topology, std::function<double()> clock, int threads)
    : m_topology(topology), m_clock(std::move(clock)), m_threads(std::max(1, threads)) {
    int index = 0;
    for (const Node& n : topology.nodes()) {
        if (n.kind != RoleKind::Worker) continue;
        auto w = std::make_unique<VirtualWorker>(n, index++);
        w->strategy = makeWorkerStrategy(topology, n);
        w->metrics.setClock(m_clock, false);
        m_byId.insert(n.id, int(m_workers.size()));
        m_workers.push_back(std::move(w));
    }
}

VirtualWorkers::~VirtualWorkers() = default;

// Built on the calling thread: loading a shard seeds LibTorch's process-wide generator.
void VirtualWorkers::build(VirtualWorker& w) {
    if (!w.trainers.empty()) return;
    const DataPlan plan = dataPlanOf(m_topology, w.node);
    for (const auto& [shard, coefficient] : plan.parts) {
        w.trainers.push_back(std::make_unique<LocalTrainer>(
            m_topology.training, TrainingData{plan.source, plan.owner, shard, plan.partitions, plan.stream}, w.node.device));
        w.coefficients.push_back(coefficient);
    }
    w.metrics.report(metric::kDevice, describeDevice(w.node.device));
    w.metrics.report(metric::kStartup, describeShards(plan, w.trainers, m_topology.training.regression()));
    // Parked until its turn (which loads the round's model): a round's workers are all built
    // before the first trains, and their weights would otherwise be held all at once.
    park(w);
}

// A run of many workers gives each one's weights back between its turns; a small one keeps them
// (no allocation at every turn: the steps of the few run as they run deployed).
void VirtualWorkers::park(VirtualWorker& w) const {
    for (auto& t : w.trainers) {
        t->park();
        if (count() > kWeightsKeptUpTo) t->releaseWeights();
    }
}

std::vector<Push> VirtualWorkers::train(const std::vector<int>& which, const std::vector<double>& modelAt, const ModelVersion& global) {
    for (int i : which) build(at(i));
    std::vector<Push> pushes(which.size());
    std::atomic<size_t> next{0};
    std::exception_ptr error;
    std::mutex errorLock;
    auto drain = [&] {
        for (size_t k; (k = next.fetch_add(1)) < which.size();) {
            try {
                pushes[k] = trainOne(at(which[k]), global);
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorLock);
                if (!error) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(m_threads, int(which.size())); ++t) pool.emplace_back(drain);
    drain();
    for (std::thread& t : pool) t.join();
    if (error) std::rethrow_exception(error);
    for (size_t k = 0; k < which.size(); ++k) {
        pushes[k].worker = which[k];
        pushes[k].finishedAt += modelAt[k];  // (trainOne put the compute's virtual seconds there)
        sent(at(which[k]), pushes[k], modelAt[k], global.size);
    }
    return pushes;
}

void VirtualWorkers::sent(VirtualWorker& w, Push& push, double modelAt, size_t floats) {
    const quint64 bytes = wireBytes(floats);
    push.startedAt = modelAt;
    push.arrivesAt = push.finishedAt + w.modelSeconds(bytes);
}

// A push is sent unless its worker went off before its work ended (it was counted as it trained,
// and a worker that came back later reported a push it never sent).
void VirtualWorkers::countPush(const Push& push, double off) {
    VirtualWorker& w = at(push.worker);
    // (a collective party's worker: its party's sum says what its links carried)
    if (!w.server.isEmpty() && off >= push.finishedAt) w.traffic.sent(w.server, wireBytes(push.update->size()));
}

std::vector<Push> VirtualWorkers::trainUntilReady(const std::vector<int>& which, const std::vector<double>& modelAt,
                                                  const ModelVersion& global, EsyncState& service) {
    for (int i : which) build(at(i));
    // A step's question reaches the service (the central party's) over the worker's party's link,
    // and its answer comes back the same way: the service hears the steps in the order they arrive.
    struct Heard {
        double at;
        size_t k;
        bool operator>(const Heard& o) const { return at > o.at || (at == o.at && k > o.k); }
    };
    std::priority_queue<Heard, std::vector<Heard>, std::greater<>> due;
    std::vector<RoundStats> work(which.size());
    std::vector<double> last(which.size());  // each one's last step's virtual seconds
    std::vector<double> ask(which.size());  // each one's question's way to the service, or its answer's back
    auto stepOf = [&](size_t k, double from) {
        const RoundStats s = measured(m_topology.training.threads, [&] { return at(which[k]).trainers.front()->step(); });
        work[k].loss += s.loss;
        work[k].samples += s.samples;
        work[k].computeSeconds += s.computeSeconds;
        ++work[k].steps;
        last[k] = computeSeconds(at(which[k]), s);
        due.push({from + last[k] + ask[k], k});
    };
    std::vector<const AdversarySpec*> attacks(which.size());
    for (size_t k = 0; k < which.size(); ++k) {
        VirtualWorker& w = at(which[k]);
        const Party* party = m_topology.party(w.node.party);
        ask[k] = (party ? acrossLink(*party) : kLan).seconds(kQuestionBytes);
        attacks[k] = attackOf(m_topology, w.node, global.version / m_topology.training.workerPushesPerRound() + 1);
        w.trainers.front()->setWeights(global.data);
        w.trainers.front()->setLabelFlip(attacks[k] && flipsLabels(attacks[k]->kind));
        service.reset(w.index, global.version + 1, modelAt[k] + ask[k]);
        stepOf(k, modelAt[k]);
    }
    std::vector<Push> pushes(which.size());
    while (!due.empty()) {
        const Heard s = due.top();
        due.pop();
        VirtualWorker& w = at(which[s.k]);
        if (!service.apply(w.index, int(work[s.k].steps), last[s.k], modelAt[s.k] + ask[s.k], s.at)) {
            stepOf(s.k, s.at + ask[s.k]);
            continue;
        }
        work[s.k].loss /= double(work[s.k].steps);
        pushes[s.k] = finishTurn(w, global, work[s.k], attacks[s.k]);
        pushes[s.k].worker = which[s.k];
        pushes[s.k].finishedAt = s.at + ask[s.k];
        sent(w, pushes[s.k], modelAt[s.k], global.size);
    }
    return pushes;
}

// The deployed worker's turn (WorkerRole.cpp): its work on every part of its data plan from the
// model, its update (Draco's codes combine the parts'), an attack's corruption, local noise.
Push VirtualWorkers::trainOne(VirtualWorker& w, const ModelVersion& global) {
    const TrainingSettings& s = m_topology.training;
    // (As deployed, a worker's push count follows the global version: one that sat rounds out, off
    // or not drawn, attacks in the rounds the server's record says.)
    const qint64 round = global.version / s.workerPushesPerRound() + 1;
    const AdversarySpec* attack = attackOf(m_topology, w.node, round);
    RoundStats total;
    for (auto& trainer : w.trainers) {
        trainer->setWeights(global.data);
        trainer->setLabelFlip(attack && flipsLabels(attack->kind));
        const RoundStats st = measured(s.threads, [&] { return w.strategy->work(*trainer, global.version + 1); });
        total.loss += st.loss / double(w.trainers.size());
        total.samples += st.samples;
        total.steps += st.steps;
        total.computeSeconds += st.computeSeconds;
    }
    return finishTurn(w, global, total, attack);
}

double VirtualWorkers::computeSeconds(const VirtualWorker& w, const RoundStats& work) const {
    return w.node.stepSeconds > 0 ? w.node.stepSeconds * double(work.steps) : work.computeSeconds * w.node.slowdown * w.contention;
}

Push VirtualWorkers::finishTurn(VirtualWorker& w, const ModelVersion& global, const RoundStats& work, const AdversarySpec* attack) {
    const TrainingSettings& s = m_topology.training;
    auto update = std::make_shared<std::vector<float>>(global.size);
    if (w.trainers.size() == 1 && w.coefficients.front() == 1.0) {
        w.strategy->update(*w.trainers.front(), global, update->data());
    } else {
        CodedSum push(global.size);
        std::vector<float> part(global.size);
        for (size_t k = 0; k < w.trainers.size(); ++k) {
            w.strategy->update(*w.trainers[k], global, part.data());
            push.add(w.coefficients[k], part.data());
        }
        push.write(update->data());
    }
    park(w);
    if (attack) {
        const uint64_t seed = (uint64_t(s.seed) << 32) ^ (uint64_t(w.index) << 20) ^ uint64_t(global.version);
        corruptUpdate(*attack, update->data(), update->size(), seed);
        w.attacked = true;
    }
    if (const auto& dp = s.privacy; dp && !dp->atParty()) {
        privacy::clipToNorm(update->data(), update->size(), dp->clipNorm);
        privacy::addGaussianNoise(update->data(), update->size(), dp->noiseMultiplier * dp->clipNorm);
    }
    const double pushes = double(s.workerPushesPerRound());
    w.round.loss += work.loss / pushes;
    w.round.samples += work.samples;
    w.round.steps += work.steps;
    // The compute on the virtual clock: the device's profile, else the measured time stretched.
    const double compute = computeSeconds(w, work);
    w.round.computeSeconds += compute;
    w.trained = true;
    Push p;
    p.update = std::move(update);
    p.weight = double(std::max<int64_t>(work.samples, 1));
    p.finishedAt = compute;
    return p;
}

void VirtualWorkers::reportRound(VirtualWorker& w, qint64 round, qint64 pushesPerRound) {
    const RoundStats& s = w.round;
    w.metrics.report(metric::kTraffic, trafficRecord(w.traffic, round));  // (first: as WorkerRole's)
    w.metrics.report(metric::kTrain, {{metric::kRound, round},
                                      {metric::kLoss, s.loss},
                                      {metric::kAttacked, w.attacked ? 1 : 0},
                                      {metric::kRedundancy, qint64(w.trainers.size())},
                                      {metric::kSamples, qint64(s.samples)},
                                      {metric::kComputeSeconds, s.computeSeconds},
                                      {metric::kLocalSteps, qint64(s.steps)},
                                      {metric::kContention, w.contention},
                                      {metric::kStepsPerPush, double(s.steps) / double(pushesPerRound)},
                                      {metric::kCommSeconds, w.commSeconds},
                                      {metric::kWaitSeconds, w.waitSeconds}});
    w.dropRound();
}

}  // namespace hips::sim
