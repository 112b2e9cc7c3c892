#pragma once
// Pieces shared by the party server and the global server.
#include "Aggregator.h"
#include "Channel.h"
#include "ModelFrame.h"
#include "RoleContext.h"

#include <QSet>
#include <QStringList>
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

// Models travel to pullers as slices of kModelSliceFloats, one message each
// ({version, offset, total} + a zero-copy frame), so that a server sends slice i while it
// computes slice i+1 and a party server forwards slices before the last has arrived.
constexpr size_t kModelSliceFloats = 256 * 1024;  // 1 MiB: smaller slices cost more in messages than they win

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

// w ← w + ΣΔ as the next version, computed slice by slice into a pooled buffer; each slice
// goes to every peer in `pullers` as soon as it is computed.
ModelVersion applyAndSend(Channel& channel, const ModelVersion& w, const RoundCollector& round,
                          const QStringList& pullers, ModelBufferPool& pool);

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

// One round of pushes from a known set of contributors: rejects strangers, repeats, wrong
// rounds, wrong sizes and non-finite values (NaN, ±Inf) with a message on stderr (counted,
// rate-limited, naming the sender), never a crash.
class RoundCollector {
public:
    RoundCollector(const QString& self, QSet<QString> contributors, std::unique_ptr<Aggregator> aggregator)
        : m_contributors(std::move(contributors)), m_aggregator(std::move(aggregator)), m_log(self) {}

    // Returns true when this push completed the round.
    // Takes the payload frame out of `push` (the rule may keep it without a copy).
    bool add(Envelope& push, qint64 expectedRound, size_t expectedSize);
    bool add(Envelope&& push, qint64 expectedRound, size_t expectedSize) { return add(push, expectedRound, expectedSize); }
    // out = base + aggregate over [begin, end); see Aggregator::write.
    void write(float* out, const float* base, size_t begin, size_t end) const {
        m_aggregator->write(out, base, begin, end);
    }
    int contributorCount() const { return int(m_contributors.size()); }
    quint64 rejected() const { return m_rejected; }
    quint64 rejectedNonFinite() const { return m_nonFinite; }

private:
    void reject(const Envelope& push, const QString& why);

    QSet<QString> m_contributors, m_arrived;
    std::unique_ptr<Aggregator> m_aggregator;
    RejectionLog m_log;
    quint64 m_rejected = 0, m_nonFinite = 0;
};

QCborMap trafficFields(const Channel& a, const Channel* b = nullptr);

}  // namespace hips
