// End to end: `hips run` starts the agent and all role processes on loopback, trains, and
// leaves nothing running — after a normal end, a SIGINT, and a worker killed with SIGKILL.
// Every process the test starts carries HIPS_TEST_TAG in its environment, so the test can
// find (and count) exactly its own processes in /proc.
#include "ModeRegistry.h"
#include "RunHarness.h"
#include "Topology.h"
#include "../history/SmallDisk.h"

#include <QDir>
#include <QTcpServer>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>
#include <csignal>

using namespace hips::test;

class RunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A run directory reached through a symbolic link: the agent compares real paths, so the
    // roles start (the link is the user's, and leads nowhere outside the runs directory).
    void runDirectoryThroughASymlink() {
        Run run;
        QVERIFY(QDir().mkpath(run.dir.filePath("real")));
        QVERIFY(QFile::link(run.dir.filePath("real"), run.dir.filePath("link")));
        run.start({"run", kSmall, "--out", run.dir.filePath("link/run"), "--rounds", "2"});
        QVERIFY2(run.finish(120000) == 0, run.err.constData());
        QVERIFY(QFileInfo::exists(run.dir.filePath("real/run/net.params")));
        QVERIFY(run.leftovers().isEmpty());
    }

    // A learning rate that makes the model diverge: the loss column says nan (it said 0.0000, a
    // perfect loss) and a notice names the round and what to change.
    void aDivergedRunSaysSo() {
        Run run;
        run.start({"run", HIPS_SOURCE_DIR "/resources/topologies/default.json", "--out", run.dir.filePath("run"), "--rounds", "2",
                   "--model", "mlp", "--lr", "80", "--seed", "7"});
        QVERIFY2(run.finish(120000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("training loss is not a number from round 1 on") && run.out.contains("lower the learning rate"),
                 run.out.constData());
        QVERIFY2(run.out.contains("nan "), run.out.constData());
        QVERIFY2(!run.out.contains("0.0000 "), run.out.constData());
        // The history keeps the notice and the servers' refusals of the NaN pushes, each named once.
        const QByteArray shown = run.historyCommand({"show", "1"}).second;
        QVERIFY2(shown.contains("warning: controller: the workers' training loss is not a number"), shown.constData());
        QVERIFY2(shown.contains("warning: party1/server0: rejected input from"), shown.constData());
        QVERIFY2(!shown.contains("party1/server0: party1/server0"), shown.constData());
        // … and what ran: the topology in numbers and the settings, --lr and --seed as given.
        QVERIFY2(shown.contains("topology: parties 3, hosts 1, processes 11, training_workers 4, servers_per_party 1\n"),
                 shown.constData());
        QVERIFY2(shown.contains(" learning_rate=80 ") && shown.contains(" model=mlp ") && shown.contains(" seed=7 "), shown.constData());
        QVERIFY2(shown.contains("\nparties: ") && shown.contains(" party1.workers[0].count=2") && !shown.contains(".port="),
                 shown.constData());
    }

    // The last round is always evaluated, so eval_every beyond rounds means "at the end only" (it
    // was refused as "never evaluated").
    void evalEveryBeyondRoundsEvaluatesTheEnd() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.filePath("run"), "--rounds", "2", "--eval-every", "100"});
        QVERIFY2(run.finish(120000) == 0, run.err.constData());
        QVERIFY2(QRegularExpression("\\n    1 +- ").match(QString(run.out)).hasMatch(), run.out.constData());
        QVERIFY2(QRegularExpression("\\n    2 +0\\.\\d{4} ").match(QString(run.out)).hasMatch(), run.out.constData());
        QVERIFY2(run.out.contains("final test accuracy 0."), run.out.constData());
    }

    // A history on a disk that fills during the run: the run fails naming the cause, `hips run`
    // exits non-zero, and every round it printed is in the history (acknowledged only once stored).
    void fullHistoryDiskFailsTheRunWithItsCause() {
        Run run;
        SmallDisk disk(run.dir.filePath("disk"), "size=160k,mode=0700");
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        run.start({"run", kSmall, "--out", run.dir.filePath("run"), "--rounds", "400", "--history", disk.filePath("h.sqlite")});
        const int code = run.finish(180000);
        QVERIFY2(code != 0, run.out.constData());
        QVERIFY2(run.err.contains("history:") && run.err.contains("full"), run.err.constData());
        QVERIFY2(!run.out.contains("finished after"), run.out.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // A run directory on a full disk: the run fails naming the file and the cause, not a backtrace.
    void fullRunDirectoryDiskFailsTheRunWithItsCause() {
        Run run;
        SmallDisk disk(run.dir.filePath("disk"), "size=96k,mode=0700");
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        run.start({"run", kSmall, "--out", disk.filePath("run"), "--rounds", "400"});
        const int code = run.finish(180000);
        QVERIFY2(code != 0, run.out.constData());
        QVERIFY2(run.err.contains("No space left on device") || run.err.contains("no space left on device"), run.err.constData());
        QVERIFY2(!run.err.contains("frame #"), run.err.constData());  // a LibTorch backtrace
        QVERIFY(run.leftovers().isEmpty());
    }

    void runTrainsToTheEnd() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path()});
        const int code = run.finish(180000);
        QVERIFY2(code == 0, run.err.constData());
        // Every round is printed; the evaluator may skip one for a newer model (under load), never the last.
        for (int round = 1; round <= 5; ++round)
            QVERIFY2(QRegularExpression(QString("\\n\\s+%1\\s+([01]\\.\\d{4}|-) ").arg(round)).match(QString(run.out)).hasMatch(),
                     run.out.constData());
        QVERIFY2(QRegularExpression("\\n\\s+6\\s+[01]\\.\\d{4} ").match(QString(run.out)).hasMatch(), run.out.constData());
        QVERIFY(run.out.contains("finished after 6 rounds"));
        QFile meta(run.dir.filePath("net.meta"));
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const QJsonObject m = QJsonDocument::fromJson(meta.readAll()).object();
        QCOMPARE(m.value("global_iters").toInt(), 6);
        QVERIFY2(m.value("test_acc").toDouble() > 0.5, "the synthetic task was not learned");
        QVERIFY(QFileInfo(run.dir.filePath("net.params")).size() > 0);
        QFile metrics(run.dir.filePath("metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        const QByteArray all = metrics.readAll();
        QCOMPARE(all.count("\"kind\":\"train\""), 6 * 4);
        QCOMPARE(all.count("\"kind\":\"aggregate\""), 6);
        QVERIFY(run.leftovers().isEmpty());
        // Every process that trains or aggregates reports its CPU and memory with its traffic:
        // the 4 workers, 2 party servers, the global server and the master.
        QMap<QString, int> usage;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("metrics.jsonl")))
            if (r["kind"] == "usage") {
                QVERIFY2(r["cpu_percent"].toDouble(-1) >= 0 && r["rss_bytes"].toDouble() > 10e6, QJsonDocument(r).toJson().constData());
                ++usage[r["node"].toString()];
            }
        QCOMPARE(usage.size(), 8);

        // The history holds the run with the figures the run printed.
        const QRegularExpressionMatch printed =
            QRegularExpression("final test accuracy (\\d\\.\\d{4}), best (\\d\\.\\d{4})").match(QString(run.out));
        QVERIFY(printed.hasMatch());
        const QByteArray list = run.historyList();
        QVERIFY2(
            QRegularExpression(QString("small-synthetic .* finished\\s+%1\\s+%2\\s+6\\s").arg(printed.captured(2), printed.captured(1)))
                .match(QString(list))
                .hasMatch(),
            list.constData());

        // Reports in the four formats, from the history alone.
        for (const QString name : {"r.html", "r.pdf", "r.csv", "r.json"}) {
            const auto [status, output] = run.report(name);
            QVERIFY2(status == 0, output.constData());
            QVERIFY(QFileInfo(run.dir.filePath(name)).size() > 0);
        }
        const QByteArray pdfText = toolOutput("pdftotext", {run.dir.filePath("r.pdf"), "-"});
        QVERIFY2(pdfText.contains(printed.captured(1).toUtf8()), pdfText.constData());  // final accuracy
        for (const char* party : {"central", "party1", "party2"}) QVERIFY(pdfText.contains(party));
        QVERIFY(pdfText.contains("finished"));
        // The pages show the charts: some page carries the accuracy line's blue.
        toolOutput("pdftoppm", {"-r", "40", "-png", run.dir.filePath("r.pdf"), run.dir.filePath("page")});
        bool chartSeen = false;
        for (const QString& page : QDir(run.dir.path()).entryList({"page*.png"})) {
            const QImage image(run.dir.filePath(page));
            for (int y = 0; y < image.height() && !chartSeen; y += 2)
                for (int x = 0; x < image.width() && !chartSeen; ++x) {
                    const QColor c = image.pixelColor(x, y);
                    chartSeen = c.blue() > 150 && c.red() < 90 && c.green() > 90 && c.green() < 150;  // ≈ #1f77b4
                }
        }
        QVERIFY2(chartSeen, "no page of the PDF shows the accuracy chart");
        QFile json(run.dir.filePath("r.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(report["processes"].toArray().size(), 11);  // 3 central + 2 parties × (scheduler, server, 2 workers)
        for (const QJsonValue& p : report["processes"].toArray()) QCOMPARE(p.toObject()["state"].toString(), QStringLiteral("exited"));
        QCOMPARE(report["summary"].toObject()["final_test_acc"].toDouble(), printed.captured(1).toDouble());
    }

    // Every mode of the registry runs from `hips run --mode NAME` to the end, with the metrics its
    // policy promises: a train record per worker and round, a round per aggregate, and in the
    // asynchronous modes one applied push per worker (asgd, dcasgd) or per party (mixed_sync)
    // and round, each with its staleness.
    void everyModeTrainsToTheEnd_data() {
        QTest::addColumn<QString>("mode");
        for (const hips::StrategyInfo& m : hips::ModeRegistry::all()) QTest::newRow(qPrintable(m.name)) << m.name;
    }

    void everyModeTrainsToTheEnd() {
        QFETCH(QString, mode);
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path(), "--mode", mode});
        const int code = run.finish(180000);
        QVERIFY2(code == 0, run.err.constData());
        QVERIFY2(run.out.contains("mode " + mode.toUtf8() + ", 6 rounds"), run.out.constData());
        QVERIFY2(run.out.contains("finished after 6 rounds"), run.out.constData());
        const QRegularExpressionMatch acc = QRegularExpression("final test accuracy (\\d\\.\\d{4})").match(QString(run.out));
        QVERIFY2(acc.hasMatch() && acc.captured(1).toDouble() > 0.5, run.out.constData());
        QFile metrics(run.dir.filePath("metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        const QByteArray all = metrics.readAll();
        const bool local = mode == "local";
        if (local) QVERIFY2(run.out.contains("— 3 parties, 1 process, 1 training worker, model"), run.out.constData());
        QCOMPARE(all.count("\"kind\":\"train\""), local ? 6 : 6 * 4);
        QCOMPARE(all.count("\"kind\":\"aggregate\""), 6);
        const hips::ModePolicy policy = hips::ModeRegistry::policy(mode);
        const int pushesPerRound = policy.global == hips::TierSync::Rounds ? 0 : policy.party == hips::TierSync::Rounds ? 2 : 4;
        QCOMPARE(all.count("\"kind\":\"async_push\""), 6 * pushesPerRound);
        QCOMPARE(all.count("\"staleness\":"), 6 * pushesPerRound);
        // Each applied push names the worker behind it where parties forward single pushes.
        for (const QJsonObject& r : metricRecords(run.dir.filePath("metrics.jsonl")))
            if (r["kind"] == "async_push")
                QVERIFY2(r["origin"].toString().contains(pushesPerRound == 4 ? "/worker" : "/server"), qPrintable(r["origin"].toString()));
        QVERIFY(run.leftovers().isEmpty());
    }

    // ESync on emulated heterogeneous devices: the worker at slowdown 8 takes one local step per
    // synchronisation (it is the slowest), the others as many as fit in its step. The state
    // service goes by the step times measured last, so on a loaded machine a fast worker's step
    // can now and then measure slower than the slow one's, which then steps once more (CI saw
    // 1.1 steps per sync, one extra step in a round of ten): at most two extra in a round.
    void esyncSlowWorkerStepsOncePerSync() {
        Run run;
        const QString path = writeSmallVariant(run, {QJsonObject{{"count", 1}}, QJsonObject{{"count", 1}, {"slowdown", 8}}},
                                               {{"mode", "esync"}, {"epsilon", 0.001}, {"rounds", 3}});
        run.start({"run", path, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        double fastSteps = 0;
        int fastRows = 0, slowRows = 0;
        QHash<QString, int> lastTrafficRound;  // a party server counts global rounds too, not its syncs
        for (const QJsonObject& r : metricRecords(run.dir.filePath("run/metrics.jsonl"))) {
            if (r["kind"] == "traffic")
                lastTrafficRound[r["node"].toString()] = std::max(lastTrafficRound[r["node"].toString()], r["round"].toInt());
            if (r["kind"] != "train") continue;
            if (r["node"] == "party1/worker1") {
                QVERIFY2(r["steps_per_push"].toDouble() >= 1.0 && r["steps_per_push"].toDouble() <= 1.2 + 1e-9,
                         qPrintable(QString("the slowest worker took %1 steps per sync").arg(r["steps_per_push"].toDouble())));
                ++slowRows;
            } else {
                fastSteps += r["steps_per_push"].toDouble();
                ++fastRows;
            }
        }
        QCOMPARE(slowRows, 3);
        QCOMPARE(fastRows, 9);
        for (const char* server : {"party1/server0", "party2/server0"}) QCOMPARE(lastTrafficRound.value(server), 3);
        QVERIFY2(fastSteps / fastRows > 1.5, qPrintable(QString("fast workers took %1 steps per sync").arg(fastSteps / fastRows)));
    }

    // Timeouts measure a peer's silence, not the length of a round: a round much longer than
    // reply_timeout_s (a worker 300x slower than its peer, asleep) is no failure. (The timeout is
    // 10 s: it also bounds the start-up, where 2 s and then 4 s were too short for the workers to
    // register beside other tests and a user's run on two cores; 50 steps make a round of ~12 s
    // on a fast machine, 22 s here.)
    void roundsLongerThanTheReplyTimeoutAreNoFailure() {
        Run run;
        const QString path = writeSmallVariant(run, {QJsonObject{{"count", 1}}, QJsonObject{{"count", 1}, {"slowdown", 300}}},
                                               {{"reply_timeout_s", 10}, {"rounds", 1}, {"local_iters", 50}}, true);
        run.start({"run", path, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        double longest = 0;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("run/metrics.jsonl")))
            if (r["kind"] == "aggregate") longest = std::max(longest, r["round_s"].toDouble());
        QVERIFY2(longest > 10, qPrintable(QString("the longest round took %1 s; the test needs one over 10 s").arg(longest)));
    }

    // Backup workers: one party of four, one of them 8× slower, quorum 3. Rounds close with the
    // three fast ones at their pace, the slow one's pushes come late and are counted, and it
    // goes on from the newest model until the run is over.
    void quorumRoundsGoAtTheThirdFastestsPace() {
        Run run;
        const QString path = writeSmallVariant(run, {QJsonObject{{"count", 3}}, QJsonObject{{"count", 1}, {"slowdown", 8}}},
                                               {{"quorum", 3}, {"local_iters", 20}}, true);
        run.start({"run", path, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("finished after 6 rounds"), run.out.constData());
        double roundSeconds = 0, slowCompute = 0;
        int rounds = 0, slowRounds = 0;
        qint64 late = 0;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("run/metrics.jsonl"))) {
            if (r["kind"] == "aggregate") roundSeconds += r["round_s"].toDouble(), ++rounds;
            if (r["kind"] == "train" && r["node"] == "party1/worker3") slowCompute += r["compute_s"].toDouble(), ++slowRounds;
            if (r["kind"] == "traffic" && r["node"] == "party1/server0") late = std::max(late, r["late_pushes"].toInteger());
        }
        QCOMPARE(rounds, 6);
        QVERIFY2(slowRounds >= 1 && slowRounds < 6, qPrintable(QString::number(slowRounds)));
        QVERIFY2(late >= 1, "the slow worker's late push was not counted");
        // A round at the slow worker's pace would take at least its compute time; at the fast ones'
        // it takes an eighth of it and their communication. (The bound was half: on a loaded
        // CI machine two tests beside each other made a round 0.51 of it, still far from waiting.)
        QVERIFY2(roundSeconds / rounds < 0.75 * slowCompute / slowRounds,
                 qPrintable(
                     QString("rounds took %1 s, the slow worker's compute %2 s").arg(roundSeconds / rounds).arg(slowCompute / slowRounds)));
    }

    // A quorum of 1 party: party2's workers 8× slower, each of its pushes late at the global
    // server, which answers with a model one round or more ahead. The party takes up that round,
    // and the run ends. (It stayed a round behind, its next push late again, and an answer with
    // the model it had was never passed on to its workers: the run hung after round 1.)
    void aPartyLeftBehindByAQuorumTakesUpTheGlobalRound() {
        Run run;
        const QString path = writeSmallVariant(run, {QJsonObject{{"count", 2}}}, {{"quorum", 1}, {"local_iters", 20}, {"rounds", 8}});
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        QJsonArray parties = t["parties"].toArray();
        QJsonObject party2 = parties[2].toObject(), roles = party2["roles"].toObject();
        roles["workers"] = QJsonArray{QJsonObject{{"count", 2}, {"slowdown", 8}}};
        party2["roles"] = roles;
        parties[2] = party2;
        t["parties"] = parties;
        QVERIFY(f.resize(0) && f.write(QJsonDocument(t).toJson()) > 0);
        f.close();
        run.start({"run", path, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(90000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("finished after 8 rounds"), run.out.constData());
        int party2Rounds = 0;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("run/metrics.jsonl")))
            party2Rounds += r["kind"] == "train" && r["node"] == "party2/worker0";
        QVERIFY(party2Rounds >= 1);
    }

    void corruptHistoryIsRefusedAndKept() {
        Run run;
        QFile junk(run.history());
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("this is not a database");
        junk.close();
        run.start({"run", kSmall, "--out", run.dir.path()});
        QCOMPARE(run.finish(30000), 2);
        QVERIFY2(run.err.contains("is not a SQLite file") && run.err.contains("left untouched"), run.err.constData());
        QVERIFY(junk.open(QIODevice::ReadOnly));
        QCOMPARE(junk.readAll(), QByteArray("this is not a database"));
    }

    // HiPS's ENABLE_CENTRAL_WORKER: central workers push to the global server directly, next
    // to the party servers; the global server waits for all of them each round.
    // A host given as an IPv6 address: every role listens on [::1] (bracketed in ZeroMQ's
    // endpoints, sockets with IPv6 on) and the host counts as this machine, not one to reach by SSH.
    void ipv6LoopbackTrains() {
        Run run;
        QFile small(kSmall);
        QVERIFY(small.open(QIODevice::ReadOnly));
        QByteArray text = small.readAll().replace("\"address\": \"127.0.0.1\"", "\"address\": \"::1\"");
        QVERIFY(text.contains("\"::1\""));
        QFile v6(run.topologies.filePath("v6.json"));
        QVERIFY(v6.open(QIODevice::WriteOnly) && v6.write(text) == text.size());
        v6.close();
        run.start({"run", v6.fileName(), "--out", run.dir.filePath("run"), "--rounds", "2"});
        QVERIFY2(run.finish(120000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("final test accuracy 0."), run.out.constData());
        QCOMPARE(hips::tcpEndpoint(QStringLiteral("::1"), 9100), QStringLiteral("tcp://[::1]:9100"));
        QCOMPARE(hips::tcpEndpoint(QStringLiteral("10.0.0.5"), 9100), QStringLiteral("tcp://10.0.0.5:9100"));
        QVERIFY(run.leftovers().isEmpty());
    }

    void centralWorkersTrainWhenEnabled() {
        Run run;
        run.start({"run", HIPS_SOURCE_DIR "/tests/data/topologies/central_workers.json", "--out", run.dir.path()});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        QVERIFY(run.out.contains("4 training workers"));
        QFile metrics(run.dir.filePath("metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        const QByteArray all = metrics.readAll();
        int central = 0;
        for (const QByteArray& line : all.split('\n')) {
            const QJsonObject r = QJsonDocument::fromJson(line).object();
            central += r.value("kind") == "train" && r.value("node").toString().startsWith("central/worker");
        }
        QCOMPARE(central, 2 * 4);  // two central workers, four rounds
        QVERIFY(run.leftovers().isEmpty());
    }

    void killedWorkerFailsTheRunAndNothingIsLeft() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path(), "--rounds", "500"});
        QVERIFY2(run.waitForOutput("\n    2 ", 120000), run.out.constData());
        const QList<qint64> victim = taggedProcesses(run.tag, "--node party1/worker1");
        QCOMPARE(victim.size(), 1);
        ::kill(pid_t(victim.first()), SIGKILL);
        const int code = run.finish(60000);
        QCOMPARE(code, 1);
        QVERIFY2(run.err.contains("party1/worker1 (pid " + QByteArray::number(victim.first()) + ") was killed by signal 9"),
                 run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
        const QByteArray shown = run.historyCommand({"show", "1"}).second;  // the history keeps the reason
        QVERIFY2(shown.contains("status: failed") && shown.contains("error: controller: party1/worker1 (pid"), shown.constData());
    }

    // Trainers are forked by one zygote per agent; if it dies, so do they, and the run fails
    // naming it rather than a trainer.
    void killedTrainerZygoteFailsTheRunNamingIt() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path(), "--rounds", "500"});
        QVERIFY2(run.waitForOutput("\n    2 ", 120000), run.out.constData());
        const QList<qint64> zygote = taggedProcesses(run.tag, "hips-trainer zygote");
        QCOMPARE(zygote.size(), 1);
        QCOMPARE(taggedProcesses(run.tag, "hips-trainer role").size(), 5);  // its children: 4 workers, the master
        ::kill(pid_t(zygote.first()), SIGKILL);
        QCOMPARE(run.finish(60000), 1);
        QVERIFY2(run.err.contains("the trainer zygote (pid " + QByteArray::number(zygote.first()) + ") was killed by signal 9"),
                 run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // HIPS_TRAINER_ZYGOTE=0: every trainer is a process of its own, started afresh.
    // (And with every role a process of its own, no secret in any environment: issue 44.)
    void trainersStartAfreshWithoutTheZygote() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path(), "--rounds", "6"}, {"HIPS_TRAINER_ZYGOTE=0"});  // (on past row 1)
        QVERIFY2(run.waitForOutput("\n    1 ", 120000), run.out.constData());
        QVERIFY(taggedProcesses(run.tag, "hips-trainer zygote").isEmpty());
        // Every key reaches its process on stdin: none is in an environment /proc shows (the
        // agent's, the schedulers', servers' and trainers', each started as a process here).
        const QList<qint64> pids = taggedProcesses(run.tag);
        QVERIFY(pids.size() >= 10);  // small.json: the agent and 11 roles (some may have ended)
        for (const qint64 pid : pids) {
            QFile env(QStringLiteral("/proc/%1/environ").arg(pid));
            if (!env.open(QIODevice::ReadOnly)) continue;  // (ended meanwhile)
            const QByteArray text = env.readAll();
            QVERIFY2(!text.contains("HIPS_NODE_KEY=") && !text.contains("HIPS_AGENT_KEYS="), qPrintable(QString::number(pid)));
        }
        QCOMPARE(run.finish(120000), 0);
        QVERIFY2(run.out.contains("finished after 6 rounds"), run.out.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // A hung process (SIGSTOP) does not exit, so only heartbeats can reveal it: its scheduler
    // must declare it dead, the run must fail naming it, and the stopped process must go too.
    void hungWorkerIsDetectedByHeartbeats() {
        Run run;
        run.start({"run", HIPS_SOURCE_DIR "/tests/data/topologies/short_heartbeat.json", "--out", run.dir.path(), "--rounds", "5000"});
        QVERIFY2(run.waitForOutput("\n    2 ", 120000), run.out.constData());
        const QList<qint64> victim = taggedProcesses(run.tag, "--node party2/worker0");
        QCOMPARE(victim.size(), 1);
        ::kill(pid_t(victim.first()), SIGSTOP);
        QCOMPARE(run.finish(60000), 1);
        QVERIFY2(run.err.contains("node party2/worker0 sent no heartbeat for 3 s"), run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // A controller stopped (SIGSTOP, Ctrl-Z) past the agents' patience (orphan_timeout_s 0,
    // agent_timeout_s 3): the agent ends the run, and the controller, once continued, names itself
    // as the cause, not the agent.
    void stoppedControllerNamesItself() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path(), "--rounds", "5000", "--orphan-timeout", "0", "--agent-timeout", "3"});
        QVERIFY2(run.waitForOutput("\n    1 ", 120000), run.out.constData());
        ::kill(pid_t(run.process.processId()), SIGSTOP);
        QElapsedTimer waited;
        waited.start();
        while (!taggedProcesses(run.tag, "hips-agent daemon").isEmpty() && waited.elapsed() < 60000) QTest::qWait(200);
        ::kill(pid_t(run.process.processId()), SIGCONT);
        const int code = run.finish(60000);
        QVERIFY2(code == 1, qPrintable(QString("exit %1: %2").arg(code).arg(QString::fromUtf8(run.err))));
        QVERIFY2(run.err.contains("this controller did not run for over 3 s"), run.err.constData());
        QVERIFY2(!run.err.contains("agent on localhost"), run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    void sigintStopsEveryProcess() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.path(), "--rounds", "500"});
        QVERIFY2(run.waitForOutput("\n    1 ", 120000), run.out.constData());
        QVERIFY(taggedProcesses(run.tag).size() >= 12);  // hips-agent and 11 roles
        ::kill(pid_t(run.process.processId()), SIGINT);
        QCOMPARE(run.finish(60000), 128 + SIGINT);
        QVERIFY2(run.err.contains("interrupted by SIGINT"), run.err.constData());
        QVERIFY2(run.out.contains("\nstopped after "), run.out.constData());
        QVERIFY(run.leftovers().isEmpty());
        const QByteArray shown = run.historyCommand({"show", "1"}).second;  // a user's stop, not a failure
        QVERIFY2(shown.contains("status: stopped") && !shown.contains("error:"), shown.constData());
        QVERIFY2(shown.contains("\nreason: interrupted by SIGINT"), shown.constData());  // (its reason was only in the list's filter)
    }

    void brokenTopologyIsRefused() {
        Run run;
        run.start({"run", HIPS_SOURCE_DIR "/tests/data/topologies/port_clash.json"});
        QCOMPARE(run.finish(30000), 2);
        const QString clash = QStringLiteral("$.parties[1].roles.scheduler.port: port %1 on host 'local' is already used");
        QVERIFY2(run.err.contains(clash.arg(run.ports.of(19101)).toUtf8()), run.err.constData());
        // An option beyond a field's range is refused before anything starts, as the file would be.
        Run tooFast;
        tooFast.start({"run", kSmall, "--lr", "200"});
        QCOMPARE(tooFast.finish(30000), 2);
        QVERIFY2(tooFast.err.contains("hips run: with the options given: $.training.learning_rate: 200 is out of range; "
                                      "use a number in [1e-09, 100]") &&
                     !tooFast.out.contains("round "),
                 tooFast.err.constData());
        Run noRounds;  // an option's own error names the option
        noRounds.start({"run", kSmall, "--rounds", "0"});
        QCOMPARE(noRounds.finish(30000), 2);
        QVERIFY2(noRounds.err.contains("--rounds takes a positive integer (up to 2147483647); got '0'"), noRounds.err.constData());
        Run badSeed;
        badSeed.start({"run", kSmall, "--seed", "-1"});
        QCOMPARE(badSeed.finish(30000), 2);
        QVERIFY2(badSeed.err.contains("--seed takes a whole number from 0 to 2147483647; got '-1'"), badSeed.err.constData());
        Run notANumber;  // it ran, with the proximal term silently off
        notANumber.start({"run", kSmall, "--proximal-mu", "nan"});
        QCOMPARE(notANumber.finish(30000), 2);
        QVERIFY2(notANumber.err.contains("--proximal-mu must be a number >= 0"), notANumber.err.constData());
        Run misspelt;  // which command refused it, and where its options are
        misspelt.start({"run", kSmall, "--round", "3"});
        QCOMPARE(misspelt.finish(30000), 2);
        QVERIFY2(misspelt.err.contains("hips run: Unknown option 'round'; see hips run --help"), misspelt.err.constData());
        Run stray;  // (`hips run topo.json 50` ran 20 rounds)
        stray.start({"run", kSmall, "50"});
        QCOMPARE(stray.finish(30000), 2);
        QVERIFY2(stray.err.contains("hips run: one TOPOLOGY at most, got: ") && stray.err.contains("small.json 50 (options are written"),
                 stray.err.constData());
        Run both;  // (the later won, unsaid)
        both.start({"run", kSmall, "--local-iters", "10", "--local-epochs", "2"});
        QCOMPARE(both.finish(30000), 2);
        QVERIFY2(both.err.contains("--local-iters and --local-epochs exclude each other"), both.err.constData());
        Run sshTimeout;  // (a typo was taken as 1 s)
        sshTimeout.start({"run", kSmall, "--ssh-timeout", "30s"});
        QCOMPARE(sshTimeout.finish(30000), 2);
        QVERIFY2(sshTimeout.err.contains("--ssh-timeout takes whole seconds, 1 or more; got '30s'"), sshTimeout.err.constData());
        Run help;  // the usage line names the command, not the executable's path alone
        help.start({"report", "--help"});
        QCOMPARE(help.finish(30000), 0);
        QVERIFY2(help.out.startsWith("Usage: hips report [options] RUN\n"), help.out.constData());
        Run validate;
        validate.start({"validate", kSmall});
        QCOMPARE(validate.finish(30000), 0);
        QVERIFY(validate.out.contains("valid: 3 parties, 11 processes, 4 training workers"));
        QVERIFY2(!validate.out.contains("note:"), validate.out.constData());
        Run advised;  // runs, but is measured to train poorly: said with what to use, not refused
        advised.start({"validate", writeSmallVariant(advised, {QJsonObject{{"count", 2}}}, {{"mode", "ssgd"}, {"compression", "2bit"}})});
        QCOMPARE(advised.finish(30000), 0);
        QVERIFY2(advised.out.contains("note: $.training.compression: 2bit under mode ssgd loses much of the accuracy"),
                 advised.out.constData());
    }

    // The controller and the agent keep each other alive with ping/pong, so a round longer
    // than their silence limit (agent_timeout_s, 3 s here), with no metric in between, must not
    // end the run. (Its one worker's steps are made 400 times slower, asleep: the round is long
    // without taking the CPU from the tests beside it, as 16,000 real steps of four workers did.)
    void longQuietRoundIsNotMistakenForADeadAgent() {
        Run run;
        const QString path = writeSmallVariant(run, {QJsonObject{{"count", 1}, {"slowdown", 400}}},
                                               {{"rounds", 1}, {"local_iters", 16}, {"agent_timeout_s", 3}}, true);
        run.start({"run", path, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(240000) == 0, run.err.constData());
        QFile metrics(run.dir.filePath("run/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        double longest = 0;
        for (const QByteArray& line : metrics.readAll().split('\n')) {
            const QJsonObject r = QJsonDocument::fromJson(line).object();
            if (r.value("kind") == "train") longest = std::max(longest, r.value("compute_s").toDouble());
        }
        QVERIFY2(longest > 4, qPrintable(QString("the round took only %1 s; raise --local-iters").arg(longest)));
    }

    void missingAgentFailsFast() {
        Run run;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HIPS_AGENT", "/nonexistent/hips-agent");
        run.process.setProcessEnvironment(env);
        run.process.start(kHips, {"run", kSmall, "--out", run.dir.path(), "--history", run.history()});
        QCOMPARE(run.finish(30000), 1);
        QVERIFY2(run.err.contains("/nonexistent/hips-agent is missing or not executable"), run.err.constData());
    }

    // Also read as a log (`hips run > log 2>&1`): the error comes after the lines printed before it.
    void portInUseFailsWithTheRoleNamed() {
        Run run;
        QTcpServer blocker;  // occupies party2's server port
        QVERIFY(blocker.listen(QHostAddress::LocalHost, quint16(run.ports.of(19301))));
        run.process.setProcessChannelMode(QProcess::MergedChannels);
        run.start({"run", kSmall, "--out", run.dir.path()});
        QCOMPARE(run.finish(120000), 1);
        const QByteArray& log = run.out;
        const qsizetype error = log.indexOf("party2/server0: cannot listen");
        QVERIFY2(error >= 0 && log.contains("Address already in use"), log.constData());
        QVERIFY2(log.indexOf("hips run: small") < error && log.indexOf("round  test_acc") < error, log.constData());
        QVERIFY(run.leftovers().isEmpty());
    }
};

QTEST_GUILESS_MAIN(RunTest)
#include "tst_run.moc"
