#include "ModelBuffers.h"

namespace hips {

ModelVersion ModelVersion::fromFrame(qint64 version, zmq::message_t&& frame) {
    SharedFloats floats = shareFloats(std::move(frame));
    return {version, std::move(floats.owner), floats.data, floats.size};
}

ModelVersion ModelVersion::fromBuffer(qint64 version, FloatBuffer buffer) {
    return {version, buffer, buffer->data(), buffer->size()};
}

FloatBuffer ModelBufferPool::acquire(size_t floats) {
    for (const FloatBuffer& b : m_buffers)
        if (b.use_count() == 1 && b->size() == floats) return b;
    m_buffers.push_back(std::make_shared<std::vector<float>>(floats));
    return m_buffers.back();
}

}  // namespace hips
