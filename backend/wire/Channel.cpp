#include "Channel.h"

#include "RoleScope.h"

#include <algorithm>
#include <climits>
#include <thread>

namespace hips {

// Queues are bounded: a peer that stops reading (or floods) costs at most this many messages
// of memory per connection; beyond it sends are dropped and counted, and ZeroMQ stops reading
// a flooding connection until the role catches up. A round moves a handful of messages per peer.
static constexpr int kHighWaterMark = 1000;

static constexpr size_t kEnvelopeSlack = 4096;
static constexpr int kMaxSealedReadsPerCall = 256;

// IPv6 only for an IPv6 address (tcp://[::1]:9100): on IPv4 a socket stays an IPv4 one, which a
// host with net.ipv6.bindv6only set, or no IPv6 at all, still takes.
static void allowIpv6For(zmq::socket_t& s, const QString& endpoint) {
    if (endpoint.contains(QLatin1Char('['))) s.set(zmq::sockopt::ipv6, 1);
}

static void common(zmq::socket_t& s) {
    s.set(zmq::sockopt::linger, 0);
    s.set(zmq::sockopt::sndhwm, kHighWaterMark);
    s.set(zmq::sockopt::rcvhwm, kHighWaterMark);
}

// The process's, or a shared trainer's role's own (RoleScope.h), as runIdentity() below.
static WireLimits& defaultLimits() {
    static WireLimits process;
    thread_local WireLimits thread;
    return threadRoleScope() ? thread : process;
}

WireLimits Channel::currentDefaultLimits() {
    return defaultLimits();
}

void Channel::setDefaultLimits(const WireLimits& limits) {
    defaultLimits() = limits;
}

Channel::Channel(zmq::socket_t s, bool router, bool authenticated, QString self, QString peer)
    : m_socket(std::move(s)),
      m_router(router),
      m_authenticated(authenticated),
      m_self(std::move(self)),
      m_peer(std::move(peer)),
      m_rejections(std::make_unique<RejectionLog>(m_self)),
      m_traffic(partyOf(m_self)) {
    setLimits(defaultLimits());
}

void Channel::setLimits(const WireLimits& l) {
    m_limits = l;
    // libzmq drops a peer that sends a larger frame before allocating it; the decoder checks the
    // rest. Applies to connections made after this call: set it before bind or connect.
    // The slack covers CURVE's envelope (nonce, MAC, command name), which ZeroMQ counts too.
    m_socket.set(zmq::sockopt::maxmsgsize, int64_t(std::max(l.maxPayloadBytes, l.maxHeaderBytes) + kEnvelopeSlack));
}

struct RunIdentity {
    CurveKeyPair own;
    PeerKeys peers;
    QByteArray sealedBinding;
};

// The role's identity: its process's, or, for a role that is a thread of a shared trainer
// (RoleScope.h), its thread's: the threads of one process are different nodes of the run.
static RunIdentity& runIdentity() {
    static RunIdentity process;
    thread_local RunIdentity thread;
    return threadRoleScope() ? thread : process;
}

void Channel::setRunIdentity(const CurveKeyPair& own, const PeerKeys& peers) {
    runIdentity() = {own, peers, {}};
}

void Channel::setRunSealing(const QByteArray& binding) {
    runIdentity().sealedBinding = binding;
}

const CurveKeyPair& Channel::runKeyPair() {
    return runIdentity().own;
}

const PeerKeys& Channel::runPeerKeys() {
    return runIdentity().peers;
}

Channel Channel::router(zmq::context_t& ctx, const QString& self, const QString& endpoint) {
    return router(ctx, self, endpoint, CurveConfig{runIdentity().own, {}, runIdentity().sealedBinding});
}

Channel Channel::dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer) {
    const RunIdentity& identity = runIdentity();
    const QByteArray serverKey = identity.peers.keyOf(peer);
    if (!identity.own.isNull() && serverKey.isEmpty())
        throw std::runtime_error("no key for " + peer.toStdString() + " among the run's keys; start the run again");
    return dealer(ctx, self, endpoint, peer, CurveConfig{identity.own, serverKey, identity.sealedBinding});
}

