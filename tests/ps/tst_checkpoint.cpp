// The global server's checkpoints: written whole (floats first, the description last), read back
// bit for bit, and refused, naming the cause, when damaged or of another model.
#include "Checkpoint.h"
#include "RecoveryCopy.h"
#include "Vocabulary.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <limits>

using namespace hips;

class CheckpointTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripsAndKeepsTheNewestTwo() {
        QTemporaryDir dir;
        TrainingSettings s;
        s.model = "mlp";
        s.mode = "ssgd";  // three versions a round
        s.localIters = 3;
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
        QCOMPARE(files, (QStringList{"checkpoint.json", "checkpoint.previous.json", "model-15.f32", "model-30.f32", "optimizer-15.f32",
                                     "optimizer-30.f32"}));  // (by version; the one before stays until the next)
        // Adam's, Yogi's and Adagrad's state is m then v: two models' worth; three is no optimizer's.
        // (esync: a server optimizer's mode with three versions a round, as ssgd's.)
        TrainingSettings adamRun = s;
        adamRun.mode = "esync";
        adamRun.serverOptimizer = "adam";
        const std::vector<float> adam{0.1f, 0.2f, 0.3f, 0.01f, 0.02f, 0.03f};
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{11, 33, {1, 2, 3}, adam}, adamRun), QString());
        const auto withAdam = readCheckpoint(dir.path(), adamRun, 3, &error);
        QVERIFY2(withAdam && withAdam->optimizer == adam, qPrintable(error));
        // Another optimizer's state: refused, where it was dropped and the moments began at 0.
        TrainingSettings momentumRun = adamRun;
        momentumRun.serverOptimizer = "momentum";
        QVERIFY(!readCheckpoint(dir.path(), momentumRun, 3, &error));
        QVERIFY2(error.contains("holds 2 models' worth of optimizer state, and this run's (mode esync, server_optimizer momentum) keeps 1"),
                 qPrintable(error));
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{12, 36, {1, 2, 3}, std::vector<float>(9, 0.5f)}, adamRun), QString());
        QVERIFY(!readCheckpoint(dir.path(), adamRun, 3, &error));
        QVERIFY2(error.contains("of 9 floats, expected 3 (or none, or twice as many)"), qPrintable(error));
        // A global server's recovery point of the initial model (round 0): a restart in round 1
        // goes on from it; a resume has no round 0 to go on from.
        QTemporaryDir recovery;
        QCOMPARE(writeCheckpoint(recovery.path(), Checkpoint{0, 0, {1, 2, 3}, {}}, s), QString());
        const auto initial = readCheckpoint(recovery.path(), s, 3, &error, 0, true);
        QVERIFY2(initial && initial->round == 0 && initial->model == (std::vector<float>{1, 2, 3}), qPrintable(error));
        QVERIFY(!readCheckpoint(recovery.path(), s, 3, &error));
        QVERIFY2(error.contains("not a round of this run (1 to 20)"), qPrintable(error));
    }

    // Key slicing: the run stopped after global server 0 kept round 4 and before server 1 did. Each
    // still has round 3, which the run resumes from: 0 reads it from the description before its
    // newest, 1 from its newest. (Until each kept only its newest: no round was common to both.)
    void slicesStoppedBetweenTheirWritesResumeFromTheRoundBefore() {
        QTemporaryDir dir;
        TrainingSettings s;
        s.model = "mlp";
        for (qint64 round : {2, 3, 4})
            for (int shard : {0, 1})
                if (round < 4 || shard == 0)
                    QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{round, round, {float(round), float(shard)}, {}}, s, shard), QString());
        QString error;
        QCOMPARE(checkpointRound(dir.path(), &error), qint64(3));
        for (int shard : {0, 1}) {
            const auto c = readCheckpoint(dir.path(), s, 2, &error, shard, false, 3);
            QVERIFY2(c, qPrintable(error));
            QCOMPARE(c->model, (std::vector<float>{3, float(shard)}));
        }
        QCOMPARE(readCheckpoint(dir.path(), s, 2, &error)->round, qint64(4));  // (without a round: the newest)
        QVERIFY(!QFileInfo::exists(QDir(checkpointDirectory(dir.path())).filePath("model-2.f32")));  // (two kept, no more)
        // Server 0 two rounds ahead: nothing in common.
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{5, 5, {5, 0}, {}}, s, 0), QString());
        QCOMPARE(checkpointRound(dir.path(), &error), qint64(0));
        QVERIFY2(error.contains("of rounds 5 and 3, with no round in common"), qPrintable(error));
    }

    // A recovery point is kept at every model version, several in a round of ssgd or esync. One
    // whose description never got written (a kill mid-write) leaves the previous one readable:
    // its files were overwritten when they were named by round.
    void aPointCutShortLeavesThePreviousOfItsRound() {
        QTemporaryDir dir;
        TrainingSettings s;
        s.model = "mlp";
        s.mode = "ssgd";  // versions 5 and 6 are of round 1
        s.localIters = 5;
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{1, 5, {1, 2, 3}, {0.5f, 0.5f, 0.5f}}, s), QString());
        const QString meta = QDir(checkpointDirectory(dir.path())).filePath("checkpoint.json");
        QFile kept(meta);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        const QByteArray previous = kept.readAll();
        kept.close();
        QVERIFY(QFile::remove(meta) && QDir().mkdir(meta));  // its description cannot be put in place: cut short there
        QVERIFY(!writeCheckpoint(dir.path(), Checkpoint{1, 6, {4, 5, 6}, {0.25f, 0.25f, 0.25f}}, s).isEmpty());
        QVERIFY(QDir(meta).removeRecursively());
        QVERIFY(kept.open(QIODevice::WriteOnly));
        kept.write(previous);
        kept.close();
        QString error;
        const auto c = readCheckpoint(dir.path(), s, 3, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->version, qint64(5));
        QCOMPARE(c->model, (std::vector<float>{1, 2, 3}));
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
        meta.write(
            R"({"format":"hips-checkpoint","round":2,"version":2,"model_name":"cnn","seed":1,"model":{"file":"../../etc/passwd","floats":2}})");
        meta.close();
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("names a file"), qPrintable(error));
    }

    // A checksum says a file is what its description says, not that either makes sense: a model of
    // NaNs with its checksum made again, a round of 1e300 or -5, an optimizer of 1e12 floats are
    // each refused with a message, never a resume that trains to nothing, an empty error or a
    // bad_alloc.
    void refusesWhatMakesNoSense() {
        QTemporaryDir dir;
        TrainingSettings s;
        s.serverOptimizer = "adam";  // (m and v: two models' worth)
        QString error;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{2, 2, {1.0f, nan}, {}}, s), QString());
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("model-2.f32 holds NaN or infinite values"), qPrintable(error));

        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{3, 3, {1.0f, 2.0f}, {0.5f, 0.5f}}, s), QString());
        QFile metaFile(QDir(checkpointDirectory(dir.path())).filePath("checkpoint.json"));
        QVERIFY(metaFile.open(QIODevice::ReadOnly));
        const QJsonObject good = QJsonDocument::fromJson(metaFile.readAll()).object();
        metaFile.close();
        auto rewrite = [&](const QJsonObject& meta) {
            QVERIFY(metaFile.open(QIODevice::WriteOnly | QIODevice::Truncate));
            metaFile.write(QJsonDocument(meta).toJson());
            metaFile.close();
        };
        for (const double round : {1e300, -5.0, 2.5}) {
            QJsonObject meta = good;
            meta["round"] = round;
            rewrite(meta);
            QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
            QVERIFY2(error.contains("not a round of this run"), qPrintable(error));
            QCOMPARE(checkpointRound(dir.path(), &error), qint64(0));
            QVERIFY2(error.contains("not a round of a run"), qPrintable(error));
        }
        // A version of a later round than the one described (fedavg: one a round).
        QJsonObject later = good;
        later["version"] = 19;
        rewrite(later);
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("not a round of this run (1 to 20) with its versions (1 a round)"), qPrintable(error));
        QJsonObject meta = good;
        QJsonObject optimizer = meta["optimizer"].toObject();
        optimizer["floats"] = 1e12;
        meta["optimizer"] = optimizer;
        rewrite(meta);
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("optimizer-3.f32' of 1e+12 floats, expected 2"), qPrintable(error));
        // Adam's v below zero, its checksum made again: its square root is NaN.
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{4, 4, {1.0f, 2.0f}, {0.1f, 0.1f, 0.5f, -0.5f}}, s), QString());
        QVERIFY(!readCheckpoint(dir.path(), s, 2, &error));
        QVERIFY2(error.contains("optimizer-4.f32's second moment holds negative values"), qPrintable(error));
        // A description that is a FIFO: refused, where opening it waited for a writer for ever.
        QTemporaryDir fifoRun;
        QVERIFY(QDir().mkpath(checkpointDirectory(fifoRun.path())));
        QCOMPARE(::mkfifo(qPrintable(QDir(checkpointDirectory(fifoRun.path())).filePath("checkpoint.json")), 0600), 0);
        QVERIFY(!readCheckpoint(fifoRun.path(), s, 2, &error));
        QVERIFY2(error.contains("checkpoint.json is not a regular file"), qPrintable(error));
        QCOMPARE(checkpointRound(fifoRun.path(), &error), qint64(0));
    }

    // The global scheduler's copy of a recovery point (a standby host starts from it): kept when
    // well formed and not older, handed over with a table bit for bit, refused with the cause.
    void aRecoveryCopyIsKeptWholeAndHandedOver() {
        RecoveryCopies copies;
        const Checkpoint point{3, 7, {1.5f, -2.0f, 0.25f}, {0.5f, 0.5f, -1.0f, 2.0f, 0.0f, 3.0f}};
        QCOMPARE(copies.keep("central/global_server0", recoveryPointMessage(point), 3), QString());
        QCOMPARE(copies.version("central/global_server0"), qint64(7));
        QCOMPARE(copies.version("central/global_server1"), qint64(-1));
        Message table(message::kTable);
        copies.attachTo("central/global_server0", table);
        QString error;
        const auto back = recoveryPointIn(table, 3, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->round, qint64(3));
        QCOMPARE(back->version, qint64(7));
        QCOMPARE(back->model, point.model);
        QCOMPARE(back->optimizer, point.optimizer);
        Message plain(message::kTable);
        copies.attachTo("central/global_server1", plain);  // none kept for it: the table goes as it is
        QVERIFY(!recoveryPointIn(plain, 3, &error) && plain.frames.empty());
    }

    void aMalformedRecoveryCopyIsRefused_data() {
        QTest::addColumn<int>("modelFloats");
        QTest::addColumn<qint64>("version");
        QTest::addColumn<int>("optimizerFloats");
        QTest::addColumn<float>("value");
        QTest::addColumn<QString>("cause");
        QTest::newRow("model of another size") << 4 << qint64(8) << 0 << 1.0f << "bytes of model, expected 12";
        QTest::newRow("optimizer of an odd size") << 3 << qint64(8) << 4 << 1.0f << "bytes of optimizer state";
        QTest::newRow("not a number") << 3 << qint64(8) << 3 << std::numeric_limits<float>::quiet_NaN() << "NaN or infinite";
        QTest::newRow("older than the one kept") << 3 << qint64(6) << 0 << 1.0f << "version 6 after one of version 7";
        QTest::newRow("negative version") << 3 << qint64(-2) << 0 << 1.0f << "without a round and a version";
    }

    void aMalformedRecoveryCopyIsRefused() {
        QFETCH(int, modelFloats);
        QFETCH(qint64, version);
        QFETCH(int, optimizerFloats);
        QFETCH(float, value);
        QFETCH(QString, cause);
        RecoveryCopies copies;
        QCOMPARE(copies.keep("g", recoveryPointMessage(Checkpoint{3, 7, {1, 2, 3}, {}}), 3), QString());
        const Checkpoint bad{3, version, std::vector<float>(size_t(modelFloats), 1.0f), std::vector<float>(size_t(optimizerFloats), value)};
        const QString refused = copies.keep("g", recoveryPointMessage(bad), 3);
        QVERIFY2(refused.contains(cause), qPrintable(refused));
        QCOMPARE(copies.version("g"), qint64(7));  // the one kept stays
        Message extra = recoveryPointMessage(Checkpoint{3, 9, {1, 2, 3}, {}});
        extra.frames.emplace_back(4);
        QVERIFY(copies.keep("g", extra, 3).contains("3 frames, not 2"));
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
        QCOMPARE(files,
                 (QStringList{"p-worker0-4.state", "p-worker0-6.state", "p-worker1-2.state", "p-worker1-4.state", "p-worker1-6.state"}));
    }

    // A run killed while its roles wrote left their temporaries (writeFileAtomically's, a model's
    // worth each; seen after every kill of a Draco run): the next write of the same writer's
    // files removes them, and no other writer's.
    void aKilledWritersTemporariesGoWithItsNextWrite() {
        QTemporaryDir dir;
        const QDir checkpoint(checkpointDirectory(dir.path()));
        QDir().mkpath(checkpoint.path());
        const QStringList left{"p-worker0-10-part2.state.tmp-RrG2Vm", "p-worker1-10.state.tmp-w8YAGy", "model-30.f32.tmp-Ab12Cd",
                               "optimizer-30.f32.tmp-Ab12Ce",         "checkpoint.json.tmp-x1y2z3",    "model-30.shard1.f32.tmp-Zz9Zz9",
                               "checkpoint.shard1.json.tmp-q1q2q3"};
        for (const QString& name : left) {
            QFile f(checkpoint.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        removeOlderWorkerStates(dir.path(), "p/worker0", 4);
        TrainingSettings s;
        s.model = "mlp";
        QCOMPARE(writeCheckpoint(dir.path(), Checkpoint{8, 8, {1, 2}, {}}, s), QString());
        QCOMPARE(checkpoint.entryList(QDir::Files),
                 (QStringList{"checkpoint.json", "checkpoint.shard1.json.tmp-q1q2q3", "model-30.shard1.f32.tmp-Zz9Zz9", "model-8.f32",
                              "optimizer-8.f32", "p-worker1-10.state.tmp-w8YAGy"}));
    }
};

QTEST_GUILESS_MAIN(CheckpointTest)
#include "tst_checkpoint.moc"
