#include "LinkCodecs.h"

#include "ModelFrame.h"
#include "ModeRegistry.h"
#include "ModelSlices.h"
#include "TrafficCounter.h"
#include "Vocabulary.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace hips {

namespace {

const QString kCodec = QStringLiteral("codec");
const QString kDense = QStringLiteral("dense");
const QString kSeq = QStringLiteral("seq");

bool carriesFloats(const Message& m) {
    return m.type == message::kPush || m.type == message::kModel;
}

// How far through the warm-up the message after `sent` others is, in (0, 1).
double warmupProgress(size_t sent, const GradientCodec& codec) {
    return double(sent + 1) / double(codec.warmupMessages() + 1);
}

zmq::message_t frameOf(const void* data, size_t bytes) {
    return zmq::message_t(data, bytes);
}

}  // namespace

LinkCodecs::LinkCodecs(std::function<const GradientCodec*(const QString&)> codecOf, size_t modelSize)
    : m_codecOf(std::move(codecOf)), m_modelSize(modelSize) {}

LinkCodecs::Link& LinkCodecs::linkTo(QHash<QString, Link>& links, const QString& peer, size_t total) {
    Link& link = links[peer];
    if (link.floats.size() != total) {  // a first message, or a model of another size: start over
        link.floats.assign(total, 0.0f);
        link.momentum.clear();
        link.messages.assign(sliceCount(total), 0);
        link.numbers.assign(sliceCount(total), 0);
        link.lastHeaders.assign(sliceCount(total), {});
        link.wholeNext.assign(sliceCount(total), 0);
        link.lastWhole.assign(sliceCount(total), 0);
        link.sent.clear();
    }
    return link;
}

void LinkCodecs::addResidual(Link& link, float momentum, size_t offset, std::vector<float>& input) {
    float* residual = link.floats.data() + offset;
    if (momentum <= 0) {
        for (size_t i = 0; i < input.size(); ++i) input[i] += residual[i];
        return;
    }
    // Momentum correction: the residual gathers u = m*u + update rather than the update, so an
    // entry that keeps its direction rises to the top sooner, as the workers' momentum would have
    // moved it had nothing been held back.
    if (link.momentum.size() != link.floats.size()) link.momentum.assign(link.floats.size(), 0.0f);
    float* u = link.momentum.data() + offset;
    for (size_t i = 0; i < input.size(); ++i) {
        u[i] = momentum * u[i] + input[i];
        input[i] = u[i] + residual[i];
    }
}

void LinkCodecs::keepResidual(Link& link, size_t offset, const std::vector<float>& input, const std::vector<float>& decoded) {
    float* residual = link.floats.data() + offset;
    float* u = link.momentum.empty() ? nullptr : link.momentum.data() + offset;
    for (size_t i = 0; i < input.size(); ++i) {
        residual[i] = input[i] - decoded[i];
        if (u && decoded[i] != 0) u[i] = 0;  // sent: its momentum starts again (DGC's factor masking)
    }
}

void LinkCodecs::sendWhole(Message& m, const std::vector<float>& input) {
    m.frames[0] = frameOf(input.data(), input.size() * sizeof(float));
    m.fields.insert(kDense, true);
}

// A push's (round, base) names it: a worker's or a party's next push follows a newer model.
bool LinkCodecs::sendAsBefore(Link::Sent& sent, Message& m, qint64 round, qint64 base) {
    if (sent.round != round || sent.base != base) return false;
    m.frames[0] = frameOf(sent.frame.constData(), size_t(sent.frame.size()));
    if (sent.dense) m.fields.insert(kDense, true);
    return true;
}

