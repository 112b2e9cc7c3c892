// libFuzzer target: the wire decoder on a whole multipart message.
//
// Input: byte 0 picks where the message starts (0-2 routing frames before it, as a ROUTER
// sees them) and whether tight limits apply; byte 1 is the number of frames (0-69, so over
// WireLimits::maxFrames too); then each frame is a 16-bit little-endian length and its bytes.
// A message the decoder accepts must satisfy the codec's promises and survive a re-encode.
#include "FuzzSupport.h"
#include "WireCodec.h"

#include <QCborValue>

using namespace hips;

namespace {

void checkAccepted(const Message& m, size_t frameCount) {
    FUZZ_CHECK(!m.type.isEmpty());
    FUZZ_CHECK(m.frames.size() == frameCount);

    // Re-encoding what was decoded gives a message that decodes to the same thing.
    Message copy(m.type, m.fields);
    for (const zmq::message_t& f : m.frames) copy.frames.emplace_back(f.data(), f.size());
    std::vector<zmq::message_t> parts;
    WireCodec::encode(std::move(copy), parts);
    WireStats stats;
    Decoded again = WireCodec::decode(parts, 0, WireLimits{}, &stats);
    FUZZ_CHECK(again.message.has_value());
    FUZZ_CHECK(stats.totalErrors() == 0);
    FUZZ_CHECK(again.message->type == m.type);
    FUZZ_CHECK(again.message->frames.size() == m.frames.size());
    for (size_t i = 0; i < m.frames.size(); ++i) {
        FUZZ_CHECK(again.message->frames[i].size() == m.frames[i].size());
        FUZZ_CHECK(m.frames[i].size() == 0 || std::memcmp(again.message->frames[i].data(), m.frames[i].data(), m.frames[i].size()) == 0);
    }
    FUZZ_CHECK(again.message->fields.toCborValue().toCbor() == m.fields.toCborValue().toCbor());

    // What the roles read off a header.
    (void)m.integer(QStringLiteral("round"));
    (void)m.string(QStringLiteral("id"));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::Input in(data, size);
    const uint8_t mode = in.byte();
    const size_t first = mode % 3;
    const bool tight = (mode & 0x80) != 0;
    const size_t frameCount = in.byte() % 70;

    std::vector<zmq::message_t> parts;
    for (size_t i = 0; i < first; ++i) parts.emplace_back("peer", 4);
    for (size_t i = 0; i < frameCount; ++i) parts.push_back(in.chunk16());
    const size_t payloadFrames = parts.size() > first ? parts.size() - first - 1 : 0;

    WireLimits limits;
    if (tight) limits = WireLimits{64, 4, 256};
    WireStats stats;
    Decoded d = WireCodec::decode(parts, first, limits, &stats);
    if (d.message) {
        FUZZ_CHECK(d.error == WireError::None);
        FUZZ_CHECK(stats.totalErrors() == 0);
        checkAccepted(*d.message, payloadFrames);
    } else {
        FUZZ_CHECK(d.error != WireError::None && d.error != WireError::Count);
        FUZZ_CHECK(stats.totalErrors() == 1 && stats.errors(d.error) == 1);
        FUZZ_CHECK(!wireErrorText(d.error).isEmpty());
    }
    return 0;
}