Channel Channel::router(zmq::context_t& ctx, const QString& self, const QString& endpoint, const CurveConfig& curve,
                        const std::optional<WireLimits>& limits) {
    zmq::socket_t s(ctx, zmq::socket_type::router);
    common(s);
    allowIpv6For(s, endpoint);
    curve.applyAsServer(s);
    s.set(zmq::sockopt::router_mandatory, 1);  // a send to a vanished peer fails (and is counted) instead of vanishing
    Channel c(std::move(s), true, curve.enabled(), self, {});
    if (limits) c.setLimits(*limits);
    try {
        c.m_socket.bind(endpoint.toStdString());
    } catch (const zmq::error_t& e) {
        const std::string hint = e.num() == EADDRINUSE ? "; the port is in use: choose a free one in the topology, or stop what uses it"
                                                       : "; check the host's address and port in the topology";
        throw std::runtime_error("cannot listen on " + endpoint.toStdString() + ": " + e.what() + hint);
    }
    if (curve.enabled() && !curve.sealedBinding.isEmpty())
        c.m_plane =
            std::make_unique<SealedPlane>(ctx, true, self, curve.sealedBinding,
                                          QString::fromStdString(c.m_socket.get(zmq::sockopt::last_endpoint)), c.m_limits.maxPayloadBytes);
    if (c.m_plane) c.m_plane->setRejectionLog(c.m_rejections.get());
    return c;
}

Channel Channel::dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer, const CurveConfig& curve,
                        const std::optional<WireLimits>& limits) {
    zmq::socket_t s(ctx, zmq::socket_type::dealer);
    common(s);
    allowIpv6For(s, endpoint);
    curve.applyAsClient(s);
    // With CURVE the server names us by our key; a routing id of our choosing would only let a
    // second connection of ours be refused as a duplicate.
    if (!curve.enabled()) s.set(zmq::sockopt::routing_id, self.toStdString());
    Channel c(std::move(s), false, curve.enabled(), self, peer);
    if (limits) c.setLimits(*limits);
    c.m_socket.connect(endpoint.toStdString());
    if (curve.enabled() && !curve.sealedBinding.isEmpty()) {  // the link's keys are offered at once (queued until connected)
        c.m_plane = std::make_unique<SealedPlane>(ctx, false, self, curve.sealedBinding, endpoint, c.m_limits.maxPayloadBytes);
        c.m_plane->setRejectionLog(c.m_rejections.get());
        c.send(c.m_plane->offer());
    }
    return c;
}

bool Channel::send(const QString& peer, Message&& m) {
    return sendOn(peer, m_router && m_authenticated ? m_routes.value(peer) : peer.toUtf8(), std::move(m));
}

// On the connection `route` names (a router's; a dealer has one).
bool Channel::sendOn(const QString& peer, const QByteArray& route, Message&& m) {
    std::vector<zmq::message_t> parts;
    parts.reserve(m.frames.size() + 2);
    if (m_router) {
        if (route.isEmpty()) {  // never heard from: nothing to send it on
            ++m_undeliverable;
            m_rejections->undelivered(peer, QStringLiteral("not connected; dropped one '%1' message").arg(m.type));
            return false;
        }
        parts.emplace_back(route.constData(), size_t(route.size()));
    }
    if (m_transform) m_transform->outgoing(peer, m);
    const QString type = m.type;
    WireCodec::encode(std::move(m), parts);
    quint64 bytes = 0;
    for (size_t i = m_router ? 1 : 0; i < parts.size(); ++i) bytes += parts[i].size();
    if (m_shaper)
        if (const std::optional<LinkShape> shape = m_shaper->shapeOf(peer)) {
            if (m_shaper->enqueue(this, *shape, LinkShaper::Pending{{}, peer, type, std::move(parts), bytes})) return true;
            ++m_undeliverable;  // its link holds as many as a socket's queue would: the same bound
            if (m_transform) m_transform->undelivered(peer, Message(type));
            m_rejections->undelivered(peer, QStringLiteral("dropped one '%1' message: its emulated link holds %2 messages already")
                                                .arg(type)
                                                .arg(LinkShaper::kMaxHeld));
            return false;
        }
    return transmit(peer, type, parts, bytes);
}

bool Channel::transmit(const QString& peer, const QString& type, std::vector<zmq::message_t>& parts, quint64 bytes) {
    try {
        if (m_plane) m_plane->divert(peer, parts, m_router ? 1 : 0);
        for (size_t i = 0; i < parts.size(); ++i) {
            const auto flags = i + 1 < parts.size() ? zmq::send_flags::sndmore | zmq::send_flags::dontwait : zmq::send_flags::dontwait;
            // A multipart message is all or nothing: only its first part can fail to queue.
            if (!m_socket.send(parts[i], flags)) throw zmq::error_t();
        }
    } catch (const zmq::error_t& e) {
        if (e.num() != EHOSTUNREACH && e.num() != EAGAIN) throw;  // ETERM etc.: the process is ending
        ++m_undeliverable;
        if (m_transform) m_transform->undelivered(peer, Message(type));
        m_rejections->undelivered(peer, QStringLiteral("dropped one '%1' message: %2")
                                            .arg(type, e.num() == EHOSTUNREACH ? QStringLiteral("it has disconnected")
                                                                               : QStringLiteral("its queue is full (it stopped reading)")));
        return false;
    }
    m_traffic.sent(peer, bytes);
    return true;
}

