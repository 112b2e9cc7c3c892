// The trainer zygote's protocol, end to end but without LibTorch: a forked zygote serving a
// test "role", driven over the same socket pair the agent uses.
#include "PacketSocket.h"
#include "TrainerZygote.h"
#include "ZygoteClient.h"

#include <QCborMap>
#include <QCborValue>
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hips;

static zygote::CommandLineRoom g_room;  // this test's own command line, as the zygote's

// The "role" the zygote's children run: argv[1] says what to do.
static int testRole(int argc, char** argv) {
    const QByteArray what = argc > 1 ? argv[1] : "";
    if (what == "echo") {
        std::printf("args:");
        for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
        char cwd[4096] = {};
        std::printf("\ncwd: %s\nset: %s\ninherited: %s\n", getcwd(cwd, sizeof cwd), getenv("ZYGOTE_TEST_SET") ?: "(none)",
                    getenv("ZYGOTE_TEST_INHERITED") ?: "(none)");
        std::fprintf(stderr, "a line on stderr\n");
        return 7;
    }
    if (what == "wait") {
        for (;;) ::pause();
    }
    return 99;  // ("exit")
}

class ZygoteTest : public QObject {
    Q_OBJECT

    int m_socket = -1;
    pid_t m_zygote = 0;
    QTemporaryDir m_dir;

    QCborMap reply(int timeoutMs = 10000) {
        pollfd p{m_socket, POLLIN, 0};
        if (::poll(&p, 1, timeoutMs) != 1) return {};
        QByteArray bytes;
        QList<int> fds;
        if (!receivePacket(m_socket, &bytes, &fds)) return {};
        return QCborValue::fromCbor(bytes).toMap();
    }
    // Spawns `what`; returns the read ends of its stdout and stderr.
    std::pair<int, int> spawn(const QString& node, const QString& what, const QCborMap& env = {}) {
        int out[2], err[2];
        if (::pipe(out) != 0 || ::pipe(err) != 0) return {-1, -1};
        const bool sent = sendPacket(m_socket, zygote::spawnRequest(node, {"prog", what, node}, env, m_dir.path()), {out[1], err[1]});
        ::close(out[1]);
        ::close(err[1]);
        if (!sent) return {-1, -1};
        return {out[0], err[0]};
    }
    static QByteArray readToEnd(int fd) {
        QByteArray all;
        char chunk[4096];
        ssize_t n;
        while ((n = ::read(fd, chunk, sizeof chunk)) > 0) all.append(chunk, n);
        ::close(fd);
        return all;
    }
    static bool gone(pid_t pid) {
        for (int i = 0; i < 100; ++i, QTest::qWait(50))
            if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
        return false;
    }

private Q_SLOTS:
    void init() {
        int pair[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0);
        m_zygote = ::fork();
        if (m_zygote == 0) {
            ::close(pair[0]);
            _exit(zygote::serve(pair[1], g_room, testRole));
        }
        ::close(pair[1]);
        m_socket = pair[0];
    }
    void cleanup() {
        if (m_socket >= 0) ::close(m_socket);
        m_socket = -1;
        int status = 0;
        ::waitpid(m_zygote, &status, 0);
    }

    void childRunsWithExactlyTheArgumentsEnvironmentAndDirectoryItWasGiven() {
        auto [out, err] = spawn("party1/worker0", "echo", QCborMap{{QStringLiteral("ZYGOTE_TEST_SET"), QStringLiteral("yes")}});
        QVERIFY(out >= 0);
        const QCborMap spawned = reply();
        QCOMPARE(spawned.value(QStringLiteral("op")).toString(), QStringLiteral("spawned"));
        QCOMPARE(spawned.value(QStringLiteral("node")).toString(), QStringLiteral("party1/worker0"));
        QVERIFY(spawned.value(QStringLiteral("pid")).toInteger() > 0);
        const QByteArray printed = readToEnd(out);
        QVERIFY2(printed.contains("args: prog echo party1/worker0\n"), printed.constData());
        QVERIFY2(printed.contains("cwd: " + QDir(m_dir.path()).canonicalPath().toUtf8() + "\n"), printed.constData());
        QVERIFY2(printed.contains("set: yes\n"), printed.constData());
        QVERIFY2(printed.contains("inherited: (none)\n"), printed.constData());  // nothing of the zygote's
        QCOMPARE(readToEnd(err), QByteArray("a line on stderr\n"));
        const QCborMap exited = reply();
        QCOMPARE(exited.value(QStringLiteral("op")).toString(), QStringLiteral("exited"));
        QCOMPARE(exited.value(QStringLiteral("node")).toString(), QStringLiteral("party1/worker0"));
        QCOMPARE(exited.value(QStringLiteral("code")).toInteger(), 7);
        QCOMPARE(exited.value(QStringLiteral("signal")).toInteger(), 0);
    }

