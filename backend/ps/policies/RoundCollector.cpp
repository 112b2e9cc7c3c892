#include "RoundCollector.h"

#include "AggregatorRegistry.h"
#include "DataPlan.h"
#include "ModeRegistry.h"
#include "PrivacyMechanism.h"
#include "PrintableText.h"
#include "RoleError.h"
#include "VectorMath.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <algorithm>
#include <cmath>

namespace hips {

std::unique_ptr<AggregationRule> makeAggregationRule(const TrainingSettings& settings, RuleTier tier) {
    // Central DP at the party: its workers' updates clipped and summed, noised once (validation
    // makes sure the party's rule is fedavg, the sum this is).
    if (tier == RuleTier::Party && settings.privacy && settings.privacy->atParty())
        return std::make_unique<privacy::PrivateSumRule>(settings.privacy->clipNorm, settings.privacy->noiseMultiplier);
    const QString& name = tier == RuleTier::Party ? settings.partyAggregation : settings.aggregation;
    auto a = AggregatorRegistry::create(
        name, [&settings, tier](const QString& p) { return tier == RuleTier::Party ? settings.partyParam(p) : settings.param(p); });
    if (!a)
        throw RoleError("unknown aggregation '" + name.toStdString() + "'; known: " + AggregatorRegistry::names().join(", ").toStdString());
    return a;
}

bool partiesRelayWorkers(const TrainingSettings& s) {
    if (s.flat()) return false;  // no party servers: the workers push to the global server themselves
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    const auto global = makeAggregationRule(s, RuleTier::Global), party = makeAggregationRule(s, RuleTier::Party);
    return policy.party == TierSync::Rounds && policy.global == TierSync::Rounds && !policy.hierarchicalFrequency &&
           global->needsIndividuals() && party->foldsOnArrival();
}

int requiredContributors(double setting, int n) {
    if (setting <= 0) return n;
    if (setting < 1) return std::max(1, ceilOfFraction(setting, n));
    return std::clamp(int(setting), 1, std::max(n, 1));
}

RoundCollector::RoundCollector(const QString& self, QSet<QString> contributors, std::unique_ptr<AggregationRule> rule, int quorum)
    : m_contributors(std::move(contributors)),
      m_rule(std::move(rule)),
      m_log(self),
      m_quorum(quorum > 0 && quorum < m_contributors.size() ? quorum : int(m_contributors.size())) {
    m_partialRound = m_quorum < int(m_contributors.size());
    m_totalShare = float(m_contributors.size());
    QStringList ordered(m_contributors.begin(), m_contributors.end());
    ordered.sort();
    for (int i = 0; i < ordered.size(); ++i) m_rank.insert(ordered[i], i);
}

bool RoundCollector::add(Envelope& push, qint64 expectedRound, size_t expectedSize) {
    const Message& m = push.message;
    const qint64 round = m.integer(QStringLiteral("round")), offset = m.integer(QStringLiteral("offset")),
                 total = m.integer(QStringLiteral("total"));
    QString from = push.peer;
    if (const QString origin = m.fields.value(QStringLiteral("origin")).toString(); !origin.isEmpty()) {
        if (m_relayOf.value(origin) != push.peer) {
            reject(push, QStringLiteral("relays a push of '%1', which is not one of its own workers").arg(printableText(origin, 80)));
            return false;
        }
        from = origin;
    }
    if (!m_contributors.contains(from)) {
        reject(push, QStringLiteral("not a contributor of this server"));
        return false;
    }
    // A round closed already takes no push again, even before the model that answers it is here
    // (a party server's comes from the global server): late, not a round opened anew.
    if ((round < expectedRound || round <= m_closedRound) && lateTolerated()) {  // a backup worker's, or a late one's
        if (m.integer(QStringLiteral("offset")) == 0) ++m_late;
        return false;
    }
    if (round != expectedRound || round <= m_closedRound) {
        reject(push, round <= m_closedRound ? QStringLiteral("push for round %1, which is closed").arg(round)
                                            : QStringLiteral("push for round %1 while round %2 is open").arg(round).arg(expectedRound));
        return false;
    }
    if (round == m_sitOutRound && m_sitOut.contains(from)) {  // it said it would not: counted as late
        if (offset == 0) ++m_late;
        return false;
    }
    if (m_drawn && !drawnFor(expectedRound).contains(from)) {
        reject(push, QStringLiteral("not drawn for round %1 (clients_per_round)").arg(expectedRound));
        return false;
    }
    const size_t count = m.frames.size() == 1 && m.frames[0].size() % sizeof(float) == 0 ? m.frames[0].size() / sizeof(float) : 0;
    if (total <= 0 || size_t(total) != expectedSize || !isCanonicalSlice(offset, total, count)) {
        reject(push, QStringLiteral("payload is not a slice of a %1-float update").arg(expectedSize));
        return false;
    }
    // The samples behind the push (absent: 1); a weight that is no positive finite number is refused.
    // A party's push sums its workers' claims: it may claim the most of each worker behind it.
    const QCborValue weightField = m.fields.value(QStringLiteral("weight"));
    const double claimed = weightField.isUndefined() ? 1.0 : weightField.toDouble(-1);
    if (!(claimed > 0 && claimed <= kMostSamplesAWorkerClaims * double(shareOf(from)))) {
        reject(push, QStringLiteral("weight is not a positive number of samples"));
        return false;
    }
    // A claim beyond the plan is refused: the push counts as the plan's most (an honest worker's
    // full round), and the claim is logged and counted. Its values still go in, so one liar
    // neither buys weight nor stalls the round.
    double weight = claimed;
    if (const auto bound = m_claimBounds.constFind(from); bound != m_claimBounds.constEnd() && claimed > *bound) {
        weight = *bound;
        if (m.integer(QStringLiteral("offset")) == 0) {
            ++m_overclaims;
            m_log.reject(push.peer, QStringLiteral("push claims %1 samples, and the plan gives it at most %2 a push "
                                                   "(local_iters x batch_size); counted as %2")
                                        .arg(claimed)
                                        .arg(*bound));
        }
    }
    if (roundOpen() && expectedRound != m_openRound) m_deliveries.clear();  // overtaken: the model moved on without it
    if (m_deliveries.isEmpty()) startRound(expectedSize, expectedRound);
    Delivery& d = m_deliveries[from];
    if (d.slices.empty()) {
        d.slices.resize(sliceCount(expectedSize));
        d.weight = weight;
    }
    const size_t index = size_t(offset) / kSliceFloats;
    if (d.slices[index]) {
        reject(push, QStringLiteral("second push of floats %1.. in round %2").arg(offset).arg(round));
        return false;
    }
    d.slices[index] = true;
    ++d.count;
    SharedFloats values = shareFloats(std::move(push.message.frames[0]));
    const bool accepted = folding() && !partial() ? foldInOrder(index, m_rank.value(from), std::move(values))
                                                  : accept(from, d, size_t(offset), std::move(values), expectedSize);
    if (!accepted) {
        ++m_nonFinite;
        d.spoiled = true;
        reject(push, QStringLiteral("floats %1..%2 hold NaN or infinite values; not aggregated").arg(offset).arg(offset + qint64(count)));
        // Left out as a lost contributor's slice is: the others' sum of it stands for all (it
        // counted as zeros, and a round with a broken worker took a step 1/N short).
        if (folding() && !partial()) {
            ++m_leftOutPerSlice[index];
            m_leftOutSharePerSlice[index] += shareOf(from);
        }
    }
    sliceDelivered(index);
    if (d.count < d.slices.size()) return false;
    if (!folding() && !d.spoiled && d.assembly) addToRule(Contribution{from, d.weight, d.assembly->data(), expectedSize, d.assembly});
    if (!folding() && d.spoiled && m_rule->codesWorkers()) {
        // A row of Draco's code in error (zeros), not a row less: the others keep their groups
        // and rows, and the code outvotes it as it would a liar.
        auto zeros = std::make_shared<std::vector<float>>(expectedSize, 0.0f);
        m_rule->add(Contribution{from, d.weight, zeros->data(), expectedSize, zeros});
    }
    // A refused update closes the round as a whole one does (one broken worker never stalls it),
    // but its share is not in the result: the others' stands for it, and for its samples (its
    // weight). (Draco's code decodes the whole sum in spite of it.)
    m_weight += d.weight;
    if (!d.spoiled || m_rule->codesWorkers()) m_completeShare += shareOf(from);
    if (++m_complete < needed()) return false;
    closeRound();
    return true;
}

std::optional<size_t> RoundCollector::takeFinalSlice() {
    if (m_finalSlices.empty()) return std::nullopt;
    const size_t first = m_finalSlices.front();
    m_finalSlices.erase(m_finalSlices.begin());
    return first;
}

bool RoundCollector::completed(const QString& contributor) const {
    const auto it = m_deliveries.find(contributor);
    return it != m_deliveries.end() && !it->slices.empty() && it->count == it->slices.size();
}

// Those left out of the open round (down, or past its deadline) are not waited for, even when
// they come back before it closes: their slices of it were counted as delivered with nothing.
int RoundCollector::needed() const {
    int missing = int(m_leftOut.size());
    for (const QString& a : m_absent) missing += !completed(a) && !m_leftOut.contains(a);
    return std::min(m_quorum, int(m_contributors.size()) - missing);
}

void RoundCollector::setShares(const QHash<QString, double>& workersBehind) {
    m_shares = workersBehind;
    m_totalShare = 0;
    for (const QString& c : m_contributors) m_totalShare += shareOf(c);
}

void RoundCollector::setPlan(const Topology& topology, const QSet<QString>& contributors) {
    setClaimBounds(claimBounds(topology, contributors));
    setShares(workersBehind(topology, contributors));
}

// A contributor's slices not yet in count as delivered with nothing, as a refused slice does: the
// fold order and the final slices go on without it. Its whole update is out of this round.
void RoundCollector::leaveOut(const QString& contributor) {
    m_leftOut.insert(contributor);
    Delivery& d = m_deliveries[contributor];
    if (d.slices.empty()) d.slices.resize(sliceCount(m_length));
    d.spoiled = true;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (d.slices[i]) continue;
        d.slices[i] = true;
        ++m_leftOutPerSlice[i];
        m_leftOutSharePerSlice[i] += shareOf(contributor);
        if (folding() && !partial()) foldInOrder(i, m_rank.value(contributor), SharedFloats{});
        sliceDelivered(i);
    }
}

