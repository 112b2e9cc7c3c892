// A history another program holds locked (an open transaction in a database browser or a
// `sqlite3` shell): the writer waits instead of failing once SQLite's busy timeout (30 s) is
// over, says so, acknowledges nothing meanwhile, and stores everything once the lock is gone.
// Takes about 35 s: the busy timeout is real.
#include "HistoryTestSupport.h"
#include "RunStore.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <mutex>

using namespace hips;

class HistoryLockTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aLockedHistoryIsWaitedForAndNothingIsLost() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.sqlite");
        QString error;
        auto store = RunStore::open(path, &error);
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
            QVERIFY2(heard().first.first().contains("has been locked by another program") &&
                         heard().first.first().contains(path) && store->lockedNotice() == heard().first.first(),
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
};

QTEST_GUILESS_MAIN(HistoryLockTest)
#include "tst_historylock.moc"
