#pragma once
// The one list of the names the roles, the controller, the history and the report share: the
// kinds of metric a role reports ("@metric {"kind": ..., fields}"), their fields, the names the
// history stores them under ("kind.field"), and the message types of the data plane and the
// schedulers. A name is spelled here and nowhere else.
#include <QLatin1String>

namespace hips {

namespace metric {
// Kinds.
inline constexpr QLatin1String kTrain{"train"};  // a worker's round: loss, samples, compute_s, comm_s
inline constexpr QLatin1String kEval{"eval"};  // the master's evaluation: test_acc, test_loss, eval_s, skipped
inline constexpr QLatin1String kAggregate{"aggregate"};  // the global server's round: apply_s, round_s
inline constexpr QLatin1String kTraffic{"traffic"};  // bytes per link and tier: links, wire_errors, undeliverable
inline constexpr QLatin1String kStartup{"startup"};  // a trainer's start-up phases: process_s, data_s, join_s, ...
inline constexpr QLatin1String kAsyncPush{"async_push"};  // a push applied as it came: from, base, staleness
inline constexpr QLatin1String kModelInit{"model_init"};
inline constexpr QLatin1String kRendezvous{"rendezvous"};
inline constexpr QLatin1String kSchedulerDone{"scheduler_done"};  // nodes (members), byes (said bye), down
inline constexpr QLatin1String kDevice{"device"};  // what a trainer trains on: torch (LibTorch and CPU or CUDA), device, gpu
inline constexpr QLatin1String kMembership{"membership"};  // a scheduler's: member, state (down, up), reason; a worker's own: state left
inline constexpr QLatin1String kRobust{"robust"};  // a robust rule's round at a server: rule, selected, rejected (+ the senders)
inline constexpr QLatin1String kSample{"sample"};  // client sampling: the workers drawn for a round (global server 0)
inline constexpr QLatin1String kPartyEval{"party_eval"};  // a party's own test (its held-out rows): test_acc, correct, samples, test_loss
inline constexpr QLatin1String kUsage{
    "usage"};  // a role process's CPU and memory, with each of its traffic reports: cpu_percent, rss_bytes

// Fields every record has.
inline constexpr QLatin1String kKind{"kind"};
inline constexpr QLatin1String kNode{"node"};  // the node that reported it ("party1/worker0")
inline constexpr QLatin1String kTime{"t"};  // seconds since the epoch: the role's host's clock, kept on the controller's (ClockOffset.h)

// Fields.
inline constexpr QLatin1String kRound{"round"};
inline constexpr QLatin1String kLoss{"loss"};
inline constexpr QLatin1String kSamples{"samples"};
inline constexpr QLatin1String kComputeSeconds{"compute_s"};
inline constexpr QLatin1String kCommSeconds{"comm_s"};
// The part of comm_s from the push's leaving to the answer's first slice (its way up included:
// a sender cannot see when its bytes are through).
inline constexpr QLatin1String kWaitSeconds{"wait_s"};
inline constexpr QLatin1String kTestAccuracy{"test_acc"};
inline constexpr QLatin1String kTestLoss{"test_loss"};
inline constexpr QLatin1String kTestRmse{"test_rmse"};  // a regression's score, in place of test_acc (lower is better)
inline constexpr QLatin1String kTestTop5{"test_top5"};  // top-5 accuracy (classification with >= 5 classes)
inline constexpr QLatin1String kSkipped{"skipped"};  // eval: the rounds before it left unevaluated (a newer model came first)
// party_eval: held-out samples the model got right
inline constexpr QLatin1String kCorrect{"correct"};
inline constexpr QLatin1String kConfusion{"confusion"};  // the final model's confusion matrix, row = true class
inline constexpr QLatin1String kApplySeconds{"apply_s"};
inline constexpr QLatin1String kRoundSeconds{"round_s"};
inline constexpr QLatin1String kStaleness{"staleness"};  // async_push: versions applied between a push's base and itself
inline constexpr QLatin1String kOrigin{"origin"};  // async_push: the worker whose push it was
inline constexpr QLatin1String kClassCounts{"class_counts"};  // a worker's shard, per class (startup)
// the parts of the data a worker trains on, each by a name of its own with its samples (startup)
inline constexpr QLatin1String kDataParts{"data_parts"};
inline constexpr QLatin1String kFeatureNames{"feature_names"};  // each feature column's name, where the data names them (startup)
inline constexpr QLatin1String kClassNames{"class_names"};  // each label's name, where the data names them (startup)
// A worker of a party's own data (startup): its source's owner ("party 'p1'"), and what that
// source holds on its host (rows and a digest: every host that reads it must read the same)
inline constexpr QLatin1String kDataSource{"data_source"};
inline constexpr QLatin1String kSourceDigest{"source_digest"};
inline constexpr QLatin1String kOverclaims{"overclaims"};  // pushes that claimed more samples than the plan (counted as its most)
inline constexpr QLatin1String kLatePushes{"late_pushes"};  // pushes that came after a quorum closed their round
// 1 when the worker sent an adversary's update in the round
inline constexpr QLatin1String kAttacked{"attacked"};
inline constexpr QLatin1String kRedundancy{"redundancy"};  // data parts a worker trained on (Draco's codes: r× the work)
inline constexpr QLatin1String kSelected{"selected"};  // robust: contributions the rule kept (count)
inline constexpr QLatin1String kRejected{"rejected"};  // robust: contributions the rule left out (count)
inline constexpr QLatin1String kLocalSteps{"local_steps"};  // local steps a worker took in the round
// hips simulate: the threads per core on a worker's host its measured steps were stretched by
// (its drawn workers and the master's evaluation beside them; at least 1)
inline constexpr QLatin1String kContention{"contention"};
inline constexpr QLatin1String kCpuPercent{"cpu_percent"};  // usage: CPU time / wall time since its last report (100 = one core)
inline constexpr QLatin1String kRssBytes{"rss_bytes"};  // usage: resident memory now
// local_steps per push (ESync: per synchronisation)
inline constexpr QLatin1String kStepsPerPush{"steps_per_push"};

// traffic: one entry per link, {peer, tier, sent, received} (bytes so far).
inline constexpr QLatin1String kLinks{"links"};
inline constexpr QLatin1String kPeer{"peer"};
inline constexpr QLatin1String kTier{"tier"};
inline constexpr QLatin1String kSent{"sent"};
inline constexpr QLatin1String kReceived{"received"};
// traffic: the node's links as its earlier processes counted them (a restart, a resume), which
// the controller added into `links`: what a controller that attaches to the run adds on too.
inline constexpr QLatin1String kCarried{"carried"};
// traffic: which process of the node counted them (drawn at its start): a record of another than
// the last one's is a new process's, counting from zero, though the controller never heard the
// last one end (it died meanwhile, and another attached).
inline constexpr QLatin1String kProcessInstance{"instance"};
inline constexpr QLatin1String kTierInside{"inside"};  // a link within a party
inline constexpr QLatin1String kTierAcross{"across"};  // a link between parties (the WAN)

// As the history stores them: kind + '.' + field (tst_topology checks each is so made).
inline constexpr QLatin1String kStoredTrainLoss{"train.loss"};
inline constexpr QLatin1String kStoredTrainSamples{"train.samples"};
inline constexpr QLatin1String kStoredComputeSeconds{"train.compute_s"};
inline constexpr QLatin1String kStoredCommSeconds{"train.comm_s"};
inline constexpr QLatin1String kStoredTestAccuracy{"eval.test_acc"};
inline constexpr QLatin1String kStoredTestRmse{"eval.test_rmse"};
inline constexpr QLatin1String kStoredTestLoss{"eval.test_loss"};
inline constexpr QLatin1String kStoredTestTop5{"eval.test_top5"};
inline constexpr QLatin1String kStoredPartyAccuracy{"party_eval.test_acc"};
inline constexpr QLatin1String kStoredPartyRmse{"party_eval.test_rmse"};
inline constexpr QLatin1String kStoredApplySeconds{"aggregate.apply_s"};
inline constexpr QLatin1String kStoredRoundSeconds{"aggregate.round_s"};
inline constexpr QLatin1String kStoredCpuPercent{"usage.cpu_percent"};
inline constexpr QLatin1String kStoredRssBytes{"usage.rss_bytes"};
}  // namespace metric

namespace message {
// Data plane.
inline constexpr QLatin1String kPush{"push"};  // {round, base, offset, total, pull} + a slice of an update
inline constexpr QLatin1String kPull{"pull"};  // {version}: the model of at least that version, please
inline constexpr QLatin1String kModel{"model"};  // {version, offset, total} + a slice of a model
// Between two ends' codecs (LinkCodecs): {offset, total}: a change to that slice of the model came
// after one that was lost; the slice whole, please.
inline constexpr QLatin1String kCodecResync{"codec_resync"};
inline constexpr QLatin1String kInit{"init"};  // the master's initial model, to the global server
// {round}: the master evaluated the final round's model; the global servers wait for it (a master
// restarted while evaluating it gets it again).
inline constexpr QLatin1String kEvaluated{"evaluated"};
// Secure aggregation, between the party servers and their global server (SecureParty.h, SecureSum.h).
inline constexpr QLatin1String kSecureHello{"secure_hello"};  // party: it started, holding no keys
inline constexpr QLatin1String kSecureSetup{"secure_setup"};  // global: {epoch, from_round, members}: new keys, please
inline constexpr QLatin1String kSecureKeys{"secure_keys"};  // party: {epoch, public_key, boxes {member: box}}
inline constexpr QLatin1String kSecureGroup{"secure_group"};  // global: {epoch, keys {member: key}, boxes {member: box to you}}
inline constexpr QLatin1String kSecureRecover{"secure_recover"};  // global: {epoch, party}: your share of its key, please
inline constexpr QLatin1String kSecureShare{"secure_share"};  // party: {epoch, party, x, y}
// party: {round, epoch, base, offset, total, pull, weight} + a slice of its masked sum, 64-bit words
inline constexpr QLatin1String kMaskedPush{"masked_push"};
// Schedulers.
inline constexpr QLatin1String kRegister{"register"};
inline constexpr QLatin1String kTable{"table"};
inline constexpr QLatin1String kHeartbeat{"heartbeat"};
inline constexpr QLatin1String kBarrier{"barrier"};
inline constexpr QLatin1String kBarrierOk{"barrier_ok"};
inline constexpr QLatin1String kAbort{"abort"};
inline constexpr QLatin1String kBye{"bye"};
inline constexpr QLatin1String kMemberDown{"member_down"};  // {node, reason}: to the members (fault_policy continue)
inline constexpr QLatin1String kMemberUp{
    "member_up"};  // {node, reason, restarted, endpoint}: it is back (heartbeats again, restarted, rejoined)
// A global server with a standby host sends each recovery point to the global scheduler
// ({round, version} + the model and the optimizer's state), which keeps the newest, says so
// ({version}), and hands it over with the table to the server's next process, wherever it runs.
inline constexpr QLatin1String kRecoveryPoint{"recovery_point"};
inline constexpr QLatin1String kRecoveryKept{"recovery_kept"};
// From a restarted scheduler to a member that heartbeats but has not registered with it: register
// again (the member's "register" then carries "rejoin": true).
inline constexpr QLatin1String kRejoin{"rejoin"};
// From a scheduler to a process of a node that another process of it replaced, placed later
// ({reason}): it stops for good (SchedulerIncarnations.h).
inline constexpr QLatin1String kSuperseded{"superseded"};
// ESync's state service.
inline constexpr QLatin1String kEsyncReset{"esync_reset"};  // {round}: this worker begins round t
inline constexpr QLatin1String kEsyncApply{"esync_apply"};  // {k, c}: k local steps of c seconds; go on?
inline constexpr QLatin1String kEsyncReady{"esync_ready"};  // {ready}
}  // namespace message

}  // namespace hips