bool RoundCollector::setAbsent(const QString& contributor, bool absent) {
    if (!m_contributors.contains(contributor)) return false;
    if (!absent || m_absent.contains(contributor)) {
        if (!absent) m_absent.remove(contributor);
        return false;
    }
    m_absent.insert(contributor);
    if (!roundOpen() || completed(contributor)) return false;  // the next round begins without it
    leaveOut(contributor);
    if (m_complete == 0 || m_complete < needed()) return false;
    closeRound();
    return true;
}

bool RoundCollector::sitOut(const QString& contributor, qint64 round) {
    if (!m_drawn || !m_contributors.contains(contributor) || !drawnFor(round).contains(contributor)) return false;
    if (round != m_sitOutRound) m_sitOut.clear();
    m_sitOutRound = round;
    m_sitOut.insert(contributor);
    if (!roundOpen() || round != m_openRound || completed(contributor) || m_leftOut.contains(contributor)) return false;
    leaveOut(contributor);
    if (m_complete == 0 || m_complete < needed()) return false;
    closeRound();
    return true;
}

bool RoundCollector::noneCanDeliver(qint64 round) {
    if (!m_drawn) return false;
    const bool open = roundOpen() && round == m_openRound;
    bool anyDrawn = false;
    for (const QString& c : drawnFor(round)) {
        if (!m_contributors.contains(c)) continue;
        anyDrawn = true;
        const bool out = m_absent.contains(c) || (round == m_sitOutRound && m_sitOut.contains(c));
        if (!out || (open && completed(c))) return false;
    }
    return anyDrawn;  // (none drawn: nothing is waited for, and the round is not this server's to close)
}

