// Training through failures (issue 15), with the real processes on loopback: the default topology
// (ports moved, heartbeat_timeout_s 3) under fault_policy continue and fail. A worker killed with
// SIGKILL is restarted by its agent and the run completes every round near the undisturbed
// accuracy, with the death and the restart in the history, and so are a party server, the
// schedulers (which then still keep the membership), the master and the global server (from the
// model it last sent), and the agent with all of them; under fail the same kills end the run,
// naming the process and the signal; a
// worker stopped (SIGSTOP) past the timeout is left out while the rounds go on, and after SIGCONT
// it rejoins and contributes again, as a silent party server's party does; one that never comes
// back does not hold the run open; a round timeout leaves a far slower worker behind.
#include "FaultRuns.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>
#include <csignal>

using namespace hips::test;

namespace {

// Party `party`'s second worker (of the default topology's two) made `slowdown` times slower.
void slowSecondWorker(QJsonObject& topology, int party, int slowdown) {
    QJsonArray parties = topology["parties"].toArray();
    QJsonObject p = parties[party].toObject(), roles = p["roles"].toObject();
    roles["workers"] = QJsonArray{QJsonObject{{"count", 1}}, QJsonObject{{"count", 1}, {"slowdown", slowdown}}};
    p["roles"] = roles;
    parties[party] = p;
    topology["parties"] = parties;
}

// The rounds `node` reported training in (its train records).
QList<int> trainedRounds(const QString& metricsPath, const QString& node) {
    QList<int> rounds;
    QFile f(metricsPath);
    if (!f.open(QIODevice::ReadOnly)) return rounds;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"].toString() == "train" && r["node"].toString() == node) rounds << r["round"].toInt();
    }
    return rounds;
}

// The states `scheduler` declared `member` in, in order.
QStringList membershipStates(const QString& metricsPath, const QString& scheduler, const QString& member) {
    QStringList states;
    QFile f(metricsPath);
    if (!f.open(QIODevice::ReadOnly)) return states;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"].toString() == "membership" && r["node"].toString() == scheduler && r["member"].toString() == member)
            states << r["state"].toString();
    }
    return states;
}

// The global server said it went on from its recovery point.
bool globalServerRecovered(Run& run) {
    QFile log(run.dir.filePath("run/logs/central-global_server0.log"));
    const bool said = log.open(QIODevice::ReadOnly) && log.readAll().contains("restarted; it goes on from the model of round");
    if (!said) qWarning("the global server's log does not say it recovered");
    return said;
}

// The CLI printed rounds 1 to 20, each once, in order.
bool everyRoundOnce(const QByteArray& out) {
    QList<int> expected;
    for (int round = 1; round <= 20; ++round) expected << round;
    if (printedRounds(out) == expected) return true;
    qWarning("the rounds printed are not 1 to 20, each once:\n%s", out.right(2000).constData());
    return false;
}

}  // namespace

class FaultsTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    double m_undisturbed = -1;

    // The final accuracy of the default topology under continue with nothing killed (run once).
    double undisturbed() {
        if (m_undisturbed < 0) {
            Run calm;
            calm.start({"run", writeTopology(m_dir, "continue"), "--out", calm.dir.filePath("run")});
            if (calm.finish(300000) == 0) m_undisturbed = finalAccuracy(calm.out);
        }
        return m_undisturbed;
    }

