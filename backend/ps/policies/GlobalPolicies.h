#pragma once
// The global server's policies (ServerPolicy): rounds (fedavg, ssgd, hfa, esync: the contributions
// of a round folded, then w ← w + ΣΔ, or the optimizer's step on the gradient sum) and pushes as
// they come (asgd, dcasgd, mixed_sync: AsyncGlobalTier).
#include "FedOptimizer.h"
#include "ModelBuffers.h"
#include "ModelSlices.h"
#include "PendingPulls.h"
#include "RoleContext.h"
#include "ServerPolicy.h"

#include <QSet>
#include <functional>
#include <memory>
#include <optional>

namespace hips {

// What the global server's policies act on: its model, buffers and channel, owned by the role.
struct GlobalTier {
    RoleContext& ctx;
    Channel& channel;
    ModelVersion& model;
    ModelBufferPool& pool;
    PendingPulls& pulls;
    ModelStreamer& streamer;
    QSet<QString> contributors;
    std::function<void(const QString& peer, qint64 version)> addPull;
    std::function<void(const QStringList& peers)> served;  // they got the model now held
    std::function<void(const QString& peer)> done;  // a contributor got its last answer
    std::function<void(qint64 round)> roundDone;  // metrics, checkpoint, snapshot
    // Set where the server can be restarted (recoversGlobalServer): the next model is kept on
    // disk before anyone is sent any of it, so a restarted server is never behind its parties.
    std::function<void()> beforePublish = {};
    double applySeconds = 0;  // this round's, so far
    quint64 latePushes = 0;  // so far in the run
    quint64 overclaims = 0;  // workers' pushes that claimed more samples than the plan (flat, central)
};

class GlobalPolicy : public ServerPolicy {
public:
    // The server optimizer's state, for checkpoints (empty where the server has none).
    virtual std::vector<float> optimizerState() const { return {}; }
    virtual void restoreOptimizerState(std::vector<float>) {}
    // A message of a protocol the policy runs with its contributors (secure aggregation's masked
    // pushes and keys); false when it is none.
    virtual bool onProtocolMessage(Envelope&) { return false; }
    // A contributor that will not push `round`: a party server none of whose workers drawn for it
    // is up (client sampling under fault_policy continue). Its pull for the round is added apart.
    virtual void onSitOut(const QString&, qint64) {}
};

std::unique_ptr<GlobalPolicy> makeGlobalPolicy(GlobalTier& tier);

// fault_policy continue in a mode whose tiers run rounds, the parties sending sums (fedavg, ssgd,
// esync; not hfa, the asynchronous modes, or a robust rule that relays every worker): a global
// server that dies is restarted, from the model of the last round it sent anyone.
bool recoversGlobalServer(const TrainingSettings& settings);
// The run's server optimizer (FedOpt's FedAvgM, FedAdam, …) where it takes a step of its own,
// not FedAvg's (sgd at server_lr 1): stepping the model's weights, averaging its running
// statistics, in the shard of global server `server` of `servers` (key slicing).
std::optional<FedOptimizer> serverOptimizerFor(const TrainingSettings& settings, int servers = 1, int server = 0);

}  // namespace hips
