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

bool isCanonicalSlice(qint64 offset, qint64 total, size_t count) {
    return offset >= 0 && total > 0 && size_t(offset) % kSliceFloats == 0 && size_t(offset) < size_t(total) &&
           count == std::min(kSliceFloats, size_t(total) - size_t(offset));
}

void sendPushSlice(Channel& channel, qint64 round, const FloatBuffer& values, size_t index, bool pull) {
    const size_t offset = index * kSliceFloats, count = std::min(kSliceFloats, values->size() - offset);
    Message push(QStringLiteral("push"), {{QStringLiteral("round"), round}, {QStringLiteral("offset"), qint64(offset)},
                                          {QStringLiteral("total"), qint64(values->size())}, {QStringLiteral("pull"), pull}});
    push.frames.push_back(sharedFrame(values, values->data() + offset, count * sizeof(float)));
    channel.send(std::move(push));
}

void sendPush(Channel& channel, qint64 round, const FloatBuffer& values, bool pull) {
    for (size_t i = 0; i < sliceCount(values->size()); ++i) sendPushSlice(channel, round, values, i, pull);
}

std::optional<ModelSlice> ModelSlice::fromMessage(Message&& m, const QString& from) {
    const qint64 version = m.integer(QStringLiteral("version")), offset = m.integer(QStringLiteral("offset")),
                 total = m.integer(QStringLiteral("total"));
    const size_t count = m.frames.empty() ? 0 : m.frames[0].size() / sizeof(float);
    if (m.frames.size() != 1 || version < 0 || m.frames[0].size() % sizeof(float) != 0 ||
        !isCanonicalSlice(offset, total, count)) {
        std::fprintf(stderr, "rejected a malformed model slice from '%s'\n", qPrintable(from));
        return std::nullopt;
    }
    return ModelSlice{version, size_t(offset), size_t(total), shareFloats(std::move(m.frames[0]))};
}

static ModelSlice sliceOf(const ModelVersion& model, size_t offset) {
    const size_t count = std::min(kSliceFloats, model.size - offset);
    return {model.version, offset, model.size, SharedFloats{model.owner, model.data + offset, count}};
}

void sendModel(Channel& channel, const QString& peer, const ModelVersion& model, const QString& type) {
    for (size_t offset = 0; offset < model.size; offset += kSliceFloats)
        channel.send(peer, sliceOf(model, offset).toMessage(type));
}

void ModelStreamer::sliceFinal(Channel& channel, const QStringList& pullers, qint64 version, const FloatBuffer& out,
                               size_t index) {
    const ModelVersion next = ModelVersion::fromBuffer(version, out);
    for (const QString& peer : pullers) {
        std::vector<bool>& sent = m_sent[peer];
        if (sent.empty()) sent.resize(sliceCount(next.size));
        if (sent[index]) continue;
        sent[index] = true;
        channel.send(peer, sliceOf(next, index * kSliceFloats).toMessage(QStringLiteral("model")));
    }
}

void ModelStreamer::finish(Channel& channel, const QStringList& pullers, const ModelVersion& next) {
    for (const QString& peer : pullers) {
        const std::vector<bool> sent = m_sent.value(peer);
        for (size_t i = 0; i < sliceCount(next.size); ++i)
            if (i >= sent.size() || !sent[i]) channel.send(peer, sliceOf(next, i * kSliceFloats).toMessage(QStringLiteral("model")));
    }
    m_sent.clear();
}

