// The run history under stress: checked writes (a full disk, a failing statement), a file
// damaged in its middle, three controllers creating one history at once, read-only opening (a
// read-only mount too), private files whatever the umask, and interrupted runs with a reason.
#include "HistoryTestSupport.h"
#include "RunStore.h"
#include "SmallDisk.h"

#include <QTemporaryDir>
#include <sys/stat.h>
#include <atomic>
#include <mutex>
#include <thread>

using namespace hips;
using namespace hips::test;

class HistoryDurabilityTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A full disk: the store says so naming the cause and the file, the committed mark stops
    // where the last commit succeeded, later writes are refused, and a copy of the file holds
    // exactly the rows up to the committed mark.
    void fullDiskFailsTheStoreAndKeepsEveryCommittedRow() {
        QTemporaryDir dir;
        SmallDisk disk(dir.filePath("small"));
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        const QString path = disk.filePath("h.sqlite");
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        std::mutex heardMutex;
        QStringList heard;
        store->setErrorListener([&](const QString& e) {
            std::lock_guard lock(heardMutex);
            heard << e;
        });
        const qint64 run = store->beginRun("full", "{}", {});
        QVERIFY(run > 0);
        const quint64 start = store->committedMark();
        bool failed = false;
        for (int i = 0; i < 2000000 && !failed; i += 500) {  // 2 MB hold far fewer rows
            for (int j = i; j < i + 500; ++j) store->appendMetric(run, j, "party1/worker0", j, "train.loss", j);
            failed = !store->flush();
        }
        QVERIFY2(failed, "the disk never filled");
        QVERIFY2(store->writeError().contains("full") && store->writeError().contains(path), qPrintable(store->writeError()));
        {
            std::lock_guard lock(heardMutex);
            QCOMPARE(heard, QStringList{store->writeError()});
        }
        const quint64 mark = store->committedMark();
        QVERIFY(mark > start);
        // Later writes are dropped and never reported committed.
        store->appendEvent(run, 1, "info", "x", "after the failure");
        QVERIFY(!store->flush());
        QCOMPARE(store->committedMark(), mark);
        QVERIFY(store->postedMark() > mark);

        QTemporaryDir copy;
        for (const char* suffix : {"", "-wal"})
            if (QFile::exists(path + suffix)) QVERIFY(QFile::copy(path + suffix, copy.filePath(QString("h.sqlite") + suffix)));
        store.reset();
        auto reopened = RunStore::open(copy.filePath("h.sqlite"), &error, RunStore::ReadOnly);
        QVERIFY2(reopened, qPrintable(error));
        const qint64 rows = qint64(mark - start);  // one mark per metric row after beginRun
        QCOMPARE(reopened->metricCount(run), rows);
        const QList<MetricRecord> metrics = reopened->metrics(run);
        QCOMPARE(metrics.last().value, double(rows - 1));  // rows 0 … rows-1, in order
    }

    // A statement that fails takes its whole batch back with it: the good rows posted beside it
    // are not half-written, and the store refuses to go on.
    void aFailedStatementRollsBackItsBatch() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        const qint64 run = store->beginRun("fk", "{}", {});
        store->appendMetric(run, 1, "w", 1, "loss", 1);
        QVERIFY(store->flush());
        const quint64 mark = store->committedMark();
        QVERIFY(store->writeError().isEmpty());
        for (int i = 0; i < 10; ++i) store->appendMetric(run, 2, "w", 2, "loss", 2);
        store->appendMetric(run + 1000, 2, "w", 2, "loss", 2);  // no such run: the foreign key refuses it
        const quint64 posted = store->postedMark();
        QVERIFY(!store->flush());
        QVERIFY2(store->writeError().contains("FOREIGN KEY") && store->writeError().contains(dir.filePath("h.sqlite")),
                 qPrintable(store->writeError()));
        // The good rows may have gone in an earlier batch than the bad one (the writer takes what
        // is queued): whatever the cut, the committed mark counts exactly the rows stored, and
        // never the failed batch.
        QVERIFY(store->committedMark() < posted);
        QCOMPARE(quint64(store->metricCount(run) - 1), store->committedMark() - mark);
        QCOMPARE(store->beginRun("refused", "{}", {}), -1);
    }

    // An agent's mark (how long metrics.jsonl was) is committed only once the file is durable: the
    // step that makes it so runs first, and when it fails the mark is not stored and the history
    // fails naming the cause, as a failed write does.
    void aMarkWaitsForItsFileToBeDurable() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("marks", "{}", {});
        std::atomic<int> synced{0};
        store->markAgentEvent(run, "localhost", 1, 100, [&] {
            ++synced;
            return QString();
        });
        QVERIFY(store->flush());
        QCOMPARE(synced.load(), 1);
        QCOMPARE(store->agentMarks(run).value("localhost").metricsBytes, 100);
        store->markAgentEvent(run, "localhost", 2, 200, [] { return QStringLiteral("cannot make metrics.jsonl durable: No space left"); });
        QVERIFY(!store->flush());
        QVERIFY2(store->writeError().contains("cannot make metrics.jsonl durable: No space left"), qPrintable(store->writeError()));
        QCOMPARE(store->agentMarks(run).value("localhost").metricsBytes, 100);
        QCOMPARE(store->agentMarks(run).value("localhost").seq, 1);
    }

    // A file damaged in its middle (its header intact) is refused by either mode and left as it was.
    void refusesAFileDamagedInItsMiddle() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        {
            auto store = RunStore::open(path, &error);
            const qint64 run = store->beginRun("big", "{}", {});
            for (int i = 0; i < 20000; ++i) store->appendMetric(run, i, "party1/worker0", i, "train.loss", i);
            QVERIFY(store->flush());
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        const qint64 pages = f.size() / 4096;
        QVERIFY2(pages > 50, qPrintable(QString::number(pages)));
        f.seek(pages / 2 * 4096);
        f.write(QByteArray(4096, 'Z'));
        f.close();
        const QByteArray before = hashOf(path);
        QVERIFY(!RunStore::open(path, &error));
        QVERIFY2(error.contains("is damaged") && error.contains("left untouched") && error.contains(path), qPrintable(error));
        QVERIFY(!RunStore::open(path, &error, RunStore::ReadOnly));
        QVERIFY2(error.contains("is damaged"), qPrintable(error));
        QCOMPARE(hashOf(path), before);
    }

    // Three controllers creating the same new history (and its directory) at the same moment
    // all succeed: the schema is created once, in one exclusive transaction.
    void threeControllersCreateOneHistoryAtOnce() {
        QTemporaryDir dir;
        for (int attempt = 0; attempt < 5; ++attempt) {
            const QString path = dir.filePath(QString("new%1/sub/h.sqlite").arg(attempt));
            std::atomic<int> ready{0};
            std::mutex errorsMutex;
            QStringList errors;
            auto controller = [&](int i) {
                ++ready;
                while (ready.load() < 3) std::this_thread::yield();  // start together
                QString error;
                auto store = RunStore::open(path, &error);
                if (store && store->beginRun(QString("c%1").arg(i), "{}", {}) <= 0) error = store->writeError();
                if (!store || !error.isEmpty()) {
                    std::lock_guard lock(errorsMutex);
                    errors << error;
                }
            };
            std::vector<std::thread> threads;
            for (int i = 0; i < 3; ++i) threads.emplace_back(controller, i);
            for (std::thread& t : threads) t.join();
            QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
            QString error;
            auto store = RunStore::open(path, &error, RunStore::ReadOnly);
            QVERIFY2(store, qPrintable(error));
            QCOMPARE(store->runs().size(), 3);
            QCOMPARE(store->schemaVersion(), RunStore::kSchemaVersion);
        }
    }

    // Read-only opening of a 0444 file never writes it, refuses writes, and shows a run of a
    // dead controller as interrupted, as a writable open would mark it; a missing file is not created.
    void readOnlyOpenNeverWrites() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        qint64 run = 0;
        {
            auto store = RunStore::open(path, &error);
            run = store->beginRun("crashed", "{}", {});
            store->appendMetric(run, 105, "central/global_server0", 1, "aggregate.apply_s", 0.1);
            ProcessRecord p;
            p.node = "party1/worker0", p.state = "running";
            store->recordProcess(run, p);
            QVERIFY(store->flush());
        }
        rawSql(path, {QString("UPDATE runs SET controller_pid = %1 WHERE id = %2").arg(deadPid()).arg(run)});
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
        const QByteArray before = hashOf(path);
        {
            auto store = RunStore::open(path, &error, RunStore::ReadOnly);
            QVERIFY2(store, qPrintable(error));
            QVERIFY(store->isReadOnly());
            QCOMPARE(store->runList().value(0).run.status, QStringLiteral("interrupted"));
            QCOMPARE(store->run(run)->ended, 105.0);
            QCOMPARE(store->processes(run).value(0).state, QStringLiteral("interrupted"));
            QVERIFY(store->eventMessages(run, "error").value(0).contains("ended without finishing"));
            QVERIFY(store->writeError().contains("read-only"));
        }
        QCOMPARE(hashOf(path), before);
        QCOMPARE(modeOf(path), 0444u);

        const QString missing = dir.filePath("none/h.sqlite");
        QVERIFY(!RunStore::open(missing, &error, RunStore::ReadOnly));
        QVERIFY2(error.contains("no history") && error.contains(missing), qPrintable(error));
        QVERIFY(!QFileInfo::exists(dir.filePath("none")));
    }

    // A history on a read-only mount (where SQLite cannot create the -shm of a WAL file) can be
    // listed and read; opening it for writing fails with a message, not a crash.
    void readOnlyMountCanBeListed() {
        QTemporaryDir dir;
        SmallDisk disk(dir.filePath("ro"));
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        const QString path = disk.filePath("h.sqlite");
        QString error;
        {
            auto store = RunStore::open(path, &error);
            const qint64 run = store->beginRun("kept", "{}", {});
            store->appendMetric(run, 1, "central/master_worker", 1, "eval.test_acc", 0.5);
            store->finishRun(run, "finished", {});
            QVERIFY(store->flush());
        }
        QVERIFY(!QFile::exists(path + "-shm"));
        if (!disk.makeReadOnly()) QSKIP("cannot remount the tmpfs read-only");
        auto store = RunStore::open(path, &error, RunStore::ReadOnly);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->runList().size(), 1);
        QCOMPARE(store->runList()[0].facts.finalAccuracy, 0.5);
        QVERIFY(!RunStore::open(path, &error));
        QVERIFY2(error.contains(path) && error.contains("read-only"), qPrintable(error));
    }

    // Private by default: a new history, its -wal and -shm are 0600 and the directories made for
    // it 0700, under the usual umask 022.
    void newHistoryIsPrivateWhateverTheUmask() {
        QTemporaryDir dir;
        const Umask mask(022);
        const QString path = dir.filePath("a/b/h.sqlite");
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("private", "{}", {});
        store->appendMetric(run, 1, "w", 1, "loss", 1);
        QVERIFY(store->flush());
        QVERIFY(QFile::exists(path + "-wal") && QFile::exists(path + "-shm"));
        QCOMPARE(modeOf(path), 0600u);
        QCOMPARE(modeOf(path + "-wal"), 0600u);
        QCOMPARE(modeOf(path + "-shm"), 0600u);
        QCOMPARE(modeOf(dir.filePath("a")), 0700u);
        QCOMPARE(modeOf(dir.filePath("a/b")), 0700u);
    }

    // A run whose controller died gets, at the next writable open, the reason as an error event
    // after its other rows and a final state for each unfinished process; once, not at every open.
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

    // The controller's pid now belongs to another process (reused by the kernel, or after a
    // reboot): its start time differs, so the run is interrupted, though the pid runs.
    void runOfAReusedPidIsInterrupted() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        qint64 run = 0;
        {
            auto store = RunStore::open(path, &error);
            run = store->beginRun("pid reused", "{}", {});
            store->flush();
        }
        const QString token = RunStore::processToken(QCoreApplication::applicationPid());
        QVERIFY(token.contains(':'));
        const QString otherStart = token.section(':', 0, 0) + QStringLiteral(":1");  // this pid, another process's start
        rawSql(path, {QString("UPDATE runs SET controller_token = '%1' WHERE id = %2").arg(otherStart).arg(run)});
        auto reopened = RunStore::open(path, &error);
        QVERIFY2(reopened, qPrintable(error));
        QCOMPARE(reopened->run(run)->status, QStringLiteral("interrupted"));
        QVERIFY(!reopened->liveController(run));
        QCOMPARE(RunStore::processToken(deadPid()), QString());
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
        QCOMPARE(second->liveController(run), std::optional<qint64>(QCoreApplication::applicationPid()));
    }

    void interruptedRunGetsAReasonAndItsProcessesAFinalState() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        qint64 run = 0;
        {
            auto store = RunStore::open(path, &error);
            run = store->beginRun("killed", "{}", {});
            store->appendMetric(run, 150, "central/global_server0", 3, "aggregate.apply_s", 0.1);
            store->appendEvent(run, 160, "warning", "party1/worker0", "slow");
            for (const char* state : {"pending", "running", "exited"}) {
                ProcessRecord p;
                p.node = QString("party1/%1").arg(state), p.state = state;
                store->recordProcess(run, p);
            }
            QVERIFY(store->flush());
        }
        const qint64 pid = deadPid();
        rawSql(path, {QString("UPDATE runs SET controller_pid = %1 WHERE id = %2").arg(pid).arg(run)});
        for (int open = 0; open < 2; ++open) {
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            QCOMPARE(store->run(run)->status, QStringLiteral("interrupted"));
            const QList<EventRecord> events = store->events(run);
            QCOMPARE(events.size(), 2);
            QCOMPARE(events.last().level, QStringLiteral("error"));
            QCOMPARE(events.last().source, QStringLiteral("controller"));
            QCOMPARE(events.last().message, RunStore::interruptedReason(pid));
            QVERIFY2(events.last().message.contains(QString("pid %1").arg(pid)), qPrintable(events.last().message));
            QCOMPARE(events.last().t, std::max(store->run(run)->started, 160.0));  // after its last row
            QHash<QString, QString> states;
            for (const ProcessRecord& p : store->processes(run)) states[p.node] = p.state;
            QCOMPARE(states.value("party1/pending"), QStringLiteral("interrupted"));
            QCOMPARE(states.value("party1/running"), QStringLiteral("interrupted"));
            QCOMPARE(states.value("party1/exited"), QStringLiteral("exited"));
        }
    }

    // A history someone else made: a schema version no HiPS wrote, a planted trigger or a view in
    // a table's place, a FIFO: refused, each naming the file and why, read-only or not, the file
    // untouched, and never a crash or a hang.
    void aCraftedHistoryIsRefused_data() {
        QTest::addColumn<QStringList>("sql");
        QTest::addColumn<QString>("message");
        const QStringList schema{"CREATE TABLE hips_schema (version INTEGER NOT NULL)"};
        QTest::newRow("version -1") << (schema + QStringList{"INSERT INTO hips_schema VALUES (-1)"})
                                    << "schema version no HiPS Studio wrote (-1)";
        QTest::newRow("two versions") << (schema + QStringList{"INSERT INTO hips_schema VALUES (5)", "INSERT INTO hips_schema VALUES (0)"})
                                      << "schema version no HiPS Studio wrote (more than one)";
        QTest::newRow("version text") << (schema + QStringList{"INSERT INTO hips_schema VALUES ('5; DROP')"})
                                      << "schema version no HiPS Studio wrote (5; DROP)";
        QTest::newRow("trigger") << (schema +
                                     QStringList{"INSERT INTO hips_schema VALUES (5)", "CREATE TABLE runs (id INTEGER, name TEXT)",
                                                 "CREATE TRIGGER rename AFTER INSERT ON runs BEGIN UPDATE runs SET name = 'x'; END"})
                                 << "holds what HiPS Studio never creates (trigger rename)";
        QTest::newRow("view") << (schema + QStringList{"INSERT INTO hips_schema VALUES (5)", "CREATE VIEW runs AS SELECT 1 AS id"})
                              << "holds what HiPS Studio never creates (view runs)";
        // What SQLite would compute as rows are read or written (a gigabyte a row, for one).
        const QStringList v5 = schema + QStringList{"INSERT INTO hips_schema VALUES (5)"};
        QTest::newRow("generated column") << (v5 + QStringList{"CREATE TABLE runs (id INTEGER, name TEXT GENERATED ALWAYS AS "
                                                               "(printf('%.*c', 999999999, 'x')))"})
                                          << "never creates (a computed or default column runs.name)";
        QTest::newRow("default") << (v5 + QStringList{"CREATE TABLE runs (id INTEGER, name TEXT DEFAULT (printf('%.*c', 9, 'x')))"})
                                 << "never creates (a computed or default column runs.name)";
        QTest::newRow("check") << (v5 + QStringList{"CREATE TABLE runs (id INTEGER, name TEXT, CHECK (length(name) > 0))"})
                               << "never creates (a CHECK constraint on runs)";
        QTest::newRow("expression index") << (v5 + QStringList{"CREATE TABLE runs (id INTEGER, name TEXT)",
                                                               "CREATE INDEX runs_x ON runs(upper(name))"})
                                          << "never creates (an index runs_x with an expression)";
        QTest::newRow("partial index") << (v5 + QStringList{"CREATE TABLE runs (id INTEGER, name TEXT)",
                                                            "CREATE INDEX runs_p ON runs(id) WHERE name > ''"})
                                       << "never creates (an index runs_p with a WHERE clause)";
        QTest::newRow("escapes in a name") << (schema + QStringList{"INSERT INTO hips_schema VALUES (5)",
                                                                    "CREATE VIEW \"v\x1b]0;x\x07\" AS SELECT 1"})
                                           << "(view v\\x1b]0;x\\x07)";  // (printed: no terminal escape of the file's)
    }

    void aCraftedHistoryIsRefused() {
        QFETCH(QStringList, sql);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath("crafted.sqlite");
        rawSql(path, sql);
        const QByteArray before = hashOf(path);
        for (const RunStore::OpenMode mode : {RunStore::ReadWrite, RunStore::ReadOnly}) {
            QString error;
            QVERIFY(!RunStore::open(path, &error, mode));
            QVERIFY2(error.startsWith(path) && error.contains(message) && error.contains("left untouched"), qPrintable(error));
        }
        QCOMPARE(hashOf(path), before);
    }

    // Another program holding the file's lock (exclusive locking mode) is named as such: the file
    // was reported damaged, "restore it from a backup".
    void aLockedHistoryIsNotCalledDamaged() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        QVERIFY2(RunStore::open(path, &error), qPrintable(error));
        {
            QSqlDatabase other = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("holder"));
            other.setDatabaseName(path);
            QVERIFY(other.open());
            QSqlQuery q(other);
            QVERIFY(q.exec("PRAGMA locking_mode=EXCLUSIVE") && q.exec("BEGIN EXCLUSIVE") &&
                    q.exec("INSERT INTO runs (name, started, status) VALUES ('held', 1, 'running')"));
            for (const RunStore::OpenMode mode : {RunStore::ReadOnly, RunStore::ReadWrite}) {
                QVERIFY(!RunStore::open(path, &error, mode, 200));  // (its check waits 200 ms, not Qt's 5 s)
                QVERIFY2(error.contains("another program holds it locked") && !error.contains("damaged"), qPrintable(error));
            }
            q.exec("ROLLBACK");
            other.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("holder"));
        QVERIFY2(RunStore::open(path, &error), qPrintable(error));
    }

    void aFifoIsNotAHistory() {
        QTemporaryDir dir;
        const QString path = dir.filePath("fifo");
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        for (const RunStore::OpenMode mode : {RunStore::ReadWrite, RunStore::ReadOnly}) {
            QString error;
            QVERIFY(!RunStore::open(path, &error, mode));  // (before the fix: blocked in open() for ever)
            QVERIFY2(error.contains("is not a regular file"), qPrintable(error));
        }
    }
};

QTEST_GUILESS_MAIN(HistoryDurabilityTest)
#include "tst_historydurability.moc"
