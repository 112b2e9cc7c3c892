#pragma once
// Float vectors as wire frames: sent without a copy, read in place when aligned.
#include "Message.h"
#include "Topology.h"

#include <memory>
#include <vector>

namespace hips {

using FloatBuffer = std::shared_ptr<std::vector<float>>;

// Parameters of each model of backend/train (Models.cpp), known here without LibTorch so that
// servers can bound what they accept before any model has arrived; tst_train checks that the
// two agree. 0 for an unknown name.
size_t modelParameterCount(const TrainingSettings& settings);

// Data-plane limits for a run of `model`: no payload larger than one whole model, whatever a
// peer sends (ZeroMQ drops a connection that sends a larger frame before allocating it), and
// headers large enough for the node table of the largest topology.
struct WireLimits;
WireLimits dataPlaneLimits(const TrainingSettings& settings);

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
