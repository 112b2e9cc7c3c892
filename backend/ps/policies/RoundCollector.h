#pragma once
// A server's round: the contributors' push slices checked, folded or kept for the aggregation
// rule, and the next model applied and sent.
#include "AggregationRule.h"
#include "ModelSlices.h"
#include "RejectionLog.h"
#include "RoleContext.h"
#include "VectorMath.h"

#include <QHash>
#include <QSet>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

namespace hips {

// The rule of a tier: `aggregation` at the global server, `party_aggregation` at party servers.
enum class RuleTier { Global, Party };
// Whether party servers forward each worker's push to the global server (a global rule that needs
// individual contributions above party servers that would otherwise send a sum).
bool partiesRelayWorkers(const TrainingSettings& settings);
// A count or fraction (fault_policy's min_workers) of `n` contributors, at least 1; 0: all of them.
int requiredContributors(double setting, int n);
std::unique_ptr<AggregationRule> makeAggregationRule(const TrainingSettings& settings, RuleTier tier);

// One round of pushes from a known set of contributors, slice by slice (kSliceFloats):
// rejects strangers, repeated slices, wrong rounds, slices that are not the canonical cut of the
// expected size, and slices holding non-finite values (NaN, ±Inf), with a message on stderr
// (counted, rate-limited, naming the sender), never a crash. A rejected non-finite slice counts
// as delivered, so one bad value never stalls a round: under a rule that folds (a sum) only that
// slice of that sender is left out; under any other rule the sender's whole update is. What is
// left out is made up for as a lost contributor's is (the others' sum stands for it), and a
// round whose every update was refused leaves the model as it was (closedEmpty).
class RoundCollector {
public:
    // `quorum`: contributions that close a round (backup workers, ps_pytorch's
    // num_replicas_to_aggregate); 0 or more than the contributors: all of them. The first
    // `quorum` whole contributions make the round; their aggregate is scaled by
    // contributors / quorum (workers push Δ/N), and later pushes of a closed round are counted
    // as late and dropped.
    RoundCollector(const QString& self, QSet<QString> contributors, std::unique_ptr<AggregationRule> rule, int quorum = 0);

    // Contributions that come through a relay: a party server forwards its workers' pushes, each
    // naming its `origin`, when the global rule needs individual contributions. `relayOf` maps each
    // such contributor to the only peer that may carry its pushes.
    void setRelays(QHash<QString, QString> relayOf) { m_relayOf = std::move(relayOf); }
    // The most samples each contributor's push may claim (claimBounds, DataPlan.h); a larger claim
    // is refused (the push counts as the bound), logged and counted (overclaims()).
    void setClaimBounds(QHash<QString, double> bounds) { m_claimBounds = std::move(bounds); }
    // The training workers behind each contributor's push (workersBehind, DataPlan.h; 1 for one not
    // named). A round some contributors are left out of stands for all of them by these shares:
    // its sum is scaled by the whole's over the present's.
    void setShares(const QHash<QString, double>& workersBehind);
    // Both of the above for `contributors` of `topology`'s run.
    void setPlan(const Topology& topology, const QSet<QString>& contributors);
    // Client sampling (ClientSampling.h): the contributors that push in a round. The others are
    // left out of it from its start (their slices count as delivered with nothing, the fold order
    // goes on without them, and the sum stands for every contributor), and a push of theirs is refused.
    void setRoundContributors(std::function<QSet<QString>(qint64 round)> drawn) { m_drawn = std::move(drawn); }
    // Returns true when this push slice completed the round (every contributor's every slice is in).
    // Takes the payload frame out of `push` (the rule may keep it without a copy).
    bool add(Envelope& push, qint64 expectedRound, size_t expectedSize);
    bool add(Envelope&& push, qint64 expectedRound, size_t expectedSize) { return add(push, expectedRound, expectedSize); }
    // Where a round's result goes when it is folded on arrival: `out`, seeded with base + the
    // first contribution (the first contribution alone when base is null).
    struct FoldTarget {
        FloatBuffer out;
        const float* base = nullptr;
    };
    // Folds each accepted push slice into a buffer from `target` (asked for at a round's first
    // push) as it arrives, when the rule allows it (AggregationRule::foldsOnArrival). Slices are folded
    // in the contributors' order (by id), a slice that comes early held until those before it
    // are in (then all of those held go in together, in one pass): float addition is not
    // associative, and a sum in arrival order would make two runs
    // with the same seed differ (and a resumed run differ from the uninterrupted one). The arithmetic
    // then overlaps with the reception of the next slices and of the other pushes, each slice is
    // checked and added while it is in cache, and the round's result is ready when its last slice
    // is in (takeFolded). Measured with bench_dataplane: this is what brings 1 MB to the wire's speed.
    void foldOnArrival(std::function<FoldTarget()> target) { m_foldTarget = std::move(target); }
    // The completed round's result when it was folded; null otherwise (then use write()).
    FloatBuffer takeFolded() { return std::exchange(m_fold, FoldTarget{}).out; }
    // When folding: a slice that add() (or a contributor left out) made final (every
    // contributor's push of it is in), whose range of the round's result (foldBuffer()) may go out
    // before the round is complete; call until it returns nothing.
    std::optional<size_t> takeFinalSlice();