// Who sent `parts`: the node its connection authenticated as, or (without CURVE) its routing id.
std::optional<QString> Channel::senderOf(const std::vector<zmq::message_t>& parts) {
    if (!m_router) return m_peer;
    if (parts.size() < 2) return std::nullopt;
    const QByteArray routingId(static_cast<const char*>(parts[0].data()), qsizetype(parts[0].size()));
    if (!m_authenticated) return QString::fromUtf8(routingId);
    const char* user = zmq_msg_gets(const_cast<zmq::message_t&>(parts[1]).handle(), "User-Id");
    if (!user || !*user) return std::nullopt;  // not through our ZAP handler: never trusted
    const QString node = QString::fromUtf8(user);
    m_routes.insert(node, routingId);  // a reconnected node is reached on its newest connection
    return node;
}

std::optional<std::chrono::milliseconds> Channel::releaseShaped() {
    if (!m_shaper) return std::nullopt;
    m_shaper->releaseDue(this, [this](LinkShaper::Pending& p) { transmit(p.peer, p.type, p.parts, p.bytes); });
    const auto next = m_shaper->nextDue(this);
    if (!next) return std::nullopt;
    return std::max(std::chrono::milliseconds(0), std::chrono::ceil<std::chrono::milliseconds>(*next - LinkShaper::Clock::now()));
}

void Channel::lingerOnClose(std::chrono::milliseconds ms, const QSet<QString>& gone) {
    if (m_shaper) lingerOnShapedLinks(ms, gone);
    if (m_plane) awaitBulkRead(ms, gone);
    m_socket.set(zmq::sockopt::linger, int(ms.count()));
    if (m_plane) m_plane->lingerOnClose(ms);
}

// What an emulated link holds goes out as the link carries it, however long that takes (the final
// model down a slow WAN to every worker of a party: 6 s each at 1 Mbit/s), but none to a peer gone.
// (Cut at `ms`, the last ones were lost unsaid, and the workers waited for them for ever.)
void Channel::lingerOnShapedLinks(std::chrono::milliseconds ms, const QSet<QString>& gone) {
    const auto dropped = [this](const std::vector<LinkShaper::Pending>& held, const QString& why) {
        for (const LinkShaper::Pending& p : held) {
            ++m_undeliverable;
            m_rejections->undelivered(p.peer, QStringLiteral("dropped one '%1' message: %2").arg(p.type, why));
        }
    };
    dropped(m_shaper->takeHeld(this, [&gone](const QString& peer) { return gone.contains(peer); }),
            QStringLiteral("it is down, and this end closes"));
    // (A linger of 0 drops them: a channel replaced by one to a server that moved, whose pushes
    // go to it again.)
    const auto now = LinkShaper::Clock::now();
    const auto deadline = ms.count() > 0 ? std::max(now + ms, m_shaper->lastDue(this).value_or(now) + ms) : now;
    while (const auto wait = releaseShaped()) {
        if (LinkShaper::Clock::now() + *wait > deadline) break;
        std::this_thread::sleep_for(*wait);
    }
    dropped(m_shaper->takeHeld(this), QStringLiteral("its emulated link had not carried it when this end closed"));
}

// Until the peers say they read every sealed frame sent them (SealedPlane::markEnd), or the
// deadline. What arrives meanwhile is kept for receive().
void Channel::awaitBulkRead(std::chrono::milliseconds linger, const QSet<QString>& gone) {
    const auto deadline = std::chrono::steady_clock::now() + linger;
    m_plane->markEnd(linger, gone);
    while (m_plane->awaitingEnd()) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return;
        if (std::optional<Envelope> e = receiveSealed(std::min(left, std::chrono::milliseconds(10)))) m_kept.push_back(std::move(*e));
    }
}

