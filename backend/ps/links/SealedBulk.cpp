#include "SealedBulk.h"

#include <sodium.h>

#include "BulkLogins.h"

#include <cstring>

namespace hips {

namespace {

QByteArray headerOf(int rank, quint64 tag, uint64_t counter) {
    QByteArray h(int(SealedBulk::kHeaderBytes), Qt::Uninitialized);
    auto* p = reinterpret_cast<unsigned char*>(h.data());
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(quint32(rank) >> (24 - 8 * i));
    for (int i = 0; i < 8; ++i) p[4 + i] = static_cast<unsigned char>(tag >> (56 - 8 * i));
    for (int i = 0; i < 8; ++i) p[12 + i] = static_cast<unsigned char>(counter >> (56 - 8 * i));
    return h;
}

uint64_t bigEndian(const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

}  // namespace

SealedBulk::SealedBulk(zmq::context_t& ctx, int rank, QList<QString> names, const QString& host, QByteArray binding, size_t chunkLimit)
    : m_ctx(ctx),
      m_rank(rank),
      m_names(std::move(names)),
      m_binding(std::move(binding)),
      m_pull(ctx, zmq::socket_type::pull),
      m_traffic(m_names.value(rank).section('/', 0, 0)),
      m_rejections(m_names.value(rank)) {
    m_pull.set(zmq::sockopt::linger, 0);
    // Only members log in (below): what it buffers a connection stays small all the same (a member's further
    // chunks wait in its own queue, as the default of 1,000 chunks a connection let a stranger's not).
    m_pull.set(zmq::sockopt::rcvhwm, 8);
    if (chunkLimit > 0) m_pull.set(zmq::sockopt::maxmsgsize, int64_t(chunkLimit + kAeadTagBytes + kHeaderBytes));
    if (host.contains('[')) m_pull.set(zmq::sockopt::ipv6, 1);
    bulklogin::requireLogin(m_pull);  // only the members, each with the login this one offered it
    m_pull.bind((host + QStringLiteral(":0")).toStdString());
}

QString SealedBulk::endpoint() const {
    return QString::fromStdString(const_cast<zmq::socket_t&>(m_pull).get(zmq::sockopt::last_endpoint));
}

SealedBulk::~SealedBulk() {
    for (const auto& [rank, login] : m_logins) bulklogin::withdraw(login);
}

QByteArray SealedBulk::loginFor(int rank) {
    QByteArray& login = m_logins[rank];
    if (login.isEmpty()) login = bulklogin::issue(m_names.value(rank));
    return login;
}

bool SealedBulk::accept(int rank, const std::array<unsigned char, 32>& key, const QString& endpoint, const QByteArray& login,
                        bool peerPrefersAes) {
    if (rank == m_rank || rank < 0 || rank >= m_names.size() || linked(rank)) return false;
    // The lower rank takes crypto_kx's client side, and the cipher is the one both can run at
    // speed: both ends agree on each.
    const AeadCipher cipher = agreedAead(m_cipher, peerPrefersAes);
    const std::optional<LinkKeys> keys = deriveLinkKeys(m_rank < rank, m_mine, key, m_binding, m_names[m_rank], m_names[rank], cipher);
    if (!keys) return false;
    Link link{zmq::socket_t(m_ctx, zmq::socket_type::push), std::make_unique<Sealer>(keys->send, cipher),
              std::make_unique<Opener>(keys->receive, cipher)};
    link.push.set(zmq::sockopt::linger, 5000);  // what a rank queued last still leaves as it closes
    if (endpoint.contains('[')) link.push.set(zmq::sockopt::ipv6, 1);
    bulklogin::logIn(link.push, m_names[m_rank], login);
    try {
        link.push.connect(endpoint.toStdString());
    } catch (const zmq::error_t&) {
        return false;  // an endpoint ZeroMQ cannot parse ("tcp://x"): refused as a bad offer is
    }
    m_links.emplace(rank, std::move(link));
    return true;
}

void SealedBulk::forgetOwnKey() {
    sodium_memzero(m_mine.secretKey.data(), m_mine.secretKey.size());
}

bool SealedBulk::send(int rank, quint64 tag, const void* data, size_t bytes) {
    Link& link = m_links.at(rank);
    const QByteArray header = headerOf(m_rank, tag, link.sealer->nextCounter());
    zmq::message_t sealed(bytes + kAeadTagBytes);
    if (!link.sealer->seal(header, static_cast<const unsigned char*>(data), bytes, static_cast<unsigned char*>(sealed.data())))
        return false;
    link.push.send(zmq::buffer(header.constData(), size_t(header.size())), zmq::send_flags::sndmore);
    link.push.send(sealed, zmq::send_flags::none);
    m_traffic.sent(m_names[rank], kHeaderBytes + bytes + kAeadTagBytes);
    return true;
}

// Counted, and named under one key whatever rank a frame claims (rate-limited: a flood costs a line
// every few seconds).
void SealedBulk::refuse(const QString& claimed, const char* why) {
    ++m_refused;
    m_rejections.reject(QStringLiteral("the collective's sealed port"),
                        QStringLiteral("a chunk that names %1: %2").arg(claimed, QLatin1String(why)));
}

std::optional<SealedBulk::Frame> SealedBulk::receive() {
    // A stranger's flood is read a bounded number of frames a call, so that the caller's deadline
    // and its scheduler checks still come round.
    for (int refusedHere = 0; refusedHere < kMaxRefusedPerCall;) {
        zmq::message_t header, sealed;
        if (!m_pull.recv(header, zmq::recv_flags::dontwait)) return std::nullopt;
        bool whole = header.more() && m_pull.recv(sealed, zmq::recv_flags::dontwait) && !sealed.more();
        while (!whole && (header.more() || sealed.more())) {  // (the rest of a malformed message)
            zmq::message_t rest;
            if (!m_pull.recv(rest, zmq::recv_flags::dontwait) || !rest.more()) break;
        }
        const auto* h = static_cast<const unsigned char*>(header.data());
        const int from = whole && header.size() == kHeaderBytes ? int(bigEndian(h, 4)) : -1;
        const auto link = m_links.find(from);
        const QString claimed = link == m_links.end() ? QStringLiteral("no member") : m_names[from];
        if (link == m_links.end() || sealed.size() < kAeadTagBytes || (sealed.size() - kAeadTagBytes) % sizeof(quint16) != 0) {
            refuse(claimed, "not a sealed chunk of a member's link (its parts, its rank or its size)");
            ++refusedHere;
            continue;
        }
        zmq::message_t plain(sealed.size() - kAeadTagBytes);
        const QByteArray aad(static_cast<const char*>(header.data()), int(header.size()));
        if (!link->second.opener
                 ->open(bigEndian(h + 12, 8), aad, static_cast<const unsigned char*>(sealed.data()), sealed.size(),
                        static_cast<unsigned char*>(plain.data()))
                 .isEmpty()) {
            refuse(claimed, "it does not open under that member's key (a stranger's, altered, cut, replayed or out of order)");
            ++refusedHere;
            continue;
        }
        m_traffic.received(m_names[from], kHeaderBytes + sealed.size());
        return Frame{from, bigEndian(h + 4, 8), std::move(plain)};
    }
    return std::nullopt;
}

}  // namespace hips
