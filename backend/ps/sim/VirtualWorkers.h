#pragma once
// hips simulate's workers: every training worker of the topology as an object in one process,
// trained by a pool of threads (as many as cores), each with the deployed worker's own strategy
// (WorkerStrategy), trainers (LocalTrainer, over the one mapped copy of the data set: each holds
// its shard's rows), attacks and local noise. A worker's trainers are built at its first turn, so
// a worker never drawn (clients_per_round) costs nothing; between turns a worker keeps only its
// trainers' state: they are parked (LocalTrainer::park), and in a run of more than 64 workers
// their weights' memory is given back until the next turn loads the round's model.
#include "EsyncState.h"
#include "LocalTrainer.h"
#include "MetricsReporter.h"
#include "ModelBuffers.h"
#include "SimNetwork.h"
#include "TrafficCounter.h"
#include "WorkerStrategy.h"

#include <QHash>
#include <functional>
#include <memory>
#include <vector>

namespace hips::sim {

// One push of a virtual worker: its update, and when it happened on the virtual clock.
struct Push {
    int worker = -1;  // VirtualWorkers' index
    FloatBuffer update;
    double weight = 1;  // the samples behind it
    double startedAt = 0;  // its model came
    double finishedAt = 0;  // its local work ended (and the push left)
    double arrivesAt = 0;  // at its server
};

struct VirtualWorker {
    Node node;
    int index = 0;  // among the training workers: its seeds and draws
    QString server;  // the node it pushes to (empty: a collective party's worker, which sums with the others)
    LinkCost link;  // to that server, each way
    LinkCost beyond{0, 0};  // relayed: the party server's link on to the global server
    std::unique_ptr<WorkerStrategy> strategy;
    std::vector<std::unique_ptr<LocalTrainer>> trainers;  // built at its first turn
    std::vector<double> coefficients;
    MetricsReporter metrics;
    TrafficCounter traffic;
    // This round's work so far, reported once its last push is answered.
    RoundStats round;
    double commSeconds = 0, waitSeconds = 0;
    bool attacked = false, trained = false;
    // This round's share of its host: the drawn workers on it per core, at least 1 (a measured
    // step takes that much longer deployed, where they share the cores; SimNetwork.h's hostCores).
    double contention = 1;

    VirtualWorker(Node n, int i) : node(std::move(n)), index(i), metrics(node.id), traffic(node.party) {}
    double modelSeconds(quint64 bytes) const { return link.seconds(bytes) + beyond.seconds(bytes); }
    // Forgets this round's work: reported, or lost with the worker (it went off before its push
    // was in, and a deployed worker that goes says nothing of the round).
    void dropRound() {
        round = {};
        commSeconds = waitSeconds = 0;
        attacked = trained = false;
    }
};

class VirtualWorkers {
public:
    // `clock`: the virtual time records are stamped with (unix seconds).
    VirtualWorkers(const Topology& topology, std::function<double()> clock, int threads);
    ~VirtualWorkers();

    int count() const { return int(m_workers.size()); }
    VirtualWorker& at(int i) { return *m_workers[size_t(i)]; }
    int indexOf(const QString& id) const { return m_byId.value(id, -1); }
    // Trains each worker of `which` (its model there at modelAt[k]) from `global` on the pool;
    // each push's finishedAt is its start (the model's arrival) plus its compute on the virtual
    // clock: device_profile seconds a step, else its measured time times its slowdown and its
    // host's contention.
    std::vector<Push> train(const std::vector<int>& which, const std::vector<double>& modelAt, const ModelVersion& global);
    // ESync: every worker of `which` steps from `global` until the state service's rule (EsyncState,
    // the deployed service's) finds it ready, each step heard in the order of the virtual clock:
    // the fast do several while the slowest does one. One step at a time, in that order.
    std::vector<Push> trainUntilReady(const std::vector<int>& which, const std::vector<double>& modelAt, const ModelVersion& global,
                                      EsyncState& service);
    // Its round's train and traffic records, at the current stamp.
    void reportRound(VirtualWorker& w, qint64 round, qint64 pushesPerRound);
    int threads() const { return m_threads; }
    void countPush(const Push& push, double off);  // its bytes on its worker's link, unless it went off first

private:
    void build(VirtualWorker& w);
    void park(VirtualWorker& w) const;
    static constexpr int kWeightsKeptUpTo = 64;  // workers of a run that keep their weights between turns
    Push trainOne(VirtualWorker& w, const ModelVersion& global);
    // What trainOne and trainUntilReady share after the work: the update, an attack, local noise,
    // the round's tally; the push with its compute on the virtual clock as finishedAt.
    Push finishTurn(VirtualWorker& w, const ModelVersion& global, const RoundStats& work, const AdversarySpec* attack);
    double computeSeconds(const VirtualWorker& w, const RoundStats& work) const;
    void sent(VirtualWorker& w, Push& push, double modelAt, size_t floats);

    const Topology& m_topology;
    std::function<double()> m_clock;
    int m_threads = 1;
    std::vector<std::unique_ptr<VirtualWorker>> m_workers;
    QHash<QString, int> m_byId;
};

}  // namespace hips::sim
