// libFuzzer target: model slices as a server or worker receives them (ModelSlice::fromMessage)
// and their reassembly (ModelAssembler), the path every pulled model takes.
//
// Input: byte 0 picks the model size the assembler expects (small, around one slice, several
// slices); then up to 16 records, each a message claiming a slice: a mode byte (how the
// header is built: typed values near the canonical cut, arbitrary integers, values of the wrong
// type, or raw CBOR; how many frames; aligned or not) and the values it needs. Slice
// payloads are filled with the slice's version, so a model the assembler hands out must hold
// that version's value everywhere: no hole, no stale bytes, no write outside the buffer (ASan).
#include "FuzzSupport.h"
#include "ModelSlices.h"

#include <QCborValue>
#include <cmath>

using namespace hips;

namespace {

constexpr size_t K = kSliceFloats;
const size_t kModelSizes[8] = {1, 3, 1000, K - 1, K, K + 1, 2 * K + 5, 3 * K};

float fillOf(qint64 version) {
    return float(version % 1000);
}

// A frame of `bytes` bytes holding `fill` as floats, at an aligned or a misaligned address.
zmq::message_t payload(size_t bytes, float fill, bool misaligned) {
    auto owner = std::make_shared<std::vector<char>>(bytes + sizeof(float));
    char* at = owner->data() + (misaligned ? 1 : 0);
    for (size_t i = 0; i + sizeof(float) <= bytes; i += sizeof(float)) std::memcpy(at + i, &fill, sizeof(float));
    return sharedFrame(owner, at, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::Input in(data, size);
    const size_t expected = kModelSizes[in.byte() % 8];
    ModelAssembler assembler(expected);

    for (int record = 0; record < 16 && in.left() > 0; ++record) {
        const uint8_t mode = in.byte();
        const qint64 version = (mode & 0x80) ? qint64(in.u64()) : qint64(in.byte()) - 2;
        const qint64 slot = qint64(in.byte() % 4);
        const qint64 offset = fuzz::nearOrAny(in, slot * qint64(K), qint64(K));
        const qint64 total = fuzz::nearOrAny(in, qint64(expected), qint64(K));

        Message m(QStringLiteral("model"));
        switch (mode & 3) {
            case 0:
                m.fields = {{QStringLiteral("version"), version}, {QStringLiteral("offset"), offset}, {QStringLiteral("total"), total}};
                break;
            case 1: {  // CBOR floats where integers belong: any bit pattern (NaN, ±Inf, 1e300, 3.0)
                const auto anyDouble = [&](qint64 integer) {
                    const uint64_t bits = in.u64();
                    double d;
                    std::memcpy(&d, &bits, sizeof d);
                    return bits == 0 ? double(integer) : d;  // 0 bits: the integer's value as a float
                };
                m.fields = {{QStringLiteral("version"), anyDouble(version)},
                            {QStringLiteral("offset"), anyDouble(offset)},
                            {QStringLiteral("total"), anyDouble(total)}};
                break;
            }
            case 2:  // values of the wrong type
                m.fields = {{QStringLiteral("version"), double(version) + 0.5},
                            {QStringLiteral("offset"), QString::number(offset)},
                            {QStringLiteral("total"), QCborValue(QCborValue::Null)}};
                break;
            case 3: {  // any header at all
                const zmq::message_t raw = in.chunk16();
                QCborParserError error;  // as WireCodec does: a header that does not parse never arrives
                const QCborValue v = QCborValue::fromCbor(QByteArray(static_cast<const char*>(raw.data()), qsizetype(raw.size())), &error);
                if (error.error == QCborError::NoError) m.fields = v.toMap();
                break;
            }
        }

        // The payload: the size the header implies (when that is sane), or an arbitrary one.
        size_t bytes;
        if ((mode & 0x10) == 0 && offset >= 0 && total > offset && total - offset <= qint64(4 * K))
            bytes = std::min(K, size_t(total - offset)) * sizeof(float);
        else bytes = in.u16();
        const size_t frames = (mode >> 2) & 3;  // 0, 1, 2 or 3 frames
        const bool misaligned = (mode & 0x20) != 0;
        const QCborValue v = m.fields.value(QStringLiteral("version"));
        // (Message::integer takes a float in range as its integer part, as QCborValue does.)
        const double d = v.toDouble(-1);
        const bool inRange = d >= -std::ldexp(1.0, 63) && d < std::ldexp(1.0, 63);
        const qint64 claimed = v.isInteger() ? v.toInteger() : (v.isDouble() && inRange) ? qint64(d) : -1;
        const float fill = fillOf(claimed);
        for (size_t i = 0; i < frames; ++i) m.frames.push_back(payload(i == 0 ? bytes : 4, fill, misaligned));

        std::optional<ModelSlice> slice = ModelSlice::fromMessage(std::move(m), QStringLiteral("party1/server0"));
        if (!slice) continue;
        FUZZ_CHECK(slice->offset % K == 0 && slice->offset < slice->total);
        FUZZ_CHECK(slice->floats.size == std::min(K, slice->total - slice->offset));
        FUZZ_CHECK(slice->floats.data != nullptr || slice->floats.size == 0);

        const std::optional<ModelVersion> model = assembler.add(*slice);
        if (!model) continue;
        FUZZ_CHECK(model->size == expected);
        FUZZ_CHECK(model->version == slice->version);
        const float expectedFill = fillOf(model->version);
        for (size_t i = 0; i < model->size; ++i) FUZZ_CHECK(model->data[i] == expectedFill);
    }
    return 0;
}
