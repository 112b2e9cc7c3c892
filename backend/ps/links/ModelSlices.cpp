#include "ModelSlices.h"

#include "AggregatorRegistry.h"
#include "ModeRegistry.h"
#include "Vocabulary.h"
#include "RoleScope.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hips {

Message ModelSlice::toMessage(const QString& type) const {
    Message m(type,
              {{QStringLiteral("version"), version}, {QStringLiteral("offset"), qint64(offset)}, {QStringLiteral("total"), qint64(total)}});
    m.frames.push_back(sharedFrame(floats.owner, floats.data, floats.size * sizeof(float)));
    return m;
}

bool isCanonicalSlice(qint64 offset, qint64 total, size_t count) {
    return offset >= 0 && total > 0 && size_t(offset) % kSliceFloats == 0 && size_t(offset) < size_t(total) &&
           count == std::min(kSliceFloats, size_t(total) - size_t(offset));
}

bool partiesPassOnUnreached(const TrainingSettings& s) {
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    if (s.flat() || policy.global != TierSync::Rounds || policy.hierarchicalFrequency || s.secureAggregation) return false;
    // (A rule that does not fold, or a quorum's round, leaves out a sender's whole update for one
    // refused range: one party's short round, at a robust rule's minimum, made the global's short.)
    const auto global = AggregatorRegistry::create(s.aggregation, [&s](const QString& p) { return s.param(p); });
    return global && global->foldsOnArrival() && s.param(QStringLiteral("quorum")) <= 0;
}

std::vector<float> keepFiniteSlices(float* values, size_t count) {
    std::vector<float> in(sliceCount(count), 1.0f);
    for (size_t i = 0; i < in.size(); ++i) {
        float* slice = values + i * kSliceFloats;
        const size_t length = std::min(kSliceFloats, count - i * kSliceFloats);
        if (std::all_of(slice, slice + length, [](float x) { return std::isfinite(x); })) continue;
        std::fill(slice, slice + length, 0.0f);
        in[i] = 0.0f;
    }
    return in;
}

void standForEveryMember(float* sum, size_t count, const float* present, size_t members, float unreached) {
    for (size_t i = 0; i < sliceCount(count); ++i) {
        if (present[i] >= float(members)) continue;
        const size_t begin = i * kSliceFloats, end = std::min(count, begin + kSliceFloats);
        if (present[i] <= 0) {
            std::fill(sum + begin, sum + end, unreached);
            continue;
        }
        const float scale = float(members) / present[i];
        for (size_t j = begin; j < end; ++j) sum[j] *= scale;
    }
}

void sendPushSlice(Channel& channel, qint64 round, qint64 base, const FloatBuffer& values, size_t index, bool pull, const QString& origin,
                   double weight) {
    const size_t offset = index * kSliceFloats, count = std::min(kSliceFloats, values->size() - offset);
    Message push(message::kPush, {{QStringLiteral("round"), round},
                                  {QStringLiteral("base"), base},
                                  {QStringLiteral("offset"), qint64(offset)},
                                  {QStringLiteral("total"), qint64(values->size())},
                                  {QStringLiteral("pull"), pull}});
    if (!origin.isEmpty()) push.fields.insert(QStringLiteral("origin"), origin);
    if (weight > 0) push.fields.insert(QStringLiteral("weight"), weight);
    push.frames.push_back(sharedFrame(values, values->data() + offset, count * sizeof(float)));
    channel.send(std::move(push));
}

void sendPush(Channel& channel, qint64 round, qint64 base, const FloatBuffer& values, bool pull, const QString& origin, double weight) {
    for (size_t i = 0; i < sliceCount(values->size()); ++i) sendPushSlice(channel, round, base, values, i, pull, origin, weight);
}

std::optional<ModelSlice> ModelSlice::fromMessage(Message&& m, const QString& from) {
    const qint64 version = m.integer(QStringLiteral("version")), offset = m.integer(QStringLiteral("offset")),
                 total = m.integer(QStringLiteral("total"));
    const size_t count = m.frames.empty() ? 0 : m.frames[0].size() / sizeof(float);
    if (m.frames.size() != 1 || version < 0 || m.frames[0].size() % sizeof(float) != 0 || !isCanonicalSlice(offset, total, count)) {
        std::fprintf(roleErr(), "rejected a malformed model slice from '%s'\n", qPrintable(from));
        return std::nullopt;
    }
    return ModelSlice{version, size_t(offset), size_t(total), shareFloats(std::move(m.frames[0]))};
}

ModelSlice sliceOf(const ModelVersion& model, size_t offset) {
    const size_t count = std::min(kSliceFloats, model.size - offset);
    return {model.version, offset, model.size, SharedFloats{model.owner, model.data + offset, count}};
}

void sendModel(Channel& channel, const QString& peer, const ModelVersion& model, const QString& type) {
    for (size_t offset = 0; offset < model.size; offset += kSliceFloats) channel.send(peer, sliceOf(model, offset).toMessage(type));
}

std::optional<ModelVersion> ModelAssembler::add(const ModelSlice& slice) {
    if (slice.version < m_version) return std::nullopt;  // a stale version: ignore
    if (slice.total != m_expectedSize) {
        std::fprintf(roleErr(), "rejected a model slice of a %zu-parameter model; this model has %zu\n", slice.total, m_expectedSize);
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

void ModelStreamer::sliceFinal(Channel& channel, const QStringList& pullers, qint64 version, const FloatBuffer& out, size_t index) {
    const ModelVersion next = ModelVersion::fromBuffer(version, out);
    for (const QString& peer : pullers) {
        std::vector<bool>& sent = m_sent[peer];
        if (sent.empty()) sent.resize(sliceCount(next.size));
        if (sent[index]) continue;
        sent[index] = true;
        channel.send(peer, sliceOf(next, index * kSliceFloats).toMessage(message::kModel));
    }
}

void ModelStreamer::finish(Channel& channel, const QStringList& pullers, const ModelVersion& next) {
    for (const QString& peer : pullers) {
        const std::vector<bool> sent = m_sent.value(peer);
        for (size_t i = 0; i < sliceCount(next.size); ++i)
            if (i >= sent.size() || !sent[i]) channel.send(peer, sliceOf(next, i * kSliceFloats).toMessage(message::kModel));
    }
    m_sent.clear();
}

}  // namespace hips
