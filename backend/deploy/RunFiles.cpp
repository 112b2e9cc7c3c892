#include "RunFiles.h"

#include "PrivateFiles.h"

#include <QDir>

namespace hips {

namespace {

constexpr qint64 kMaxRunFileBytes = qint64(4) << 30;  // a model of a billion floats

}  // namespace

QStringList runFilesToFetch() {
    return {QStringLiteral("model.pt"), QStringLiteral("net.params"), QStringLiteral("net.meta")};
}

QString fetchRunFiles(const Host& host, const DeployOptions& options, const QString& remoteDir, const QStringList& names,
                      const QString& localDir, const std::atomic<bool>* cancelled) {
    SshSession ssh;
    if (QString e = connectToHost(ssh, host, options, cancelled); !e.isEmpty()) return e;
    QString dir = remoteDir;
    if (QString e = withRemoteHome(ssh, host.id, &dir); !e.isEmpty()) return e;
    for (const QString& name : names) {
        QByteArray bytes;
        bool missing = false;
        if (QString e = ssh.download(dir + QLatin1Char('/') + name, kMaxRunFileBytes, &bytes, &missing); !e.isEmpty()) return e;
        if (missing) continue;
        if (QString e = makePrivateDirectory(localDir); !e.isEmpty()) return e;
        if (QString e = writeFileAtomically(QDir(localDir).filePath(name), bytes); !e.isEmpty()) return e;
    }
    return {};
}

}  // namespace hips