// With held messages, the wait is cut into pieces that end when the next one is due.
std::optional<Envelope> Channel::receive(std::chrono::milliseconds timeout) {
    if (!m_kept.empty()) {
        Envelope e = std::move(m_kept.front());
        m_kept.pop_front();
        return e;
    }
    if (!m_shaper) return receiveNow(timeout);
    const auto deadline = LinkShaper::Clock::now() + timeout;
    while (true) {
        const auto wait = releaseShaped();
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - LinkShaper::Clock::now());
        if (auto e = receiveNow(std::max(std::chrono::milliseconds(0), wait ? std::min(*wait, left) : left))) return e;
        if (LinkShaper::Clock::now() >= deadline) {
            releaseShaped();
            return std::nullopt;
        }
    }
}

// A receive that blocks for up to `timeout`: one wait inside ZeroMQ. (zmq::poll polls once
// without a timeout, asks the socket for its events, then polls again and asks again before the
// receive: bench_dataplane counted 16 poll calls a round against raw ZeroMQ's 10.) A message's
// parts arrive together, so the parts after the first are there already.
std::nullopt_t Channel::refusedFrom(const QString& peer) {
    ++m_refusedFromPeers;
    m_lastRefusedPeer = peer;
    return std::nullopt;
}

// One message's parts (none when nothing came): a message's parts arrive together.
static std::vector<zmq::message_t> receiveParts(zmq::socket_t& socket, zmq::recv_flags firstFlags) {
    std::vector<zmq::message_t> parts;
    for (auto flags = firstFlags;; flags = zmq::recv_flags::dontwait) {
        zmq::message_t part;
        if (!socket.recv(part, flags)) break;
        const bool more = part.more();
        parts.push_back(std::move(part));
        if (!more) break;
    }
    return parts;
}

std::optional<Envelope> Channel::receiveNow(std::chrono::milliseconds timeout) {
    if (m_plane) return receiveSealed(timeout);
    const int ms = int(std::clamp<std::chrono::milliseconds::rep>(timeout.count(), -1, INT_MAX));
    if (ms != m_receiveTimeoutMs) m_socket.set(zmq::sockopt::rcvtimeo, m_receiveTimeoutMs = ms);
    std::vector<zmq::message_t> parts = receiveParts(m_socket, zmq::recv_flags::none);
    const size_t first = m_router ? 1 : 0;
    if (parts.size() <= first) return std::nullopt;
    const std::optional<QString> peer = senderOf(parts);
    if (!peer) {
        m_stats->count(WireError::Empty);
        m_rejections->reject(QStringLiteral("?"), QStringLiteral("a message without an authenticated sender"));
        return std::nullopt;
    }
    QByteArray route;
    if (m_router) route = QByteArray(static_cast<const char*>(parts[0].data()), qsizetype(parts[0].size()));
    return deliver(*peer, parts, first, std::move(route));
}

std::optional<Envelope> Channel::deliver(const QString& peer, std::vector<zmq::message_t>& parts, size_t first, QByteArray route,
                                         bool* consumed) {
    quint64 bytes = 0;
    for (size_t i = first; i < parts.size(); ++i) bytes += parts[i].size();
    m_traffic.received(peer, bytes);
    Decoded d = WireCodec::decode(parts, first, m_limits, m_stats.get());
    if (!d.message) {
        m_rejections->reject(peer, wireErrorText(d.error));
        return refusedFrom(peer);
    }
    if (m_plane && SealedPlane::isControl(d.message->type)) {
        if (std::optional<Message> reply = m_plane->control(peer, route, *d.message)) sendOn(peer, route, std::move(*reply));
        if (consumed) *consumed = true;
        return std::nullopt;
    }
    const auto answer = [&] {
        for (Message& a : m_transform->takeAnswers(peer)) sendOn(peer, route, std::move(a));
    };
    if (m_transform && m_transform->takeControl(peer, *d.message)) {
        answer();
        if (consumed) *consumed = true;
        return std::nullopt;
    }
    if (m_transform)
        if (const QString error = m_transform->incoming(peer, *d.message); !error.isEmpty()) {
            m_stats->count(WireError::BadPayload);
            m_rejections->reject(peer, error);
            answer();
            return refusedFrom(peer);
        }
    return Envelope{peer, std::move(*d.message), std::move(route)};
}

