#include "Channel.h"

namespace hips {

static void common(zmq::socket_t& s) {
    s.set(zmq::sockopt::linger, 0);
    s.set(zmq::sockopt::sndhwm, 0);  // data-plane messages are few and large: never drop
    s.set(zmq::sockopt::rcvhwm, 0);
}

Channel::Channel(zmq::socket_t s, bool router, QString self, QString peer)
    : m_socket(std::move(s)), m_router(router), m_self(std::move(self)), m_peer(std::move(peer)),
      m_traffic(partyOf(m_self)) {
    setLimits(m_limits);
}

void Channel::setLimits(const WireLimits& l) {
    m_limits = l;
    // libzmq drops a peer that sends a larger frame before allocating it; the decoder checks the rest.
    m_socket.set(zmq::sockopt::maxmsgsize, int64_t(l.maxPayloadBytes));
}

static CurveConfig& defaultCurve() {
    static CurveConfig curve;
    return curve;
}

void Channel::setDefaultCurve(const CurveConfig& curve) { defaultCurve() = curve; }

Channel Channel::router(zmq::context_t& ctx, const QString& self, const QString& endpoint) {
    return router(ctx, self, endpoint, defaultCurve());
}

Channel Channel::dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer) {
    return dealer(ctx, self, endpoint, peer, defaultCurve());
}

Channel Channel::router(zmq::context_t& ctx, const QString& self, const QString& endpoint, const CurveConfig& curve) {
    zmq::socket_t s(ctx, zmq::socket_type::router);
    common(s);
    curve.applyAsServer(s);
    s.set(zmq::sockopt::router_mandatory, 1);  // a send to a vanished peer fails instead of vanishing
    s.bind(endpoint.toStdString());
    return Channel(std::move(s), true, self, {});
}

Channel Channel::dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer,
                        const CurveConfig& curve) {
    zmq::socket_t s(ctx, zmq::socket_type::dealer);
    common(s);
    curve.applyAsClient(s);
    s.set(zmq::sockopt::routing_id, self.toStdString());
    s.connect(endpoint.toStdString());
    return Channel(std::move(s), false, self, peer);
}

void Channel::send(const QString& peer, Message&& m) {
    std::vector<zmq::message_t> parts;
    parts.reserve(m.frames.size() + 2);
    if (m_router) {
        const QByteArray id = peer.toUtf8();
        parts.emplace_back(id.constData(), size_t(id.size()));
    }
    WireCodec::encode(std::move(m), parts);
    quint64 bytes = 0;
    for (size_t i = m_router ? 1 : 0; i < parts.size(); ++i) bytes += parts[i].size();
    for (size_t i = 0; i < parts.size(); ++i)
        m_socket.send(parts[i], i + 1 < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    m_traffic.sent(peer, bytes);
}

std::optional<Envelope> Channel::receive(std::chrono::milliseconds timeout) {
    zmq::pollitem_t item{m_socket.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, timeout) == 0) return std::nullopt;
    std::vector<zmq::message_t> parts;
    while (true) {
        zmq::message_t part;
        if (!m_socket.recv(part, zmq::recv_flags::dontwait)) break;
        const bool more = part.more();
        parts.push_back(std::move(part));
        if (!more) break;
    }
    const size_t first = m_router ? 1 : 0;
    if (m_router && parts.empty()) return std::nullopt;
    const QString peer = m_router ? QString::fromUtf8(static_cast<const char*>(parts[0].data()),
                                                      qsizetype(parts[0].size()))
                                  : m_peer;
    quint64 bytes = 0;
    for (size_t i = first; i < parts.size(); ++i) bytes += parts[i].size();
    m_traffic.received(peer, bytes);
    Decoded d = WireCodec::decode(parts, first, m_limits, m_stats.get());
    if (!d.message) {
        qWarning("hips: rejected a message from '%s': %s", qPrintable(peer), qPrintable(wireErrorText(d.error)));
        return std::nullopt;
    }
    return Envelope{peer, std::move(*d.message)};
}

int pollChannels(std::vector<Channel*> channels, std::chrono::milliseconds timeout) {
    std::vector<zmq::pollitem_t> items;
    for (Channel* c : channels) items.push_back({c->socket().handle(), 0, ZMQ_POLLIN, 0});
    zmq::poll(items.data(), items.size(), timeout);
    for (size_t i = 0; i < items.size(); ++i)
        if (items[i].revents & ZMQ_POLLIN) return int(i);
    return -1;
}

}  // namespace hips
