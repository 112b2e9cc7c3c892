#pragma once
// The buffers a server keeps models in: versions shared zero-copy by every reply that carries
// them, and a pool that hands a buffer out again only when nothing holds it any more.
#include "ModelFrame.h"

#include <memory>
#include <vector>

namespace hips {

// Model buffers for successive versions. A buffer is handed out again only when nothing
// else holds it (no reply carrying it is still in flight), so sends stay zero-copy and
// steady-state rounds allocate nothing.
class ModelBufferPool {
public:
    FloatBuffer acquire(size_t floats);

private:
    std::vector<FloatBuffer> m_buffers;
};

// A model version held by a server; its bytes are shared by every reply that carries it.
struct ModelVersion {
    qint64 version = -1;  // -1: no model yet
    std::shared_ptr<const void> owner;
    const float* data = nullptr;
    size_t size = 0;

    static ModelVersion fromFrame(qint64 version, zmq::message_t&& frame);
    static ModelVersion fromBuffer(qint64 version, FloatBuffer buffer);
};

}  // namespace hips
