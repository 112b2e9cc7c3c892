#pragma once
// What a run's privacy settings leave to it before it starts, and the guarantee it ends with:
// "auto" noise set from target_epsilon and the rounds, and rounds that would exceed
// target_epsilon cut off (the run then ends "privacy budget reached"). One Gaussian mechanism per
// round (sampling none), accounted by PrivacyAccountant.
#include "Topology.h"

#include <QHash>
#include <QJsonObject>

namespace hips {

struct PrivacyPlan {
    QString error;  // not even one round fits the target: the run cannot start
    QString note;  // what was settled, for the user ("noise multiplier 1.23 from …"); empty: nothing
    bool cut = false;  // the rounds were cut to stay within target_epsilon
};

// Settles `t`'s training in place (idempotent: a settled run settles to itself). The budget is
// spent over the most draws of any worker (mostDraws), as the guarantee is stated.
PrivacyPlan settlePrivacy(Topology* t);

// ε after `rounds` rounds of `p`'s mechanism, for its δ.
double privacyEpsilon(const PrivacySettings& p, int rounds);
// The run's (its settled privacy): under client sampling a worker's data is used only in the rounds
// it is drawn for, so ε composes over the most draws any worker has by then (mostDraws), not over
// every round. (No amplification by subsampling is claimed: that needs a secret Poisson draw, and
// this one is seeded and recorded.)
double privacyEpsilon(const Topology& t, int rounds);
// The most rounds of the first `rounds` that one worker is drawn for (rounds without sampling).
int mostDraws(const Topology& t, int rounds);
// mostDraws round after round, each round's draw counted once: the GUI's facts ask at every round
// of a run, where mostDraws from the start each time cost the rounds squared (a 1,000-round run
// replayed from the history froze the window). A round before the last asked starts it over.
class DrawTally {
public:
    explicit DrawTally(Topology t);
    int mostBy(int round);
    double epsilonBy(int round);  // privacyEpsilon(t, round)

private:
    Topology m_topology;
    QHash<QString, int> m_draws;
    int m_counted = 0, m_most = 0;
};
// The most of the first `rounds` rounds in which no worker is drawn more than `draws` times.
int roundsWithinDraws(const Topology& t, int rounds, int draws);
// Both count the rounds resumes trained again (privacy.rerun_rounds) on top.
// A resume from `checkpointRound` of a run whose records reach `lastRoundRecorded`: the rounds
// between had been trained, their noised updates sent; they are trained again, and noted so. So
// is the round after the last recorded, up to the run's `rounds`: its updates may have left
// before it was stopped (a worker's record comes only with the round's answer), and the round
// after the checkpoint where the records lag it. `rolesOutlivedRecords`: its controller died and
// its roles may have gone on unrecorded (orphan_timeout_s), up to the round of the next
// checkpoint, which never came: those rounds count too.
void noteRerunRounds(Topology* t, int checkpointRound, int lastRoundRecorded, bool rolesOutlivedRecords = false);

// Which restarts of the roles that add the noise use a round's data once more. A role restarted
// mid-round trains (or sums) its open round again with fresh noise; the round counts once more for
// as many times as the most any one role was restarted in it (a shared trainer's workers restart
// together, each once). A controller that attaches to a run knows how many such uses its first
// controller counted, not whose: each is taken as any role's, so a role restarted again is
// counted again (an over-count where it was another role: the stated ε errs on the safe side).
class RestartUses {
public:
    // True when this restart of `role` in `round` is one more use of that round's data.
    bool countRestart(int round, const QString& role);
    // One use of `round` counted by an earlier controller of the run, for a role unknown.
    void takeUpEarlier(int round);

private:
    QHash<int, QHash<QString, int>> m_restarts;  // by round, by role: this controller's
    QHash<int, int> m_uses, m_earlier;  // by round: all counted; the earlier controllers'
};

// The guarantee as summary.json, the report and `hips history show` state it: epsilon, delta,
// where, clip_norm, noise_multiplier, secure_aggregation, and budget_reached when `cut`.
QJsonObject privacyGuarantee(const PrivacySettings& p, int rounds, bool cut);
// The run's: the above for its privacy settings (none: no epsilon), with secure aggregation's
// secure_aggregation and secure_aggregation_threshold; empty when it has neither.
QJsonObject privacyGuarantee(const Topology& t, int rounds, bool cut);

}  // namespace hips
