#include "CurveSecurity.h"

#include "BulkLogins.h"

#include "SocketThread.h"  // blockTerminationSignals
#include "RoleScope.h"

#include <QCryptographicHash>
#include <QStringList>
#include <cstdio>

namespace hips {

CurveKeyPair CurveKeyPair::generate() {
    char pub[41] = {}, sec[41] = {};
    if (zmq_curve_keypair(pub, sec) != 0) return {};  // libzmq built without CURVE
    return {QByteArray(pub, 40), QByteArray(sec, 40)};
}

CurveKeyPair CurveKeyPair::fromText(const QByteArray& text) {
    const QList<QByteArray> parts = text.trimmed().split(' ');
    if (parts.size() != 2 || parts[0].size() != 40 || parts[1].size() != 40) return {};
    return {parts[0], parts[1]};
}

QByteArray PeerKeys::toText() const {
    QByteArray text;
    for (auto it = m_keys.begin(); it != m_keys.end(); ++it) text += it.key().toUtf8() + ' ' + it.value() + '\n';
    return text;
}

QByteArray runBindingOf(const PeerKeys& peers) {
    QStringList ids = peers.all().keys();
    ids.sort();  // (a hash's order is not the same in every process)
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString& id : ids) hash.addData(id.toUtf8() + ' ' + peers.keyOf(id) + '\n');
    return hash.result().toHex();
}

PeerKeys PeerKeys::fromText(const QByteArray& text) {
    PeerKeys keys;
    for (const QByteArray& line : text.split('\n')) {
        if (line.isEmpty()) continue;
        const qsizetype space = line.lastIndexOf(' ');
        if (space <= 0 || line.size() - space - 1 != 40) return {};
        keys.insert(QString::fromUtf8(line.left(space)), line.mid(space + 1));
    }
    return keys;
}

void CurveConfig::applyAsServer(zmq::socket_t& s) const {
    if (!enabled()) return;
    s.set(zmq::sockopt::zap_domain, "hips");
    s.set(zmq::sockopt::curve_server, 1);
    s.set(zmq::sockopt::curve_secretkey, own.secretKey.toStdString());
}

void CurveConfig::applyAsClient(zmq::socket_t& s) const {
    if (!enabled()) return;
    s.set(zmq::sockopt::curve_serverkey, serverPublicKey.toStdString());
    s.set(zmq::sockopt::curve_publickey, own.publicKey.toStdString());
    s.set(zmq::sockopt::curve_secretkey, own.secretKey.toStdString());
}

static QByteArray binaryKey(const QByteArray& z85) {
    QByteArray binary(32, '\0');
    if (z85.size() != 40 || !zmq_z85_decode(reinterpret_cast<uint8_t*>(binary.data()), z85.constData())) return {};
    return binary;
}

CurveGuard::CurveGuard(zmq::context_t& ctx, const QHash<QByteArray, QString>& allowed, QString name)
    : m_name(std::move(name)), m_log(m_name) {
    for (auto it = allowed.begin(); it != allowed.end(); ++it)
        if (const QByteArray key = binaryKey(it.key()); !key.isEmpty()) m_allowed.insert(key, it.value().toUtf8());
    start(ctx);
}

CurveGuard::CurveGuard(zmq::context_t& ctx, const QList<QByteArray>& allowed, QString name, const QString& identity)
    : m_name(std::move(name)), m_log(m_name) {
    for (const QByteArray& z85 : allowed)
        if (const QByteArray key = binaryKey(z85); !key.isEmpty()) m_allowed.insert(key, identity.toUtf8());
    start(ctx);
}

void CurveGuard::start(zmq::context_t& ctx) {
    std::promise<void> bound;
    auto ready = bound.get_future();
    m_thread = std::thread([this, &ctx, &bound] { serve(ctx, &bound); });
    ready.wait();  // no CURVE socket may handshake before the handler listens
}

CurveGuard::~CurveGuard() {
    m_stop = true;
    m_thread.join();
}

