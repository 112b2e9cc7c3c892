// libFuzzer target: the CBOR header frame, the part of a message a stranger fully controls.
//
// Input: the header frame's bytes. When they parse as a map with a "sizes" array of small
// integers, payload frames of those sizes follow the header, so that mutations reach the
// accepted path and not only the frame-table checks. An accepted header's fields are then
// read the way the roles and the controller read them (integers, strings, JSON for metrics).
#include "FuzzSupport.h"
#include "WireCodec.h"

#include <QCborArray>
#include <QCborValue>
#include <QJsonDocument>
#include <QJsonObject>

using namespace hips;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<zmq::message_t> parts;
    parts.emplace_back(data, size);

    // Frames as the header announces them (at most 80 frames and 64 KiB in all).
    // (Only after a clean parse: Qt 6.4 can hand back a half-built map that crashes on lookup.)
    QCborParserError error;
    const QCborValue parsed = QCborValue::fromCbor(QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size)), &error);
    const bool clean = error.error == QCborError::NoError && parsed.isMap();
    const QCborValue sizes = clean ? parsed.toMap().value(QStringLiteral("sizes")) : QCborValue();
    if (sizes.isArray()) {
        size_t budget = 64 * 1024;
        const QCborArray a = sizes.toArray();
        for (qsizetype i = 0; i < a.size() && i < 80; ++i) {
            const qint64 n = a.at(i).isInteger() ? a.at(i).toInteger() : 0;
            const size_t bytes = n > 0 ? std::min(size_t(n), budget) : 0;
            budget -= bytes;
            parts.emplace_back(bytes);
            if (bytes) std::memset(parts.back().data(), 0x5a, bytes);
        }
    }

    WireStats stats;
    Decoded d = WireCodec::decode(parts, 0, WireLimits{}, &stats);
    if (!d.message) {
        FUZZ_CHECK(stats.totalErrors() == 1);
        return 0;
    }
    const Message& m = *d.message;
    FUZZ_CHECK(!m.type.isEmpty());
    FUZZ_CHECK(m.frames.size() == parts.size() - 1);
    (void)m.integer(QStringLiteral("round"));
    (void)m.integer(QStringLiteral("version"));
    (void)m.string(QStringLiteral("id"));
    (void)m.string(QStringLiteral("reason"));
    // Metrics are written as JSON lines (MetricsReporter), events go into the history as JSON.
    (void)QJsonDocument(m.fields.toJsonObject()).toJson(QJsonDocument::Compact);
    (void)m.fields.toCborValue().toCbor();
    return 0;
}
