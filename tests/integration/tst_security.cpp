// Attacks on a real local run, by a local process without the run's keys, as seen when the
// project was tried as an attacker (issue 9): posing as a worker to poison the model, pulling
// the model, taking over the agent, flooding with handshakes and oversized frames. Each must
// fail to do harm: the run completes with its normal accuracy, no attacker gets a byte back,
// nothing is written where the attacker chose, the servers' memory stays bounded, and the
// history does not fill with one row per rejected message. Another local user (nobody) can read
// none of the run's files and gets no answer from its sockets.
#include "RunHarness.h"

#include "CurveSecurity.h"
#include "WireCodec.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <sys/stat.h>
#include <thread>

using namespace hips;
using namespace hips::test;
using namespace std::chrono_literals;

namespace {

struct Attackers {
    std::atomic<bool> stop{false};
    std::atomic<int> replies{0};  // messages that came back to an attacker: must stay 0
    std::atomic<int> attempts{0};
    std::vector<std::thread> threads;

    ~Attackers() { join(); }
    void join() {
        stop = true;
        for (std::thread& t : threads)
            if (t.joinable()) t.join();
    }
};

std::vector<zmq::message_t> encoded(Message m) {
    std::vector<zmq::message_t> parts;
    WireCodec::encode(std::move(m), parts);
    return parts;
}

void sendAll(zmq::socket_t& s, std::vector<zmq::message_t> parts) {
    for (size_t i = 0; i < parts.size(); ++i)
        (void)s.send(parts[i], i + 1 < parts.size() ? zmq::send_flags::sndmore | zmq::send_flags::dontwait : zmq::send_flags::dontwait);
}

// Connects to `port` as `routingId` (plain, or CURVE with a key of its own and, where known,
// the server's real public key), says what a worker says — register, pull, a push of NaN —
// listens a moment for anything back, and disconnects; again and again until stopped.
void impersonate(Attackers& a, int port, const QByteArray& routingId, const QByteArray& serverKey, size_t floats) {
    zmq::context_t ctx(1);
    while (!a.stop) {
        zmq::socket_t s(ctx, zmq::socket_type::dealer);
        s.set(zmq::sockopt::linger, 0);
        s.set(zmq::sockopt::routing_id, routingId.toStdString());
        if (!serverKey.isEmpty()) {
            const CurveKeyPair mine = CurveKeyPair::generate();
            s.set(zmq::sockopt::curve_serverkey, serverKey.toStdString());
            s.set(zmq::sockopt::curve_publickey, mine.publicKey.toStdString());
            s.set(zmq::sockopt::curve_secretkey, mine.secretKey.toStdString());
        }
        s.connect("tcp://127.0.0.1:" + std::to_string(port));
        sendAll(s, encoded(Message("register", {{"role", "worker"}, {"endpoint", ""}})));
        sendAll(s, encoded(Message("pull", {{"version", 0}})));
        Message push("push", {{"round", 1}, {"pull", true}});
        std::vector<float> nan(floats, std::nanf(""));
        push.frames.emplace_back(nan.data(), nan.size() * sizeof(float));
        sendAll(s, encoded(std::move(push)));
        ++a.attempts;
        zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, 150ms) > 0) ++a.replies;
    }
}

// A frame far larger than any model: the server must drop it unread, not hold it.
void oversized(Attackers& a, int port) {
    zmq::context_t ctx(1);
    zmq::socket_t s(ctx, zmq::socket_type::dealer);
    s.set(zmq::sockopt::linger, 0);
    s.connect("tcp://127.0.0.1:" + std::to_string(port));
    std::vector<char> big(size_t(256) << 20, 'x');
    (void)s.send(zmq::buffer(big), zmq::send_flags::dontwait);
    ++a.attempts;
    while (!a.stop) std::this_thread::sleep_for(50ms);
}

