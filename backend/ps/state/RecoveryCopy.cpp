#include "RecoveryCopy.h"

#include "VectorMath.h"
#include "Vocabulary.h"

#include <cstring>

namespace hips {

namespace {

const QString kRound = QStringLiteral("recovery_round");
const QString kVersion = QStringLiteral("recovery_version");

zmq::message_t frameOf(const void* data, size_t bytes) {
    return zmq::message_t(data, bytes);
}

// What a recovery point must look like: two frames, the model's of `modelFloats` floats and the
// optimizer's of none, one or two models' worth (momentum; Adam, Yogi, Adagrad), all finite,
// with a round and a version that are not negative. Returns why not, or nothing.
QString malformation(const QCborMap& fields, const std::vector<zmq::message_t>& frames, size_t modelFloats) {
    const qint64 round = fields.value(kRound).toInteger(-1), version = fields.value(kVersion).toInteger(-1);
    if (!fields.value(kRound).isInteger() || !fields.value(kVersion).isInteger() || round < 0 || version < 0)
        return QStringLiteral("a recovery point without a round and a version");
    if (frames.size() != 2) return QStringLiteral("a recovery point of %1 frames, not 2").arg(frames.size());
    const size_t modelBytes = modelFloats * sizeof(float), optimizerBytes = frames[1].size();
    if (frames[0].size() != modelBytes)
        return QStringLiteral("a recovery point of %1 bytes of model, expected %2").arg(frames[0].size()).arg(modelBytes);
    if (optimizerBytes != 0 && optimizerBytes != modelBytes && optimizerBytes != 2 * modelBytes)
        return QStringLiteral("a recovery point with %1 bytes of optimizer state (0, 1 or 2 models' worth expected)").arg(optimizerBytes);
    for (const zmq::message_t& f : frames)
        if (!allFinite(static_cast<const float*>(f.data()), f.size() / sizeof(float)))
            return QStringLiteral("a recovery point with NaN or infinite values");
    return {};
}

std::vector<float> floatsOf(const zmq::message_t& frame) {
    std::vector<float> out(frame.size() / sizeof(float));
    if (!out.empty()) std::memcpy(out.data(), frame.data(), out.size() * sizeof(float));
    return out;
}

}  // namespace

Message recoveryPointMessage(const Checkpoint& point) {
    Message m(message::kRecoveryPoint, {{kRound, point.round}, {kVersion, point.version}});
    m.frames.push_back(frameOf(point.model.data(), point.model.size() * sizeof(float)));
    m.frames.push_back(frameOf(point.optimizer.data(), point.optimizer.size() * sizeof(float)));
    return m;
}

std::optional<Checkpoint> recoveryPointIn(const Message& table, size_t modelFloats, QString* error) {
    if (!table.fields.contains(kRound)) return std::nullopt;
    if (const QString wrong = malformation(table.fields, table.frames, modelFloats); !wrong.isEmpty()) {
        *error = wrong;
        return std::nullopt;
    }
    return Checkpoint{table.fields.value(kRound).toInteger(), table.fields.value(kVersion).toInteger(), floatsOf(table.frames[0]),
                      floatsOf(table.frames[1])};
}

QString RecoveryCopies::keep(const QString& server, const Message& point, size_t modelFloats) {
    if (const QString wrong = malformation(point.fields, point.frames, modelFloats); !wrong.isEmpty()) return wrong;
    const qint64 version = point.fields.value(kVersion).toInteger();
    if (version < this->version(server))
        return QStringLiteral("a recovery point of model version %1 after one of version %2").arg(version).arg(this->version(server));
    const auto bytes = [](const zmq::message_t& f) { return QByteArray(static_cast<const char*>(f.data()), qsizetype(f.size())); };
    m_copies.insert(server,
                    {QCborMap{{kRound, point.fields.value(kRound)}, {kVersion, version}}, bytes(point.frames[0]), bytes(point.frames[1])});
    return {};
}

qint64 RecoveryCopies::version(const QString& server) const {
    const auto it = m_copies.find(server);
    return it == m_copies.end() ? -1 : it->fields.value(kVersion).toInteger();
}

void RecoveryCopies::attachTo(const QString& server, Message& table) const {
    const auto it = m_copies.find(server);
    if (it == m_copies.end()) return;
    for (auto f = it->fields.begin(); f != it->fields.end(); ++f) table.fields.insert(f.key(), f.value());
    table.frames.push_back(frameOf(it->model.constData(), size_t(it->model.size())));
    table.frames.push_back(frameOf(it->optimizer.constData(), size_t(it->optimizer.size())));
}

}  // namespace hips
