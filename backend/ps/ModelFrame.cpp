#include "ModelFrame.h"

#include "TopologyLimits.h"
#include "WireCodec.h"

#include <QHash>
#include <cstring>

namespace hips {

size_t modelParameterCount(const QString& model) {
    // The tensors of each net in registration order, laid out as FlatModel does: each starts on
    // a 16-float boundary, and the whole is padded to one.
    static const QHash<QString, std::vector<size_t>> tensors = {
        {QStringLiteral("mlp"), {784 * 256, 256, 256 * 10, 10}},
        {QStringLiteral("cnn"), {1 * 6 * 25, 6, 6 * 16 * 25, 16, 16 * 5 * 5 * 120, 120, 120 * 84, 84, 84 * 10, 10}},
    };
    const auto aligned = [](size_t n) { return (n + 15) / 16 * 16; };
    size_t total = 0;
    for (size_t n : tensors.value(model)) total = aligned(total) + n;
    return aligned(total);
}

WireLimits dataPlaneLimits(const QString& model) {
    WireLimits limits;
    // A scheduler's node table lists up to kMaxNodes nodes (id, role, endpoint: well under 1 KiB each).
    limits.maxHeaderBytes = size_t(kMaxNodes) * 1024;
    const size_t floats = modelParameterCount(model);
    if (floats > 0) limits.maxPayloadBytes = floats * sizeof(float);
    return limits;
}


zmq::message_t floatFrame(const FloatBuffer& values) {
    return sharedFrame(values, values->data(), values->size() * sizeof(float));
}

FloatView::FloatView(const zmq::message_t& frame) : m_size(frame.size() / sizeof(float)) {
    const auto* bytes = static_cast<const char*>(frame.data());
    if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) == 0) {
        m_data = reinterpret_cast<const float*>(bytes);
    } else {
        m_copy.resize(m_size);
        std::memcpy(m_copy.data(), bytes, m_size * sizeof(float));
        m_data = m_copy.data();
    }
}

SharedFloats shareFloats(zmq::message_t&& frame) {
    struct Held {
        zmq::message_t frame;
        FloatView view;
        explicit Held(zmq::message_t&& f) : frame(std::move(f)), view(frame) {}
    };
    auto held = std::make_shared<Held>(std::move(frame));
    return {held, held->view.data(), held->view.size()};
}

}  // namespace hips
