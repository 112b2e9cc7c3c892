#include "LoginShell.h"

#include <QFile>
#include <QProcess>

namespace hips {

QString LoginShell::absolute(const QString& dir) {
    if (dir != QLatin1String("~") && !dir.startsWith(QLatin1String("~/"))) return dir;
    CommandResult home;
    if (!run(QStringLiteral("printf %s \"$HOME\""), &home).isEmpty() || !home.ok() || home.out.isEmpty()) return {};
    return QString::fromUtf8(home.out) + dir.mid(1);
}

namespace {

class LocalShell : public LoginShell {
public:
    QString run(const QString& command, CommandResult* result, int timeoutSeconds) override {
        QProcess p;
        p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
        if (!p.waitForStarted(10000)) return QStringLiteral("cannot start /bin/sh: %1").arg(p.errorString());
        if (!p.waitForFinished(timeoutSeconds * 1000)) {
            p.kill();
            p.waitForFinished(2000);
            return QStringLiteral("'%1' did not finish within %2 s").arg(command.left(60)).arg(timeoutSeconds);
        }
        result->exitStatus = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        result->out = p.readAllStandardOutput();
        result->err = p.readAllStandardError();
        return {};
    }
    QString write(const QByteArray& data, const QString& path, int mode) override {
        QFile f(path);
        QFile::remove(path);  // (a binary still running elsewhere keeps its old inode)
        if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size() || !f.flush())
            return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        f.close();
        QFile::Permissions permissions = QFile::ReadOwner | QFile::WriteOwner;
        if (mode & 0100) permissions |= QFile::ExeOwner;
        if (mode & 0040) permissions |= QFile::ReadGroup;
        if (mode & 0010) permissions |= QFile::ExeGroup;
        if (!f.setPermissions(permissions)) return QStringLiteral("cannot set the mode of %1: %2").arg(path, f.errorString());
        return {};
    }
    QString name() const override { return QStringLiteral("this machine"); }
};

class SshShell : public LoginShell {
public:
    explicit SshShell(QString host) : m_host(std::move(host)) {}
    QString run(const QString& command, CommandResult* result, int timeoutSeconds) override {
        return m_ssh.run(command, result, timeoutSeconds);
    }
    QString write(const QByteArray& data, const QString& path, int mode) override {
        QString e = m_ssh.upload(data, path, mode);
        m_ssh.finishUploads();
        return e;
    }
    QString name() const override { return QStringLiteral("login host ") + m_host; }
    SshSession m_ssh;

private:
    QString m_host;
};

}  // namespace

std::unique_ptr<LoginShell> localLoginShell() {
    return std::make_unique<LocalShell>();
}

std::unique_ptr<LoginShell> sshLoginShell(const Host& host, const DeployOptions& options, const std::atomic<bool>* cancelled,
                                          QString* error) {
    auto shell = std::make_unique<SshShell>(host.id);
    if (QString e = connectToHost(shell->m_ssh, host, options, cancelled); !e.isEmpty()) {
        *error = e;
        return nullptr;
    }
    return shell;
}

}  // namespace hips