    // fault_policy continue. A contributor declared down is left out of the rounds until it is
    // back: the open round closes without it once every contributor that is up has delivered,
    // and the aggregate stands for every contributor (scaled by contributors / contributions, as a
    // quorum's). Returns true when this closed the open round.
    bool setAbsent(const QString& contributor, bool absent);
    // Client sampling under fault_policy continue. A contributor that will not push `round` (a
    // party server none of whose drawn workers is up says so) is left out of that round alone, as
    // if it were not drawn, and a push of its for it counts as late (one not drawn for it, or
    // without client sampling: nothing). True when this closed the open round.
    bool sitOut(const QString& contributor, qint64 round);
    // Whether every contributor drawn for `round` is down or sat it out without having delivered
    // it: nothing can come for that round. (False where none is drawn, and without client
    // sampling: such a run's servers wait for their contributors to come back, or for the
    // scheduler to stop the run.)
    bool noneCanDeliver(qint64 round);
    // Closes such a round with nothing: its result is the base (the model does not move). True
    // when it closed it.
    bool closeEmpty(qint64 round, size_t size);
    // Drops what such a round, when open, has (a party server sends nothing up for it).
    void dropRound();
    // Whether the last closed round had no whole contribution (closeEmpty's), or only refused ones.
    bool closedEmpty() const { return m_emptyRound; }
    // round_timeout_s: closes the open round with the whole contributions it has, if it has at
    // least `atLeast` (1 or more); those that did not deliver are left out of it. True when closed.
    bool closeWithWhatCame(int atLeast);
    // Pushes of a round that closed without them are counted as late and dropped (their senders
    // get the newest model), not refused: under a quorum, and under fault_policy continue.
    void tolerateLatePushes() { m_tolerateLate = true; }
    // A range of a sum with no base (foldOnArrival's, write()'s) that no contribution reached comes
    // out not finite (NaN) instead of zero: partiesPassOnUnreached.
    void passOnUnreached() { m_unreached = std::numeric_limits<float>::quiet_NaN(); }
    bool roundOpen() const { return !m_deliveries.isEmpty(); }
    qint64 openRound() const { return roundOpen() ? m_openRound : -1; }
    int contributions() const { return m_complete; }
    const FloatBuffer& foldBuffer() const { return m_fold.out; }
    // The last closed round's choices, as the metric record `robust` (rule, selected and rejected
    // counts, and the senders of each); empty for a rule that chooses nothing (FedAvg).
    QCborMap ruleRecord(qint64 round) const;
    // out = base + aggregate over [begin, end) when the round was not folded; see AggregationRule::write.
    void write(float* out, const float* base, size_t begin, size_t end) const {
        if (m_emptyRound) return unreached(out, base, begin, end);
        m_rule->write(out, base, begin, end);
        if (m_scale != 1.0f) rescaleAround(out + begin, base ? base + begin : nullptr, end - begin, m_scale);
    }
    int contributorCount() const { return int(m_contributors.size()); }
    quint64 rejected() const { return m_rejected; }
    quint64 rejectedNonFinite() const { return m_nonFinite; }
    quint64 late() const { return m_late; }  // pushes that came after their round had closed
    quint64 overclaims() const { return m_overclaims; }  // pushes whose claim of samples exceeded the plan
    // The weights (training samples) of the last closed round's contributions, summed: what a
    // party server's own push carries upstream.
    double roundWeight() const { return m_roundWeight; }
    // The weights of the open round's contributors so far (all of them once a slice is final), but
    // for those left out of it.
    double openWeight() const;
    const AggregationRule& rule() const { return *m_rule; }
    int quorum() const { return m_quorum; }

private:
    // What one contributor has delivered of the open round.
    struct Delivery {
        std::vector<bool> slices;
        size_t count = 0;
        bool spoiled = false;  // a slice was refused: its whole update is out (rules that do not fold)
        FloatBuffer assembly;  // its slices put together (rules that do not fold, several slices)
        double weight = 1;  // the samples behind it, from its push
    };
    // A slice that came before those of the contributors ahead of it in the fold order.
    struct Held {
        int rank;
        SharedFloats values;  // empty: refused (not finite), nothing to fold
    };
    void reject(const Envelope& push, const QString& why);
    // [begin, end) of a result that no contribution reached: the base, or m_unreached without one.
    void unreached(float* out, const float* base, size_t begin, size_t end) const {
        if (base) std::copy(base + begin, base + end, out + begin);
        else std::fill(out + begin, out + end, m_unreached);
    }
    bool foldInOrder(size_t index, int rank, SharedFloats&& values);
    bool fold(size_t index, const SharedFloats& values);
    void foldChecked(size_t index, const std::vector<const float*>& slices);
    void startRound(size_t expectedSize, qint64 round);
    bool accept(const QString& from, Delivery& d, size_t offset, SharedFloats&& values, size_t expectedSize);
    void sliceDelivered(size_t index);
    bool folding() const { return m_fold.out != nullptr; }
    // The open round folds in arrival order or not at all: a quorum, or a contributor absent when
    // it began (the fold order would wait for it). Decided when a round begins.
    bool partial() const { return m_partialRound; }
    bool lateTolerated() const { return m_tolerateLate || m_quorum < int(m_contributors.size()); }
    bool completed(const QString& contributor) const;
    float shareOf(const QString& contributor) const { return float(m_shares.value(contributor, 1.0)); }
    int needed() const;  // whole contributions that close the open round
    void leaveOut(const QString& contributor);
    void closeRound();
    void addToRule(Contribution c);

