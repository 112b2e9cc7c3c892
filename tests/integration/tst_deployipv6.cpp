// Deployment over SSH to hosts that have only IPv6 addresses (issue 50): three network
// namespaces on a bridge with fd00:: addresses and an sshd each (netns_hosts.sh ... ipv6), the
// topology naming them bare ("fd00:213:X::10"). The agents are deployed and reached at bracketed
// endpoints, every role listens and connects over IPv6, and the run trains to the accuracy the
// same training reaches on this machine's loopback. Needs root, `ip netns` and sshd.
#include "DeployHarness.h"
#include "FreePorts.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>
#include <unistd.h>

using namespace hips::test;

class DeployIpv6Test : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_tag = QUuid::createUuid().toString(QUuid::Id128).left(4);
    QStringList m_addresses;
    bool m_up = false;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        if (geteuid() != 0) QSKIP("needs root to make network namespaces (CI runs as root)");
        if (!QFile::exists("/usr/sbin/sshd")) QSKIP("needs /usr/sbin/sshd (openssh-server; scripts/setup.sh installs it)");
        const Result up = run(kHarness, {"up", path("hosts"), m_tag, "3", "ipv6"}, 60000);
        if (up.status != 0) QSKIP(qPrintable("cannot make IPv6 test hosts (ip netns): " + QString::fromUtf8(up.out)));
        m_up = true;
        m_addresses = QString::fromUtf8(readFile(path("hosts/hosts"))).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(m_addresses.size(), 3);
        QVERIFY(m_addresses[0].startsWith("fd00:"));
    }

    void cleanupTestCase() {
        if (m_up) run(kHarness, {"down", path("hosts"), m_tag, "3"}, 60000);
    }

    void aRunOnIpv6HostsDeploysAndTrains() {
        QJsonArray hosts;
        for (int i = 0; i < 3; ++i)
            hosts.append(QJsonObject{{"id", QString("host%1").arg(QChar('A' + i))},
                                     {"address", m_addresses[i]},
                                     {"user", "root"},
                                     {"identity_file", path("hosts/client_key")},
                                     {"install_dir", path(QString("install_%1").arg(i))}});
        QFile small(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY(small.open(QIODevice::ReadOnly));
        const QJsonObject training = QJsonDocument::fromJson(small.readAll()).object()["training"].toObject();
        const QJsonObject t{{"format", "hips-topology"},
                            {"version", 1},
                            {"name", "ipv6"},
                            {"hosts", hosts},
                            {"training", training},
                            {"parties", QJsonDocument::fromJson(kThreeParties).array()}};
        QFile f(path("ipv6.json"));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(t).toJson()) > 0);
        f.close();

        const Result remote = run(kHips, {"run", f.fileName(), "--history", path("h.sqlite"), "--out", path("run"), "--known-hosts",
                                          path("known_hosts"), "--accept-new-host-keys", "--ssh-timeout", "5"});
        QVERIFY2(remote.status == 0, remote.out.constData());
        QVERIFY(remote.out.contains("deploy hostC"));
        // The known_hosts entry is the bracketed IPv6 form ssh itself writes for it.
        QVERIFY2(readFile(path("known_hosts")).contains(m_addresses[1].toUtf8()), readFile(path("known_hosts")).constData());

        const QRegularExpression final("final test accuracy (\\d\\.\\d{4})");
        FreePorts ports;
        const QString local = ports.movedCopy(HIPS_SOURCE_DIR "/tests/data/topologies/small.json", m_dir.path());
        const Result here = run(kHips, {"run", local, "--history", path("local.sqlite"), "--out", path("local")});
        QVERIFY2(here.status == 0, here.out.constData());
        const double remoteAccuracy = final.match(QString(remote.out)).captured(1).toDouble();
        const double localAccuracy = final.match(QString(here.out)).captured(1).toDouble();
        QVERIFY2(remoteAccuracy > 0 && std::abs(remoteAccuracy - localAccuracy) < 0.05,
                 qPrintable(QString("IPv6 hosts %1, loopback %2").arg(remoteAccuracy).arg(localAccuracy)));
        // Each host kept its roles' logs in its run folder, and they came back into logs/<host>/,
        // the same lines the controller wrote as they streamed in.
        const QByteArray onHost = readFile(path("install_1/runs/run/logs/party1-worker0.log"));
        QVERIFY2(onHost.contains("round 1"), onHost.constData());
        QCOMPARE(readFile(path("run/logs/hostB/party1-worker0.log")), onHost);
        QCOMPARE(readFile(path("run/logs/party1-worker0.log")), onHost);
        QVERIFY(QFile::exists(path("run/logs/hostA/central-global_server0.log")));
        QVERIFY(!QFile::exists(path("run/logs/hostA/party1-worker0.log")));
        // A run on this machine alone keeps one copy, in logs/ itself.
        QVERIFY(QDir(path("local/logs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty());
        // Nothing of the run is left on the hosts.
        QTRY_COMPARE_WITH_TIMEOUT(processesWith(m_dir.path().toUtf8(), "hips-"), 0, 15000);
    }
};

QTEST_GUILESS_MAIN(DeployIpv6Test)
#include "tst_deployipv6.moc"