void LinkCodecs::outgoing(const QString& peer, Message& m) {
    const GradientCodec* codec = carriesFloats(m) && m.frames.size() == 1 ? m_codecOf(peer) : nullptr;
    if (!codec) return;
    const qint64 offset = m.integer(QStringLiteral("offset")), total = m.integer(QStringLiteral("total"));
    const size_t n = m.frames[0].size() / sizeof(float);
    // What a relay forwards comes from a worker: only a slice of this model is encoded (anything
    // else goes as it is, and the other end refuses it).
    if (total <= 0 || size_t(total) > m_modelSize || offset < 0 || !isCanonicalSlice(offset, total, n)) return;
    const auto* values = static_cast<const float*>(m.frames[0].data());
    // A push with a value that is no number goes as it is, for its server to refuse and count
    // (zeros in its place would pass the rest as a good push), and never into a residual.
    if (m.type == message::kPush && !std::all_of(values, values + n, [](float x) { return std::isfinite(x); })) {
        m.fields.insert(kDense, true);
        m.fields.insert(kCodec, codec->spec());
        return;
    }
    std::vector<float> input(values, values + n), decoded(n);
    for (float& x : input)
        if (!std::isfinite(x)) x = 0;  // never into a replica: it would stay there
    const size_t slice = size_t(offset) / kSliceFloats;
    if (m.type == message::kPush) {
        // Each origin's pushes keep their own residual: a relay's workers never lend each other theirs.
        const QString origin = m.fields.value(QStringLiteral("origin")).toString();
        const bool feedback = codec->errorFeedback();
        Link* link = feedback || codec->warmupMessages() > 0
                         ? &linkTo(m_pushesOut, origin.isEmpty() ? peer : peer + '\n' + origin, size_t(total))
                         : nullptr;
        const qint64 round = m.integer(QStringLiteral("round")), base = m.integer(QStringLiteral("base"));
        if (link && link->sent.empty()) link->sent.resize(link->messages.size());
        if (link && sendAsBefore(link->sent[slice], m, round, base)) {
            m.fields.insert(kCodec, codec->spec());
            return;
        }
        if (link && feedback) addResidual(*link, codec->momentum(), size_t(offset), input);
        const size_t sent = link ? link->messages[slice]++ : codec->warmupMessages();
        QByteArray frame = sent < codec->warmupMessages()
                               ? codec->encodeWarmingUp(input.data(), n, decoded.data(), 1, warmupProgress(sent, *codec))
                               : codec->encode(input.data(), n, decoded.data());
        const bool whole = frame.isEmpty();  // warming up, and the codec says: all of it
        if (whole) frame = QByteArray(reinterpret_cast<const char*>(input.data()), qsizetype(n * sizeof(float)));
        if (link && feedback) keepResidual(*link, size_t(offset), input, whole ? input : decoded);
        if (link) link->sent[slice] = {round, base, frame, whole};
        m.frames[0] = frameOf(frame.constData(), size_t(frame.size()));
        if (whole) m.fields.insert(kDense, true);
    } else {
        Link& link = linkTo(m_modelsOut, peer, size_t(total));
        float* replica = link.floats.data() + offset;
        link.lastHeaders[slice] = m.fields;
        const quint32 seq = link.numbers[slice]++;
        m.fields.insert(kSeq, qint64(seq));
        const size_t sent = link.messages[slice]++;
        QByteArray frame;
        // The peer's first model of this slice goes whole (it holds nothing yet), and so does one it asked for whole.
        if (sent > 0 && !std::exchange(link.wholeNext[slice], 0)) {
            for (size_t i = 0; i < n; ++i) input[i] -= replica[i];
            frame = sent <= codec->warmupMessages()
                        ? codec->encodeWarmingUp(input.data(), n, decoded.data(), m_aggregateOf, warmupProgress(sent - 1, *codec))
                        : codec->encode(input.data(), n, decoded.data(), m_aggregateOf);
            if (frame.isEmpty())
                for (size_t i = 0; i < n; ++i) input[i] += replica[i];  // whole after all
        }
        if (frame.isEmpty()) {
            std::memcpy(replica, input.data(), n * sizeof(float));
            link.lastWhole[slice] = seq;
            sendWhole(m, input);
        } else {
            for (size_t i = 0; i < n; ++i) replica[i] += decoded[i];
            m.frames[0] = frameOf(frame.constData(), size_t(frame.size()));
        }
    }
    m.fields.insert(kCodec, codec->spec());
}

