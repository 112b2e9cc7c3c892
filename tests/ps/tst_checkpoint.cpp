// The global server's checkpoints: written whole (floats first, the description last), read back
// bit for bit, and refused, naming the cause, when damaged or of another model.
#include "Checkpoint.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

class CheckpointTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripsAndKeepsOnlyTheNewest() {
        QTemporaryDir dir;
        TrainingSettings s;
        s.model = "mlp";
        for (qint64 round : {5, 10}) {
            const Checkpoint c{round, round * 3, {1.5f, -2.0f, float(round)}, {0.25f, 0.0f, -1.0f}};
            QCOMPARE(writeCheckpoint(dir.path(), c, s), QString());
        }
        QString error;
        QCOMPARE(checkpointRound(dir.path(), &error), qint64(10));
        const auto c = readCheckpoint(dir.path(), s, 3, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->round, qint64(10));
        QCOMPARE(c->version, qint64(30));
        QCOMPARE(c->model, (std::vector<float>{1.5f, -2.0f, 10.0f}));
        QCOMPARE(c->optimizer, (std::vector<float>{0.25f, 0.0f, -1.0f}));
        const QStringList files = QDir(checkpointDirectory(dir.path())).entryList(QDir::Files);
        QCOMPARE(files, (QStringList{"checkpoint.json", "model-10.f32", "optimizer-10.f32"}));
    }

    void refusesWhatDoesNotFit() {
        QTemporaryDir dir;
        TrainingSettings s;
        QString error;
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("has no checkpoint"), qPrintable(error));
        QCOMPARE(checkpointRound(dir.path(), &error), qint64(0));

        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{2, 2, {1.0f, 2.0f}, {}}, s), QString());
        QVERIFY(!readCheckpoint(dir.path(), s, 3, &error));  // another model size
        QVERIFY2(error.contains("expected 3"), qPrintable(error));
        TrainingSettings otherSeed = s;
        otherSeed.seed = 7;
        QVERIFY(!readCheckpoint(dir.path(), otherSeed, 2, &error));
        QVERIFY2(error.contains("seed"), qPrintable(error));

        QFile model(QDir(checkpointDirectory(dir.path())).filePath("model-2.f32"));
        QVERIFY(model.open(QIODevice::ReadWrite));
        model.seek(4);
        model.write("\x01", 1);  // one byte changed
        model.close();
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("damaged"), qPrintable(error));

        QFile meta(QDir(checkpointDirectory(dir.path())).filePath("checkpoint.json"));
        QVERIFY(meta.open(QIODevice::WriteOnly));
        meta.write(R"({"format":"hips-checkpoint","round":2,"model_name":"cnn","seed":1,"model":{"file":"../../etc/passwd","floats":2}})");
        meta.close();
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("names a file"), qPrintable(error));
    }

    void workerStatesAreKeptPerNodeAndRound() {
        QTemporaryDir dir;
        QDir().mkpath(checkpointDirectory(dir.path()));
        for (qint64 round : {2, 4, 6})
            for (const char* node : {"p/worker0", "p/worker1"}) {
                QFile f(workerStatePath(dir.path(), node, round));
                QVERIFY(f.open(QIODevice::WriteOnly));
            }
        removeOlderWorkerStates(dir.path(), "p/worker0", 4);
        const QStringList files = QDir(checkpointDirectory(dir.path())).entryList(QDir::Files);
        QCOMPARE(files, (QStringList{"p-worker0-4.state", "p-worker0-6.state", "p-worker1-2.state", "p-worker1-4.state",
                                     "p-worker1-6.state"}));
    }
};

QTEST_GUILESS_MAIN(CheckpointTest)
#include "tst_checkpoint.moc"
