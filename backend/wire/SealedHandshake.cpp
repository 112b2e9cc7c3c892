#include "BulkLogins.h"
#include "SealedFrameFormat.h"
#include "SealedPlane.h"
#include "SealedPlaneParts.h"
#include "WireCodec.h"

#include <algorithm>
#include <cstring>

// How a sealed link is made: the dealer's offer, the router's answer, the links they key, and the
// bulk sockets the link's frames travel on.

namespace hips {

const QString SealedPlane::kOffer = QStringLiteral("seal_offer");
const QString SealedPlane::kAnswer = QStringLiteral("seal_answer");
const QString SealedPlane::kReady = QStringLiteral("seal_ready");
const QString SealedPlane::kReset = QStringLiteral("seal_reset");
const QString SealedPlane::kReadToEnd = QStringLiteral("seal_read_to_end");

namespace {

using namespace sealedframe;
using namespace sealedplane;

constexpr int kStrangerHighWaterMark = 8;  // what the open bulk port buffers per connection before it stops reading
constexpr int kMaxLinksPerPeer = 4;  // a router's links of one node: its connections' (two while it runs twice at once)

}  // namespace

Message SealedPlane::offer() {
    m_offered = std::make_unique<EphemeralKeyPair>(EphemeralKeyPair::generate());
    m_offeredAt = Clock::now();
    Message m(kOffer, {{QStringLiteral("aes"), m_cipher == AeadCipher::Aes256Gcm}});
    m.frames.emplace_back(m_offered->publicKey.data(), m_offered->publicKey.size());
    return m;
}

static QString offerId(const std::array<unsigned char, 32>& key) {
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char*>(key.data()), 8).toHex());
}

std::optional<Message> SealedPlane::control(const QString& peer, const QByteArray& route, const Message& m) {
    const QByteArray key = keyOf(peer, route);
    std::array<unsigned char, 32> theirs{};
    const bool keyed = m.frames.size() == 1 && m.frames[0].size() == theirs.size();
    if (keyed) std::memcpy(theirs.data(), m.frames[0].data(), theirs.size());
    // Held messages with sealed frames refer to the replaced link's counters: they can never open.
    // (One that is all inline is delivered as ever.)
    const auto forgetHeld = [&] {
        for (Held& h : m_held[key])
            if (h.refusal.isEmpty() && !h.refs.empty()) h.refusal = QStringLiteral("sealed frames of a link that was made again since");
    };
    const auto makeLink = [&](const LinkKeys& keys, const QString& offer, AeadCipher cipher) {
        forgetHeld();
        if (m_router) dropOldestLinks(peer, kMaxLinksPerPeer - 1);
        auto link = std::make_unique<Link>();
        link->sealer = std::make_unique<Sealer>(keys.send, cipher);
        link->opener = std::make_unique<Opener>(keys.receive, cipher);
        link->offerId = offer;
        link->peer = peer;
        link->curveRoute = route;
        link->made = ++m_linksMade;
        Link& made = *link;
        m_links[key] = std::move(link);
        return &made;
    };
    if (m_router && m.type == kOffer && keyed) {
        const EphemeralKeyPair mine = EphemeralKeyPair::generate();
        // The router chooses, for both ends: AES-256-GCM only where the dealer has it too.
        const AeadCipher cipher = agreedAead(m_cipher, m.fields.value(QStringLiteral("aes")).toBool());
        const std::optional<LinkKeys> keys = deriveLinkKeys(false, mine, theirs, m_binding, m_self, peer, cipher);
        if (!keys) return std::nullopt;  // a weak key: no link, everything stays on CURVE
        if (!m_bulk) bindBulk();
        Link* link = makeLink(*keys, offerId(theirs), cipher);
        link->login = bulklogin::issue(peer);
        m_askedToOffer.remove(key);
        const QString endpoint = QString::fromStdString(m_bulk->get(zmq::sockopt::last_endpoint));
        Message answer(kAnswer, {{QStringLiteral("port"), endpoint.mid(endpoint.lastIndexOf(QLatin1Char(':')) + 1).toLongLong()},
                                 {QStringLiteral("offer"), offerId(theirs)},
                                 {QStringLiteral("login"), QString::fromLatin1(link->login)},
                                 {QStringLiteral("cipher"), QString::fromLatin1(aeadName(cipher))}});
        answer.frames.emplace_back(mine.publicKey.data(), mine.publicKey.size());
        return answer;
    }
    const QString offered = m.string(QStringLiteral("offer"));
    if (!m_router && m.type == kAnswer && keyed && m_offered && offered == offerId(m_offered->publicKey)) {
        const qint64 port = m.integer(QStringLiteral("port"));
        const QByteArray login = m.string(QStringLiteral("login")).toLatin1();
        const std::optional<AeadCipher> cipher = aeadNamed(m.string(QStringLiteral("cipher")));
        if (!cipher || (*cipher == AeadCipher::Aes256Gcm && m_cipher != AeadCipher::Aes256Gcm))
            return std::nullopt;  // (not what it offered)
        const std::optional<LinkKeys> keys = deriveLinkKeys(true, *m_offered, theirs, m_binding, m_self, peer, *cipher);
        if (!keys || port <= 0 || port > 65535 || login.isEmpty() || login.size() > 255) return std::nullopt;
        m_offered.reset();
        m_links.clear();
        Link* link = makeLink(*keys, offered, *cipher);
        connectBulk(quint16(port), login);
        sayHello(*link);
        return std::nullopt;
    }
    if (m.type == kReadToEnd) {  // the peer has every frame sent before our end mark
        m_awaitingEnd.erase(key);
        return std::nullopt;
    }
    if (!m_router && m.type == kReady) {  // the router has our hello: bulk reaches it
        if (Link* link = linkOf(key); link && link->offerId == offered) link->confirmed = true;
        return std::nullopt;
    }
    // The router lost our link (it restarted), or never answered our offer (it died first): offer
    // again. (A router asks once a connection until an offer comes, and its first ask crosses the
    // offer just sent: that one is waited for a while, and not made twice.)
    constexpr auto kAnswerPatience = std::chrono::seconds(1);
    if (!m_router && m.type == kReset && (!m_offered || Clock::now() - m_offeredAt >= kAnswerPatience)) {
        m_links.clear();
        m_bulk.reset();
        return offer();
    }
    return std::nullopt;  // a control message out of turn: nothing to do
}