    void signalReachesOnlyItsNodeAndCommandLineNamesIt() {
        auto a = spawn("a", "wait"), b = spawn("b", "wait");
        const qint64 pidA = reply().value(QStringLiteral("pid")).toInteger(), pidB = reply().value(QStringLiteral("pid")).toInteger();
        QVERIFY(pidA > 0 && pidB > 0 && pidA != pidB);
        // The child renames itself just after the fork: read its command line until it has.
        const QByteArray expected = QByteArray("prog\0wait\0a\0", 12).left(qsizetype(g_room.size) - 1);
        auto shown = [pidA] {
            QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pidA));
            return cmdline.open(QIODevice::ReadOnly) ? cmdline.readAll() : QByteArray();
        };
        QTRY_VERIFY2(shown().startsWith(expected), shown().constData());

        QVERIFY(sendPacket(m_socket, zygote::signalRequest("a", SIGSTOP)));  // not one the agent may send
        QVERIFY(sendPacket(m_socket, zygote::signalRequest("a", SIGTERM)));
        const QCborMap exited = reply();
        QCOMPARE(exited.value(QStringLiteral("node")).toString(), QStringLiteral("a"));
        QCOMPARE(exited.value(QStringLiteral("signal")).toInteger(), SIGTERM);
        QVERIFY(::kill(pid_t(pidB), 0) == 0);  // b untouched
        QVERIFY(sendPacket(m_socket, zygote::signalRequest("b", SIGKILL)));
        QCOMPARE(reply().value(QStringLiteral("signal")).toInteger(), SIGKILL);
        for (int fd : {a.first, a.second, b.first, b.second}) ::close(fd);
    }

    void malformedRequestsAreRefusedAndTheZygoteCarriesOn() {
        QVERIFY(sendPacket(m_socket, zygote::spawnRequest("x", {"prog", "echo"}, {}, m_dir.path())));  // no pipes
        QCborMap failed = reply();
        QCOMPARE(failed.value(QStringLiteral("op")).toString(), QStringLiteral("failed"));
        QVERIFY(failed.value(QStringLiteral("error")).toString().contains(QStringLiteral("two pipes")));
        QVERIFY(sendPacket(m_socket, QByteArray("\xff\x00garbage", 9)));  // not CBOR: ignored
        QVERIFY(sendPacket(m_socket, zygote::signalRequest("nobody", SIGKILL)));  // no such child: ignored
        auto [out, err] = spawn("y", "echo");
        QCOMPARE(reply().value(QStringLiteral("op")).toString(), QStringLiteral("spawned"));
        QVERIFY(readToEnd(out).contains("args: prog echo y"));
        ::close(err);
        QCOMPARE(reply().value(QStringLiteral("code")).toInteger(), 7);
    }

    void closingTheSocketEndsTheZygoteAndItsChildren() {
        auto [out, err] = spawn("w", "wait");
        const qint64 pid = reply().value(QStringLiteral("pid")).toInteger();
        QVERIFY(pid > 0);
        ::close(m_socket);
        m_socket = -1;
        int status = -1;
        QCOMPARE(::waitpid(m_zygote, &status, 0), m_zygote);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QVERIFY(gone(pid_t(pid)));
        ::close(out);
        ::close(err);
    }

    // The agent's side asks for hundreds of trainers in one pass, never back in its event loop
    // between them (as it takes a controller's start commands), and each is answered. The zygote
    // sends its answers blocking and reads no request while it waits: with no one reading them,
    // its answers filled the socket, the agent's requests then filled the other way, and each
    // waited for the other for ever.
    void hundredsOfSpawnsInOnePassAreEachAnswered() {
        ZygoteClient client(QCoreApplication::applicationFilePath());  // (this binary, as "zygote")
        int spawned = 0, exited = 0;
        connect(&client, &ZygoteClient::spawned, this, [&] { ++spawned; });
        connect(&client, &ZygoteClient::exited, this, [&] { ++exited; });
        const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        QString error;
        constexpr int kTrainers = 600;
        for (int i = 0; i < kTrainers; ++i)
            QVERIFY2(client.spawn(QStringLiteral("n%1").arg(i), {"prog", "exit"}, {}, m_dir.path(), null, null, &error), qPrintable(error));
        ::close(null);
        QTRY_COMPARE_WITH_TIMEOUT(spawned, kTrainers, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(exited, kTrainers, 60000);
    }

    void packetsTooLargeOrWithTooManyDescriptorsAreRefused() {
        int pair[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) == 0);
        QVERIFY(!sendPacket(pair[0], QByteArray(kMaxPacketBytes + 1, 'x')));
        QCOMPARE(errno, EMSGSIZE);
        QVERIFY(!sendPacket(pair[0], "x", {0, 1, 2, 0, 1}));
        const QByteArray big(kMaxPacketBytes + 100, 'x');  // sent around the check: cut on receipt
        QCOMPARE(::send(pair[0], big.constData(), size_t(big.size()), 0), ssize_t(big.size()));
        QByteArray bytes;
        QList<int> fds;
        QVERIFY(!receivePacket(pair[1], &bytes, &fds));
        QCOMPARE(errno, EMSGSIZE);
        QVERIFY(sendPacket(pair[0], "fine", {0}));
        QVERIFY(receivePacket(pair[1], &bytes, &fds));
        QCOMPARE(bytes, QByteArray("fine"));
        QCOMPARE(fds.size(), 1);
        QVERIFY(::fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
        ::close(fds[0]);
        ::close(pair[0]);
        QVERIFY(!receivePacket(pair[1], &bytes, &fds));  // end of stream
        ::close(pair[1]);
    }
};

int main(int argc, char** argv) {
    g_room = {argv[0], size_t(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0])};
    if (argc == 3 && std::strcmp(argv[1], "zygote") == 0) return zygote::serve(3, g_room, testRole);  // (as ZygoteClient starts it)
    // Set before QtTest's watchdog thread starts: setenv while it reads the environment
    // (getenv("QTEST_FUNCTION_TIMEOUT")) crashed it, one run in twenty.
    ::setenv("ZYGOTE_TEST_INHERITED", "from the zygote", 1);
    QCoreApplication app(argc, argv);
    ZygoteTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_zygote.moc"
