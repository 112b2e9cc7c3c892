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

Message ModelVersion::toMessage(const QString& type) const {
    Message m(type, {{QStringLiteral("version"), version}});
    m.frames.push_back(sharedFrame(owner, data, size * sizeof(float)));
    return m;
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
    if (m_arrived.isEmpty()) m_aggregator->begin(expectedSize);
    SharedFloats values = shareFloats(std::move(push.message.frames[0]));
    m_aggregator->add(values.data, values.size, std::move(values.owner));
    m_arrived.insert(push.peer);
    if (m_arrived.size() < m_contributors.size()) return false;
    m_arrived.clear();
    return true;
}

void RoundCollector::reject(const Envelope& push, const QString& why) {
    ++m_rejected;
    std::fprintf(stderr, "%s: rejected a push from '%s': %s\n", qPrintable(m_self), qPrintable(push.peer), qPrintable(why));
}

FloatBuffer ModelBufferPool::acquire(size_t floats) {
    for (const FloatBuffer& b : m_buffers)
        if (b.use_count() == 1 && b->size() == floats) return b;
    m_buffers.push_back(std::make_shared<std::vector<float>>(floats));
    return m_buffers.back();
}

ModelVersion applyUpdate(const ModelVersion& w, const float* sum, ModelBufferPool& pool) {
    FloatBuffer next = pool.acquire(w.size);
    sumInto(next->data(), w.data, sum, w.size);
    return ModelVersion::fromBuffer(w.version + 1, next);
}

QCborMap trafficFields(const Channel& a, const Channel* b) {
    QCborArray links = a.traffic().toCbor();
    quint64 errors = a.stats().totalErrors();
    if (b) {
        for (const QCborValue& v : b->traffic().toCbor()) links.append(v);
        errors += b->stats().totalErrors();
    }
    return {{QStringLiteral("links"), links}, {QStringLiteral("wire_errors"), qint64(errors)}};
}

}  // namespace hips
