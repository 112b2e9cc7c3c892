// A history another program holds locked (an open transaction in a database browser or a
// `sqlite3` shell): the writer waits instead of failing once SQLite's busy timeout (30 s) is
// over, says so, acknowledges nothing meanwhile, and stores everything once the lock is gone.
// Takes about 35 s: the busy timeout is real. And a run that ends while the history is locked
// waits for it from the event loop (a studio window stays live), then is stored as it ended.
#include "HistoryTestSupport.h"
#include "RunRecorder.h"
#include "RunStore.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QDateTime>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <mutex>
#include <optional>

using namespace hips;

class HistoryLockTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aLockedHistoryIsWaitedForAndNothingIsLost() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        // SQLite waits 3 s for the lock, not the 30 s a user's history waits: the same path, sooner.
        auto store = RunStore::open(path, &error, RunStore::ReadWrite, 3000);
        QVERIFY2(store, qPrintable(error));
        std::mutex heardMutex;
        QStringList stalls, errors;
        store->setStallListener([&](const QString& text) {
            std::lock_guard lock(heardMutex);
            stalls << text;
        });
        store->setErrorListener([&](const QString& text) {
            std::lock_guard lock(heardMutex);
            errors << text;
        });
        const qint64 run = store->beginRun("locked", "{}", {});
        QVERIFY(run > 0);
        auto heard = [&] {
            std::lock_guard lock(heardMutex);
            return std::pair{stalls, errors};
        };

        {
            QSqlDatabase other = QSqlDatabase::addDatabase("QSQLITE", "other");
            other.setDatabaseName(path);
            QVERIFY(other.open());
            QVERIFY(QSqlQuery(other).exec("BEGIN EXCLUSIVE"));
            QVERIFY(QSqlQuery(other).exec("INSERT INTO events VALUES (1, 0, 'info', 'browser', 'an edit not yet written')"));
            const quint64 before = store->committedMark();
            for (int i = 0; i < 100; ++i) store->appendEvent(run, i, "info", "controller", QString("row %1").arg(i));
            // A click waits a few seconds, not the lock's lifetime: the rows stay queued, with no error.
            QElapsedTimer waited;
            waited.start();
            QVERIFY(!store->flushWithin(2));
            QVERIFY2(waited.elapsed() < 10000, qPrintable(QString::number(waited.elapsed())));
            QVERIFY(store->writeError().isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(!heard().first.isEmpty(), 45000);
            QVERIFY2(heard().first.first().contains("has been locked by another program") && heard().first.first().contains(path) &&
                         store->lockedNotice() == heard().first.first(),
                     qPrintable(heard().first.join('\n')));
            QVERIFY2(heard().second.isEmpty(), qPrintable(heard().second.join('\n')));  // not a failure
            QCOMPARE(store->committedMark(), before);  // nothing acknowledged while it waits
            QVERIFY(QSqlQuery(other).exec("COMMIT"));
            other.close();
        }
        QSqlDatabase::removeDatabase("other");

        QVERIFY2(store->flush(), qPrintable(store->writeError()));
        QVERIFY(store->lockedNotice().isEmpty());
        QTRY_COMPARE(heard().first.size(), 2);
        QVERIFY2(heard().first.last().contains("is free again"), qPrintable(heard().first.last()));
        int stored = 0;
        for (const EventRecord& e : store->events(run)) stored += e.message.startsWith("row ");
        QCOMPARE(stored, 100);
    }

    void aRunEndingWhileLockedWaitsWithoutBlockingTheEventLoop() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        RunRecorder recorder;
        recorder.setStore(store.get());
        Topology topology;
        topology.name = "ends locked";
        QVERIFY2(recorder.begin(topology, dir.path(), 0, 0, 0), qPrintable(recorder.error()));
        QVERIFY(store->flush());
        std::optional<bool> stored;
        double releasedAt = 0;
        {
            QSqlDatabase other = QSqlDatabase::addDatabase("QSQLITE", "other");
            other.setDatabaseName(path);
            QVERIFY(other.open());
            QVERIFY(QSqlQuery(other).exec("BEGIN EXCLUSIVE"));
            RunSummary summary;
            summary.ok = true;
            summary.rounds = 3;
            QElapsedTimer waited;
            waited.start();
            recorder.finish(summary, [&](bool ok) { stored = ok; });
            // finish() came back while the lock holds (it blocked for one second at most) and
            // the event loop goes on: timers fire, the store's end is still to come.
            QVERIFY2(waited.elapsed() < 5000, qPrintable(QString::number(waited.elapsed())));
            QVERIFY(!stored);
            bool ticked = false;
            QTimer::singleShot(200, [&] { ticked = true; });
            QTRY_VERIFY(ticked);
            QVERIFY(!stored);
            releasedAt = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            QVERIFY(QSqlQuery(other).exec("ROLLBACK"));
            other.close();
        }
        QSqlDatabase::removeDatabase("other");
        QTRY_VERIFY_WITH_TIMEOUT(stored.has_value(), 40000);
        QVERIFY2(*stored, qPrintable(recorder.error()));
        QCOMPARE(store->run(recorder.runId())->status, QString("finished"));
        QVERIFY(store->run(recorder.runId())->ended < releasedAt);  // when it ended, not when the file was free
    }
};

QTEST_GUILESS_MAIN(HistoryLockTest)
#include "tst_historylock.moc"
