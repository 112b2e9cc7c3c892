// The fixed binary header (FixedHeader.h): the model and push slices take it and decode to what
// CBOR decodes them to; every other message stays CBOR; every malformed binary header is refused
// with its reason and counted.
#include "FixedHeader.h"
#include "WireCodec.h"

#include <QCborArray>
#include <QtEndian>
#include <QtTest>
#include <limits>

using namespace hips;

namespace {

const QString kPush = QStringLiteral("push");

Message slice(const QString& type = QStringLiteral("model")) {
    Message m(type, {{QStringLiteral("version"), 12}, {QStringLiteral("offset"), 262144}, {QStringLiteral("total"), 300000}});
    m.frames.emplace_back(16);
    return m;
}

Message push(const QString& origin = {}, double weight = 0) {
    Message m(kPush, {{QStringLiteral("round"), 9},
                      {QStringLiteral("base"), -1},
                      {QStringLiteral("offset"), 0},
                      {QStringLiteral("total"), qint64(1) << 40},
                      {QStringLiteral("pull"), true}});
    if (!origin.isNull()) m.fields.insert(QStringLiteral("origin"), origin);
    if (weight != 0) m.fields.insert(QStringLiteral("weight"), weight);
    m.frames.emplace_back(8);
    return m;
}

Message copyOf(const Message& m) {
    Message c(m.type, m.fields);
    for (const zmq::message_t& f : m.frames) c.frames.emplace_back(f.data(), f.size());
    return c;
}

std::vector<zmq::message_t> encoded(Message m) {
    std::vector<zmq::message_t> parts;
    WireCodec::encode(std::move(m), parts);
    return parts;
}

// The same message with a CBOR header, as WireCodec wrote every header before the fixed layout.
std::vector<zmq::message_t> cborEncoded(const Message& m) {
    QCborMap header = m.fields;
    header.insert(QStringLiteral("v"), WireCodec::kVersion);
    header.insert(QStringLiteral("type"), m.type);
    QCborArray sizes;
    for (const zmq::message_t& f : m.frames) sizes.append(qint64(f.size()));
    header.insert(QStringLiteral("sizes"), sizes);
    const QByteArray bytes = header.toCborValue().toCbor();
    std::vector<zmq::message_t> parts;
    parts.emplace_back(bytes.constData(), size_t(bytes.size()));
    for (const zmq::message_t& f : m.frames) parts.emplace_back(f.data(), f.size());
    return parts;
}

char firstByte(const std::vector<zmq::message_t>& parts) {
    return *static_cast<const char*>(parts[0].data());
}

QByteArray headerOf(const std::vector<zmq::message_t>& parts) {
    return QByteArray(static_cast<const char*>(parts[0].data()), qsizetype(parts[0].size()));
}

// `header` with `frames` empty frames of 16 bytes, decoded: the error, counted once.
WireError decodeWith(const QByteArray& header, int frames = 1) {
    std::vector<zmq::message_t> parts;
    parts.emplace_back(header.constData(), size_t(header.size()));
    for (int i = 0; i < frames; ++i) parts.emplace_back(16);
    WireStats stats;
    const Decoded d = WireCodec::decode(parts, 0, WireLimits{}, &stats);
    if (d.error != WireError::None && stats.errors(d.error) != 1) return WireError::Count;  // (not counted: fails the comparison)
    return d.error;
}

}  // namespace

class FixedHeaderTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void slicesTakeTheFixedLayoutAndDecodeAsCborDoes_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("model slice") << 0;
        QTest::newRow("snapshot slice") << 1;
        QTest::newRow("push") << 2;
        QTest::newRow("push with origin") << 3;
        QTest::newRow("push with an empty origin and a weight") << 4;
        QTest::newRow("push with a weight, no pull") << 5;
        QTest::newRow("slice under a type in UTF-8") << 6;
    }
    void slicesTakeTheFixedLayoutAndDecodeAsCborDoes() {
        QFETCH(int, which);
        Message m;
        switch (which) {
            case 0: m = slice(); break;
            case 1: m = slice(QStringLiteral("snapshot")); break;
            case 2: m = push(); break;
            case 3: m = push(QStringLiteral("p1/server0")); break;
            case 4: m = push(QStringLiteral(""), 0.25); break;
            case 5:
                m = push({}, 1e-300);
                m.fields.insert(QStringLiteral("pull"), false);
                break;
            default: m = slice(QStringLiteral("modèle")); break;
        }
        auto fixed = encoded(copyOf(m));
        QCOMPARE(firstByte(fixed), fixedheader::kMagic);
        auto cbor = cborEncoded(m);
        QVERIFY(headerOf(fixed).size() < headerOf(cbor).size());
        WireStats stats;
        const Decoded a = WireCodec::decode(fixed, 0, WireLimits{}, &stats), b = WireCodec::decode(cbor, 0, WireLimits{}, &stats);
        QVERIFY(a.message && b.message);
        QCOMPARE(stats.totalErrors(), quint64(0));
        QCOMPARE(a.message->type, m.type);
        QCOMPARE(a.message->type, b.message->type);
        // The same keys, values, value types and order: byte for byte the same CBOR.
        QCOMPARE(a.message->fields.toCborValue().toCbor(), m.fields.toCborValue().toCbor());
        QCOMPARE(a.message->fields.toCborValue().toCbor(), b.message->fields.toCborValue().toCbor());
        QCOMPARE(a.message->frames.size(), m.frames.size());
        QCOMPARE(a.message->frames[0].size(), m.frames[0].size());
    }

    void otherMessagesStayCbor_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("a slice with one more field") << 0;
        QTest::newRow("a push with a codec's field") << 1;
        QTest::newRow("a push's fields in another order") << 2;
        QTest::newRow("a slice's version a double") << 3;
        QTest::newRow("a push's weight not finite") << 4;
        QTest::newRow("a push's weight an integer") << 5;
        QTest::newRow("a type over 255 bytes") << 6;
        QTest::newRow("a push's pull an integer") << 7;
        QTest::newRow("a push's origin over 255 bytes") << 8;
        QTest::newRow("a message of another shape") << 9;
    }
    void otherMessagesStayCbor() {
        QFETCH(int, which);
        Message m;
        switch (which) {
            case 0: m = slice(), m.fields.insert(QStringLiteral("dense"), true); break;
            case 1: m = push(), m.fields.insert(QStringLiteral("codec"), QStringLiteral("fp16")); break;
            case 2:
                m = Message(kPush, {{QStringLiteral("pull"), true},
                                    {QStringLiteral("round"), 1},
                                    {QStringLiteral("base"), 0},
                                    {QStringLiteral("offset"), 0},
                                    {QStringLiteral("total"), 4}});
                break;
            case 3: m = slice(), m.fields.insert(QStringLiteral("version"), 1.5); break;
            case 4: m = push({}, std::numeric_limits<double>::infinity()); break;
            case 5: m = push(), m.fields.insert(QStringLiteral("weight"), 3); break;
            case 6: m = slice(QString(256, QLatin1Char('m'))); break;
            case 7: m = push(), m.fields.insert(QStringLiteral("pull"), 1); break;
            case 8: m = push(QString(256, QLatin1Char('o'))); break;
            default: m = Message(QStringLiteral("heartbeat")); break;
        }
        auto parts = encoded(copyOf(m));
        const auto first = quint8(firstByte(parts));
        QVERIFY2(first >= 0xa0 && first <= 0xbf, "a CBOR map");
        const Decoded d = WireCodec::decode(parts, 0, WireLimits{});
        QVERIFY(d.message);
        QCOMPARE(d.message->type, m.type);
        QCOMPARE(d.message->fields.toCborValue().toCbor(), m.fields.toCborValue().toCbor());
    }

    void malformedFixedHeadersAreRefused() {
        const QByteArray good = headerOf(encoded(slice()));
        const QByteArray goodPush = headerOf(encoded(push(QStringLiteral("p0"), 2.0)));
        QCOMPARE(decodeWith(good), WireError::None);
        QCOMPARE(decodeWith(goodPush, 0), WireError::FrameSizeMismatch);  // its frame is 8 bytes, not 16
        const auto edited = [](QByteArray h, int at, char value) { return h[at] = value, h; };
        QCOMPARE(decodeWith(good.left(7)), WireError::BadFixedHeader);
        QCOMPARE(decodeWith(good.chopped(1)), WireError::BadFixedHeader);
        QCOMPARE(decodeWith(good + 'x'), WireError::BadFixedHeader);
        QCOMPARE(decodeWith(edited(good, 1, 2)), WireError::BadVersion);
        QCOMPARE(decodeWith(edited(good, 2, 3)), WireError::BadFixedHeader);  // no such shape
        QCOMPARE(decodeWith(edited(good, 3, 1)), WireError::BadFixedHeader);  // a slice has no flags
        QCOMPARE(decodeWith(edited(goodPush, 3, char(0x0f))), WireError::BadFixedHeader);
        QCOMPARE(decodeWith(edited(good, 6, 1)), WireError::BadFixedHeader);
        QCOMPARE(decodeWith(good, 2), WireError::FrameSizeMismatch);
        QCOMPARE(decodeWith(good, 0), WireError::FrameSizeMismatch);
        QCOMPARE(decodeWith(edited(good, 32, 17)), WireError::FrameSizeMismatch);  // the frame's size, 16, at 32
        // The text: the slice's type, its last five bytes ("model").
        QCOMPARE(decodeWith(edited(good, good.size() - 1, char(0xc3))), WireError::BadType);  // not UTF-8
        QByteArray untyped = good.left(good.size() - 5);
        untyped[4] = 0;
        QCOMPARE(decodeWith(untyped), WireError::BadType);
        // A push: text without the origin's flag, and a weight that is not finite.
        QByteArray noFlag = goodPush;
        noFlag[3] = char(noFlag[3] & ~2);
        QCOMPARE(decodeWith(noFlag, 0), WireError::BadFixedHeader);
        QByteArray nan = headerOf(encoded(push({}, 0.5)));
        qToLittleEndian(std::numeric_limits<double>::quiet_NaN(), nan.data() + 40);  // after 8 + 4 integers
        std::vector<zmq::message_t> parts;
        parts.emplace_back(nan.constData(), size_t(nan.size()));
        parts.emplace_back(8);
        WireStats stats;
        QCOMPARE(WireCodec::decode(parts, 0, WireLimits{}, &stats).error, WireError::BadFixedHeader);
        QCOMPARE(stats.errors(WireError::BadFixedHeader), quint64(1));
    }

    void limitsApplyToTheFixedLayout() {
        auto parts = encoded(slice());
        WireLimits tight;
        tight.maxPayloadBytes = 15;
        QCOMPARE(WireCodec::decode(parts, 0, tight).error, WireError::PayloadTooLarge);
        parts = encoded(slice());
        tight = WireLimits{};
        tight.maxHeaderBytes = 8;
        QCOMPARE(WireCodec::decode(parts, 0, tight).error, WireError::HeaderTooLarge);
    }
};

QTEST_GUILESS_MAIN(FixedHeaderTest)
#include "tst_fixedheader.moc"
