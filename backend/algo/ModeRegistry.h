#pragma once
// Training modes (`training.mode`, `hips run --mode`): how workers and servers synchronise.
// This is the only list of modes: each is one entry of modes(), its help and parameters with the
// ModePolicy it is made of; the roles and validation read the policy, never a mode's name.
#include "StrategyInfo.h"

#include <functional>
#include <initializer_list>

namespace hips {

namespace mode {
inline constexpr char kFedAvg[] = "fedavg";
inline constexpr char kLocal[] = "local";
inline constexpr char kAsgd[] = "asgd";
inline constexpr char kDcAsgd[] = "dcasgd";
inline constexpr char kMixedSync[] = "mixed_sync";
inline constexpr char kSsgd[] = "ssgd";
inline constexpr char kHfa[] = "hfa";
inline constexpr char kEsync[] = "esync";
}  // namespace mode

// How a server of one tier takes its contributors' pushes.
enum class TierSync {
    Rounds,  // waits for every contributor's push of a round, then applies or forwards their sum
    AsPushesCome,  // applies (global) or forwards (party) each push alone as it arrives, and answers its sender
};

// What a mode is made of: how each tier takes its contributors' pushes (the party and global
// server policies, backend/ps), what a worker pushes (its strategy), and the traits validation
// and the roles read. A mode is one entry of ModeRegistry's table: composing the pieces that
// exist takes that line and nothing else.
struct ModePolicy {
    TierSync party = TierSync::Rounds, global = TierSync::Rounds;
    bool delayCompensation = false;  // DC-ASGD at the global server
    // Workers push the gradient of every step (not a round's delta); the global server owns the
    // optimizer (SGD with momentum) and applies the average gradient (synchronous SGD).
    bool gradientEveryStep = false;
    // GeoMX's HFA: workers push every k1 steps to their party server, which applies k2 such
    // party syncs locally before one goes to the global server.
    bool hierarchicalFrequency = false;
    // ESync: workers step until the state service says ready, then push their delta.
    bool stateService = false;
    // A round is local_iters synchronisations (ssgd: one step each; esync: one step of the slowest
    // each), so that `rounds` and `local_iters` mean as much training as in fedavg.
    bool roundOfSyncs = false;
    // Runs flat too (hierarchy flat: workers push straight to the global server).
    bool runsFlat = false;
    // The standalone baseline: the master trains alone, no other role starts.
    bool standalone = false;
    // Offers whole_push: each push applied whole (w + delta) instead of HiPS's damped w + delta / N.
    bool wholePushOption = false;

    // Rounds at both tiers: the global server's model at a round's end is the whole state to
    // resume from (with each worker's own), so it keeps checkpoints.
    bool resumable() const { return party == TierSync::Rounds && global == TierSync::Rounds; }
    // Pushes the change of a model (every mode but those that push gradients).
    bool pushesModelChanges() const { return !gradientEveryStep; }
    // FedAvg's rounds: every worker does the same local work from the global model and pushes its
    // delta once a round to its party server, which sums them (what Draco's codes decode).
    bool plainRounds() const {
        return resumable() && pushesModelChanges() && !hierarchicalFrequency && !stateService && !roundOfSyncs && !standalone;
    }

    // A policy with the traits named switched on: ModePolicy::with({&ModePolicy::roundOfSyncs}).
    static ModePolicy with(std::initializer_list<bool ModePolicy::*> traits, TierSync party = TierSync::Rounds,
                           TierSync global = TierSync::Rounds);
};

struct ModeInfo {
    StrategyInfo info;  // name, help, parameters, older names
    ModePolicy policy;
};

class ModeRegistry {
public:
    static const QList<ModeInfo>& modes();
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& nameOrAlias) { return findStrategy(all(), nameOrAlias); }
    // The policy of the mode named (an older name too); fedavg's for a name no mode answers to
    // (validation refuses that name on its own).
    static ModePolicy policy(const QString& name);
    // The modes whose policy has it, in the registry's order: what a message offers instead.
    static QStringList namesWhere(const std::function<bool(const ModePolicy&)>& has);
    // The share of its update a worker pushes where the global server sums deltas: 1/N (N training
    // workers), or 1 for a mode with whole_push set (each push applied whole, as published).
    static double pushShare(const QString& mode, double wholePush, int trainingWorkers);
};

}  // namespace hips