bool RoundCollector::closeEmpty(qint64 round, size_t size) {
    if (!noneCanDeliver(round)) return false;
    if (!roundOpen() || round != m_openRound) {
        m_deliveries.clear();
        startRound(size, round);
    }
    for (const QString& c : m_contributors)
        if (!completed(c) && !m_leftOut.contains(c)) leaveOut(c);
    closeRound();
    return true;
}

void RoundCollector::dropRound() {
    m_deliveries.clear();
    m_fold = {};
    m_finalSlices.clear();
}

bool RoundCollector::closeWithWhatCame(int atLeast) {
    if (!roundOpen() || m_complete < std::max(atLeast, 1)) return false;
    for (const QString& c : m_contributors)
        if (!completed(c)) leaveOut(c);
    closeRound();
    return true;
}

QCborMap RoundCollector::ruleRecord(qint64 round) const {
    if (m_noneCame) return {};  // (the rule's report is an earlier round's)
    QCborMap r = m_rule->report();  // the rule's own fields (iterations, undecided groups, …) as they are
    if (r.isEmpty()) return {};
    r.insert(QString(metric::kRound), round);
    r.insert(QStringLiteral("rule"), m_rule->name());
    const QCborArray selected = r.take(QStringLiteral("selected")).toArray();
    const QCborArray rejected = r.take(QStringLiteral("rejected")).toArray();
    if (!selected.isEmpty() || !rejected.isEmpty()) {
        r.insert(QString(metric::kSelected), selected.size());
        r.insert(QString(metric::kRejected), rejected.size());
        r.insert(QStringLiteral("selected_ids"), selected);
        r.insert(QStringLiteral("rejected_ids"), rejected);
    }
    return r;
}

