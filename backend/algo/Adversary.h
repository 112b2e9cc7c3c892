#pragma once
// Simulated Byzantine workers (Draco's and the robust-aggregation papers' attacks): what a worker
// that lies sends instead of its honest update. Declared in the topology on a worker group, on a
// whole party, or for the run as "each round, a seeded random `count` of the training workers"
// (Draco's setting); the same draw in every process, so the run is reproducible.
#include "StrategyInfo.h"

#include <QString>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hips {

struct AdversarySpec {
    QString kind;  // reverse, constant, gaussian, label_flip, alie, ipm (AdversaryRegistry)
    double strength = 0;  // reverse: k in −k·update; constant: the value; gaussian: σ; alie: z; ipm: ε
    int count = 0;  // run-wide only: attackers drawn each round (0: a group's or party's, always)
    bool operator==(const AdversarySpec& o) const { return kind == o.kind && strength == o.strength && count == o.count; }
};

class AdversaryRegistry {
public:
    static const StrategyList& all();  // each kind's `strength` parameter with its range and default
    static const StrategyInfo* find(const QString& kind) { return findStrategy(all(), kind); }
    static double defaultStrength(const QString& kind);
};

// Replaces `update` (n floats, the honest push) by the attack's: reverse −k·update, constant c
// everywhere, gaussian N(0, σ²) drawn from `seed`. label_flip changes the data, not the update:
// nothing here.
void corruptUpdate(const AdversarySpec& attack, float* update, size_t n, uint64_t seed);
// The attacks that train on flipped labels (label_flip) instead of changing the update.
bool flipsLabels(const QString& kind);

// The attacks that need the honest updates of the round (alie, ipm): the liars collude, and a
// server simulates them on what it received (the papers' omniscient attacker; Collusion.h).
bool isColluding(const QString& kind);
// ALIE's z_max for `n` contributions of which `liars` lie (Baruch et al. 2019).
double alieZ(int n, int liars);
// The one vector every colluding liar sends, from the round's `honest` updates (n floats each):
// alie mean − z·σ per coordinate (z = strength, or alieZ(contributors, liars) when 0), ipm
// −ε·mean. Nothing is written when no update is honest.
void colludingUpdate(const AdversarySpec& attack, const std::vector<const float*>& honest, size_t n, int contributors, int liars,
                     float* out);

// Whether training worker `index` (of `workers`) is among the `count` attackers of round `round`
// in a run seeded `seed`: a seeded permutation of the workers, its first `count` attack.
bool drawnToAttack(int index, int workers, int count, int seed, int64_t round);

}  // namespace hips
