// hips simulate's clock and devices (backend/ps/sim): what a message costs on a link, whose cores a
// worker shares, availability traces read, merged and refused, the per-round draw of an
// availability probability, reproducible and at its rate, a round's deadline, and membership
// said in the schedulers' order.
#include "AggregatorRegistry.h"
#include "RoleError.h"
#include "AvailabilityTrace.h"
#include "SimAvailability.h"
#include "SimMembership.h"
#include "SimNetwork.h"
#include "SimRounds.h"
#include "TopologyReader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <thread>

using namespace hips;
using namespace hips::sim;

namespace {

// The default topology with party1's workers as `workers` behind an 8 Mbit/s, 50 ms WAN.
Topology topologyWith(const QJsonArray& workers) {
    QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    f.open(QIODevice::ReadOnly);
    QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    QJsonObject party1 = parties[1].toObject(), roles = party1["roles"].toObject();
    roles["workers"] = workers;
    party1["roles"] = roles;
    party1["wan"] = QJsonObject{{"bandwidth_mbps", 8}, {"latency_ms", 50}};
    parties[1] = party1;
    t["parties"] = parties;
    const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
    if (!load.ok()) qFatal("%s", qPrintable(load.errorText()));
    return *load.topology;
}

QString write(const QTemporaryDir& dir, const QByteArray& text) {
    QFile f(dir.filePath(QStringLiteral("trace%1.txt").arg(qHash(text))));
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return f.fileName();
}

}  // namespace

class SimClockTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // round_timeout_s counts from the round's first push, as deployed: a contributor declared down
    // before any push came does not start it. (It did: this round closed at 2 s, before the first
    // push, with b's counted late.)
    void aRoundsDeadlineStartsAtItsFirstPush() {
        RoundCollector c("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        c.tolerateLatePushes();
        const auto values = [] { return std::make_shared<std::vector<float>>(std::vector<float>{1.0f, 2.0f}); };
        std::vector<Arrival> arrivals{{"c", {}, 1, 0.0, true}, {"a", values(), 1, 5.0, false}, {"b", values(), 1, 5.5, false}};
        const Outcome o = collect(c, arrivals, 1, 2, Deadline{2, 1}, 3);
        QVERIFY(o.complete);
        QCOMPARE(o.at, 5.5);  // a and b within 2 s of a's push: the round closes with both
        QCOMPARE(o.late, quint64(0));
        // Past the deadline counted from the first push: closed then, b late.
        RoundCollector d("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        d.tolerateLatePushes();
        std::vector<Arrival> later{{"c", {}, 1, 0.0, true}, {"a", values(), 1, 5.0, false}, {"b", values(), 1, 7.5, false}};
        const Outcome p = collect(d, later, 1, 2, Deadline{2, 1}, 3);
        QVERIFY(p.complete);
        QCOMPARE(p.at, 7.0);
        QCOMPARE(p.late, quint64(1));
    }

    // Past the deadline, the push that makes the minimum closes the round when it comes: three of
    // four by 10 s, pushes at 0, 2, 15 and 20 s: closed at 15 s with three, the fourth late. (The
    // clock said 10 s: before the third push it had counted.)
    void aDeadlinesMinimumMetLateClosesWhenItIsMet() {
        RoundCollector c("p/server0", {"a", "b", "c", "d"}, AggregatorRegistry::create("fedavg"));
        c.tolerateLatePushes();
        const auto values = [] { return std::make_shared<std::vector<float>>(std::vector<float>{1.0f, 2.0f}); };
        std::vector<Arrival> arrivals{{"a", values(), 1, 0.0, false},
                                      {"b", values(), 1, 2.0, false},
                                      {"c", values(), 1, 15.0, false},
                                      {"d", values(), 1, 20.0, false}};
        const Outcome o = collect(c, arrivals, 1, 2, Deadline{10, 3}, 4);
        QVERIFY(o.complete);
        QCOMPARE(o.at, 15.0);
        QCOMPARE(o.late, quint64(1));
    }

    // min_workers as a fraction counts the contributors drawn for the round, as deployed: half of
    // a party of four that draws two is one, and the deadline closes the round with a's push.
    // (Of the four it was two, which only both drawn could make: the round waited for b.)
    void aDeadlinesFractionCountsTheDrawn() {
        RoundCollector c("p/server0", {"a", "b", "c", "d"}, AggregatorRegistry::create("fedavg"));
        c.tolerateLatePushes();
        c.setRoundContributors([](qint64) { return QSet<QString>{"a", "b"}; });
        const auto values = [] { return std::make_shared<std::vector<float>>(std::vector<float>{1.0f, 2.0f}); };
        std::vector<Arrival> arrivals{{"a", values(), 1, 1.0, false}, {"b", values(), 1, 9.0, false}};
        const Outcome o = collect(c, arrivals, 1, 2, Deadline{2, 0.5}, 2);
        QVERIFY(o.complete);
        QCOMPARE(o.at, 3.0);
        QCOMPARE(o.late, quint64(1));
    }

    void aMessageCostsItsLatencyAndItsBytesOverTheBandwidth() {
        const Topology t = topologyWith(QJsonArray{QJsonObject{{"count", 2}}});
        const LinkCost wan = acrossLink(*t.party("party1"));
        QCOMPARE(wan.seconds(1000000), 0.05 + 1.0);  // 8 Mbit/s: 1 MB a second
        QCOMPARE(acrossLink(*t.party("party2")).seconds(1250000), kLan.seconds(1250000));  // no wan: a LAN
        QCOMPARE(kLan.seconds(1250000), 1e-4 + 1e-3);
        // Flat: the party's workers share its link, each with its share.
        const Node worker = *t.node("party1/worker0");
        QCOMPARE(workerLink(t, worker, true).seconds(1000000), 0.05 + 2.0);
        QCOMPARE(workerLink(t, worker, false).seconds(1000000), kLan.seconds(1000000));
        QCOMPARE(wireBytes(10), quint64(40 + 96));
        QCOMPARE(wireBytes(256 * 1024 + 1), quint64((256 * 1024 + 1) * 4 + 2 * 96));
    }

    void workersShareTheCoresOfThisMachineOnly() {
        Topology t = topologyWith(QJsonArray{QJsonObject{{"count", 2}}});
        QCOMPARE(hostCores(t, "local"), int(std::max(1u, std::thread::hardware_concurrency())));
        t.hosts[0].address = QStringLiteral("10.1.2.3");  // another machine: its cores are not known here
        QCOMPARE(hostCores(t, "local"), 0);
        QCOMPARE(hostCores(t, "nowhere"), 0);
    }

    void aTraceIsReadMergedAndItsIntervalsFound() {
        QTemporaryDir dir;
        const QString path = write(dir, "# start end\n0 10\n5, 20   # overlaps\n\n30 40\n");
        const std::vector<std::pair<double, double>> read = readAvailabilityTrace(path);
        QCOMPARE(read.size(), size_t(2));
        QCOMPARE(read[0], std::make_pair(0.0, 20.0));
        QCOMPARE(read[1], std::make_pair(30.0, 40.0));
        const Topology t = topologyWith(QJsonArray{QJsonObject{{"count", 2}, {"availability", path}}});
        const Availability a(t);
        const Node w = *t.node("party1/worker1"), other = *t.node("party2/worker0");
        QVERIFY(a.available(w, 1, 1, 0) && a.available(w, 1, 1, 19.9) && a.available(w, 1, 9, 35));
        QVERIFY(!a.available(w, 1, 1, 20) && !a.available(w, 1, 1, 25) && !a.available(w, 1, 1, 40));
        QCOMPARE(a.offAfter(w, 5), 20.0);
        QCOMPARE(a.offAfter(w, 25), 25.0);  // off already: a model that reaches it then finds it off
        QCOMPARE(a.offAfter(other, 5), std::numeric_limits<double>::infinity());
        QCOMPARE(a.nextOn(w, 5), 30.0);
        QCOMPARE(a.nextOn(w, 25), 30.0);
        QCOMPARE(a.nextOn(w, 35), std::numeric_limits<double>::infinity());  // its trace ends at 40
        QCOMPARE(a.nextOn(other, 5), std::numeric_limits<double>::infinity());
        QVERIFY(a.available(other, 2, 1, 25));  // no availability: always
    }

    void aBrokenTraceIsRefusedNamingTheLine_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("words") << QByteArray("0 10\nsoon later\n") << "line 2 is not \"START END\"";
        QTest::newRow("backwards") << QByteArray("5 3\n") << "line 1 is not \"START END\"";
        QTest::newRow("negative") << QByteArray("-1 3\n") << "line 1";
        QTest::newRow("three fields") << QByteArray("1 2 3\n") << "line 1";
        QTest::newRow("empty") << QByteArray("# nothing\n") << "holds no interval";
        QTest::newRow("a mark, then words") << QByteArray(
                                                   "\xEF\xBB\xBF"
                                                   "0 10\n\xEF\xBB\xBF"
                                                   "1 2\n")
                                            << "line 2";  // (only a first one is skipped)
    }
    void aBrokenTraceIsRefusedNamingTheLine() {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        QTemporaryDir dir;
        try {
            readAvailabilityTrace(write(dir, text));
            QFAIL("a broken trace was read");
        } catch (const RoleError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
        try {
            readAvailabilityTrace(dir.path());
            QFAIL("a directory was read as a trace");
        } catch (const RoleError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("is not a file"), e.what());
        }
    }

    // Before a simulated run starts: a trace's path must be absolute (relative, it depended on
    // where hips was started), and one that is no trace is named with its worker group's place.
    void tracesAreCheckedBeforeTheRun() {
        QTemporaryDir dir;
        const QString marked = write(dir, "\xEF\xBB\xBF# saved with a byte order mark\n0 10\n");
        QCOMPARE(readAvailabilityTrace(marked).size(), size_t(1));
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        QJsonArray parties = t["parties"].toArray();
        QJsonObject party2 = parties[2].toObject(), roles = party2["roles"].toObject();
        roles["workers"] = QJsonArray{QJsonObject{{"count", 1}}, QJsonObject{{"count", 1}, {"availability", "traces/phones.txt"}}};
        party2["roles"] = roles;
        parties[2] = party2;
        t["parties"] = parties;
        const TopologyLoad relative = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY(!relative.ok());
        QCOMPARE(relative.issues.first().path, QStringLiteral("$.parties[2].roles.workers[1].availability"));
        QVERIFY2(relative.errorText().contains("relative path"), qPrintable(relative.errorText()));
        roles["workers"] = QJsonArray{QJsonObject{{"count", 1}}, QJsonObject{{"count", 1}, {"availability", dir.filePath("none.txt")}}};
        party2["roles"] = roles;
        parties[2] = party2;
        t["parties"] = parties;
        const TopologyLoad missing = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(missing.ok(), qPrintable(missing.errorText()));
        const QString why = readAvailabilityTraces(*missing.topology, nullptr);
        QVERIFY2(why.startsWith("$.parties[2].roles.workers[1].availability: availability trace " + dir.filePath("none.txt") +
                                ": does not exist"),
                 qPrintable(why));
    }

    // A probability: each worker's draw per round is seeded (the same twice), differs between
    // rounds, and comes out at about its rate over many.
    void aProbabilityIsDrawnPerWorkerAndRound() {
        const Topology t = topologyWith(QJsonArray{QJsonObject{{"count", 200}, {"availability", 0.3}}});
        const Availability a(t), again(t);
        int on = 0, same = 0, changed = 0;
        for (int i = 0; i < 200; ++i) {
            const Node w = *t.node(QStringLiteral("party1/worker%1").arg(i));
            for (qint64 round = 1; round <= 10; ++round) {
                const bool up = a.available(w, i, round, 0);
                on += up;
                same += up == again.available(w, i, round, 0);
                changed += up != a.available(w, i, round + 1, 0);
            }
        }
        QCOMPARE(same, 2000);
        QVERIFY2(on > 500 && on < 700, qPrintable(QString::number(on)));  // 600 expected
        QVERIFY(changed > 200);
        // Seeds 2^24 apart draw apart (the seed's high bits were shifted out of the draw).
        Topology far = t;
        far.training.seed = t.training.seed + (1 << 24);
        const Availability other(far);
        int differ = 0;
        for (int i = 0; i < 200; ++i) {
            const Node w = *t.node(QStringLiteral("party1/worker%1").arg(i));
            differ += a.available(w, i, 1, 0) != other.available(w, i, 1, 0);
        }
        QVERIFY2(differ > 40, qPrintable(QString::number(differ)));  // 84 expected
    }

    // Membership as the schedulers say it: a worker that went off at 10 s is declared down
    // heartbeat_timeout_s later, and one on again before then is said up only after that; a
    // collective party's member on again has left for good (deployed, it leaves the run); under
    // fail the run stops naming it.
    void membershipIsSaidInTheSchedulersOrder() {
        Topology t = topologyWith(QJsonArray{QJsonObject{{"count", 2}}});
        t.training.faultPolicy = QStringLiteral("continue");
        t.training.heartbeatTimeoutS = 3;
        QStringList said;
        SimMembership m(t, [&](double at, const QString& id, const char* state, const char*) {
            said << QStringLiteral("%1 %2 %3").arg(at).arg(id, QLatin1String(state));
        });
        QCOMPARE(m.wentOff("party1/worker0", 10, 2), 13.0);
        QVERIFY(m.isDown("party1/worker0") && m.mayTrain("party1/worker1", 11));
        QVERIFY(m.mayTrain("party1/worker0", 11));  // (on again at 11: said up at 13)
        QCOMPARE(said, (QStringList{"13 party1/worker0 down", "13 party1/worker0 up"}));
        Party* party1 = nullptr;
        for (Party& p : t.parties)
            if (p.id == "party1") party1 = &p;
        QVERIFY(party1);
        party1->transport = QStringLiteral("ring");
        SimMembership ring(t, [&](double at, const QString& id, const char* state, const char*) {
            said << QStringLiteral("%1 %2 %3").arg(at).arg(id, QLatin1String(state));
        });
        said.clear();
        ring.wentOff("party1/worker1", 20, 3);
        QVERIFY(!ring.mayTrain("party1/worker1", 30) && ring.hasLeft("party1/worker1") && !ring.mayTrain("party1/worker1", 40));
        QCOMPARE(said, (QStringList{"23 party1/worker1 down", "30 party1/worker1 left"}));
        t.training.faultPolicy = QStringLiteral("fail");
        SimMembership failing(t, [](double, const QString&, const char*, const char*) {});
        QVERIFY_THROWS_EXCEPTION(RoleError, failing.wentOff("party1/worker0", 10, 2));
    }
};

QTEST_GUILESS_MAIN(SimClockTest)
#include "tst_simclock.moc"