// The ZAP protocol (RFC 27): a REP socket on inproc://zeromq.zap.01 in the same context.
// Termination signals are the main thread's business; a ZeroMQ error ends the handler (ETERM:
// the context is going) or is skipped (EINTR), never the process.
void CurveGuard::serve(zmq::context_t& ctx, std::promise<void>* bound) {
    blockTerminationSignals();
    try {
        zmq::socket_t zap(ctx, zmq::socket_type::rep);
        zap.set(zmq::sockopt::linger, 0);
        zap.bind("inproc://zeromq.zap.01");
        bound->set_value();
        bound = nullptr;
        while (!m_stop) {
            try {
                zmq::pollitem_t item{zap.handle(), 0, ZMQ_POLLIN, 0};
                if (zmq::poll(&item, 1, std::chrono::milliseconds(100)) == 0) continue;
                std::vector<zmq::message_t> frames;
                while (true) {
                    zmq::message_t part;
                    if (!zap.recv(part, zmq::recv_flags::none)) break;
                    frames.push_back(std::move(part));
                    if (!frames.back().more()) break;
                }
                answer(zap, frames);
            } catch (const zmq::error_t& e) {
                if (e.num() != EINTR) throw;
            }
        }
    } catch (const zmq::error_t& e) {
        if (bound) bound->set_value();  // the constructor must not wait forever
        if (e.num() != ETERM) std::fprintf(roleErr(), "%s: the CURVE handler stopped: %s\n", qPrintable(m_name), e.what());
    }
}

// Admits a CURVE client whose key is listed, naming the connection after the key's owner (the
// User-Id every message from it carries); refuses (logs, counts) anything else. A malformed
// request still gets an answer: a REP socket must reply before it can receive again.
void CurveGuard::answer(zmq::socket_t& zap, const std::vector<zmq::message_t>& frames) {
    const std::string requestId = frames.size() > 1 ? frames[1].to_string() : std::string();
    if (frames.size() > 5 && frames[5].to_string() == "PLAIN") return answerLogin(zap, requestId, frames);
    const std::string address = frames.size() > 3 ? frames[3].to_string() : std::string("?");
    const std::string mechanism = frames.size() > 5 ? frames[5].to_string() : std::string("?");
    const QByteArray key = frames.size() > 6 ? QByteArray(static_cast<const char*>(frames[6].data()), int(frames[6].size())) : QByteArray();
    const auto owner = m_allowed.constFind(key);
    const bool ok = mechanism == "CURVE" && owner != m_allowed.constEnd();
    if (ok) {
        ++m_admissions;
    } else {
        ++m_refusals;
        char z85[41] = {};
        if (key.size() == 32) zmq_z85_encode(z85, reinterpret_cast<const uint8_t*>(key.constData()), 32);
        // One line per source address and interval, with a count: a flood of handshakes must not
        // become a flood of log lines (each one a history row).
        m_log.reject(QString::fromStdString(address),
                     QStringLiteral("refused a %1 connection (key %2): not a key of this run")
                         .arg(QString::fromStdString(mechanism), key.size() == 32 ? QString::fromLatin1(z85) : QStringLiteral("none")));
    }
    const std::string userId = ok ? owner->toStdString() : std::string();
    const std::vector<std::string> reply = {"1.0", requestId, ok ? "200" : "400", ok ? "OK" : "unknown key", userId, ""};
    for (size_t i = 0; i < reply.size(); ++i)
        zap.send(zmq::buffer(reply[i]), i + 1 < reply.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
}

// A bulk port's PLAIN login (BulkLogins.h): admitted only in its domain, with a login this
// process handed out to that node.
void CurveGuard::answerLogin(zmq::socket_t& zap, const std::string& requestId, const std::vector<zmq::message_t>& frames) {
    const auto bytes = [&](size_t i) {
        return frames.size() > i ? QByteArray(static_cast<const char*>(frames[i].data()), qsizetype(frames[i].size())) : QByteArray();
    };
    const QByteArray user = bytes(6);
    const bool ok = frames.size() == 8 && bytes(2) == bulklogin::kDomain && bulklogin::admits(user, bytes(7));
    if (ok) {
        ++m_admissions;
    } else {
        ++m_refusals;
        // (Under its own key: CURVE's refusals from the same address would hold these lines back.)
        m_log.reject(QString::fromStdString(frames.size() > 3 ? frames[3].to_string() : std::string("?")) + QStringLiteral(" (bulk port)"),
                     QStringLiteral("refused a PLAIN connection to a bulk port (as '%1'): no login of this run")
                         .arg(QString::fromUtf8(user.left(100))));
    }
    const std::vector<std::string> reply = {"1.0", requestId, ok ? "200" : "400", ok ? "OK" : "no login", ok ? user.toStdString() : "", ""};
    for (size_t i = 0; i < reply.size(); ++i)
        zap.send(zmq::buffer(reply[i]), i + 1 < reply.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
}

}  // namespace hips
