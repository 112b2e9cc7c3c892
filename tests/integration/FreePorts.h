#pragma once
// Ports for the test runs' topologies, free of each other and of anything already listening:
// every test run takes its own, so `ctest -j2` and a run the user has open beside the suite
// never meet on a port.
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QtGlobal>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hips::test {

// Whether TCP `port` can be bound on every address: nothing listens on it anywhere. (With
// SO_REUSEADDR, as ZeroMQ binds: a port some closed connection keeps in TIME_WAIT is free.)
inline bool portIsFree(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(quint16(port));
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return bound;
}

// A free port claimed for the rest of this process's life. It is drawn below the kernel's
// ephemeral range (32768 and up), so no outgoing connection takes it before the role binds it,
// and claimed with a lock on a file named after it, which no other test process (nor another
// claim in this one: flock locks belong to the open file) can take until this process ends.
inline int claimFreePort() {
    static const QString dir = QDir::temp().filePath(QStringLiteral("hips-test-ports-%1").arg(::getuid()));
    QDir().mkpath(dir);
    for (int attempt = 0; attempt < 2000; ++attempt) {
        const int port = 20000 + int(QRandomGenerator::global()->bounded(12000));
        const QByteArray lockFile = QFile::encodeName(QDir(dir).filePath(QString::number(port)));
        const int fd = ::open(lockFile.constData(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && portIsFree(port)) return port;  // (fd stays open: the claim)
        ::close(fd);
    }
    qFatal("no free TCP port between 20000 and 32000 after 2000 tries");
}

// Moves a topology's ports (every "port" and "agent_port") to claimed free ones. The same old
// port always moves to the same new one, so ports a file shares (a clash it means to show) stay
// shared; `of` says where a port went.
class FreePorts {
public:
    int of(int old) {
        if (!m_moved.contains(old)) m_moved.insert(old, claimFreePort());
        return m_moved.value(old);
    }

    QJsonValue moved(const QJsonValue& value) {
        if (value.isArray()) {
            QJsonArray a = value.toArray();
            for (qsizetype i = 0; i < a.size(); ++i) a[i] = moved(a[i]);
            return a;
        }
        if (!value.isObject()) return value;
        QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const bool isPort = it.key() == QLatin1String("port") || it.key() == QLatin1String("agent_port");
            it.value() = isPort && it.value().isDouble() ? QJsonValue(of(it.value().toInt())) : moved(it.value());
        }
        return o;
    }

    // A copy of the topology file `path` with its ports moved, written into `dir`; `path` itself
    // when it is no JSON object (a test of what a broken file is told).
    QString movedCopy(const QString& path, const QString& dir) {
        QFile in(path);
        if (!in.open(QIODevice::ReadOnly)) return path;
        const QJsonDocument doc = QJsonDocument::fromJson(in.readAll());
        if (!doc.isObject()) return path;
        const QString copy = QDir(dir).filePath(QStringLiteral("%1-%2").arg(++m_copies).arg(QFileInfo(path).fileName()));
        QFile out(copy);
        if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(moved(doc.object()).toObject()).toJson()) <= 0)
            qFatal("cannot write %s", qPrintable(copy));
        return copy;
    }

private:
    QHash<int, int> m_moved;
    int m_copies = 0;
};

}  // namespace hips::test
