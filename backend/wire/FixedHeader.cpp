#include "FixedHeader.h"

#include "WireCodec.h"

#include <QStringDecoder>
#include <QtEndian>
#include <cmath>
#include <cstring>

namespace hips::fixedheader {

namespace {

enum Shape : quint8 { kSlice = 1, kPush = 2 };
enum Flag : quint8 { kPull = 1, kOrigin = 2, kWeight = 4 };
constexpr size_t kFixedBytes = 8;
constexpr size_t kMaxText = 255, kMaxFrames = 255;

// The keys each shape has, in its order (QCborMap keeps the order its keys were inserted in).
struct Keys {
    QCborValue version{QStringLiteral("version")}, offset{QStringLiteral("offset")}, total{QStringLiteral("total")},
        round{QStringLiteral("round")}, base{QStringLiteral("base")}, pull{QStringLiteral("pull")}, origin{QStringLiteral("origin")},
        weight{QStringLiteral("weight")};
};
const Keys& keys() {
    static const Keys k;
    return k;
}

// What a header in this layout holds, read off a message's fields or a header's bytes.
struct Fields {
    Shape shape = kSlice;
    quint8 flags = 0;
    qint64 ints[4] = {};
    double weight = 0;
    QByteArray text;  // the slice's type or the push's origin, UTF-8
};

int intCount(Shape s) {
    return s == kSlice ? 3 : 4;
}

std::optional<Fields> sliceFields(const Message& m) {
    const Keys& k = keys();
    if (m.fields.size() != 3) return std::nullopt;
    Fields f;
    const QCborValue* order[] = {&k.version, &k.offset, &k.total};
    int i = 0;
    for (auto it = m.fields.cbegin(); it != m.fields.cend(); ++it, ++i) {
        if (it.key() != *order[i] || !it.value().isInteger()) return std::nullopt;
        f.ints[i] = it.value().toInteger();
    }
    f.text = m.type.toUtf8();
    if (f.text.isEmpty() || size_t(f.text.size()) > kMaxText) return std::nullopt;
    return f;
}

std::optional<Fields> pushFields(const Message& m) {
    const Keys& k = keys();
    if (m.type != QLatin1String("push") || m.fields.size() < 5 || m.fields.size() > 7) return std::nullopt;
    Fields f;
    f.shape = kPush;
    const QCborValue* order[] = {&k.round, &k.base, &k.offset, &k.total};
    auto it = m.fields.cbegin();
    for (int i = 0; i < 4; ++i, ++it) {
        if (it.key() != *order[i] || !it.value().isInteger()) return std::nullopt;
        f.ints[i] = it.value().toInteger();
    }
    if (it.key() != k.pull || !it.value().isBool()) return std::nullopt;
    f.flags = it.value().toBool() ? kPull : 0;
    ++it;
    if (it != m.fields.cend() && it.key() == k.origin) {
        if (!it.value().isString()) return std::nullopt;
        f.text = it.value().toString().toUtf8();
        if (size_t(f.text.size()) > kMaxText) return std::nullopt;
        f.flags |= kOrigin;
        ++it;
    }
    if (it != m.fields.cend() && it.key() == k.weight) {
        if (!it.value().isDouble() || !std::isfinite(it.value().toDouble())) return std::nullopt;
        f.weight = it.value().toDouble();
        f.flags |= kWeight;
        ++it;
    }
    if (it != m.fields.cend()) return std::nullopt;
    return f;
}

size_t headerSize(const Fields& f, size_t frames) {
    return kFixedBytes + 8 * size_t(intCount(f.shape)) + ((f.flags & kWeight) ? 8 : 0) + 8 * frames + size_t(f.text.size());
}

template <typename T>
void put(char*& at, T value) {
    qToLittleEndian(value, at);
    at += sizeof(T);
}

template <typename T>
T take(const char*& at) {
    const T value = qFromLittleEndian<T>(at);
    at += sizeof(T);
    return value;
}

std::optional<QString> utf8(const char* data, size_t size) {
    QStringDecoder toUtf16(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless | QStringDecoder::Flag::ConvertInitialBom);
    QString s = toUtf16(QByteArrayView(data, qsizetype(size)));
    if (toUtf16.hasError()) return std::nullopt;
    return s;
}

}  // namespace

std::optional<QByteArray> encode(const Message& m, int version) {
    if (m.frames.size() > kMaxFrames) return std::nullopt;
    std::optional<Fields> f = m.type == QLatin1String("push") ? pushFields(m) : sliceFields(m);
    if (!f) return std::nullopt;
    QByteArray header(qsizetype(headerSize(*f, m.frames.size())), Qt::Uninitialized);
    char* at = header.data();
    put<quint8>(at, quint8(kMagic));
    put<quint8>(at, quint8(version));
    put<quint8>(at, f->shape);
    put<quint8>(at, f->flags);
    put<quint8>(at, quint8(f->text.size()));
    put<quint8>(at, quint8(m.frames.size()));
    put<quint16>(at, 0);
    for (int i = 0; i < intCount(f->shape); ++i) put<qint64>(at, f->ints[i]);
    if (f->flags & kWeight) put<double>(at, f->weight);
    for (const zmq::message_t& frame : m.frames) put<quint64>(at, quint64(frame.size()));
    std::memcpy(at, f->text.constData(), size_t(f->text.size()));
    return header;
}

std::optional<Parsed> decode(const char* header, size_t size, const std::vector<zmq::message_t>& parts, size_t firstFrame,
                             size_t frameCount, int version, WireError& error) {
    const auto refuse = [&error](WireError e) {
        error = e;
        return std::nullopt;
    };
    if (size < kFixedBytes) return refuse(WireError::BadFixedHeader);
    const char* at = header + 1;
    if (take<quint8>(at) != version) return refuse(WireError::BadVersion);
    Fields f;
    const quint8 shape = take<quint8>(at);
    f.flags = take<quint8>(at);
    const size_t textBytes = take<quint8>(at), frames = take<quint8>(at);
    if (take<quint16>(at) != 0 || (shape != kSlice && shape != kPush)) return refuse(WireError::BadFixedHeader);
    f.shape = Shape(shape);
    const quint8 allowed = f.shape == kPush ? (kPull | kOrigin | kWeight) : 0;
    if ((f.flags & ~allowed) != 0 || (f.shape == kPush && !(f.flags & kOrigin) && textBytes != 0)) return refuse(WireError::BadFixedHeader);
    if (f.shape == kSlice && textBytes == 0) return refuse(WireError::BadType);
    if (frames != frameCount) return refuse(WireError::FrameSizeMismatch);
    const size_t expected = kFixedBytes + 8 * size_t(intCount(f.shape)) + ((f.flags & kWeight) ? 8 : 0) + 8 * frames + textBytes;
    if (size != expected) return refuse(WireError::BadFixedHeader);
    const char* text = header + size - textBytes;

    for (int i = 0; i < intCount(f.shape); ++i) f.ints[i] = take<qint64>(at);
    if (f.flags & kWeight) f.weight = take<double>(at);
    if (!std::isfinite(f.weight)) return refuse(WireError::BadFixedHeader);
    for (size_t i = 0; i < frames; ++i)
        if (take<quint64>(at) != parts[firstFrame + i].size()) return refuse(WireError::FrameSizeMismatch);
    const std::optional<QString> string = utf8(text, textBytes);
    if (!string) return refuse(f.shape == kSlice ? WireError::BadType : WireError::BadFixedHeader);

    const Keys& k = keys();
    Parsed p;
    if (f.shape == kSlice) {
        p.type = *string;
        p.fields = {{k.version, f.ints[0]}, {k.offset, f.ints[1]}, {k.total, f.ints[2]}};
        return p;
    }
    p.type = QStringLiteral("push");
    p.fields = {{k.round, f.ints[0]}, {k.base, f.ints[1]}, {k.offset, f.ints[2]}, {k.total, f.ints[3]}, {k.pull, bool(f.flags & kPull)}};
    if (f.flags & kOrigin) p.fields.insert(k.origin, *string);
    if (f.flags & kWeight) p.fields.insert(k.weight, f.weight);
    return p;
}

}  // namespace hips::fixedheader