// The round's result is complete: ranges no contribution reached keep the base, and the
// aggregate of a quorum stands for every contributor.
double RoundCollector::openWeight() const {
    if (m_deliveries.isEmpty()) return m_roundWeight;  // the round just closed
    double total = 0;  // (as roundWeight: not those left out, whose samples are not in the round)
    for (auto it = m_deliveries.cbegin(); it != m_deliveries.cend(); ++it)
        if (!m_leftOut.contains(it.key())) total += it->weight;
    return total;
}

// A rule that takes a centre sees each contribution per worker behind it: a party's sum over
// its 6 workers and another's over 1 are points alike only as each one's mean.
void RoundCollector::addToRule(Contribution c) {
    const float share = shareOf(c.from);
    if (m_rule->centres() && share != 1.0f) {
        auto perWorker = std::make_shared<std::vector<float>>(c.values, c.values + c.length);
        for (float& v : *perWorker) v /= share;
        c.values = perWorker->data();
        c.owner = std::move(perWorker);
    }
    m_rule->add(std::move(c));
}

void RoundCollector::closeRound() {
    m_deliveries.clear();
    m_closedRound = std::max(m_closedRound, m_openRound);
    m_roundWeight = std::exchange(m_weight, 0.0);
    // None came, or every one was refused; folded slice by slice as they came (no quorum, none
    // absent), a slice any contribution reached went out as final: the round is empty only when
    // none did. (Two updates each refused for a different slice made it "empty" after every slice
    // had gone out new: the pullers' model was not the server's.)
    m_emptyRound = folding() && !partial()
                       ? std::all_of(m_foldedPerSlice.begin(), m_foldedPerSlice.end(), [](int folded) { return folded == 0; })
                       : m_completeShare == 0;
    m_noneCame = m_complete == 0;
    if (!folding() && !m_noneCame) m_rule->finish();  // (every one refused: a robust rule says its round is short)
    if (!folding() && !m_noneCame && m_rule->shortRound()) m_emptyRound = true;
    m_scale = m_completeShare > 0 ? m_totalShare / m_completeShare : m_totalShare;
    // A centre per worker, as the tier's workers' sum (its n × centre is of the n contributions).
    if (!folding() && m_rule->centres() && m_rule->contributions() > 0) m_scale = m_totalShare / float(m_rule->contributions());
    if (!folding()) return;
    if (!partial()) m_scale = 1.0f;  // folded in order: each slice was scaled when it became final
    float* out = m_fold.out->data();
    for (size_t i = 0; i < m_foldedPerSlice.size(); ++i) {
        if (m_foldedPerSlice[i] > 0) continue;
        const size_t begin = i * kSliceFloats;
        unreached(out, m_fold.base, begin, std::min(m_length, begin + kSliceFloats));
    }
    if (m_scale != 1.0f) rescaleAround(out, m_fold.base, m_length, m_scale);
}

