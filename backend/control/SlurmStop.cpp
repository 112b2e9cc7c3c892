#include "SlurmStop.h"

#include "LoginShell.h"

#include <QDir>
#include <QRegularExpression>

namespace hips {

QStringList slurmPartyJobs(const QByteArray& squeue, const QString& party, const QString& installDir) {
    static const QRegularExpression number(QStringLiteral(R"(^\d+$)"));
    const QString escaped = QRegularExpression::escape(party);
    const QRegularExpression attempt(QStringLiteral(R"(^%1-\d+$)").arg(escaped));
    // (Submitted before 2026-12-02: install_dir/slurm/RUN-PARTY-N, where party "a" also matched
    // party "b-a"'s jobs.)
    const QRegularExpression oldName(QStringLiteral("^hips-.+-%1$").arg(escaped)), oldDir(QStringLiteral(R"(^.+-%1-\d+$)").arg(escaped));
    const QString jobsDir = QDir::cleanPath(installDir) + QStringLiteral("/slurm/");
    QStringList ids;
    for (const QByteArray& line : squeue.split('\n')) {
        const QStringList fields = QString::fromUtf8(line.trimmed()).split(QLatin1Char('|'));
        if (fields.size() != 3 || !number.match(fields[0]).hasMatch()) continue;
        const QString dir = QDir::cleanPath(fields[2]);
        if (!dir.startsWith(jobsDir)) continue;
        const QStringList path = dir.mid(jobsDir.size()).split(QLatin1Char('/'));  // RUN, PARTY-N
        const bool ours = path.size() == 2
                              ? attempt.match(path[1]).hasMatch() && fields[1] == QStringLiteral("hips-%1-%2").arg(path[0], party)
                              : path.size() == 1 && oldDir.match(path[0]).hasMatch() && oldName.match(fields[1]).hasMatch();
        if (ours) ids << fields[0];
    }
    return ids;
}

SlurmStop stopSlurmParty(const Topology& topology, const Party& party, const DeployOptions& options) {
    SlurmStop result;
    const SlurmLauncher& slurm = *party.slurm;
    std::unique_ptr<LoginShell> shell;
    const std::atomic<bool> never{false};
    if (slurm.loginHost.isEmpty() || topology.host(slurm.loginHost)->isLoopback()) shell = localLoginShell();
    else if (!(shell = sshLoginShell(*topology.host(slurm.loginHost), options, &never, &result.error)))
        return {{}, QStringLiteral("cannot log in to its login host %1: %2").arg(slurm.loginHost, result.error)};
    const QString installDir = shell->absolute(slurm.installDir);
    if (installDir.isEmpty())
        return {{}, QStringLiteral("cannot find the home directory on %1 for install_dir %2").arg(shell->name(), slurm.installDir)};
    CommandResult queue;
    if (QString e = shell->run(QStringLiteral("squeue --me --noheader --format='%i|%j|%Z'"), &queue, 30); !e.isEmpty() || !queue.ok())
        return {{}, QStringLiteral("squeue on %1 failed: %2").arg(shell->name(), e.isEmpty() ? QString::fromUtf8(queue.err).trimmed() : e)};
    result.cancelled = slurmPartyJobs(queue.out, party.id, installDir);
    // squeue names the folder sbatch ran in as the kernel resolved it: under a home that is a
    // link (/home/me to /nfs/home/me), not where install_dir says.
    CommandResult physical;
    if (shell->run(QStringLiteral("cd %1 2>/dev/null && pwd -P").arg(shellQuote(installDir)), &physical, 30).isEmpty() && physical.ok())
        if (const QString resolved = QString::fromUtf8(physical.out).trimmed(); !resolved.isEmpty() && resolved != installDir)
            for (const QString& id : slurmPartyJobs(queue.out, party.id, resolved))
                if (!result.cancelled.contains(id)) result.cancelled << id;
    if (result.cancelled.isEmpty()) return result;
    CommandResult cancel;
    if (QString e = shell->run(QStringLiteral("scancel ") + result.cancelled.join(QLatin1Char(' ')), &cancel, 30);
        !e.isEmpty() || !cancel.ok())
        return {
            {},
            QStringLiteral("scancel %1 on %2 failed: %3")
                .arg(result.cancelled.join(QLatin1Char(' ')), shell->name(), e.isEmpty() ? QString::fromUtf8(cancel.err).trimmed() : e)};
    return result;
}

}  // namespace hips