// transport_security sealed: the plain bulk socket beside a server's CURVE one (SealedPlane.h),
// which anyone may reach, and which takes only members' logins: every other connection, without
// a login or with a guessed one, is refused at the handshake. Says a hello in a member's name
// without its key, sends frames on a connection no hello vouched for, one cut short, and garbage;
// listens for anything back.
void floodBulk(Attackers& a, int port) {
    zmq::context_t ctx(1);
    const auto bulkHeader = [](char kind, quint64 size) {
        QByteArray h(20, '\0');
        h[0] = kind;
        for (int i = 0; i < 8; ++i) h[12 + i] = char(size >> (56 - 8 * i));
        return h;
    };
    const QByteArray name = "party1/server0";
    for (bool guess = false; !a.stop; guess = !guess) {
        zmq::socket_t s(ctx, zmq::socket_type::dealer);
        s.set(zmq::sockopt::linger, 0);
        if (guess) {  // a login guessed in a member's name (without one: no handshake at all)
            s.set(zmq::sockopt::plain_username, name.toStdString());
            s.set(zmq::sockopt::plain_password, std::string(64, 'a'));
        }
        s.connect("tcp://127.0.0.1:" + std::to_string(port));
        const auto sendParts = [&](const QByteArray& header, const QByteArray& payload) {
            (void)s.send(zmq::buffer(header.constData(), size_t(header.size())), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
            (void)s.send(zmq::buffer(payload.constData(), size_t(payload.size())), zmq::send_flags::dontwait);
        };
        sendParts(bulkHeader('h', quint64(name.size())), name + QByteArray(16, 'k'));  // a hello without the key
        sendParts(bulkHeader('f', 1 << 20), QByteArray((1 << 20) + 16, 'f'));  // a frame nobody vouched for
        sendParts(bulkHeader('f', 1 << 20), QByteArray(1000, 'c'));  // one cut short
        (void)s.send(zmq::str_buffer("garbage"), zmq::send_flags::dontwait);
        ++a.attempts;
        zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, 150ms) > 0) ++a.replies;
    }
}

// The largest of a node's traffic records' `field` (its counters only grow).
qint64 largestTrafficField(const QString& runDir, const QString& node, const char* field) {
    qint64 most = -1;
    QFile f(QDir(runDir).filePath("metrics.jsonl"));
    if (!f.open(QIODevice::ReadOnly)) return most;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"] == "traffic" && r["node"] == node) most = std::max(most, qint64(r[field].toDouble(-1)));
    }
    return most;
}

// Takes the agent's place: hello as "controller", then a start that would write where the
// attacker chose, then stop_all.
void takeOverAgent(Attackers& a, int port, const QString& evilDir) {
    zmq::context_t ctx(1);
    while (!a.stop) {
        zmq::socket_t s(ctx, zmq::socket_type::dealer);
        s.set(zmq::sockopt::linger, 0);
        s.set(zmq::sockopt::routing_id, "controller");
        s.connect("tcp://127.0.0.1:" + std::to_string(port));
        sendAll(s, encoded(Message("hello", {{"version", 1}})));
        sendAll(s, encoded(Message("start", {{"node", "party1/worker0"}, {"out_dir", evilDir}, {"topology", "{}"}})));
        sendAll(s, encoded(Message("stop_all")));
        ++a.attempts;
        zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, 200ms) > 0) ++a.replies;
    }
}

// Ports on which process `pid` listens (from its socket inodes and /proc/net/tcp).
QList<int> listeningPorts(qint64 pid) {
    QSet<QByteArray> inodes;
    const QDir fds(QStringLiteral("/proc/%1/fd").arg(pid));
    for (const QString& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::System | QDir::Files | QDir::Dirs)) {
        const QString target = QFile::symLinkTarget(fds.filePath(fd));
        if (target.startsWith("socket:[") || target.contains("/socket:[")) inodes << target.section('[', 1).chopped(1).toLatin1();
    }
    QList<int> ports;
    QFile tcp("/proc/net/tcp");
    if (!tcp.open(QIODevice::ReadOnly)) return ports;
    for (const QByteArray& line : tcp.readAll().split('\n')) {
        const QList<QByteArray> f = line.simplified().split(' ');
        if (f.size() > 9 && f[3] == "0A" && inodes.contains(f[9])) ports << f[1].split(':').value(1).toInt(nullptr, 16);
    }
    return ports;
}

qint64 peakMemoryKb(qint64 pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly)) return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

int mode(const QString& path) {
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
}

// Attacker mode, run as another local user (nobody) by the test: try to read the run's private
// files, then attack the agent and the servers for a few seconds. Prints "read FILE" for each
// file it could open and "replies N" for what answered it.
int attackAsAnotherUser(const QByteArray& spec) {
    const QList<QByteArray> words = spec.split(';');
    for (const QByteArray& file : words.mid(1)) {
        QFile f(QString::fromLocal8Bit(file));
        if (f.open(QIODevice::ReadOnly)) std::printf("read %s\n", file.constData());
    }
    Attackers a;
    for (const QByteArray& port : qgetenv("HIPS_SECURITY_PORTS").split(','))  // the run's schedulers and servers
        a.threads.emplace_back(impersonate, std::ref(a), port.toInt(), QByteArray("party1/worker0"), QByteArray(), size_t(1024));
    a.threads.emplace_back(takeOverAgent, std::ref(a), words.value(0).toInt(), QStringLiteral("/tmp/chosen-by-nobody"));
    std::this_thread::sleep_for(3s);  // the attack's duration, not a timing assertion
    a.join();
    std::printf("attempts %d replies %d\n", a.attempts.load(), a.replies.load());
    return 0;
}

}  // namespace

class SecurityTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // With CURVE sealing everything, and with sealed links (CURVE for identities and headers,
    // payloads sealed beside it on plain sockets that strangers can reach too).
    void strangersCannotJoinSteerOrCrashARun_data() {
        QTest::addColumn<QString>("security");
        QTest::newRow("curve") << "curve";
        QTest::newRow("sealed") << "sealed";
    }

    void strangersCannotJoinSteerOrCrashARun() {
        QFETCH(QString, security);
        const mode_t oldMask = ::umask(022);  // a permissive umask: the run must still be private
        Run run;
        // The run's parent is open to every user: only the run's own modes keep others out.
        QVERIFY(QFile::setPermissions(run.dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther |
                                                          QFile::ExeOther | QFile::ReadGroup | QFile::ExeGroup));
        const QString outDir = run.dir.filePath("run");
        // (Sealed: long enough a run that the strangers find the bulk ports while it goes on.)
        const QString rounds = security == "sealed" ? "40" : "16";  // (going on past row 4: rows trail the training)
        run.start({"run", kSmall, "--out", outDir, "--rounds", rounds, "--transport-security", security});
        ::umask(oldMask);

        Attackers attackers;
        const size_t mlpFloats = 203530;
        // Before the roles even start: the ports of the topology (small.json's, moved).
        for (int port : {19100, 19200, 19201, 19101})
            attackers.threads.emplace_back(impersonate, std::ref(attackers), run.ports.of(port), QByteArray("party1/worker0"), QByteArray(),
                                           mlpFloats);
        attackers.threads.emplace_back(oversized, std::ref(attackers), run.ports.of(19101));

        // Once the agent is up: take it over; once the run's keys are on disk, handshake with
        // the servers' real public keys (the worst case: a stranger who learned them).
        QList<qint64> agents;
        for (int i = 0; i < 300 && agents.isEmpty(); ++i, QTest::qWait(100)) agents = taggedProcesses(run.tag, "hips-agent daemon");
        QVERIFY2(!agents.isEmpty(), "the local agent did not start");
        QList<int> agentPorts;
        for (int i = 0; i < 100 && agentPorts.isEmpty(); ++i, QTest::qWait(100)) agentPorts = listeningPorts(agents.first());
        QVERIFY(!agentPorts.isEmpty());
        const QString evilDir = run.dir.filePath("chosen-by-attacker");
        attackers.threads.emplace_back(takeOverAgent, std::ref(attackers), agentPorts.first(), evilDir);

        QFile keysFile(QDir(outDir).filePath("peer-keys.txt"));
        for (int i = 0; i < 300 && !keysFile.exists(); ++i) QTest::qWait(100);
        QVERIFY(keysFile.open(QIODevice::ReadOnly));
        const PeerKeys keys = PeerKeys::fromText(keysFile.readAll());
        QVERIFY(!keys.keyOf("central/global_server0").isEmpty());
        attackers.threads.emplace_back(impersonate, std::ref(attackers), run.ports.of(19101), QByteArray("party1/server0"),
                                       keys.keyOf("central/global_server0"), mlpFloats);
        attackers.threads.emplace_back(impersonate, std::ref(attackers), run.ports.of(19201), QByteArray("party1/worker0"),
                                       keys.keyOf("party1/server0"), mlpFloats);

        // Another local user (nobody), while the run goes on: it reads nothing and gets no answer.
        QProcess otherUser;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const QStringList privateFiles = {run.history(), QDir(outDir).filePath("peer-keys.txt"), QDir(outDir).filePath("topology.json")};
        env.insert("HIPS_SECURITY_ATTACK", QString::number(agentPorts.first()) + ';' + privateFiles.join(';'));
        env.insert("HIPS_SECURITY_PORTS", QStringLiteral("%1,%2,%3,%4")
                                              .arg(run.ports.of(19100))
                                              .arg(run.ports.of(19101))
                                              .arg(run.ports.of(19200))
                                              .arg(run.ports.of(19201)));
        otherUser.setProcessEnvironment(env);
        otherUser.setProcessChannelMode(QProcess::MergedChannels);
        otherUser.start("setpriv", {"--reuid=65534", "--regid=65534", "--clear-groups", QCoreApplication::applicationFilePath()});

        const QList<int> topologyPorts{run.ports.of(19100), run.ports.of(19101), run.ports.of(19200), run.ports.of(19201)};
        if (security == "sealed") {  // the servers' bulk sockets: the ports they listen on beyond the topology's
            QList<int> bulkPorts;
            for (int i = 0; i < 300 && bulkPorts.size() < 2; ++i, QTest::qWait(100)) {
                bulkPorts.clear();
                for (const char* server : {"central/global_server0", "party1/server0"})
                    for (qint64 pid : taggedProcesses(run.tag, server))
                        for (int port : listeningPorts(pid))
                            if (!topologyPorts.contains(port)) bulkPorts << port;
            }
            QVERIFY2(bulkPorts.size() >= 2, "the servers opened no bulk sockets");
            for (int port : bulkPorts) attackers.threads.emplace_back(floodBulk, std::ref(attackers), port);
        }

        QVERIFY2(run.waitForOutput("\n    4 ", 120000), run.out.constData());
        const QList<qint64> globalServer = taggedProcesses(run.tag, "central/global_server0");
        QCOMPARE(globalServer.size(), 1);
        const qint64 serverPeakKb = peakMemoryKb(globalServer.first());

        // (It may have ended while the waits above ran the event loop: waitForFinished is then false.)
        QVERIFY(otherUser.state() == QProcess::NotRunning || otherUser.waitForFinished(60000));
        QCOMPARE(otherUser.exitStatus(), QProcess::NormalExit);
        const QByteArray nobodySaw = otherUser.readAll();
        QVERIFY2(otherUser.exitCode() == 0 && nobodySaw.contains("replies 0") && !nobodySaw.contains("read "), nobodySaw.constData());
        QVERIFY2(!nobodySaw.contains("attempts 0 "), nobodySaw.constData());

        const int code = run.finish(180000);
        attackers.join();
        QVERIFY2(code == 0, run.err.constData());
        QVERIFY2(run.out.contains("finished after " + rounds.toLatin1() + " rounds"), run.out.constData());
        QVERIFY(attackers.attempts > 20);
        QCOMPARE(attackers.replies.load(), 0);  // no table, no model, no hello_ok
        QVERIFY2(!QFileInfo::exists(evilDir), "the agent obeyed a stranger's start");

        QFile meta(QDir(outDir).filePath("net.meta"));
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const double accuracy = QJsonDocument::fromJson(meta.readAll()).object().value("test_acc").toDouble();
        QVERIFY2(accuracy > 0.5, qPrintable(QString("accuracy %1: the model was poisoned").arg(accuracy)));
        QVERIFY2(serverPeakKb > 0 && serverPeakKb < 200 * 1024,
                 qPrintable(QString("the global server peaked at %1 MB").arg(serverPeakKb / 1024)));
        if (security == "sealed")  // the payloads went sealed (the strangers on the bulk ports: below)
            QVERIFY(largestTrafficField(outDir, "central/global_server0", "sealed_frames") > 0);

        // The refusals were seen and logged, but a few lines, not one per attempt.
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "security");
        db.setDatabaseName(run.history());
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY(
            q.exec("SELECT count(*), sum(message LIKE '%refused a CURVE connection%'), "
                   "sum(message LIKE '%refused a PLAIN connection to a bulk port%') FROM events WHERE level = 'warning'"));
        QVERIFY(q.next());
        const int warnings = q.value(0).toInt(), refusals = q.value(1).toInt();
        QVERIFY2(refusals >= 1, "the CURVE refusals were not logged");
        // Sealed: a stranger on a bulk port has no login, and is refused at the handshake, before
        // anything it sends is read (it could send one endless multipart message).
        if (security == "sealed") QVERIFY2(q.value(2).toInt() >= 1, "the bulk ports' refusals were not logged");
        QVERIFY2(warnings < 100, qPrintable(QString("%1 warning rows for %2 attempts").arg(warnings).arg(attackers.attempts.load())));
        q.finish();
        db.close();

        // Private whatever the umask.
        QCOMPARE(mode(run.history()), 0600);
        QCOMPARE(mode(outDir), 0700);
        QCOMPARE(mode(QDir(outDir).filePath("net.params")), 0600);
        QVERIFY(run.leftovers().isEmpty());
    }
};

int main(int argc, char** argv) {
    if (const QByteArray spec = qgetenv("HIPS_SECURITY_ATTACK"); !spec.isEmpty()) return attackAsAnotherUser(spec);
    QCoreApplication app(argc, argv);
    SecurityTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_security.moc"
