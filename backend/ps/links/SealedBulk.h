#pragma once
// The bulk half of a sealed mesh (MeshPeers::sealLinks, `transport_security: sealed`): a
// collective's chunks travel on plain TCP sockets, each sealed with the link's AEAD
// (SealedLink.h: AES-256-GCM at the hardware's speed, not CURVE's XSalsa20 on one I/O thread).
// The keys come from ephemeral X25519 keys the members exchange over their CURVE channels, so a
// key is known to the two members of one link of one run only.
//
// Each member binds one PULL socket and PUSHes to each peer's. A frame is a 20-byte header
// (sender rank, tag, counter; the associated data) and the sealed chunk. Only a member may connect
// to the PULL socket (with the login this member offered it: BulkLogins.h), and a frame that does
// not open under the key of the sender it names (another's, a flipped bit, a cut chunk), or whose counter is not above that sender's last
// (a replay, a reordering), is refused and counted, never taken.
#include "RejectionLog.h"
#include "SealedLink.h"
#include "TrafficCounter.h"

#include <QList>
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <zmq.hpp>

namespace hips {

class SealedBulk {
public:
    // Binds the PULL socket on `host` ("tcp://10.0.0.5"), on a port the kernel chooses.
    // `binding`: what every member of this mesh agrees on (the run's member keys), bound into the keys.
    // `chunkLimit`: the largest chunk taken, in plain bytes (0: none); a larger frame is refused
    // by the socket, unread (set before it binds: its connections take the limit from the bind).
    SealedBulk(zmq::context_t& ctx, int rank, QList<QString> names, const QString& host, QByteArray binding, size_t chunkLimit = 0);

    QString endpoint() const;
    // This member's ephemeral public key, and whether it would seal with AES-256-GCM, for its peers.
    const std::array<unsigned char, 32>& publicKey() const { return m_mine.publicKey; }
    bool prefersAes() const { return m_cipher == AeadCipher::Aes256Gcm; }
    // Peer `rank` offered `key` and listens at `endpoint`: the link's keys, and a PUSH socket to it.
    // False when the key is not a valid point, the endpoint not one ZeroMQ can connect to, or the
    // peer already has its link.
    // `login`: the one peer `rank` gave for its port (BulkLogins.h); `peerPrefersAes`: what it offered.
    bool accept(int rank, const std::array<unsigned char, 32>& key, const QString& endpoint, const QByteArray& login, bool peerPrefersAes);
    // Every link made: the ephemeral secret is wiped (a later memory dump finds no link's key).
    void forgetOwnKey();
    // The login peer `rank` is to connect to this member's port with (issued once; withdrawn with it).
    QByteArray loginFor(int rank);
    ~SealedBulk();
    bool linked(int rank) const { return m_links.count(rank) > 0; }
    int linkedCount() const { return int(m_links.size()); }

    zmq::socket_t& sendSocket(int rank) { return m_links.at(rank).push; }
    zmq::socket_t& receiveSocket() { return m_pull; }
    // Seals and queues `bytes` bytes (floats, or half floats) for `rank` under `tag` (the socket
    // must have room: see sendSocket). False when the link's counter is spent.
    bool send(int rank, quint64 tag, const void* data, size_t bytes);

    struct Frame {
        int from;
        quint64 tag;
        zmq::message_t plain;
    };
    // The next frame already here that opens, if any; a frame that does not is counted.
    std::optional<Frame> receive();
    quint64 refused() const { return m_refused; }
    const TrafficCounter& traffic() const { return m_traffic; }

    static constexpr size_t kHeaderBytes = 20;
    static constexpr int kMaxRefusedPerCall = 64;

private:
    struct Link {
        zmq::socket_t push;
        std::unique_ptr<Sealer> sealer;
        std::unique_ptr<Opener> opener;
    };
    zmq::context_t& m_ctx;
    int m_rank;
    QList<QString> m_names;
    QByteArray m_binding;
    AeadCipher m_cipher = preferredAead();
    EphemeralKeyPair m_mine = EphemeralKeyPair::generate();
    zmq::socket_t m_pull;
    std::map<int, Link> m_links;
    std::map<int, QByteArray> m_logins;  // issued to each peer for this member's port
    quint64 m_refused = 0;
    TrafficCounter m_traffic;
    RejectionLog m_rejections;
    void refuse(const QString& claimed, const char* why);
};

}  // namespace hips