    const QSet<QString>& drawnFor(qint64 round);
    std::function<QSet<QString>(qint64)> m_drawn;
    qint64 m_drawnRound = -1;
    QSet<QString> m_drawnSet;  // of m_drawnRound
    std::function<FoldTarget()> m_foldTarget;
    FoldTarget m_fold;
    QSet<QString> m_contributors;
    QHash<QString, QString> m_relayOf;  // relayed contributor → its relay
    QHash<QString, Delivery> m_deliveries;  // this round's, by contributor; empty between rounds
    std::vector<int> m_foldedPerSlice, m_deliveredPerSlice;
    QHash<QString, double> m_shares;  // setShares'; 1 for those not in it
    float m_totalShare = 0, m_completeShare = 0;  // every contributor's; the open round's whole contributions'
    std::vector<float> m_leftOutSharePerSlice;
    QHash<QString, int> m_rank;  // each contributor's place in the fold order
    std::vector<int> m_nextRank;  // per slice: whose slice is folded next
    std::vector<std::vector<Held>> m_held;  // per slice: early ones
    std::vector<size_t> m_finalSlices;  // made final, not yet taken
    QSet<QString> m_absent;  // declared down, until back
    QSet<QString> m_leftOut;  // of the open round: not waited for any more
    qint64 m_sitOutRound = -1;
    QSet<QString> m_sitOut;  // of m_sitOutRound: sitOut's
    bool m_emptyRound = false;  // the last closed round had no contribution (or each was refused): its result is the base
    bool m_noneCame = false;  // ... and no push at all
    std::vector<int> m_leftOutPerSlice;  // of the open round: slices counted without a contribution
    bool m_tolerateLate = false, m_partialRound = false;
    size_t m_length = 0;
    qint64 m_openRound = -1;
    qint64 m_closedRound = -1;  // the newest round closed
    int m_complete = 0;
    std::unique_ptr<AggregationRule> m_rule;
    double m_weight = 0, m_roundWeight = 0;  // the open round's weights so far; the last closed round's
    RejectionLog m_log;
    quint64 m_rejected = 0, m_nonFinite = 0, m_late = 0, m_overclaims = 0;
    QHash<QString, double> m_claimBounds;
    int m_quorum;
    float m_scale = 1.0f;  // of the last closed round: contributors / quorum
    float m_unreached = 0.0f;  // passOnUnreached's
};

// w ← w + ΣΔ as the next version, sent to every peer in `pullers`. A round folded on arrival
// is the next version already (and `streamer`, when given, has sent what was final before);
// otherwise it is computed slice by slice into a pooled buffer and each slice goes out as soon as
// it is computed.
ModelVersion applyAndSend(Channel& channel, const ModelVersion& w, RoundCollector& round, const QStringList& pullers, ModelBufferPool& pool,
                          ModelStreamer* streamer = nullptr);

}  // namespace hips
