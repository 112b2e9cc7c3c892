#pragma once
// Float vectors as wire frames: sent without a copy, read in place when aligned.
#include "Message.h"

#include <memory>
#include <vector>

namespace hips {

using FloatBuffer = std::shared_ptr<std::vector<float>>;

zmq::message_t floatFrame(const FloatBuffer& values);

// A read-only view of a received frame of floats. Copies only if the frame is misaligned.
class FloatView {
public:
    explicit FloatView(const zmq::message_t& frame);
    const float* data() const { return m_data; }
    size_t size() const { return m_size; }

private:
    std::vector<float> m_copy;
    const float* m_data = nullptr;
    size_t m_size = 0;
};

// A received frame of floats, kept alive by `owner` (read in place, shared without copies).
struct SharedFloats {
    std::shared_ptr<const void> owner;
    const float* data = nullptr;
    size_t size = 0;
};
SharedFloats shareFloats(zmq::message_t&& frame);

}  // namespace hips
