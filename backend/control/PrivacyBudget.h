#pragma once
// What a run's privacy settings leave to it before it starts, and the guarantee it ends with:
// "auto" noise set from target_epsilon and the rounds, and rounds that would exceed
// target_epsilon cut off (the run then ends "privacy budget reached"). One Gaussian mechanism per
// round (sampling none), accounted by PrivacyAccountant.
#include "Topology.h"

#include <QJsonObject>

namespace hips {

struct PrivacyPlan {
    QString error;  // not even one round fits the target: the run cannot start
    QString note;  // what was settled, for the user ("noise multiplier 1.23 from …"); empty: nothing
    bool cut = false;  // the rounds were cut to stay within target_epsilon
};

// Settles `s` in place (idempotent: a settled run settles to itself).
PrivacyPlan settlePrivacy(TrainingSettings* s);

// ε after `rounds` rounds of `p`'s mechanism, for its δ.
double privacyEpsilon(const PrivacySettings& p, int rounds);
// The run's (its settled privacy): under client sampling a worker's data is used only in the rounds
// it is drawn for, so ε composes over the most draws any worker has by then (mostDraws), not over
// every round. (No amplification by subsampling is claimed: that needs a secret Poisson draw, and
// this one is seeded and recorded.)
double privacyEpsilon(const Topology& t, int rounds);
// The most rounds of the first `rounds` that one worker is drawn for (rounds without sampling).
int mostDraws(const Topology& t, int rounds);

// The guarantee as summary.json, the report and `hips history show` state it: epsilon, delta,
// where, clip_norm, noise_multiplier, secure_aggregation, and budget_reached when `cut`.
QJsonObject privacyGuarantee(const PrivacySettings& p, int rounds, bool cut);
// The run's: the above for its privacy settings (none: no epsilon), with secure aggregation's
// secure_aggregation and secure_aggregation_threshold; empty when it has neither.
QJsonObject privacyGuarantee(const Topology& t, int rounds, bool cut);

}  // namespace hips
