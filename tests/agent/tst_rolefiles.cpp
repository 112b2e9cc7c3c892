// A role runs the topology and keys it was sent (issue 44): the agent gives it the SHA-256 of the
// files it wrote from its start command (HIPS_TOPOLOGY_SHA256, HIPS_PEER_KEYS_SHA256), and a role
// whose file was changed since (a topology swapped to learning rate 50 right after the agent
// wrote it) refuses it, naming the file, before it reads a setting of it.
#include "CurveSecurity.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QByteArray sha256(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

struct Outcome {
    int code = -1;
    QByteArray err;
};

// `hips-agent role` for the party server of the default topology, with the files in `dir`.
// `nodeKey` on its stdin, as the agent hands it over (none: it stops at the missing key).
Outcome runRole(const QString& dir, const QByteArray& topologySha, const QByteArray& keysSha, const QByteArray& nodeKey = {}) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HIPS_TOPOLOGY_SHA256", QString::fromLatin1(topologySha));
    env.insert("HIPS_PEER_KEYS_SHA256", QString::fromLatin1(keysSha));
    env.insert("HIPS_PEER_KEYS_FILE", dir + "/peer-keys.txt");
    env.insert("HIPS_NODE_KEY_STDIN", "1");
    p.setProcessEnvironment(env);
    p.start(HIPS_BIN_DIR "/hips-agent", {"role", "--topology", dir + "/topology.json", "--node", "party1/server0", "--out", dir});
    p.write(nodeKey + '\n');
    p.closeWriteChannel();
    if (!p.waitForFinished(30000)) p.kill(), p.waitForFinished();
    return {p.exitCode(), p.readAllStandardError()};
}

}  // namespace

class RoleFilesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aRoleRefusesFilesChangedSinceTheAgentWroteThem() {
        QTemporaryDir dir;
        QFile source(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray sent = source.readAll(), keys = "party1/server0 abc\n";
        QByteArray swapped = sent;
        swapped.replace("\"learning_rate\": 0.05", "\"learning_rate\": 50");
        QVERIFY(swapped != sent);
        const auto write = [&](const char* name, const QByteArray& bytes) {
            QFile f(dir.filePath(name));
            return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
        };
        QVERIFY(write("topology.json", swapped) && write("peer-keys.txt", keys));

        Outcome o = runRole(dir.path(), sha256(sent), sha256(keys));
        QVERIFY2(o.code != 0 && o.err.contains("topology.json is not the file the agent wrote for this run"), o.err.constData());

        QVERIFY(write("topology.json", sent));  // as sent: it gets past the topology to its keys
        o = runRole(dir.path(), sha256(sent), sha256(keys));  // (no node key: it stops there)
        QVERIFY2(o.code != 0 && o.err.contains("no node key") && !o.err.contains("not the file"), o.err.constData());
        const QByteArray own = hips::CurveKeyPair::generate().toText();
        o = runRole(dir.path(), sha256(sent), sha256("party1/server0 other\n"), own);
        QVERIFY2(o.code != 0 && o.err.contains("peer-keys.txt is not the file the agent wrote"), o.err.constData());
        o = runRole(dir.path(), sha256(sent), sha256(keys), own);  // both as sent: on to the keys' contents
        QVERIFY2(o.code != 0 && o.err.contains("have none for") && !o.err.contains("not the file"), o.err.constData());
    }
};

QTEST_GUILESS_MAIN(RoleFilesTest)
#include "tst_rolefiles.moc"
