#pragma once
// The sequences of a collective party's exchanges (PartyCollective): the 24 bits of a chunk's tag
// (collectiveTag) that tell one exchange of one round's attempt from every other.
#include "TopologyLimits.h"

#include <QtGlobal>
#include <cstddef>

namespace hips::party_sequence {

// Each exchange of a round (the sum, the model's broadcast, at half precision the weights' sum)
// has its own sequence, and so has each attempt at it (the view's epoch: how many members were
// lost, at most one fewer than a party's workers, so epochs never alias), so a chunk of one is
// never taken for another's. Rounds take the 24 bits in turn, modulo kRoundsInSequence (5,461):
// a longer run starts them over (its members are never that many rounds apart).
constexpr int kExchanges = 3, kEpochs = int(kMaxDeployedNodes);
enum Exchange { kSum = 0, kModel = 1, kWeights = 2 };
// A new pushing worker's newest model (agreeAgain), its step the epoch: above every round's.
constexpr quint32 kAgreeSequence = 0xffffffu;
constexpr qint64 kRoundsInSequence = kAgreeSequence / (kExchanges * kEpochs);
static_assert(kRoundsInSequence > 1000, "members of a party are a few rounds apart at most");
inline quint32 sequenceOf(qint64 round, int exchange, size_t epoch = 0) {
    return quint32(((round % kRoundsInSequence) * kEpochs + qint64(epoch % kEpochs)) * kExchanges + exchange);
}
// Whether a tag is of a round before `round` (its chunks are an abandoned attempt's): fewer than
// half the sequence's rounds behind it, modulo.
inline bool ofAnEarlierRound(quint64 tag, qint64 round) {
    const qint64 tagRound = qint64(tag >> 40) / (kExchanges * kEpochs);
    if (tagRound >= kRoundsInSequence) return false;  // (agreeAgain's)
    const qint64 behind = (round % kRoundsInSequence - tagRound + kRoundsInSequence) % kRoundsInSequence;
    return behind > 0 && behind < kRoundsInSequence / 2;
}

// Whether a tag is of an attempt nobody will take up again, as `round`'s attempt at `epoch`
// begins: an earlier round's, this round's at an earlier epoch (members lost since), or a new
// pushing worker's model at an epoch below `agreeing` (the epoch of the agreement pending, else
// one past the members lost: those agreements are done). Kept, they filled the stash for good (a
// model sent again after a loss during its fan-out), and the member they came from was refused.
inline bool ofAnAbandonedAttempt(quint64 tag, qint64 round, size_t epoch, size_t agreeing) {
    const quint32 sequence = quint32(tag >> 40);
    if (sequence == kAgreeSequence) return ((tag >> 24) & 0xffffu) < agreeing;
    if (ofAnEarlierRound(tag, round)) return true;
    if (sequence % kExchanges == kModel) return false;  // (the round's model is tagged at epoch 0, whoever sends it)
    const qint64 attempt = sequence / kExchanges;
    return attempt / kEpochs == round % kRoundsInSequence && size_t(attempt % kEpochs) < epoch % kEpochs;
}

}  // namespace hips::party_sequence