ModelVersion applyAndSend(Channel& channel, const ModelVersion& w, RoundCollector& round,
                          const QStringList& pullers, ModelBufferPool& pool, ModelStreamer* streamer) {
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
    const Message& m = push.message;
    const qint64 round = m.integer(QStringLiteral("round")), offset = m.integer(QStringLiteral("offset")),
                 total = m.integer(QStringLiteral("total"));
    if (!m_contributors.contains(push.peer)) { reject(push, QStringLiteral("not a contributor of this server")); return false; }
    if (round != expectedRound) { reject(push, QStringLiteral("push for round %1 while round %2 is open").arg(round).arg(expectedRound)); return false; }
    const size_t count = m.frames.size() == 1 && m.frames[0].size() % sizeof(float) == 0 ? m.frames[0].size() / sizeof(float) : 0;
    if (total <= 0 || size_t(total) != expectedSize || !isCanonicalSlice(offset, total, count)) {
        reject(push, QStringLiteral("payload is not a slice of a %1-float update").arg(expectedSize));
        return false;
    }
    if (m_deliveries.isEmpty()) startRound(expectedSize);
    Delivery& d = m_deliveries[push.peer];
    if (d.slices.empty()) d.slices.resize(sliceCount(expectedSize));
    const size_t index = size_t(offset) / kSliceFloats;
    if (d.slices[index]) {
        reject(push, QStringLiteral("second push of floats %1.. in round %2").arg(offset).arg(round));
        return false;
    }
    d.slices[index] = true;
    ++d.count;
    SharedFloats values = shareFloats(std::move(push.message.frames[0]));
    if (!accept(d, size_t(offset), std::move(values), expectedSize)) {
        ++m_nonFinite;
        d.spoiled = true;
        reject(push, QStringLiteral("floats %1..%2 hold NaN or infinite values; not aggregated").arg(offset).arg(offset + qint64(count)));
    }
    sliceDelivered(index);
    if (d.count < d.slices.size()) return false;
    if (!folding() && !d.spoiled && d.assembly) m_aggregator->add(d.assembly->data(), expectedSize, d.assembly);
    if (++m_complete < int(m_contributors.size())) return false;
    m_deliveries.clear();
    return true;
}

void RoundCollector::startRound(size_t expectedSize) {
    m_length = expectedSize;
    m_complete = 0;
    m_aggregator->begin(expectedSize);
    m_fold = {};  // back to the pool before asking it again
    if (m_foldTarget && m_aggregator->foldsOnArrival()) {
        m_fold = m_foldTarget();
        if (!m_fold.out || m_fold.out->size() != expectedSize) m_fold = {};  // not this round, then
    }
    m_foldedPerSlice.assign(sliceCount(expectedSize), 0);
    m_deliveredPerSlice.assign(sliceCount(expectedSize), 0);
    m_finalSlice.reset();
}

// Checks a slice and, when all its values are finite, folds it into the round's result (the
// first contribution to a range seeds it, in one pass with the check), or keeps it for the rule:
// as it is when it is the whole update, else copied into its sender's.
bool RoundCollector::accept(Delivery& d, size_t offset, SharedFloats&& values, size_t expectedSize) {
    if (folding()) {
        float* out = m_fold.out->data() + offset;
        int& folded = m_foldedPerSlice[offset / kSliceFloats];
        const float* base = m_fold.base ? m_fold.base + offset : nullptr;
        if (folded == 0 && !seedIfFinite(out, base, values.data, values.size)) return false;  // the range stays unseeded
        if (folded > 0) {
            if (!allFinite(values.data, values.size)) return false;
            addInto(out, values.data, values.size);  // the slice is in cache from the check
        }
        ++folded;
        return true;
    }
    if (!allFinite(values.data, values.size)) return false;
    if (values.size == expectedSize) {
        m_aggregator->add(values.data, values.size, std::move(values.owner));
    } else {
        if (!d.assembly) d.assembly = std::make_shared<std::vector<float>>(expectedSize);
        std::copy(values.data, values.data + values.size, d.assembly->data() + offset);
    }
    return true;
}

// Once every contributor's push of a slice is in (folded or refused), that slice of the result
// is final; a range no contribution reached (every sender's slice was refused) keeps the base.
void RoundCollector::sliceDelivered(size_t index) {
    if (++m_deliveredPerSlice[index] < int(m_contributors.size()) || !folding()) return;
    if (m_foldedPerSlice[index] == 0) {
        const size_t begin = index * kSliceFloats, end = std::min(m_length, begin + kSliceFloats);
        float* out = m_fold.out->data();
        if (m_fold.base) std::copy(m_fold.base + begin, m_fold.base + end, out + begin);
        else std::fill(out + begin, out + end, 0.0f);
    }
    m_finalSlice = index;
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
