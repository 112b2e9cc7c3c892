// Devices (issue 16), on whatever machine the suite runs: what hips-trainer's probe says of this
// build and host, GPUs refused before any role starts where they cannot be had, and each role's
// device in the history. On a GPU machine, scripts/gpu-check.sh runs the GPU side.
#include "RunHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace hips::test;

class TestDevices : public QObject {
    Q_OBJECT

    QJsonObject probe() {
        const QByteArray line = toolOutput(QStringLiteral(HIPS_BIN_DIR "/hips-trainer"), {"probe"}).trimmed();
        return QJsonDocument::fromJson(line).object();
    }

    // A run refused at the handshake: exit 1, no round, nothing left running.
    QByteArray refusedRun(const QStringList& options) {
        Run run;
        run.start(QStringList{"run", kSmall, "--out", run.dir.filePath("run")} + options);
        const int code = run.finish(60000);
        const QByteArray err = run.err;
        if (code != 1) qWarning("exit %d; stdout:\n%s\nstderr:\n%s", code, run.out.constData(), err.constData());
        return code == 1 && run.out.contains("FAILED after 0 rounds") && run.leftovers().isEmpty() ? err : QByteArray();
    }

private Q_SLOTS:
    void probeSaysWhichLibTorchAndGpus() {
        const QJsonObject p = probe();
        QCOMPARE(p.value("torch").toString(), QStringLiteral(HIPS_TORCH_FLAVOR));
        QVERIFY(p.value("cuda").isBool());
        QVERIFY(p.value("gpus").isArray());
        // A CPU LibTorch never claims CUDA, whatever GPUs the host has.
        if (QStringLiteral(HIPS_TORCH_FLAVOR).endsWith("(CPU)")) QCOMPARE(p.value("cuda").toBool(), false);
    }

    void gpuWorkersAreRefusedBeforeAnyRoleStarts() {
        if (probe().value("cuda").toBool()) QSKIP("this build can train on a GPU here");
        const QByteArray err = refusedRun({"--device", "cuda:0"});
        QVERIFY2(err.contains("host localhost"), err.constData());
        QVERIFY2(err.contains("party1/worker0 (cuda:0)"), err.constData());
        QVERIFY2(err.contains("central/master_worker (cuda:0)"), err.constData());
        QVERIFY2(err.contains("no usable CUDA"), err.constData());
    }

    void aGpuServerIsRefusedTooAndNamed() {
        if (probe().value("cuda").toBool()) QSKIP("this build can train on a GPU here");
        const QByteArray err = refusedRun({"--server-device", "cuda:2"});
        QVERIFY2(err.contains("central/global_server0 (cuda:2)"), err.constData());
        QVERIFY2(err.contains("party2/server0 (cuda:2)"), err.constData());
        QVERIFY2(!err.contains("worker"), err.constData());  // the workers stay on the CPU
    }

    void eachRoleDeviceIsInTheHistory() {
        Run run;
        run.start({"run", kSmall, "--rounds", "2", "--out", run.dir.filePath("run")});
        QCOMPARE(run.finish(120000), 0);
        const auto [code, show] = run.historyCommand({"show", "1"});
        QCOMPARE(code, 0);
        const QByteArray expected = " runs on cpu with " + QByteArray(HIPS_TORCH_FLAVOR);
        for (const char* node : {"central/master_worker", "party1/worker0", "party1/worker1", "party2/worker0", "party2/worker1"})
            QVERIFY2(show.contains("device: " + QByteArray(node) + ":" + expected), show.constData());
    }

    void deviceOptionsAreChecked() {
        Run run;
        run.start({"run", kSmall, "--device", "nowhere=cuda:0"});
        QCOMPARE(run.finish(30000), 2);
        QVERIFY2(run.err.contains("no party 'nowhere'"), run.err.constData());
        Run bad;
        bad.start({"run", kSmall, "--device", "gpu0"});
        QCOMPARE(bad.finish(30000), 2);
        QVERIFY2(bad.err.contains("'gpu0' is not a device; use cpu or cuda:N"), bad.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestDevices)
#include "tst_devices.moc"
