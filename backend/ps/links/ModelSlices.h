#pragma once
// How models and pushes travel: in slices, one message each, cut the one canonical way, sent
// zero-copy, put back together by the receiver, streamed by a server as each becomes final.
#include "Channel.h"
#include "ModelBuffers.h"
#include "Topology.h"

#include <QHash>
#include <QStringList>
#include <optional>
#include <QSet>
#include <vector>

namespace hips {

// Models and pushes travel in slices of kSliceFloats, one message each (a model slice is
// {version, offset, total} + a zero-copy frame, a push slice {round, offset, total, pull} + one).
// A server folds each push slice into the round's result as it arrives, while the other pushes
// are still on the wire, and sends each slice of the new model as soon as every contributor's push
// of it is in; a party server forwards slices before the last has arrived. Measured with
// bench_dataplane: 256 KiB slices were no faster for one worker (ZeroMQ hands a burst over at
// once) and cost four workers a quarter of their throughput at 1 MB (four times the messages,
// and a model of several slices must be copied into one piece by each worker).
constexpr size_t kSliceFloats = 256 * 1024;  // 1 MiB

inline size_t sliceCount(size_t floats) {
    return (floats + kSliceFloats - 1) / kSliceFloats;
}

// Sends `values` as the push for `round` (the sender's count), computed from model version
// `base`, on a dealer channel, all slices or the one at `index`; `pull` asks for the next model too.
// `origin`: the worker whose push a party server forwards (asynchronous modes), if any.
// `weight`: the training samples behind the push (a rule may weigh by them); 0 leaves it out.
void sendPush(Channel& channel, qint64 round, qint64 base, const FloatBuffer& values, bool pull, const QString& origin = {},
              double weight = 0);
void sendPushSlice(Channel& channel, qint64 round, qint64 base, const FloatBuffer& values, size_t index, bool pull,
                   const QString& origin = {}, double weight = 0);

// A collective party's member's part of the sum, as a party server takes a worker's push
// (RoundCollector): each slice (of the canonical cut) of `values` that holds a value that is not a
// finite number is left out, zeroed. Returns a flag per slice, 1 where it is in: summed with the
// values, the flags count the slice's contributors.
std::vector<float> keepFiniteSlices(float* values, size_t count);
// Whether a party's sum passes a range that none of its workers' updates reached (each was
// refused: NaN) on as not finite, for the global server to leave that range of the party out, the
// others' sum standing for it, as it does a worker's: where the global tier closes rounds over the
// parties' sums, folding them as they come (fedavg, no quorum). Zeros there counted as the party's
// update and pulled that range of the average towards no change. Not where the global server applies each sum as it comes (zeros are no
// change there, and NaN would cost the party's whole sum), under HFA (its party model moves by the
// sum), nor under secure aggregation (a masked sum must stay finite for its masks to cancel).
bool partiesPassOnUnreached(const TrainingSettings& settings);
// The party's sum stands for all its `members`: each slice is scaled by members / its count of
// contributors (`present`), as a party server's sum is for those it left out (lost or refused). A
// slice none reached is `unreached` (0, or NaN: partiesPassOnUnreached, RoundCollector.h).
void standForEveryMember(float* sum, size_t count, const float* present, size_t members, float unreached = 0.0f);

// The canonical cut of a vector of `total` floats into slices: offsets on slice boundaries,
// every slice full but the last. Distinct offsets that pass cover it without holes.
bool isCanonicalSlice(qint64 offset, qint64 total, size_t count);

struct ModelSlice {
    qint64 version = -1;
    size_t offset = 0, total = 0;
    SharedFloats floats;

    Message toMessage(const QString& type) const;
    // Validates the header against the frame; nullopt (and a line on stderr) when malformed.
    static std::optional<ModelSlice> fromMessage(Message&& m, const QString& from);
};

// The slice of `model` that starts at `offset` (sharing its bytes).
ModelSlice sliceOf(const ModelVersion& model, size_t offset);

// Sends every slice of `model` to `peer`.
void sendModel(Channel& channel, const QString& peer, const ModelVersion& model, const QString& type);

// Puts a model back together from its slices (workers and the master need it contiguous).
class ModelAssembler {
public:
    explicit ModelAssembler(size_t expectedSize) : m_expectedSize(expectedSize) {}
    // Returns the whole model once the last slice of a version has arrived.
    std::optional<ModelVersion> add(const ModelSlice& slice);

private:
    ModelBufferPool m_pool;
    FloatBuffer m_buffer;
    size_t m_expectedSize;
    qint64 m_version = -1;
    size_t m_received = 0;
    QSet<size_t> m_offsets;
};

// Sends a round's new model to its pullers slice by slice as each slice becomes final, while
// the round's other pushes are still arriving; then, once the round is complete, whatever each
// puller has not had yet.
class ModelStreamer {
public:
    // Slice `index` of the next version (`out`, `version`) is final: to every peer in `pullers`.
    void sliceFinal(Channel& channel, const QStringList& pullers, qint64 version, const FloatBuffer& out, size_t index);
    // The whole of `next` to `pullers`, but for the slices each already has; then a new round.
    void finish(Channel& channel, const QStringList& pullers, const ModelVersion& next);

private:
    QHash<QString, std::vector<bool>> m_sent;  // this round's slices sent, by peer
};

}  // namespace hips
