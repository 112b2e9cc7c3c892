#pragma once
// A party's workers as the ranks of a collective (Collective.h) over the data plane's ZeroMQ
// channels: each rank binds one ROUTER, and reaches each rank it sends to through a DEALER to
// that rank's ROUTER. With CURVE (every run) a sender is the node its key names (the context's
// CurveGuard admits the party's members), never what it claims. A chunk that comes before it is
// due waits in a bounded stash; one of another length, from a stranger or an old call is refused
// and counted, never taken.
#include "Channel.h"
#include "Collective.h"
#include "SealedBulk.h"

#include <QCborArray>
#include <QHash>
#include <algorithm>
#include <QSet>
#include <QList>
#include <chrono>
#include <functional>
#include <map>
#include <memory>

namespace hips {

class MeshPeers final : public CollectivePeers {
public:
    struct Member {
        QString node;  // "party1/worker3"
        QString endpoint;  // where its ROUTER listens: "tcp://10.0.0.5:12001"
        QByteArray publicKey;  // Z85; empty without CURVE
    };
    // Binds members[rank]'s endpoint (its port may be 0: endpoint() says which it got).
    // `own`: this rank's key pair (null: plain TCP, tests and benches of the wire only).
    // `chunkLimit`: the largest chunk it takes, in bytes (0: the channels' default limit); a larger
    // frame is refused by its socket, unread. (Set here: libzmq takes a socket's limit for the
    // connections it accepts when it binds, so a limit set later would not hold.)
    MeshPeers(zmq::context_t& ctx, QList<Member> members, int rank, const CurveKeyPair& own, std::chrono::milliseconds deadline,
              size_t chunkLimit = 0);
    // Gives what it queued up to min(deadline, 5 s) to leave.
    ~MeshPeers() override;

    int rank() const override { return m_rank; }
    int size() const override { return int(m_members.size()); }
    std::string nameOf(int r) const override { return m_members.value(r).node.toStdString(); }
    void send(int to, quint64 tag, const float* data, size_t count) override;
    void receive(int from, quint64 tag, float* out, size_t count, bool add) override;
    void sendHalf(int to, quint64 tag, const quint16* data, size_t count) override;
    void receiveHalf(int from, quint64 tag, float* out, size_t count, bool add) override;

    // The endpoint this rank's ROUTER is bound to (with the kernel's port when asked for 0).
    QString endpoint() const;
    // Another rank's endpoint, learned after construction (ports the kernel chose): before its first send.
    void setEndpoint(int r, const QString& endpoint) { m_members[r].endpoint = endpoint; }
    // `transport_security: sealed`: from here on chunks travel sealed on plain sockets
    // (SealedBulk.h), under keys exchanged now over the CURVE channels. Every member calls it at
    // the same point, once every endpoint is set; `binding` is what they all agree on (the run's
    // member keys). Throws CollectiveError naming a member that sent no valid offer in time.
    void sealLinks(const QByteArray& binding);
    bool sealed() const { return bool(m_bulk); }
    QString bulkEndpoint() const { return m_bulk ? m_bulk->endpoint() : QString(); }
    // The sealed links' traffic (the CURVE channels' is in channels()), as a traffic record's links.
    QCborArray bulkTraffic() const;
    // The bytes a member may have waiting here ahead of their turn (0: no limit but kMaxStashed's
    // count): a member that sends more is refused and named, where it would otherwise make this
    // rank hold up to kMaxStashed chunks of the largest size.
    // `chunksPerMember`: as many chunks (at least kMaxStashed): a large model in small chunks is
    // more than kMaxStashed of them, and a member's honest call ahead was refused.
    void setStashLimit(size_t bytesPerMember, size_t chunksPerMember = kMaxStashed) {
        m_stashLimit = bytesPerMember;
        m_mostStashed = std::max(chunksPerMember, kMaxStashed);
    }
    // Called at least every 200 ms while a send or a receive waits: it may throw to end the wait
    // (a role checks its scheduler's abort there, so a lost peer ends the step long before the deadline).
    void setWhileWaiting(std::function<void()> f) { m_whileWaiting = std::move(f); }
    // The channels it reads and sends on, for the traffic records.
    std::vector<const Channel*> channels() const;
    // Messages refused: a stranger's, a malformed one, the wrong length, beyond the stash.
    quint64 refused() const { return m_refused + (m_bulk ? m_bulk->refused() : 0); }
    const TrafficCounter& received() const { return m_router.traffic(); }
    quint64 bytesSentTo(int r) const { return m_sent.value(r); }
    // Whether what `from` sent under `tag` is here, not yet taken.
    bool hasStashed(int from, quint64 tag) const { return m_stash.count({from, tag}) > 0; }
    // Forgets the chunks here that `stale` says no call will take (an abandoned call's), so that
    // they do not fill the stash.
    void dropStashed(const std::function<bool(int from, quint64 tag)>& stale);
    // A new attempt: the members a message was refused from are waited for again.
    void forgetRefusals() { m_refusedFrom.clear(); }

    static constexpr size_t kMaxStashed = 1 << 14;  // chunks ahead of their turn a rank keeps of each member

private:
    Channel& dealerTo(int r);
    // The next message for this rank into the stash; false when the deadline passed first.
    bool pull(std::chrono::steady_clock::time_point deadline);
    void stash(int from, quint64 tag, zmq::message_t&& frame);
    // Erases a stashed chunk, and its bytes from its sender's share.
    using Stash = std::map<std::pair<int, quint64>, zmq::message_t>;  // by sender and tag
    Stash::iterator unstash(Stash::iterator it);
    void sendBytes(int to, quint64 tag, const void* data, size_t bytes);
    void waitForRoom(int to, zmq::socket_ref out);
    // The frame `from` sent under `tag`, once here (up to the deadline), of exactly `count` values
    // of `unitBytes` each (`unit` names them in the error).
    zmq::message_t take(int from, quint64 tag, size_t count, size_t unitBytes, const char* unit);
    void takeOffer(int from, const Message& m);

    zmq::context_t& m_ctx;
    QList<Member> m_members;
    int m_rank;
    CurveKeyPair m_own;
    std::chrono::milliseconds m_deadline;
    Channel m_router;
    std::map<int, std::unique_ptr<Channel>> m_dealers;
    QHash<QString, int> m_rankOf;
    Stash m_stash;
    QHash<int, size_t> m_stashedBytes, m_stashedChunks;  // per member
    size_t m_stashLimit = 0;
    size_t m_mostStashed = kMaxStashed;
    QHash<int, quint64> m_sent;
    quint64 m_refused = 0;
    quint64 m_channelRefusals = 0;  // the router's count when last looked at
    QSet<int> m_refusedFrom;  // members a message was refused from: the step waiting on them fails at once
    std::function<void()> m_whileWaiting;
    std::unique_ptr<SealedBulk> m_bulk;  // the sealed plane, once sealLinks is done
    struct Offer {
        std::array<unsigned char, 32> key;
        QString endpoint;
        QByteArray login;  // to its bulk port
        bool aes = false;  // it would seal with AES-256-GCM
    };
    std::map<int, Offer> m_offers;  // peers' offers not yet taken up
    size_t m_chunkLimit = 0;
};

}  // namespace hips
