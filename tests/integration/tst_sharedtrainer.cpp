// Workers as threads of one shared trainer per host (training.trainer_processes, issue 48): the
// same model as a process each, bit for bit (dropout included); the shared trainer killed takes
// its workers with it, and fault_policy continue brings them back in a new one; a run stopped
// mid-way stops every thread and leaves nothing running.
#include "FaultRuns.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <csignal>

using namespace hips::test;

namespace {

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What ran while the run did: a shared trainer (its pids), and any worker as a process of its own.
struct Seen {
    QSet<qint64> sharedTrainers;
    bool workerProcess = false;
};

// Watches the run until it ends (its exit status in `status`, -1 if it ran past `ms`).
Seen watchUntilFinished(Run& run, int ms, int* status) {
    Seen seen;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms && run.process.state() != QProcess::NotRunning) {
        for (qint64 pid : taggedProcesses(run.tag, "hips-trainer shared")) seen.sharedTrainers.insert(pid);
        seen.workerProcess = seen.workerProcess || !taggedProcesses(run.tag, "--node party1/worker").isEmpty();
        run.process.waitForReadyRead(50);
        run.out += run.process.readAllStandardOutput();
    }
    if (run.process.state() != QProcess::NotRunning) {
        *status = run.finish(1000);  // (-1: killed, still running after `ms`)
        return seen;
    }
    run.out += run.process.readAllStandardOutput();
    run.err += run.process.readAllStandardError();
    *status = run.process.exitStatus() == QProcess::NormalExit ? run.process.exitCode() : -1;
    return seen;
}

// The workers whose usage records carry the resident memory of their process.
QSet<QString> workersReportingMemory(const QString& metricsFile) {
    QSet<QString> nodes;
    for (const QByteArray& line : fileBytes(metricsFile).split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r.value("kind") == "usage" && r.value("node").toString().contains("/worker") && r.contains("rss_bytes"))
            nodes.insert(r.value("node").toString());
    }
    return nodes;
}

}  // namespace

class SharedTrainerTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // FedAvg is deterministic: threads of one process train what processes do, byte for byte
    // (each worker's initial model, shard and order its own; dropout's masks: tst_train).
    void threadsTrainTheSameModelAsProcesses() {
        QByteArray params[2];
        const char* modes[2] = {"per_worker", "per_host"};
        for (int i = 0; i < 2; ++i) {
            Run run;
            const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 3}}},
                                                       {{"rounds", 3}, {"eval_every", 3}, {"trainer_processes", modes[i]}});
            run.start({"run", topology, "--out", run.dir.filePath("run")});
            int status = 0;
            const Seen seen = watchUntilFinished(run, 300000, &status);
            QVERIFY2(status == 0, run.out + run.err);
            QVERIFY2(run.out.contains("finished after 3 rounds"), run.out.constData());
            // A process's memory is reported once: by each worker process, by one worker of the
            // shared trainer (the per-party memory chart sums what its processes report).
            const QSet<QString> memory = workersReportingMemory(run.dir.filePath("run/metrics.jsonl"));
            if (i == 1) {
                QVERIFY2(seen.sharedTrainers.size() == 1 && !seen.workerProcess, "per_host: the workers were not threads of one process");
                QCOMPARE(memory.size(), 1);
            } else {
                QVERIFY2(seen.sharedTrainers.isEmpty(), "per_worker: a shared trainer ran");
                QCOMPARE(memory.size(), 5);  // (party1: 3, party2: 2)
            }
            params[i] = fileBytes(run.dir.filePath("run/net.params"));
            QVERIFY(!params[i].isEmpty());
            QVERIFY(run.leftovers().isEmpty());
        }
        QVERIFY2(params[0] == params[1], "the shared trainer's model differs from the processes'");
    }

    // The shared trainer killed with SIGKILL takes every worker in it along; each is a death of
    // its own under fault_policy continue, restarted (in a new shared trainer), and the run
    // completes every round.
    void aKilledSharedTrainerTakesItsWorkersAndTheyComeBack() {
        Run run;
        const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 3}}},
                                                   {{"rounds", 30},  // (not over by the time row 3 is printed)
                                                    {"eval_every", 1},
                                                    {"fault_policy", "continue"},
                                                    {"heartbeat_timeout_s", 3},
                                                    {"trainer_processes", "per_host"}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(run.waitForOutput("\n    3  ", 120000), run.out.constData());
        QList<qint64> shared = taggedProcesses(run.tag, "hips-trainer shared");
        QCOMPARE(shared.size(), 1);
        const qint64 first = shared.first();
        QCOMPARE(::kill(pid_t(first), SIGKILL), 0);
        int status = 0;
        const Seen seen = watchUntilFinished(run, 300000, &status);
        QVERIFY2(status == 0, run.out + run.err);
        for (const char* worker : {"party1/worker0", "party1/worker2", "party2/worker1"})
            QVERIFY2(run.out.contains(QByteArray(worker) + " (pid " + QByteArray::number(first) + ") was killed by signal 9"),
                     run.out.constData());
        QVERIFY2(run.out.contains("restart 1 of 3"), run.out.constData());
        QVERIFY2(!(seen.sharedTrainers - QSet<qint64>{first}).isEmpty(), "no new shared trainer ran the restarted workers");
        const QList<int> rounds = printedRounds(run.out);
        QCOMPARE(rounds.size(), 30);
        for (int i = 0; i < rounds.size(); ++i) QCOMPARE(rounds[i], i + 1);
        QVERIFY(run.leftovers().isEmpty());
    }

    // A run interrupted mid-way: the controller stops every role, and a thread, which cannot be
    // killed as a process can, stops when its ZeroMQ context is shut down: nothing is left.
    void anInterruptedRunStopsEveryThread() {
        Run run;
        const QString topology =
            writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 3}}}, {{"rounds", 1000}, {"trainer_processes", "per_host"}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(run.waitForOutput("\n    2  ", 120000), run.out + run.err);
        QCOMPARE(taggedProcesses(run.tag, "hips-trainer shared").size(), 1);
        QElapsedTimer stopping;
        stopping.start();
        ::kill(pid_t(run.process.processId()), SIGINT);
        QCOMPARE(run.finish(60000), 128 + SIGINT);
        QVERIFY2(run.leftovers().isEmpty(), "processes were left running");
        qInfo("stopped in %.2f s", double(stopping.elapsed()) / 1000);
        QVERIFY2(!run.err.contains("did not stop when asked"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(SharedTrainerTest)
#include "tst_sharedtrainer.moc"
