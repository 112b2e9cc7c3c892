#include "WireCodec.h"

#include "FixedHeader.h"

#include <QCborArray>
#include <QCborValue>
#include <QSet>
#include <QVarLengthArray>
#include <algorithm>

namespace hips {

namespace {
const QString kVersionKey = QStringLiteral("v");
const QString kTypeKey = QStringLiteral("type");
const QString kSizesKey = QStringLiteral("sizes");
}  // namespace

QString wireErrorText(WireError e) {
    switch (e) {
        case WireError::None: return QStringLiteral("no error");
        case WireError::Empty: return QStringLiteral("empty message");
        case WireError::HeaderTooLarge: return QStringLiteral("header frame over the size limit");
        case WireError::NotCbor: return QStringLiteral("header is not a CBOR map");
        case WireError::BadVersion: return QStringLiteral("unsupported protocol version");
        case WireError::BadType: return QStringLiteral("missing or empty message type");
        case WireError::BadFrameTable: return QStringLiteral("frame size table missing or malformed");
        case WireError::FrameSizeMismatch: return QStringLiteral("frame count or sizes differ from the header");
        case WireError::TooManyFrames: return QStringLiteral("too many frames");
        case WireError::PayloadTooLarge: return QStringLiteral("payload over the size limit");
        case WireError::DuplicateKey: return QStringLiteral("a key appears twice in the header");
        case WireError::BadPayload: return QStringLiteral("a payload its link's codec refuses");
        case WireError::BadFixedHeader: return QStringLiteral("binary header malformed");
        case WireError::Count: break;
    }
    return QStringLiteral("unknown error");
}

quint64 WireStats::totalErrors() const {
    quint64 n = 0;
    for (const auto& c : m_errors) n += c.load(std::memory_order_relaxed);
    return n;
}

void WireCodec::encode(Message&& m, std::vector<zmq::message_t>& out) {
    if (const std::optional<QByteArray> fixed = fixedheader::encode(m, kVersion)) {
        out.emplace_back(fixed->constData(), size_t(fixed->size()));
        for (zmq::message_t& f : m.frames) out.push_back(std::move(f));
        return;
    }
    QCborMap header = m.fields;
    header.insert(kVersionKey, kVersion);
    header.insert(kTypeKey, m.type);
    QCborArray sizes;
    for (const zmq::message_t& f : m.frames) sizes.append(qint64(f.size()));
    header.insert(kSizesKey, sizes);
    const QByteArray bytes = header.toCborValue().toCbor();
    out.emplace_back(bytes.constData(), size_t(bytes.size()));
    for (zmq::message_t& f : m.frames) out.push_back(std::move(f));
}

// A data-plane header has a handful of keys: compared pairwise on the stack, without a set's
// allocations (they were a quarter of a push's encode and decode); a larger one, as a stranger
// may send, through a set. (Not by sorting: QCborValue's order is not promised to be strict for
// every value a stranger can send, and std::sort needs it to be.)
static bool hasDuplicateKey(const QCborMap& header) {
    constexpr qsizetype kPairwise = 16;
    if (header.size() > kPairwise) {
        QSet<QCborValue> keys;
        for (auto it = header.cbegin(); it != header.cend(); ++it)
            if (keys.contains(it.key())) return true;
            else keys.insert(it.key());
        return false;
    }
    QVarLengthArray<QCborValue, kPairwise> keys;
    for (auto it = header.cbegin(); it != header.cend(); ++it) {
        const QCborValue key = it.key();
        if (std::find(keys.cbegin(), keys.cend(), key) != keys.cend()) return true;
        keys.append(key);
    }
    return false;
}

static Decoded fail(WireError e, WireStats* stats) {
    if (stats) stats->count(e);
    return {std::nullopt, e};
}

// A CBOR header's type and fields, its reserved keys (version, type, sizes) checked against the
// frames and removed.
static std::optional<fixedheader::Parsed> decodeCbor(const zmq::message_t& head, const std::vector<zmq::message_t>& parts, size_t first,
                                                     size_t frameCount, WireError& error) {
    const auto refuse = [&error](WireError e) {
        error = e;
        return std::nullopt;
    };
    QCborParserError parseError;
    QCborValue value =
        QCborValue::fromCbor(QByteArray::fromRawData(static_cast<const char*>(head.data()), qsizetype(head.size())), &parseError);
    if (parseError.error != QCborError::NoError || !value.isMap()) return refuse(WireError::NotCbor);
    QCborMap header = value.toMap();
    value = QCborValue();  // the map's only owner: the reserved keys are removed in place, not from a copy
    // One meaning per key: with duplicates, what one reader takes (the first) and another (the
    // last, as toJsonObject does) would differ, and a reserved key could linger in the fields.
    if (hasDuplicateKey(header)) return refuse(WireError::DuplicateKey);

    const QCborValue version = header.value(kVersionKey);
    if (!version.isInteger() || version.toInteger() != WireCodec::kVersion) return refuse(WireError::BadVersion);
    const QCborValue type = header.value(kTypeKey);
    if (!type.isString() || type.toString().isEmpty()) return refuse(WireError::BadType);
    const QCborValue sizesValue = header.value(kSizesKey);
    if (!sizesValue.isArray()) return refuse(WireError::BadFrameTable);
    const QCborArray sizes = sizesValue.toArray();
    if (size_t(sizes.size()) != frameCount) return refuse(WireError::FrameSizeMismatch);
    for (size_t i = 0; i < frameCount; ++i) {
        const QCborValue s = sizes.at(qsizetype(i));
        if (!s.isInteger() || s.toInteger() < 0) return refuse(WireError::BadFrameTable);
        if (size_t(s.toInteger()) != parts[first + 1 + i].size()) return refuse(WireError::FrameSizeMismatch);
    }
    header.remove(kVersionKey);
    header.remove(kTypeKey);
    header.remove(kSizesKey);
    return fixedheader::Parsed{type.toString(), std::move(header)};
}

Decoded WireCodec::decode(std::vector<zmq::message_t>& parts, size_t first, const WireLimits& limits, WireStats* stats) {
    if (parts.size() <= first) return fail(WireError::Empty, stats);
    const zmq::message_t& head = parts[first];
    if (head.size() > limits.maxHeaderBytes) return fail(WireError::HeaderTooLarge, stats);
    const size_t frameCount = parts.size() - first - 1;
    if (frameCount > limits.maxFrames) return fail(WireError::TooManyFrames, stats);

    WireError error = WireError::None;
    const char* bytes = static_cast<const char*>(head.data());
    std::optional<fixedheader::Parsed> parsed = head.size() > 0 && bytes[0] == fixedheader::kMagic
                                                    ? fixedheader::decode(bytes, head.size(), parts, first + 1, frameCount, kVersion, error)
                                                    : decodeCbor(head, parts, first, frameCount, error);
    if (!parsed) return fail(error, stats);

    size_t total = 0;
    for (size_t i = 0; i < frameCount; ++i) total += parts[first + 1 + i].size();
    if (total > limits.maxPayloadBytes) return fail(WireError::PayloadTooLarge, stats);

    Message m(std::move(parsed->type), std::move(parsed->fields));
    m.frames.reserve(frameCount);
    for (size_t i = 0; i < frameCount; ++i) m.frames.push_back(std::move(parts[first + 1 + i]));
    return {std::move(m), WireError::None};
}

}  // namespace hips
