#pragma once
// A ZeroMQ socket plus the codec, limits, error counters and traffic counters.
// Owned and used by exactly one thread (role processes poll it in their main loop).
//
// With CURVE (every run), a ROUTER names each sender after the key it authenticated with
// (ZeroMQ's User-Id, set by the CurveGuard), never after its self-chosen routing id: dealers
// leave their routing id to the ROUTER, which learns which connection each node is on from the
// node's own messages, so no peer can pose as another or take its name first. A message to a
// vanished peer, or to one whose queue is full, is dropped and counted, never thrown; only the
// context ending (ETERM) throws, and a bind that fails throws with the endpoint named.
#include "CurveSecurity.h"
#include "LinkShaper.h"
#include "RejectionLog.h"
#include "SealedPlane.h"
#include "TrafficCounter.h"
#include "WireCodec.h"

#include <QSet>

#include <chrono>
#include <deque>
#include <optional>
#include <vector>

namespace hips {

// What a link does to payloads on the way (LinkCodecs, backend/ps: the tier's GradientCodec with
// its error feedback): applied to each message as it is sent, undone as each is received.
class PayloadTransform {
public:
    virtual ~PayloadTransform() = default;
    virtual void outgoing(const QString& peer, Message& m) = 0;
    // A message outgoing() made could not be sent (its type and header as they were): a link
    // that keeps state about what its peer has must forget it.
    virtual void undelivered(const QString& peer, const Message& m) {
        Q_UNUSED(peer)
        Q_UNUSED(m)
    }
    // Empty, or why the message is refused: then it is counted (WireError::BadPayload) and dropped.
    virtual QString incoming(const QString& peer, Message& m) = 0;
    // A message between the two ends' transforms (LinkCodecs: a slice asked for whole): taken
    // here, never delivered.
    virtual bool takeControl(const QString& peer, const Message& m) {
        Q_UNUSED(peer)
        Q_UNUSED(m)
        return false;
    }
    // What the transform has to send `peer` now, after a message of its was refused or taken
    // (LinkCodecs: the ask for a slice whole; the slice whole). Sent on the connection it came on.
    virtual std::vector<Message> takeAnswers(const QString& peer) {
        Q_UNUSED(peer)
        return {};
    }
};

struct Envelope {
    QString peer;  // the authenticated sender (ROUTER; its routing id without CURVE) or the connected peer (DEALER)
    Message message;
    QByteArray route;  // ROUTER: the connection it came on (its routing id)
};

class Channel {
public:
    // A ROUTER that binds `endpoint`, or a DEALER with routing id `self` that connects to it.
    static Channel router(zmq::context_t& ctx, const QString& self, const QString& endpoint);
    static Channel dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer);
    // Channels made without a CurveConfig use this identity: a role process sets its own key pair
    // and the run's public keys once, and every socket it opens is then encrypted and
    // authenticated (a dealer expects the key of the node it connects to).
    static void setRunIdentity(const CurveKeyPair& own, const PeerKeys& peers);
    // `transport_security: sealed`: the channels made with the run's identity from here on seal
    // their large frames themselves (SealedPlane.h), bound to `binding`; empty: CURVE seals all.
    static void setRunSealing(const QByteArray& binding);
    // This process's key pair and the run's public keys (what secure aggregation's pairwise
    // keys are authenticated by).
    static const CurveKeyPair& runKeyPair();
    static const PeerKeys& runPeerKeys();
    // Limits every channel starts with (a role process sets those of its run's model).
    static void setDefaultLimits(const WireLimits& limits);
    static WireLimits currentDefaultLimits();
    // `limits`, when given, replace the defaults before the socket binds or connects.
    static Channel router(zmq::context_t& ctx, const QString& self, const QString& endpoint, const CurveConfig& curve,
                          const std::optional<WireLimits>& limits = std::nullopt);
    static Channel dealer(zmq::context_t& ctx, const QString& self, const QString& endpoint, const QString& peer, const CurveConfig& curve,
                          const std::optional<WireLimits>& limits = std::nullopt);

    Channel(Channel&&) = default;
    Channel& operator=(Channel&&) = default;

    // False when the message could not be queued: the peer is unknown or gone, or its queue is
    // full. Counted in undeliverable(); the role's own timeouts deal with a peer that is gone.
    bool send(const QString& peer, Message&& m);
    bool send(Message&& m) { return send(m_peer, std::move(m)); }
    // A ROUTER with CURVE sends to a node on the connection it last spoke on; this makes it
    // `route` (an Envelope's) until the node speaks again. Two processes of one node may be
    // connected at once: a scheduler answers the one it listens to (SchedulerIncarnations.h).
    void routeTo(const QString& node, const QByteArray& route) {
        if (m_authenticated && !route.isEmpty()) m_routes.insert(node, route);
    }
    // Waits up to `timeout` for one message; malformed input is counted and skipped.
    std::optional<Envelope> receive(std::chrono::milliseconds timeout);

