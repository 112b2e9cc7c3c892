#pragma once
// Training modes (`training.mode`, `hips run --mode`): how workers and servers synchronise.
// This is the only list of modes; the roles ask isMode() for the one they run.
#include "StrategyInfo.h"

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
    // Rounds at both tiers: the global server's model at a round's end is the whole state to
    // resume from (with each worker's own), so it keeps checkpoints.
    bool resumable() const { return party == TierSync::Rounds && global == TierSync::Rounds; }
};

class ModeRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& nameOrAlias) { return findStrategy(all(), nameOrAlias); }
    static ModePolicy policy(const QString& name);
    // The share of its update a worker pushes where the global server sums deltas: 1/N (N training
    // workers), or 1 for asgd and dcasgd with whole_push (each push applied whole, as published).
    static double pushShare(const QString& mode, double wholePush, int trainingWorkers);
};

inline bool isMode(const QString& setting, const char* name) {
    return setting == QLatin1String(name);
}

}  // namespace hips
