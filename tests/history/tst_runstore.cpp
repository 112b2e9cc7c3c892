// The run store: schema and migrations, writes through the writer thread, refusal of corrupt
// and foreign files (left byte-for-byte untouched), interrupted runs, cascading deletes.
#include "RunStore.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

namespace {

QByteArray hashOf(const QString& path) {
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

// Runs `statements` on a plain SQLite connection (to build foreign or old files).
void rawSql(const QString& path, const QStringList& statements) {
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "raw");
        db.setDatabaseName(path);
        QVERIFY(db.open());
        for (const QString& s : statements) QVERIFY2(QSqlQuery(db).exec(s), qPrintable(s));
        db.close();
    }
    QSqlDatabase::removeDatabase("raw");
}

qint64 deadPid() {
    QProcess p;
    p.start("true");
    p.waitForFinished();
    return p.processId() ? p.processId() : 999999;  // processId() is 0 once finished
}

}  // namespace

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
        QCOMPARE(store->schemaVersion(), 1);
        QVERIFY(store->beginRun("after-migration", "{}", {}) > 0);
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

    void runOfADeadControllerIsInterruptedWithItsData() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        qint64 run = 0;
        {
            auto store = RunStore::open(path, &error);
            QVERIFY(store);
            run = store->beginRun("crashed", "{}", {});
            for (int i = 1; i <= 7; ++i) store->appendMetric(run, 100.0 + i, "central/global_server0", i, "round", i);
            store->flush();
        }
        rawSql(path, {QString("UPDATE runs SET controller_pid = %1 WHERE id = %2").arg(deadPid()).arg(run)});
        auto reopened = RunStore::open(path, &error);
        QVERIFY2(reopened, qPrintable(error));
        const auto r = reopened->run(run);
        QCOMPARE(r->status, QStringLiteral("interrupted"));
        QCOMPARE(r->ended, 107.0);  // the time of its last metric
        QCOMPARE(reopened->metricCount(run), 7);
    }

    void runOfALiveControllerStaysRunning() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("live", "{}", {});  // this process is its controller
        store->flush();
        auto second = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(second, qPrintable(error));
        QCOMPARE(second->run(run)->status, QStringLiteral("running"));
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
