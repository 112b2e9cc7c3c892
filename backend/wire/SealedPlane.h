#pragma once
// The bulk half of a sealed Channel (`transport_security: sealed`, issue 51). ZeroMQ's CURVE seals
// every byte on its socket's one I/O thread with XSalsa20-Poly1305 (~0.9 GB/s here); a model push
// of megabytes is better sealed with the link's own AES-256-GCM (SealedLink.h, ~2.8 GB/s a core)
// and sent on a plain socket beside the CURVE one.
//
// What stays on CURVE: every message's header, its small frames, and the order of messages; each
// sealed channel's message ends in a descriptor part that names which of its frames went the bulk
// way (part index, the link counter it was sealed under, its size), and those parts are left empty.
// The receiver holds a message until its bulk frames are in, then opens each with the expected
// bulk header and the message's own header frame as the associated data, so a frame moved to
// another message, round, sender or position does not open. Messages of one peer are delivered
// in the order they were sent; a frame that does not open, or that never came (a later one did),
// refuses its message, counted, and the peer's next messages go on.
//
// The keys: a dealer offers an ephemeral X25519 key over CURVE as soon as it connects (so the
// router knows whose it is); the router answers with its own for that link and the port of its
// plain bulk ROUTER. Each direction's key is bound to the run and to both names. The dealer then
// connects a plain DEALER there and says hello (a sealed empty frame), again until the router
// says on CURVE that it has it: only then does the dealer send frames the bulk way, so a bulk
// port it cannot reach (a firewall) leaves everything on CURVE. Every bulk frame names its sender
// and is opened as it comes: only a member may connect to the bulk port (a PLAIN login the router
// answered it with on CURVE, checked at the handshake: BulkLogins.h), and what does not open under
// the key of the node it names is refused, counted, and changes nothing; the router reaches a
// dealer on the connection its latest frame that opened came on. Until a link is up, or when the
// bulk socket has no room, frames stay inline on CURVE: slower, never lost. A router that did not
// make a link (restarted) answers a message with bulk frames by asking the dealer to offer again.
// A router keeps a link, and a queue of held messages, per CURVE connection: two processes of one
// node (a standby's takeover while the old process comes back) each keep their own, and neither
// waits behind the other's frames.
#include "Message.h"
#include "RejectionLog.h"
#include "SealedLink.h"

#include <QByteArray>
#include <QHash>
#include <QSet>
#include <QString>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <zmq.hpp>

namespace hips {

class SealedPlane {
public:
    // Control messages on the CURVE socket, handled by the channel, never delivered.
    static const QString kOffer, kAnswer, kReady, kReset, kReadToEnd;
    static bool isControl(const QString& type) {
        return type == kOffer || type == kAnswer || type == kReady || type == kReset || type == kReadToEnd;
    }
    // Frames smaller than this stay on CURVE: below it the cost is per message, not per byte.
    static constexpr size_t kMinBulkBytes = 16 * 1024;
    // A held message whose bulk frames have not all come by then, with nothing else from its
    // sender's bulk meanwhile, is refused.
    static constexpr std::chrono::seconds kHoldLimit{30};

    // `binding`: what every node of the run agrees on and no other run has. `curveEndpoint`: where
    // the channel's CURVE socket bound (a router) or connected (a dealer); the bulk socket is on its host.
    SealedPlane(zmq::context_t& ctx, bool router, QString self, QByteArray binding, QString curveEndpoint, size_t maxFrameBytes);
    ~SealedPlane();

    // A dealer's offer: sent first, and again when the router asks.
    Message offer();
    // A control message from `peer` (authenticated by CURVE) on the CURVE connection `route` (a
    // router's routing id; empty for a dealer). Returns the reply, to send on that connection.
    std::optional<Message> control(const QString& peer, const QByteArray& route, const Message& m);

    // Sending `parts` ([routing id][header][frames…]; `first` is the header's index) to `peer` (a
    // router: on the CURVE connection parts[0] names, whose link it uses):
    // frames of at least kMinBulkBytes go sealed on the bulk socket where the link is up; the
    // descriptor part is appended in every case.
    void divert(const QString& peer, std::vector<zmq::message_t>& parts, size_t first);
    // A dealer whose hello is not yet acknowledged says it again (every 300 ms).
    void tick();
    // Before the process closes its sockets: an end mark on the bulk socket to every peer that was
    // sent frames in the last `linger` (frames sent before have had as long to arrive as the
    // linger would give them) and is not in `gone` (declared down). A peer answers
    // kReadToEnd on CURVE once it has read it, so it has every frame before it. Every other peer
    // is told it closes ('c'), and a peer that closes first is not waited for: at a run's end
    // both ends close at once, and each would otherwise wait for an answer the other, gone,
    // never sends. (Closing with frames still in the kernel's queue loses them
    // when a packet of the peer's comes after the close: the kernel answers with a reset. Seen
    // on a 5 Mbit/s link: the last round's model never reached the party servers.)
    void markEnd(std::chrono::milliseconds linger, const QSet<QString>& gone = {});
    // Whether an answer to an end mark has not come, and the linger of its link's last frame
    // has not passed.
    bool awaitingEnd();

