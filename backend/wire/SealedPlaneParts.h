// The sealed plane's own state, shared by its two halves: SealedHandshake.cpp (offers, answers,
// the links they make) and SealedPlane.cpp (the frames on the links). Not for other files.
#pragma once

#include "BulkLogins.h"
#include "SealedPlane.h"

#include <chrono>
#include <deque>
#include <map>
#include <optional>

namespace hips {

namespace sealedplane {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kHelloAgain{300};  // a dealer's unanswered hello is said again

// A frame that opened on arrival, waiting for its message.
struct Stashed {
    zmq::message_t frame;  // opened in place: the plain bytes, then the tag
    uint64_t index, size;
    QByteArray digest;
};

}  // namespace sealedplane

struct SealedPlane::BulkRef {
    size_t index;
    uint64_t counter, size;
};

struct SealedPlane::Link {
    QString peer;
    QByteArray curveRoute;  // router: the CURVE connection that offered it
    uint64_t made = 0;  // router: the order links were made in
    std::unique_ptr<Sealer> sealer;
    std::unique_ptr<Opener> opener;
    QString offerId;  // the dealer's offer this link answers
    QByteArray bulkRoute;  // router: the bulk connection the peer's latest frame that opened came on
    bool confirmed = false;  // dealer: the router has its hello, so bulk reaches it
    std::optional<sealedplane::Clock::time_point> lastSentSinceMark;  // when the last frame since the last end mark went
    bool peerClosing = false;  // its end mark came: it reads nothing more here
    sealedplane::Clock::time_point lastHello{};  // dealer: when it last left
    bool helloSent = false;  // dealer: once the connection was made
    std::map<uint64_t, sealedplane::Stashed> stash;  // by counter, until their message comes
    size_t stashedBytes = 0;
    std::optional<uint64_t> lastOpened;
    sealedplane::Clock::time_point lastProgress = sealedplane::Clock::now();  // a frame opened: the peer's bulk is moving
    QByteArray login;  // router: the peer's login to the bulk port, withdrawn with the link
    ~Link() {
        if (!login.isEmpty()) bulklogin::withdraw(login);
    }
};

struct SealedPlane::Held {
    QString peer;
    QByteArray route;
    std::vector<zmq::message_t> parts;
    size_t first = 0;
    std::vector<BulkRef> refs;
    sealedplane::Clock::time_point since = sealedplane::Clock::now();
    QString refusal;
};

}  // namespace hips
