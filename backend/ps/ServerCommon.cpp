#include "ServerCommon.h"

#include "AggregatorRegistry.h"
#include "RoleError.h"
#include "VectorMath.h"

#include <QCborArray>
#include <cstdio>

namespace hips {

std::unique_ptr<Aggregator> makeAggregator(const TrainingSettings& settings) {
    auto a = AggregatorRegistry::create(settings.aggregation);
    if (!a)
        throw RoleError("unknown aggregation '" + settings.aggregation.toStdString() + "'; known: " +
                        AggregatorRegistry::names().join(", ").toStdString());
    return a;
}

ModelVersion ModelVersion::fromFrame(qint64 version, zmq::message_t&& frame) {
    SharedFloats floats = shareFloats(std::move(frame));
    return {version, std::move(floats.owner), floats.data, floats.size};
}

ModelVersion ModelVersion::fromBuffer(qint64 version, FloatBuffer buffer) {
    return {version, buffer, buffer->data(), buffer->size()};
}

Message ModelSlice::toMessage(const QString& type) const {
    Message m(type, {{QStringLiteral("version"), version}, {QStringLiteral("offset"), qint64(offset)},
                     {QStringLiteral("total"), qint64(total)}});
    m.frames.push_back(sharedFrame(floats.owner, floats.data, floats.size * sizeof(float)));
    return m;
}

std::optional<ModelSlice> ModelSlice::fromMessage(Message&& m, const QString& from) {
    const qint64 version = m.integer(QStringLiteral("version")), offset = m.integer(QStringLiteral("offset")),
                 total = m.integer(QStringLiteral("total"));
    // Only the canonical cut is accepted (offsets on slice boundaries, every slice full but the
    // last), so distinct offsets that add up to `total` cover the model without holes.
    const size_t count = m.frames.empty() ? 0 : m.frames[0].size() / sizeof(float);
    if (m.frames.size() != 1 || version < 0 || offset < 0 || total <= 0 || m.frames[0].size() % sizeof(float) != 0 ||
        size_t(offset) % kModelSliceFloats != 0 || size_t(offset) >= size_t(total) ||
        count != std::min(kModelSliceFloats, size_t(total) - size_t(offset))) {
        std::fprintf(stderr, "rejected a malformed model slice from '%s'\n", qPrintable(from));
        return std::nullopt;
    }
    return ModelSlice{version, size_t(offset), size_t(total), shareFloats(std::move(m.frames[0]))};
}

static ModelSlice sliceOf(const ModelVersion& model, size_t offset) {
    const size_t count = std::min(kModelSliceFloats, model.size - offset);
    return {model.version, offset, model.size, SharedFloats{model.owner, model.data + offset, count}};
}

void sendModel(Channel& channel, const QString& peer, const ModelVersion& model, const QString& type) {
    for (size_t offset = 0; offset < model.size; offset += kModelSliceFloats)
        channel.send(peer, sliceOf(model, offset).toMessage(type));
}

ModelVersion applyAndSend(Channel& channel, const ModelVersion& w, const RoundCollector& round,
                          const QStringList& pullers, ModelBufferPool& pool) {
    FloatBuffer buffer = pool.acquire(w.size);
    const ModelVersion next = ModelVersion::fromBuffer(w.version + 1, buffer);
    for (size_t offset = 0; offset < w.size; offset += kModelSliceFloats) {
        const size_t count = std::min(kModelSliceFloats, w.size - offset);
        round.write(buffer->data(), w.data, offset, offset + count);
        for (const QString& peer : pullers) channel.send(peer, sliceOf(next, offset).toMessage(QStringLiteral("model")));
    }
    return next;
}

std::optional<ModelVersion> ModelAssembler::add(const ModelSlice& slice) {
    if (slice.version < m_version) return std::nullopt;  // a stale version: ignore
    if (slice.total != m_expectedSize) {
        std::fprintf(stderr, "rejected a model slice of a %zu-parameter model; this model has %zu\n", slice.total,
                     m_expectedSize);
        return std::nullopt;
    }
    if (slice.offset == 0 && slice.floats.size == slice.total) {  // a whole model in one slice: no copy
        m_version = slice.version;
        m_buffer.reset();
        return ModelVersion{slice.version, slice.floats.owner, slice.floats.data, slice.total};
    }
    if (slice.version > m_version || !m_buffer) {
        m_version = slice.version;
        m_buffer = m_pool.acquire(slice.total);
        m_received = 0;
        m_offsets.clear();
    }
    if (m_offsets.contains(slice.offset)) return std::nullopt;  // a duplicate
    m_offsets.insert(slice.offset);
    std::copy(slice.floats.data, slice.floats.data + slice.floats.size, m_buffer->data() + slice.offset);
    m_received += slice.floats.size;
    if (m_received < slice.total) return std::nullopt;
    m_received = 0;
    ModelVersion whole = ModelVersion::fromBuffer(m_version, m_buffer);
    m_buffer.reset();
    return whole;
}

bool RoundCollector::add(Envelope& push, qint64 expectedRound, size_t expectedSize) {
    const qint64 round = push.message.integer(QStringLiteral("round"));
    if (!m_contributors.contains(push.peer)) { reject(push, QStringLiteral("not a contributor of this server")); return false; }
    if (round != expectedRound) { reject(push, QStringLiteral("push for round %1 while round %2 is open").arg(round).arg(expectedRound)); return false; }
    if (m_arrived.contains(push.peer)) { reject(push, QStringLiteral("second push in round %1").arg(round)); return false; }
    if (push.message.frames.size() != 1 || push.message.frames[0].size() != expectedSize * sizeof(float)) {
        reject(push, QStringLiteral("payload is not one frame of %1 floats").arg(expectedSize));
        return false;
    }
    SharedFloats values = shareFloats(std::move(push.message.frames[0]));
    if (!allFinite(values.data, values.size)) {
        ++m_nonFinite;
        reject(push, QStringLiteral("the update holds NaN or infinite values; it is not aggregated"));
        return false;
    }
    if (m_arrived.isEmpty()) m_aggregator->begin(expectedSize);
    m_aggregator->add(values.data, values.size, std::move(values.owner));
    m_arrived.insert(push.peer);
    if (m_arrived.size() < m_contributors.size()) return false;
    m_arrived.clear();
    return true;
}

void RoundCollector::reject(const Envelope& push, const QString& why) {
    ++m_rejected;
    m_log.reject(push.peer, QStringLiteral("push: ") + why);
}

FloatBuffer ModelBufferPool::acquire(size_t floats) {
    for (const FloatBuffer& b : m_buffers)
        if (b.use_count() == 1 && b->size() == floats) return b;
    m_buffers.push_back(std::make_shared<std::vector<float>>(floats));
    return m_buffers.back();
}

QCborMap trafficFields(const Channel& a, const Channel* b) {
    QCborArray links = a.traffic().toCbor();
    quint64 errors = a.stats().totalErrors(), undeliverable = a.undeliverable();
    if (b) {
        for (const QCborValue& v : b->traffic().toCbor()) links.append(v);
        errors += b->stats().totalErrors();
        undeliverable += b->undeliverable();
    }
    return {{QStringLiteral("links"), links}, {QStringLiteral("wire_errors"), qint64(errors)},
            {QStringLiteral("undeliverable"), qint64(undeliverable)}};
}

}  // namespace hips