    // The bulk socket, to poll beside the CURVE one (none before the first link).
    zmq::socket_t* bulkSocket() { return m_bulk.get(); }
    // Where the bulk socket is bound or connected (empty before the first link).
    QString bulkEndpoint() const;
    // Reads what the bulk socket holds now (a bounded number of frames a call).
    void readBulk();
    // Answers to the hellos (a router's) and end marks read since the last call, for the channel
    // to send on CURVE, each on the connection of the link it answers (a router's routing id).
    struct Reply {
        QString peer;
        QByteArray route;
        Message message;
    };
    std::vector<Reply> takeAcknowledgements();

    struct Arrived {
        QString peer;
        QByteArray route;
        std::vector<zmq::message_t> parts;  // as sent, bulk frames back in place, the descriptor gone
        QString refusal;  // non-empty: not delivered, and why
        bool resetPeer = false;  // a router that has no link with the peer: ask it to offer again
    };
    // A CURVE message ([route][header][frames…][descriptor]) from `peer`: held in its connection's
    // order.
    // Non-empty: refused at once, and why (the peer has too many held already).
    QString arrive(const QString& peer, QByteArray route, std::vector<zmq::message_t>&& parts, size_t first);
    // The next message that is whole (or refused), in each peer's order.
    std::optional<Arrived> next();
    bool holding() const;
    // Whether next() has something now (a held message that is whole, or that is to be refused):
    // the sockets may have nothing more to say, and a poll on them would wait for ever.
    bool deliverable() const;
    // How long before next() or tick() must be called again (a hold may time out, a hello be
    // said again); negative: nothing to wait for.
    std::chrono::milliseconds nextCheck() const;
    // Whether frames to `peer` go the bulk way now (a router: on some connection of the peer's).
    bool linkedTo(const QString& peer) const;

    void lingerOnClose(std::chrono::milliseconds ms);
    // (Read by the metrics from any thread.)
    quint64 framesSealed() const { return m_framesSealed.load(std::memory_order_relaxed); }
    quint64 framesOpened() const { return m_framesOpened.load(std::memory_order_relaxed); }
    quint64 bulkRefused() const { return m_bulkRefused.load(std::memory_order_relaxed); }
    // Where refused bulk frames are named (the channel's log: rate-limited, escaped).
    void setRejectionLog(RejectionLog* log) { m_rejections = log; }

private:
    struct Link;
    struct Held;
    struct BulkRef;
    // What links and held messages are kept by: a router's CURVE connection (its routing id), so
    // two processes of one node (a standby's takeover while the old one comes back) each have
    // their own; a dealer's one peer.
    QByteArray keyOf(const QString& peer, const QByteArray& route) const { return m_router ? route : peer.toUtf8(); }
    Link* linkOf(const QByteArray& key);
    void dropOldestLinks(const QString& peer, int keep);
    Link* bulkLinkFor(const QString& peer, const QByteArray& bulkRoute, bool hello, zmq::message_t& payload, const QByteArray& aad,
                      uint64_t counter);
    void bindBulk();
    void connectBulk(quint16 port, const QByteArray& login);
    void sayHello(Link& link);
    bool sendMark(Link& link, char kind);
    bool sendBulk(const Link& link, const QByteArray& header, const QByteArray& name, zmq::message_t& sealed);
    // Whether `link`'s stash has no room for one more frame of `frameBytes`.
    bool stashFull(const Link& link, size_t frameBytes) const;
    void dropOldestStashed(Link& link);  // refused, counted
    void takeBulkFrame(std::vector<zmq::message_t>& parts);
    std::optional<Arrived> settle(const QByteArray& key, std::deque<Held>& queue);
    bool decided(const QByteArray& key, const Held& head) const;
    QString missing(const Link& link, const Held& head, const BulkRef& ref) const;
    QString oversized(const Held& held, const std::vector<zmq::message_t>& parts, const Link* link) const;
    QString descriptorMisfit(const std::vector<BulkRef>& before, const BulkRef& ref, const std::vector<zmq::message_t>& parts,
                             size_t first) const;

    zmq::context_t& m_ctx;
    bool m_router;
    QString m_self;
    QByteArray m_binding;
    QString m_curveEndpoint;
    size_t m_maxFrameBytes;
    RejectionLog* m_rejections = nullptr;
    AeadCipher m_cipher = preferredAead();  // what it offers; each link's is agreed (SealedLink.h)
    std::unique_ptr<zmq::socket_t> m_bulk;
    std::map<QByteArray, std::unique_ptr<Link>> m_links;  // by keyOf
    std::map<QByteArray, std::deque<Held>> m_held;  // by keyOf, in arrival order
    QByteArray m_lastServed;  // next() takes the connections in turns
    std::vector<std::pair<QByteArray, char>> m_acks;  // hellos ('h', a router's) and end marks ('e') to answer, by keyOf
    std::map<QByteArray, std::chrono::steady_clock::time_point> m_awaitingEnd;  // by keyOf: until when
    uint64_t m_linksMade = 0;
    QSet<QByteArray> m_askedToOffer;  // router: connections without a link told to offer again
    std::unique_ptr<EphemeralKeyPair> m_offered;  // dealer: the key of its latest offer
    std::chrono::steady_clock::time_point m_offeredAt;  // ... and when it went
    std::atomic<quint64> m_framesSealed{0}, m_framesOpened{0}, m_bulkRefused{0};
};

}  // namespace hips
