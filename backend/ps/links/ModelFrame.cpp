#include "ModelFrame.h"

#include "ModelRegistry.h"

#include "TopologyLimits.h"
#include "WireCodec.h"

#include <QHash>
#include <cstring>

namespace hips {

size_t modelParameterCount(const TrainingSettings& s) {
    return ModelRegistry::parameterCount(s.modelSpec());
}

WireLimits dataPlaneLimits(const TrainingSettings& s) {
    WireLimits limits;
    // A scheduler's node table lists up to kMaxDeployedNodes nodes (id, role, endpoint: well under 1 KiB each).
    limits.maxHeaderBytes = size_t(kMaxDeployedNodes) * 1024;
    const size_t floats = modelParameterCount(s);
    // A masked sum (secure aggregation) travels as 64-bit integers, one per float.
    if (floats > 0) limits.maxPayloadBytes = floats * (s.secureAggregation ? sizeof(quint64) : sizeof(float));
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