    zmq::socket_t& socket() { return m_socket; }
    // What to poll for this channel's messages: its socket, and its bulk socket when sealed.
    void appendPollItems(std::vector<zmq::pollitem_t>& items);
    // Sealed frames' counters (none without `transport_security: sealed`).
    const SealedPlane* sealedPlane() const { return m_plane.get(); }
    SealedPlane* sealedPlane() { return m_plane.get(); }  // (tests play a member that misbehaves through it)
    // A sealed channel may hold a whole message its sockets no longer signal: receive() has it now.
    bool hasDeliverable() const { return !m_kept.empty() || (m_plane && m_plane->deliverable()); }
    // A sealed dealer whose hello is not yet acknowledged says it again (pollers call this).
    void tickSealed() {
        if (m_plane) m_plane->tick();
    }
    const TrafficCounter& traffic() const { return m_traffic; }
    // This channel replaces `old` (its peer moved): its bytes go on counting from old's.
    void carryTrafficOf(const Channel& old) { m_traffic.add(old.m_traffic); }
    const WireStats& stats() const { return *m_stats; }
    const QString& self() const { return m_self; }
    quint64 undeliverable() const { return m_undeliverable; }
    // Messages from an authenticated peer refused so far (malformed, over the limits, a payload
    // its transform refused), and whose was the last: who sent what was never taken.
    quint64 refusedFromPeers() const { return m_refusedFromPeers; }
    const QString& lastRefusedPeer() const { return m_lastRefusedPeer; }
    bool authenticated() const { return m_authenticated; }
    void setLimits(const WireLimits& l);
    const WireLimits& limits() const { return m_limits; }
    void setPayloadTransform(std::shared_ptr<PayloadTransform> t) { m_transform = std::move(t); }
    // Emulated WAN links (LinkShaper.h): messages to their peers are held until due.
    void setLinkShaper(std::shared_ptr<LinkShaper> s) { m_shaper = std::move(s); }
    // Sends the held messages that are due; how long until the next one is (nullopt: none held).
    std::optional<std::chrono::milliseconds> releaseShaped();
    // On a graceful exit, give queued messages this long to leave before the socket closes
    // (the default linger of 0 drops them, which is right only when aborting).
    // Held messages (emulated WAN) are sent first, as their links carry them (however long), but
    // none to a peer in `gone`, and none with `ms` 0; those are dropped, and counted as
    // undeliverable. Sealed
    // links: each peer sent frames in the last `ms` is waited for until it has read them, except
    // those in `gone` (declared down: a stopped peer never reads them).
    void lingerOnClose(std::chrono::milliseconds ms, const QSet<QString>& gone = {});

private:
    Channel(zmq::socket_t s, bool router, bool authenticated, QString self, QString peer);
    std::optional<QString> senderOf(const std::vector<zmq::message_t>& parts);
    bool transmit(const QString& peer, const QString& type, std::vector<zmq::message_t>& parts, quint64 bytes);
    std::optional<Envelope> receiveNow(std::chrono::milliseconds timeout);
    std::optional<Envelope> receiveSealed(std::chrono::milliseconds timeout);
    void lingerOnShapedLinks(std::chrono::milliseconds ms, const QSet<QString>& gone);
    void awaitBulkRead(std::chrono::milliseconds linger, const QSet<QString>& gone);
    bool sendOn(const QString& peer, const QByteArray& route, Message&& m);
    void readSealedArrivals();
    // Decodes a message's parts from `peer` (and hands it through the payload transform).
    // `consumed`: it was the sealed plane's own, handled here.
    std::optional<Envelope> deliver(const QString& peer, std::vector<zmq::message_t>& parts, size_t first, QByteArray route,
                                    bool* consumed = nullptr);
    std::nullopt_t refusedFrom(const QString& peer);

    zmq::socket_t m_socket;
    bool m_router;
    bool m_authenticated;
    QString m_self, m_peer;
    QHash<QString, QByteArray> m_routes;  // authenticated node → its connection's routing id
    quint64 m_undeliverable = 0;
    quint64 m_refusedFromPeers = 0;
    QString m_lastRefusedPeer;
    std::unique_ptr<RejectionLog> m_rejections;
    WireLimits m_limits;
    std::unique_ptr<WireStats> m_stats = std::make_unique<WireStats>();
    TrafficCounter m_traffic;
    std::shared_ptr<PayloadTransform> m_transform;
    std::shared_ptr<LinkShaper> m_shaper;
    std::unique_ptr<SealedPlane> m_plane;
    std::deque<Envelope> m_kept;  // read while waiting for the peers' end-mark answers: receive() has them first
    int m_receiveTimeoutMs = -1;  // ZeroMQ's default: wait for ever
};

// Messages from several channels, whichever is ready first.
int pollChannels(std::vector<Channel*> channels, std::chrono::milliseconds timeout);

}  // namespace hips
