#pragma once
// Who may connect to a bulk port (a sealed channel's, SealedPlane.h; a sealed collective's,
// SealedBulk.h): ZeroMQ's PLAIN mechanism, checked by the process's ZAP handler (CurveGuard)
// against the logins this process handed out over CURVE, one for each link. A stranger without
// one is refused at the handshake, before libzmq buffers any of its bytes. (The port was open to
// anyone: a frame that did not open was refused, but libzmq holds a multipart message whole until
// its last part, whatever its high-water marks say, and one endless message from a stranger
// filled the memory.) PLAIN says its password in the clear: it keeps out those who cannot read
// the link, which the AEAD's keys protect from those who can.
#include <QByteArray>
#include <QString>
#include <zmq.hpp>

namespace hips::bulklogin {

// The ZAP domain of bulk ports: a PLAIN login is taken only there.
inline constexpr const char* kDomain = "hips-bulk";

// A fresh login for `peer` (its node name) to this process's bulk ports: the password, for the
// peer to be told on CURVE. Withdrawn with withdraw(); at most kMaxLogins are held at once (the
// oldest goes).
QByteArray issue(const QString& peer);
void withdraw(const QByteArray& password);
// Whether `user` holds the login `password` (the ZAP handler's question).
bool admits(const QByteArray& user, const QByteArray& password);
inline constexpr int kMaxLogins = 65536;

// Before bind: the socket takes PLAIN logins, checked in kDomain.
void requireLogin(zmq::socket_t& s);
// Before connect: the socket logs in as `self` with `password`.
void logIn(zmq::socket_t& s, const QString& self, const QByteArray& password);

}  // namespace hips::bulklogin
