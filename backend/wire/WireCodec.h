#pragma once
// Encodes and decodes Messages: a header frame, CBOR or, for the data plane's model and push
// slices, a fixed binary layout (FixedHeader.h), then the payload frames. The decoder trusts
// nothing: a header that is neither, a wrong version, sizes that do not match the frames, or a payload over the limit is
// rejected with a reason and counted in WireStats.
#include "Message.h"

#include <array>
#include <atomic>
#include <optional>

namespace hips {

enum class WireError {
    None,
    Empty,
    HeaderTooLarge,
    NotCbor,
    BadVersion,
    BadType,
    BadFrameTable,
    FrameSizeMismatch,
    TooManyFrames,
    PayloadTooLarge,
    DuplicateKey,
    BadPayload,
    BadFixedHeader,
    Count
};

QString wireErrorText(WireError e);

struct WireLimits {
    size_t maxHeaderBytes = 64 * 1024;
    size_t maxFrames = 64;
    size_t maxPayloadBytes = size_t(2) << 30;  // 2 GiB
};

// Counters of rejected input, by reason. Safe to read from any thread.
class WireStats {
public:
    void count(WireError e) { m_errors[size_t(e)].fetch_add(1, std::memory_order_relaxed); }
    quint64 errors(WireError e) const { return m_errors[size_t(e)].load(std::memory_order_relaxed); }
    quint64 totalErrors() const;

private:
    std::array<std::atomic<quint64>, size_t(WireError::Count)> m_errors{};
};

struct Decoded {
    std::optional<Message> message;
    WireError error = WireError::None;
};

class WireCodec {
public:
    static constexpr int kVersion = 1;

    // Appends the header frame and the payload frames (moved out of `m`) to `out`.
    static void encode(Message&& m, std::vector<zmq::message_t>& out);
    // Decodes parts[first..]; on failure counts the error in `stats` (when given).
    static Decoded decode(std::vector<zmq::message_t>& parts, size_t first, const WireLimits& limits, WireStats* stats = nullptr);
};

}  // namespace hips
