#include "BulkLogins.h"

#include <QHash>
#include <QMutex>
#include <deque>
#include <sodium.h>

namespace hips::bulklogin {

namespace {

struct Logins {
    QMutex mutex;
    QHash<QByteArray, QByteArray> userOf;  // password → node name (UTF-8)
    std::deque<QByteArray> order;  // passwords, oldest first (some may be withdrawn already)
};

Logins& logins() {
    static Logins l;
    return l;
}

}  // namespace

QByteArray issue(const QString& peer) {
    unsigned char random[32];
    randombytes_buf(random, sizeof random);
    const QByteArray password = QByteArray(reinterpret_cast<const char*>(random), int(sizeof random)).toHex();
    Logins& l = logins();
    const QMutexLocker lock(&l.mutex);
    while (l.userOf.size() >= kMaxLogins && !l.order.empty()) {
        l.userOf.remove(l.order.front());
        l.order.pop_front();
    }
    if (l.order.size() > size_t(2 * kMaxLogins)) {  // (withdrawn ones linger in the order: drop them)
        std::deque<QByteArray> live;
        for (const QByteArray& p : l.order)
            if (l.userOf.contains(p)) live.push_back(p);
        l.order.swap(live);
    }
    l.userOf.insert(password, peer.toUtf8());
    l.order.push_back(password);
    return password;
}

void withdraw(const QByteArray& password) {
    Logins& l = logins();
    const QMutexLocker lock(&l.mutex);
    l.userOf.remove(password);
}

bool admits(const QByteArray& user, const QByteArray& password) {
    Logins& l = logins();
    const QMutexLocker lock(&l.mutex);
    const auto it = l.userOf.constFind(password);
    return it != l.userOf.constEnd() && *it == user;
}

void requireLogin(zmq::socket_t& s) {
    s.set(zmq::sockopt::plain_server, 1);
    s.set(zmq::sockopt::zap_domain, kDomain);
}

void logIn(zmq::socket_t& s, const QString& self, const QByteArray& password) {
    s.set(zmq::sockopt::plain_username, self.toStdString());
    s.set(zmq::sockopt::plain_password, password.toStdString());
}

}  // namespace hips::bulklogin