void RoundCollector::startRound(size_t expectedSize, qint64 round) {
    m_openRound = round;
    m_length = expectedSize;
    m_complete = 0;
    m_completeShare = 0;
    m_rule->beginRound(expectedSize, round);
    m_weight = 0;
    m_fold = {};  // back to the pool before asking it again
    m_partialRound = m_quorum < int(m_contributors.size()) || !m_absent.isEmpty();
    // A quorum closes a round on whole contributions: a slice of one that does not make it must
    // not be in the sum, so several-slice updates are folded only when every contributor counts.
    // (A round with a contributor down is partial too, but not a race: the rule sums in the
    // senders' order, not folded in arrival order, so its bits do not depend on the network.)
    const bool race = m_quorum < int(m_contributors.size());
    if (m_foldTarget && m_rule->foldsOnArrival() && (!partial() || (race && sliceCount(expectedSize) == 1))) {
        m_fold = m_foldTarget();
        if (!m_fold.out || m_fold.out->size() != expectedSize) m_fold = {};  // not this round, then
    }
    m_foldedPerSlice.assign(sliceCount(expectedSize), 0);
    m_nextRank.assign(sliceCount(expectedSize), 0);
    m_held.assign(sliceCount(expectedSize), {});
    m_deliveredPerSlice.assign(sliceCount(expectedSize), 0);
    m_finalSlices.clear();
    m_leftOut.clear();
    m_leftOutPerSlice.assign(sliceCount(expectedSize), 0);
    m_leftOutSharePerSlice.assign(sliceCount(expectedSize), 0.0f);
    for (const QString& c : m_contributors)
        if ((m_drawn && !drawnFor(round).contains(c)) || (round == m_sitOutRound && m_sitOut.contains(c))) leaveOut(c);
}

const QSet<QString>& RoundCollector::drawnFor(qint64 round) {
    if (round != m_drawnRound) {
        m_drawnSet = m_drawn(round);
        m_drawnRound = round;
    }
    return m_drawnSet;
}

// Folds slice `index` of contributor `rank` when every contributor before it has been folded (then
// any held ones that follow), else checks and holds it. Returns false when it is not finite.
bool RoundCollector::foldInOrder(size_t index, int rank, SharedFloats&& values) {
    std::vector<Held>& held = m_held[index];
    if (rank != m_nextRank[index]) {
        const bool finite = allFinite(values.data, values.size);
        held.push_back(Held{rank, finite ? std::move(values) : SharedFloats{}});
        return finite;
    }
    const bool finite = values.data ? fold(index, values) : true;  // (nothing: left out)
    // The held slices that now come in order (checked when held) go in together, in one pass: a
    // round whose first contributor came last folds all the others here, after its last push.
    std::vector<const float*> run;
    for (++m_nextRank[index];; ++m_nextRank[index]) {
        const auto next = std::find_if(held.begin(), held.end(), [&](const Held& h) { return h.rank == m_nextRank[index]; });
        if (next == held.end()) break;
        if (next->values.data) run.push_back(next->values.data);
    }
    foldChecked(index, run);
    held.erase(std::remove_if(held.begin(), held.end(), [&](const Held& h) { return h.rank < m_nextRank[index]; }), held.end());
    return finite;
}

