#pragma once
// The data plane's two most frequent headers in a fixed binary layout instead of CBOR: a model
// slice ({version, offset, total} under any type) and a push slice ({round, base, offset, total,
// pull} and, optionally, origin and weight, in that order). WireCodec writes this layout for a
// message whose fields are exactly one of these shapes, and CBOR for every other message; a
// decoded message is the same either way (same type, same fields in the same order). Layout,
// little-endian:
//
//   0  'H'            never the first byte of a CBOR map (0xA0-0xBF), so the two cannot be confused
//   1  version        WireCodec::kVersion
//   2  shape          1 slice, 2 push
//   3  flags          push: 1 pull, 2 origin present, 4 weight present; slice: 0
//   4  text length    slice: its type's UTF-8 bytes; push: its origin's (0 without one)
//   5  frame count
//   6  two zero bytes
//   8  the integers   slice: version, offset, total; push: round, base, offset, total (i64 each)
//      weight         push with weight: f64, finite
//      frame sizes    u64 each
//      text           the type or the origin
//
// The decoder refuses any other length, flag, version or shape, a weight that is not finite, text
// that is not UTF-8, and sizes that differ from the frames.
#include "Message.h"

#include <QByteArray>
#include <optional>

namespace hips {

enum class WireError;

namespace fixedheader {

constexpr char kMagic = 'H';

// The header of `m` in the fixed layout, or nothing when its fields have neither shape.
std::optional<QByteArray> encode(const Message& m, int version);

// The type and fields of `header` (its first byte is kMagic), checked against `frames`.
struct Parsed {
    QString type;
    QCborMap fields;
};
std::optional<Parsed> decode(const char* header, size_t size, const std::vector<zmq::message_t>& parts, size_t firstFrame,
                             size_t frameCount, int version, WireError& error);

}  // namespace fixedheader
}  // namespace hips
