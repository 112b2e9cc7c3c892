// A party that is a Slurm cluster (issue 50), on a real one-node cluster started by the test
// (SlurmCluster.h): party2 of the default topology is `launcher: slurm`. While another job holds
// the node, its job waits in the queue and the run says PENDING with Slurm's reason; once the node
// is free the party trains; its job cancelled mid-run (scancel) under fault_policy continue is
// submitted again, its roles rejoin, and the run ends at the default topology's accuracy with both
// job ids in its summary. Also: a Slurm party's job that cannot be submitted fails the run at once,
// naming sbatch's refusal.
#include "FaultRuns.h"
#include "SlurmCluster.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

using namespace hips::test;

namespace {

// The default topology with party2 on the test cluster's partition (its roles on host "p2node",
// which the job's node becomes), fault_policy continue and 20 rounds of the cnn.
QString slurmTopology(const QTemporaryDir& dir, const QJsonObject& launcherExtra = {}, const QJsonObject& trainingExtra = {}) {
    QFile in(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    in.open(QIODevice::ReadOnly);
    QJsonObject t = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray hosts = t["hosts"].toArray();
    hosts.append(QJsonObject{{"id", "p2node"}});
    t["hosts"] = hosts;
    QJsonArray parties = t["parties"].toArray();
    for (int i = 0; i < parties.size(); ++i) {
        QJsonObject p = parties[i].toObject();
        if (p["id"].toString() != "party2") continue;
        p["host"] = "p2node";
        QJsonObject launcher{{"kind", "slurm"},
                             {"partition", "hips"},
                             {"nodes", 1},
                             {"time_limit", "00:30:00"},
                             {"install_dir", dir.filePath("shared")},
                             {"queue_patience_s", 600}};
        for (auto it = launcherExtra.begin(); it != launcherExtra.end(); ++it) launcher[it.key()] = it.value();
        p["launcher"] = launcher;
        parties[i] = p;
    }
    t["parties"] = parties;
    QJsonObject training = t["training"].toObject();
    training["fault_policy"] = "continue";
    training["heartbeat_timeout_s"] = 5;
    for (auto it = trainingExtra.begin(); it != trainingExtra.end(); ++it) training[it.key()] = it.value();
    t["training"] = training;
    const QString path = dir.filePath("slurm.json");
    QFile out(path);
    out.open(QIODevice::WriteOnly);
    out.write(QJsonDocument(t).toJson());
    return path;
}

// Waits until `text` shows after `marker` in the run's output.
bool waitForOutputAfter(Run& run, const QByteArray& marker, const QByteArray& text, int ms) {
    return waitForOutputWhere(run, ms, [&](const QByteArray& out) {
        const qsizetype at = out.indexOf(marker);
        return at >= 0 && out.indexOf(text, at) > at;
    });
}

QString capture(const QByteArray& out, const QString& pattern) {
    return QRegularExpression(pattern).match(QString::fromUtf8(out)).captured(1);
}

}  // namespace

class TestSlurmParty : public QObject {
    Q_OBJECT
    SlurmCluster m_cluster;
    QString m_noCluster;

private Q_SLOTS:
    void initTestCase() {
        m_noCluster = m_cluster.start();
        if (!m_noCluster.isEmpty()) QSKIP(qPrintable(m_noCluster));
    }

