#pragma once
// Pieces shared by the party server and the global server.
#include "Aggregator.h"
#include "Channel.h"
#include "ModelFrame.h"
#include "RoleContext.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

namespace hips {

std::unique_ptr<Aggregator> makeAggregator(const TrainingSettings& settings);

// Model buffers for successive versions. A buffer is handed out again only when nothing
// else holds it (no reply carrying it is still in flight), so sends stay zero-copy and
// steady-state rounds allocate nothing.
class ModelBufferPool {
public:
    FloatBuffer acquire(size_t floats);

private:
    std::vector<FloatBuffer> m_buffers;
};

// A model version held by a server; its bytes are shared by every reply that carries it.
struct ModelVersion {
    qint64 version = -1;  // -1: no model yet
    std::shared_ptr<const void> owner;
    const float* data = nullptr;
    size_t size = 0;

    static ModelVersion fromFrame(qint64 version, zmq::message_t&& frame);
    static ModelVersion fromBuffer(qint64 version, FloatBuffer buffer);
};

// Models and pushes travel in slices of kSliceFloats, one message each (a model slice is
// {version, offset, total} + a zero-copy frame, a push slice {round, offset, total, pull} + one).
// A server folds each push slice into the round's result as it arrives, while the other pushes
// are still on the wire, and sends each slice of the new model as soon as every contributor's push
// of it is in; a party server forwards slices before the last has arrived. Measured with
// bench_dataplane: 256 KiB slices were no faster for one worker (ZeroMQ hands a burst over at
// once) and cost four workers a quarter of their throughput at 1 MB (four times the messages,
// and a model of several slices must be copied into one piece by each worker).
constexpr size_t kSliceFloats = 256 * 1024;  // 1 MiB

inline size_t sliceCount(size_t floats) { return (floats + kSliceFloats - 1) / kSliceFloats; }

// Sends `values` as the push for `round` on a dealer channel, all slices or the one at `index`;
// `pull` asks for the next model too.
void sendPush(Channel& channel, qint64 round, const FloatBuffer& values, bool pull);
void sendPushSlice(Channel& channel, qint64 round, const FloatBuffer& values, size_t index, bool pull);

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

// Sends every slice of `model` to `peer`.
void sendModel(Channel& channel, const QString& peer, const ModelVersion& model, const QString& type);

class RoundCollector;

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

// w ← w + ΣΔ as the next version, sent to every peer in `pullers`. A round folded on arrival
// is the next version already (and `streamer`, when given, has sent what was final before);
// otherwise it is computed slice by slice into a pooled buffer and each slice goes out as soon as
// it is computed.
ModelVersion applyAndSend(Channel& channel, const ModelVersion& w, RoundCollector& round,
                          const QStringList& pullers, ModelBufferPool& pool, ModelStreamer* streamer = nullptr);

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

// One round of pushes from a known set of contributors, slice by slice (kSliceFloats):
// rejects strangers, repeated slices, wrong rounds, slices that are not the canonical cut of the
// expected size, and slices holding non-finite values (NaN, ±Inf), with a message on stderr
// (counted, rate-limited, naming the sender), never a crash. A rejected non-finite slice counts
// as delivered, so one bad value never stalls a round: under a rule that folds (a sum) only that
// slice of that sender is left out; under any other rule the sender's whole update is.
class RoundCollector {
public:
    RoundCollector(const QString& self, QSet<QString> contributors, std::unique_ptr<Aggregator> aggregator)
        : m_contributors(std::move(contributors)), m_aggregator(std::move(aggregator)), m_log(self) {}

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
    // push) as it arrives, when the rule allows it (Aggregator::foldsOnArrival): the arithmetic
    // then overlaps with the reception of the next slices and of the other pushes, each slice is
    // checked and added while it is in cache, and the round's result is ready when its last slice
    // is in (takeFolded). Measured with bench_dataplane: this is what brings 1 MB to the wire's speed.
    void foldOnArrival(std::function<FoldTarget()> target) { m_foldTarget = std::move(target); }
    // The completed round's result when it was folded; null otherwise (then use write()).
    FloatBuffer takeFolded() { return std::exchange(m_fold, FoldTarget{}).out; }
    // When folding: the slice the last add() made final (every contributor's push of it is in),
    // whose range of the round's result (foldBuffer()) may go out before the round is complete.
    std::optional<size_t> takeFinalSlice() { return std::exchange(m_finalSlice, std::nullopt); }
    const FloatBuffer& foldBuffer() const { return m_fold.out; }
    // out = base + aggregate over [begin, end) when the round was not folded; see Aggregator::write.
    void write(float* out, const float* base, size_t begin, size_t end) const {
        m_aggregator->write(out, base, begin, end);
    }
    int contributorCount() const { return int(m_contributors.size()); }
    quint64 rejected() const { return m_rejected; }
    quint64 rejectedNonFinite() const { return m_nonFinite; }

private:
    // What one contributor has delivered of the open round.
    struct Delivery {
        std::vector<bool> slices;
        size_t count = 0;
        bool spoiled = false;  // a slice was refused: its whole update is out (rules that do not fold)
        FloatBuffer assembly;  // its slices put together (rules that do not fold, several slices)
    };
    void reject(const Envelope& push, const QString& why);
    void startRound(size_t expectedSize);
    bool accept(Delivery& d, size_t offset, SharedFloats&& values, size_t expectedSize);
    void sliceDelivered(size_t index);
    bool folding() const { return m_fold.out != nullptr; }

    std::function<FoldTarget()> m_foldTarget;
    FoldTarget m_fold;
    QSet<QString> m_contributors;
    QHash<QString, Delivery> m_deliveries;  // this round's, by contributor; empty between rounds
    std::vector<int> m_foldedPerSlice, m_deliveredPerSlice;
    std::optional<size_t> m_finalSlice;
    size_t m_length = 0;
    int m_complete = 0;
    std::unique_ptr<Aggregator> m_aggregator;
    RejectionLog m_log;
    quint64 m_rejected = 0, m_nonFinite = 0;
};

QCborMap trafficFields(const Channel& a, const Channel* b = nullptr);

}  // namespace hips