private Q_SLOTS:
    void aKilledWorkerIsRestartedAndTheRunCompletes() {
        const QString topology = writeTopology(m_dir, "continue");
        const double undisturbed = this->undisturbed();
        QVERIFY(undisturbed > 0);

        Run run;
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 5, "party1/worker1", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("party1/worker1 (pid") && run.out.contains("was killed by signal 9") &&
                     run.out.contains("restart 1 of 3 in 1 s"),
                 run.out.constData());
        const QList<int> rounds = printedRounds(run.out);
        QCOMPARE(rounds.size(), 20);  // every round, each once, in order
        for (int i = 0; i < rounds.size(); ++i) QCOMPARE(rounds[i], i + 1);
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy: undisturbed %.4f, a worker killed at round 5 %.4f", undisturbed, accuracy);
        QVERIFY(std::abs(accuracy - undisturbed) <= 0.02);
        // The restarted worker trained again, from the round the party was in.
        const QList<int> trained = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party1/worker1");
        QVERIFY2(!trained.isEmpty() && trained.last() == 20, qPrintable(QString::number(trained.size())));
        // The history has the death and the restart with its reason, and as many rounds as printed.
        const auto [status, show] = run.historyCommand({"show", "1"});
        QCOMPARE(status, 0);
        QVERIFY2(show.contains("fault: party1/worker1: party1/worker1 (pid") && show.contains("killed by signal 9") &&
                     show.contains("restart 1 of 3"),
                 show.constData());
        QVERIFY2(show.contains("rounds: 20"), show.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // A party server killed mid-run is restarted by its agent: it pulls the global model, takes up
    // the global round, and its workers send it their open round's push again.
    void aKilledPartyServerIsRestartedAndItsPartyGoesOn() {
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 5, "party1/server0", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("party1/server0 (pid") && run.out.contains("restart 1 of 3 in 1 s"), run.out.constData());
        const QList<int> rounds = printedRounds(run.out);
        QCOMPARE(rounds.size(), 20);
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy with party1's server killed at round 5: %.4f", accuracy);
        QVERIFY(std::abs(accuracy - undisturbed()) <= 0.02);
        const QList<int> trained = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party1/worker0");
        QVERIFY(!trained.isEmpty() && trained.last() == 20);
        // Traffic counts go on across the restart: the table's bytes never go down.
        double inside = 0;
        for (const QString& line : QString::fromUtf8(run.out).split('\n')) {
            const QStringList f = line.simplified().split(' ');
            if (f.size() != 7 || f[0].toInt() <= 0) continue;
            QVERIFY2(f[4].toDouble() >= inside, qPrintable(line));
            inside = f[4].toDouble();
        }
        // Under continue a scheduler is done once its servers are, and its members still up said
        // bye too (it left them none to hear it: each waited out its linger, 2 s, to end).
        int schedulers = 0;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("run/metrics.jsonl"))) {
            if (r["kind"] != "scheduler_done") continue;
            QVERIFY2(r["byes"].toInt() == r["nodes"].toInt(), qPrintable(QJsonDocument(r).toJson()));
            ++schedulers;
        }
        QCOMPARE(schedulers, 3);
        QVERIFY(run.leftovers().isEmpty());
    }

    // A scheduler killed mid-run is restarted by its agent and takes the run up from its members'
    // heartbeats (they register again); it still keeps the membership: a worker killed after it
    // is found restarted. The party scheduler and the global scheduler alike.
    void aKilledSchedulerIsRestartedAndKeepsTheMembership_data() {
        QTest::addColumn<QByteArray>("scheduler");
        QTest::addColumn<QByteArray>("member");  // killed after the scheduler's restart
        QTest::newRow("party") << QByteArray("party1/scheduler") << QByteArray("party1/worker1");
        QTest::newRow("global") << QByteArray("central/global_scheduler") << QByteArray("party2/server0");
    }
    void aKilledSchedulerIsRestartedAndKeepsTheMembership() {
        QFETCH(QByteArray, scheduler);
        QFETCH(QByteArray, member);
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 4, scheduler, SIGKILL), run.out.constData());
        QVERIFY2(signalAtRound(run, 12, member, SIGKILL), run.out.constData());  // (8 rounds on: the scheduler is back)
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains(scheduler + " (pid") && run.out.contains("restart 1 of 3 in 1 s"), run.out.constData());
        // The restarted scheduler saw the member's restart (its record; the CLI tells a change once).
        QVERIFY2(membershipStates(run.dir.filePath("run/metrics.jsonl"), scheduler, member).contains("up"), run.out.constData());
        const QList<int> rounds = printedRounds(run.out);
        QCOMPARE(rounds.size(), 20);
        for (int i = 0; i < rounds.size(); ++i) QCOMPARE(rounds[i], i + 1);
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy with %s killed at round 4: %.4f", scheduler.constData(), accuracy);
        QVERIFY(std::abs(accuracy - undisturbed()) <= 0.02);
        QVERIFY(run.leftovers().isEmpty());
    }

    // The master killed mid-run: the rounds go on without it, and when its agent has restarted it,
    // it gets the newest round's model and evaluates to the end.
    void aKilledMasterIsRestartedAndEvaluatesToTheEnd() {
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 5, "central/master_worker", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("central/master_worker (pid") && run.out.contains("restart 1 of 3 in 1 s"), run.out.constData());
        const QList<int> rounds = printedRounds(run.out);
        QCOMPARE(rounds.size(), 20);
        for (int i = 0; i < rounds.size(); ++i) QCOMPARE(rounds[i], i + 1);
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy with the master killed at round 5: %.4f", accuracy);
        QVERIFY(std::abs(accuracy - undisturbed()) <= 0.02);
        QVERIFY(run.leftovers().isEmpty());
    }

    // The global server killed mid-run: restarted by its agent, it goes on from the model it last
    // sent anyone (kept before it sent it), its parties send their open round's push again, and the
    // master tells it where it is; the run ends as if nothing had happened.
    void aKilledGlobalServerGoesOnFromItsLastModel() {
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 5, "central/global_server0", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("central/global_server0 (pid") && run.out.contains("restart 1 of 3 in 1 s"), run.out.constData());
        QVERIFY(globalServerRecovered(run));
        QVERIFY(everyRoundOnce(run.out));
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy with the global server killed at round 5: %.4f (undisturbed %.4f)", accuracy, undisturbed());
        QVERIFY(std::abs(accuracy - undisturbed()) <= 0.01);
        QVERIFY(run.leftovers().isEmpty());
    }

    // Killed in round 1, before its first aggregate, it goes on from the initial model it kept
    // (round 0). (One worker 10 times slower holds round 1 open for a second or so.)
    void aGlobalServerKilledInRoundOneGoesOnFromTheInitialModel() {
        const QString topology = writeTopology(m_dir, "continue", [](QJsonObject& t) {
            slowSecondWorker(t, 1, 10);
            QJsonObject training = t["training"].toObject();
            training["rounds"] = 3;
            t["training"] = training;
        });
        Run run;
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 0, "central/global_server0", SIGKILL, run.dir.filePath("run")), run.out.constData());
        QVERIFY2(run.finish(120000) == 0, run.out + run.err);
        QFile log(run.dir.filePath("run/logs/central-global_server0.log"));
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QByteArray said = log.readAll();
        QVERIFY2(said.contains("restarted; it goes on from the model of round 0"), said.constData());
        QCOMPARE(printedRounds(run.out), (QList<int>{1, 2, 3}));
        QVERIFY(run.leftovers().isEmpty());
    }

    // The local agent killed mid-run takes every role with it: the controller starts it again
    // (max_restarts, backoff), and then the roles, each restarted as if alone: the schedulers have
    // their members register, the global server goes on from its recovery point, the others
    // rejoin with the newest model. Each death is in the history with its reason.
    void aKilledAgentIsRestartedWithItsRoles() {
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 5, "agent", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("the local agent was killed by signal 9 (Killed) and took its roles with it; restart 1 of 3 in 1 s"),
                 run.out.constData());
        QVERIFY(globalServerRecovered(run));
        QVERIFY(everyRoundOnce(run.out));
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy with the agent killed at round 5: %.4f (undisturbed %.4f)", accuracy, undisturbed());
        QVERIFY(std::abs(accuracy - undisturbed()) <= 0.02);
        const auto [status, show] = run.historyCommand({"show", "1"});
        QCOMPARE(status, 0);
        for (const char* node : {"central/global_server0", "party2/worker1", "party1/scheduler"})
            QVERIFY2(QRegularExpression(QStringLiteral("fault: %1: %1 \\(pid \\d+\\) ended with its agent, which was killed by signal 9")
                                            .arg(QLatin1String(node)))
                         .match(QString::fromUtf8(show))
                         .hasMatch(),
                     show.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // Under fail any death ends the run at once, naming the process and the signal, and no role
    // is started again.
    void aKilledProcessEndsTheRunUnderFail_data() {
        QTest::addColumn<QByteArray>("node");
        QTest::addColumn<QString>("named");  // how the CLI names the death
        const QString role = QStringLiteral("%1 \\(pid \\d+\\) was killed by signal 9 \\(Killed\\)");
        for (const char* node : {"party1/worker0", "party2/server0", "party1/scheduler", "central/global_scheduler",
                                 "central/global_server0", "central/master_worker"})
            QTest::newRow(node) << QByteArray(node) << role.arg(QRegularExpression::escape(QLatin1String(node)));
        QTest::newRow("agent") << QByteArray("agent")
                               << QStringLiteral(
                                      "the local agent was killed by signal 9 \\(Killed\\) during the run; its roles ended with it");
    }
    void aKilledProcessEndsTheRunUnderFail() {
        QFETCH(QByteArray, node);
        QFETCH(QString, named);
        Run run;
        run.start({"run", writeTopology(m_dir, "fail"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 3, node, SIGKILL), run.out.constData());
        QElapsedTimer sinceKill;
        sinceKill.start();
        QCOMPARE(run.finish(60000), 1);
        qInfo("%s killed: the run ended %.1f s later", node.constData(), double(sinceKill.elapsed()) / 1000.0);
        const QByteArray all = run.out + run.err;
        QVERIFY2(QRegularExpression(named).match(QString::fromUtf8(all)).hasMatch(), all.constData());
        QVERIFY(!all.contains("restart"));
        QVERIFY(run.leftovers().isEmpty());
    }

    void aStoppedWorkerIsLeftOutThenRejoins() {
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 4, "party2/worker0", SIGSTOP), run.out.constData());
        QVERIFY2(waitForRowsAfter(run, "party2/worker0 declared down", 2, 60000), run.out.constData());
        const qsizetype down = run.out.indexOf("party2/worker0 declared down");
        const QList<qint64> pids = taggedProcesses(run.tag, "--node party2/worker0");
        QVERIFY(!pids.isEmpty());
        ::kill(pid_t(pids.first()), SIGCONT);
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("party2/worker0 declared up: heartbeats again"), run.out.constData());
        const int roundsWhileDown = int(printedRounds(run.out.mid(down, run.out.indexOf("declared up") - down)).size());
        const QList<int> trained = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party2/worker0");
        qInfo("rounds printed while party2/worker0 was down: %d; it trained in rounds %s", roundsWhileDown, qPrintable([&] {
                  QStringList s;
                  for (int r : trained) s << QString::number(r);
                  return s.join(' ');
              }()));
        QVERIFY(roundsWhileDown >= 2);  // the rounds went on without it
        QVERIFY2(trained.size() < 20 && trained.last() == 20, "it sat rounds out, then contributed again to the end");
        QVERIFY(run.leftovers().isEmpty());
    }

    // A party server silent past the timeout: the global tier goes on with the other party
    // (min_parties 1); when it is back its party catches up with the global model's round and its
    // workers train again to the last round.
    void aSilentPartyServerIsLeftOutThenItsPartyRejoins() {
        Run run;
        run.start({"run", writeTopology(m_dir, "continue"), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 4, "party2/server0", SIGSTOP), run.out.constData());
        QVERIFY2(waitForRowsAfter(run, "party2/server0 declared down", 2, 60000), run.out.constData());
        const QList<qint64> pids = taggedProcesses(run.tag, "--node party2/server0");
        QVERIFY(!pids.isEmpty());
        ::kill(pid_t(pids.first()), SIGCONT);
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QCOMPARE(run.out.count("party2/server0 declared down"), 1);  // told once, though two schedulers saw it
        QVERIFY2(run.out.contains("party2/server0 declared up: heartbeats again"), run.out.constData());
        QCOMPARE(printedRounds(run.out).size(), 20);
        const QList<int> trained = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party2/worker0");
        QVERIFY2(trained.size() < 20 && trained.last() == 20, "the party sat rounds out, then trained to the end");
        QVERIFY(run.leftovers().isEmpty());
    }

    // A worker that never comes back (stopped for good) does not hold the run open: its party
    // goes on without it, and once every other role has finished, it is stopped.
    void aWorkerThatNeverComesBackDoesNotHoldTheRunOpen() {
        const QString topology = writeTopology(m_dir, "continue", [](QJsonObject& t) {
            QJsonObject training = t["training"].toObject();
            training["rounds"] = 8;
            t["training"] = training;
        });
        Run run;
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 2, "party1/worker0", SIGSTOP), run.out.constData());
        QVERIFY2(run.finish(180000) == 0, run.out + run.err);
        QCOMPARE(printedRounds(run.out).size(), 8);
        QVERIFY2(run.out.contains("party1/worker0 declared down") &&
                     run.out.contains("party1/worker0 is stopped: the run finished its rounds without it"),
                 run.out.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // ESync under continue: the state service killed mid-run is restarted by its agent and learns
    // the workers again from their next steps (they ask again, and it takes up their rounds); a
    // worker stopped for good is not waited for once it has been silent for heartbeat_timeout_s.
    // Every round is done, and neither holds the run open.
    void esyncGoesOnThroughItsStateServiceAndAWorker() {
        const QString topology = writeTopology(m_dir, "continue", [](QJsonObject& t) {
            QJsonObject training = t["training"].toObject();
            training["mode"] = "esync";
            training["rounds"] = 10;
            training["local_iters"] = 20;  // (a synchronisation asks the state service after every step)
            t["training"] = training;
        });
        Run run;
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 2, "central/state_service", SIGKILL), run.out.constData());
        QVERIFY2(signalAtRound(run, 5, "party1/worker1", SIGSTOP), run.out.constData());
        QVERIFY2(run.finish(180000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("central/state_service (pid") && run.out.contains("restart 1 of 3 in 1 s"), run.out.constData());
        QVERIFY2(run.out.contains("party1/worker1 declared down"), run.out.constData());
        const QList<int> rounds = printedRounds(run.out);
        QCOMPARE(rounds.size(), 10);
        for (int i = 0; i < rounds.size(); ++i) QCOMPARE(rounds[i], i + 1);
        // The other workers trained in every round after the stop, the stopped one in none.
        const QList<int> other = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party1/worker0");
        QVERIFY2(!other.isEmpty() && other.last() == 10, qPrintable(QString::number(other.size())));
        const QList<int> stopped = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party1/worker1");
        QVERIFY2(!stopped.isEmpty() && stopped.last() <= 6, qPrintable(QString::number(stopped.isEmpty() ? -1 : stopped.last())));
        qInfo("final accuracy: %.4f", finalAccuracy(run.out));
        QVERIFY(finalAccuracy(run.out) > 0.8);
        QVERIFY(run.leftovers().isEmpty());
    }

    // round_timeout_s: a worker 20 times slower than the others never makes a round's deadline;
    // the rounds close without it, its pushes come late and are dropped, and the run finishes.
    // (On the cnn: 20 times the MLP's local steps could make the 2 s deadline.)
    void aRoundTimeoutLeavesASlowWorkerBehind() {
        const QString topology = writeTopology(m_dir, "continue", [](QJsonObject& t) {
            slowSecondWorker(t, 2, 20);
            QJsonObject training = t["training"].toObject();
            training["round_timeout_s"] = 2;
            training["rounds"] = 6;
            training["model"] = "cnn";
            t["training"] = training;
        });
        Run run;
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QCOMPARE(printedRounds(run.out).size(), 6);
        QFile metrics(run.dir.filePath("run/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        qint64 late = 0;
        for (const QByteArray& line : metrics.readAll().split('\n')) {
            const QJsonObject r = QJsonDocument::fromJson(line).object();
            if (r["kind"].toString() == "traffic" && r["node"].toString() == "party2/server0") late = r["late_pushes"].toInteger();
        }
        const QList<int> slow = trainedRounds(run.dir.filePath("run/metrics.jsonl"), "party2/worker1");
        qInfo("late pushes at party2's server: %lld; rounds the slow worker made: %lld", late, qint64(slow.size()));
        QVERIFY(slow.size() < 6);  // the rounds closed without it
        // Each round it did train was pushed after its round had closed: counted late, dropped. (On
        // a loaded machine it may not finish even its first round before the others' sixth.)
        if (!slow.isEmpty()) QVERIFY(late >= 1);
    }
};

QTEST_GUILESS_MAIN(FaultsTest)
#include "tst_faults.moc"
