#include "SlurmJob.h"

#include "CurveSecurity.h"
#include "LocalAgentLauncher.h"
#include "LoginShell.h"
#include "PartyLauncher.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <chrono>

namespace hips {

namespace {

constexpr int kAgentsStartS = 120;  // from RUNNING until every node's agent says where it listens
const QStringList kBinaries = {QStringLiteral("hips-agent"), QStringLiteral("hips-trainer")};

QString binDir(const DeployOptions& options) {
    return options.binDir.isEmpty() ? QFileInfo(LocalAgentLauncher::agentPath()).path() : options.binDir;
}

QString lastLines(const QByteArray& text, int lines) {
    QStringList all = QString::fromUtf8(text).trimmed().split(QLatin1Char('\n'));
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join(QStringLiteral(" | "));
}

}  // namespace

SlurmJob::SlurmJob(const Topology& topology, const Party& party, const QString& runName, int attempt, const DeployOptions& options)
    : m_topology(topology), m_party(party), m_slurm(*party.slurm), m_runName(runName), m_attempt(attempt), m_options(options) {}

SlurmJob::~SlurmJob() {
    m_cancelled = true;
    if (m_thread.joinable()) m_thread.join();
}

void SlurmJob::start() {
    m_thread = std::thread([this] { work(); });
}

void SlurmJob::cancel() {
    m_cancelled = true;
}

QString SlurmJob::jobId() const {
    std::lock_guard lock(m_mutex);
    return m_jobId;
}

QString SlurmJob::runsDir() const {
    return m_installDir + QStringLiteral("/runs/") + m_runName;
}

QString SlurmJob::where() const {
    return QStringLiteral("party %1's Slurm job").arg(m_party.id);
}

void SlurmJob::say(const QString& stage) {
    QMetaObject::invokeMethod(
        this, [this, stage] { Q_EMIT progress(stage); }, Qt::QueuedConnection);
}

bool SlurmJob::pause(int ms) {
    for (int waited = 0; waited < ms && !m_cancelled; waited += 100) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return !m_cancelled;
}

QString SlurmJob::batchScript(const SlurmLauncher& s, const QString& installDir, const QString& jobDir, const QString& jobName) {
    static const QRegularExpression unsafe(QStringLiteral(R"([\s%])"));
    if (jobName.contains(unsafe) || jobDir.contains(unsafe)) return {};
    QStringList lines{QStringLiteral("#!/bin/sh"), QStringLiteral("#SBATCH --job-name=") + jobName,
                      QStringLiteral("#SBATCH --nodes=%1").arg(s.nodes), QStringLiteral("#SBATCH --ntasks-per-node=%1").arg(s.tasksPerNode),
                      QStringLiteral("#SBATCH --output=%1/job.out").arg(jobDir)};
    if (!s.partition.isEmpty()) lines << QStringLiteral("#SBATCH --partition=") + s.partition;
    if (!s.account.isEmpty()) lines << QStringLiteral("#SBATCH --account=") + s.account;
    if (!s.timeLimit.isEmpty()) lines << QStringLiteral("#SBATCH --time=") + s.timeLimit;
    const QString gres = s.gpusPerNode > 0 ? QStringLiteral("--gres=gpu:%1").arg(s.gpusPerNode) : QString();
    if (!gres.isEmpty()) lines << QStringLiteral("#SBATCH ") + gres;
    for (const QString& option : s.sbatchOptions) lines << QStringLiteral("#SBATCH ") + option;
    lines << QStringLiteral("# One hips-agent per node, with the keys of the node's rank in the job; each says in its log")
          << QStringLiteral("# on which port it listens. Its roles inherit the GPUs Slurm granted (CUDA_VISIBLE_DEVICES).")
          << QStringLiteral("exec srun --nodes=%1 --ntasks=%1 --ntasks-per-node=1%2 --output=%3 \\")
                 .arg(s.nodes)
                 .arg(gres.isEmpty() ? QString() : QLatin1Char(' ') + gres, shellQuote(jobDir + QStringLiteral("/agent-%n.log")))
          << QStringLiteral(
                 "  /bin/sh -c 'exec \"$0\" daemon --keys \"$1/agent-$SLURM_NODEID.keys\" --bind \"tcp://*:*\" --runs-root \"$2\"' \\")
          << QStringLiteral("  %1 %2 %3")
                 .arg(shellQuote(installDir + QStringLiteral("/bin/hips-agent")), shellQuote(jobDir),
                      shellQuote(installDir + QStringLiteral("/runs")));
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QMap<QString, QString> SlurmJob::scontrolFields(const QByteArray& line) {
    QMap<QString, QString> fields;
    for (const QByteArray& word : line.trimmed().split(' ')) {
        const qsizetype eq = word.indexOf('=');
        if (eq > 0) fields.insert(QString::fromUtf8(word.left(eq)), QString::fromUtf8(word.mid(eq + 1)));
    }
    return fields;
}

// The install directory holds this machine's build (uploaded unless the same is there), and the
// job's directory its keys and script, readable by the login user only.
bool SlurmJob::prepare(LoginShell& shell, QString* error) {
    say(QStringLiteral("preparing %1").arg(shell.name()));
    m_installDir = shell.absolute(m_slurm.installDir);
    if (m_installDir.isEmpty()) {
        *error =
            QStringLiteral("%1: cannot find the home directory on %2 for install_dir %3").arg(where(), shell.name(), m_slurm.installDir);
        return false;
    }
    // (RUN/PARTY-N: `hips stop` tells a party's jobs by it; run names and party ids may both hold '-'.)
    m_jobDir = QStringLiteral("%1/slurm/%2/%3-%4").arg(m_installDir, m_runName, m_party.id).arg(m_attempt);
    const QString install = shellQuote(m_installDir);
    CommandResult probe;
    if (QString e = shell.run(QStringLiteral("mkdir -p %1/bin %1/runs %2 && chmod 700 %2 && cd %1/bin && (sha256sum %3 2>/dev/null; true)")
                                  .arg(install, shellQuote(m_jobDir), kBinaries.join(QLatin1Char(' '))),
                              &probe);
        !e.isEmpty() || !probe.ok()) {
        *error = QStringLiteral("%1: cannot create %2 on %3: %4")
                     .arg(where(), m_jobDir, shell.name(), e.isEmpty() ? QString::fromUtf8(probe.err).trimmed() : e);
        return false;
    }
    for (const QString& binary : kBinaries) {
        QFile f(QDir(binDir(m_options)).filePath(binary));
        if (!f.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1: cannot read %2 (%3); build it, or set HIPS_AGENT").arg(where(), f.fileName(), f.errorString());
            return false;
        }
        const QByteArray bytes = f.readAll();
        const QByteArray sum = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
        if (probe.out.contains(sum + "  " + binary.toUtf8())) continue;
        say(QStringLiteral("uploading %1 to %2").arg(binary, shell.name()));
        if (QString e = shell.write(bytes, m_installDir + QStringLiteral("/bin/") + binary, 0755); !e.isEmpty()) {
            *error = QStringLiteral("%1: %2").arg(where(), e);
            return false;
        }
    }
    if (m_topology.training.torchScript()) {  // where the roles look for the user's model first
        QFile f(m_topology.training.modelFile);
        const QString to = QStringLiteral("%1/models/%2.pt").arg(m_installDir, m_topology.training.modelSha256);
        CommandResult made;
        shell.run(QStringLiteral("mkdir -p %1/models").arg(install), &made);
        if (!f.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1: cannot read the model %2 (%3)").arg(where(), f.fileName(), f.errorString());
            return false;
        }
        if (QString e = shell.write(f.readAll(), to, 0644); !e.isEmpty()) {
            *error = QStringLiteral("%1: %2").arg(where(), e);
            return false;
        }
    }
    for (int i = 0; i < m_slurm.nodes; ++i) {
        const CurveKeyPair keys = CurveKeyPair::generate();
        m_publicKeys << keys.publicKey;
        if (QString e = shell.write(keys.toText() + '\n' + m_options.controllerPublicKey + '\n',
                                    QStringLiteral("%1/agent-%2.keys").arg(m_jobDir).arg(i), 0600);
            !e.isEmpty()) {
            *error = QStringLiteral("%1: %2").arg(where(), e);
            return false;
        }
    }
    const QString script = batchScript(m_slurm, m_installDir, m_jobDir, QStringLiteral("hips-%1-%2").arg(m_runName, m_party.id));
    if (script.isEmpty()) {
        *error = QStringLiteral(
                     "%1: its job folder %2 holds a space or '%' that an #SBATCH line cannot carry; choose an install_dir "
                     "without them")
                     .arg(where(), m_jobDir);
        return false;
    }
    if (QString e = shell.write(script.toUtf8(), m_jobDir + QStringLiteral("/job.sh"), 0700); !e.isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(where(), e);
        return false;
    }
    return true;
}

QString SlurmJob::submittedJobId(const QByteArray& out) {
    const QString last = QString::fromUtf8(out).trimmed().split(QLatin1Char('\n')).constLast().trimmed();
    const QString id = last.section(QLatin1Char(';'), 0, 0);
    static const QRegularExpression number(QStringLiteral(R"(^\d{1,18}$)"));
    return number.match(id).hasMatch() ? id : QString();
}

bool SlurmJob::submit(LoginShell& shell, QString* error) {
    say(QStringLiteral("submitting the batch job on %1").arg(shell.name()));
    CommandResult r;
    // A busy slurmctld may take minutes to answer (sbatch cut off at 60 s had often queued the
    // job); the login host ends sbatch itself before we stop waiting (closing an ssh channel
    // does not).
    constexpr int kSbatchSeconds = 280;
    const QString e =
        shell.run(QStringLiteral("cd %1 && timeout %2 sbatch --parsable job.sh").arg(shellQuote(m_jobDir)).arg(kSbatchSeconds), &r,
                  kSbatchSeconds + 20);
    const QString id = submittedJobId(r.out);
    if (!e.isEmpty() || !r.ok() || id.isEmpty()) {
        // It may be queued all the same: by its id, or by its folder where it gave none.
        CommandResult cancelled;
        if (!id.isEmpty()) shell.run(QStringLiteral("scancel %1").arg(id), &cancelled, 30);
        cancelByFolder(shell);
        const QString why = e.isEmpty() ? QString::fromUtf8(r.err + r.out).trimmed() : e;
        *error = r.exitStatus == 124 || !e.isEmpty()
                     ? QStringLiteral(
                           "%1: sbatch on %2 did not answer (%3); a job it may have queued was cancelled: try again, "
                           "or ask the cluster's operators about slurmctld")
                           .arg(where(), shell.name(), why)
                     : QStringLiteral("%1: sbatch on %2 refused it: %3; check the launcher's partition, account and sbatch_options")
                           .arg(where(), shell.name(), why);
        return false;
    }
    {
        std::lock_guard lock(m_mutex);
        m_jobId = id;
    }
    QMetaObject::invokeMethod(
        this, [this, id] { Q_EMIT submitted(id); }, Qt::QueuedConnection);
    return true;
}

// Queued (PENDING, with Slurm's reason) until queue_patience_s; then RUNNING until each node's
// agent says where it listens; any other state ends the wait with what the job wrote.
bool SlurmJob::awaitAgents(LoginShell& shell, QString* error) {
    QElapsedTimer queued, running;
    queued.start();
    QList<SlurmNode> nodes;
    QString lastStage;
    int misses = 0;
    const QString id = jobId();
    const QStringList hosts = partyHosts(m_party);
    const auto logs = [&] {
        CommandResult r;
        shell.run(QStringLiteral("cd %1 && tail -n 5 job.out agent-*.log 2>/dev/null").arg(shellQuote(m_jobDir)), &r, 20);
        return lastLines(r.out, 12);
    };
    while (pause(lastStage.isEmpty() ? 0 : 1000)) {
        QMap<QString, QString> job;
        QString why;
        const Look seen = look(shell, id, &job, &misses, &why);
        if (seen == Look::Hiccup) continue;
        if (seen == Look::Lost) {
            *error = QStringLiteral("%1 %2: scontrol cannot find it: %3").arg(where(), id, why);
            return false;
        }
        const QString state = job.value(QStringLiteral("JobState")), reason = job.value(QStringLiteral("Reason"));
        const QString stage = QStringLiteral("Slurm job %1: %2 (%3)").arg(id, state, reason);
        if (stage != lastStage) say(lastStage = stage);
        if (state == QLatin1String("PENDING") || state == QLatin1String("CONFIGURING") || state == QLatin1String("REQUEUED")) {
            if (queued.elapsed() / 1000 < m_slurm.queuePatienceS) continue;
            *error = QStringLiteral(
                         "%1 %2 was still %3 after %4 s (reason: %5); free the partition, or raise the launcher's "
                         "queue_patience_s")
                         .arg(where(), id, state)
                         .arg(m_slurm.queuePatienceS)
                         .arg(reason);
            return false;
        }
        if (state != QLatin1String("RUNNING")) {
            *error =
                QStringLiteral("%1 %2 ended before its agents started: %3 (%4); its output: %5").arg(where(), id, state, reason, logs());
            return false;
        }
        if (!running.isValid()) running.start();
        if (nodes.isEmpty()) {
            CommandResult names;
            shell.run(QStringLiteral("scontrol show hostnames %1").arg(shellQuote(job.value(QStringLiteral("NodeList")))), &names, 30);
            const QStringList list = QString::fromUtf8(names.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            for (int i = 0; i < list.size() && i < hosts.size(); ++i) {
                CommandResult node;
                shell.run(QStringLiteral("scontrol show node -o %1").arg(shellQuote(list[i])), &node, 30);
                const QString address = scontrolFields(node.out).value(QStringLiteral("NodeAddr"), list[i]);
                nodes << SlurmNode{hosts[i], list[i], address, {}, m_publicKeys.value(i)};
            }
        }
        CommandResult announced;
        shell.run(QStringLiteral("cd %1 && for i in $(seq 0 %2); do printf '%%s ' $i; grep -m1 HIPS-AGENT-ENDPOINT agent-$i.log "
                                 "2>/dev/null || echo; done")
                      .arg(shellQuote(m_jobDir))
                      .arg(nodes.size() - 1),
                  &announced, 30);
        int ready = 0;
        for (const QByteArray& line : announced.out.split('\n')) {
            const QList<QByteArray> words = line.split(' ');
            const int i = words.value(0).toInt();
            const int port = words.value(2).mid(words.value(2).lastIndexOf(':') + 1).toInt();
            if (words.size() < 3 || i < 0 || i >= nodes.size() || port <= 0 || port > 65535) continue;
            nodes[i].endpoint = tcpEndpoint(nodes[i].address, port);
            ++ready;
        }
        if (!nodes.isEmpty() && ready == nodes.size()) {
            CommandResult removed;  // (each agent read its keys before it said where it listens)
            shell.run(QStringLiteral("rm -f %1/agent-*.keys").arg(shellQuote(m_jobDir)), &removed, 30);
            QMetaObject::invokeMethod(
                this, [this, nodes] { Q_EMIT allocated(nodes); }, Qt::QueuedConnection);
            return true;
        }
        if (running.elapsed() / 1000 > kAgentsStartS) {
            *error =
                QStringLiteral("%1 %2 runs, but its agents did not start within %3 s: %4").arg(where(), id).arg(kAgentsStartS).arg(logs());
            return false;
        }
    }
    return false;
}

// A look at the job that fails is a hiccup (a busy slurmctld times out) until kMissedLooks in a
// row; it is lost at once where Slurm no longer knows it. (A hiccup read as "gone" failed the run,
// or resubmitted the party beside a job still holding its nodes.)
SlurmJob::Look SlurmJob::look(LoginShell& shell, const QString& id, QMap<QString, QString>* job, int* misses, QString* why) {
    constexpr int kMissedLooks = 5;
    CommandResult r;
    const QString e = shell.run(QStringLiteral("scontrol show job -o %1").arg(id), &r, 30);
    if (e.isEmpty() && r.ok()) {
        *misses = 0;
        *job = scontrolFields(r.out);
        return Look::Seen;
    }
    *why = e.isEmpty() ? QString::fromUtf8(r.err).trimmed() : e;
    const bool unknown = e.isEmpty() && why->contains(QLatin1String("Invalid job id"), Qt::CaseInsensitive);
    return unknown || ++*misses >= kMissedLooks ? Look::Lost : Look::Hiccup;
}

void SlurmJob::watch(LoginShell& shell) {
    const QString id = jobId();
    int misses = 0;
    while (pause(2000)) {
        QMap<QString, QString> job;
        QString why;
        const Look seen = look(shell, id, &job, &misses, &why);
        if (seen == Look::Hiccup) continue;
        const QString state = seen == Look::Lost ? QStringLiteral("gone") : job.value(QStringLiteral("JobState"));
        if (state == QLatin1String("RUNNING")) continue;
        const QString reason =
            QStringLiteral("%1 %2 ended: %3 (%4)").arg(where(), id, state, seen == Look::Lost ? why : job.value(QStringLiteral("Reason")));
        QMetaObject::invokeMethod(
            this, [this, reason] { Q_EMIT ended(reason); }, Qt::QueuedConnection);
        return;
    }
}

// The user's jobs that work in this job's folder (its own: a folder per submission), cancelled;
// for a job queued by an sbatch whose answer never came. (Slurm gives the folder resolved.)
void SlurmJob::cancelByFolder(LoginShell& shell) {
    CommandResult r;
    shell.run(QStringLiteral("cd %1 && d=$(pwd -P) && squeue -u \"$(id -un)\" --noheader --format='%i|%Z' | "
                             "awk -F'|' -v d=\"$d\" '$2 == d { print $1 }' | xargs -r scancel")
                  .arg(shellQuote(m_jobDir)),
              &r, 60);
}

void SlurmJob::work() {
    QString error;
    std::unique_ptr<LoginShell> shell;
    if (m_slurm.loginHost.isEmpty() || m_topology.host(m_slurm.loginHost)->isLoopback()) shell = localLoginShell();
    else if (!(shell = sshLoginShell(*m_topology.host(m_slurm.loginHost), m_options, &m_cancelled, &error)))
        error = QStringLiteral("%1: cannot log in to its login host: %2").arg(where(), error);
    const bool up = shell && prepare(*shell, &error) && submit(*shell, &error) && awaitAgents(*shell, &error);
    if (up) watch(*shell);
    // Always: a job watched no more (suspended, or lost to scontrol) must not keep its nodes
    // beside the party's next job. One already over refuses quietly.
    if (shell && !jobId().isEmpty()) {
        CommandResult r;
        shell->run(QStringLiteral("scancel %1").arg(jobId()), &r, 30);
    }
    if (!up && !m_cancelled)
        QMetaObject::invokeMethod(
            this, [this, error] { Q_EMIT failed(error); }, Qt::QueuedConnection);
}

}  // namespace hips
