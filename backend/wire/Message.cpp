#include "Message.h"

namespace hips {

zmq::message_t sharedFrame(std::shared_ptr<const void> owner, const void* data, size_t size) {
    auto* hint = new std::shared_ptr<const void>(std::move(owner));
    return zmq::message_t(
        const_cast<void*>(data), size, [](void*, void* h) { delete static_cast<std::shared_ptr<const void>*>(h); }, hint);
}

}  // namespace hips