// Folds one slice into the round's result: the first to reach a range seeds it (base + slice),
// checked in the same pass; the others are checked, then added. (Held slices, checked when they
// came, go in through foldChecked.)
bool RoundCollector::fold(size_t index, const SharedFloats& values) {
    const size_t offset = index * kSliceFloats;
    float* out = m_fold.out->data() + offset;
    int& folded = m_foldedPerSlice[index];
    if (folded == 0 && !seedIfFinite(out, m_fold.base ? m_fold.base + offset : nullptr, values.data, values.size)) return false;
    if (folded > 0) {
        if (!allFinite(values.data, values.size)) return false;
        addInto(out, values.data, values.size);
    }
    ++folded;
    return true;
}

// Folds checked slices into the round's result in their order, each read once and the result
// written once (the same sums, value by value, as folding them one after the other).
void RoundCollector::foldChecked(size_t index, const std::vector<const float*>& slices) {
    if (slices.empty()) return;
    const size_t offset = index * kSliceFloats, length = std::min(kSliceFloats, m_length - offset);
    float* out = m_fold.out->data() + offset;
    int& folded = m_foldedPerSlice[index];
    if (folded == 0) sumMany(out, m_fold.base ? m_fold.base + offset : nullptr, slices.data(), slices.size(), length);
    else addMany(out, slices.data(), slices.size(), length);
    folded += int(slices.size());
}

// Checks a slice and, when all its values are finite, folds it into the round's result (the
// first contribution to a range seeds it, in one pass with the check), or keeps it for the rule:
// as it is when it is the whole update, else copied into its sender's.
bool RoundCollector::accept(const QString& from, Delivery& d, size_t offset, SharedFloats&& values, size_t expectedSize) {
    if (folding()) return fold(offset / kSliceFloats, values);  // a quorum's round: in arrival order
    if (!allFinite(values.data, values.size)) return false;
    if (values.size == expectedSize) {
        addToRule(Contribution{from, d.weight, values.data, values.size, std::move(values.owner)});
    } else {
        if (!d.assembly) d.assembly = std::make_shared<std::vector<float>>(expectedSize);
        std::copy(values.data, values.data + values.size, d.assembly->data() + offset);
    }
    return true;
}

// Once every contributor's push of a slice is in (folded or refused), that slice of the result
// is final; a range no contribution reached (every sender's slice was refused) keeps the base.
void RoundCollector::sliceDelivered(size_t index) {
    if (++m_deliveredPerSlice[index] < int(m_contributors.size()) || !folding() || partial()) return;
    const size_t begin = index * kSliceFloats, end = std::min(m_length, begin + kSliceFloats);
    float* out = m_fold.out->data();
    if (m_foldedPerSlice[index] == 0) {
        unreached(out, m_fold.base, begin, end);
    } else if (m_leftOutPerSlice[index] > 0) {  // those left out: the slice's sum stands for all (before it goes out)
        const float present = m_totalShare - m_leftOutSharePerSlice[index];
        rescaleAround(out + begin, m_fold.base ? m_fold.base + begin : nullptr, end - begin, m_totalShare / present);
    }
    m_finalSlices.push_back(index);
}

void RoundCollector::reject(const Envelope& push, const QString& why) {
    ++m_rejected;
    m_log.reject(push.peer, QStringLiteral("push: ") + why);
}

ModelVersion applyAndSend(Channel& channel, const ModelVersion& w, RoundCollector& round, const QStringList& pullers, ModelBufferPool& pool,
                          ModelStreamer* streamer) {
    if (FloatBuffer folded = round.takeFolded()) {  // computed as the pushes came in
        const ModelVersion next = ModelVersion::fromBuffer(w.version + 1, folded);
        ModelStreamer whole;
        (streamer ? *streamer : whole).finish(channel, pullers, next);
        return next;
    }
    FloatBuffer buffer = pool.acquire(w.size);
    const ModelVersion next = ModelVersion::fromBuffer(w.version + 1, buffer);
    for (size_t offset = 0; offset < w.size; offset += kSliceFloats) {
        const size_t count = std::min(kSliceFloats, w.size - offset);
        round.write(buffer->data(), w.data, offset, offset + count);
        for (const QString& peer : pullers) channel.send(peer, sliceOf(next, offset).toMessage(message::kModel));
    }
    return next;
}

}  // namespace hips
