#pragma once
// Float payloads as peers may send them, for the fuzz targets of the push paths.
#include "Message.h"

#include <cstring>
#include <memory>
#include <vector>

namespace hips::fuzz {

// A frame of `floats` copies of `value` (the one at `poisonAt` replaced by `poison`), starting one
// byte off alignment when `misaligned`: what a push's payload may look like on the wire.
inline zmq::message_t floatPayload(size_t floats, float value, bool misaligned, qint64 poisonAt, float poison) {
    auto owner = std::make_shared<std::vector<char>>((floats + 1) * sizeof(float));
    char* at = owner->data() + (misaligned ? 1 : 0);
    for (size_t i = 0; i < floats; ++i) {
        const float v = qint64(i) == poisonAt ? poison : value;
        std::memcpy(at + i * sizeof(float), &v, sizeof v);
    }
    return sharedFrame(owner, at, floats * sizeof(float));
}

}  // namespace hips::fuzz
