#include "RemoteDataCheck.h"

namespace hips {

namespace {

constexpr int kNoTrainer = 97;  // the host has no deployed hips-trainer

}  // namespace

QString checkDataOnHost(const Host& host, const DeployOptions& options, const DataSource& source, const ReadOptions& read, QString* counts,
                        const std::atomic<bool>* cancelled) {
    SshSession ssh;
    if (QString e = connectToHost(ssh, host, options, cancelled); !e.isEmpty()) return e;
    // The request is base64: nothing in it reaches the remote shell as anything but one word.
    const QString command = QStringLiteral("cd %1 2>/dev/null && test -x bin/hips-trainer || exit %2; bin/hips-trainer check-data %3")
                                .arg(remoteDir(host.installDir))
                                .arg(kNoTrainer)
                                .arg(QString::fromLatin1(dataCheckRequest(source, read)));
    CommandResult result;
    if (QString e = ssh.run(command, &result, 300); !e.isEmpty()) return e;  // (a large image folder takes a while)
    if (result.exitStatus == kNoTrainer)
        return QStringLiteral("host '%1' has no HiPS agent in %2 yet: deploy it first (hips deploy, or start a run)")
            .arg(host.id, host.installDir);
    const QString said = QString::fromUtf8(result.ok() ? result.out : result.err).trimmed().left(4000);
    if (!result.ok())
        return QStringLiteral("host '%1': %2")
            .arg(host.id, said.isEmpty() ? QStringLiteral("the data check exited with status %1").arg(result.exitStatus) : said);
    *counts = said;
    return {};
}

}  // namespace hips