void LinkCodecs::undelivered(const QString& peer, const Message& m) {
    // A lost model change leaves the peer's replica behind ours: everything goes whole again.
    if (m.type == message::kModel) m_modelsOut.remove(peer);
}

QString LinkCodecs::incoming(const QString& peer, Message& m) {
    // A pull of version 0 comes from a peer that holds no model (it started, or started again).
    if (m.type == message::kPull && m.integer(QStringLiteral("version")) == 0) m_modelsOut.remove(peer);
    if (!carriesFloats(m)) return {};
    const GradientCodec* codec = m_codecOf(peer);
    const QString spec = m.fields.value(kCodec).toString();
    if (!codec) {
        if (spec.isEmpty()) return {};
        return QStringLiteral(
                   "a %1 encoded with '%2' on a link that sends plain floats; both ends must run the same "
                   "compression settings")
            .arg(m.type, spec);
    }
    if (spec != codec->spec())
        return QStringLiteral(
                   "a %1 encoded with '%2'; this link's codec is '%3' (both ends must run the same compression "
                   "settings)")
            .arg(m.type, spec.isEmpty() ? QStringLiteral("none") : spec, codec->spec());
    const qint64 offset = m.integer(QStringLiteral("offset")), total = m.integer(QStringLiteral("total"));
    if (m.frames.size() != 1 || total <= 0 || size_t(total) > m_modelSize || offset < 0 || offset >= total ||
        size_t(offset) % kSliceFloats != 0)
        return QStringLiteral("a compressed %1 whose offset %2 and total %3 do not fit a model of %4 values")
            .arg(m.type)
            .arg(offset)
            .arg(total)
            .arg(m_modelSize);
    const size_t n = std::min(kSliceFloats, size_t(total - offset));
    const bool dense = m.fields.value(kDense).toBool();
    std::vector<float> out(n);
    if (dense) {
        if (m.frames[0].size() != n * sizeof(float))
            return QStringLiteral("a dense %1 of %2 bytes for %3 values").arg(m.type).arg(m.frames[0].size()).arg(n);
        std::memcpy(out.data(), m.frames[0].data(), n * sizeof(float));
        // (A push's goes on to its round, which refuses it and counts it, its slice delivered.)
        if (m.type != message::kPush && !std::all_of(out.begin(), out.end(), [](float x) { return std::isfinite(x); }))
            return QStringLiteral("a dense %1 holding a value that is not finite").arg(m.type);
    } else if (const QString error = codec->decode(static_cast<const char*>(m.frames[0].data()), m.frames[0].size(), n, out.data());
               !error.isEmpty()) {
        return error;
    }
    if (m.type == message::kModel) {
        Link& link = linkTo(m_modelsIn, peer, size_t(total));
        float* replica = link.floats.data() + offset;
        const size_t slice = size_t(offset) / kSliceFloats;
        const qint64 seq = m.integer(kSeq, -1);
        if (seq < 0 || seq >= qint64(std::numeric_limits<quint32>::max()))
            return QStringLiteral("a compressed model slice without its number (seq)");
        if (dense) {
            link.numbers[slice] = quint32(seq) + 1;
            std::memcpy(replica, out.data(), n * sizeof(float));
        } else {
            if (link.numbers[slice] != quint32(seq)) return refuseChange(peer, link, offset, total, seq);
            ++link.numbers[slice];
            for (size_t i = 0; i < n; ++i) replica[i] += out[i];
            std::memcpy(out.data(), replica, n * sizeof(float));
        }
        // This end's view of the model: the peer's, plus what this end has pushed to it but could
        // not yet say (its residual). Workers then go on from their own progress instead of
        // learning the unsent part again each round, which error feedback would count twice.
        if (const auto sent = m_pushesOut.constFind(peer);
            m_pushesAreModelChanges && sent != m_pushesOut.cend() && sent->floats.size() == size_t(total))
            for (size_t i = 0; i < n; ++i) out[i] += sent->floats[size_t(offset) + i];
    }
    m.frames[0] = frameOf(out.data(), n * sizeof(float));
    m.fields.remove(kCodec);
    m.fields.remove(kDense);
    return {};
}

