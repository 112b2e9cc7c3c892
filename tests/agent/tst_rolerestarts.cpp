// The agent's restarts under fault_policy continue (RoleRestarts): backoff doubling from 1 s,
// max_restarts in a row, and a role that ran a minute before it crashed counted from the first
// again. The clock is the test's own: nothing waits.
#include "FaultPolicy.h"
#include "RoleError.h"
#include "RoleRestarts.h"

#include <QtTest>
#include <csignal>

using namespace hips;

class RoleRestartsTest : public QObject {
    Q_OBJECT
    qint64 m_now = 1000;

    RoleRestarts restarts(int maxRestarts) {
        RoleRestarts r([this] { return m_now; });
        RoleLaunch launch;
        launch.node = QStringLiteral("party1/worker0");
        launch.topologyPath = QStringLiteral("/runs/r/topology.json");
        launch.peerKeysPath = QStringLiteral("/runs/r/peer-keys.txt");
        launch.topologySha256 = "t0";
        launch.peerKeysSha256 = "k0";
        r.remember(launch, maxRestarts);
        return r;
    }
    // The role crashes `ranMs` after its last start; its restart's delay, or -1 for none.
    int crashAfter(RoleRestarts& r, qint64 ranMs, int* attempt = nullptr) {
        m_now += ranMs;
        int a = 0, max = 0;
        const std::optional<int> delay = r.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{9, true, {}}, &a, &max);
        if (attempt) *attempt = a;
        if (!delay) return -1;
        m_now += *delay;
        if (!r.takeDue(QStringLiteral("party1/worker0"))) return -2;
        return *delay;
    }

private Q_SLOTS:
    void crashesInARowBackOffAndRunOut() {
        RoleRestarts r = restarts(3);
        QCOMPARE(crashAfter(r, 500), 1000);
        QCOMPARE(crashAfter(r, 500), 2000);
        QCOMPARE(crashAfter(r, 500), 4000);
        QCOMPARE(crashAfter(r, 500), -1);  // three in a row: no fourth
    }

    // A soak's finding: killed now and then over an hour, a role waited 16 s, then 30 s, for its
    // restart, and would have run out of them; each crash after a minute's run is a first again.
    void aRoleThatRanAMinuteStartsItsCountOver() {
        RoleRestarts r = restarts(3);
        int attempt = 0;
        for (int i = 0; i < 10; ++i) {
            QCOMPARE(crashAfter(r, kSteadyRunMs, &attempt), 1000);
            QCOMPARE(attempt, 1);
        }
        QCOMPARE(crashAfter(r, kSteadyRunMs - 1, &attempt), 2000);  // (a minute from its start, not its crash)
        QCOMPARE(attempt, 2);
    }

    // A role moved here from a lost host: the agent wrote the run's topology anew, and a role of
    // this host restarted later checks the file by its new digest (with the old one it would
    // refuse the file as changed by someone, and fail each restart).
    void aRestartChecksTheTopologyAsTheAgentLastWroteIt() {
        RoleRestarts r = restarts(3);
        r.fileRewritten(QStringLiteral("/runs/r/topology.json"), "t1");
        r.fileRewritten(QStringLiteral("/runs/other/topology.json"), "t2");  // another run's
        int a = 0, max = 0;
        QVERIFY(r.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{9, true, {}}, &a, &max));
        const std::optional<RoleLaunch> launch = r.takeDue(QStringLiteral("party1/worker0"));
        QVERIFY(launch);
        QCOMPARE(launch->topologySha256, QByteArray("t1"));
        QCOMPARE(launch->peerKeysSha256, QByteArray("k0"));
    }

    void aCleanExitOrASupersededProcessIsNotRestarted() {
        RoleRestarts r = restarts(3);
        int a = 0, max = 0;
        QVERIFY(!r.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{0, false, {}}, &a, &max));
        QVERIFY(!r.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{kRoleSuperseded, false, {}}, &a, &max));
        QVERIFY(!r.planRestart(QStringLiteral("central/state_service"), RoleExitInfo{9, true, {}}, &a, &max));  // never started here
    }

    // A node the controller stops is not started again: its SIGKILL after the grace period reads
    // as a crash, and a restart pending at the stop would have started it after it (until
    // 2026-12-02 only a stop of the whole run cancelled restarts). A new start counts again.
    void aStoppedRoleIsNotRestartedUntilStartedAgain() {
        RoleRestarts r = restarts(3);
        int a = 0, max = 0;
        QVERIFY(r.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{9, true, {}}, &a, &max));
        QVERIFY(r.cancel(QStringLiteral("party1/worker0")));  // its pending restart
        QVERIFY(!r.takeDue(QStringLiteral("party1/worker0")));
        QVERIFY(!r.cancel(QStringLiteral("party1/worker0")));
        QCOMPARE(r.pendingCount(), 0);

        RoleRestarts running = restarts(3);
        QVERIFY(!running.cancel(QStringLiteral("party1/worker0")));  // nothing pending: stopped as it ran
        QVERIFY(!running.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{SIGKILL, true, {}}, &a, &max));
        QVERIFY(!running.cancel(QStringLiteral("central/state_service")));  // never started here

        RoleLaunch again;
        again.node = QStringLiteral("party1/worker0");
        running.remember(again, 3);
        QVERIFY(running.planRestart(QStringLiteral("party1/worker0"), RoleExitInfo{9, true, {}}, &a, &max));
    }
};

QTEST_GUILESS_MAIN(RoleRestartsTest)
#include "tst_rolerestarts.moc"
