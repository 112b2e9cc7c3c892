#pragma once
// A ZeroMQ socket plus the codec, limits, error counters and traffic counters.
// Owned and used by exactly one thread (role processes poll it in their main loop).
#include "CurveSecurity.h"
#include "TrafficCounter.h"
#include "WireCodec.h"

#include <chrono>
#include <optional>

namespace hips {

struct Envelope {
    QString peer;  // routing id of the sender (ROUTER) or the connected peer (DEALER)
    Message message;
};

class Channel {
public:
    // A ROUTER that binds `endpoint`, or a DEALER with routing id `self` that connects to it.
    static Channel router(zmq::context_t& ctx, const QString& self, const QString& endpoint);
    static Channel dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint,
                          const QString& peer);
    // Channels made without a CurveConfig use this one: a role process sets the run's keys once,
    // and every socket it opens is then encrypted and authenticated.
    static void setDefaultCurve(const CurveConfig& curve);
    static Channel router(zmq::context_t& ctx, const QString& self, const QString& endpoint, const CurveConfig& curve);
    static Channel dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer,
                          const CurveConfig& curve);

    Channel(Channel&&) = default;
    Channel& operator=(Channel&&) = default;

    void send(const QString& peer, Message&& m);
    void send(Message&& m) { send(m_peer, std::move(m)); }
    // Waits up to `timeout` for one message; malformed input is counted and skipped.
    std::optional<Envelope> receive(std::chrono::milliseconds timeout);

    zmq::socket_t& socket() { return m_socket; }
    const TrafficCounter& traffic() const { return m_traffic; }
    const WireStats& stats() const { return *m_stats; }
    const QString& self() const { return m_self; }
    void setLimits(const WireLimits& l);
    // On a graceful exit, give queued messages this long to leave before the socket closes
    // (the default linger of 0 drops them, which is right only when aborting).
    void lingerOnClose(std::chrono::milliseconds ms) { m_socket.set(zmq::sockopt::linger, int(ms.count())); }

private:
    Channel(zmq::socket_t s, bool router, QString self, QString peer);

    zmq::socket_t m_socket;
    bool m_router;
    QString m_self, m_peer;
    WireLimits m_limits;
    std::unique_ptr<WireStats> m_stats = std::make_unique<WireStats>();
    TrafficCounter m_traffic;
};

// Messages from several channels, whichever is ready first.
int pollChannels(std::vector<Channel*> channels, std::chrono::milliseconds timeout);

}  // namespace hips
