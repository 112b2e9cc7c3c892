// Client sampling end to end (hips run on loopback): each round only the drawn workers train and
// push, the others (and a party none of whose workers is drawn) sit it out and pull its model, the
// run ends every round, and the draw is recorded (metrics and history) as every process made it.
#include "FaultRuns.h"
#include "RunHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace hips::test;

namespace {

// The run's records of `kind`, in order.
QList<QJsonObject> records(const Run& run, const QString& kind) {
    QList<QJsonObject> out;
    QFile f(run.dir.filePath("run/metrics.jsonl"));
    if (!f.open(QIODevice::ReadOnly)) return out;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"].toString() == kind) out << r;
    }
    return out;
}

}  // namespace

class SamplingRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // One worker of four a round: three sit out, and so does the party it is not in. Each round's
    // train record is the drawn worker's, the one the global server recorded.
    void onlyTheDrawnWorkersTrainAndTheRunEndsEveryRound() {
        Run run;
        const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, {{"clients_per_round", 1}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(180000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("finished after 6 rounds"), run.out.constData());
        QHash<int, QString> drawn;
        for (const QJsonObject& s : records(run, "sample")) {
            const QJsonArray workers = s["workers"].toArray();
            QCOMPARE(workers.size(), 1);
            QVERIFY(!drawn.contains(s["round"].toInt()));
            drawn.insert(s["round"].toInt(), workers[0].toString());
        }
        QCOMPARE(drawn.size(), 6);
        QHash<int, QStringList> trained;
        for (const QJsonObject& t : records(run, "train")) trained[t["round"].toInt()] << t["node"].toString();
        QSet<QString> parties;
        for (int round = 1; round <= 6; ++round) {
            QCOMPARE(trained.value(round), QStringList{drawn.value(round)});
            parties.insert(drawn.value(round).section('/', 0, 0));
        }
        QVERIFY(run.err.isEmpty() || !run.err.contains("rejected"));
        const auto [status, show] = run.historyCommand({"show", "1"});
        QVERIFY2(status == 0 && show.contains("round 1 draws " + drawn.value(1).toUtf8()), show.constData());
        qInfo("drawn: %s (parties %s)", qPrintable(QStringList(drawn.values()).join(' ')),
              qPrintable(QStringList(parties.values()).join(' ')));
        QVERIFY(run.leftovers().isEmpty());
    }

    // A party that sits a round out asks the global server for that round's model; a global
    // server killed meanwhile took the ask with it, and the restarted one is asked again (it was
    // not: the party never had that model, and the run hung once it was drawn again).
    void aPartySittingOutAsksTheRestartedGlobalServerAgain() {
        Run run;
        const QString topology =
            writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}},
                              {{"clients_per_round", 1}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 3}, {"rounds", 10}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 3, "central/global_server0", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(120000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("central/global_server0 (pid") && run.out.contains("finished after 10 rounds"), run.out.constData());
        // Each round's draw recorded once (the restarted server said again the one of the round
        // it opened again, when it said it at a round's opening).
        QList<int> recorded;
        for (const QJsonObject& s : records(run, "sample")) recorded << s["round"].toInt();
        std::sort(recorded.begin(), recorded.end());
        QCOMPARE(recorded, QList<int>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        QVERIFY(run.leftovers().isEmpty());
    }

    // fault_policy continue: party1/worker1 is killed for good at round 2. A round that draws it
    // (one worker of four a round) finds none of party1's drawn workers up: the party sits it out
    // (it sent nothing, and the global round waited for it forever), and as no other worker is
    // drawn the round goes by with the model unchanged (not a server momentum's step on nothing),
    // so its evaluation is the round before's, and its row has no training loss. The run ends
    // every round.
    void aPartyWhoseDrawnWorkersAreDownSitsTheRoundOut() {
        Run run;
        const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}},
                                                   {{"clients_per_round", 1},
                                                    {"fault_policy", "continue"},
                                                    {"heartbeat_timeout_s", 2},
                                                    {"max_restarts", 0},
                                                    {"rounds", 16},
                                                    {"server_optimizer", "momentum"}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 2, "party1/worker1", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(120000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("finished after 16 rounds"), run.out.constData());
        QHash<int, double> accuracy;
        for (const QJsonObject& e : records(run, "eval")) accuracy.insert(e["round"].toInt(), e["test_acc"].toDouble());
        QList<int> satOut;
        for (const QJsonObject& s : records(run, "sample"))
            if (s["round"].toInt() >= 4 && s["workers"].toArray()[0].toString() == "party1/worker1") satOut << s["round"].toInt();
        QVERIFY2(!satOut.isEmpty(), "the draw of this seed never chose party1/worker1 after round 3: the case tests nothing");
        // (The master evaluates the newest model: a round that went by while it evaluated the one
        // before, as a sat-out round quickly does, may have no evaluation of its own.)
        int compared = 0;
        for (int round : satOut) {
            if (!accuracy.contains(round) || !accuracy.contains(round - 1)) continue;
            ++compared;
            QCOMPARE(accuracy.value(round), accuracy.value(round - 1));
            // Nobody trained: no training loss on its row (it said 0.0000).
            QVERIFY2(QRegularExpression(QString("\\n\\s+%1\\s+\\S+\\s+-\\s").arg(round)).match(QString(run.out)).hasMatch(),
                     run.out.constData());
        }
        QVERIFY2(compared > 0, "no round party1 sat out was evaluated with the round before it");
        qInfo("rounds party1 sat out: %s", qPrintable(QString::number(satOut.size())));
        QVERIFY(run.leftovers().isEmpty());
    }

    // A party server restarted while one of its workers is down learns so as it joins (it did
    // not: the scheduler's word came before it listened, and the first round that drew that
    // worker hung), and sits out the rounds that draw it.
    void aRestartedPartyServerKnowsWhichWorkersAreDown() {
        Run run;
        const QString topology =
            writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}},
                              {{"clients_per_round", 1}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 2}, {"rounds", 30}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        const qint64 stopped = signalAtRound(run, 2, "party1/worker1", SIGSTOP);
        QVERIFY2(stopped, run.out.constData());
        QVERIFY2(run.waitForOutput("party1/worker1 declared down", 60000), run.out.constData());
        const QList<int> before = printedRounds(run.out);
        QVERIFY2(signalAtRound(run, before.isEmpty() ? 1 : before.last(), "party1/server0", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(120000) == 0, run.out + run.err);
        ::kill(pid_t(stopped), SIGCONT);
        QVERIFY2(run.out.contains("party1/server0 (pid") && run.out.contains("finished after 30 rounds"), run.out.constData());
        int satOutAfterRestart = 0;
        for (const QJsonObject& s : records(run, "sample"))
            satOutAfterRestart += s["round"].toInt() > before.last() + 1 && s["workers"].toArray()[0].toString() == "party1/worker1";
        qInfo("killed party1/server0 after round %d; rounds that drew party1/worker1 after: %d", before.last(), satOutAfterRestart);
        QVERIFY2(satOutAfterRestart > 0, "no round after the restart drew the stopped worker: the case tests nothing");
        QVERIFY(run.leftovers().isEmpty());
    }

    // round_timeout_s under client sampling: min_workers 0.5 of a party of four that draws two
    // a round is one of the two drawn, not two of the four (which only the two drawn could be:
    // the deadline never closed a round, which waited for the heartbeats to find a stopped
    // worker down). A stopped drawn worker costs its rounds the deadline, and is never declared
    // down: the run is over long before its 60 s heartbeat timeout.
    void theRoundDeadlineCountsTheDrawnWorkers() {
        Run run;
        const QString topology = writeSmallVariant(
            run, QJsonArray{QJsonObject{{"count", 4}}},
            {{"fault_policy", "continue"}, {"heartbeat_timeout_s", 60}, {"round_timeout_s", 1}, {"min_workers", 0.5}, {"rounds", 12}});
        QFile file(topology);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
        file.close();
        QJsonArray parties = t["parties"].toArray();
        QJsonObject party1 = parties[1].toObject();
        party1["clients_per_round"] = 2;
        parties[1] = party1;
        t["parties"] = parties;
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(QJsonDocument(t).toJson()) > 0);
        file.close();
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        const qint64 stopped = signalAtRound(run, 2, "party1/worker1", SIGSTOP);
        QVERIFY2(stopped, run.out.constData());
        const bool lastRow = run.waitForOutput("\n   12  ", 100000);
        ::kill(pid_t(stopped), SIGCONT);
        QVERIFY2(lastRow, run.out.constData());
        QVERIFY2(run.finish(120000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("finished after 12 rounds") && !run.out.contains("declared down"), run.out.constData());
        int drawnWhileStopped = 0;
        for (const QJsonObject& s : records(run, "sample"))
            drawnWhileStopped += s["round"].toInt() >= 4 && s["workers"].toArray().contains(QJsonValue("party1/worker1"));
        qInfo("rounds that drew the stopped worker: %d", drawnWhileStopped);
        QVERIFY2(drawnWhileStopped > 0, "no round drew the stopped worker: the case tests nothing");
        QVERIFY(run.leftovers().isEmpty());
    }

    // --clients-per-round overrides the topology's; a value that is no count or fraction is refused.
    void theCommandLineSetsItAndRefusesNonsense() {
        Run bad;
        bad.start({"run", kSmall, "--clients-per-round", "-1"});
        QCOMPARE(bad.finish(60000), 2);
        QVERIFY2(bad.err.contains("--clients-per-round takes a count of workers or a fraction below 1"), bad.err.constData());
        Run tooMany;
        tooMany.start({"run", kSmall, "--clients-per-round", "5"});
        QCOMPARE(tooMany.finish(60000), 2);
        QVERIFY2(tooMany.err.contains("clients_per_round 5 draws more workers than the 4 there are"), tooMany.err.constData());
    }
};

QTEST_MAIN(SamplingRunTest)
#include "tst_samplingrun.moc"
