#pragma once
// The control plane's clock measure (the controller's ClockOffset.h): a hello or ping carries the
// controller's time (sent_at); the hello_ok or pong echoes it with the agent host's (host_time).
// An agent of before 2026-12-02 answers without them, and its records are taken as stamped.
#include "Message.h"

#include <optional>

namespace hips::control {

inline constexpr QLatin1String kSentAt{"sent_at"};
inline constexpr QLatin1String kHostTime{"host_time"};

// The agent's half: `hostTime` is its clock now (unix seconds).
inline void answerClock(Message& answer, const Message& asked, double hostTime) {
    if (const QCborValue sent = asked.fields.value(kSentAt); sent.isDouble() || sent.isInteger())
        answer.fields.insert(kSentAt, sent.toDouble());
    answer.fields.insert(kHostTime, hostTime);
}

// The controller's: {sent_at, host_time} of an answer, when it has both.
struct ClockAnswer {
    double sentAt = 0, hostTime = 0;
};
inline std::optional<ClockAnswer> clockAnswer(const Message& answer) {
    const QCborValue sent = answer.fields.value(kSentAt), host = answer.fields.value(kHostTime);
    if (!sent.isDouble() || !host.isDouble()) return std::nullopt;
    return ClockAnswer{sent.toDouble(), host.toDouble()};
}

}  // namespace hips::control