    void aSlurmPartyWaitsInTheQueueTrainsAndComesBackAfterScancel() {
        const QString blocker = m_cluster.holdNode();
        QCOMPARE(m_cluster.state(blocker), QString("RUNNING"));
        Run run;
        // A run folder named with a space and a '%': the job's name and folders carry neither (a
        // space split the #SBATCH line and sbatch refused the job).
        run.start({"run", slurmTopology(run.dir), "--out", run.dir.filePath("a run %n")});

        // Queued behind the blocker: a state the run shows, with Slurm's reason, not a failure.
        QVERIFY2(run.waitForOutput("PENDING (Resources)", 120000), run.out + run.process.readAllStandardError());
        const QString first = capture(run.out, "deploy p2node\\s+Slurm job (\\d+): PENDING \\(Resources\\)");
        QVERIFY2(!first.isEmpty(), run.out);
        QCOMPARE(m_cluster.state(first), QString("PENDING"));
        QVERIFY(run.process.state() == QProcess::Running);
        m_cluster.cancel(blocker);

        // It trains; then Slurm ends the party's job under it.
        QVERIFY2(waitForRowsAfter(run, "Slurm job " + first.toUtf8() + ": RUNNING", 4, 240000),
                 run.out + run.process.readAllStandardError());
        QCOMPARE(m_cluster.state(first), QString("RUNNING"));
        m_cluster.cancel(first);
        const QByteArray lost = "the agent on p2node ended with party party2's Slurm job " + first.toUtf8();
        QVERIFY2(run.waitForOutput(lost, 120000), run.out + run.process.readAllStandardError());
        QVERIFY2(waitForOutputAfter(run, lost, ": RUNNING", 120000), run.out + run.process.readAllStandardError());
        const QString second = capture(run.out.mid(run.out.indexOf(lost)), "deploy p2node\\s+Slurm job (\\d+): ");
        QVERIFY(!second.isEmpty() && second != first);

        QVERIFY2(run.finish(600000) == 0, run.out + run.err);
        QVERIFY2(finalAccuracy(run.out) >= 0.85, run.out);
        QFile summary(run.dir.filePath("a run %n/summary.json"));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const QJsonArray jobs = QJsonDocument::fromJson(summary.readAll()).object()["slurm_jobs"].toObject()["party2"].toArray();
        QCOMPARE(jobs.size(), 2);
        QCOMPARE(jobs[0].toString(), first);
        QCOMPARE(jobs[1].toString(), second);
        // The party's roles really ran in the job: their files are in the shared install directory.
        QCOMPARE(QDir(run.dir.filePath("shared/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{"a_run__n"});
        // Nothing of it is left in the queue, nor the agents' keys on the shared file system.
        QTRY_VERIFY_WITH_TIMEOUT(!QStringList({"PENDING", "RUNNING", "COMPLETING"}).contains(m_cluster.state(second)), 30000);
        const QString jobDirs = run.dir.filePath("shared/slurm/a_run__n");  // (install_dir/slurm/RUN/PARTY-N)
        QCOMPARE(QDir(jobDirs).entryList(QDir::Dirs | QDir::NoDotAndDotDot), (QStringList{"party2-1", "party2-2"}));
        for (const QString& job : QDir(jobDirs).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            QVERIFY(QDir(jobDirs + "/" + job).entryList({"*.keys"}).isEmpty());
        QVERIFY(run.leftovers().isEmpty());
    }

    // A party2 worker lost with no restarts left while its job runs on. Killed by SIGKILL it died
    // of its own: the run goes on without it. By SIGTERM, as Slurm ends a job, it waits for the
    // job to come again; none does, and it is stopped with the run's end. (Both waited for a new
    // job for ever, "restarting", and the run never ended.)
    void aWorkerLostForGoodInTheJobEndsWithTheRun_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<QByteArray>("said");
        QTest::newRow("SIGKILL") << int(SIGKILL) << QByteArray("; the run goes on without it (fault_policy continue)");
        QTest::newRow("SIGTERM") << int(SIGTERM) << QByteArray("party2/worker0 is stopped: the run finished its rounds without it");
    }
    void aWorkerLostForGoodInTheJobEndsWithTheRun() {
        QFETCH(int, signal);
        QFETCH(QByteArray, said);
        Run run;
        run.start({"run", slurmTopology(run.dir, {}, {{"rounds", 8}, {"max_restarts", 0}}), "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 3, "party2/worker0", signal), run.out + run.process.readAllStandardError());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains(said), run.out);
        QCOMPARE(printedRounds(run.out).size(), 8);
        QVERIFY(run.leftovers().isEmpty());
    }

    // The controller killed, its run orphaned: the party's job runs on, its agents where only the
    // controller knew. hips stop TOPOLOGY cancels it from the queue (and says so), and the next
    // finds nothing of it there.
    // (Its install_dir is a link, as a home on a shared file system often is: squeue names the
    // folder the link leads to.)
    void hipsStopCancelsAnOrphanedPartysJob() {
        Run run;
        QVERIFY(QDir().mkpath(run.dir.filePath("shared")) && QFile::link(run.dir.filePath("shared"), run.dir.filePath("linked")));
        const QString topology = slurmTopology(run.dir, {{"install_dir", run.dir.filePath("linked")}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(run.waitForOutput(": RUNNING", 240000), run.out + run.process.readAllStandardError());
        const QString job = capture(run.out, "deploy p2node\\s+Slurm job (\\d+): RUNNING");
        QVERIFY2(!job.isEmpty(), run.out);
        QVERIFY2(waitForRowsAfter(run, ": RUNNING", 2, 240000), run.out + run.process.readAllStandardError());
        ::kill(pid_t(run.process.processId()), SIGKILL);
        run.finish(30000);
        // This machine's agent (the job's agents have their keys in a file): it would wait orphan_timeout_s.
        for (qint64 pid : taggedProcesses(run.tag, "hips-agent daemon"))
            if (!toolOutput("cat", {QStringLiteral("/proc/%1/cmdline").arg(pid)}).contains("--keys")) ::kill(pid_t(pid), SIGKILL);
        QCOMPARE(m_cluster.state(job), QString("RUNNING"));

        QProcess stop;
        stop.setProcessChannelMode(QProcess::MergedChannels);
        stop.start(kHips, {"stop", topology});
        QVERIFY(stop.waitForFinished(60000));
        const QByteArray said = stop.readAll();
        QVERIFY2(stop.exitCode() == 0 && said.contains("party2") && said.contains("cancelled Slurm job " + job.toUtf8()), said);
        QTRY_VERIFY_WITH_TIMEOUT(!QStringList({"PENDING", "RUNNING", "COMPLETING"}).contains(m_cluster.state(job)), 30000);
        stop.start(kHips, {"stop", topology});
        QVERIFY(stop.waitForFinished(60000));
        const QByteArray again = stop.readAll();
        QVERIFY2(stop.exitCode() == 0 && again.contains("no Slurm job of it in the queue"), again);
        QByteArray left;
        for (qint64 pid : run.leftovers())
            left += toolOutput("cat", {QStringLiteral("/proc/%1/cmdline").arg(pid)}).replace('\0', ' ') + '\n';
        QVERIFY2(left.isEmpty(), left.constData());
    }

    void aJobSlurmRefusesFailsTheRunNamingWhy() {
        Run run;
        run.start({"run", slurmTopology(run.dir, {{"partition", "nosuchpartition"}}), "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(120000) != 0, run.out);
        QVERIFY2(run.out.contains("sbatch on this machine refused it") || run.err.contains("sbatch on this machine refused it"),
                 run.out + run.err);
        QVERIFY2((run.out + run.err).contains("invalid partition"), run.out + run.err);
        QVERIFY(run.leftovers().isEmpty());
    }

    // A login host that does not answer: the run fails within the SSH timeout, naming the party,
    // the host and what went wrong.
    void anUnreachableLoginHostFailsTheRunNamingIt() {
        Run run;
        const QString path = slurmTopology(run.dir, {{"login_host", "login"}});
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QJsonArray hosts = t["hosts"].toArray();
        hosts.append(QJsonObject{{"id", "login"}, {"address", "192.0.2.1"}, {"user", "nobody"}});  // (TEST-NET-1: nothing answers)
        t["hosts"] = hosts;
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(QJsonDocument(t).toJson()) > 0);
        f.close();
        QElapsedTimer clock;
        clock.start();
        run.start({"run", path, "--out", run.dir.filePath("run"), "--ssh-timeout", "2", "--known-hosts", run.dir.filePath("kh")});
        QVERIFY2(run.finish(60000) != 0, run.out);
        QVERIFY2((run.out + run.err).contains("party party2's Slurm job: cannot log in to its login host"), run.out + run.err);
        QVERIFY2((run.out + run.err).contains("192.0.2.1"), run.out + run.err);
        QVERIFY(clock.elapsed() < 45000);
        QVERIFY(run.leftovers().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSlurmParty)
#include "tst_slurmparty.moc"
