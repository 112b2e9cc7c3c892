#pragma once
// An emulated WAN link on the sending side (a party's `wan`: bandwidth and latency): messages to
// the link's peers leave in order, each once the link has carried those before it at its rate and
// then its latency has passed, as on a first-in first-out link of that rate and delay. Channel
// holds them meanwhile and sends each when it is due (Channel::releaseShaped, called by receive
// and pollChannels), so the role's own loop is unchanged.
#include <QHash>
#include <QString>

#include <chrono>
#include <deque>
#include <map>
#include <functional>
#include <optional>
#include <vector>
#include <zmq.hpp>

namespace hips {

struct LinkShape {
    QString link;  // peers on one link share its rate (e.g. every node of a party)
    double bytesPerSecond;  // > 0
    std::chrono::microseconds latency;
};

class LinkShaper {
public:
    using Clock = std::chrono::steady_clock;
    struct Pending {
        Clock::time_point due;
        QString peer, type;
        std::vector<zmq::message_t> parts;
        quint64 bytes = 0;
    };

    explicit LinkShaper(std::function<std::optional<LinkShape>(const QString& peer)> shapeOf) : m_shapeOf(std::move(shapeOf)) {}
    std::optional<LinkShape> shapeOf(const QString& peer) const { return m_shapeOf(peer); }

    // The most messages one sender holds for one peer, like a socket's queue of one connection
    // (Channel's high-water mark). (Per link, a model sent to a party's many workers at once was
    // cut short: 11 workers × 96 slices of a 25M-parameter model.)
    static constexpr size_t kMaxHeld = 1000;
    // Held for `sender` (the channel that sends it when due: several channels, one to each global
    // server, share a party's link and its rate). False (and nothing held) when the sender holds
    // kMaxHeld for that peer already.
    bool enqueue(const void* sender, const LinkShape& shape, Pending message);
    // Hands every message of `sender` due by now to `send`, in each link's order.
    void releaseDue(const void* sender, const std::function<void(Pending&)>& send);
    std::optional<Clock::time_point> nextDue(const void* sender) const;
    // When the last message `sender` holds is due (nullopt: it holds none).
    std::optional<Clock::time_point> lastDue(const void* sender) const;
    bool empty(const void* sender) const;
    // Takes out what `sender` holds for the peers `drop` names (or all, without it); returns the
    // messages taken out, each with its peer and type.
    std::vector<Pending> takeHeld(const void* sender, const std::function<bool(const QString& peer)>& drop = {});

private:
    void forget(const void* sender, const QString& peer);  // one message fewer held for the peer

    std::function<std::optional<LinkShape>(const QString&)> m_shapeOf;
    std::map<QString, Clock::time_point> m_freeAt;  // by link: when it has carried all it was given
    // By sender and link: move-only messages, so not a QHash, which copies on detach.
    std::map<std::pair<const void*, QString>, std::deque<Pending>> m_queues;
    std::map<std::pair<const void*, QString>, size_t> m_heldFor;  // by sender and peer
};

}  // namespace hips
