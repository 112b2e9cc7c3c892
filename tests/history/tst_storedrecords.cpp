// A stored run's records rebuilt from the history (StoredRecords): what the charts of each
// process and party read for a run opened from History, field for field as the roles sent them;
// and a stored simulated run's times.
#include "MetricRecords.h"
#include "RunReport.h"
#include "RunStore.h"
#include "StoredRecords.h"

#include <QJsonArray>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace hips;

class StoredRecordsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void usageTrafficAndStartupComeBackAsTheyWereSent() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("r", "{}", {});
        store->appendRecord(run, QJsonObject{{"kind", "startup"}, {"node", "party1/worker0"}, {"t", 10.0}, {"samples", 3000}});
        store->appendRecord(run, QJsonObject{{"kind", "usage"},
                                             {"node", "party1/server0"},
                                             {"t", 12.0},
                                             {"round", 2},
                                             {"cpu_percent", 37.5},
                                             {"rss_bytes", 123456789.0}});
        store->appendRecord(run,
                            QJsonObject{{"kind", "traffic"},
                                        {"node", "party1/server0"},
                                        {"t", 11.0},
                                        {"round", 1},
                                        {"links", QJsonArray{QJsonObject{{"peer", "central/server0"}, {"tier", "across"}, {"sent", 5000}},
                                                             QJsonObject{{"peer", "party1/worker0"}, {"tier", "inside"}, {"sent", 700}}}}});
        store->appendRecord(run, QJsonObject{{"kind", "asgd_secret"}, {"node", "x"}, {"t", 9.0}, {"value", 1}});  // not kept
        store->flush();
        const QList<StoredRecord> records = storedRecords(*store, run);
        QCOMPARE(records.size(), 3);
        QCOMPARE(records[0].t, 10.0);  // in time order
        QCOMPARE(records[0].record["samples"].toDouble(), 3000.0);
        const auto traffic = metric::TrafficRecord::from(records[1].record);
        QVERIFY(traffic);
        QCOMPARE(traffic->node, QStringLiteral("party1/server0"));
        QCOMPARE(traffic->round, 1);
        QCOMPARE(traffic->sent(true), quint64(5000));
        QCOMPARE(traffic->sent(false), quint64(700));
        const auto usage = metric::UsageRecord::from(records[2].record);
        QVERIFY(usage);
        QCOMPARE(usage->round, 2);
        QCOMPARE(usage->cpuPercent, 37.5);
        QCOMPARE(usage->rssBytes.value_or(0), qint64(123456789));
    }

    // A server writes its last traffic record of a round twice (at the round's end, and after it
    // has lingered with the final model down): its links count once, at their larger figure.
    void aSecondRecordOfTheSameRoundCountsEachLinkOnce() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("r", "{}", {});
        const auto traffic = [&](double t, double across, double inside) {
            store->appendRecord(
                run, QJsonObject{{"kind", "traffic"},
                                 {"node", "central/server0"},
                                 {"t", t},
                                 {"round", 5},
                                 {"links", QJsonArray{QJsonObject{{"peer", "party1/server0"}, {"tier", "across"}, {"sent", across}},
                                                      QJsonObject{{"peer", "central/worker0"}, {"tier", "inside"}, {"sent", inside}}}}});
        };
        traffic(20.0, 8000, 300);
        traffic(21.0, 9500, 300);
        store->flush();
        const QList<StoredRecord> records = storedRecords(*store, run);
        QCOMPARE(records.size(), 1);
        QCOMPARE(records[0].record["links"].toArray().size(), 2);
        const auto record = metric::TrafficRecord::from(records[0].record);
        QVERIFY(record);
        QCOMPARE(record->sent(true), quint64(9500));
        QCOMPARE(record->sent(false), quint64(300));
        QCOMPARE(records[0].t, 21.0);
    }

    // Traffic counters a stranger (or a damaged record) makes huge: one run's must not hide every
    // run from the list (SQLite's sum() of integers failed on overflow, and the list came back
    // empty), and a count no double holds exactly, or a negative one, is not stored.
    void hugeTrafficCountersHideNoRun() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 before = store->beginRun("before", "{}", {});
        const qint64 run = store->beginRun("huge", "{}", {});
        QJsonArray links;
        for (int i = 0; i < 1100; ++i)  // 1,100 × 2^53 bytes: past what a 64-bit integer holds
            links.append(QJsonObject{{"peer", QString("c/global_server%1").arg(i)}, {"tier", "across"}, {"sent", 9007199254740992.0}});
        links.append(QJsonObject{{"peer", "c/x"}, {"tier", "across"}, {"sent", 1e19}});
        links.append(QJsonObject{{"peer", "c/y"}, {"tier", "across"}, {"sent", -5.0}});
        store->appendRecord(run, QJsonObject{{"kind", "traffic"}, {"node", "p/server0"}, {"t", 1.0}, {"round", 1}, {"links", links}});
        QVERIFY(store->flush());
        const QList<RunListEntry> runs = store->runList();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].run.id, before);
        QCOMPARE(runs[1].facts.bytesAcross, 1100 * 9007199254740992.0);
        QCOMPARE(store->traffic(run).size(), 1100);
    }

    // A simulated run's rows are on its virtual clock (an hour here) and it ended after a few
    // real seconds: the report's duration is the virtual hour, as summary.json and the history
    // say, not the real seconds (it came out shorter than the report's own time to accuracy).
    void aSimulatedRunLastsItsVirtualTime() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("sim", "{}", {{"rounds", 2}});
        const double t0 = store->run(run)->started;
        store->appendEvent(run, t0, "simulated", "controller", "hips simulate: every role in one process");
        store->appendMetric(run, t0 + 1800, "central/master_worker", 1, "eval.test_acc", 0.80);
        store->appendMetric(run, t0 + 3600, "central/master_worker", 2, "eval.test_acc", 0.86);
        store->finishRun(run, "finished", {});  // (its end: now, a moment after its start)
        QVERIFY(store->flush());
        const auto report = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(report, qPrintable(error));
        QCOMPARE(report->timeToTarget, 3600.0);
        QCOMPARE(report->seconds, 3600.0);
        QCOMPARE(report->pausedSeconds, 0.0);
    }

    // What a history file holds goes out as data: in CSV a source or name that a spreadsheet would
    // take for a formula gets an apostrophe, and a lone carriage return is quoted (it split rows);
    // a duration from absurd times reads "-", not an int's overflow.
    void whatTheFileHoldsGoesOutAsData() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("r", "{}", {});
        store->appendMetric(run, 1.0, "=HYPERLINK(\"http://x\")", 1, "a\rb", 0.5);
        store->flush();
        const auto report = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(report, qPrintable(error));
        const QByteArray csv = report->toCsv();
        QVERIFY2(csv.contains(",\"'=HYPERLINK(\"\"http://x\"\")\",1,\"a\rb\",0.5\n"), csv.constData());
        const auto rawUpdate = [&](const char* sql) {  // as another program would write the file
            bool done = false;
            {
                QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
                raw.setDatabaseName(dir.filePath("h.sqlite"));
                done = raw.open() && QSqlQuery(raw).exec(sql);
            }
            QSqlDatabase::removeDatabase(QStringLiteral("raw"));
            return done;
        };
        QVERIFY(rawUpdate("UPDATE runs SET started = 1e300, ended = -5"));
        QCOMPARE(store->run(run)->started, 0.0);  // (no time a run could have: not known)
        QCOMPARE(store->run(run)->ended, 0.0);
        QVERIFY(rawUpdate("UPDATE runs SET ended = 100"));
        QCOMPARE(store->duration(*store->run(run)), -1.0);  // (from a start not known: none, not 1.7e9 s)
        const auto again = RunReport::load(*store, run, 0.85, &error);
        QVERIFY2(again && again->seconds >= 0 && again->seconds < 200, qPrintable(QString::number(again ? again->seconds : -2)));
        QCOMPARE(formatSeconds(1e10), QStringLiteral("166666666 min 40 s"));
        QCOMPARE(formatSeconds(std::nan("")), QStringLiteral("-"));
        QCOMPARE(formatSeconds(150), QStringLiteral("2 min 30 s"));
    }
};

QTEST_MAIN(StoredRecordsTest)
#include "tst_storedrecords.moc"
