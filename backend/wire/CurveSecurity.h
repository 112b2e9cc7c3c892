#pragma once
// ZeroMQ CURVE on every socket of a run, on loopback too: every control and data-plane
// connection is encrypted, and a server admits only the client keys it was told about.
// Keys are Z85 text (40 characters), generated per run (and per deployment) by the controller.
//   - Control plane: each agent has its own key pair and admits only the controller's key.
//   - Data plane: every node of a run has its own key pair. A server admits the run's nodes,
//     and the ZAP handler names each connection after the node its key belongs to (ZeroMQ's
//     User-Id), so a peer is who its key says, never who its routing id says.
// A CurveGuard is the ZAP handler of one ZeroMQ context: it answers every CURVE handshake on
// that context, logs refusals (rate-limited, to stderr, which the agent forwards) and counts them.
#include "RejectionLog.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <zmq.hpp>

namespace hips {

struct CurveKeyPair {
    QByteArray publicKey, secretKey;  // Z85
    static CurveKeyPair generate();
    bool isNull() const { return publicKey.isEmpty(); }
    // "public secret" (Z85 has no space, but has ':'), for a file or an environment variable.
    QByteArray toText() const { return publicKey + ' ' + secretKey; }
    static CurveKeyPair fromText(const QByteArray& text);  // null when malformed
};

// The public keys of a run's nodes, by node id. Text form: one "id key" line per node.
class PeerKeys {
public:
    void insert(const QString& id, const QByteArray& publicKey) { m_keys.insert(id, publicKey); }
    QByteArray keyOf(const QString& id) const { return m_keys.value(id); }
    const QHash<QString, QByteArray>& all() const { return m_keys; }
    bool isEmpty() const { return m_keys.isEmpty(); }
    QByteArray toText() const;
    // Null (empty) when any line is malformed.
    static PeerKeys fromText(const QByteArray& text);

private:
    QHash<QString, QByteArray> m_keys;
};

// What every node of a run agrees on and no other run has: a hash of the run's public keys (a
// sealed link's keys are bound to it, SealedPlane.h).
QByteArray runBindingOf(const PeerKeys& peers);

// How one socket secures itself. Null: plain TCP (tests of the wire layer only; runs never).
struct CurveConfig {
    CurveKeyPair own;
    QByteArray serverPublicKey;  // for a client: whom it expects to reach
    // Non-empty: `transport_security: sealed`, large frames go sealed beside CURVE (SealedPlane.h),
    // their keys bound to this (what every node of the run agrees on and no other run has).
    QByteArray sealedBinding = {};
    bool enabled() const { return !own.isNull(); }
    void applyAsServer(zmq::socket_t& socket) const;
    void applyAsClient(zmq::socket_t& socket) const;
};

class CurveGuard {
public:
    // Starts answering handshakes on `ctx` for the clients in `allowed` (Z85 public key → the
    // identity a connection with that key gets); `name` labels the log.
    CurveGuard(zmq::context_t& ctx, const QHash<QByteArray, QString>& allowed, QString name);
    // Every listed key gets the same identity (the agent's one controller, tests).
    CurveGuard(zmq::context_t& ctx, const QList<QByteArray>& allowed, QString name, const QString& identity);
    ~CurveGuard();
    CurveGuard(const CurveGuard&) = delete;
    CurveGuard& operator=(const CurveGuard&) = delete;

    quint64 refusals() const { return m_refusals.load(); }
    quint64 admissions() const { return m_admissions.load(); }

private:
    void serve(zmq::context_t& ctx, std::promise<void>* bound);
    void answer(zmq::socket_t& zap, const std::vector<zmq::message_t>& frames);
    void answerLogin(zmq::socket_t& zap, const std::string& requestId, const std::vector<zmq::message_t>& frames);
    void start(zmq::context_t& ctx);
    QHash<QByteArray, QByteArray> m_allowed;  // binary (32 bytes) public key → identity (UTF-8)
    QString m_name;
    std::atomic<bool> m_stop{false};
    std::atomic<quint64> m_refusals{0}, m_admissions{0};
    RejectionLog m_log;
    std::thread m_thread;
};

}  // namespace hips
