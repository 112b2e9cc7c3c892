#include "MeshPeers.h"

#include "GradientCodec.h"

#include "VectorMath.h"

#include <cstring>

namespace hips {

using Clock = std::chrono::steady_clock;
static const QString kChunk = QStringLiteral("collective_chunk");
static const QString kTag = QStringLiteral("tag");
static const QString kOffer = QStringLiteral("collective_link");  // a sealed link's ephemeral key and bulk endpoint
static const QString kBulk = QStringLiteral("bulk");
static const QString kLogin = QStringLiteral("login");  // to the offering member's bulk port (BulkLogins.h)
static const QString kAes = QStringLiteral("aes");  // it would seal with AES-256-GCM (the link's cipher is agreed: SealedLink.h)

static constexpr std::chrono::milliseconds kWaitSlice{200};

static std::chrono::milliseconds untilDeadline(Clock::time_point deadline) {
    return std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
}

static CurveConfig serverCurve(const CurveKeyPair& own) {
    return CurveConfig{own, {}};
}

static std::optional<WireLimits> chunkLimits(size_t chunkLimit) {
    if (chunkLimit == 0) return std::nullopt;
    WireLimits limits = Channel::currentDefaultLimits();
    limits.maxPayloadBytes = chunkLimit;
    return limits;
}

MeshPeers::MeshPeers(zmq::context_t& ctx, QList<Member> members, int rank, const CurveKeyPair& own, std::chrono::milliseconds deadline,
                     size_t chunkLimit)
    : m_ctx(ctx),
      m_members(std::move(members)),
      m_rank(rank),
      m_own(own),
      m_deadline(deadline),
      m_router(Channel::router(ctx, m_members.value(rank).node, m_members.value(rank).endpoint, serverCurve(own), chunkLimits(chunkLimit))),
      m_chunkLimit(chunkLimit) {
    for (int r = 0; r < m_members.size(); ++r) m_rankOf.insert(m_members[r].node, r);
}

MeshPeers::~MeshPeers() {
    // What this rank queued last (an all-gather's final chunks) may still be on its way: closing
    // with ZeroMQ's default linger of 0 would drop it, and a peer would wait out its deadline.
    for (auto& [rank, dealer] : m_dealers) {
        try {
            dealer->lingerOnClose(std::min(m_deadline, std::chrono::milliseconds(5000)));
        } catch (const std::exception&) {  // a stop shut the context down: nothing leaves now (and a destructor must not throw)
        }
    }
}

QString MeshPeers::endpoint() const {
    return QString::fromStdString(const_cast<Channel&>(m_router).socket().get(zmq::sockopt::last_endpoint));
}

void MeshPeers::sealLinks(const QByteArray& binding) {
    QList<QString> names;
    for (const Member& m : m_members) names << m.node;
    const QString own = m_members[m_rank].endpoint;
    auto bulk = std::make_unique<SealedBulk>(m_ctx, m_rank, names, own.left(own.lastIndexOf(':')), binding, m_chunkLimit);
    for (int r = 0; r < size(); ++r) {
        if (r == m_rank) continue;
        Message offer(kOffer, {{kBulk, bulk->endpoint()}, {kLogin, QString::fromLatin1(bulk->loginFor(r))}, {kAes, bulk->prefersAes()}});
        offer.frames.emplace_back(bulk->publicKey().data(), bulk->publicKey().size());
        if (!dealerTo(r).send(std::move(offer))) throw CollectiveError("cannot offer a sealed link to " + m_members[r].node.toStdString());
    }
    // The peers' offers, on the CURVE channel (who sent each is who its key says; one may have
    // come before this call). The bulk socket is read only once every link is there: a peer may
    // send its first chunk as soon as it has all of its own.
    const auto deadline = Clock::now() + m_deadline;
    for (;;) {
        for (auto it = m_offers.begin(); it != m_offers.end(); it = m_offers.erase(it))
            if (!bulk->accept(it->first, it->second.key, it->second.endpoint, it->second.login, it->second.aes))
                ++m_refused;  // (a weak key)
        if (bulk->linkedCount() == size() - 1) break;
        if (!pull(deadline)) {
            QStringList missing;
            for (int r = 0; r < size(); ++r)
                if (r != m_rank && !bulk->linked(r)) missing << m_members[r].node;
            throw CollectiveError("no sealed link offered within the deadline by " + missing.join(QStringLiteral(", ")).toStdString());
        }
    }
    bulk->forgetOwnKey();
    m_bulk = std::move(bulk);
}

void MeshPeers::takeOffer(int from, const Message& m) {
    std::array<unsigned char, 32> key{};
    const QString endpoint = m.string(kBulk);
    const QByteArray login = m.string(kLogin).toLatin1();
    if (m_bulk || m_offers.count(from) || m.frames.size() != 1 || m.frames[0].size() != key.size() || !endpoint.startsWith("tcp://") ||
        login.isEmpty() || login.size() > 255) {
        ++m_refused;  // one offer a member, of the right shape, before the links are made
        return;
    }
    std::memcpy(key.data(), m.frames[0].data(), key.size());
    m_offers.emplace(from, Offer{key, endpoint, login, m.fields.value(kAes).toBool()});
}

QCborArray MeshPeers::bulkTraffic() const {
    return m_bulk ? m_bulk->traffic().toCbor() : QCborArray();
}

// Each member has its own share, in chunks and in bytes: one that floods the stash is refused
// and named, not the honest member whose chunk comes next (a shared count let one member's empty
// chunks, which cost no bytes, get every later chunk of the others refused). No call sends an
// empty chunk.
void MeshPeers::stash(int from, quint64 tag, zmq::message_t&& frame) {
    size_t& held = m_stashedBytes[from];
    size_t& count = m_stashedChunks[from];
    if (frame.size() == 0 || count >= m_mostStashed || (m_stashLimit > 0 && held + frame.size() > m_stashLimit)) {
        ++m_refused;
        m_refusedFrom.insert(from);  // (a step waiting on what it dropped fails at once, naming it, instead of at the deadline)
        return;
    }
    const size_t bytes = frame.size();
    if (!m_stash.emplace(std::pair{from, tag}, std::move(frame)).second) {
        ++m_refused;  // (a copy: a model sent again)
    } else {
        held += bytes;
        ++count;
    }
}

MeshPeers::Stash::iterator MeshPeers::unstash(Stash::iterator it) {
    m_stashedBytes[it->first.first] -= it->second.size();
    --m_stashedChunks[it->first.first];
    return m_stash.erase(it);
}

void MeshPeers::dropStashed(const std::function<bool(int, quint64)>& stale) {
    for (auto it = m_stash.begin(); it != m_stash.end();) it = stale(it->first.first, it->first.second) ? unstash(it) : std::next(it);
}

std::vector<const Channel*> MeshPeers::channels() const {
    std::vector<const Channel*> out{&m_router};
    for (const auto& [rank, dealer] : m_dealers) out.push_back(dealer.get());
    return out;
}

Channel& MeshPeers::dealerTo(int r) {
    auto& dealer = m_dealers[r];
    if (!dealer) {
        const Member& m = m_members.at(r);
        if (!m_own.isNull() && m.publicKey.isEmpty())
            throw CollectiveError("no key for " + m.node.toStdString() + " among the party's; start the run again");
        dealer = std::make_unique<Channel>(Channel::dealer(m_ctx, m_members[m_rank].node, m.endpoint, m.node,
                                                           CurveConfig{m_own, m_own.isNull() ? QByteArray() : m.publicKey}));
    }
    return *dealer;
}

void MeshPeers::send(int to, quint64 tag, const float* data, size_t count) {
    sendBytes(to, tag, data, count * sizeof(float));
}

void MeshPeers::sendHalf(int to, quint64 tag, const quint16* data, size_t count) {
    sendBytes(to, tag, data, count * sizeof(quint16));
}

// A full queue (the peer is slow to read) waits for room, up to the deadline: a dropped chunk
// would cost the whole call, where waiting costs only time. What the peers send meanwhile is read
// into the stash: every collective sends a whole step before it receives, so with a step larger
// than the queues two ranks would each wait for the other to read, until the deadline.
void MeshPeers::waitForRoom(int to, zmq::socket_ref out) {
    const auto deadline = Clock::now() + m_deadline;
    auto checked = Clock::now();
    zmq::socket_ref in = m_bulk ? m_bulk->receiveSocket() : m_router.socket();
    for (;;) {
        zmq::pollitem_t items[]{{out.handle(), 0, ZMQ_POLLOUT, 0}, {in.handle(), 0, ZMQ_POLLIN, 0}};
        zmq::poll(items, 2, std::min(kWaitSlice, std::max(std::chrono::milliseconds(0), untilDeadline(deadline))));
        if (items[0].revents & ZMQ_POLLOUT) return;
        if (items[1].revents & ZMQ_POLLIN) pull(Clock::now());  // (one message, without waiting)
        if (Clock::now() >= deadline)
            throw CollectiveError(m_members[to].node.toStdString() + " took no data for " + std::to_string(m_deadline.count()) +
                                  " ms (unreachable, or stopped reading)");
        if (m_whileWaiting && Clock::now() - checked >= kWaitSlice) {
            m_whileWaiting();
            checked = Clock::now();
        }
    }
}

void MeshPeers::sendBytes(int to, quint64 tag, const void* data, size_t bytes) {
    Channel& dealer = dealerTo(to);
    waitForRoom(to, m_bulk ? m_bulk->sendSocket(to) : dealer.socket());
    if (m_bulk) {
        if (!m_bulk->send(to, tag, data, bytes))
            throw CollectiveError("the sealed link to " + m_members[to].node.toStdString() + " has used up its counters");
        m_sent[to] += bytes;
        return;
    }
    Message m(kChunk, {{kTag, qint64(tag)}});  // (a tag with its top bit set travels as a negative integer)
    m.frames.emplace_back(data, bytes);
    if (!dealer.send(std::move(m))) throw CollectiveError("cannot send to " + m_members[to].node.toStdString() + ": it has disconnected");
    m_sent[to] += bytes;
}

bool MeshPeers::pull(Clock::time_point deadline) {
    const auto wait = std::min(kWaitSlice, std::max(std::chrono::milliseconds(0), untilDeadline(deadline)));
    if (m_bulk) {  // the chunks come sealed on the bulk socket; the CURVE channel carries nothing more
        zmq::pollitem_t items[]{{m_bulk->receiveSocket().handle(), 0, ZMQ_POLLIN, 0}, {m_router.socket().handle(), 0, ZMQ_POLLIN, 0}};
        zmq::poll(items, 2, wait);
        if (items[1].revents & ZMQ_POLLIN) {  // the CURVE channel has nothing more to say: a late offer, taken and refused
            m_router.receive(std::chrono::milliseconds(0));
            ++m_refused;
        }
        if (auto f = m_bulk->receive()) {
            stash(f->from, f->tag, std::move(f->plain));
            return true;
        }
        if (m_whileWaiting && Clock::now() < deadline) m_whileWaiting();
        return Clock::now() < deadline;
    }
    std::optional<Envelope> e = m_router.receive(wait);
    if (!e) {  // a refused message (counted by the channel), or nothing yet
        if (m_router.refusedFromPeers() != m_channelRefusals) {  // a member's chunk that will never come whole
            m_channelRefusals = m_router.refusedFromPeers();
            if (const auto r = m_rankOf.constFind(m_router.lastRefusedPeer()); r != m_rankOf.constEnd()) m_refusedFrom.insert(*r);
        }
        if (m_whileWaiting && Clock::now() < deadline) m_whileWaiting();
        return Clock::now() < deadline;
    }
    const auto from = m_rankOf.constFind(e->peer);
    const QCborValue tag = e->message.fields.value(kTag);
    if (from != m_rankOf.constEnd() && e->message.type == kOffer) takeOffer(*from, e->message);
    else if (from == m_rankOf.constEnd() || e->message.type != kChunk || !tag.isInteger() || e->message.frames.size() != 1) ++m_refused;
    else stash(*from, quint64(tag.toInteger()), std::move(e->message.frames[0]));
    return true;
}

zmq::message_t MeshPeers::take(int from, quint64 tag, size_t count, size_t unitBytes, const char* unit) {
    const auto key = std::pair{from, tag};
    const auto deadline = Clock::now() + m_deadline;
    auto checked = Clock::now();
    auto found = m_stash.find(key);
    while (found == m_stash.end()) {
        // Its message was refused (over the chunk limit, malformed, beyond the stash): waiting on
        // would only end at the deadline.
        if (m_refusedFrom.contains(from))
            throw CollectiveError(m_members[from].node.toStdString() + " sent " + m_members[m_rank].node.toStdString() +
                                  " a message it refused (malformed, larger than a chunk, or beyond the chunks it keeps ahead)");
        // (Messages that keep coming, none of them this one, end the wait at the deadline too, and
        // let the role check its schedulers.)
        const bool came = pull(deadline);
        if ((found = m_stash.find(key)) != m_stash.end()) break;
        if (!came || Clock::now() >= deadline)
            throw CollectiveError(m_members[from].node.toStdString() + " sent nothing to " + m_members[m_rank].node.toStdString() +
                                  " within the deadline (" + std::to_string(m_deadline.count()) + " ms)");
        if (m_whileWaiting && Clock::now() - checked >= kWaitSlice) {
            m_whileWaiting();
            checked = Clock::now();
        }
    }
    m_stashedBytes[from] -= found->second.size();
    --m_stashedChunks[from];
    zmq::message_t frame = std::move(found->second);
    m_stash.erase(found);
    if (frame.size() != count * unitBytes) {
        ++m_refused;
        throw CollectiveError(m_members[from].node.toStdString() + " sent " + std::to_string(frame.size() / unitBytes) + " " + unit +
                              " where " + std::to_string(count) + " were due");
    }
    return frame;
}

void MeshPeers::receive(int from, quint64 tag, float* out, size_t count, bool add) {
    const zmq::message_t frame = take(from, tag, count, sizeof(float), "floats");
    // The frame's bytes may sit at any address: copy them out unless they are aligned for floats.
    const auto* in = static_cast<const unsigned char*>(frame.data());
    if (!add) {
        std::memcpy(out, in, frame.size());
    } else if (reinterpret_cast<uintptr_t>(in) % alignof(float) == 0) {
        addInto(out, reinterpret_cast<const float*>(in), count);
    } else {
        std::vector<float> aligned(count);
        std::memcpy(aligned.data(), in, frame.size());
        addInto(out, aligned.data(), count);
    }
}

void MeshPeers::receiveHalf(int from, quint64 tag, float* out, size_t count, bool add) {
    const zmq::message_t frame = take(from, tag, count, sizeof(quint16), "half floats");
    if (add) addHalves(frame.data(), out, count);
    else halvesToFloats(frame.data(), out, count);
}

}  // namespace hips