// A model change that does not follow the last this end added (one was lost on the way, or none
// came whole): refused, and the slice asked for whole. The changes that were on their way when it
// was asked ask too: the sender answers only an ask of a change after its last whole.
QString LinkCodecs::refuseChange(const QString& peer, const Link& link, qint64 offset, qint64 total, qint64 seq) {
    const quint32 expected = link.numbers[size_t(offset) / kSliceFloats];
    m_answers[peer].push_back(Message(
        message::kCodecResync, {{QStringLiteral("offset"), offset}, {QStringLiteral("total"), total}, {QStringLiteral("seq"), seq}}));
    if (expected == 0) return QStringLiteral("a change to a model slice this end never had whole; the slice is asked for whole");
    return QStringLiteral("model change %1 of values %2.. where %3 was next: one was lost on the way; the slice is asked for whole")
        .arg(seq)
        .arg(offset)
        .arg(expected);
}

// The peer asks for a slice of the model whole: it goes at once, as the peer should hold it (the
// replica here), under the header of the last model of it sent.
bool LinkCodecs::takeControl(const QString& peer, const Message& m) {
    if (m.type != message::kCodecResync) return false;
    const qint64 offset = m.integer(QStringLiteral("offset"), -1), total = m.integer(QStringLiteral("total"), -1);
    const auto it = m_modelsOut.find(peer);
    if (it == m_modelsOut.end() || total != qint64(it->floats.size()) || offset < 0 || offset >= total || offset % qint64(kSliceFloats))
        return true;  // (nothing sent it of that model: its next model goes whole anyway)
    Link& link = *it;
    const size_t slice = size_t(offset) / kSliceFloats, n = std::min(kSliceFloats, size_t(total - offset));
    // Only an ask of a change this end sent after its last whole: the others are answered by that
    // whole, on its way (and a peer's asks cost no more wholes than the changes it was sent).
    const qint64 refused = m.integer(QStringLiteral("seq"), -1);
    if (link.lastHeaders[slice].isEmpty() || refused <= qint64(link.lastWhole[slice]) || refused >= qint64(link.numbers[slice]))
        return true;
    link.wholeNext[slice] = 1;
    Message again(message::kModel, link.lastHeaders[slice]);
    again.frames.push_back(frameOf(link.floats.data() + offset, n * sizeof(float)));
    m_answers[peer].push_back(std::move(again));
    return true;
}

std::vector<Message> LinkCodecs::takeAnswers(const QString& peer) {
    const auto it = m_answers.find(peer);
    if (it == m_answers.end()) return {};
    std::vector<Message> answers = std::move(it->second);
    m_answers.erase(it);
    return answers;
}

std::shared_ptr<LinkCodecs> makeLinkCodecs(const RoleContext& ctx) {
    const TrainingSettings& s = ctx.training();
    auto across = std::shared_ptr<GradientCodec>(GradientCodec::create(s.compression, [&s](const QString& n) { return s.param(n); }));
    auto inside =
        std::shared_ptr<GradientCodec>(GradientCodec::create(s.partyCompression, [&s](const QString& n) { return s.partyParam(n); }));
    if (!across && !inside) return nullptr;
    const QString party = ctx.node.party;
    auto codecs = std::make_shared<LinkCodecs>(
        [across, inside, party](const QString& peer) { return partyOf(peer) == party ? inside.get() : across.get(); },
        modelParameterCount(s));
    // The warm-up is counted in rounds; a link counts messages, and a round holds this many.
    if (inside) inside->setWarmupMessages(inside->warmupMessages() * size_t(s.workerPushesPerRound()));
    if (across) across->setWarmupMessages(across->warmupMessages() * size_t(s.globalStepsPerRound()));
    codecs->setPushesAreModelChanges(!ModeRegistry::policy(s.mode).gradientEveryStep);
    return codecs;
}

}  // namespace hips