// The CURVE messages here now, handed to the sealed plane to wait for their bulk frames: at most
// kMaxSealedReadsPerCall, so that a peer streaming messages cannot keep the caller here (its
// ticks, its scheduler's checks); the socket stays readable, and the next poll comes straight back.
void Channel::readSealedArrivals() {
    for (int read = 0; read < kMaxSealedReadsPerCall; ++read) {
        std::vector<zmq::message_t> parts = receiveParts(m_socket, zmq::recv_flags::dontwait);
        const size_t first = m_router ? 1 : 0;
        if (parts.size() <= first) return;
        const std::optional<QString> peer = senderOf(parts);
        if (!peer) {
            m_stats->count(WireError::Empty);
            m_rejections->reject(QStringLiteral("?"), QStringLiteral("a message without an authenticated sender"));
            continue;
        }
        QByteArray route;
        if (m_router) route = QByteArray(static_cast<const char*>(parts[0].data()), qsizetype(parts[0].size()));
        if (const QString refusal = m_plane->arrive(*peer, std::move(route), std::move(parts), first); !refusal.isEmpty()) {
            m_stats->count(WireError::BadPayload);
            m_rejections->reject(*peer, refusal);
            refusedFrom(*peer);
        }
    }
}

// A sealed channel's receive: CURVE messages wait in the plane for their bulk frames, and are
// delivered in each peer's order once whole. The plane's own messages are handled on the way.
std::optional<Envelope> Channel::receiveSealed(std::chrono::milliseconds timeout) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::max(timeout, std::chrono::milliseconds(0));
    for (;;) {
        m_plane->tick();
        m_plane->readBulk();
        for (SealedPlane::Reply& r : m_plane->takeAcknowledgements()) sendOn(r.peer, r.route, std::move(r.message));
        readSealedArrivals();
        while (std::optional<SealedPlane::Arrived> a = m_plane->next()) {
            if (a->resetPeer) sendOn(a->peer, a->route, Message(SealedPlane::kReset));
            if (!a->refusal.isEmpty()) {
                m_stats->count(WireError::BadPayload);
                m_rejections->reject(a->peer, a->refusal);
                return refusedFrom(a->peer);
            }
            bool consumed = false;
            std::optional<Envelope> e = deliver(a->peer, a->parts, m_router ? 1 : 0, std::move(a->route), &consumed);
            // A reply goes where the message being handled came from, as without sealing: the
            // peer's newest connection was taken when its messages arrived, and one of another
            // process of the node (a standby's takeover) may have arrived since this one.
            if (e && m_router && m_authenticated && !e->route.isEmpty()) m_routes.insert(e->peer, e->route);
            if (!consumed) return e;
        }
        auto wait = m_plane->nextCheck();
        if (timeout.count() >= 0) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0) return std::nullopt;
            wait = wait.count() < 0 ? left : std::min(wait, left);
        }
        std::vector<zmq::pollitem_t> items;
        appendPollItems(items);
        zmq::poll(items.data(), items.size(), wait);
    }
}

void Channel::appendPollItems(std::vector<zmq::pollitem_t>& items) {
    items.push_back({m_socket.handle(), 0, ZMQ_POLLIN, 0});
    if (m_plane && m_plane->bulkSocket()) items.push_back({m_plane->bulkSocket()->handle(), 0, ZMQ_POLLIN, 0});
}

int pollChannels(std::vector<Channel*> channels, std::chrono::milliseconds timeout) {
    for (Channel* c : channels)  // held messages (emulated WAN) leave when due: wake up for them
        if (const auto wait = c->releaseShaped()) timeout = std::min(timeout, *wait);
    const auto held = [&]() -> int {  // sealed messages already whole (or due to be refused)
        for (size_t c = 0; c < channels.size(); ++c)
            if (channels[c]->hasDeliverable()) return int(c);
        return -1;
    };
    if (const int c = held(); c >= 0) return c;
    std::vector<zmq::pollitem_t> items;
    std::vector<int> channelOf;
    for (size_t c = 0; c < channels.size(); ++c) {
        channels[c]->tickSealed();
        channels[c]->appendPollItems(items);
        channelOf.resize(items.size(), int(c));
        if (const SealedPlane* plane = channels[c]->sealedPlane())  // a hold ends by time too, and a hello is said again
            if (const auto check = plane->nextCheck(); check.count() >= 0) timeout = std::min(timeout, check);
    }
    zmq::poll(items.data(), items.size(), timeout);
    // Taken in turns from after the last one returned: a socket that is always readable (a
    // stranger flooding a sealed channel's bulk port) must not starve the others.
    thread_local size_t after = 0;
    for (size_t k = 0; k < items.size(); ++k) {
        const size_t i = (after + k) % items.size();
        if (items[i].revents & ZMQ_POLLIN) {
            after = i + 1;
            return channelOf[i];
        }
    }
    return held();
}

}  // namespace hips
