#pragma once
// A wire message: a header frame (CBOR, or for model and push slices a fixed binary layout:
// FixedHeader.h) plus raw payload frames (tensors travel as raw frames, never inside the header).
#include <QCborMap>
#include <QString>
#include <memory>
#include <vector>
#include <zmq.hpp>

namespace hips {

struct Message {
    QString type;
    QCborMap fields;  // everything in the header besides version/type/sizes
    std::vector<zmq::message_t> frames;  // raw payload frames

    Message() = default;
    explicit Message(QString t, QCborMap f = {}) : type(std::move(t)), fields(std::move(f)) {}

    // `fallback` unless the field is a CBOR integer: QCborValue::toInteger would cast a huge or
    // NaN double straight to an integer (undefined behaviour, found by fuzzing).
    qint64 integer(const QString& key, qint64 fallback = -1) const {
        const QCborValue v = fields.value(key);
        return v.isInteger() ? v.toInteger() : fallback;
    }
    QString string(const QString& key) const { return fields.value(key).toString(); }
};

// A frame that points at memory owned by `owner` (zero copy); the owner is released
// when ZeroMQ is done with the bytes.
zmq::message_t sharedFrame(std::shared_ptr<const void> owner, const void* data, size_t size);

}  // namespace hips
