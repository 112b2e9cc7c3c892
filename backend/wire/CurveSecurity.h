#pragma once
// ZeroMQ CURVE for topologies that span hosts: every control and data-plane connection is
// encrypted, and a server admits only the client keys it was told about. Keys are Z85 text
// (40 characters), generated per deployment by the controller.
//   - Control plane: each agent has its own key pair and admits only the controller's key.
//   - Data plane: the roles of a run share the run's key pair and admit only that key.
// A CurveGuard is the ZAP handler of one ZeroMQ context: it answers every CURVE handshake on
// that context, logs each refusal (to stderr, which the agent forwards) and counts it.
#include <QByteArray>
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
    static CurveKeyPair fromText(const QByteArray& text);               // null when malformed
};

// How one socket secures itself. Null: plain TCP (a run on one machine's loopback).
struct CurveConfig {
    CurveKeyPair own;
    QByteArray serverPublicKey;  // for a client: whom it expects to reach
    bool enabled() const { return !own.isNull(); }
    void applyAsServer(zmq::socket_t& socket) const;
    void applyAsClient(zmq::socket_t& socket) const;
};

class CurveGuard {
public:
    // Starts answering handshakes on `ctx` for `allowed` client public keys (Z85); `name` labels the log.
    CurveGuard(zmq::context_t& ctx, QList<QByteArray> allowed, QString name);
    ~CurveGuard();
    CurveGuard(const CurveGuard&) = delete;
    CurveGuard& operator=(const CurveGuard&) = delete;

    quint64 refusals() const { return m_refusals.load(); }
    quint64 admissions() const { return m_admissions.load(); }

private:
    void serve(zmq::context_t& ctx, std::promise<void>* bound);
    void answer(zmq::socket_t& zap, const std::vector<zmq::message_t>& frames);
    QList<QByteArray> m_allowed;  // binary (32 bytes) public keys
    QString m_name;
    std::atomic<bool> m_stop{false};
    std::atomic<quint64> m_refusals{0}, m_admissions{0};
    std::thread m_thread;
};

}  // namespace hips
