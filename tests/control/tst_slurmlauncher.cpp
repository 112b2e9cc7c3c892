// A party's `launcher` (PartyLauncher.h, SlurmJob.h): read and written back, every bad setting
// refused with its path and the way out, the hosts a Slurm party's job stands for kept out of SSH
// deployment, and the batch script the job submits.
#include "Deployer.h"
#include "PartyLauncher.h"
#include "RunDirectory.h"
#include "SlurmJob.h"
#include "SlurmStop.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "../topology/TopologyTestSupport.h"

#include <QtTest>

using namespace hips;
using namespace hips::test;

namespace {

// The default topology with party2 (parties[2]) on host "p2node" under a Slurm launcher, `edit`
// applied after.
TopologyLoad withSlurm(const std::function<void(QJsonObject&)>& edit = {}) {
    QJsonObject t = validTopology();
    QJsonArray hosts = t["hosts"].toArray();
    hosts.append(QJsonObject{{"id", "p2node"}});
    hosts.append(QJsonObject{{"id", "login"}, {"address", "10.0.0.9"}, {"user", "me"}});
    t["hosts"] = hosts;
    set(t, {"parties", "2", "host"}, "p2node");
    set(t, {"parties", "2", "launcher"},
        QJsonObject{{"kind", "slurm"},
                    {"login_host", "login"},
                    {"partition", "gpu"},
                    {"account", "lab-7"},
                    {"nodes", 1},
                    {"gpus_per_node", 2},
                    {"time_limit", "02:00:00"},
                    {"sbatch_options", QJsonArray{"--qos=normal", "--exclusive"}}});
    if (edit) edit(t);
    return TopologyReader::readJson(QJsonDocument(t).toJson(), QStringLiteral("slurm.json"));
}

bool hasIssue(const TopologyLoad& load, const QString& path, const QString& fragment) {
    for (const TopologyIssue& i : load.issues)
        if (i.path == path && i.message.contains(fragment)) return true;
    return false;
}

}  // namespace

class SlurmLauncherTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aSlurmLauncherIsReadAndWrittenBack() {
        const TopologyLoad load = withSlurm();
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Party& p = *load.topology->party("party2");
        QVERIFY(p.slurm);
        QCOMPARE(p.slurm->loginHost, QString("login"));
        QCOMPARE(p.slurm->partition, QString("gpu"));
        QCOMPARE(p.slurm->account, QString("lab-7"));
        QCOMPARE(p.slurm->gpusPerNode, 2);
        QCOMPARE(p.slurm->timeLimit, QString("02:00:00"));
        QCOMPARE(p.slurm->sbatchOptions, QStringList({"--qos=normal", "--exclusive"}));
        QVERIFY(!load.topology->party("party1")->slurm);  // absent: ssh
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*load.topology), "again.json");
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(TopologyWriter::toJson(*again.topology), TopologyWriter::toJson(*load.topology));
        // {"kind": "ssh"} is today's behaviour.
        const TopologyLoad ssh = withSlurm([](QJsonObject& t) {
            set(t, {"parties", "2", "launcher"}, QJsonObject{{"kind", "ssh"}});
            QJsonArray hosts = t["hosts"].toArray();
            hosts.removeLast();  // (the login host: a remote host beside loopback ones once nothing submits from it)
            t["hosts"] = hosts;
        });
        QVERIFY2(ssh.ok(), qPrintable(ssh.errorText()));
        QVERIFY(!ssh.topology->party("party2")->slurm);
    }

    // Its hosts take their nodes' addresses and the login host runs no role: no agent goes to
    // either over SSH, and neither counts as a remote host beside this machine's loopback.
    void itsHostsAndItsLoginHostGetNoSshAgent() {
        const TopologyLoad load = withSlurm();
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(hostsWithoutSshAgent(*load.topology), QSet<QString>({"p2node", "login"}));
        QVERIFY(remoteHosts(*load.topology).isEmpty());
        QCOMPARE(slurmPartyOf(*load.topology, "p2node")->id, QString("party2"));
        QVERIFY(!slurmPartyOf(*load.topology, "local"));
    }

    void badSettingsAreRefusedWithTheWayOut_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("fragment");
        const QString l = "$.parties[2].launcher.";
        QTest::newRow("kind") << "kind" << QJsonValue("pbs") << l + "kind"
                              << "ssh, slurm";
        QTest::newRow("login host") << "login_host" << QJsonValue("nowhere") << l + "login_host"
                                    << "not declared";
        QTest::newRow("partition") << "partition" << QJsonValue("gpu;rm -rf") << l + "partition"
                                   << "not a Slurm name";
        QTest::newRow("time") << "time_limit" << QJsonValue("2 hours") << l + "time_limit"
                              << "HH:MM:SS";
        QTest::newRow("option") << "sbatch_options" << QJsonValue(QJsonArray{"--output=/etc/x"}) << l + "sbatch_options"
                                << "not an sbatch option";
        QTest::newRow("option form") << "sbatch_options" << QJsonValue(QJsonArray{"--qos=a b"}) << l + "sbatch_options"
                                     << "--name=value";
        QTest::newRow("nodes") << "nodes" << QJsonValue(0) << l + "nodes"
                               << "";
        QTest::newRow("gpus") << "gpus_per_node" << QJsonValue(99) << l + "gpus_per_node"
                              << "";
        QTest::newRow("install dir") << "install_dir" << QJsonValue("/a b") << l + "install_dir"
                                     << "plain path";
        QTest::newRow("relative install dir") << "install_dir" << QJsonValue("hips") << l + "install_dir"
                                              << "starts from neither / nor ~/ (the login user's home)";
        QTest::newRow("another user's home") << "install_dir" << QJsonValue("~root/hips") << l + "install_dir"
                                             << "starts from neither / nor ~/";
        QTest::newRow("unknown") << "queue" << QJsonValue(1) << l + "queue"
                                 << "unknown";
    }

    void badSettingsAreRefusedWithTheWayOut() {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        QFETCH(QString, path);
        QFETCH(QString, fragment);
        const TopologyLoad load = withSlurm([&](QJsonObject& t) { set(t, {"parties", "2", "launcher", field}, value); });
        QVERIFY(!load.ok());
        QVERIFY2(hasIssue(load, path, fragment), qPrintable(load.errorText()));
    }

    void itsShapeIsChecked() {
        // More hosts than nodes: each host is one node.
        const TopologyLoad twoHosts = withSlurm([](QJsonObject& t) {
            QJsonArray hosts = t["hosts"].toArray();
            hosts.append(QJsonObject{{"id", "p2node2"}});
            t["hosts"] = hosts;
            set(t, {"parties", "2", "roles", "workers"}, QJsonArray{QJsonObject{{"count", 2}, {"host", "p2node2"}}});
        });
        QVERIFY2(hasIssue(twoHosts, "$.parties[2].launcher.nodes", "2 hosts (p2node, p2node2)"), qPrintable(twoHosts.errorText()));
        // A host shared with another party.
        const TopologyLoad shared = withSlurm([](QJsonObject& t) { set(t, {"parties", "1", "host"}, "p2node"); });
        QVERIFY2(hasIssue(shared, "$.parties[2].launcher.kind", "runs roles of party party1"), qPrintable(shared.errorText()));
        // The central party.
        const TopologyLoad central = withSlurm([](QJsonObject& t) {
            set(t, {"parties", "0", "launcher"}, QJsonObject{{"kind", "slurm"}});
        });
        QVERIFY2(hasIssue(central, "$.parties[0].launcher.kind", "central party"), qPrintable(central.errorText()));
    }

    void theBatchScriptStartsOneAgentPerNode() {
        SlurmLauncher s;
        s.nodes = 3;
        s.tasksPerNode = 4;
        s.partition = "gpu";
        s.account = "lab";
        s.timeLimit = "01:00:00";
        s.gpusPerNode = 2;
        s.sbatchOptions = {"--qos=high"};
        const QString script = SlurmJob::batchScript(s, "/shared/hips", "/shared/hips/slurm/r-party2-1", "hips-r-party2");
        QVERIFY(script.startsWith("#!/bin/sh\n"));
        for (const char* line : {"#SBATCH --nodes=3\n", "#SBATCH --ntasks-per-node=4\n", "#SBATCH --partition=gpu\n",
                                 "#SBATCH --account=lab\n", "#SBATCH --time=01:00:00\n", "#SBATCH --gres=gpu:2\n", "#SBATCH --qos=high\n",
                                 "#SBATCH --output=/shared/hips/slurm/r-party2-1/job.out\n"})
            QVERIFY2(script.contains(line), qPrintable(script));
        QVERIFY2(script.contains("exec srun --nodes=3 --ntasks=3 --ntasks-per-node=1 --gres=gpu:2 "
                                 "--output='/shared/hips/slurm/r-party2-1/agent-%n.log'"),
                 qPrintable(script));
        QVERIFY2(script.contains("'/shared/hips/bin/hips-agent' '/shared/hips/slurm/r-party2-1' '/shared/hips/runs'"), qPrintable(script));
        QVERIFY(script.contains("agent-$SLURM_NODEID.keys"));
        // Without settings, none of their lines.
        const QString plain = SlurmJob::batchScript(SlurmLauncher{}, "/i", "/i/j", "n");
        QVERIFY(!plain.contains("--partition") && !plain.contains("--gres") && !plain.contains("--time"));
        // A space, newline or '%' would split an #SBATCH line, begin a command, or be expanded: refused.
        for (const char* name : {"hips-a run-p", "hips-a\ncurl x|sh #-p", "hips-%n-p"})
            QVERIFY2(SlurmJob::batchScript(SlurmLauncher{}, "/i", "/i/j", name).isEmpty(), name);
        QVERIFY(SlurmJob::batchScript(SlurmLauncher{}, "/i", "/my home/j", "n").isEmpty());
        QCOMPARE(RunDirectory::safeName("Cancer study\n%x"), QString("Cancer_study__x"));
    }

    void scontrolsFieldsAreRead() {
        const auto f = SlurmJob::scontrolFields("JobId=12 JobName=x JobState=PENDING Reason=Resources Dependency=(null) NodeList=(null)\n");
        QCOMPARE(f.value("JobState"), QString("PENDING"));
        QCOMPARE(f.value("Reason"), QString("Resources"));
        QCOMPARE(f.value("JobId"), QString("12"));
    }

    // sbatch --parsable's job id is its last line: a login shell's greeting before it is not taken
    // for a refusal (the job queued, with no id to cancel it by); anything else is no id.
    void theJobIdIsSbatchsLastLine() {
        QCOMPARE(SlurmJob::submittedJobId("12\n"), QString("12"));
        QCOMPARE(SlurmJob::submittedJobId("4711;cluster2\n"), QString("4711"));
        QCOMPARE(SlurmJob::submittedJobId("Welcome to the cluster!\nquota: 80% used\n\n  815 \n"), QString("815"));
        QCOMPARE(SlurmJob::submittedJobId(""), QString());
        QCOMPARE(SlurmJob::submittedJobId("sbatch: error: invalid partition\n"), QString());
        QCOMPARE(SlurmJob::submittedJobId("12 13\n"), QString());
        QCOMPARE(SlurmJob::submittedJobId("12\nlogout\n"), QString());
    }

    // hips stop cancels a party's jobs only: named as SlurmJob names them for that party, and
    // working in the install directory's slurm folder (not another party's, not another
    // install's, not the user's other jobs, not a malformed line).
    void hipsStopPicksOnlyThePartysJobs() {
        const QByteArray squeue =
            "101|hips-default-20261129-party2|/home/me/.hips/slurm/default-20261129/party2-1\n"
            "102|hips-default-20261129-party2|/home/me/.hips/slurm/default-20261129/party2-2/\n"
            "103|hips-default-20261129-party22|/home/me/.hips/slurm/default-20261129/party22-1\n"
            "104|hips-default-20261129-party2|/home/me/other/slurm/default-20261129/party2-1\n"
            "105|train.sh|/home/me/.hips/slurm/x\n"
            "106|hips-default-party2|/home/me/.hips/slurmx/default/party2-1\n"
            "x7|hips-default-party2|/home/me/.hips/slurm/default/party2-1\n"
            "108|hips-a-party2|/home/me/.hips/slurm/../../other/slurm/a/party2-1\n"
            "109|hips-r-b-a|/home/me/.hips/slurm/r/b-a-1\n"  // party b-a's, not party a's
            "110|hips-r-a|/home/me/.hips/slurm/r/a-1\n"
            "111|hips-r-x|/home/me/.hips/slurm/r/party2-1\n"  // (named for another party)
            "112|hips-old-party2|/home/me/.hips/slurm/old-party2-1\n"  // submitted before 2026-12-02
            "garbage\n";
        QCOMPARE(slurmPartyJobs(squeue, "party2", "/home/me/.hips/"), (QStringList{"101", "102", "112"}));
        QCOMPARE(slurmPartyJobs(squeue, "party22", "/home/me/.hips"), (QStringList{"103"}));
        QCOMPARE(slurmPartyJobs(squeue, "a", "/home/me/.hips"), (QStringList{"110"}));
        QCOMPARE(slurmPartyJobs(squeue, "b-a", "/home/me/.hips"), (QStringList{"109"}));
        QVERIFY(slurmPartyJobs("", "party2", "/home/me/.hips").isEmpty());
    }
};

QTEST_GUILESS_MAIN(SlurmLauncherTest)
#include "tst_slurmlauncher.moc"
