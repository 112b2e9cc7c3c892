// Collective parties end to end (hips run on loopback): party1 sums on a ring, party2 by
// butterfly, with no party server; the run trains as it does with party servers, each worker's
// links inside the party carry what the collective's formula says (not N·S into one server),
// and a member killed mid-run stops the run naming it, leaving nothing behind; under
// fault_policy continue the party re-forms without it and the run completes.
#include "FaultRuns.h"
#include "RunHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>
#include <cmath>
#include <csignal>

using namespace hips::test;

namespace {

// The small topology with three workers in party1 and two in party2, each party on `transport`
// (empty: its party server), and `training` settings over the file's.
QString writeVariant(Run& run, const QString& party1, const QString& party2, const QJsonObject& training,
                     const QJsonObject& party1Settings = {}) {
    const QString path = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 3}}}, training);
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadWrite)) return {};
    QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    const QStringList transports{party1, party2};
    for (int i = 1; i <= 2; ++i) {
        QJsonObject p = parties[i].toObject();
        if (!transports[i - 1].isEmpty()) p["transport"] = transports[i - 1];
        if (i == 1)
            for (auto it = party1Settings.begin(); it != party1Settings.end(); ++it) p[it.key()] = it.value();
        parties[i] = p;
    }
    t["parties"] = parties;
    const QByteArray text = QJsonDocument(t).toJson();
    if (!file.resize(0) || !file.seek(0) || file.write(text) != text.size()) return {};
    return path;
}

// Runs the variant with party1 on a ring, party2 by butterfly, under fault_policy continue for
// `rounds`, sends `node` `signal` once round 3 is printed (SIGSTOP with `continued`: SIGCONT once
// it is declared down), and says whether the run then finished with every round.
bool finishesLosingAtRound3(Run& run, int rounds, const QByteArray& node, int signal, bool continued = false) {
    const QJsonObject training{{"rounds", rounds}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 3}};
    run.start({"run", writeVariant(run, "ring", "butterfly", training), "--out", run.dir.filePath("run")});
    const qint64 pid = signalAtRound(run, 3, node, signal);
    bool signalled = pid != 0;
    if (signalled && continued) signalled = run.waitForOutput(node + " declared down", 120000) && ::kill(pid_t(pid), SIGCONT) == 0;
    const bool finished = signalled && run.finish(180000) == 0;
    const QList<int> printed = printedRounds(run.out);
    if (finished && !printed.isEmpty() && printed.last() == rounds) return true;
    qWarning("%s the run did not finish every round:\n%s\n%s", signalled ? "signalled," : "not signalled;", run.out.constData(),
             run.err.constData());
    return false;
}

// The master's test loss of each round.
QMap<int, double> testLosses(const QString& runDir) {
    QMap<int, double> out;
    for (const QJsonObject& r : metricRecords(runDir + "/metrics.jsonl"))
        if (r["kind"] == "eval") out.insert(r["round"].toInt(), r["test_loss"].toDouble());
    return out;
}

// The rounds the master did not evaluate: a newer model had come while it evaluated.
QSet<int> skippedRounds(const QString& runDir) {
    QSet<int> out;
    for (const QJsonObject& r : metricRecords(runDir + "/metrics.jsonl"))
        if (r["kind"] == "eval")
            for (const QJsonValue& round : r["skipped"].toArray()) out.insert(round.toInt());
    return out;
}

// What `node` wrote to its log in the run.
QByteArray logOf(const QString& runDir, const QString& node) {
    QFile f(runDir + "/logs/" + QString(node).replace('/', '-') + ".log");
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// node → peer → bytes sent on that link so far, from each node's last traffic record.
QHash<QString, QHash<QString, double>> sentPerLink(const QString& runDir) {
    QHash<QString, QHash<QString, double>> out;
    for (const QJsonObject& r : metricRecords(runDir + "/metrics.jsonl")) {
        if (r["kind"] != "traffic") continue;
        QHash<QString, double> links;
        for (const QJsonValue& l : r["links"].toArray()) links[l["peer"].toString()] += l["sent"].toDouble();
        out[r["node"].toString()] = links;
    }
    return out;
}

// A traffic record that lists a peer twice ("node → peer"), or empty. A worker reaches each peer
// on two channels (its ROUTER and a DEALER to the peer's, and sealed, the bulk plane): the
// history and the controller keep one row per node and peer, so the record adds them up.
QString peerListedTwice(const QString& runDir) {
    for (const QJsonObject& r : metricRecords(runDir + "/metrics.jsonl")) {
        if (r["kind"] != "traffic") continue;
        QSet<QString> peers;
        for (const QJsonValue& l : r["links"].toArray()) {
            const QString peer = l["peer"].toString();
            if (peers.contains(peer)) return r["node"].toString() + " → " + peer;
            peers.insert(peer);
        }
    }
    return {};
}

}  // namespace

class CollectiveRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void collectivePartiesTrainAsPartyServersDo_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("security");
        QTest::newRow("fedavg") << "fedavg"
                                << "curve";
        QTest::newRow("fedavg, sealed") << "fedavg"
                                        << "sealed";
        QTest::newRow("fedavg, a worker sends NaN") << "fedavg"
                                                    << "curve";
        QTest::newRow("ssgd") << "ssgd"
                              << "curve";
        QTest::newRow("hfa") << "hfa"
                             << "curve";
    }

    void collectivePartiesTrainAsPartyServersDo() {
        QFETCH(QString, mode);
        QFETCH(QString, security);
        QJsonObject training{{"mode", mode}, {"rounds", 3}};
        if (mode == "hfa") training["k1"] = 5;
        // A broken worker each round (drawn): its slices go into the party's sum as zeros, as a
        // party server folds them (the sum was NaN, and the global server refused the party's push).
        const bool brokenWorker = QByteArray(QTest::currentDataTag()).contains("NaN");
        if (brokenWorker) training["adversary"] = QJsonObject{{"kind", "nan"}, {"count", 1}};
        Run servers, collective;
        servers.start({"run", writeVariant(servers, {}, {}, training), "--out", servers.dir.filePath("run")});
        QVERIFY2(servers.finish(180000) == 0, servers.out + servers.err);
        training["transport_security"] = security;  // (sealed: the collectives' chunks on the sealed links)
        collective.start({"run", writeVariant(collective, "ring", "butterfly", training), "--out", collective.dir.filePath("run")});
        QVERIFY2(collective.finish(180000) == 0, collective.out + collective.err);
        QVERIFY2(collective.out.contains("finished after 3 rounds"), collective.out.constData());

        // The same model, round by round (the sums differ only in the order of their floats). The
        // master evaluates only the newest model when several came during an evaluation (a
        // loaded machine skipped one of the party servers' run), but always the final one.
        const QMap<int, double> expected = testLosses(servers.dir.filePath("run")), got = testLosses(collective.dir.filePath("run"));
        const QSet<int> skippedWithServers = skippedRounds(servers.dir.filePath("run")),
                        skipped = skippedRounds(collective.dir.filePath("run"));
        QVERIFY2(expected.contains(3) && got.contains(3), "the final model was not evaluated");
        for (int round = 1; round <= 3; ++round)
            QVERIFY2((expected.contains(round) || skippedWithServers.contains(round)) && (got.contains(round) || skipped.contains(round)),
                     qPrintable(QString("round %1 was neither evaluated nor skipped").arg(round)));
        for (int round : expected.keys())
            if (got.contains(round))
                QVERIFY2(
                    std::abs(got[round] - expected[round]) <= 1e-3 * std::abs(expected[round]) + 1e-6,
                    qPrintable(QString("round %1: test loss %2, with party servers %3").arg(round).arg(got[round]).arg(expected[round])));

        if (brokenWorker) {  // said by the broken worker, and nothing NaN reached the global server
            const QString runDir = collective.dir.filePath("run");
            QByteArray said;
            for (const char* w : {"party1/worker0", "party1/worker1", "party1/worker2", "party2/worker0", "party2/worker1"})
                said += logOf(runDir, w);
            QVERIFY2(said.contains("holds NaN or infinite values"), said.constData());
            const QByteArray global = logOf(runDir, "central/global_server0");
            QVERIFY2(!global.contains("NaN"), global.constData());
        }

        // No party server ran for either party; party1's lowest rank pushed for it.
        const QDir logs(collective.dir.filePath("run/logs"));
        QVERIFY(!logs.exists("party1-server0.log") && !logs.exists("party2-server0.log"));
        QVERIFY(logs.exists("party1-worker0.log") && logs.exists("party1-worker2.log"));
        const auto links = sentPerLink(collective.dir.filePath("run"));
        const QString twice = peerListedTwice(collective.dir.filePath("run"));
        QVERIFY2(twice.isEmpty(), qPrintable(twice + " is listed twice in one traffic record"));
        QVERIFY(links.value("party1/worker0").contains("central/global_server0"));
        QVERIFY(!links.value("party1/worker1").contains("central/global_server0"));
        QVERIFY(links.value("central/global_server0").contains("party2/worker0"));
        QVERIFY(servers.leftovers().isEmpty() && collective.leftovers().isEmpty());
    }

    // The bytes each ring member sends its successor: 2(N−1)/N of every sum (S + the weight) and
    // the model once on its way down the chain — against the N·S a party server's link carries.
    // (Chunks larger than the model: each message is a whole segment, the model and its version.)
    void ringLinksCarryWhatTheFormulaSays() {
        Run servers, ring;
        const QJsonObject training{{"rounds", 2}};
        servers.start({"run", writeVariant(servers, {}, {}, training), "--out", servers.dir.filePath("run")});
        QVERIFY2(servers.finish(180000) == 0, servers.out + servers.err);
        ring.start({"run", writeVariant(ring, "ring", {}, training, {{"transport_chunk_kb", 4096}}), "--out", ring.dir.filePath("run")});
        QVERIFY2(ring.finish(180000) == 0, ring.out + ring.err);
        const auto serverLinks = sentPerLink(servers.dir.filePath("run"));
        const auto ringLinks = sentPerLink(ring.dir.filePath("run"));
        // The party server sends each of its 3 workers the model once a round, plus the first
        // model: S per worker per (round + 1).
        const double modelBytes = serverLinks.value("party1/server0").value("party1/worker0") / 3.0;
        QVERIFY2(modelBytes > 100000, qPrintable(QString::number(modelBytes)));
        const int n = 3, rounds = 2;
        for (int r = 0; r < n; ++r) {
            const QString self = QString("party1/worker%1").arg(r), next = QString("party1/worker%1").arg((r + 1) % n);
            // Down the chain 0 → 1 → 2 (the first model too), and the allreduce around the ring.
            const double down = r < n - 1 ? (rounds + 1) * modelBytes : 0;
            const double expected = rounds * 2.0 * (n - 1) / n * modelBytes + down;
            const double sent = ringLinks.value(self).value(next);
            qInfo("%s -> %s: %.0f bytes (formula %.0f; a party server's link %.0f)", qPrintable(self), qPrintable(next), sent, expected,
                  n * (rounds + 1) * modelBytes);
            QVERIFY2(std::abs(sent - expected) <= 0.05 * expected,
                     qPrintable(QString("%1 → %2: %3 bytes, the formula %4").arg(self, next).arg(sent).arg(expected)));
            QVERIFY2(sent < n * (rounds + 1) * modelBytes, "a ring link carries less than the party server's");
        }
        QVERIFY(servers.leftovers().isEmpty() && ring.leftovers().isEmpty());
    }

    // party_compression fp16: the ring's sums travel as half floats, half the bytes a link
    // (the model's broadcast down the chain stays whole floats), and the run trains as with floats.
    void halfPrecisionHalvesTheRingsSums() {
        Run plain, half;
        const QJsonObject training{{"rounds", 2}};
        const QJsonObject settings{{"transport_chunk_kb", 4096}};
        plain.start({"run", writeVariant(plain, "ring", {}, training, settings), "--out", plain.dir.filePath("run")});
        QVERIFY2(plain.finish(180000) == 0, plain.out + plain.err);
        QJsonObject fp16 = training;
        fp16["party_compression"] = "fp16";
        half.start({"run", writeVariant(half, "ring", {}, fp16, settings), "--out", half.dir.filePath("run")});
        QVERIFY2(half.finish(180000) == 0, half.out + half.err);
        const auto plainLinks = sentPerLink(plain.dir.filePath("run")), halfLinks = sentPerLink(half.dir.filePath("run"));
        const int rounds = 2;
        // Worker 2's link to worker 0 carries only the sums (the chain down ends at worker 2).
        const double floats = plainLinks.value("party1/worker2").value("party1/worker0");
        const double halves = halfLinks.value("party1/worker2").value("party1/worker0");
        qInfo("party1/worker2 -> party1/worker0: %.0f bytes as floats, %.0f as half floats", floats, halves);
        QVERIFY2(floats > 100000 && std::abs(halves - floats / 2) <= 0.05 * floats / 2,
                 qPrintable(QString("%1 bytes as half floats against %2 as floats").arg(halves).arg(floats)));
        const QMap<int, double> expected = testLosses(plain.dir.filePath("run")), got = testLosses(half.dir.filePath("run"));
        // (The master may skip round 1's model when round 2's came while it evaluated: never the last.)
        QVERIFY2(got.contains(rounds) && expected.contains(rounds), "the final model was not evaluated");
        for (int round : expected.keys())
            if (got.contains(round))
                QVERIFY2(std::abs(got[round] - expected[round]) <= 0.02 * std::abs(expected[round]),
                         qPrintable(QString("round %1: test loss %2, with floats %3").arg(round).arg(got[round]).arg(expected[round])));
        QVERIFY(plain.leftovers().isEmpty() && half.leftovers().isEmpty());
    }

    void killedMemberStopsTheRunNamingIt() {
        Run run;
        run.start({"run", writeVariant(run, "ring", "butterfly", {{"rounds", 500}}), "--out", run.dir.filePath("run")});
        QVERIFY2(run.waitForOutput("\n    2 ", 120000), run.out.constData());
        const QList<qint64> victim = taggedProcesses(run.tag, "--node party1/worker1");
        QCOMPARE(victim.size(), 1);
        ::kill(pid_t(victim.first()), SIGKILL);
        QVERIFY(run.finish(120000) != 0);
        QVERIFY2(run.err.contains("party1/worker1"), run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // fault_policy continue: party1's ring re-forms without a member lost mid-run (killed: its
    // agent starts it again, and the new process, finding the ring formed without it, leaves the
    // run; stopped: found silent, then stopped once the run is over; stopped and continued once
    // declared down: told so by its scheduler, it leaves the run instead of waiting for a ring
    // that goes on without it), the round it was in is summed again by the two left, and every
    // round is done.
    void lostMemberIsLeftOutUnderContinue_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<bool>("continued");
        QTest::newRow("killed") << int(SIGKILL) << false;
        QTest::newRow("stopped") << int(SIGSTOP) << false;
        QTest::newRow("stopped, then continued") << int(SIGSTOP) << true;
    }

    void lostMemberIsLeftOutUnderContinue() {
        QFETCH(int, signal);
        QFETCH(bool, continued);
        Run run;
        const int rounds = continued ? 40 : 8;  // (rounds left, seconds of them, for the continued one to hear of it)
        QVERIFY(finishesLosingAtRound3(run, rounds, "party1/worker2", signal, continued));
        const QString runDir = run.dir.filePath("run");
        const QByteArray pusher = logOf(runDir, "party1/worker0"), lost = logOf(runDir, "party1/worker2");
        QVERIFY2(pusher.contains("party1/worker2 was lost") && pusher.contains("the party's ring goes on without it"), pusher.constData());
        if (signal == SIGKILL)
            QVERIFY2(
                lost.contains("started again after party1's ring formed without it") && run.out.contains("party1/worker2 declared left"),
                (lost + run.out).constData());
        else QVERIFY2(run.out.contains("party1/worker2 declared down"), run.out.constData());
        if (continued)
            QVERIFY2(lost.contains("declared this worker down") && lost.contains("this worker leaves the run") &&
                         run.out.contains("party1/worker2 declared left"),
                     (lost + run.out).constData());
        // Those left trained to the end; the lost one not after it was lost.
        QSet<QString> atTheEnd;
        int lostRounds = 0;
        for (const QJsonObject& r : metricRecords(runDir + "/metrics.jsonl")) {
            if (r["kind"] != "train") continue;
            if (r["round"].toInt() == rounds) atTheEnd.insert(r["node"].toString());
            if (r["node"] == "party1/worker2") ++lostRounds;
        }
        QVERIFY2(atTheEnd.contains("party1/worker0") && atTheEnd.contains("party1/worker1") && !atTheEnd.contains("party1/worker2"),
                 qPrintable(QStringList(atTheEnd.begin(), atTheEnd.end()).join(' ')));
        QVERIFY(lostRounds < rounds);
        QVERIFY(run.leftovers().isEmpty());
    }

    // ... and with its party scheduler killed (and started again by its agent) while the member
    // was stopped: the new scheduler learns from the members who registered again whom its
    // predecessor declared down, and the member, continued, is told so and leaves the run.
    void aMemberBackAfterItsSchedulerRestartedLeaves() {
        Run run;
        const int rounds = 150;  // (rounds of 0.05 s here: the scheduler's restart takes 30 of them)
        const QJsonObject training{{"rounds", rounds}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 3}};
        run.start({"run", writeVariant(run, "ring", "butterfly", training), "--out", run.dir.filePath("run")});
        const qint64 member = signalAtRound(run, 3, "party1/worker2", SIGSTOP);
        QVERIFY(member);
        QVERIFY2(run.waitForOutput("party1/worker2 declared down", 120000), run.out.constData());
        QVERIFY(signalAtRound(run, 3, "party1/scheduler", SIGKILL));
        const QString runDir = run.dir.filePath("run");
        QVERIFY2(waitForOutputWhere(
                     run, 60000, [&](const QByteArray&) { return logOf(runDir, "party1/scheduler").contains("restarted during the run"); }),
                 run.out.constData());
        QCOMPARE(::kill(pid_t(member), SIGCONT), 0);
        QVERIFY2(run.finish(180000) == 0, (run.out + run.err).constData());
        QCOMPARE(printedRounds(run.out).value(printedRounds(run.out).size() - 1), rounds);
        const QByteArray lost = logOf(runDir, "party1/worker2");
        QVERIFY2(lost.contains("declared this worker down") && lost.contains("before it was restarted") &&
                     lost.contains("this worker leaves the run") && run.out.contains("party1/worker2 declared left"),
                 (lost + run.out).constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // ... and without its pushing worker: the lowest member left pushes for the party from then
    // on, in the lost one's place at the global tier, and the party's members all go on from the
    // newest global model it hands them.
    void lostPushingWorkerIsReplacedByTheNextUnderContinue() {
        Run run;
        const int rounds = 8;
        QVERIFY(finishesLosingAtRound3(run, rounds, "party1/worker0", SIGKILL));
        QVERIFY2(run.out.contains("party1/worker1 declared up: pushes for party1 in place of party1/worker0"), run.out.constData());
        const QString runDir = run.dir.filePath("run");
        const QByteArray member = logOf(runDir, "party1/worker2");
        QVERIFY2(member.contains("party1/worker0 was lost") && member.contains("and party1/worker1 pushes for the party"),
                 member.constData());
        QSet<QString> atTheEnd, trained;
        for (const QJsonObject& r : metricRecords(runDir + "/metrics.jsonl")) {
            if (r["kind"] != "train") continue;
            if (r["round"].toInt() == rounds) atTheEnd.insert(r["node"].toString());
            // A round whose sum never went up is trained again from the model the party agrees
            // on: its work is reported once, when it counts.
            const QString key = r["node"].toString() + " round " + QString::number(r["round"].toInt());
            QVERIFY2(!trained.contains(key), qPrintable(key + " reported twice"));
            trained.insert(key);
        }
        QVERIFY2(atTheEnd.contains("party1/worker1") && atTheEnd.contains("party1/worker2") && !atTheEnd.contains("party1/worker0"),
                 qPrintable(QStringList(atTheEnd.begin(), atTheEnd.end()).join(' ')));
        // Its pushes went up: the party was in the global rounds to the end.
        const double up = sentPerLink(runDir)["party1/worker1"]["central/global_server0"];
        QVERIFY2(up > 0, qPrintable(QString::number(up)));
        QVERIFY(run.leftovers().isEmpty());
    }

    // ... and with the global scheduler killed (and started again by its agent) after the lowest
    // member left took the lost one's place: the stand-in registers with the new scheduler as
    // every member does, and the run ends. Until 2026-12-02 the stand-in was refused as "not a
    // member", each second, and the global server waited at the end for the lost one, which the
    // new scheduler, having never heard from it, never declared down.
    void aStandInRegistersWithARestartedGlobalScheduler() {
        Run run;
        const int rounds = 150;
        const QJsonObject training{{"rounds", rounds}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 3}};
        run.start({"run", writeVariant(run, "ring", "butterfly", training), "--out", run.dir.filePath("run")});
        QVERIFY(signalAtRound(run, 3, "party1/worker0", SIGKILL));
        QVERIFY2(run.waitForOutput("party1/worker1 declared up: pushes for party1", 120000), run.out.constData());
        QVERIFY(signalAtRound(run, 3, "central/global_scheduler", SIGKILL));
        const QString runDir = run.dir.filePath("run");
        QVERIFY2(run.finish(180000) == 0, (run.out + run.err).constData());
        QCOMPARE(printedRounds(run.out).value(printedRounds(run.out).size() - 1), rounds);
        const QByteArray scheduler = logOf(runDir, "central/global_scheduler");
        QVERIFY2(scheduler.contains("restarted during the run"), scheduler.constData());
        QVERIFY2(!scheduler.contains("rejected input from 'party1/worker1'"), scheduler.constData());
        QVERIFY(run.leftovers().isEmpty());
    }
};

QTEST_MAIN(CollectiveRunTest)
#include "tst_collectiverun.moc"
