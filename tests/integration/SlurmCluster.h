#pragma once
// A one-node Slurm cluster from Debian's packages (munge, slurmctld, slurmd), started inside a
// test with no systemd: its own munge key and socket, a generated slurm.conf naming this machine
// as the node of partition "hips" (select/linear: a job holds the whole node), on claimed ports,
// with every state and spool file in a temporary directory. SLURM_CONF points this process and
// its children (hips, the controller's sbatch and scontrol) at it.
#include "FreePorts.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <thread>
#include <unistd.h>

namespace hips::test {

class SlurmCluster {
public:
    // Empty when the cluster answers; else why there is none (its daemons missing, not root, ...).
    QString start() {
        for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel"})
            if (QStandardPaths::findExecutable(tool, {"/usr/sbin", "/usr/bin"}).isEmpty())
                return QStringLiteral("%1 is not installed (scripts/setup.sh installs munge, slurmctld, slurmd, slurm-client)").arg(tool);
        if (::getuid() != 0) return QStringLiteral("slurmd runs jobs as their users: the test cluster needs root");
        const QString d = m_dir.path();
        QDir().mkpath(d + "/state");
        QDir().mkpath(d + "/spool");
        QFile key(d + "/munge.key");
        if (!key.open(QIODevice::WriteOnly)) return "cannot write the munge key";
        for (int i = 0; i < 256; ++i) key.write(QByteArray::number(QRandomGenerator::global()->generate64(), 16));
        key.close();
        key.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
        if (const QString e = run("/usr/sbin/munged",
                                  {"--key-file=" + d + "/munge.key", "--socket=" + d + "/munge.sock", "--pid-file=" + d + "/munged.pid",
                                   "--log-file=" + d + "/munged.log", "--seed-file=" + d + "/munge.seed", "--force"});
            !e.isEmpty())
            return e;
        char name[256] = {};
        ::gethostname(name, sizeof name - 1);
        const QString node = QString::fromLocal8Bit(name).section('.', 0, 0);
        QFile conf(d + "/slurm.conf");
        if (!conf.open(QIODevice::WriteOnly)) return "cannot write slurm.conf";
        conf.write(QStringLiteral("ClusterName=hipstest\nSlurmctldHost=%1(127.0.0.1)\nSlurmctldPort=%2\nSlurmdPort=%3\n"
                                  "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n"
                                  "AuthInfo=socket=%4/munge.sock\nStateSaveLocation=%4/state\nSlurmdSpoolDir=%4/spool\n"
                                  "SlurmctldPidFile=%4/slurmctld.pid\nSlurmdPidFile=%4/slurmd.pid\n"
                                  "SlurmctldLogFile=%4/slurmctld.log\nSlurmdLogFile=%4/slurmd.log\n"
                                  "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
                                  "SelectType=select/linear\nMpiDefault=none\nReturnToService=2\nMinJobAge=600\n"
                                  "NodeName=%1 NodeAddr=127.0.0.1 CPUs=%5 State=UNKNOWN\n"
                                  "PartitionName=hips Nodes=%1 Default=YES MaxTime=INFINITE State=UP\n")
                       .arg(node)
                       .arg(claimFreePort())
                       .arg(claimFreePort())
                       .arg(d)
                       .arg(std::thread::hardware_concurrency())
                       .toUtf8());
        conf.close();
        qputenv("SLURM_CONF", QFile::encodeName(d + "/slurm.conf"));
        if (const QString e = run("/usr/sbin/slurmctld", {"-f", d + "/slurm.conf"}); !e.isEmpty()) return e;
        if (const QString e = run("/usr/sbin/slurmd", {"-f", d + "/slurm.conf"}); !e.isEmpty()) return e;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 60000) {
            if (output("sinfo", {"-h", "-o", "%T"}).trimmed() == "idle") return {};
            QTest::qWait(250);
        }
        return "the test cluster's node did not become idle in 60 s: " + QString::fromUtf8(tail("slurmctld.log") + tail("slurmd.log"));
    }

    ~SlurmCluster() {
        output("scancel", {"--partition=hips"});
        for (const char* daemon : {"slurmd", "slurmctld", "munged"}) {  // (each gone before the next, and before its files)
            QFile file(m_dir.filePath(QStringLiteral("%1.pid").arg(daemon)));
            const pid_t pid = file.open(QIODevice::ReadOnly) ? pid_t(file.readAll().trimmed().toLongLong()) : 0;
            if (pid <= 0 || ::kill(pid, SIGTERM) != 0) continue;
            for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) QTest::qWait(50);
        }
    }

    // A job that holds the node (`sbatch --wrap "sleep N"`): its id, once it runs.
    QString holdNode() {
        const QString id = QString::fromUtf8(output("sbatch", {"--parsable", "--wrap", "sleep 900", "-o", "/dev/null"})).trimmed();
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 30000 && state(id) != "RUNNING") QTest::qWait(200);
        return id;
    }
    QString state(const QString& job) {
        const QString line = QString::fromUtf8(output("scontrol", {"show", "job", "-o", job}));
        const qsizetype at = line.indexOf("JobState=");
        return at < 0 ? QString() : line.mid(at + 9).section(' ', 0, 0);
    }
    void cancel(const QString& job) { output("scancel", {job}); }

    static QByteArray output(const QString& tool, const QStringList& args) {
        QProcess p;
        p.start(tool, args);
        p.waitForFinished(30000);
        return p.readAllStandardOutput();
    }

private:
    static QString run(const QString& daemon, const QStringList& args) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(daemon, args);
        if (!p.waitForFinished(30000) || p.exitCode() != 0)
            return QStringLiteral("%1 did not start: %2").arg(daemon, QString::fromUtf8(p.readAll()).trimmed());
        return {};
    }
    QByteArray tail(const QString& log) {
        QFile f(m_dir.filePath(log));
        return f.open(QIODevice::ReadOnly) ? f.readAll().right(1500) : QByteArray();
    }
    QTemporaryDir m_dir;
};

}  // namespace hips::test