// A node's connections come and go (each reconnect is a new one, with its own link): the oldest
// links of `peer` beyond `keep` go, with what was held for them.
void SealedPlane::dropOldestLinks(const QString& peer, int keep) {
    for (;;) {
        std::vector<std::map<QByteArray, std::unique_ptr<Link>>::iterator> ofPeer;
        for (auto it = m_links.begin(); it != m_links.end(); ++it)
            if (it->second->peer == peer) ofPeer.push_back(it);
        if (int(ofPeer.size()) <= keep) return;
        const auto oldest =
            *std::min_element(ofPeer.begin(), ofPeer.end(), [](auto a, auto b) { return a->second->made < b->second->made; });
        for (Held& h : m_held[oldest->first])
            if (h.refusal.isEmpty() && !h.refs.empty()) h.refusal = QStringLiteral("sealed frames of a connection that was replaced since");
        m_awaitingEnd.erase(oldest->first);
        m_links.erase(oldest);
    }
}

void SealedPlane::bindBulk() {
    const QString host = hostOf(m_curveEndpoint);
    m_bulk = std::make_unique<zmq::socket_t>(m_ctx, zmq::socket_type::router);
    plainSocketOptions(*m_bulk, host, m_maxFrameBytes, kStrangerHighWaterMark);
    bulklogin::requireLogin(*m_bulk);  // only the run's members, each with the login it was answered
    m_bulk->set(zmq::sockopt::router_mandatory, 1);
    m_bulk->bind((host + QStringLiteral(":*")).toStdString());
}

// A dealer's bulk socket sends only while connected (immediate): towards a port it cannot reach
// (a firewall), its frames go inline instead of queueing for ever.
void SealedPlane::connectBulk(quint16 port, const QByteArray& login) {
    const QString endpoint = hostOf(m_curveEndpoint) + QLatin1Char(':') + QString::number(port);
    m_bulk = std::make_unique<zmq::socket_t>(m_ctx, zmq::socket_type::dealer);
    plainSocketOptions(*m_bulk, endpoint, m_maxFrameBytes, kBulkHighWaterMark);
    bulklogin::logIn(*m_bulk, m_self, login);
    m_bulk->set(zmq::sockopt::immediate, 1);
    m_bulk->connect(endpoint.toStdString());
}

// The dealer's hello: a sealed empty frame, so the router learns which connection is ours (only
// this link's key makes one that opens) and says so on CURVE; until then our frames stay inline.
void SealedPlane::sayHello(Link& link) {
    // (Only once the connection is made: a send before it fails, and the hello is tried again at
    // the next tick; nothing is sealed for a hello that does not leave.)
    zmq::pollitem_t room{m_bulk->handle(), 0, ZMQ_POLLOUT, 0};
    if (zmq::poll(&room, 1, std::chrono::milliseconds(0)) <= 0) return;
    if (!sendMark(link, 'h')) return;
    link.lastHello = Clock::now();
    link.helloSent = true;
}

}  // namespace hips
