// The run store: schema and migrations, writes through the writer thread, refusal of corrupt
// and foreign files (left byte-for-byte untouched), interrupted runs, cascading deletes.
// Durability (full disk, failed statements, damage, concurrency, read-only, permissions) is in
// tst_historydurability.
#include "RunProgress.h"
#include "RunReport.h"
#include "RunClock.h"
#include "RunStore.h"
#include "HistoryTestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <atomic>
#include <cmath>
#include <sys/stat.h>
#include <QCryptographicHash>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;
using namespace hips::test;

class RunStoreTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void writesAndReadsBack() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), RunStore::kSchemaVersion);
        const qint64 run = store->beginRun("default", R"({"name":"default"})", {{"rounds", 3}});
        QVERIFY(run > 0);
        for (int i = 0; i < 1000; ++i) store->appendMetric(run, 1.0 + i, "central/master_worker", i, "test_acc", i / 1000.0);
        store->appendEvent(run, 2.0, "error", "party1/worker1", "killed by signal 9");
        store->finishRun(run, "finished", {{"final_test_acc", 0.88}});
        store->flush();
        QCOMPARE(store->metricCount(run), 1000);
        const auto r = store->run(run);
        QVERIFY(r.has_value());
        QCOMPARE(r->status, QStringLiteral("finished"));
        QCOMPARE(r->summary.value("final_test_acc").toDouble(), 0.88);
        QVERIFY(r->ended >= r->started);
        QCOMPARE(store->runs().size(), 1);
    }

    void migratesFromTheFirstVersion() {
        QTemporaryDir dir;
        const QString path = dir.filePath("old.sqlite");
        rawSql(path, {"CREATE TABLE hips_schema (version INTEGER NOT NULL)", "INSERT INTO hips_schema VALUES (0)"});
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), RunStore::kSchemaVersion);
        QVERIFY(store->beginRun("after-migration", "{}", {}) > 0);
    }

    // A version-1 file kept traffic as per-node metric rows; version 2 moves them into the
    // traffic table, so the run keeps its bytes across parties and its metrics lose them.
    void migratesVersionOneTrafficIntoTheTrafficTable() {
        QTemporaryDir dir;
        const QString path = dir.filePath("v1.sqlite");
        rawSql(path, {
                         "CREATE TABLE hips_schema (version INTEGER NOT NULL)",
                         "INSERT INTO hips_schema VALUES (1)",
                         "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, topology TEXT, settings TEXT,"
                         " started REAL NOT NULL, ended REAL, status TEXT NOT NULL, summary TEXT, controller_pid INTEGER)",
                         "CREATE TABLE processes (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, node TEXT, role TEXT,"
                         " party TEXT, host TEXT, rank INTEGER, pid INTEGER, started REAL, ended REAL, exit_code INTEGER,"
                         " crashed INTEGER, error TEXT)",
                         "CREATE TABLE metrics (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t REAL, source TEXT,"
                         " round INTEGER, name TEXT, value REAL)",
                         "CREATE TABLE traffic (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t REAL, link TEXT,"
                         " tier TEXT, bytes INTEGER)",
                         "CREATE TABLE events (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t REAL, level TEXT,"
                         " source TEXT, message TEXT)",
                         "CREATE INDEX metrics_run ON metrics(run_id, name, round)",
                         "CREATE INDEX events_run ON events(run_id)",
                         "INSERT INTO runs VALUES (1, 'old', '{}', '{}', 100, 110, 'finished', '{}', 0)",
                         "INSERT INTO metrics VALUES (1, 101, 'party1/server0', 1, 'traffic.sent_across', 1000)",
                         "INSERT INTO metrics VALUES (1, 102, 'party1/server0', 2, 'traffic.sent_across', 3000)",
                         "INSERT INTO metrics VALUES (1, 102, 'party2/server0', 2, 'traffic.sent_across', 500)",
                         "INSERT INTO metrics VALUES (1, 102, 'party1/worker0', 2, 'traffic.sent_inside', 700)",
                         "INSERT INTO metrics VALUES (1, 102, 'central/global_server0', 2, 'aggregate.apply_s', 0.1)",
                     });
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), RunStore::kSchemaVersion);
        QCOMPARE(store->metricCount(1), 1);  // only the aggregate row stays a metric
        QCOMPARE(store->traffic(1).size(), 4);
        QCOMPARE(store->facts(1).bytesAcross, 3500.0);
        QCOMPARE(store->facts(1).rounds, 2);
    }

    void processesAreUpsertedPerNode() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("p", "{}", {});
        ProcessRecord p{"party1/worker0", "worker", "party1", "h1", "pending", 0, 0, 0, 0, 0, false, {}};
        store->recordProcess(run, p);
        p.state = "running", p.pid = 4242, p.started = 10;
        store->recordProcess(run, p);
        p.state = "failed", p.ended = 12, p.exitCode = 9, p.crashed = true, p.error = "killed";
        store->recordProcess(run, p);
        ProcessRecord scheduler;
        scheduler.node = "central/scheduler", scheduler.state = "pending";
        store->recordProcess(run, scheduler);
        store->flush();
        const QList<ProcessRecord> rows = store->processes(run);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[1].node, QStringLiteral("party1/worker0"));
        QCOMPARE(rows[1].state, QStringLiteral("failed"));
        QCOMPARE(rows[1].pid, 4242);
        QCOMPARE(rows[1].started, 10.0);
        QCOMPARE(rows[1].exitCode, 9);
        QVERIFY(rows[1].crashed);
        QCOMPARE(rows[1].error, QStringLiteral("killed"));
    }

    // The commit listener fires only once the rows are visible to another connection, which is
    // what lets the controller acknowledge agent events after they are durable.
    void commitListenerFiresAfterTheRowsAreVisible() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        auto store = RunStore::open(path, &error);
        auto observer = RunStore::open(path, &error);
        const qint64 run = store->beginRun("acks", "{}", {});
        std::atomic<quint64> seen{0};
        const quint64 token = store->setCommitListener([&](quint64 mark) { seen = mark; });
        for (int i = 0; i < 250; ++i) store->appendMetric(run, i, "w", i, "loss", i);
        const quint64 mark = store->postedMark();
        QTRY_VERIFY(seen.load() >= mark);
        QCOMPARE(store->committedMark(), seen.load());
        QCOMPARE(observer->metricCount(run), 250);
        // A newer listener is not removed by the old owner's token.
        std::atomic<int> newer{0};
        store->setCommitListener([&](quint64) { ++newer; });
        store->clearCommitListener(token);
        store->appendMetric(run, 1, "w", 1, "loss", 1);
        store->flush();
        QVERIFY(newer.load() >= 1);
        store->setCommitListener({});
    }

    // Rows posted while the writer is busy go in together: 200,000 rows take a handful of
    // transactions, not one each (the listener hears each commit once).
    void theWriterBatchesRowsIntoFewTransactions() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("batch", "{}", {});
        std::atomic<int> commits{0};
        const quint64 token = store->setCommitListener([&](quint64) { ++commits; });
        constexpr int kRows = 200000;
        for (int i = 0; i < kRows; ++i) store->appendMetric(run, i, "w", i, "loss", i);
        store->flush();
        store->clearCommitListener(token);
        QCOMPARE(store->metricCount(run), kRows);
        QVERIFY2(commits.load() < 100, qPrintable(QString("%1 commits for %2 rows").arg(commits.load()).arg(kRows)));
    }

    void runListCarriesTheFactsOfEachRun() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        for (int r = 0; r < 3; ++r) {
            const qint64 run = store->beginRun(QString("run%1").arg(r), "{}", {});
            for (int round = 1; round <= 4 + r; ++round) {
                store->appendMetric(run, round, "central/global_server0", round, "aggregate.apply_s", 0.01);
                store->appendMetric(run, round, "central/master_worker", round, "eval.test_acc", 0.5 + 0.1 * r - 0.01 * round);
                store->appendTraffic(run, {double(round), "party1/server0>central/global_server0", "across", 100 * round, round});
                store->appendTraffic(run, {double(round), "party1/worker0>party1/server0", "inside", 1000 * round, round});
            }
        }
        store->flush();
        const QList<RunListEntry> list = store->runList();
        QCOMPARE(list.size(), 3);
        for (const RunListEntry& e : list) {
            const RunFacts f = store->facts(e.run.id);
            QCOMPARE(e.facts.rounds, f.rounds);
            QCOMPARE(e.facts.bestAccuracy, f.bestAccuracy);
            QCOMPARE(e.facts.finalAccuracy, f.finalAccuracy);
            QCOMPARE(e.facts.bytesAcross, f.bytesAcross);
        }
        QCOMPARE(list[2].facts.rounds, 6);
        QCOMPARE(list[2].facts.bestAccuracy, 0.69);
        QCOMPARE(list[2].facts.finalAccuracy, 0.64);
        QCOMPARE(list[2].facts.bytesAcross, 600.0);
    }

    // hips run --resume: a run is found by its directory (and its directory by its id); resuming
    // from round 2 drops what was recorded after it and makes the run 'running' again.
    void resumedRunKeepsItsRowsUpToTheCheckpoint() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 other = store->beginRun("other", "{}", {}, "/runs/other");
        const qint64 run = store->beginRun("cut", "{\"rounds\": 4}", {{"rounds", 4}}, "/runs/cut");
        for (int round = 1; round <= 4; ++round) {
            store->appendMetric(run, round, "c/global_server0", round, "aggregate.round_s", 1.0);
            store->appendTraffic(run, TrafficRecord{double(round), "p/server0>c/global_server0", "across", 100 * round, round});
        }
        store->finishRun(run, "failed", {});
        store->markAgentEvent(run, "localhost", 40, 9000);
        store->resumeRun(run, 2, "{\"rounds\": 9}", {{"rounds", 9}}, 4200);  // going on to more rounds
        QVERIFY(store->flush());
        // The old agents' marks go; the history holds what the resume kept of metrics.jsonl (an
        // attach before the new agents' first event cut it to nothing).
        QCOMPARE(store->agentMarks(run).keys(), QList<QString>{""});
        QCOMPARE(store->agentMarks(run).value("").metricsBytes, qint64(4200));
        QCOMPARE(store->runOfDirectory("/runs/cut"), std::optional<qint64>(run));
        QCOMPARE(store->runOfDirectory("/runs/other"), std::optional<qint64>(other));
        QVERIFY(!store->runOfDirectory("/runs/none"));
        QCOMPARE(store->runDirectory(run), QString("/runs/cut"));
        QCOMPARE(store->run(run)->status, QString("running"));
        QCOMPARE(store->run(run)->ended, 0.0);
        QCOMPARE(store->metrics(run).size(), 4);  // kept until the resumed run records a round of its own
        store->cutRunAfter(run, 2);
        QVERIFY(store->flush());
        QCOMPARE(store->metrics(run).size(), 2);
        QCOMPARE(store->traffic(run).size(), 2);
        QCOMPARE(store->traffic(run).last().bytes, qint64(200));
        QVERIFY(store->eventMessages(run, "info").join('\n').contains("resumed from the checkpoint of round 2"));
        QCOMPARE(store->settings(run).value("rounds").toInt(), 9);
        QCOMPARE(store->topologyJson(run), QByteArray("{\"rounds\": 9}"));
    }

    // A resume that ends before its first round puts the run back as it was: its status, end,
    // summary, topology, settings and rows; its marker goes and an error event says why.
    void aResumeThatFailsAtOnceLeavesTheRunAsItWas() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("stopped", "{\"rounds\": 4}", {{"rounds", 4}});
        for (int round = 1; round <= 3; ++round) store->appendMetric(run, round, "c/global_server0", round, "aggregate.round_s", 1.0);
        store->finishRun(run, "stopped", {{"reason", "stopped from HiPS Studio"}});
        QVERIFY(store->flush());
        const RunRecord before = *store->run(run);
        const double resumedAt = store->resumeRun(run, 2, "{\"rounds\": 9}", {{"rounds", 9}}, 0);
        store->appendMetric(run, resumedAt + 1, "p/worker0", -1, "startup.process_s", 0.1);  // (the attempt's own: it goes too)
        store->restoreRun(before, resumedAt, "{\"rounds\": 4}", {{"rounds", 4}},
                          "resuming from the checkpoint of round 2 failed before its first round: boom");
        QVERIFY(store->flush());
        const RunRecord after = *store->run(run);
        QCOMPARE(after.status, QString("stopped"));
        QCOMPARE(after.ended, before.ended);
        QCOMPARE(after.summary.value("reason").toString(), QString("stopped from HiPS Studio"));
        QCOMPARE(store->metrics(run).size(), 3);
        QCOMPARE(store->settings(run).value("rounds").toInt(), 4);
        QVERIFY(store->topologyJson(run) == QByteArray("{\"rounds\": 4}") && !store->pendingCut(run));  // (no cut to come)
        QVERIFY(!store->eventMessages(run, "info").join('\n').contains("resumed from the checkpoint"));
        QVERIFY(store->eventMessages(run, "error").join('\n').contains("failed before its first round: boom"));
    }

    // A restarted evaluator (the master) starts from the newest round without naming the rounds
    // it missed: an evaluation of round 3 releases round 2, which will never have an accuracy.
    void anEvaluationOfANewerRoundReleasesTheRoundsBefore() {
        RunProgress progress(1, 4, 1);
        QList<RoundRow> rows;
        for (int round = 1; round <= 3; ++round) {
            rows += progress.ingest({{"kind", "train"}, {"node", "p/worker0"}, {"round", round}, {"loss", 1.0}, {"samples", 64}}, round);
            rows += progress.ingest({{"kind", "aggregate"}, {"node", "c/global_server0"}, {"round", round}}, round + 0.5);
            if (round == 1) rows += progress.ingest({{"kind", "eval"}, {"node", "c/master"}, {"round", 1}, {"test_acc", 0.5}}, 1.6);
        }
        QCOMPARE(rows.size(), 1);  // round 2 waits for its evaluation ...
        rows += progress.ingest({{"kind", "eval"}, {"node", "c/master"}, {"round", 3}, {"test_acc", 0.7}}, 3.6);
        QCOMPARE(rows.size(), 3);  // ... until a newer round's comes
        QCOMPARE(rows[1].round, 2);
        QVERIFY(std::isnan(rows[1].testAccuracy));
        QCOMPARE(rows[2].testAccuracy, 0.7);
    }

    // A round whose records all died with their agent (fault_policy continue restarts it): the
    // next round's aggregate closes it (rounds close in order), as a row without figures, and the
    // rows after it are not held back.
    void aRoundWithoutRecordsIsClosedByTheNextAggregate() {
        RunProgress progress(1, 4, 1);
        QList<RoundRow> rows;
        for (int round : {1, 3}) {
            rows += progress.ingest({{"kind", "train"}, {"node", "p/worker0"}, {"round", round}, {"loss", 1.0}, {"samples", 64}}, round);
            rows += progress.ingest({{"kind", "aggregate"}, {"node", "c/global_server0"}, {"round", round}}, round + 0.5);
            rows += progress.ingest({{"kind", "eval"}, {"node", "c/master"}, {"round", round}, {"test_acc", 0.1 * round}}, round + 0.6);
        }
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[1].round, 2);
        QVERIFY(std::isnan(rows[1].testAccuracy));
        QCOMPARE(rows[1].trainLoss, 0.0);
        QVERIFY(rows[1].trainReports == 0 && rows[0].trainReports == 1);  // nobody trained round 2: the table's "-"
        QCOMPARE(rows[2].round, 3);
        QCOMPARE(rows[2].testAccuracy, 0.3);
        QCOMPARE(progress.aggregatedRounds(), 3);
    }

    void storedRowsAreTheLiveRows() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("rows", R"({"name":"rows"})", {{"rounds", 4}});
        const double t0 = store->run(run)->started;
        RunProgress live(2, 4, 2);
        QList<RoundRow> liveRows;
        auto report = [&](const QJsonObject& r) {
            store->appendRecord(run, r);
            liveRows += live.ingest(r, r["t"].toDouble() - t0);
        };
        for (int round = 1; round <= 4; ++round) {
            const double t = t0 + 1.5 * round;
            for (int w = 0; w < 2; ++w)
                report({{"kind", "train"},
                        {"node", QString("p/worker%1").arg(w)},
                        {"t", t + 0.1 * w},
                        {"round", round},
                        {"loss", 1.0 / (round + w)},
                        {"samples", 640 + 64 * w},
                        {"compute_s", 1.0},
                        {"comm_s", 0.25 * w}});
            report({{"kind", "traffic"},
                    {"node", "p/server0"},
                    {"t", t + 0.2},
                    {"round", round},
                    {"links", QJsonArray{QJsonObject{{"peer", "c/global_server0"}, {"tier", "across"}, {"sent", 1e6 * round}},
                                         QJsonObject{{"peer", "p/worker0"}, {"tier", "inside"}, {"sent", 3e6 * round}}}}});
            if (round == 4)  // a second report in the same millisecond (a party server's last model, then its end)
                report({{"kind", "traffic"},
                        {"node", "p/server0"},
                        {"t", t + 0.2},
                        {"round", round},
                        {"links", QJsonArray{QJsonObject{{"peer", "c/global_server0"}, {"tier", "across"}, {"sent", 4.5e6}},
                                             QJsonObject{{"peer", "p/worker0"}, {"tier", "inside"}, {"sent", 12.5e6}}}}});
            report({{"kind", "aggregate"}, {"node", "c/global_server0"}, {"t", t + 0.3}, {"round", round}, {"round_s", 1.5}});
            if (round % 2 == 0)
                report({{"kind", "eval"}, {"node", "c/master_worker"}, {"t", t + 0.7}, {"round", round}, {"test_acc", 0.5 + 0.1 * round}});
        }
        liveRows += live.finish();
        store->flush();
        const auto stored = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(stored, qPrintable(error));
        QCOMPARE(stored->rounds.rows.size(), 4);
        QCOMPARE(liveRows.size(), 4);
        for (int i = 0; i < 4; ++i) {
            const RoundRow &a = liveRows[i], &b = stored->rounds.rows[i];
            QCOMPARE(b.round, a.round);
            QCOMPARE(b.trainLoss, a.trainLoss);
            QCOMPARE(b.samplesPerSecond, a.samplesPerSecond);
            QCOMPARE(b.bytesInside, a.bytesInside);
            QCOMPARE(b.bytesAcross, a.bytesAcross);
            QCOMPARE(b.elapsed, a.elapsed);
            QCOMPARE(std::isnan(b.testAccuracy), std::isnan(a.testAccuracy));
            if (!std::isnan(a.testAccuracy)) QCOMPARE(b.testAccuracy, a.testAccuracy);
            QCOMPARE(stored->throughputByRound[i].y(), a.samplesPerSecond);
            QCOMPARE(stored->trainLossByRound[i].y(), a.trainLoss);
        }
        QCOMPARE(stored->samplesPerSecond, liveRows.last().samplesPerSecond);  // the summary's figure too
        // Samples trained so far / seconds until the round was applied (its aggregate, at +0.3 s).
        QVERIFY(std::abs(liveRows[1].samplesPerSecond - (640 + 704) * 2 / (1.5 * 2 + 0.3)) < 1e-3);  // t is unix time: µs apart
    }

    void reportDerivesFiguresAndWritesCsvAndJson() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("report, \"quoted\"", R"({"name":"r"})", {{"rounds", 3}});
        const double t0 = store->run(run)->started;
        for (int round = 1; round <= 3; ++round) {
            const double t = t0 + 2 * round;
            for (const char* w : {"party1/worker0", "party2/worker0"}) {
                store->appendMetric(run, t, w, round, "train.samples", 640);
                store->appendMetric(run, t, w, round, "train.loss", 1.0 / round);
                store->appendMetric(run, t, w, round, "train.compute_s", 1.5);
                store->appendMetric(run, t, w, round, "train.comm_s", 0.5);
            }
            store->appendMetric(run, t, "central/global_server0", round, "aggregate.round_s", 2.0);
            store->appendMetric(run, t + 0.5, "central/master_worker", round, "eval.test_acc", 0.80 + 0.03 * round);
            store->appendTraffic(run, {t, "party1/server0>central/global_server0", "across", 1000000 * round, round});
            store->appendTraffic(run, {t, "party1/worker0>party1/server0", "inside", 2000000 * round, round});
        }
        store->appendEvent(run, t0 + 1, "warning", "party1/worker0", "slow disk");
        store->flush();
        const auto report = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(report, qPrintable(error));
        QCOMPARE(report->scoreByRound.size(), 3);
        QCOMPARE(report->roundToTarget, 2);  // 0.86 at round 2
        QCOMPARE(report->timeToTarget, 4.5);
        QCOMPARE(report->throughputByRound.first().y(), 640.0);  // 1280 samples in a 2 s round
        QCOMPARE(report->trainLossByRound.last().y(), 1.0 / 3);
        QCOMPARE(report->computeRatio, 0.75);
        QCOMPARE(report->bytesAcross, 3e6);
        QCOMPARE(report->bytesInside, 6e6);
        QCOMPARE(report->acrossMBByTime.last(), QPointF(6.0, 3.0));
        QVERIFY(!RunReport::load(*store, run + 100, 0.85, &error));
        QVERIFY2(error.contains("no run"), qPrintable(error));

        const QList<QByteArray> csv = report->toCsv().trimmed().split('\n');
        QCOMPARE(csv.first(), QByteArray("run_id,t,source,round,name,value"));
        QCOMPARE(csv.size(), 1 + 3 * 10 + 3 * 2);
        QVERIFY(csv.contains(QByteArray::number(run) + ',' + QByteArray::number(t0 + 6.5, 'f', 3) +
                             ",central/master_worker,3,eval.test_acc,0.89"));

        const QJsonObject json = QJsonDocument::fromJson(report->toJson()).object();
        QCOMPARE(json["run"].toObject()["name"].toString(), QStringLiteral("report, \"quoted\""));
        QCOMPARE(json["summary"].toObject()["round_to_target"].toInt(), 2);
        QCOMPARE(json["metrics"].toArray().size(), 30);
        QCOMPARE(json["traffic"].toArray().size(), 6);
        QCOMPARE(json["events"].toArray()[0].toObject()["message"].toString(), QStringLiteral("slow disk"));
        QCOMPARE(json["topology"].toObject()["name"].toString(), QStringLiteral("r"));
    }

    // Top-5 accuracy (5 classes or more) beside top-1: in the live rows, the report's series and
    // summary; a run with fewer classes reports none (-1), and has no top-5 line.
    void topFiveAccuracyIsCarriedBesideTopOne() {
        RunProgress progress(1, 2, 1);
        QList<RoundRow> rows;
        for (int round = 1; round <= 2; ++round) {
            rows += progress.ingest({{"kind", "train"}, {"node", "p/worker0"}, {"round", round}, {"loss", 1.0}, {"samples", 64}}, round);
            rows += progress.ingest({{"kind", "aggregate"}, {"node", "c/global_server0"}, {"round", round}}, round + 0.5);
            QJsonObject eval{{"kind", "eval"}, {"node", "c/master"}, {"round", round}, {"test_acc", 0.5}};
            eval["test_top5"] = round == 1 ? -1.0 : 0.95;  // (as a run of 3 classes, then of 10)
            rows += progress.ingest(eval, round + 0.6);
        }
        QCOMPARE(rows.size(), 2);
        QVERIFY(std::isnan(rows[0].testTop5));
        QCOMPARE(rows[1].testTop5, 0.95);

        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("top5", R"({"name":"r"})", {{"rounds", 2}});
        const double t0 = store->run(run)->started;
        for (int round = 1; round <= 2; ++round) {
            store->appendMetric(run, t0 + round, "central/master_worker", round, "eval.test_acc", 0.6 + 0.1 * round);
            store->appendMetric(run, t0 + round, "central/master_worker", round, "eval.test_top5", 0.9 + 0.04 * round);
        }
        store->flush();
        const auto report = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(report, qPrintable(error));
        QCOMPARE(report->top5ByRound.size(), 2);
        QCOMPARE(report->top5ByRound.last(), QPointF(2, 0.98));
        const QJsonObject json = QJsonDocument::fromJson(report->toJson()).object();
        QCOMPARE(json["summary"].toObject()["final_test_top5"].toDouble(), 0.98);
        QCOMPARE(json["series"].toObject()["test_top5_by_round"].toArray().size(), 2);
    }

    // A regression's evaluations are RMSE: the rows carry it (accuracy NaN), the best is the
    // lowest, and the facts, the report's series and its JSON say RMSE.
    void aRegressionsScoreIsItsRmse() {
        RunProgress progress(1, 3, 1);
        QList<RoundRow> rows;
        const double rmse[] = {0.5, 0.2, 0.3};
        for (int round = 1; round <= 3; ++round) {
            rows += progress.ingest({{"kind", "train"}, {"node", "p/worker0"}, {"round", round}, {"loss", 1.0}, {"samples", 64}}, round);
            rows += progress.ingest({{"kind", "aggregate"}, {"node", "c/global_server0"}, {"round", round}}, round + 0.5);
            rows += progress.ingest({{"kind", "eval"},
                                     {"node", "c/master"},
                                     {"round", round},
                                     {"test_rmse", rmse[round - 1]},
                                     {"test_loss", rmse[round - 1] * rmse[round - 1]}},
                                    round + 0.6);
        }
        QCOMPARE(rows.size(), 3);
        QVERIFY(std::isnan(rows[2].testAccuracy));
        QCOMPARE(rows[2].testRmse, 0.3);
        QCOMPARE(rows[2].testScore(), 0.3);
        QCOMPARE(progress.bestRmse(), 0.2);
        QVERIFY(std::isnan(progress.bestAccuracy()));

        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("regression", R"({"name":"r"})", {{"rounds", 3}});
        const double t0 = store->run(run)->started;
        for (int round = 1; round <= 3; ++round) {
            store->appendMetric(run, t0 + round, "central/global_server0", round, "aggregate.apply_s", 0.01);
            store->appendMetric(run, t0 + round, "central/master_worker", round, "eval.test_rmse", rmse[round - 1]);
            store->appendMetric(run, t0 + round, "party1/worker0", round, "party_eval.test_rmse", 2 * rmse[round - 1]);
        }
        store->flush();
        const RunFacts f = store->facts(run);
        QVERIFY(f.regression());
        QCOMPARE(f.bestRmse, 0.2);
        QCOMPARE(f.finalRmse, 0.3);
        QCOMPARE(f.bestText(), QStringLiteral("RMSE 0.2000"));
        QCOMPARE(f.bestAccuracy, -1.0);
        QCOMPARE(store->runList().first().facts.finalRmse, 0.3);
        const auto report = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY(report->regression);
        QCOMPARE(report->scoreByRound, (QList<QPointF>{{1, 0.5}, {2, 0.2}, {3, 0.3}}));
        QCOMPARE(report->heldOutScoreByRound.value("party1/worker0").last(), QPointF(3, 0.6));
        QCOMPARE(report->timeToTarget, -1.0);  // (an accuracy target means nothing here)
        const QJsonObject json = QJsonDocument::fromJson(report->toJson()).object();
        QCOMPARE(json["summary"].toObject()["best_test_rmse"].toDouble(), 0.2);
        QVERIFY(!json["summary"].toObject().contains("best_test_acc"));
        QCOMPARE(json["series"].toObject()["test_rmse_by_round"].toArray().size(), 3);
    }

    // A run stopped after round 2 and resumed from it 100 s later: charts, throughput, time to
    // accuracy and duration count the time it ran, not the pause (the live panel's clock does too).
    void aResumedRunsTimesLeaveOutThePause() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("paused", R"({"name":"paused"})", {{"rounds", 4}});
        const double t0 = store->run(run)->started;
        auto round = [&](int r, double t) {
            store->appendMetric(run, t, "p/worker0", r, "train.samples", 1000);
            store->appendMetric(run, t, "c/global_server0", r, "aggregate.round_s", 1.0);
            store->appendMetric(run, t + 0.5, "c/master_worker", r, "eval.test_acc", 0.80 + 0.02 * r);
            store->appendTraffic(run, {t, "p/server0>c/global_server0", "across", 1000000 * r, r});
        };
        round(1, t0 + 1);
        round(2, t0 + 2);  // its last row at +2.5: then it stood still
        store->appendEvent(run, t0 + 102.5, "info", "controller", kResumedEventPrefix + "2");
        round(3, t0 + 103.5);
        round(4, t0 + 104.5);
        store->appendMetric(run, t0 + 105, "c/master_worker", -1, "eval.dummy", 0);
        QVERIFY(store->flush());
        const auto report = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY(report->clock.paused());
        QCOMPARE(report->rounds.rows.size(), 4);
        QCOMPARE(report->rounds.rows[3].elapsed, 4.5);  // 2.5 s before the pause, 2 s after
        QCOMPARE(report->rounds.rows[3].samplesPerSecond, 4000 / 4.5);
        QCOMPARE(report->rounds.wallMs[3], (t0 + 104.5) * 1000);  // the wall clock stays the wall clock
        QCOMPARE(report->scoreByTime[2], QPointF(4.0, 0.86));  // round 3 evaluated at +104
        QCOMPARE(report->timeToTarget, 4.0);
        QCOMPARE(report->acrossMBByTime.last(), QPointF(4.5, 4.0));
        QCOMPARE(report->seconds, 5.0);  // to its last row (it never ended)
        QCOMPARE(report->pausedSeconds, 100.0);
        QCOMPARE(report->clock.unixTime(4.5), t0 + 104.5);
        QCOMPARE(report->clock.elapsed(t0 + 1), 1.0);  // before the pause, time since the start
        // The store's clock (asked of its tables, as hips attach does) is the one from all the rows.
        const RunClock stored = store->clock(run);
        QVERIFY(stored.paused());
        for (double t : {t0 + 1, t0 + 2.5, t0 + 50, t0 + 103.5, t0 + 105}) QCOMPARE(stored.elapsed(t), report->clock.elapsed(t));
        QCOMPARE(stored.elapsed(t0 + 104.5), 4.5);
        QVERIFY(!store->clock(run + 1).paused());  // (no such run: a clock from 0)
    }

    void refusesCorruptFileAndLeavesIt() {
        QTemporaryDir dir;
        const QString path = dir.filePath("junk.sqlite");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        const QByteArray before = hashOf(path);
        QString error;
        QVERIFY(!RunStore::open(path, &error));
        QVERIFY2(error.contains("is not a SQLite file") && error.contains("left untouched"), qPrintable(error));
        QCOMPARE(hashOf(path), before);
    }

    void refusesForeignDatabaseAndLeavesIt() {
        QTemporaryDir dir;
        const QString path = dir.filePath("shop.sqlite");
        rawSql(path, {"CREATE TABLE customers (id INTEGER, name TEXT)", "INSERT INTO customers VALUES (1, 'x')"});
        const QByteArray before = hashOf(path);
        QString error;
        QVERIFY(!RunStore::open(path, &error));
        QVERIFY2(error.contains("not a HiPS Studio history") && error.contains("customers"), qPrintable(error));
        QCOMPARE(hashOf(path), before);
    }

    void refusesNewerSchema() {
        QTemporaryDir dir;
        const QString path = dir.filePath("new.sqlite");
        rawSql(path, {"CREATE TABLE hips_schema (version INTEGER NOT NULL)", "INSERT INTO hips_schema VALUES (99)"});
        QString error;
        QVERIFY(!RunStore::open(path, &error));
        QVERIFY2(error.contains("newer HiPS Studio"), qPrintable(error));
    }

    void deleteRemovesTheRunAndItsRows() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 keep = store->beginRun("keep", "{}", {});
        const qint64 drop = store->beginRun("drop", "{}", {});
        store->appendMetric(keep, 1, "a", 1, "loss", 1);
        store->appendMetric(drop, 1, "a", 1, "loss", 1);
        store->deleteRun(drop);
        store->flush();
        QCOMPARE(store->runs().size(), 1);
        QCOMPARE(store->metricCount(drop), 0);
        QCOMPARE(store->metricCount(keep), 1);
    }
};

QTEST_GUILESS_MAIN(RunStoreTest)
#include "tst_runstore.moc"
